//! What damage runs found: a repeated line, a fork whose parent is gone with its run open, a
//! tool result lost mid-log. Each is told, and nothing wrong is sent to the provider.

use hotl_log::{Body, RunState};
use hotl_testkit::{FIXED_ID, LogBuilder, TestResult};
use serde_json::json;

use crate::common::{Env, fake_answering, requests};

/// A repeated assistant line (same seq) is reported by `check`, and left out of the view: the
/// resume does not send its tool call id twice (the provider refuses that, as the fake does).
#[test]
fn a_repeated_line_is_sent_once() -> TestResult {
    let env = Env::new()?;
    let mut log = env.log(FIXED_ID);
    log.record(Body::Run {
        run: "run_1".to_owned(),
        state: RunState::Started,
    });
    log.user("look around");
    let (_, call) = log.tool_call("ls", json!({}));
    let text = String::from_utf8(log.text())?;
    let repeated = text.lines().last().ok_or("a line")?.to_owned();
    log.raw(repeated.as_bytes(), false);
    log.tool_result(&call, "a.txt");
    log.assistant("One file.");
    log.record(Body::Run {
        run: "run_1".to_owned(),
        state: RunState::Finished,
    });
    env.import(&log)?;
    let check = env.run(&["sessions", "check", FIXED_ID]).fails(1);
    assert!(check.stdout.contains("does not follow"), "{check}");
    let fake = fake_answering(1)?;
    env.agent(&fake, &["-r", FIXED_ID, "-p", "and now?"]).ok();
    let sent = requests(&fake)?[0].to_string();
    assert_eq!(
        sent.matches(&format!("\"id\":\"{call}\"")).count(),
        1,
        "{sent}"
    );
    Ok(())
}

/// A fork whose parent is gone and whose run a dead process left open has nothing to send:
/// it says what is missing instead of sending an empty request.
#[test]
fn an_empty_conversation_is_never_sent() -> TestResult {
    let env = Env::new()?;
    let gone = "01JD0000000000000000000077";
    let mut fork = LogBuilder::new(FIXED_ID, &env.cwd());
    fork.raw(
        format!(
            r#"{{"seq":9,"ts":"2026-11-01T00:00:00.000Z","type":"session","id":"{id}","cwd":"{cwd}","model":"demo","parent":{{"session":"{gone}","seq":8,"offset":100,"hash":"ab"}}}}"#,
            id = "01JD0000000000000000000078",
            cwd = env.cwd(),
        )
        .as_bytes(),
        false,
    );
    let path = env.scratch(
        "fork.jsonl",
        &String::from_utf8(fork.text())?
            .lines()
            .skip(1)
            .map(|l| format!("{l}\n"))
            .chain([
                "{\"seq\":10,\"ts\":\"2026-11-01T00:00:01.000Z\",\"type\":\"run\",\"run\":\"r\",\"state\":\"started\"}\n".to_owned(),
            ])
            .collect::<String>()
            .into_bytes(),
    )?;
    env.run(&["sessions", "import", crate::common::path_str(&path)?])
        .ok();
    let fake = fake_answering(1)?;
    let out = env
        .agent(&fake, &["-r", "01JD0000000000000000000078", "-p", "go on"])
        .fails(1);
    assert!(out.stderr.contains("nothing to send the model"), "{out}");
    assert!(out.stderr.contains(gone), "it names what is missing: {out}");
    assert!(requests(&fake)?.is_empty(), "no empty request went out");
    Ok(())
}

/// A tool result lost mid-log (the view repairs it for the model) is named by `check`.
#[test]
fn check_names_a_call_left_without_its_result() -> TestResult {
    let env = Env::new()?;
    let mut log = env.log(FIXED_ID);
    log.user("first");
    let (seq, call) = log.tool_call("bash", json!({ "command": "make" }));
    log.user("second");
    log.assistant("ok");
    env.import(&log)?;
    let check = env.run(&["sessions", "check", FIXED_ID]).fails(1);
    assert!(
        check
            .stdout
            .contains(&format!("the `bash` call {call} (t{seq}) has no result")),
        "{check}"
    );
    Ok(())
}

#[test]
fn a_huge_result_whose_call_was_lost_is_sent_cut() -> TestResult {
    let env = Env::new()?;
    let mut log = env.log_with_turns(FIXED_ID, 1);
    let huge: String = (0..200_000).map(|i| format!("output line {i}\n")).collect();
    log.tool_result("call_lost", &huge);
    env.import(&log)?;
    let fake =
        hotl_fakellm::FakeLlm::start(hotl_fakellm::Config::scripted([hotl_fakellm::Reply::text(
            "Went on.",
        )]))?;
    let out = env.agent(&fake, &["-r", FIXED_ID, "-p", "go on"]).ok();
    assert_eq!(out.stdout, "Went on.\n", "{out}");
    let sent = requests(&fake)?;
    let body = sent.first().ok_or("no request")?.to_string();
    assert!(body.len() < 100_000, "{} bytes sent", body.len());
    assert!(body.contains("output line 0\\n"), "its head");
    assert!(body.contains("output line 199999"), "its tail");
    assert!(body.contains("bytes left out"), "said");
    Ok(())
}
