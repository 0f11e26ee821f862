//! Streams that go wrong, told: a refusal, an answer cut at the output limit (also when the
//! stream lost only its closing event), a provider's error ending a turn (recorded, shown,
//! resumable), and what a failed turn had spent.

use hotl_fakellm::{Config, Dialect, FakeLlm, Fault, Recording, Reply, Stop};
use hotl_testkit::TestResult;
use serde_json::{Value, json};

use crate::common::{Env, requests};

/// The assistant records of the only session.
fn answers(env: &Env) -> TestResult<Vec<Value>> {
    Ok(env
        .records(&env.only_session()?)?
        .into_iter()
        .filter(|r| r["type"] == "assistant")
        .collect())
}

#[test]
fn a_refusal_is_told_in_text_mode_and_by_show() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("I can't help with that.").with_stop(Stop::Refusal)
    ]))?;
    let out = env.agent(&fake, &["-p", "do the bad thing"]).ok();
    assert_eq!(out.stdout, "I can't help with that.\n", "{out}");
    assert!(
        out.stderr
            .contains("hotl: the model refused to answer (stop reason refusal)"),
        "{out}"
    );
    let answer = &answers(&env)?[0];
    assert_eq!(answer["stop"], "refused", "{answer}");
    assert_eq!(answer["stop_raw"], "refusal", "{answer}");
    let show = env.run(&["sessions", "show", "1"]).ok();
    assert!(
        show.stdout.contains("⊘ the model refused to answer"),
        "{show}"
    );
    Ok(())
}

/// A Chat Completions refusal arrives as `delta.refusal` with `finish_reason: "stop"`: the log
/// records it as refused (and keeps the provider's word).
#[test]
fn a_chat_refusal_is_recorded_as_refused() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([]))?;
    let chunk = |delta: Value, finish: Value| {
        format!(
            "data: {}\n\n",
            json!({"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-5",
                   "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        )
    };
    let body = [
        chunk(
            json!({"role": "assistant", "refusal": "I can't"}),
            Value::Null,
        ),
        chunk(json!({"refusal": " help with that."}), Value::Null),
        chunk(json!({}), json!("stop")),
        "data: [DONE]\n\n".to_owned(),
    ]
    .concat();
    fake.push_replay(&Recording::from_bytes(body, Dialect::OpenAiChat)?);
    let out = env
        .agent_with("openai-chat", &fake, "gpt-5", &["-p", "do the bad thing"])
        .ok();
    assert!(out.stderr.contains("the model refused to answer"), "{out}");
    let answer = &answers(&env)?[0];
    assert_eq!(answer["stop"], "refused", "{answer}");
    assert_eq!(answer["stop_raw"], "stop", "{answer}");
    Ok(())
}

/// `message_delta` said `max_tokens` and only the closing `message_stop` was cut (no blank
/// line after it): the answer is kept as cut at the output limit, not failed.
#[test]
fn a_stream_that_lost_only_its_last_event_keeps_its_stop() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([]))?;
    let event = |name: &str, data: Value| format!("event: {name}\ndata: {data}\n\n");
    let body = [
        event("message_start", json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-5", "content": [], "stop_reason": null, "usage": {"input_tokens": 10, "output_tokens": 1}}})),
        event("content_block_start", json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})),
        event("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "The first half of a long"}})),
        event("content_block_stop", json!({"type": "content_block_stop", "index": 0})),
        event("message_delta", json!({"type": "message_delta", "delta": {"stop_reason": "max_tokens", "stop_sequence": null}, "usage": {"output_tokens": 4096}})),
        "event: message_stop\ndata: {\"type\":\"message_stop\"}".to_owned(),
    ]
    .concat();
    fake.push_replay(&Recording::from_bytes(body, Dialect::Anthropic)?);
    let out = env
        .agent(&fake, &["-p", "write a lot", "--output-format", "json"])
        .ok();
    let result = out.json()?;
    assert_eq!(result["stop"], "truncated", "{out}");
    assert_eq!(result["result"], "The first half of a long");
    assert!(
        out.stderr
            .contains("the answer was cut off at the output limit (8192 tokens"),
        "{out}"
    );
    let answer = &answers(&env)?[0];
    assert_eq!(
        (&answer["stop"], &answer["stop_raw"]),
        (&json!("truncated"), &json!("max_tokens"))
    );
    Ok(())
}

/// A provider's error that ends a turn is recorded as an `error` record: `sessions show` says
/// why the turn has no answer, the JSON result carries what the turn had spent, and the
/// session resumes.
#[test]
fn a_failed_turn_says_why_and_what_it_spent() -> TestResult {
    let env = Env::new()?;
    let event = |name: &str, data: Value| format!("event: {name}\ndata: {data}\n\n");
    let failed = [
        event("response.created", json!({"type": "response.created", "response": {"id": "resp_1", "status": "in_progress", "model": "gpt-5"}})),
        event("response.failed", json!({"type": "response.failed", "response": {"id": "resp_1", "status": "failed", "model": "gpt-5",
            "error": {"code": "insufficient_quota", "message": "You exceeded your current quota."},
            "usage": {"input_tokens": 30, "output_tokens": 0}}})),
    ]
    .concat();
    // The first step answers and calls ls; the second fails.
    let quota = FakeLlm::start(Config::scripted([]))?;
    quota.push_reply(Reply::text("Looking.").with_tool("ls", json!({})));
    quota.push_replay(&Recording::from_bytes(failed, Dialect::OpenAiResponses)?);
    let out = env.agent_with(
        "openai",
        &quota,
        "gpt-5",
        &["-p", "look around", "--output-format", "json"],
    );
    assert_eq!(out.code, 1, "{out}");
    let result: Value = serde_json::from_str(out.stdout.lines().last().ok_or("a result")?)?;
    assert_eq!(result["is_error"], true, "{out}");
    assert!(
        result["error"]
            .as_str()
            .is_some_and(|e| e.contains("insufficient_quota")),
        "{result}"
    );
    assert!(
        result["usage"]["output"].as_u64().is_some_and(|n| n > 0),
        "the first step was billed: {result}"
    );
    let id = env.only_session()?;
    let error = env
        .records(&id)?
        .into_iter()
        .find(|r| r["type"] == "error")
        .ok_or("an error record")?;
    assert_eq!(error["error"], "insufficient_quota", "{error}");
    assert_eq!(error["message"], "You exceeded your current quota.");
    let show = env.run(&["sessions", "show", &id]).ok();
    assert!(
        show.stdout
            .contains("the turn failed: insufficient_quota: You exceeded your current quota."),
        "{show}"
    );
    let shown = env.json(&["sessions", "show", &id, "--json"])?;
    assert_eq!(
        shown["failures"][0]["error"], "insufficient_quota",
        "{shown}"
    );
    assert_eq!(shown["failures"][0]["seq"], error["seq"], "{shown}");
    // Resumable: the next turn goes on.
    quota.push_reply(Reply::text("Quota's back."));
    let again = env
        .agent_with("openai", &quota, "gpt-5", &["-r", &id, "-p", "again"])
        .ok();
    assert_eq!(again.stdout, "Quota's back.\n", "{again}");
    assert!(requests(&quota)?.len() >= 3);
    // A provider refusing outright is recorded with its status.
    let env = Env::new()?;
    let down = FakeLlm::start(Config::scripted([Reply::text("never")]))?;
    down.push_fault(Fault::status(400));
    env.agent(&down, &["-p", "hi"]).fails(1);
    let error = env
        .records(&env.only_session()?)?
        .into_iter()
        .find(|r| r["type"] == "error")
        .ok_or("an error record")?;
    assert_eq!(error["status"], 400, "{error}");
    Ok(())
}

#[test]
fn a_home_that_cannot_be_written_fails_clearly_and_promises_no_session() -> TestResult {
    let env = Env::new()?;
    // Where the sessions go is taken by a file: the first write fails.
    std::fs::create_dir_all(&env.home)?;
    std::fs::write(env.home.join("sessions"), "")?;
    let fake =
        hotl_fakellm::FakeLlm::start(hotl_fakellm::Config::scripted([hotl_fakellm::Reply::text(
            "never written",
        )]))?;
    let out = env.agent(&fake, &["-p", "hi"]).fails(1);
    assert!(out.stderr.contains("sessions"), "{out}");
    assert!(!out.stderr.contains("the session is kept"), "{out}");
    assert!(!out.stderr.contains("hotl -r"), "{out}");
    Ok(())
}

#[test]
fn after_a_broken_answer_the_status_still_counts_the_context() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([Reply::text(
        "a long answer that breaks off",
    )
    .with_fault(Fault::drop_after(40))]))?;
    let out = env.agent(&fake, &["-p", "go", "--output-format", "stream-json"]);
    assert_eq!(out.code, 1, "{out}");
    let last_status = out
        .stdout
        .lines()
        .rev()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|e| e["type"] == "status")
        .ok_or_else(|| format!("no status event: {}", out.stdout))?;
    assert!(
        last_status["context_used"].as_u64().unwrap_or(0) > 100,
        "{last_status}"
    );
    Ok(())
}
