//! Hooks at a session's start, around each tool call (with matchers) and at each turn's end:
//! a `before_tool` hook that fails cancels the call and the model reads why; the others are
//! told what happened on stdin.

use hotl_fakellm::{Config, FakeLlm, Reply};
use hotl_testkit::TestResult;
use serde_json::{Value, json};

use crate::common::Env;

/// Writes `toml` as the config file the agent runs read.
fn config(env: &Env, toml: &str) -> TestResult {
    let dir = env.root().join("config").join("hotl");
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join("config.toml"), toml)?;
    Ok(())
}

/// The JSON lines a hook appended to `file`.
fn lines(env: &Env, file: &str) -> TestResult<Vec<Value>> {
    let text = std::fs::read_to_string(env.root().join(file)).unwrap_or_default();
    Ok(text
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()?)
}

#[test]
fn hooks_see_the_session_start_each_call_and_each_turn_end_and_can_stop_a_call() -> TestResult {
    let env = Env::new()?;
    std::fs::write(env.project.join("keep.txt"), "precious")?;
    let root = env.root().display().to_string();
    config(
        &env,
        &format!(
            r#"
[[hooks]]
event = "session_start"
command = "cat >> {root}/start.jsonl"

[[hooks]]
event = "before_tool"
matcher = "bash"
command = "grep -q 'rm ' && {{ echo 'no rm in this project' >&2; exit 1; }}; exit 0"

[[hooks]]
event = "after_tool"
matcher = "{{ls,read}}"
command = "cat >> {root}/after.jsonl"

[[hooks]]
event = "stop"
command = "cat >> {root}/stop.jsonl"
"#
        ),
    )?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::default().with_tool("bash", json!({"command": "rm keep.txt"})),
        Reply::default().with_tool("ls", json!({})),
        Reply::text("Kept it."),
    ]))?;
    let out = env.agent(&fake, &["-p", "tidy up", "--allow", "bash"]).ok();
    assert_eq!(out.stdout, "Kept it.\n", "{out}");
    assert!(
        out.stderr
            .contains("a before_tool hook stopped bash: no rm in this project"),
        "{out}"
    );
    assert!(
        env.project.join("keep.txt").exists(),
        "the call did not run"
    );
    let id = env.only_session()?;
    let records = env.records(&id)?;
    let refused = records
        .iter()
        .find(|r| r["type"] == "tool_result")
        .ok_or("a result")?;
    assert_eq!(refused["is_error"], true);
    assert!(
        refused.to_string().contains("no rm in this project"),
        "the model reads why: {refused}"
    );

    let start = lines(&env, "start.jsonl")?;
    assert_eq!(start.len(), 1);
    assert_eq!(
        (
            &start[0]["event"],
            &start[0]["source"],
            &start[0]["session_id"]
        ),
        (&json!("session_start"), &json!("new"), &json!(id))
    );
    // The matcher keeps bash out of the after_tool hook; ls is in.
    let after = lines(&env, "after.jsonl")?;
    assert_eq!(after.len(), 1, "{after:?}");
    assert_eq!(after[0]["tool"], "ls");
    assert_eq!(after[0]["is_error"], false);
    assert!(
        after[0]["output"]
            .as_str()
            .is_some_and(|o| o.contains("keep.txt"))
    );
    let stop = lines(&env, "stop.jsonl")?;
    assert_eq!(stop.len(), 1);
    assert_eq!(
        (&stop[0]["stop"], &stop[0]["text"]),
        (&json!("done"), &json!("Kept it."))
    );

    // A resumed session starts as a resume.
    let fake = FakeLlm::start(Config::scripted([Reply::text("Again.")]))?;
    env.agent(&fake, &["-r", &id, "-p", "again"]).ok();
    let start = lines(&env, "start.jsonl")?;
    assert_eq!(start.last().map(|s| &s["source"]), Some(&json!("resume")));
    Ok(())
}

#[test]
fn a_matcher_on_a_hook_that_is_not_about_a_tool_is_refused() -> TestResult {
    let env = Env::new()?;
    config(
        &env,
        "[[hooks]]\nevent = \"stop\"\nmatcher = \"bash\"\ncommand = \"true\"\n",
    )?;
    let fake = FakeLlm::start(Config::scripted([Reply::text("never")]))?;
    let out = env.agent(&fake, &["-p", "hi"]);
    assert_eq!(out.code, 1, "{out}");
    assert!(
        out.stderr
            .contains("only before_tool and after_tool hooks are about a tool"),
        "{out}"
    );
    Ok(())
}

#[test]
fn a_hook_that_says_too_much_is_capped_and_its_escapes_are_shown_not_sent() -> TestResult {
    let env = Env::new()?;
    // 20 MB on stderr (the head and the tail kept), an OSC 52 clipboard write and a screen clear among it.
    config(
        &env,
        r#"
[[hooks]]
event = "before_tool"
command = '''printf 'FIRST \033]52;c;cHduZWQ=\007 \033[2J' >&2; yes xxxxxxxxxxxxxxx | head -c 20000000 >&2; echo ' LAST' >&2; exit 1'''
"#,
    )?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::default().with_tool("ls", json!({})),
        Reply::text("Stopped."),
    ]))?;
    let out = env.agent(&fake, &["-p", "look"]).ok();
    assert_eq!(out.stdout, "Stopped.\n", "{out}");
    assert!(out.stderr.len() < 10_000, "{} bytes", out.stderr.len());
    assert!(!out.stderr.contains('\u{1b}'), "{out}");
    assert!(out.stderr.contains("FIRST \u{241b}]52;"), "{out}");
    let id = env.only_session()?;
    let log = std::fs::read(env.log_path(&id))?;
    assert!(log.len() < 200_000, "the log holds {} bytes", log.len());
    let records = env.records(&id)?;
    let result = records
        .iter()
        .find(|r| r["type"] == "tool_result")
        .ok_or("a result")?;
    let text = result.to_string();
    assert!(text.contains("FIRST") && text.contains("LAST"), "{text}");
    assert!(text.len() < 100_000, "{} bytes", text.len());
    assert!(
        result["blob"].as_str().is_some(),
        "the rest in a blob: {result}"
    );
    let sent = crate::common::requests(&fake)?;
    assert!(sent[1].to_string().len() < 200_000);
    Ok(())
}

#[test]
fn a_hook_stopped_at_its_timeout_takes_what_it_started_with_it() -> TestResult {
    let env = Env::new()?;
    let pids = env.root().join("pids");
    config(
        &env,
        &format!(
            r#"
[[hooks]]
event = "before_tool"
timeout_sec = 1
command = "sleep 300 & echo $! >> {pids}; sleep 301 & echo $! >> {pids}; wait"
"#,
            pids = pids.display()
        ),
    )?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::default().with_tool("ls", json!({})),
        Reply::text("Stopped."),
    ]))?;
    let out = env.agent(&fake, &["-p", "look"]).ok();
    assert_eq!(out.stdout, "Stopped.\n", "{out}");
    let listed = std::fs::read_to_string(&pids)?;
    assert_eq!(listed.lines().count(), 2, "{listed}");
    for pid in listed.lines() {
        let alive = std::path::Path::new("/proc").join(pid.trim());
        // Killed at once; a zombie reaped by init in a moment is gone soon after.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while alive.exists()
            && !std::fs::read_to_string(alive.join("stat")).is_ok_and(|s| s.contains(") Z"))
        {
            assert!(std::time::Instant::now() < deadline, "{pid} still runs");
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
    Ok(())
}
