//! `hotl sessions dump`: the session as the model sees it on stdout, and the body of the next
//! request in a private file beside it; an empty session says so.

use std::os::unix::fs::PermissionsExt;

use hotl_fakellm::{Config, FakeLlm, Reply};
use hotl_testkit::{FIXED_ID, LogBuilder, TestResult};
use serde_json::json;

use crate::common::{Env, requests, run};

#[test]
fn dump_prints_what_the_model_sees_and_writes_the_body_privately() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::default().with_tool("bash", json!({"command": "echo hi"})),
        Reply::text("Said hi."),
    ]))?;
    env.agent(&fake, &["-p", "say hi", "--allow", "bash"]).ok();
    let id = env.only_session()?;
    let tmp = env.root().join("tmp");
    std::fs::create_dir_all(&tmp)?;
    let mut cmd = env.agent_command();
    cmd.env("TMPDIR", &tmp).args(["sessions", "dump", &id]);
    let out = run(cmd).ok();
    for part in [
        "=== system prompt ===",
        "You are hotl",
        "=== tools (15) ===",
        "bash: Run a bash command",
        "  parameters: {\"type\":\"object\"",
        "[t3] say hi",
        "name=bash>{\"command\":\"echo hi\"}",
        "<tool_result id=",
        "Said hi.",
    ] {
        assert!(out.stdout.contains(part), "{part:?} missing:\n{out}");
    }
    let path = tmp.join(format!("hotl-llm-request-{id}.json"));
    assert!(
        out.stderr
            .contains(&format!("request body: {}", path.display())),
        "{out}"
    );
    assert!(out.stderr.contains("can hold secrets"), "{out}");
    assert_eq!(
        std::fs::metadata(&path)?.permissions().mode() & 0o777,
        0o600
    );
    let body: serde_json::Value = serde_json::from_slice(&std::fs::read(&path)?)?;
    let sent = requests(&fake)?;
    assert_eq!(
        body["system"], sent[1]["system"],
        "the frozen prompt, as sent"
    );
    assert_eq!(body["tools"], sent[1]["tools"]);
    assert_eq!(body["messages"].as_array().map(Vec::len), Some(4));
    assert!(!body.to_string().contains("x-api-key"));
    Ok(())
}

#[test]
fn an_empty_session_has_nothing_to_dump() -> TestResult {
    let env = Env::new()?;
    env.import(&LogBuilder::new(
        FIXED_ID,
        &env.project.display().to_string(),
    ))?;
    let out = env.run(&["sessions", "dump", FIXED_ID]).ok();
    assert_eq!(out.stdout, "No messages to dump yet.\n", "{out}");
    Ok(())
}

/// A body that cannot be written is reported; the text still prints.
#[test]
fn a_body_that_cannot_be_written_is_told_and_the_text_stands() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([Reply::text("Hi.")]))?;
    env.agent(&fake, &["-p", "hello"]).ok();
    let id = env.only_session()?;
    let mut cmd = env.agent_command();
    cmd.env("TMPDIR", env.root().join("no-such-dir"))
        .args(["sessions", "dump", &id]);
    let out = run(cmd).ok();
    assert!(out.stdout.contains("[t3] hello"), "{out}");
    assert!(
        out.stderr
            .contains("warning: the request body could not be written"),
        "{out}"
    );
    Ok(())
}
