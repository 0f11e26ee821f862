//! `hotl --fork-from`: a new session that leaves the parent untouched, cut at a turn, whose
//! first request extends the parent's last one (so it reads the parent's prompt cache).

use hotl_fakellm::{Config, FakeLlm, Reply};
use hotl_testkit::{FIXED_ID, TestResult};
use serde_json::json;
use serde_json::value::RawValue;

use crate::common::{Env, assert_calls_answered, fake_answering, requests, sent_results};

/// Runs `hotl <args> --output-format json`; returns the session id it reports.
fn session_of(env: &Env, fake: &FakeLlm, args: &[&str]) -> TestResult<(String, serde_json::Value)> {
    let mut all = args.to_vec();
    all.extend(["--output-format", "json"]);
    let json = env.agent(fake, &all).ok().json()?;
    let id = json["session_id"]
        .as_str()
        .ok_or("no session_id")?
        .to_owned();
    Ok((id, json))
}

#[test]
fn a_fork_is_a_new_session_and_the_parent_is_untouched() -> TestResult {
    let env = Env::new()?;
    let fake = fake_answering(3)?;
    let (parent, _) = session_of(&env, &fake, &["-p", "first"])?;
    let bytes = env.log_bytes(&parent)?;
    let mtime = std::fs::metadata(env.log_path(&parent))?.modified()?;

    let (fork, json) = session_of(&env, &fake, &["--fork-from", &parent, "-p", "forked"])?;
    assert_ne!(fork, parent);
    assert_eq!(json["result"], "ok 2");
    assert_eq!(env.log_bytes(&parent)?, bytes);
    assert_eq!(std::fs::metadata(env.log_path(&parent))?.modified()?, mtime);
    assert_eq!(env.session_ids()?.len(), 2);
    assert_eq!(env.turns(&fork)?, 2);
    assert_eq!(env.turns(&parent)?, 1);
    let show = env.json(&["sessions", "show", &fork, "--json"])?;
    assert_eq!(show["parent"]["session"], parent.as_str());

    // The fork's request carried the parent's turn, then the new message.
    let sent = requests(&fake)?;
    assert_eq!(sent[1]["messages"].as_array().map(Vec::len), Some(3));
    // Going on in the fork leaves the parent alone too.
    env.agent(&fake, &["-r", &fork, "-p", "more"]).ok();
    assert_eq!(env.log_bytes(&parent)?, bytes);
    Ok(())
}

#[test]
fn fork_from_last_keeps_the_first_turns() -> TestResult {
    let mut env = Env::new()?;
    let fake = fake_answering(4)?;
    let (parent, _) = session_of(&env, &fake, &["-p", "one"])?;
    env.agent(&fake, &["-r", &parent, "-p", "two"]).ok();
    env.agent(&fake, &["-r", &parent, "-p", "three"]).ok();
    env.now = "2026-11-02T12:01:00.000Z".to_owned();
    let (fork, _) = session_of(
        &env,
        &fake,
        &["--fork-from", "@last", "--keep-turns", "1", "-p", "instead"],
    )?;
    assert_ne!(fork, parent);
    assert_eq!(env.turns(&fork)?, 2);
    let sent = requests(&fake)?;
    let messages = sent[3]["messages"].as_array().ok_or("no messages")?;
    assert_eq!(messages.len(), 3, "{}", sent[3]);
    let text = serde_json::to_string(messages)?;
    assert!(text.contains("one") && text.contains("instead"), "{text}");
    assert!(!text.contains("two") && !text.contains("three"), "{text}");
    Ok(())
}

/// `text` without its `cache_control` markers (`,"cache_control":{...}`).
fn strip_markers(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(r#","cache_control":{"#) {
        out.push_str(&rest[..at]);
        let after = &rest[at..];
        let end = after.find('}').map_or(after.len(), |e| e + 1);
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// A request body's top-level fields as sent (raw JSON text).
fn raw_fields(body: &str) -> TestResult<std::collections::HashMap<String, Box<RawValue>>> {
    Ok(serde_json::from_str(body)?)
}

#[test]
fn the_forks_first_request_extends_the_parents_last_and_reads_its_cache() -> TestResult {
    let env = Env::new()?;
    let rules: String = (1..=120)
        .map(|i| format!("- Rule {i}: keep every change small, tested and explained.\n"))
        .collect();
    assert!(rules.len() > 6000);
    std::fs::write(env.project.join("AGENTS.md"), &rules)?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("Looking.").with_tool("read", json!({"path": "AGENTS.md"})),
        Reply::text("Read it."),
        Reply::text("Forked answer."),
    ]))?;
    let (parent, _) = session_of(&env, &fake, &["-p", "read the rules"])?;
    let (fork, json) = session_of(&env, &fake, &["--fork-from", &parent, "-p", "now what?"])?;
    assert_ne!(fork, parent);
    assert_eq!(json["result"], "Forked answer.");
    // The fork reads all the parent's last request had cached or wrote.
    let records = env.records(&parent)?;
    let last = records
        .iter()
        .rev()
        .find(|r| r["type"] == "assistant")
        .ok_or("no answer")?;
    let n = |k: &str| last["usage"][k].as_u64().unwrap_or(0);
    let parent_cached = n("cache_read") + n("cache_write");
    let read = json["usage"]["cache_read"].as_u64().unwrap_or(0);
    assert!(read > 0, "the fork reads the parent's cache: {json}");
    assert!(read >= parent_cached, "{read} < {parent_cached}: {json}");

    let captured = fake.captured();
    assert_eq!(captured.len(), 3);
    let parent_body = captured[1].body_text();
    let fork_body = captured[2].body_text();
    let (p, f) = (raw_fields(&parent_body)?, raw_fields(&fork_body)?);
    for field in ["system", "tools"] {
        let (pv, fv) = (p.get(field).ok_or(field)?, f.get(field).ok_or(field)?);
        assert_eq!(pv.get(), fv.get(), "{field} differs");
    }
    assert!(p["system"].get().contains("Rule 120"));
    let pm: Vec<Box<RawValue>> = serde_json::from_str(p["messages"].get())?;
    let fm: Vec<Box<RawValue>> = serde_json::from_str(f["messages"].get())?;
    assert_eq!(pm.len(), 3);
    assert_eq!(
        fm.len(),
        pm.len() + 2,
        "the parent's answer and the new message"
    );
    for (i, (a, b)) in pm.iter().zip(&fm).enumerate() {
        assert_eq!(
            strip_markers(a.get()),
            strip_markers(b.get()),
            "message {i} differs"
        );
    }
    Ok(())
}

#[test]
fn forking_an_interrupted_session_before_its_open_turn_leaves_it_open() -> TestResult {
    let env = Env::new()?;
    let call = env.import_interrupted()?;
    let bytes = env.log_bytes(FIXED_ID)?;
    let fake = fake_answering(1)?;
    let (fork, json) = session_of(
        &env,
        &fake,
        &["--fork-from", FIXED_ID, "--keep-turns", "1", "-p", "next"],
    )?;
    assert_ne!(fork, FIXED_ID);
    assert_eq!(json["result"], "ok 1");
    let sent = requests(&fake)?;
    assert_eq!(sent.len(), 1);
    assert!(!sent[0].to_string().contains(&call), "{}", sent[0]);
    assert_eq!(env.log_bytes(FIXED_ID)?, bytes);
    assert_eq!(
        env.json(&["sessions", "show", FIXED_ID, "--json"])?["open_turn"],
        true
    );
    assert_calls_answered(&env.records(&fork)?);
    Ok(())
}

#[test]
fn forking_an_interrupted_session_does_not_finish_the_parents_turn() -> TestResult {
    let env = Env::new()?;
    let call = env.import_interrupted()?;
    let bytes = env.log_bytes(FIXED_ID)?;
    let fake = fake_answering(2)?;
    let out = env.agent(
        &fake,
        &[
            "--fork-from",
            FIXED_ID,
            "-p",
            "next",
            "--output-format",
            "json",
        ],
    );
    let json = out.ok().json()?;
    let fork = json["session_id"].as_str().ok_or("no id")?;
    assert_ne!(fork, FIXED_ID);
    assert_eq!(json["result"], "ok 1");
    assert_eq!(
        requests(&fake)?.len(),
        1,
        "no request finishes the parent's turn"
    );
    assert_eq!(env.log_bytes(FIXED_ID)?, bytes);
    assert_eq!(
        env.json(&["sessions", "show", FIXED_ID, "--json"])?["open_turn"],
        true
    );
    // Whatever the fork does with the open call, the request it sent ends with the new message.
    let sent = requests(&fake)?;
    let last = sent[0]["messages"]
        .as_array()
        .and_then(|m| m.last())
        .ok_or("no messages")?;
    assert!(last["content"].to_string().contains("next"), "{}", sent[0]);
    let answered = sent_results(&sent[0]).iter().any(|r| r.call == call);
    let carried = sent[0].to_string().contains(&call);
    assert!(
        !carried || answered,
        "an open call is never sent unanswered"
    );
    // The fork's lineage (the parent at its head, then the fork) answers every call.
    let mut lineage = env.records(FIXED_ID)?;
    lineage.extend(env.records(fork)?);
    assert_calls_answered(&lineage);
    Ok(())
}

#[test]
fn keep_turns_without_fork_from_is_a_usage_error() -> TestResult {
    let env = Env::new()?;
    let fake = fake_answering(1)?;
    let out = env.agent(&fake, &["--keep-turns", "1", "-p", "x"]).fails(2);
    assert!(out.stderr.contains("--fork-from"), "{out}");
    assert!(env.session_ids()?.is_empty());
    assert!(fake.captured().is_empty());
    Ok(())
}
