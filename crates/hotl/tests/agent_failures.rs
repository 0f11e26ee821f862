//! When the provider or the model misbehaves: retries before output, bad tool calls reported
//! to the model, streams cut after output began; and the log stays valid for every provider.

use hotl_fakellm::{Config, Dialect, FakeLlm, Fault, Recording, Reply};
use hotl_testkit::TestResult;
use serde_json::json;

use crate::common::{Env, MODEL, assert_calls_answered, bad_arguments_sse, requests, sent_results};

#[test]
fn overloaded_and_rate_limited_before_output_are_retried() -> TestResult {
    for fault in [
        Fault::status(529),
        Fault::rate_limited(100),
        Fault::error_after(1),
    ] {
        let env = Env::new()?;
        let fake = FakeLlm::start(Config::scripted([Reply::text("Made it.")]))?;
        fake.push_fault(fault.clone());
        let out = env.agent(&fake, &["-p", "hi"]).ok();
        assert_eq!(out.stdout, "Made it.\n", "{fault:?}: {out}");
        assert_eq!(requests(&fake)?.len(), 2, "{fault:?}");
        let types = env.record_types(&env.only_session()?)?;
        assert_eq!(
            types,
            ["session", "run", "user", "assistant", "run"],
            "{fault:?}"
        );
    }
    Ok(())
}

#[test]
fn invalid_tool_arguments_are_a_tool_error_and_the_run_goes_on() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([]))?;
    let sse = bad_arguments_sse("bash", r#"{"command": echo hi}"#);
    fake.push_replay(&Recording::from_bytes(sse, Dialect::Anthropic)?);
    fake.push_reply(Reply::text("Recovered."));
    let out = env.agent(&fake, &["-p", "go", "--allow", "bash"]).ok();
    assert_eq!(out.stdout, "Recovered.\n", "{out}");
    let sent = requests(&fake)?;
    assert_eq!(sent.len(), 2);
    let results = sent_results(&sent[1]);
    assert_eq!(results.len(), 1, "{}", sent[1]);
    assert_eq!(results[0].call, "toolu_bad");
    assert_eq!(results[0].is_error, Some(true), "{results:?}");
    assert!(results[0].text.contains("not valid JSON"), "{results:?}");
    assert!(results[0].text.contains("echo hi"), "{results:?}");
    assert_calls_answered(&env.records(&env.only_session()?)?);
    Ok(())
}

#[test]
fn an_unknown_tool_is_a_tool_error_and_the_run_goes_on() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("Trying.").with_tool("frobnicate", json!({"x": 1})),
        Reply::text("Recovered."),
    ]))?;
    let out = env.agent(&fake, &["-p", "go"]).ok();
    assert_eq!(out.stdout, "Recovered.\n", "{out}");
    let results = sent_results(&requests(&fake)?[1]);
    assert_eq!(results.len(), 1, "{results:?}");
    assert_eq!(results[0].is_error, Some(true), "{results:?}");
    assert!(
        results[0].text.contains("no tool named \"frobnicate\""),
        "{results:?}"
    );
    assert!(
        results[0].text.contains("bash"),
        "lists the tools: {results:?}"
    );
    assert_calls_answered(&env.records(&env.only_session()?)?);
    Ok(())
}

#[test]
fn a_call_without_arguments_is_a_tool_error_and_the_run_goes_on() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("Trying.")
            .with_tool("bash", json!({}))
            .with_tool("read", json!({}))
            .with_tool("write", json!({})),
        Reply::text("Recovered."),
    ]))?;
    let out = env
        .agent(&fake, &["-p", "go", "--permission-mode", "bypass"])
        .ok();
    assert_eq!(out.stdout, "Recovered.\n", "{out}");
    let results = sent_results(&requests(&fake)?[1]);
    assert_eq!(results.len(), 3, "{results:?}");
    for (result, field) in results.iter().zip(["command", "path", "path"]) {
        assert_eq!(result.is_error, Some(true), "{result:?}");
        assert!(result.text.contains(field), "names {field}: {result:?}");
    }
    assert_calls_answered(&env.records(&env.only_session()?)?);
    Ok(())
}

#[test]
fn a_stream_cut_after_output_began_fails_and_the_session_resumes() -> TestResult {
    let env = Env::new()?;
    let long = "This answer is long enough to be cut in the middle. ".repeat(20);
    let fake = FakeLlm::start(Config::scripted([Reply::text(long.clone())]))?;
    fake.push_fault(Fault::drop_after(1500));
    let out = env.agent(&fake, &["-p", "talk"]);
    assert_ne!(out.code, 0, "{out}");
    // The provider was reached: this is not a connection that never opened.
    assert!(
        out.stderr
            .contains("the connection to the provider broke mid-answer"),
        "{out}"
    );
    assert!(!out.stderr.contains("cannot reach the provider"), "{out}");
    let id = env.only_session()?;
    assert!(out.stderr.contains(&format!("hotl -r {id}")), "{out}");
    assert_eq!(requests(&fake)?.len(), 1, "not retried after output began");

    let records = env.records(&id)?;
    let partial = records
        .iter()
        .find(|r| r["type"] == "assistant")
        .ok_or("the partial answer is kept")?;
    assert_eq!(partial["stop"], "interrupted", "{partial}");
    let said = partial["content"][0]["text"].as_str().unwrap_or_default();
    assert!(!said.is_empty() && long.starts_with(said), "{partial}");
    let (last, before) = records.split_last().ok_or("empty log")?;
    assert_eq!(before.last().map(|r| &r["type"]), Some(&json!("run")));
    assert_eq!(
        before.last().map(|r| &r["state"]),
        Some(&json!("interrupted"))
    );
    // Why the turn failed is recorded after it.
    assert_eq!(last["type"], "error", "{last}");
    assert_eq!(last["error"], "stream", "{last}");
    let show = env.run(&["sessions", "show", &id]).ok();
    assert!(
        show.stdout
            .contains("interrupted: the connection to the provider broke mid-answer"),
        "{show}"
    );

    // The cut reply was not consumed: the resumed run gets it whole.
    let again = env.agent(&fake, &["-r", &id, "-p", "again"]).ok();
    assert_eq!(again.stdout, format!("{long}\n"), "{again}");
    assert_eq!(env.session_ids()?, vec![id.clone()]);
    assert_calls_answered(&env.records(&id)?);
    assert_eq!(env.turns(&id)?, 2);
    Ok(())
}

#[test]
fn a_stream_cut_inside_a_tool_call_runs_nothing() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([Reply::text("Writing now.").with_tool(
        "bash",
        json!({"command": format!("echo {} > cut.txt", "x".repeat(400))}),
    )]))?;
    // message_start, the text block (start, ping, delta, stop), the call's start and ~30
    // argument deltas: the 12th event falls inside the arguments.
    fake.push_fault(Fault::error_after(12));
    let out = env.agent(
        &fake,
        &["-p", "go", "--allow", "bash", "--output-format", "json"],
    );
    assert_ne!(out.code, 0, "{out}");
    assert!(!env.project.join("cut.txt").exists());
    let id = env.only_session()?;
    let json = out.json()?;
    assert_eq!(json["type"], "result", "{out}");
    assert_eq!(json["is_error"], true, "{out}");
    assert_eq!(json["session_id"], id.as_str(), "{out}");
    assert!(
        json["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{out}"
    );
    let records = env.records(&id)?;
    assert_calls_answered(&records);
    assert!(
        records
            .iter()
            .filter(|r| r["type"] == "assistant")
            .all(|r| r["content"]
                .as_array()
                .is_some_and(|b| b.iter().all(|b| b["type"] != "tool_use"))),
        "an unfinished call is not kept: {records:?}"
    );
    fake.push_reply(Reply::text("Fine."));
    env.agent(&fake, &["-r", &id, "-p", "again"]).ok();
    Ok(())
}

#[test]
fn every_dialect_keeps_the_log_valid_after_bad_calls() -> TestResult {
    for (provider, model) in [
        ("anthropic", MODEL),
        ("openai-chat", "gpt-5.1"),
        ("openai", "gpt-5.1"),
    ] {
        let env = Env::new()?;
        let fake = FakeLlm::start(Config::scripted([
            Reply::text("Trying.")
                .with_tool("frobnicate", json!({}))
                .with_tool("bash", json!({})),
            Reply::text("Refused.").with_tool("bash", json!({"command": "true"})),
            Reply::text("Done."),
        ]))?;
        let out = env
            .agent_with(
                provider,
                &fake,
                model,
                &["-p", "go", "--output-format", "json"],
            )
            .ok();
        let json = out.json()?;
        assert_eq!(json["result"], "Done.", "{provider}: {out}");
        assert_eq!(requests(&fake)?.len(), 3, "{provider}");
        let id = json["session_id"].as_str().ok_or("no id")?.to_owned();
        assert_calls_answered(&env.records(&id)?);
        // A second turn sends the whole log again: the fake would refuse a malformed one.
        fake.push_reply(Reply::text("Again."));
        let again = env.agent_with(provider, &fake, model, &["-r", &id, "-p", "again"]);
        assert_eq!(again.ok().stdout, "Again.\n", "{provider}");
    }
    Ok(())
}

#[test]
fn ctrl_c_cancels_a_running_tool_and_the_session_resumes() -> TestResult {
    use std::time::{Duration, Instant};
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("Waiting.").with_tool("bash", json!({"command": "sleep 30; touch late.txt"})),
        Reply::text("Resumed fine."),
    ]))?;
    let mut cmd = env.command_against("anthropic", &fake, MODEL);
    cmd.args(["-p", "wait", "--allow", "bash"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let child = cmd.spawn()?;
    // Wait until the call is in the log (it runs right after), then interrupt.
    let deadline = Instant::now() + Duration::from_secs(10);
    let id = loop {
        assert!(Instant::now() < deadline, "the call never started");
        std::thread::sleep(Duration::from_millis(50));
        let Some(id) = env.session_ids()?.pop() else {
            continue;
        };
        if env.record_types(&id)?.iter().any(|t| t == "assistant") {
            break id;
        }
    };
    std::thread::sleep(Duration::from_millis(200));
    let started = Instant::now();
    let kill = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()?;
    assert!(kill.success());
    let out = child.wait_with_output()?;
    assert_eq!(out.status.code(), Some(130), "{out:?}");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the tool was stopped"
    );

    let records = env.records(&id)?;
    assert_calls_answered(&records);
    let result = records
        .iter()
        .find(|r| r["type"] == "tool_result")
        .ok_or("the call is answered")?;
    assert_eq!(result["is_error"], true);
    assert!(
        result["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("cancelled")),
        "{result}"
    );
    let last = records.last().ok_or("empty log")?;
    assert_eq!(
        (&last["type"], &last["state"]),
        (&json!("run"), &json!("cancelled"))
    );

    let again = env.agent(&fake, &["-r", &id, "-p", "go on"]).ok();
    assert_eq!(again.stdout, "Resumed fine.\n", "{again}");
    assert_eq!(requests(&fake)?.len(), 2);
    Ok(())
}
