//! Session operations in the console, typed into the real binary on a pseudo-terminal against
//! the fake provider: `/new`, `/resume` (by reference and from the picker), `/fork`, `/clear`,
//! `/fresh`, `/drop`, `/rename`; a switch that fails (a session another process holds) or that
//! a `before_switch` hook cancels leaves the console where it was; a session whose directory
//! is gone is re-rooted when the user says so; breadcrumbs keep two terminals' `-c` apart;
//! `--no-session` leaves the home untouched; `/resume @claude` imports a Claude Code session of
//! the project picked from a list and continues it, and `/resume @codex` with none says so.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use hotl_fakellm::{Config, FakeLlm, Reply};
use hotl_testkit::{FIXED_ID, LogBuilder, TestResult};

use crate::common::{Env, Holder, MODEL, console_typed, has_flock, in_pty, path_str, requests};

fn answers(n: usize) -> TestResult<FakeLlm> {
    Ok(FakeLlm::start(Config::scripted(
        (1..=n).map(|i| Reply::text(format!("answer {i}"))),
    ))?)
}

/// The text of the last request's messages.
fn last_request(fake: &FakeLlm) -> TestResult<String> {
    Ok(requests(fake)?
        .last()
        .ok_or("no request")?
        .get("messages")
        .map(ToString::to_string)
        .unwrap_or_default())
}

/// The session whose first user message is `text`.
fn session_saying(env: &Env, text: &str) -> TestResult<String> {
    for id in env.session_ids()? {
        let first = env
            .records(&id)?
            .into_iter()
            .find(|r| r["type"] == "user")
            .map(|r| r["content"].to_string())
            .unwrap_or_default();
        if first.contains(text) {
            return Ok(id);
        }
    }
    Err(format!("no session says {text:?}").into())
}

fn types(env: &Env, id: &str) -> TestResult<Vec<String>> {
    Ok(env
        .records(id)?
        .iter()
        .filter_map(|r| r["type"].as_str().map(str::to_owned))
        .collect())
}

#[test]
fn new_resume_fork_clear_fresh_and_rename_from_the_console() -> TestResult {
    let env = Env::new()?;
    let fake = answers(6)?;
    let typed = [
        ("the first session\n", 0),
        ("/new\n", 300),
        ("the second session\n", 300),
        // List numbers, as `hotl sessions list` prints them: 1 is the newest.
        ("/resume 2\n", 300),
        ("back in the first\n", 300),
        ("/fork\n", 300),
        ("in the fork\n", 300),
        ("/clear\n", 300),
        ("/fresh\n", 300),
        ("/rename forked-work\n", 300),
        ("after the clear\n", 300),
        ("/resume\n", 300),
        // The picker lists the other sessions; Enter picks none.
        ("\n", 600),
        ("/exit\n", 300),
    ];
    let Some(out) = console_typed(&env, &fake, &[], &typed)? else {
        return Ok(());
    };
    let out = out.ok();
    let first = session_saying(&env, "the first session")?;
    let second = session_saying(&env, "the second session")?;
    assert!(
        out.stdout.contains(&format!("· resumed {first}")),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("· new session "), "{}", out.stdout);
    assert!(out.stdout.contains("· forked into "), "{}", out.stdout);
    assert!(
        out.stdout
            .contains("· cleared: the model sees nothing before t"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("· fresh: "), "{}", out.stdout);
    assert!(out.stdout.contains("· named forked-work"), "{}", out.stdout);
    assert!(out.stdout.contains("resume which?"), "{}", out.stdout);
    // Three sessions: the two typed into and the fork of the first.
    let ids = env.session_ids()?;
    assert_eq!(ids.len(), 3, "{ids:?}\n{}", out.stdout);
    let fork = ids
        .iter()
        .find(|id| **id != first && **id != second)
        .ok_or("a fork")?
        .clone();
    assert_eq!(env.records(&fork)?[0]["parent"]["session"], first.as_str());
    // The resumed session got the message typed after /resume; the second did not.
    assert_eq!(
        types(&env, &second)?
            .iter()
            .filter(|t| *t == "user")
            .count(),
        1
    );
    let firsts = env.records(&first)?;
    assert!(
        firsts
            .iter()
            .any(|r| r["type"] == "user" && r["content"].to_string().contains("back in the first")),
        "{firsts:?}"
    );
    // The fork holds the clear, the fresh key and the name; the model saw nothing before
    // the clear.
    let fork_types = types(&env, &fork)?;
    for wanted in ["clear", "fresh", "name"] {
        assert!(
            fork_types.iter().any(|t| t == wanted),
            "{wanted}: {fork_types:?}"
        );
    }
    let last = last_request(&fake)?;
    assert!(
        last.contains("after the clear") && !last.contains("the first session"),
        "{last}"
    );
    Ok(())
}

#[test]
fn a_failed_or_cancelled_switch_leaves_the_console_where_it_was() -> TestResult {
    if !hotl_testkit::require("flock(1)", has_flock())? {
        return Ok(());
    }
    let env = Env::new()?;
    let mut held = LogBuilder::new(FIXED_ID, &env.cwd());
    held.turn("held elsewhere");
    env.import(&held)?;
    let holder = Holder::spawn(&env.home.join("sessions").join(format!("{FIXED_ID}.lock")))?;
    // A before_switch hook that says no to new sessions.
    let config = env.root().join("config").join("hotl");
    std::fs::create_dir_all(&config)?;
    std::fs::write(
        config.join("config.toml"),
        "[[hooks]]\nevent = \"before_switch\"\ncommand = \"grep -q '\\\"reason\\\":\\\"new\\\"' && { echo no new sessions today >&2; exit 1; }; exit 0\"\n",
    )?;
    let fake = answers(3)?;
    let resume_held = format!("/resume {}\n", &FIXED_ID[..10]);
    let typed = [
        ("my own work\n", 0),
        (resume_held.as_str(), 300),
        ("/new\n", 300),
        ("/resume nosuchsession\n", 300),
        ("still mine\n", 300),
        ("/exit\n", 300),
    ];
    let Some(out) = console_typed(&env, &fake, &[], &typed)? else {
        return Ok(());
    };
    let out = out.ok();
    holder.release()?;
    assert!(
        out.stdout.contains("· could not switch: ")
            && out.stdout.contains("owned by another hotl process"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains(
            "· could not switch: the switch was cancelled by a before_switch hook: no new sessions today"
        ),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("no session matches"), "{}", out.stdout);
    // Every message went to the same session.
    let mine = session_saying(&env, "my own work")?;
    let users: Vec<String> = env
        .records(&mine)?
        .into_iter()
        .filter(|r| r["type"] == "user")
        .map(|r| r["content"].to_string())
        .collect();
    assert_eq!(users.len(), 2, "{users:?}");
    assert!(users[1].contains("still mine"));
    assert_eq!(env.session_ids()?.len(), 2, "the held one and mine");
    assert_eq!(
        types(&env, FIXED_ID)?
            .iter()
            .filter(|t| *t == "user")
            .count(),
        1
    );
    Ok(())
}

#[test]
fn drop_from_the_console_asks_and_starts_a_new_session() -> TestResult {
    let env = Env::new()?;
    let fake = answers(3)?;
    let typed = [
        ("keep this one\n", 0),
        ("/new\n", 300),
        ("drop this one\n", 300),
        ("/drop\n", 300),
        ("n\n", 600),
        ("/drop\n", 300),
        ("y\n", 600),
        ("a fresh start\n", 300),
        ("/exit\n", 300),
    ];
    let Some(out) = console_typed(&env, &fake, &[], &typed)? else {
        return Ok(());
    };
    let out = out.ok();
    assert!(
        out.stdout.contains("? [y/N]") || out.stdout.contains("[y/N]"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("· not dropped"), "{}", out.stdout);
    assert!(out.stdout.contains("· dropped "), "{}", out.stdout);
    assert!(session_saying(&env, "drop this one").is_err(), "deleted");
    session_saying(&env, "keep this one")?;
    session_saying(&env, "a fresh start")?;
    Ok(())
}

#[test]
fn a_session_whose_directory_is_gone_is_rerooted_when_the_user_says_so() -> TestResult {
    let env = Env::new()?;
    let mut log = LogBuilder::new(FIXED_ID, "/no/such/directory");
    log.turn("written elsewhere");
    env.import(&log)?;
    let fake = answers(2)?;
    // No: nothing is written, and the run ends.
    let Some(declined) = console_typed(&env, &fake, &["-r", FIXED_ID], &[("n\n", 300)])? else {
        return Ok(());
    };
    assert!(
        declined.stdout.contains(
            "Session's directory no longer exists (/no/such/directory). Move (re-root) it into the current directory? [Y/n]"
        ),
        "{declined}"
    );
    assert!(!types(&env, FIXED_ID)?.iter().any(|t| t == "reroot"));
    // Yes (the default): a reroot record, and the session is this directory's now.
    let Some(moved) = console_typed(
        &env,
        &fake,
        &["-r", FIXED_ID],
        &[("\n", 300), ("where are we?\n", 500), ("/exit\n", 300)],
    )?
    else {
        return Ok(());
    };
    let moved = moved.ok();
    let reroot = env
        .records(FIXED_ID)?
        .into_iter()
        .find(|r| r["type"] == "reroot")
        .ok_or(format!("a reroot record:\n{moved}"))?;
    assert_eq!(reroot["cwd"], env.cwd().as_str());
    let listed = env.json(&["sessions", "list", "--json"])?;
    assert_eq!(
        listed[0]["id"], FIXED_ID,
        "listed in this directory: {listed}"
    );
    assert!(last_request(&fake)?.contains("where are we?"));
    Ok(())
}

/// A shell on a pseudo-terminal of its own, into which commands are typed: what a terminal
/// window is to a user.
struct Terminal {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    done: std::path::PathBuf,
    count: usize,
}

impl Terminal {
    fn open(env: &Env, name: &str) -> TestResult<Terminal> {
        let mut child = Command::new("script")
            .args(["-qfec", "exec bash --norc --noprofile", "/dev/null"])
            .current_dir(&env.project)
            .env("HOME", env.root())
            .env("NO_COLOR", "1")
            .env("PS1", "")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        Ok(Terminal {
            child,
            stdin,
            done: env.root().join(format!("{name}-done")),
            count: 0,
        })
    }

    /// Types `hotl <args>` and waits until it has run.
    fn hotl(&mut self, env: &Env, fake: &FakeLlm, args: &str) -> TestResult {
        self.count += 1;
        let marker = format!("{}-{}", self.done.display(), self.count);
        let line = format!(
            "'{}' --home '{}' --provider anthropic --base-url '{}' --model {MODEL} {args} >/dev/null 2>&1; touch '{marker}'\n",
            env!("CARGO_BIN_EXE_hotl"),
            env.home.display(),
            fake.base_url(),
        );
        self.stdin.write_all(line.as_bytes())?;
        self.stdin.flush()?;
        let deadline = Instant::now() + Duration::from_secs(30);
        while !std::path::Path::new(&marker).exists() {
            if Instant::now() > deadline {
                return Err(format!("`hotl {args}` did not finish").into());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(())
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        let _ = self.stdin.write_all(b"exit\n");
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn two_terminals_continue_their_own_sessions() -> TestResult {
    let has_script = Command::new("script")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !hotl_testkit::require("script(1)", has_script)? {
        return Ok(());
    }
    let env = Env::new()?;
    let fake = answers(6)?;
    let mut left = Terminal::open(&env, "left")?;
    let mut right = Terminal::open(&env, "right")?;
    left.hotl(&env, &fake, "-p 'the left work'")?;
    right.hotl(&env, &fake, "-p 'the right work'")?;
    // The right session is the newest; each terminal still continues its own.
    left.hotl(&env, &fake, "-c -p 'more left'")?;
    right.hotl(&env, &fake, "-c -p 'more right'")?;
    let users = |text: &str| -> TestResult<Vec<String>> {
        let id = session_saying(&env, text)?;
        Ok(env
            .records(&id)?
            .into_iter()
            .filter(|r| r["type"] == "user")
            .map(|r| r["content"].to_string())
            .collect())
    };
    let l = users("the left work")?;
    let r = users("the right work")?;
    assert_eq!(l.len(), 2, "{l:?}");
    assert!(l[1].contains("more left"), "{l:?}");
    assert_eq!(r.len(), 2, "{r:?}");
    assert!(r[1].contains("more right"), "{r:?}");
    // Breadcrumbs are private.
    use std::os::unix::fs::PermissionsExt;
    for entry in std::fs::read_dir(env.home.join("breadcrumbs"))? {
        let mode = entry?.metadata()?.permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
    // A damaged breadcrumb is ignored: -c takes this directory's latest session.
    for entry in std::fs::read_dir(env.home.join("breadcrumbs"))? {
        std::fs::write(entry?.path(), "not a session id\n")?;
    }
    left.hotl(&env, &fake, "-c -p 'after the damage'")?;
    assert_eq!(users("the right work")?.len(), 3, "the latest one");
    assert_eq!(users("the left work")?.len(), 2);
    // Without a terminal, -c takes this directory's latest session, as before.
    let plain = env.agent(&fake, &["-c", "-p", "no terminal"]).ok();
    assert_eq!(users("the right work")?.len(), 4, "{plain}");
    Ok(())
}

#[test]
fn no_session_leaves_the_home_untouched() -> TestResult {
    let env = Env::new()?;
    let fake = answers(3)?;
    let headless = env.agent(&fake, &["--no-session", "-p", "just once"]).ok();
    assert_eq!(headless.stdout, "answer 1\n", "{headless}");
    let typed = [
        ("a passing thought\n", 0),
        ("/fork\n", 300),
        ("/resume 1\n", 300),
        ("/exit\n", 300),
    ];
    let Some(out) = console_typed(&env, &fake, &["--no-session"], &typed)? else {
        return Ok(());
    };
    let out = out.ok();
    assert!(
        out.stdout.contains("needs a saved session"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("session not saved (--no-session): nothing was written"),
        "{}",
        out.stdout
    );
    assert!(!env.home.exists(), "the home was never made");
    let refused = env.agent(&fake, &["--no-session", "-c", "-p", "x"]);
    assert_ne!(refused.code, 0, "{refused}");
    Ok(())
}

/// The Claude Code fixture with a sub-agent transcript beside it.
const CC_FLAT: &str = "claude-code/cc-2.0.64-flat/-tmp-private";

/// A Claude Code config directory under the test's root holding [`CC_FLAT`]'s files, their
/// working directory made the project's: returns it.
pub(crate) fn claude_home(env: &Env) -> TestResult<std::path::PathBuf> {
    let from = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../hotl-import/tests/fixtures")
        .join(CC_FLAT);
    let home = env.root().join("claude");
    let dir = home.join("projects").join("-project");
    std::fs::create_dir_all(&dir)?;
    for entry in std::fs::read_dir(&from)? {
        let entry = entry?;
        let text = std::fs::read_to_string(entry.path())?;
        let moved = text.replace(
            "\"cwd\":\"/tmp/private\"",
            &format!("\"cwd\":{:?}", env.cwd()),
        );
        std::fs::write(dir.join(entry.file_name()), moved)?;
    }
    Ok(home)
}

#[test]
fn resume_at_claude_imports_a_picked_session_and_continues_it() -> TestResult {
    let env = Env::new()?;
    let fake = answers(2)?;
    let claude = claude_home(&env)?;
    let sub_agent = claude.join("projects/-project/agent-50243ee8.jsonl");
    let refused = format!("/resume @claude {}\n", path_str(&sub_agent)?);
    let typed = [
        ("/resume @codex\n", 0),
        ("/resume @claude\n", 300),
        // The list shows the one session of this directory; 1 picks it.
        ("1\n", 600),
        ("what next?\n", 600),
        // Again, by id prefix: the unchanged file is the session already in.
        ("/resume @claude 4c2d\n", 600),
        // A sub-agent's transcript is refused, and the console stays.
        (refused.as_str(), 300),
        ("/exit\n", 300),
    ];
    let mut hotl = env.command_against("anthropic", &fake, MODEL);
    hotl.env("CLAUDE_CONFIG_DIR", &claude)
        .env("CODEX_HOME", env.root().join("codex"))
        .env("PI_CODING_AGENT_DIR", env.root().join("pi"));
    let Some(out) = in_pty(&env, &hotl, &typed)? else {
        return Ok(());
    };
    let out = out.ok();
    let said = &out.stdout;
    assert!(
        said.contains(
            "· no Codex sessions for ~/project in ~/codex/sessions, ~/codex/archived_sessions"
        ),
        "{said}"
    );
    assert!(said.contains("create hello.py, md and js"), "{said}");
    assert!(said.contains("Claude Code · 4c2ddfdc · "), "{said}");
    assert!(
        said.contains("import and resume which Claude Code session?"),
        "{said}"
    );
    assert!(
        said.contains("· imported Claude Code session ~/claude/projects/-project/"),
        "{said}"
    );
    // The import is a root session of the project, opening with its session and import
    // records.
    let list = env.json(&["sessions", "list", "--json"])?;
    let rows = list.as_array().ok_or("a list")?;
    assert_eq!(rows.len(), 1, "{list}");
    let id = rows[0]["id"].as_str().ok_or("an id")?.to_owned();
    assert!(said.contains(&format!("· resumed {id}")), "{said}");
    let records = env.records(&id)?;
    assert_eq!(records[0]["type"], "session", "{records:?}");
    assert_eq!(records[1]["type"], "import", "{records:?}");
    assert_eq!(records[1]["source"], "claude-code", "{records:?}");
    assert_eq!(records[0]["cwd"], env.cwd().as_str());
    // The message typed after went to it, and the model saw the imported conversation, its
    // tool calls as text notes.
    assert!(
        records
            .iter()
            .any(|r| r["type"] == "user" && r["content"].to_string().contains("what next?")),
        "{records:?}"
    );
    let sent = requests(&fake)?;
    assert_eq!(sent.len(), 1, "{said}");
    let body = sent[0].to_string();
    assert!(body.contains("create hello.py, md and js"), "{body}");
    assert!(body.contains("[imported tool call: "), "{body}");
    assert!(body.contains("what next?"), "{body}");
    assert!(!body.contains("\"tool_use\""), "{body}");
    // The second /resume @claude found the same, unchanged file.
    assert!(
        said.contains("is unchanged since it was imported"),
        "{said}"
    );
    assert!(
        said.contains(&format!("· already in session {id}")),
        "{said}"
    );
    assert!(
        said.contains("· error: ") && said.contains("sub-agent transcript"),
        "{said}"
    );
    Ok(())
}
