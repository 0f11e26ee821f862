//! `hotl sessions show`: the transcript, the model view, JSON, and what was skipped.

use std::io::Write;

use hotl_testkit::{FIXED_ID, FIXED_TS, LogBuilder, TestResult};

use crate::common::Env;

/// Three turns; the first is folded behind handle `a1b2`.
fn folded(env: &Env) -> LogBuilder {
    let mut log = env.log(FIXED_ID);
    let first = log.turn("fix the build");
    let end = log.seq();
    log.fold(first, end, "a1b2", "Build fixed: cfg was undefined.");
    log.turn("run the tests");
    log
}

#[test]
fn transcript_has_stamps_and_folds() -> TestResult {
    let env = Env::new()?;
    env.import(&folded(&env))?;
    let out = env.run(&["sessions", "show", "1"]).ok();
    insta::assert_snapshot!(out, @r#"
        session 01JD0000000000000000000001 "fix the build"
        cwd ~/project · model demo · 2 turns

        ⋯ folded a1b2 (t3..t7, 4 items):
          Build fixed: cfg was undefined.
          [t3] user: fix the build
        ── end of turn 1 · t8 ──
        [t10] user: run the tests
        assistant (demo):
          → bash {"command":"ls"} (call_2)
        [t12] tool result (call_2):
          Cargo.toml
          src
        assistant (demo):
          done: run the tests
        ── end of turn 2 · t14 ──
    "#);
    Ok(())
}

#[test]
fn model_view_is_what_the_model_is_sent() -> TestResult {
    let env = Env::new()?;
    env.import(&folded(&env))?;
    let out = env.run(&["sessions", "show", "1", "--model-view"]).ok();
    insta::assert_snapshot!(out, @r#"
        ── user ──
        <folded handle=a1b2 span=t3..t7>
        Build fixed: cfg was undefined.
        </folded>
        [t3] fix the build
        [t10] run the tests
        ── assistant ──
        <tool_use id=call_2 name=bash>{"command":"ls"}</tool_use>
        ── user ──
        <tool_result id=call_2>
        [t12] Cargo.toml
        src

        </tool_result>
        ── assistant ──
        done: run the tests
    "#);
    Ok(())
}

#[test]
fn json_parses() -> TestResult {
    let env = Env::new()?;
    env.import(&folded(&env))?;
    let json = env.json(&["sessions", "show", FIXED_ID, "--json"])?;
    assert_eq!(json["id"], FIXED_ID);
    assert_eq!(json["turns"], 2);
    assert_eq!(json["cwd"], env.cwd().as_str());
    assert!(json["items"].as_array().is_some_and(|a| !a.is_empty()));
    let model = env.json(&["sessions", "show", FIXED_ID, "--json", "--model-view"])?;
    assert_eq!(model["id"], FIXED_ID);
    let messages = model["messages"].as_array().ok_or("no messages")?;
    assert!(!messages.is_empty());
    let text = model["messages"].to_string();
    assert!(text.contains("a1b2"), "{text}");
    Ok(())
}

#[test]
fn a_healthy_log_has_no_skipped_line() -> TestResult {
    let env = Env::new()?;
    env.import(&env.log_with_turns(FIXED_ID, 1))?;
    let out = env.run(&["sessions", "show", "1"]).ok();
    assert!(!out.stdout.contains("corrupt"), "{out}");
    assert!(!out.stdout.contains("torn"), "{out}");
    assert!(out.stderr.is_empty(), "{out}");
    Ok(())
}

#[test]
fn skipped_records_are_reported_last() -> TestResult {
    let env = Env::new()?;
    let mut log = env.log_with_turns(FIXED_ID, 1);
    log.raw(b"{this is not json", false);
    let unknown = format!(
        r#"{{"seq":{},"ts":"{FIXED_TS}","type":"frobnicate","v":"0.1.0"}}"#,
        log.seq() + 1
    );
    log.raw(unknown.as_bytes(), false);
    env.import(&log)?;
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(env.log_path(FIXED_ID))?;
    file.write_all(br#"{"seq":99,"ts":"#)?;
    drop(file);

    let out = env.run(&["sessions", "show", "1"]).ok();
    let last = out.stdout.lines().last().unwrap_or("");
    // Lines: 1 session, 2..=7 the turn, 8 corrupt, 9 unknown, 10 torn.
    for part in [
        "1 corrupt line (line 8)",
        "1 record of unknown type",
        "a torn last line (15 bytes at line 10)",
    ] {
        assert!(last.contains(part), "{part:?} not in the last line:\n{out}");
    }
    assert!(out.stdout.contains("[t3] user: message 1"), "{out}");
    let model = env.run(&["sessions", "show", "1", "--model-view"]).ok();
    assert_eq!(model.stdout.lines().last(), Some(last), "{model}");
    let json = env.json(&["sessions", "show", "1", "--json"])?;
    assert!(json["skipped"].is_object(), "{json}");
    Ok(())
}
