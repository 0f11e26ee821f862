//! The seam as a user meets it: stream-json prints the agent's events (an `init` first, a
//! `tool_use` and `tool_result` for every call, the moves included, with errors naming the
//! field at fault), a refused name writes nothing, and a frozen prompt that cannot be read is
//! told on resume and by `sessions check`.

use hotl_fakellm::{Config, Dialect, FakeLlm, Recording, Reply};
use hotl_testkit::TestResult;
use serde_json::{Value, json};

use crate::common::{Env, bad_arguments_sse, console, fake_answering};

fn lines(stdout: &str) -> TestResult<Vec<Value>> {
    Ok(stdout
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()?)
}

#[test]
fn stream_json_tells_every_call_the_moves_included() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([]))?;
    fake.push_reply(Reply::text("").with_tool("recall", json!({ "query": 5 })));
    fake.push_reply(Reply::text("").with_tool("fold", json!({ "since": "t2", "note": [] })));
    let sse = bad_arguments_sse("fold", r#"{"since": t2"#);
    fake.push_replay(&Recording::from_bytes(sse, Dialect::Anthropic)?);
    fake.push_reply(Reply::text("").with_tool("recall", json!({ "query": "anything" })));
    fake.push_reply(Reply::text("Done."));
    let out = env
        .agent(&fake, &["-p", "go", "--output-format", "stream-json"])
        .ok();
    let lines = lines(&out.stdout)?;
    let first = &lines[0];
    assert_eq!(first["type"], "init", "{out}");
    assert_eq!(first["model"], crate::common::MODEL);
    assert!(first["cwd"].as_str().is_some_and(|c| !c.is_empty()));
    let tools: Vec<&str> = first["tools"]
        .as_array()
        .ok_or("tools")?
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for tool in ["bash", "fold", "recall", "ask", "fork"] {
        assert!(tools.contains(&tool), "{tools:?}");
    }
    let last = lines.last().ok_or("no lines")?;
    assert_eq!(last["type"], "result");
    assert_eq!(last["session_id"], first["session_id"]);
    let of = |kind: &str| -> Vec<&Value> { lines.iter().filter(|l| l["type"] == kind).collect() };
    let used: Vec<&Value> = of("tool_use").iter().map(|l| &l["name"]).collect();
    assert_eq!(used, ["recall", "fold", "fold", "recall"], "{out}");
    let results: Vec<(&Value, &Value, &str)> = of("tool_result")
        .iter()
        .map(|l| {
            (
                &l["name"],
                &l["is_error"],
                l["content"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(results.len(), 4, "{out}");
    assert_eq!(
        (results[0].0, results[0].1, results[0].2),
        (
            &json!("recall"),
            &json!(true),
            "`query` must be a string, got the number 5"
        )
    );
    assert_eq!(results[1].2, "`note` must be a string, got an array");
    assert!(results[2].2.contains("not valid JSON"), "{:?}", results[2]);
    assert!(
        results[2].2.contains("t2"),
        "the arguments as sent: {:?}",
        results[2]
    );
    assert_eq!(results[3].1, &json!(false));
    assert!(
        results[3].2.contains("nothing is archived yet"),
        "{:?}",
        results[3]
    );
    // The call with bad JSON is shown with what the model wrote, as a string.
    assert_eq!(of("tool_use")[2]["input"], "{\"since\": t2");
    Ok(())
}

#[test]
fn a_name_that_cannot_be_used_is_refused_before_anything_is_written() -> TestResult {
    let env = Env::new()?;
    let fake = fake_answering(3)?;
    for (name, why) in [
        ("123", "a number would be read as a list number"),
        ("a/b", "it contains a path separator"),
    ] {
        let out = env.agent(&fake, &["-n", name, "-p", "hi"]).fails(1);
        assert!(
            out.stderr
                .contains(&format!("invalid session name {name:?}: {why}")),
            "{out}"
        );
        assert!(env.session_ids()?.is_empty(), "{name}: {out}");
    }
    env.agent(&fake, &["-n", "work", "-p", "hi"]).ok();
    let first = env.only_session()?;
    let out = env.agent(&fake, &["-n", "work", "-p", "again"]).fails(1);
    assert!(
        out.stderr
            .contains(&format!("the name \"work\" is taken by session {first}")),
        "{out}"
    );
    assert_eq!(env.session_ids()?, [first], "{out}");
    // The console refuses it the same way, before it starts.
    if let Some(out) = console(&env, &fake, &["-n", "123"], "hi\n/exit\n")? {
        assert_eq!(out.code, 1, "{out}");
        assert!(
            out.stderr.contains("invalid session name")
                || out.stdout.contains("invalid session name"),
            "{out}"
        );
    }
    assert_eq!(env.session_ids()?.len(), 1);
    Ok(())
}

#[test]
fn a_frozen_prompt_that_cannot_be_read_is_told_on_resume_and_by_check() -> TestResult {
    let env = Env::new()?;
    let fake = fake_answering(2)?;
    env.agent(&fake, &["-p", "hi"]).ok();
    let id = env.only_session()?;
    let start = &env.records(&id)?[0];
    let blob = start["system_blob"].as_str().ok_or("a frozen prompt")?;
    std::fs::remove_file(env.home.join("blobs").join(&blob[..2]).join(blob))?;
    let check = env.run(&["sessions", "check", &id]).fails(1);
    let said = format!("the session's frozen system prompt (blob {blob}) cannot be read");
    assert!(check.stdout.contains(&said), "{check}");
    let resumed = env.agent(&fake, &["-r", &id, "-p", "again"]).ok();
    assert_eq!(
        resumed.stderr.matches(&said).count(),
        1,
        "one notice naming it: {resumed}"
    );
    assert!(resumed.stderr.contains("hotl: warning: "), "{resumed}");
    Ok(())
}
