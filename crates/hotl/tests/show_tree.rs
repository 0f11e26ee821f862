//! `hotl sessions show <ref> --tree`: a session and every session delegated beneath it (a fork
//! made by the agent, clean children and a grandchild), each with its agent, state, tokens and
//! cost as `hotl stats` prices it, its share, and a total; `unpriced` for an unknown model; an
//! unreadable child said, a dropped one left out.

use hotl_fakellm::{Config, FakeLlm, Reply};
use hotl_log::{Block, Body, Delegation, Store, Usage};
use hotl_testkit::{LogBuilder, TestResult};
use serde_json::{Value, json};

use crate::common::Env;

const ROOT: &str = "01JE0000000000000000000R00";
const CHILD: &str = "01JE0000000000000000000C01";
const GRANDCHILD: &str = "01JE0000000000000000000G01";
const MYSTERY: &str = "01JE0000000000000000000M01";

fn answer(content: Vec<Block>, model: &str, usage: (u64, u64, u64, u64)) -> Body {
    let calls = content.iter().any(|b| matches!(b, Block::ToolUse { .. }));
    let (input, cache_read, cache_write, output) = usage;
    Body::Assistant {
        content,
        model: Some(model.to_owned()),
        stop: Some(if calls { "tool_use" } else { "done" }.to_owned()),
        stop_raw: None,
        usage: Some(Usage {
            input,
            cache_read,
            cache_write,
            output,
            thinking: 0,
            ..Usage::default()
        }),
    }
}

fn call(id: &str, name: &str, input: Value) -> Block {
    Block::ToolUse {
        id: id.to_owned(),
        name: name.to_owned(),
        input: input.into(),
    }
}

fn delegation(by: &str, agent: Option<&str>, task: &str, handle: &str, at: u64) -> Delegation {
    Delegation {
        by: by.to_owned(),
        agent: agent.map(str::to_owned),
        description: task.to_owned(),
        handle: Some(handle.to_owned()),
        call: None,
        at: Some(at),
        ..Delegation::default()
    }
}

const SONNET: &str = "claude-sonnet-5";

/// A root with two clean children (`kid1`, an explorer with a grandchild `kid2` left open;
/// `kid3`, a reviewer on a model the pricing table does not know, whose turn failed).
fn clean_tree(env: &Env) -> TestResult {
    let cwd = env.cwd();
    let mut root = LogBuilder::new(ROOT, &cwd);
    root.record(Body::title("Tree root".to_owned()));
    root.user("first task");
    let spawn = root.record(answer(
        vec![call("call_r1", "task", json!({"task": "look around"}))],
        SONNET,
        (1000, 0, 4000, 50),
    ));
    root.tool_result("call_r1", "the children answered");
    root.record(answer(
        vec![Block::text("First task done.")],
        SONNET,
        (100, 4000, 0, 40),
    ));

    let mut child = LogBuilder::delegated(
        CHILD,
        &cwd,
        delegation(
            ROOT,
            Some("explore"),
            "look into the child part\nin depth",
            "kid1",
            spawn,
        ),
    );
    child.user("look into the child part");
    let grand_at = child.record(answer(
        vec![call("call_c1", "fork", json!({"task": "deeper"}))],
        SONNET,
        (10, 0, 100, 5),
    ));
    child.tool_result("call_c1", "the grandchild answered");
    child.record(answer(
        vec![Block::text("child answer")],
        SONNET,
        (10, 100, 0, 5),
    ));

    let mut grandchild = LogBuilder::delegated(
        GRANDCHILD,
        &cwd,
        delegation(CHILD, None, "deeper", "kid2", grand_at),
    );
    grandchild.user("deeper");
    // A call never answered: the turn is still open.
    grandchild.record(answer(
        vec![call("call_g1", "bash", json!({"command": "ls"}))],
        SONNET,
        (5, 0, 50, 5),
    ));

    let mut mystery = LogBuilder::delegated(
        MYSTERY,
        &cwd,
        delegation(ROOT, Some("review"), "review the change", "kid3", spawn),
    );
    mystery.user("review the change");
    mystery.record(answer(
        vec![Block::text("half a review")],
        "mystery-model-7b",
        (300, 0, 0, 20),
    ));
    mystery.record(Body::Error {
        error: "overloaded_error".to_owned(),
        message: "overloaded".to_owned(),
        status: Some(529),
    });

    Store::new(&env.home).create_encoded(
        (ROOT, &root.text()),
        &[
            (CHILD.to_owned(), child.text()),
            (GRANDCHILD.to_owned(), grandchild.text()),
            (MYSTERY.to_owned(), mystery.text()),
        ],
    )?;
    Ok(())
}

fn cost(v: &Value) -> f64 {
    v.as_f64().unwrap_or(f64::NAN)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// Every node of a `--tree --json` document, depth first.
fn nodes(tree: &Value) -> Vec<&Value> {
    let mut out = vec![tree];
    for child in tree["children"].as_array().into_iter().flatten() {
        out.extend(nodes(child));
    }
    out
}

#[test]
fn the_tree_shows_each_child_with_what_it_spent_and_totals_the_whole_tree() -> TestResult {
    let env = Env::new()?;
    clean_tree(&env)?;
    let shown_before = env.run(&["sessions", "show", ROOT]).ok().stdout;
    let json_before = env.json(&["sessions", "show", ROOT, "--json"])?;

    // The agent resumes the root and forks: a child pinned to it, made by the fork tool.
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("").with_tool("fork", json!({ "task": "count the lines" })),
        Reply::text("Forty lines."),
        Reply::text("The fork counted forty lines."),
    ]))?;
    let resumed = env
        .agent(&fake, &["-r", ROOT, "-p", "hand the count off"])
        .ok();
    assert_eq!(
        resumed.stdout, "The fork counted forty lines.\n",
        "{resumed}"
    );
    let listed = env.json(&["sessions", "list", "--json"])?;
    let fork = listed[0]["delegated"]
        .as_array()
        .and_then(|d| d.iter().find(|c| c["agent"] == "fork"))
        .ok_or(format!("a fork child: {listed:#}"))?;
    let fork_id = fork["id"].as_str().ok_or("a fork id")?.to_owned();
    let fork_handle = fork["handle"].as_str().ok_or("a fork handle")?.to_owned();

    let text = env.run(&["sessions", "show", ROOT, "--tree"]).ok().stdout;
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 7, "{text}");
    let words = |i: usize| lines[i].split_whitespace().collect::<Vec<_>>();
    assert_eq!(
        words(0),
        [
            "session", "agent", "state", "task", "tokens", "cache", "rd", "cost", "share"
        ]
    );
    assert_eq!(
        words(1)[..4],
        ["01JE0000", "-", "finished", "Tree"],
        "{text}"
    );
    // Oldest first: the clean children (older ids), then the fork the agent just made.
    assert_eq!(
        words(2)[..5],
        ["├─", "kid1", "explore", "finished", "look"],
        "{text}"
    );
    assert!(lines[2].contains("look into the child part ") && !text.contains("in depth"));
    assert_eq!(words(3)[..5], ["│", "└─", "kid2", "fork", "open"], "{text}");
    assert_eq!(
        words(4)[..5],
        ["├─", "kid3", "review", "failed", "review"],
        "{text}"
    );
    assert_eq!(
        words(5)[..5],
        ["└─", fork_handle.as_str(), "fork", "finished", "count"],
        "{text}"
    );
    assert_eq!(words(6)[0], "total", "{text}");
    // Tokens (input + cache writes + output) and cache reads apart, from the fixture.
    assert_eq!(
        words(2)[words(2).len() - 4..words(2).len() - 2],
        ["130", "100"]
    );
    assert_eq!(
        words(3)[words(3).len() - 4..words(3).len() - 2],
        ["60", "0"]
    );
    // The unknown model's cost is not $0, and it holds no share of the dollars.
    assert_eq!(words(4)[words(4).len() - 2..], ["unpriced", "-"], "{text}");
    let shares: f64 = lines[1..6]
        .iter()
        .filter_map(|l| {
            l.split_whitespace()
                .last()?
                .strip_suffix('%')?
                .parse::<f64>()
                .ok()
        })
        .sum();
    assert!(
        (99.0..=101.0).contains(&shares),
        "shares sum to {shares}: {text}"
    );
    assert!(lines[6].ends_with("100%"), "{text}");
    assert!(
        lines[6].contains("≥$"),
        "a total with an unpriced part: {text}"
    );

    // The JSON: the same tree, nested, each cost the one `hotl stats` gives the session.
    let tree = env.json(&["sessions", "show", ROOT, "--tree", "--json"])?;
    let all = nodes(&tree);
    let ids: Vec<&str> = all.iter().filter_map(|n| n["id"].as_str()).collect();
    assert_eq!(ids, [ROOT, CHILD, GRANDCHILD, MYSTERY, fork_id.as_str()]);
    let mut keys: Vec<&str> = tree
        .as_object()
        .ok_or("an object")?
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "agent",
            "children",
            "cost",
            "handle",
            "id",
            "patch",
            "share",
            "state",
            "task",
            "tokens",
            "total",
            "unpriced",
            "unreadable"
        ]
    );
    assert_eq!(
        tree["children"][0]["tokens"],
        json!({"input": 20, "cache_read": 100, "cache_write": 100, "output": 10})
    );
    assert_eq!(tree["children"][0]["children"][0]["state"], "open");
    assert_eq!(tree["children"][1]["cost"], Value::Null, "{tree:#}");
    assert_eq!(tree["children"][1]["unpriced"], json!(["mystery-model-7b"]));
    assert_eq!(tree["agent"], Value::Null);
    assert_eq!(tree["children"][2]["agent"], "fork");
    let mut sum = 0.0;
    let mut share = 0.0;
    for node in &all {
        let id = node["id"].as_str().ok_or("an id")?;
        let stats = env.json(&["stats", id, "--json"])?;
        let own = &stats["own"];
        if node["unpriced"].as_array().is_some_and(|u| !u.is_empty()) {
            assert_eq!(cost(&own["cost"]), 0.0, "{stats:#}");
        } else {
            assert!(
                close(cost(&node["cost"]), cost(&own["cost"])),
                "{id}: {node:#} {stats:#}"
            );
            assert!(cost(&node["cost"]) > 0.0, "{node:#}");
        }
        for kind in ["input", "cache_read", "cache_write", "output"] {
            assert_eq!(node["tokens"][kind], own[kind], "{id} {kind}");
        }
        sum += cost(&own["cost"]);
        share += node["share"].as_f64().unwrap_or(0.0);
    }
    assert!(close(share, 1.0), "shares: {share}");
    let total = cost(&tree["total"]["cost"]);
    assert!(close(total, sum), "{total} vs {sum}");
    // `hotl stats` totals the whole tree too: children and theirs.
    let root_stats = env.json(&["stats", ROOT, "--json"])?;
    assert!(
        close(total, cost(&root_stats["total"]["cost"])),
        "{total} vs {root_stats:#}"
    );
    let input: u64 = all
        .iter()
        .filter_map(|n| n["tokens"]["input"].as_u64())
        .sum();
    assert_eq!(tree["total"]["tokens"]["input"], input);

    // A child as the ref: its subtree, and its total is what `hotl stats` totals for it.
    let sub = env.run(&["sessions", "show", CHILD, "--tree"]).ok().stdout;
    let sub_lines: Vec<&str> = sub.lines().collect();
    assert_eq!(sub_lines.len(), 4, "{sub}");
    assert!(
        sub_lines[1].starts_with("kid1 ") && sub_lines[1].contains("explore"),
        "{sub}"
    );
    assert!(sub_lines[2].starts_with("└─ kid2 "), "{sub}");
    let sub_json = env.json(&["sessions", "show", CHILD, "--tree", "--json"])?;
    let child_stats = env.json(&["stats", CHILD, "--json"])?;
    assert!(close(
        cost(&sub_json["total"]["cost"]),
        cost(&child_stats["total"]["cost"])
    ));
    assert!(close(
        cost(&sub_json["share"]),
        1.0 - cost(&sub_json["children"][0]["share"])
    ));

    // A session with no children: its line and the total.
    let leaf = env
        .run(&["sessions", "show", &fork_id, "--tree"])
        .ok()
        .stdout;
    let leaf_lines: Vec<&str> = leaf.lines().collect();
    assert_eq!(leaf_lines.len(), 3, "{leaf}");
    assert!(
        leaf_lines[1].starts_with(&format!("{fork_handle} ")),
        "{leaf}"
    );
    assert!(
        leaf_lines[1].ends_with("100%") && leaf_lines[2].ends_with("100%"),
        "{leaf}"
    );

    // Without --tree, `show` is as it was: the transcript and a `↳` line per own child.
    let shown = env.run(&["sessions", "show", ROOT]).ok().stdout;
    assert!(shown.starts_with(&shown_before.lines().next().unwrap_or("?").to_owned()));
    assert!(!shown.contains("├─") && !shown.contains("share"), "{shown}");
    for line in [
        "↳ explore kid1 (t4): look into the child part",
        "↳ review kid3 (t4)",
    ] {
        assert!(
            shown_before.contains(line) && shown.contains(line),
            "{shown}"
        );
    }
    assert!(
        shown.contains(&format!("↳ fork {fork_handle} (t")),
        "{shown}"
    );
    let json_after = env.json(&["sessions", "show", ROOT, "--json"])?;
    assert_eq!(
        json_after.as_object().map(|o| o.keys().collect::<Vec<_>>()),
        json_before
            .as_object()
            .map(|o| o.keys().collect::<Vec<_>>())
    );
    Ok(())
}

#[test]
fn an_unreadable_child_is_said_and_a_dropped_one_left_out() -> TestResult {
    let env = Env::new()?;
    clean_tree(&env)?;
    let broken = "01JE0000000000000000000X01";
    std::fs::write(
        env.home
            .join("sessions")
            .join(ROOT)
            .join(format!("{broken}.jsonl")),
        "not a log\n",
    )?;
    let text = env.run(&["sessions", "show", ROOT, "--tree"]).ok().stdout;
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 7, "{text}");
    assert!(lines[4].starts_with("├─ kid3 "), "{text}");
    assert!(
        lines[5].starts_with("└─ 01JE0000 ") && lines[5].contains("(unreadable: "),
        "{text}"
    );
    assert!(lines[6].starts_with("total"), "{text}");
    let tree = env.json(&["sessions", "show", ROOT, "--tree", "--json"])?;
    assert_eq!(tree["children"][2]["id"], broken);
    assert!(tree["children"][2]["unreadable"].is_string(), "{tree:#}");
    assert_eq!(tree["children"][2]["cost"], Value::Null);

    // kid1 is dropped (kept on disk for its grandchild): it and what hangs under it go.
    env.run(&["sessions", "drop", CHILD, "--yes"]).ok();
    let kept = env
        .home
        .join("sessions")
        .join(ROOT)
        .join(format!("{CHILD}.jsonl"));
    assert!(kept.is_file(), "kid1 is tombstoned, not deleted");
    let text = env.run(&["sessions", "show", ROOT, "--tree"]).ok().stdout;
    assert!(!text.contains("kid1") && !text.contains("kid2"), "{text}");
    assert!(text.contains("├─ kid3 "), "{text}");
    Ok(())
}

#[test]
fn a_session_without_children_shows_its_line_and_the_total() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([Reply::text("Hi.")]))?;
    env.agent(&fake, &["-p", "say hi"]).ok();
    let id = env.only_session()?;
    let text = env.run(&["sessions", "show", &id, "--tree"]).ok().stdout;
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    let words: Vec<&str> = lines[1].split_whitespace().collect();
    assert_eq!(words[..3], [&id[..8], "-", "finished"], "{text}");
    let stats = env.json(&["stats", &id, "--json"])?;
    let dollars = format!("${:.4}", cost(&stats["total"]["cost"]));
    assert!(lines[1].ends_with(&format!("{dollars}   100%")), "{text}");
    assert!(lines[2].starts_with("total") && lines[2].ends_with(&format!("{dollars}   100%")));
    let tree = env.json(&["sessions", "show", &id, "--tree", "--json"])?;
    assert_eq!(tree["children"], json!([]));
    assert!(close(
        cost(&tree["total"]["cost"]),
        cost(&stats["total"]["cost"])
    ));
    Ok(())
}
