//! The tool loop through the binary: what runs under which permission mode, what the model is
//! sent back, what the log records, and where tools run.

use hotl_fakellm::{Config, FakeLlm, Reply};
use hotl_testkit::TestResult;
use serde_json::json;

use crate::common::{Env, MODEL, assert_calls_answered, redact, requests, sent_results};

const ECHO: &str = "echo hi > out.txt && cat out.txt";

/// A fake that asks for `calls` (parallel) and then answers "Done.".
fn fake_calling(calls: &[(&str, serde_json::Value)]) -> TestResult<FakeLlm> {
    let mut first = Reply::text("Working.");
    for (name, input) in calls {
        first = first.with_tool(*name, input.clone());
    }
    Ok(FakeLlm::start(Config::scripted([
        first,
        Reply::text("Done."),
    ]))?)
}

#[test]
fn allowed_bash_runs_and_its_output_goes_back_stamped() -> TestResult {
    let env = Env::new()?;
    let fake = fake_calling(&[("bash", json!({"command": ECHO}))])?;
    let out = env
        .agent(&fake, &["-p", "make a file", "--allow", "bash"])
        .ok();
    assert_eq!(out.stdout, "Done.\n", "{out}");
    assert_eq!(
        std::fs::read_to_string(env.project.join("out.txt"))?,
        "hi\n"
    );

    let sent = requests(&fake)?;
    assert_eq!(sent.len(), 2);
    let results = sent_results(&sent[1]);
    assert_eq!(results.len(), 1, "{results:?}");
    let result = &results[0];
    assert!(result.text.starts_with("[t"), "stamped: {result:?}");
    // Success is said by no exit line at all (the bash description says so).
    assert!(result.text.ends_with("] hi"), "{result:?}");
    assert_ne!(result.is_error, Some(true), "{result:?}");
    let tool_use = &sent[1]["messages"][1]["content"];
    assert!(
        tool_use
            .as_array()
            .is_some_and(|b| b.iter().any(|b| b["id"].as_str() == Some(&result.call))),
        "the result answers the call: {}",
        sent[1]
    );
    let id = env.only_session()?;
    assert_calls_answered(&env.records(&id)?);
    let show = env.run(&["sessions", "show", &id]).ok();
    insta::assert_snapshot!(redact(&show.to_string(), &[(&id, "ID")]), @r#"
        session [ID]---------------------- "make a file"
        cwd ~/project · model claude-sonnet-5 · 1 turn

        [t3] user: make a file
        assistant (claude-sonnet-5):
          Working.
          → bash {"command":"echo hi > out.txt && cat out.txt"} (toolu_01EslTV0rHyvUcuqV2PZ9wPfIL)
        [t6] tool result (toolu_01EslTV0rHyvUcuqV2PZ9wPfIL):
          hi
        assistant (claude-sonnet-5):
          Done.
        ── end of turn 1 · t9 ──
        "#);
    Ok(())
}

#[test]
fn headless_refuses_bash_without_allow() -> TestResult {
    let env = Env::new()?;
    let fake = fake_calling(&[("bash", json!({"command": ECHO}))])?;
    let out = env
        .agent(&fake, &["-p", "make a file", "--sandbox", "off"])
        .ok();
    assert_eq!(out.stdout, "Done.\n", "{out}");
    assert!(!env.project.join("out.txt").exists());

    let results = sent_results(&requests(&fake)?[1]);
    assert_eq!(results.len(), 1, "{results:?}");
    assert_eq!(results[0].is_error, Some(true), "{results:?}");
    assert!(results[0].text.contains("permission"), "{results:?}");
    let records = env.records(&env.only_session()?)?;
    let logged = records
        .iter()
        .find(|r| r["type"] == "tool_result")
        .ok_or("no tool_result")?;
    assert_eq!(logged["is_error"], true);
    Ok(())
}

#[test]
fn accept_edits_runs_write_but_not_bash() -> TestResult {
    let env = Env::new()?;
    let fake = fake_calling(&[
        ("write", json!({"path": "new.txt", "content": "written\n"})),
        ("bash", json!({"command": "touch ran.txt"})),
    ])?;
    env.agent(
        &fake,
        &[
            "-p",
            "go",
            "--permission-mode",
            "accept-edits",
            "--sandbox",
            "off",
        ],
    )
    .ok();
    assert_eq!(
        std::fs::read_to_string(env.project.join("new.txt"))?,
        "written\n"
    );
    assert!(!env.project.join("ran.txt").exists());
    let results = sent_results(&requests(&fake)?[1]);
    assert_eq!(results.len(), 2, "{results:?}");
    assert_ne!(results[0].is_error, Some(true), "{results:?}");
    assert_eq!(results[1].is_error, Some(true), "{results:?}");
    assert!(results[1].text.contains("permission"), "{results:?}");
    Ok(())
}

#[test]
fn plan_mode_refuses_write_and_allows_read() -> TestResult {
    let env = Env::new()?;
    std::fs::write(env.project.join("notes.txt"), "plan me\n")?;
    let fake = fake_calling(&[
        ("read", json!({"path": "notes.txt"})),
        ("write", json!({"path": "p.txt", "content": "x"})),
    ])?;
    env.agent(&fake, &["-p", "go", "--permission-mode", "plan"])
        .ok();
    assert!(!env.project.join("p.txt").exists());
    let results = sent_results(&requests(&fake)?[1]);
    assert_eq!(results.len(), 2, "{results:?}");
    assert_ne!(results[0].is_error, Some(true), "{results:?}");
    assert!(results[0].text.contains("plan me"), "{results:?}");
    assert_eq!(results[1].is_error, Some(true), "{results:?}");
    assert!(results[1].text.contains("plan mode"), "{results:?}");
    Ok(())
}

#[test]
fn writes_outside_the_project_need_bypass() -> TestResult {
    let env = Env::new()?;
    let outside = env.root().join("outside.txt");
    let call = [(
        "write",
        json!({"path": "../outside.txt", "content": "out\n"}),
    )];

    let fake = fake_calling(&call)?;
    env.agent(
        &fake,
        &[
            "-p",
            "go",
            "--permission-mode",
            "accept-edits",
            "--sandbox",
            "off",
            "--allow",
            "write",
        ],
    )
    .ok();
    assert!(!outside.exists());
    let results = sent_results(&requests(&fake)?[1]);
    assert_eq!(results[0].is_error, Some(true), "{results:?}");
    assert!(
        results[0].text.contains("outside the project"),
        "{results:?}"
    );

    // Bypass with the sandbox on still writes only in the project: the sandbox's rule.
    let fake = fake_calling(&call)?;
    env.agent(&fake, &["-p", "go", "--permission-mode", "bypass"])
        .ok();
    assert!(!outside.exists());
    let results = sent_results(&requests(&fake)?[1]);
    assert_eq!(results[0].is_error, Some(true), "{results:?}");

    let fake = fake_calling(&call)?;
    env.agent(
        &fake,
        &[
            "-p",
            "go",
            "--permission-mode",
            "bypass",
            "--sandbox",
            "off",
        ],
    )
    .ok();
    assert_eq!(std::fs::read_to_string(&outside)?, "out\n");
    Ok(())
}

#[test]
fn results_record_the_files_they_touched_with_hashes() -> TestResult {
    let env = Env::new()?;
    std::fs::write(env.project.join("a.txt"), "one\n")?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("Reading.").with_tool("read", json!({"path": "a.txt"})),
        Reply::text("Writing.").with_tool("write", json!({"path": "b.txt", "content": "two\n"})),
        Reply::text("Editing.").with_tool(
            "edit",
            json!({"path": "b.txt", "old": "two", "new": "three"}),
        ),
        Reply::text("Done."),
    ]))?;
    env.agent(&fake, &["-p", "go", "--permission-mode", "accept-edits"])
        .ok();
    assert_eq!(
        std::fs::read_to_string(env.project.join("b.txt"))?,
        "three\n"
    );
    let records = env.records(&env.only_session()?)?;
    assert_calls_answered(&records);
    let results: Vec<&serde_json::Value> = records
        .iter()
        .filter(|r| r["type"] == "tool_result")
        .collect();
    assert_eq!(results.len(), 3, "{results:?}");
    let expect = [
        ("read", "a.txt", "one\n"),
        ("write", "b.txt", "two\n"),
        ("edit", "b.txt", "three\n"),
    ];
    for (result, (op, file, content)) in results.iter().zip(expect) {
        assert_ne!(result["is_error"], true, "{result}");
        let files = result["files"].as_array().ok_or("no files")?;
        assert_eq!(files.len(), 1, "{result}");
        assert_eq!(files[0]["op"], op, "{result}");
        let path = files[0]["path"].as_str().ok_or("no path")?;
        assert!(path.ends_with(file), "{result}");
        assert_eq!(
            files[0]["hash"].as_str(),
            Some(hotl_agent::content_hash(content.as_bytes()).as_str()),
            "{result}"
        );
    }
    Ok(())
}

#[test]
fn tools_run_in_the_sessions_recorded_cwd() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([Reply::text("Hello.")]))?;
    let out = env
        .agent(&fake, &["-p", "start", "--output-format", "json"])
        .ok();
    let id = out.json()?["session_id"]
        .as_str()
        .ok_or("no id")?
        .to_owned();

    let elsewhere = env.root().join("elsewhere");
    std::fs::create_dir_all(&elsewhere)?;
    fake.push_reply(Reply::text("Where?").with_tool("bash", json!({"command": "pwd > where.txt"})));
    fake.push_reply(Reply::text("There."));
    let mut cmd = env.agent_command();
    cmd.current_dir(&elsewhere)
        .args(["--provider", "anthropic", "--base-url"])
        .arg(fake.base_url())
        .args([
            "--model", MODEL, "-r", &id, "-p", "where?", "--allow", "bash",
        ]);
    crate::common::run(cmd).ok();
    assert!(!elsewhere.join("where.txt").exists());
    assert_eq!(
        std::fs::read_to_string(env.project.join("where.txt"))?.trim(),
        env.cwd()
    );
    Ok(())
}

#[test]
fn the_tool_loop_keeps_a_valid_log_in_every_dialect() -> TestResult {
    for (provider, model) in [
        ("anthropic", MODEL),
        ("openai-chat", "gpt-5.1"),
        ("openai", "gpt-5.1"),
    ] {
        let env = Env::new()?;
        std::fs::write(env.project.join("a.txt"), "alpha\n")?;
        let fake = FakeLlm::start(Config::scripted([
            Reply::text("Two at once.")
                .with_tool("bash", json!({"command": ECHO}))
                .with_tool("read", json!({"path": "a.txt"})),
            Reply::text("One more.").with_tool("ls", json!({})),
            Reply::text("Done."),
        ]))?;
        let out = env
            .agent_with(provider, &fake, model, &["-p", "go", "--allow", "bash"])
            .ok();
        assert_eq!(out.stdout, "Done.\n", "{provider}: {out}");
        assert!(env.project.join("out.txt").exists(), "{provider}");
        let sent = requests(&fake)?;
        assert_eq!(sent.len(), 3, "{provider}");
        let results = sent_results(&sent[1]);
        assert_eq!(results.len(), 2, "{provider}: {results:?}");
        assert!(results[0].text.contains("hi"), "{provider}: {results:?}");
        assert!(results[1].text.contains("alpha"), "{provider}: {results:?}");
        assert!(
            results.iter().all(|r| r.text.starts_with("[t")),
            "{provider}: {results:?}"
        );
        assert_eq!(sent_results(&sent[2]).len(), 3, "{provider}");
        assert_calls_answered(&env.records(&env.only_session()?)?);
    }
    Ok(())
}

#[test]
fn the_recorded_permission_mode_applies_on_resume_and_in_forks() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("Started."),
        Reply::text("Writing.").with_tool("write", json!({"path": "resumed.txt", "content": "r"})),
        Reply::text("Done."),
        Reply::text("Writing.").with_tool("write", json!({"path": "forked.txt", "content": "f"})),
        Reply::text("Done."),
    ]))?;
    let out = env
        .agent(
            &fake,
            &[
                "-p",
                "start",
                "--permission-mode",
                "accept-edits",
                "--output-format",
                "json",
            ],
        )
        .ok();
    let id = out.json()?["session_id"]
        .as_str()
        .ok_or("no id")?
        .to_owned();
    let records = env.records(&id)?;
    assert!(
        records
            .iter()
            .any(|r| r["type"] == "mode" && r["permission"] == "accept-edits"),
        "the mode is recorded: {records:?}"
    );
    env.agent(&fake, &["-r", &id, "-p", "write one"]).ok();
    env.agent(&fake, &["--fork-from", &id, "-p", "write another"])
        .ok();
    let sent = requests(&fake)?;
    let results: Vec<_> = [&sent[2], &sent[4]]
        .iter()
        .flat_map(|b| sent_results(b))
        .collect();
    assert!(
        env.project.join("resumed.txt").exists(),
        "resume: {results:?}"
    );
    assert!(env.project.join("forked.txt").exists(), "fork: {results:?}");
    Ok(())
}
