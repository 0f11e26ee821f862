//! `hotl sessions export` and `hotl --export`: one self-contained page (and Markdown, and a log
//! that imports back), written without touching the session; hostile text stays text; folds,
//! reverted branches, forks and delegated children are all on the page.

use hotl_log::{Block, Body, Delegation, Store, Usage};
use hotl_testkit::{LogBuilder, TestResult};
use serde_json::json;

use crate::common::{Env, path_str};

/// Text no renderer may let through as markup.
pub const HOSTILE: &str = "look: </script><script>window.__pwned=1</script> <!-- x --> <img src=x onerror=\"window.__pwned=2\"> ${x} $& $' \u{2028} end";

pub const ROOT: &str = "01JE0000000000000000000R00";
pub const CHILD: &str = "01JE0000000000000000000C01";
pub const GRANDCHILD: &str = "01JE0000000000000000000G01";

fn answer(content: Vec<Block>, usage: Option<Usage>) -> Body {
    let stop = if content_has_call(&content) {
        "tool_use"
    } else {
        "done"
    };
    Body::Assistant {
        content,
        model: Some("claude-sonnet-5".to_owned()),
        stop: Some(stop.to_owned()),
        stop_raw: None,
        usage,
    }
}

fn content_has_call(content: &[Block]) -> bool {
    content.iter().any(|b| matches!(b, Block::ToolUse { .. }))
}

fn usage(input: u64, cache_read: u64, cache_write: u64, output: u64) -> Option<Usage> {
    Some(Usage {
        input,
        cache_read,
        cache_write,
        output,
        thinking: 0,
        ..Usage::default()
    })
}

fn call(id: &str, name: &str, input: serde_json::Value) -> Block {
    Block::ToolUse {
        id: id.to_owned(),
        name: name.to_owned(),
        input: input.into(),
    }
}

/// What a rich session holds, for tests to compare the page with.
pub struct Rich {
    pub root: String,
    /// Items archived inside the fold.
    pub archived: usize,
}

/// A session with a bit of everything: hostile text, thinking with a signature, tool calls
/// (bash, edit), a fold whose span holds a marker token, a reverted branch, usage, and a
/// delegated child with a grandchild (both clean, each holding a marker token).
pub fn rich(env: &Env) -> TestResult<Rich> {
    let cwd = env.cwd();
    let mut root = LogBuilder::new(ROOT, &cwd);
    root.record(Body::title("A rich session".to_owned()));
    let first = root.user(HOSTILE);
    root.record(answer(
        vec![
            Block::Thinking {
                thinking: "I should read the README first".to_owned(),
                signature: Some("SIGNATURE-NEVER-SHOWN".to_owned()),
            },
            Block::text("Reading it."),
            call("call_r1", "bash", json!({"command": "cat README.md"})),
        ],
        usage(1000, 0, 4000, 50),
    ));
    let lines: String = (1..=30).map(|i| format!("readme line {i}\n")).collect();
    root.record(Body::ToolResult {
        call: "call_r1".to_owned(),
        content: vec![Block::text(lines)],
        blob: None,
        is_error: false,
        files: Vec::new(),
    });
    root.record(answer(
        vec![call(
            "call_r2",
            "edit",
            json!({"path": "src/a.rs", "old": "one\ntwo\n", "new": "one\n2\n"}),
        )],
        usage(100, 4000, 0, 40),
    ));
    root.tool_result("call_r2", "edited src/a.rs");
    let last = root.record(answer(
        vec![Block::text("First task done: ARCHIVED-TOKEN-ALPHA")],
        usage(80, 4100, 0, 20),
    ));
    root.fold(
        first,
        last,
        "f1a2b3c4",
        "changed: src/a.rs (one line)\nlearned: the README has 30 lines",
    );
    root.user("second task: hand part of it off");
    let spawn = root.record(answer(
        vec![call(
            "call_r3",
            "fork",
            json!({"task": "look into the child part"}),
        )],
        usage(50, 4200, 0, 30),
    ));
    root.tool_result("call_r3", "the child found it");
    let kept = root.record(answer(
        vec![Block::text("Second task done.")],
        usage(60, 4300, 0, 25),
    ));
    root.user("third task: to be taken back");
    root.record(answer(
        vec![Block::text("REVERTED-TOKEN-DELTA")],
        usage(0, 0, 5000, 10),
    ));
    root.record(Body::Revert { to: kept });
    root.user("fourth task");
    root.record(answer(
        vec![call("call_r4", "bash", json!({"command": "seq 400"}))],
        usage(70, 0, 4400, 15),
    ));
    let long: String = (1..=400)
        .map(|i| {
            if i == 350 {
                "TAIL-TOKEN-EPSILON\n".to_owned()
            } else {
                format!("output line {i}\n")
            }
        })
        .collect();
    root.tool_result("call_r4", &long);
    root.record(answer(
        vec![Block::text("Fourth answer.")],
        usage(10, 4400, 0, 15),
    ));

    let mut child = LogBuilder::delegated(
        CHILD,
        &cwd,
        Delegation {
            by: ROOT.to_owned(),
            agent: Some("explore".to_owned()),
            description: "look into the child part".to_owned(),
            handle: Some("kid1".to_owned()),
            call: Some("call_r3".to_owned()),
            at: Some(spawn),
            agent_blob: None,
            background: false,
        },
    );
    child.user("look into the child part: CHILD-TOKEN-BETA");
    let grand_at = child.record(answer(
        vec![call("call_c1", "fork", json!({"task": "deeper"}))],
        usage(10, 0, 100, 5),
    ));
    child.tool_result("call_c1", "the grandchild answered");
    child.record(answer(
        vec![Block::text("child answer")],
        usage(10, 100, 0, 5),
    ));
    let mut grandchild = LogBuilder::delegated(
        GRANDCHILD,
        &cwd,
        Delegation {
            by: CHILD.to_owned(),
            agent: None,
            description: "deeper".to_owned(),
            handle: Some("kid2".to_owned()),
            call: Some("call_c1".to_owned()),
            at: Some(grand_at),
            agent_blob: None,
            background: false,
        },
    );
    grandchild.user("deeper: GRANDCHILD-TOKEN-GAMMA");
    grandchild.record(answer(
        vec![Block::text("grandchild answer")],
        usage(5, 0, 50, 5),
    ));

    let store = Store::new(&env.home);
    store.create_encoded(
        (ROOT, &root.text()),
        &[
            (CHILD.to_owned(), child.text()),
            (GRANDCHILD.to_owned(), grandchild.text()),
        ],
    )?;
    // The fold's span: the message, three answers, two results.
    Ok(Rich {
        root: ROOT.to_owned(),
        archived: 6,
    })
}

fn export(env: &Env, args: &[&str]) -> TestResult<(String, String)> {
    let mut all = vec!["sessions", "export"];
    all.extend_from_slice(args);
    let out = env.run(&all).ok();
    let path = out.line().to_owned();
    let page = std::fs::read_to_string(&path)?;
    Ok((path, page))
}

#[test]
fn an_export_is_deterministic_and_never_touches_the_session() -> TestResult {
    let env = Env::new()?;
    let rich = rich(&env)?;
    let log = env.log_path(&rich.root);
    let before = (std::fs::read(&log)?, std::fs::metadata(&log)?.modified()?);
    let (path, first) = export(&env, &[&rich.root])?;
    assert!(path.ends_with(".html"), "{path}");
    let exports = env.home.join("exports");
    assert!(path.starts_with(&*exports.to_string_lossy()), "{path}");
    let (_, second) = export(&env, &[&rich.root, "-o", "again.html"])?;
    assert_eq!(first, second, "the same session exports to the same bytes");
    assert_eq!(
        (std::fs::read(&log)?, std::fs::metadata(&log)?.modified()?),
        before,
        "the log is untouched"
    );
    Ok(())
}

#[test]
fn the_page_is_self_contained_with_a_strict_policy() -> TestResult {
    let env = Env::new()?;
    let rich = rich(&env)?;
    let (_, page) = export(&env, &[&rich.root])?;
    let policy = "default-src 'none'; script-src 'sha256-";
    assert!(page.contains(policy), "a content security policy");
    assert!(page.contains("connect-src 'none'"));
    for fetch in [
        "src=\"http",
        "href=\"http",
        "@import",
        "url(http",
        "src=\"//",
        "<link",
    ] {
        assert!(
            !page.contains(fetch),
            "{fetch} would fetch from the network"
        );
    }
    // The embedded document: base64 of gzipped JSON, tagged.
    let data = page
        .split("id=\"hotl-data\">")
        .nth(1)
        .and_then(|rest| rest.split("</script>").next())
        .ok_or("no embedded document")?;
    use base64::Engine as _;
    let gz = base64::engine::general_purpose::STANDARD.decode(data)?;
    let doc: serde_json::Value = serde_json::from_slice(&hotl_export::seal::gunzip(&gz)?)?;
    assert_eq!(doc["format"], "hotl-export/1");
    assert_eq!(doc["session"]["id"], rich.root.as_str());
    assert!(doc["log"].as_str().unwrap_or("").lines().count() > 10);
    Ok(())
}

#[test]
fn hostile_text_stays_text() -> TestResult {
    let env = Env::new()?;
    let rich = rich(&env)?;
    let (_, page) = export(&env, &[&rich.root])?;
    // Two scripts: the embedded document and the page's own.
    assert_eq!(
        page.matches("<script").count(),
        2,
        "no script from the session"
    );
    assert!(!page.contains("<img src=x"), "no element from the session");
    assert!(!page.contains("<!-- x"), "no comment from the session");
    assert!(!page.contains('\u{2028}'), "no raw line separator");
    assert!(page.contains("&lt;/script&gt;&lt;script&gt;window.__pwned=1&lt;/script&gt;"));
    assert!(
        page.contains("${x} $&amp; $'"),
        "replacement patterns kept as text"
    );
    Ok(())
}

#[test]
fn thinking_shows_and_its_signature_never_does() -> TestResult {
    let env = Env::new()?;
    let rich = rich(&env)?;
    let (_, page) = export(&env, &[&rich.root])?;
    assert!(page.contains("I should read the README first"));
    assert!(!page.contains("SIGNATURE-NEVER-SHOWN"));
    Ok(())
}

#[test]
fn tool_cards_pair_results_by_call_and_show_edits_as_diffs() -> TestResult {
    let env = Env::new()?;
    let rich = rich(&env)?;
    let (_, page) = export(&env, &[&rich.root])?;
    assert!(page.contains("<span class=\"sum\">$ cat README.md</span>"));
    assert!(page.contains("<span class=\"sum\">edit src/a.rs</span>"));
    assert!(page.contains("<span class=\"dd\">-two</span>"));
    assert!(page.contains("<span class=\"da\">+2</span>"));
    // 30 lines: ten shown, twenty behind a click.
    assert!(page.contains("20 more lines"));
    // A long output's rest waits in the page's document until opened.
    assert!(page.contains("390 more lines"));
    assert!(!page.contains("TAIL-TOKEN-EPSILON"), "not in the markup");
    // The result sits in its call's card, anchored by its stamp.
    let card = page
        .split_once("<span class=\"sum\">$ cat README.md")
        .and_then(|(_, rest)| rest.split("<details class=\"tool").next())
        .ok_or("no card")?;
    assert!(card.contains("readme line 1"), "{card}");
    Ok(())
}

#[test]
fn folds_expand_to_their_archived_items_and_branches_stay_reachable() -> TestResult {
    let env = Env::new()?;
    let rich = rich(&env)?;
    let (_, page) = export(&env, &[&rich.root])?;
    assert!(page.contains("folded <b>f1a2b3c4</b>"));
    assert!(page.contains(&format!("archived items ({})", rich.archived)));
    assert!(
        page.contains("ARCHIVED-TOKEN-ALPHA"),
        "archived text is in the page"
    );
    assert!(page.contains("learned: the README has 30 lines"));
    assert!(page.contains("reverted to t"), "the revert is marked");
    assert!(
        page.contains("REVERTED-TOKEN-DELTA"),
        "the branch it left is reachable"
    );
    assert!(page.contains("id=\"t3\""), "stamps are anchors");
    Ok(())
}

#[test]
fn delegated_children_open_from_the_call_that_started_them() -> TestResult {
    let env = Env::new()?;
    let rich = rich(&env)?;
    let (_, page) = export(&env, &[&rich.root])?;
    assert!(
        page.contains(&format!("data-child=\"c-{CHILD}\"")),
        "a chip for the child"
    );
    assert!(
        page.contains(&format!("data-child=\"c-{GRANDCHILD}\"")),
        "and its child's"
    );
    assert!(page.contains(&format!("<section class=\"child\" id=\"c-{CHILD}\"")));
    assert!(page.contains(&format!(
        "<section class=\"child\" id=\"c-{GRANDCHILD}\" data-label=\"kid2\" data-parent=\"c-{CHILD}\""
    )));
    assert!(page.contains("CHILD-TOKEN-BETA") && page.contains("GRANDCHILD-TOKEN-GAMMA"));
    assert!(page.contains("3 delegated session") || page.contains("2 delegated sessions"));
    Ok(())
}

#[test]
fn the_economy_matches_hotl_stats() -> TestResult {
    let env = Env::new()?;
    let rich = rich(&env)?;
    let (_, page) = export(&env, &[&rich.root])?;
    let stats = env.json(&["stats", &rich.root, "--json"])?;
    let turn = &stats["turns"][0];
    let cost = turn["cost"].as_f64().ok_or("no cost")?;
    let hit = turn["cache_hit"].as_f64().ok_or("no hit")?;
    let line = format!(
        "in {} · cache read {} · write {} · out {} · ${cost:.4} · {:.0}% cached",
        hotl_export::thousands(turn["input"].as_u64().unwrap_or(0)),
        hotl_export::thousands(turn["cache_read"].as_u64().unwrap_or(0)),
        hotl_export::thousands(turn["cache_write"].as_u64().unwrap_or(0)),
        hotl_export::thousands(turn["output"].as_u64().unwrap_or(0)),
        hit * 100.0
    );
    assert!(page.contains(&line), "{line} not in the page");
    assert!(
        page.contains("⚠ cache broke"),
        "the reverted turn's cold cache is marked"
    );
    Ok(())
}

#[test]
fn an_unknown_model_is_unpriced_not_free() -> TestResult {
    let env = Env::new()?;
    let mut log = env.log("01JE0000000000000000000V01");
    log.user("hi");
    log.record(Body::Assistant {
        content: vec![Block::text("hello")],
        model: Some("model-nobody-prices".to_owned()),
        stop: Some("done".to_owned()),
        stop_raw: None,
        usage: usage(10, 0, 0, 5),
    });
    let id = env.import(&log)?;
    let (_, page) = export(&env, &[&id])?;
    assert!(page.contains("unpriced: the pricing table does not know model-nobody-prices"));
    Ok(())
}

#[test]
fn a_fork_shows_what_it_inherited() -> TestResult {
    let env = Env::new()?;
    let parent = env.import(&env.log_with_turns("01JE0000000000000000000P01", 3))?;
    let fork = env
        .run(&["sessions", "fork", &parent, "--keep-turns", "2"])
        .ok();
    let child = fork.line().to_owned();
    let (_, page) = export(&env, &[&child])?;
    assert!(
        page.contains("inherited from 01JE0000000000000000000P01 up to t"),
        "{page:.0}"
    );
    assert!(page.contains("Forked: lineage 01JE0000000000000000000P01"));
    Ok(())
}

#[test]
fn markdown_keeps_its_fences_valid() -> TestResult {
    let env = Env::new()?;
    let mut log = env.log("01JE0000000000000000000M01");
    log.user("show me a fence");
    let (_, call) = log.tool_call("bash", json!({"command": "cat notes.md"}));
    log.tool_result(&call, "notes:\n```rust\nfn main() {}\n```\nend");
    log.assistant("An unclosed one:\n```python\nprint(1)\n");
    let id = env.import(&log)?;
    let (path, md) = export(&env, &[&id, "-o", "out.md"])?;
    assert!(path.ends_with("out.md"));
    assert!(md.contains("````\nnotes:\n```rust"), "{md}");
    assert!(md.contains("````\nAn unclosed one:"), "{md}");
    // Every fence opened is closed.
    let mut open: Option<usize> = None;
    for line in md.lines() {
        let ticks = line.len() - line.trim_start_matches('`').len();
        match open {
            None if ticks >= 3 => open = Some(ticks),
            Some(n) if ticks >= n && line.trim_start_matches('`').is_empty() => open = None,
            _ => {}
        }
    }
    assert_eq!(open, None, "a fence was left open:\n{md}");
    Ok(())
}

#[test]
fn a_jsonl_export_imports_back_into_the_same_transcript() -> TestResult {
    let env = Env::new()?;
    let rich = rich(&env)?;
    let (path, _) = export(
        &env,
        &[&rich.root, "--format", "jsonl", "-o", "round.jsonl"],
    )?;
    // Its delegated sessions are the tree's, not the transcript's: the log alone has none.
    let transcript = |id: &str| -> String {
        env.run(&["sessions", "show", id])
            .ok()
            .stdout
            .replace(id, "ID")
            .lines()
            .filter(|l| !l.starts_with('↳'))
            .map(|l| format!("{l}\n"))
            .collect()
    };
    let imported = env.run(&["sessions", "import", &path, "--new-id"]).ok();
    assert_eq!(transcript(imported.line()), transcript(&rich.root));
    Ok(())
}

#[test]
fn export_of_a_log_file_opens_no_session() -> TestResult {
    let env = Env::new()?;
    let file = env.scratch(
        "saved.jsonl",
        &env.log_with_turns("01JE0000000000000000000F01", 2).text(),
    )?;
    let out = env.run(&["--export", path_str(&file)?, "page.html"]).ok();
    assert!(out.line().ends_with("page.html"), "{out}");
    let page = std::fs::read_to_string(env.project.join("page.html"))?;
    assert!(
        page.contains("done: turn 2") || page.contains("turn 2"),
        "the transcript is there"
    );
    let list = env.json(&["sessions", "list", "--json"])?;
    assert_eq!(
        list.as_array().map(Vec::len),
        Some(0),
        "nothing was opened or adopted"
    );
    let bad = env.scratch("bad.jsonl", b"not a log\n")?;
    let out = env.run(&["--export", path_str(&bad)?]).fails(1);
    assert!(out.stderr.contains("not a hotl session log"), "{out}");
    Ok(())
}

#[test]
fn over_the_budget_a_page_is_trimmed_and_says_so() -> TestResult {
    let env = Env::new()?;
    let mut log = env.log("01JE0000000000000000000B01");
    for i in 0..6 {
        log.user(&format!("turn {i}"));
        let (_, call) = log.tool_call("bash", json!({"command": "seq 100000"}));
        log.tool_result(&call, &"x".repeat(60_000));
        log.assistant("ok");
    }
    let id = env.import(&log)?;
    let out = env
        .run(&[
            "sessions",
            "export",
            &id,
            "--max-bytes",
            "200000",
            "-o",
            "small.html",
        ])
        .ok();
    assert!(out.stderr.contains("trimmed:"), "{out}");
    assert!(out.stderr.contains("strings cut to"), "{out}");
    let page = std::fs::read(env.project.join("small.html"))?;
    assert!(page.len() <= 200_000, "{} bytes", page.len());
    assert!(String::from_utf8_lossy(&page).contains("Trimmed to fit:"));
    let full = env
        .run(&["sessions", "export", &id, "--full", "-o", "full.html"])
        .ok();
    assert!(!full.stderr.contains("trimmed"), "{full}");
    assert!(std::fs::metadata(env.project.join("full.html"))?.len() > 360_000);
    let none = env
        .run(&["sessions", "export", &id, "--max-bytes", "100"])
        .fails(1);
    assert!(none.stderr.contains("too large"), "{none}");
    Ok(())
}

#[test]
fn redacted_exports_hide_keys() -> TestResult {
    let env = Env::new()?;
    let mut log = env.log("01JE0000000000000000000K01");
    let key = format!("sk-ant-api03-{}", "Q".repeat(40));
    log.user(&format!("my key is {key}"));
    log.assistant("noted");
    let id = env.import(&log)?;
    let (_, plain) = export(&env, &[&id, "-o", "plain.html"])?;
    assert!(plain.contains(&key));
    let out = env
        .run(&["sessions", "export", &id, "--redact", "-o", "red.html"])
        .ok();
    assert!(out.stderr.contains("redacted: 1 anthropic key"), "{out}");
    let red = std::fs::read_to_string(env.project.join("red.html"))?;
    assert!(!red.contains(&key));
    assert!(red.contains("[REDACTED anthropic key]"));
    Ok(())
}

#[test]
fn an_imported_session_says_where_it_came_from_and_shows_its_sub_agent() -> TestResult {
    let env = Env::new()?;
    let file = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(
        "../hotl-import/tests/fixtures/claude-code/cc-2.1.7-subagent/e9fb405b-169f-40eb-9396-7e75076f045d.jsonl",
    );
    let imported = env
        .run(&[
            "sessions",
            "import",
            "--from",
            "claude",
            path_str(&file)?,
            "--cwd",
            &env.cwd(),
        ])
        .ok();
    let id = imported.line().to_owned();
    let (_, page) = export(&env, &[&id])?;
    assert!(
        page.contains("Imported from Claude Code 2.1.7"),
        "the provenance banner"
    );
    assert!(
        page.contains("class=\"chip\""),
        "the sub-agent opens from its call"
    );
    assert!(page.contains("<section class=\"child\""));
    Ok(())
}

#[test]
fn images_show_inline_and_only_as_images() -> TestResult {
    let env = Env::new()?;
    let mut log = env.log("01JE0000000000000000000W01");
    log.record(Body::User {
        content: vec![
            Block::text("what is in this picture?"),
            Block::Image {
                media_type: "image/png".to_owned(),
                data: Some("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==".to_owned()),
                blob: None,
            },
            // Not an image type a page shows: a placeholder, never markup.
            Block::Image {
                media_type: "text/html\"><script>".to_owned(),
                data: Some("PHNjcmlwdD4=".to_owned()),
                blob: None,
            },
        ],
    });
    log.assistant("a single pixel");
    let id = env.import(&log)?;
    let (_, page) = export(&env, &[&id])?;
    assert!(
        page.contains("<img class=\"img\" alt=\"image\" src=\"data:image/png;base64,iVBORw0KGgo")
    );
    assert!(page.contains("[image text/html&quot;&gt;&lt;script&gt; omitted]"));
    Ok(())
}

#[test]
fn slash_export_writes_the_page_from_the_console() -> TestResult {
    let env = Env::new()?;
    std::fs::create_dir_all(env.project.join("my pages"))?;
    let fake = crate::common::fake_answering(1)?;
    let Some(out) = crate::common::console(
        &env,
        &fake,
        &[],
        "hello there\n/export \"my pages/run one.html\"\n/export notes.md\n/export\n/exit\n",
    )?
    else {
        return Ok(());
    };
    let page = env.project.join("my pages/run one.html");
    let md = env.project.join("notes.md");
    // A quoted path with spaces, relative to the project; the format from the extension.
    assert!(
        out.stdout
            .contains(&format!("exported to {}", page.display())),
        "{out}"
    );
    assert!(std::fs::read_to_string(&page)?.contains("hello there"));
    assert!(
        out.stdout
            .contains(&format!("exported to {}", md.display())),
        "{out}"
    );
    assert!(std::fs::read_to_string(&md)?.starts_with("# hello there"));
    // Without a path the page goes to the data directory, not the project.
    assert!(
        out.stdout.contains(&format!(
            "exported to {}",
            env.home.join("exports").display()
        )),
        "{out}"
    );
    let mut left = std::fs::read_dir(&env.project)?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with("hotl-"))
        .peekable();
    assert!(left.peek().is_none(), "nothing written into the project");
    Ok(())
}

/// Without `-o`, Markdown and JSONL go to standard output and a page to the data directory;
/// `-o -` is standard output for a page too. Nothing lands in the user's project.
#[test]
fn exports_stay_out_of_the_project_unless_asked() -> TestResult {
    let env = Env::new()?;
    let mut log = env.log("01JE0000000000000000000X01");
    log.user("what does the build need");
    log.assistant("a linker");
    let id = env.import(&log)?;
    let md = env.run(&["sessions", "export", &id, "--format", "md"]).ok();
    assert!(md.stdout.starts_with("# what does the build need"), "{md}");
    let jsonl = env
        .run(&["sessions", "export", &id, "--format", "jsonl"])
        .ok();
    let first: serde_json::Value =
        serde_json::from_str(jsonl.stdout.lines().next().ok_or("no line")?)?;
    assert_eq!(first["type"], "session", "{jsonl}");
    let page = env.run(&["sessions", "export", &id, "-o", "-"]).ok();
    assert!(
        page.stdout.starts_with("<!doctype html>") || page.stdout.starts_with("<!DOCTYPE html>"),
        "{}",
        &page.stdout[..page.stdout.len().min(80)]
    );
    let path = env.run(&["sessions", "export", &id]).ok();
    assert!(
        path.line()
            .starts_with(&*env.home.join("exports").to_string_lossy()),
        "{path}"
    );
    assert!(std::fs::read_to_string(path.line())?.contains("a linker"));
    let written: Vec<_> = std::fs::read_dir(&env.project)?
        .filter_map(Result::ok)
        .collect();
    assert!(written.is_empty(), "{written:?}");
    Ok(())
}

/// A JSONL export stands alone: imported into another home (no blob store in common), the
/// session checks clean, its capped output's blob reads back whole, and it resumes with the
/// same frozen prompt, no warning. Redacted, the same holds, with the secret gone from blobs.
#[test]
fn a_jsonl_export_moves_between_homes() -> TestResult {
    let here = Env::new()?;
    let fake = hotl_fakellm::FakeLlm::start(hotl_fakellm::Config::scripted([
        hotl_fakellm::Reply::default().with_tool(
            "bash",
            json!({"command": "seq 1 500 | sed 's/^/line /'; echo sk-ant-api03-$(printf 'Q%.0s' $(seq 40))"}),
        ),
        hotl_fakellm::Reply::text("Printed."),
    ]))?;
    here.agent(&fake, &["-p", "print the lines", "--allow", "bash"])
        .ok();
    let id = here.only_session()?;
    let there = Env::new()?;
    for (name, extra) in [("plain.jsonl", None), ("red.jsonl", Some("--redact"))] {
        let mut args = vec!["sessions", "export", &id, "-o", name];
        args.extend(extra);
        let out = here.run(&args).ok();
        let file = out.line().to_owned();
        let imported = there.run(&["sessions", "import", &file, "--new-id"]).ok();
        let new = imported.line().to_owned();
        let check = there.run(&["sessions", "check", &new]).ok();
        assert!(!check.stdout.contains("missing"), "{check}");
        let records = there.records(&new)?;
        let blob = records
            .iter()
            .find_map(|r| r["blob"].as_str().map(str::to_owned))
            .ok_or("the capped output names its blob")?;
        let stored =
            std::fs::read_to_string(there.home.join("blobs").join(&blob[..2]).join(&blob))?;
        assert!(stored.contains("line 250\n"), "the whole output came along");
        assert_eq!(
            stored.contains(&"Q".repeat(40)),
            extra.is_none(),
            "{name}: the secret is in the plain blob only"
        );
        let resumed = there.agent(&fake, &["-r", &new, "-p", "again"]);
        assert!(!resumed.stderr.contains("warning"), "{resumed}");
    }
    let requests = crate::common::requests(&fake)?;
    assert_eq!(
        requests[0]["system"], requests[2]["system"],
        "the frozen prompt came along byte for byte"
    );
    assert_eq!(requests[0]["tools"], requests[2]["tools"]);
    Ok(())
}

/// The Markdown export is the whole transcript: what a fold or a compaction archived is in it,
/// in a section the reader opens, after the note.
#[test]
fn markdown_keeps_what_folds_and_compactions_archived() -> TestResult {
    let env = Env::new()?;
    let mut log = env.log("01JE0000000000000000000M01");
    let first = log.user("first question about the parser");
    let last = log.assistant("the parser needs a lookahead");
    log.fold(
        first,
        last,
        "a1b2c3d4",
        "learned: the parser needs lookahead",
    );
    log.user("second question about the linker");
    log.assistant("the linker wants -lfoo");
    log.record(hotl_log::Body::Compaction {
        until: log.seq(),
        summary: "summary: parser and linker settled".to_owned(),
    });
    log.user("after the compaction");
    log.assistant("fine");
    let id = env.import(&log)?;
    let md = env
        .run(&["sessions", "export", &id, "--format", "md"])
        .ok()
        .stdout;
    for said in [
        "first question about the parser",
        "the parser needs a lookahead",
        "second question about the linker",
        "the linker wants -lfoo",
        "summary: parser and linker settled",
        "after the compaction",
    ] {
        assert!(md.contains(said), "{said} is missing:\n{md}");
    }
    assert!(md.contains("<details><summary>the archived span"), "{md}");
    let summary = md.find("parser and linker settled").ok_or("summary")?;
    let archived = md.find("the linker wants -lfoo").ok_or("archived")?;
    assert!(
        summary < archived,
        "the note comes first, then what it archived"
    );
    Ok(())
}
