//! The `spawn` tool end to end against the fake provider: a clean `explore` child with its own
//! prompt and read-only tools, the reviewer seeing the user's words and the diff and nothing
//! the assistant wrote, a wrapped fork under a project definition, `general-purpose` as a true
//! fork, and the errors a model can read.

use hotl_fakellm::{Config, FakeLlm, Reply};
use hotl_testkit::TestResult;
use serde_json::json;

use crate::common::{Env, MODEL, requests};

/// Writes the project's agent definition `name` (`.hotl/agents/<name>.md`).
fn define(env: &Env, name: &str, text: &str) -> TestResult {
    let agents = env.project.join(".hotl/agents");
    std::fs::create_dir_all(&agents)?;
    std::fs::write(agents.join(format!("{name}.md")), text)?;
    Ok(())
}

/// The session's delegated children as `sessions list --json` lists them.
fn children(env: &Env) -> TestResult<Vec<serde_json::Value>> {
    let listed = env.json(&["sessions", "list", "--json"])?;
    Ok(listed[0]["delegated"]
        .as_array()
        .cloned()
        .unwrap_or_default())
}

fn tool_names(request: &serde_json::Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn explore_starts_clean_with_its_own_prompt_and_read_only_tools() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("").with_tool(
            "spawn",
            json!({"agent": "explore", "task": "find where the tests live"}),
        ),
        Reply::text("The tests live in tests/, three files."),
        Reply::text("Explore says: tests/ holds three files."),
    ]))?;
    let out = env.agent(&fake, &["-p", "where are the tests?"]).ok();
    assert_eq!(
        out.stdout, "Explore says: tests/ holds three files.\n",
        "{out}"
    );
    let sent = requests(&fake)?;
    assert_eq!(sent.len(), 3, "parent, child, parent");
    let child = &sent[1];
    let system = child["system"].to_string();
    assert!(
        !system.contains("You are hotl, a coding agent"),
        "its own prompt: {system}"
    );
    assert!(
        system.to_lowercase().contains("explor") || system.contains("codebase"),
        "{system}"
    );
    let tools = tool_names(child);
    for writer in ["bash", "write", "edit", "spawn", "fork"] {
        assert!(!tools.iter().any(|t| t == writer), "{writer} in {tools:?}");
    }
    assert!(tools.iter().any(|t| t == "read"), "{tools:?}");
    let messages = child["messages"].as_array().ok_or("messages")?;
    assert_eq!(messages.len(), 1, "the task alone: {messages:?}");
    assert!(
        messages[0]
            .to_string()
            .contains("find where the tests live")
    );
    assert!(
        !child.to_string().contains("where are the tests?"),
        "nothing of the parent's"
    );
    // The report came back with what the child spent.
    let last = sent[2].to_string();
    assert!(
        last.contains("The tests live in tests/, three files."),
        "{last}"
    );
    assert!(last.contains("[spent: "), "{last}");
    // Recorded as a clean delegated child of the explore definition, its bytes frozen.
    let listed = children(&env)?;
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["agent"], "explore");
    let child_id = listed[0]["id"].as_str().ok_or("id")?;
    let id = env.only_session()?;
    let log = std::fs::read_to_string(
        env.home
            .join("sessions")
            .join(&id)
            .join(format!("{child_id}.jsonl")),
    )?;
    let start: serde_json::Value = serde_json::from_str(log.lines().next().ok_or("empty")?)?;
    assert!(start["parent"].is_null(), "no inherited history: {start}");
    assert!(start["delegated"]["at"].as_u64().is_some(), "{start}");
    assert!(
        start["delegated"]["agent_blob"].as_str().is_some(),
        "{start}"
    );
    Ok(())
}

#[test]
fn the_reviewer_sees_the_users_words_and_the_diff_and_nothing_the_assistant_wrote() -> TestResult {
    let env = Env::new()?;
    std::fs::write(env.project.join("greet.txt"), "hello\n")?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("PRIVATE-ASSISTANT-MUSING before writing").with_tool(
            "write",
            json!({"path": "greet.txt", "content": "hello, reviewer\n"}),
        ),
        Reply::text("Written. ANOTHER-ASSISTANT-LINE").with_tool(
            "spawn",
            json!({"agent": "reviewer", "task": "review the greeting change"}),
        ),
        Reply::text("Verdict: fine. greet.txt:1 minor: no trailing period."),
        Reply::text("The reviewer found nothing serious."),
    ]))?;
    env.agent(
        &fake,
        &[
            "-p",
            "USER-ASKS: change the greeting",
            "--permission-mode",
            "accept-edits",
        ],
    )
    .ok();
    let sent = requests(&fake)?;
    assert_eq!(sent.len(), 4, "{}", sent.len());
    let reviewer = sent[2].to_string();
    assert!(
        reviewer.contains("USER-ASKS: change the greeting"),
        "the user's words"
    );
    assert!(
        reviewer.contains("+hello, reviewer"),
        "the diff: {reviewer}"
    );
    assert!(
        reviewer.contains("review the greeting change"),
        "the task it was handed"
    );
    for theirs in [
        "PRIVATE-ASSISTANT-MUSING",
        "ANOTHER-ASSISTANT-LINE",
        "tool_use",
        "\"write\"",
    ] {
        assert!(!reviewer.contains(theirs), "{theirs} reached the reviewer");
    }
    let tools = tool_names(&sent[2]);
    assert!(
        !tools
            .iter()
            .any(|t| t == "write" || t == "bash" || t == "edit"),
        "{tools:?}"
    );
    assert!(sent[3].to_string().contains("Verdict: fine."));
    Ok(())
}

#[test]
fn a_definition_with_its_own_prompt_forks_wrapped() -> TestResult {
    let env = Env::new()?;
    define(
        &env,
        "summarizer",
        "---\nname: summarizer\ndescription: Sums up the conversation for a hand-off\ncontext: fork\nmodel: claude-haiku-4-5\n---\nYou write hand-off notes: what was asked, what was done, what is open.\n",
    )?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("noted"),
        Reply::text("").with_tool(
            "spawn",
            json!({"agent": "summarizer", "task": "write the hand-off", "fork": true}),
        ),
        Reply::text("Hand-off: the user asked about colours."),
        Reply::text("Here is the hand-off."),
    ]))?;
    env.agent(&fake, &["-p", "FIRST-USER-WORDS about colours"])
        .ok();
    env.agent(&fake, &["-c", "-p", "now hand it off"]).ok();
    let sent = requests(&fake)?;
    let child = &sent[2];
    assert!(
        child["system"]
            .to_string()
            .contains("You write hand-off notes"),
        "its prompt"
    );
    assert_eq!(
        child["model"], "claude-haiku-4-5",
        "the wrap-up runs on its cheaper model"
    );
    let messages = child["messages"].as_array().ok_or("messages")?;
    assert_eq!(messages.len(), 1, "one labelled block, then the task");
    let first = messages[0].to_string();
    assert!(first.contains("<parent_conversation>"), "{first}");
    assert!(first.contains("FIRST-USER-WORDS about colours"), "{first}");
    assert!(first.contains("write the hand-off"), "{first}");
    assert_eq!(children(&env)?[0]["agent"], "summarizer");
    Ok(())
}

#[test]
fn general_purpose_is_a_true_fork_extending_the_parents_request() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("").with_tool(
            "spawn",
            json!({"agent": "general-purpose", "task": "count the files", "fork": true}),
        ),
        Reply::text("There are 2 files."),
        Reply::text("The fork counted 2 files."),
    ]))?;
    env.agent(&fake, &["-p", "how many files?"]).ok();
    let sent = requests(&fake)?;
    // The child's request holds the parent's messages, then the call answered by the task.
    // (Cache breakpoints move to the end of each request: compared without them.)
    let parent = unmarked(&sent[0]["messages"]);
    let child = unmarked(&sent[1]["messages"]);
    let (parent, child) = (
        parent.as_array().ok_or("messages")?,
        child.as_array().ok_or("messages")?,
    );
    assert!(child.len() > parent.len());
    assert_eq!(&child[..parent.len()], parent.as_slice(), "the same prefix");
    assert_eq!(sent[1]["system"], sent[0]["system"]);
    let child = &children(&env)?[0];
    assert_eq!(child["agent"], "general-purpose");
    // Its definition is frozen with it, as every spawned child's is.
    let start = &env.records(child["id"].as_str().ok_or("id")?)?[0];
    let blob = start["delegated"]["agent_blob"]
        .as_str()
        .ok_or(format!("no agent_blob: {start}"))?;
    let frozen = std::fs::read_to_string(env.home.join("blobs").join(&blob[..2]).join(blob))?;
    assert!(frozen.contains("general-purpose"), "{frozen}");
    Ok(())
}

/// `value` without its `cache_control` marks.
fn unmarked(value: &serde_json::Value) -> serde_json::Value {
    match value {
        serde_json::Value::Object(map) => map
            .iter()
            .filter(|(k, _)| k.as_str() != "cache_control")
            .map(|(k, v)| (k.clone(), unmarked(v)))
            .collect::<serde_json::Map<_, _>>()
            .into(),
        serde_json::Value::Array(items) => items.iter().map(unmarked).collect(),
        other => other.clone(),
    }
}

#[test]
fn a_model_reads_why_a_spawn_was_refused() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("").with_tool("spawn", json!({"agent": "nobody", "task": "x"})),
        Reply::text("").with_tool(
            "spawn",
            json!({"agent": "reviewer", "task": "x", "fork": true}),
        ),
        Reply::text("ok"),
    ]))?;
    env.agent(&fake, &["-p", "try"]).ok();
    let sent = requests(&fake)?;
    let first = sent[1].to_string();
    assert!(
        first.contains("there is no agent \\\"nobody\\\""),
        "{first}"
    );
    assert!(
        first.contains("general-purpose"),
        "the agents are listed: {first}"
    );
    let second = sent[2].to_string();
    assert!(second.contains("cannot be a fork"), "{second}");
    assert!(children(&env)?.is_empty(), "nothing was started");
    Ok(())
}

#[test]
fn a_child_continues_in_its_own_log_after_the_parent_process_restarted() -> TestResult {
    let env = Env::new()?;
    let first = FakeLlm::start(Config::scripted([
        Reply::text("").with_tool(
            "spawn",
            json!({"agent": "explore", "task": "find the config loader"}),
        ),
        Reply::text("It is in src/config.rs."),
        Reply::text("Found it."),
    ]))?;
    env.agent(&first, &["-p", "where is config loaded?"]).ok();
    let child = children(&env)?.first().cloned().ok_or("no child")?;
    let handle = child["handle"].as_str().ok_or("a handle")?.to_owned();
    // Another process, another provider: the handle is in the log.
    let mut script = Config::scripted([
        Reply::text("").with_tool("continue", json!({"handle": "nope", "message": "x"})),
        Reply::text("").with_tool(
            "continue",
            json!({"handle": handle, "message": "and where is it tested?"}),
        ),
        Reply::text("Tested in tests/config.rs."),
        Reply::text("Both found."),
    ]);
    // Its ids must not repeat the first one's: the conversation holds both.
    script.id_seed = 1;
    let second = FakeLlm::start(script)?;
    let out = env
        .agent(&second, &["-c", "-p", "ask it about the tests"])
        .ok();
    assert_eq!(out.stdout, "Both found.\n", "{out}");
    let sent = requests(&second)?;
    assert!(
        sent[1].to_string().contains(&format!(
            "there is no child \\\"nope\\\"; this session's children are: {handle}"
        )),
        "{}",
        sent[1]
    );
    // The child's own conversation, then the new message.
    let child_request = sent[2].to_string();
    assert!(
        child_request.contains("find the config loader"),
        "{child_request}"
    );
    assert!(
        child_request.contains("It is in src/config.rs."),
        "{child_request}"
    );
    assert!(
        child_request.contains("and where is it tested?"),
        "{child_request}"
    );
    assert!(
        !child_request.contains("ask it about the tests"),
        "not the parent's"
    );
    assert!(sent[3].to_string().contains("Tested in tests/config.rs."));
    // A foreground child reported through its call: reopening adds no child_finished.
    let id = env.only_session()?;
    assert!(
        !env.records(&id)?
            .iter()
            .any(|r| r["type"] == "child_finished"),
        "a foreground child is not settled as a background one"
    );
    // Still one child, with two turns in its own log.
    let listed = children(&env)?;
    assert_eq!(listed.len(), 1);
    let shown = env
        .run(&["sessions", "show", listed[0]["id"].as_str().ok_or("id")?])
        .ok()
        .stdout;
    assert!(shown.contains("and where is it tested?"), "{shown}");
    Ok(())
}

#[test]
fn delegation_stops_at_the_configured_depth() -> TestResult {
    let env = Env::new()?;
    let config = env.root().join("config/hotl");
    std::fs::create_dir_all(&config)?;
    std::fs::write(config.join("config.toml"), "[agents]\nmax_depth = 1\n")?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("").with_tool(
            "spawn",
            json!({"agent": "general-purpose", "task": "count", "fork": true}),
        ),
        // The child tries to delegate in turn.
        Reply::text("").with_tool("fork", json!({"task": "deeper"})),
        Reply::text("Counted alone: 4."),
        Reply::text("4."),
    ]))?;
    env.agent(&fake, &["-p", "count things"]).ok();
    let sent = requests(&fake)?;
    let refused = sent[2].to_string();
    assert!(
        refused.contains("delegation goes at most 1 deep ([agents] max_depth)"),
        "{refused}"
    );
    assert_eq!(children(&env)?.len(), 1, "no grandchild");
    Ok(())
}

#[test]
fn a_background_child_reports_as_a_message_and_headless_waits_for_it() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("")
            .with_tool(
                "spawn",
                json!({"agent": "explore", "task": "CHILD-TASK list the modules", "background": true}),
            )
            .matching("survey the repo"),
        // The child answers slowly: the parent's turn ends first and waits for it.
        Reply::text("modules: parser, printer")
            .with_fault(hotl_fakellm::Fault::split_at([40, 80, 120]).with_chunk_delay_ms(400))
            .matching("CHILD-TASK"),
        Reply::text("Started it; waiting for its report.").matching("started in the background"),
        Reply::text("The explorer found the parser and the printer.").matching("background child"),
    ]))?;
    let out = env.agent(&fake, &["-p", "survey the repo"]).ok();
    assert_eq!(
        out.stdout, "The explorer found the parser and the printer.\n",
        "{out}"
    );
    let id = env.only_session()?;
    let records = env.records(&id)?;
    let finished = records
        .iter()
        .find(|r| r["type"] == "child_finished")
        .ok_or("no child_finished record")?;
    assert_eq!(finished["state"], "finished");
    assert_eq!(finished["report"], "modules: parser, printer");
    let handle = finished["handle"].as_str().ok_or("handle")?;
    let sent = requests(&fake)?;
    let last = sent.last().ok_or("requests")?.to_string();
    assert!(
        last.contains(&format!(
            "background child {handle} finished:\\nmodules: parser, printer"
        )),
        "{last}"
    );
    // The child ran with reading tools only.
    let child = sent
        .iter()
        .find(|r| {
            r.to_string().contains("CHILD-TASK") && !r.to_string().contains("survey the repo")
        })
        .ok_or("no child request")?;
    let tools = tool_names(child);
    assert!(
        !tools.is_empty() && !tools.iter().any(|t| t == "bash" || t == "write"),
        "{tools:?}"
    );
    // A finished run: nothing open, and the child is in the tree.
    assert_eq!(children(&env)?.len(), 1);
    Ok(())
}

#[test]
fn a_background_child_killed_with_its_process_is_reported_interrupted_on_reopen() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("")
            .with_tool(
                "spawn",
                json!({"agent": "explore", "task": "SLOW-TASK read everything", "background": true}),
            )
            .matching("start the survey"),
        // The child is still answering when its process dies.
        Reply::text("never finished")
            .with_fault(hotl_fakellm::Fault::split_at([10, 20, 30]).with_chunk_delay_ms(5_000))
            .matching("SLOW-TASK"),
        Reply::text("Started; waiting.").matching("started in the background"),
    ]))?;
    let mut cmd = env.command_against("anthropic", &fake, MODEL);
    cmd.args(["-p", "start the survey"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut hotl = cmd.spawn()?;
    // Until the child's request is out (the parent then waits for it, headless).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !requests(&fake)?.iter().any(|r| {
        r.to_string().contains("Started; waiting")
            || r.to_string().contains("started in the background")
    }) {
        if std::time::Instant::now() > deadline {
            return Err("the parent never got its spawn answered".into());
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    hotl.kill()?;
    hotl.wait()?;

    let mut script = Config::scripted([Reply::text("It was cut off; I will redo it.")]);
    script.id_seed = 1;
    let next = FakeLlm::start(script)?;
    let out = env.agent(&next, &["-c", "-p", "what happened to it?"]).ok();
    assert_eq!(out.stdout, "It was cut off; I will redo it.\n", "{out}");
    let sent = requests(&next)?;
    let first = sent[0].to_string();
    assert!(first.contains("background child"), "{first}");
    assert!(first.contains("interrupted"), "{first}");
    let id = env.only_session()?;
    let finished: Vec<serde_json::Value> = env.child_ends(&id)?;
    assert_eq!(finished.len(), 1, "{finished:?}");
    assert_eq!(finished[0]["state"], "interrupted");
    // The child's own run was closed so; its log is valid.
    let child = children(&env)?.first().cloned().ok_or("no child")?;
    let child_id = child["id"].as_str().ok_or("id")?;
    let log = std::fs::read_to_string(
        env.home
            .join("sessions")
            .join(&id)
            .join(format!("{child_id}.jsonl")),
    )?;
    assert!(log.contains("\"state\":\"interrupted\""), "{log}");
    assert!(
        env.run(&["sessions", "check"]).code == 0,
        "the logs check clean"
    );
    Ok(())
}

#[test]
fn cancel_names_the_children_that_run() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("")
            .with_tool(
                "spawn",
                json!({"agent": "explore", "task": "LONG-TASK look around", "background": true}),
            )
            .matching("look around for me"),
        Reply::text("looked")
            .with_fault(hotl_fakellm::Fault::split_at([3, 6]).with_chunk_delay_ms(700))
            .matching("LONG-TASK"),
        Reply::text("")
            .with_tool("cancel", json!({"handle": "nope"}))
            .matching("started in the background"),
        Reply::text("It keeps running.").matching("these are"),
        Reply::text("It looked.").matching("background child"),
    ]))?;
    let out = env.agent(&fake, &["-p", "look around for me"]).ok();
    assert_eq!(out.stdout, "It looked.\n", "{out}");
    let handle = children(&env)?[0]["handle"]
        .as_str()
        .ok_or("a handle")?
        .to_owned();
    let sent = requests(&fake)?;
    assert!(
        sent.iter().any(|r| r.to_string().contains(&format!(
            "no background child \\\"nope\\\" is running; these are: {handle}"
        ))),
        "the running children are named"
    );
    Ok(())
}

#[test]
fn leaving_the_console_stops_background_children_and_records_it() -> TestResult {
    let env = Env::new()?;
    let fake = crate::common::slow_background_child()?;
    let Some(_) =
        crate::common::console_typed(&env, &fake, &[], &[("go look\n", 0), ("/exit\n", 1_500)])?
    else {
        return Ok(());
    };
    let id = env.only_session()?;
    let finished: Vec<serde_json::Value> = env.child_ends(&id)?;
    assert_eq!(finished.len(), 1, "{finished:?}");
    assert_eq!(finished[0]["state"], "cancelled");
    assert!(
        env.run(&["sessions", "check"]).code == 0,
        "the logs check clean"
    );
    Ok(())
}

#[test]
fn three_children_in_two_slots_the_third_waits_and_every_end_is_read() -> TestResult {
    let env = Env::new()?;
    let config = env.root().join("config/hotl");
    std::fs::create_dir_all(&config)?;
    std::fs::write(config.join("config.toml"), "[agents]\nmax_concurrent = 2\n")?;
    let slow = || hotl_fakellm::Fault::split_at([2, 4]).with_chunk_delay_ms(300);
    let spawn = |task: &str| json!({"agent": "explore", "task": task, "background": true});
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("")
            .with_tool("spawn", spawn("FIRST-CHILD"))
            .with_tool("spawn", spawn("SECOND-CHILD"))
            .with_tool("spawn", spawn("THIRD-CHILD"))
            .matching("three surveys"),
        Reply::text("first done")
            .with_fault(slow())
            .matching("FIRST-CHILD"),
        Reply::text("second done")
            .with_fault(slow())
            .matching("SECOND-CHILD"),
        Reply::text("third done")
            .with_fault(slow())
            .matching("THIRD-CHILD"),
        Reply::text("All started.").matching("started in the background"),
        Reply::text("All reported.").matching("background child"),
    ]))?;
    let out = env.agent(&fake, &["-p", "three surveys"]).ok();
    assert_eq!(out.stdout, "All reported.\n", "{out}");
    let sent = requests(&fake)?;
    let results = sent
        .iter()
        .map(|r| r.to_string())
        .find(|r| r.contains("started in the background") && !r.contains("CHILD-TASK"))
        .ok_or("no request with the spawn results")?;
    assert_eq!(
        results.matches("every one of the 2 slots is taken").count(),
        1,
        "only the third was told to wait: {results}"
    );
    // Two slots: the third child asked only after both others had.
    let child = |task: &str| {
        sent.iter()
            .position(|r| r.to_string().contains(task) && !r.to_string().contains("three surveys"))
    };
    let (first, second, third) = (
        child("FIRST-CHILD"),
        child("SECOND-CHILD"),
        child("THIRD-CHILD"),
    );
    assert!(
        first < third && second < third,
        "{first:?} {second:?} {third:?}"
    );
    // Each end is a record in the parent's log, and its next request reads them all.
    let id = env.only_session()?;
    let finished = env
        .records(&id)?
        .into_iter()
        .filter(|r| r["type"] == "child_finished" && r["state"] == "finished")
        .count();
    assert_eq!(finished, 3, "{out}");
    let last = sent.last().ok_or("requests")?.to_string();
    for report in ["first done", "second done", "third done"] {
        assert!(last.contains(report), "{report}: {last}");
    }
    Ok(())
}

#[test]
fn ctrl_c_stops_the_turn_and_the_children_running() -> TestResult {
    let env = Env::new()?;
    let slow = || hotl_fakellm::Fault::split_at([3, 6]).with_chunk_delay_ms(10_000);
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("")
            .with_tool(
                "spawn",
                json!({"agent": "explore", "task": "BG-TASK keep looking", "background": true}),
            )
            .matching("look in the background"),
        Reply::text("never").with_fault(slow()).matching("BG-TASK"),
        // The parent's next answer is slow too: Ctrl-C comes while both run.
        Reply::text("still thinking")
            .with_fault(slow())
            .matching("started in the background"),
        Reply::text("Here again.").matching("are you there"),
    ]))?;
    let typed = [
        ("look in the background\n", 0),
        ("\x03", 2_000),
        ("are you there?\n", 1_000),
        ("/exit\n", 1_500),
    ];
    let Some(out) = crate::common::console_typed(&env, &fake, &[], &typed)? else {
        return Ok(());
    };
    assert!(out.stdout.contains("Here again."), "{out}");
    let id = env.only_session()?;
    let records = env.records(&id)?;
    assert!(
        records
            .iter()
            .any(|r| r["type"] == "run" && r["state"] == "cancelled"),
        "the parent's turn was cancelled"
    );
    let finished: Vec<&serde_json::Value> = records
        .iter()
        .filter(|r| r["type"] == "child_finished")
        .collect();
    assert_eq!(finished.len(), 1, "{finished:?}");
    assert_eq!(finished[0]["state"], "cancelled");
    Ok(())
}

#[test]
fn a_fork_can_run_in_the_background_reading_only() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("")
            .with_tool(
                "fork",
                json!({"task": "FORK-TASK check the docs", "background": true}),
            )
            .matching("check in the background"),
        Reply::text("docs are fine")
            .with_fault(hotl_fakellm::Fault::split_at([3, 6]).with_chunk_delay_ms(300))
            .matching("FORK-TASK"),
        Reply::text("Forked; waiting.").matching("started in the background"),
        Reply::text("The fork says the docs are fine.").matching("background child"),
    ]))?;
    let out = env.agent(&fake, &["-p", "check in the background"]).ok();
    assert_eq!(out.stdout, "The fork says the docs are fine.\n", "{out}");
    let sent = requests(&fake)?;
    // A true fork: its request begins with the parent's conversation.
    let child = sent
        .iter()
        .find(|r| {
            let text = r.to_string();
            text.contains("FORK-TASK")
                && !text.contains("Forked; waiting")
                && r["messages"].as_array().is_some_and(|m| m.len() > 1)
        })
        .ok_or("no fork request")?;
    let parent = unmarked(&sent[0]["messages"]);
    let forked = unmarked(&child["messages"]);
    let (parent, forked) = (
        parent.as_array().ok_or("messages")?,
        forked.as_array().ok_or("messages")?,
    );
    assert_eq!(
        &forked[..parent.len()],
        parent.as_slice(),
        "the same prefix"
    );
    let listed = children(&env)?;
    assert_eq!(listed.len(), 1);
    let id = env.only_session()?;
    let finished: Vec<serde_json::Value> = env.child_ends(&id)?;
    assert_eq!(finished.len(), 1);
    assert_eq!(finished[0]["report"], "docs are fine");
    Ok(())
}

#[test]
fn sigterm_stops_a_headless_run_and_records_its_children_stopping() -> TestResult {
    let env = Env::new()?;
    let fake = crate::common::slow_background_child()?;
    let mut cmd = env.command_against("anthropic", &fake, MODEL);
    cmd.args(["-p", "go look"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut hotl = cmd.spawn()?;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !requests(&fake)?
        .iter()
        .any(|r| r.to_string().contains("started in the background"))
    {
        if std::time::Instant::now() > deadline {
            return Err("the parent never got its spawn answered".into());
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &hotl.id().to_string()])
        .status()?;
    assert!(killed.success());
    hotl.wait()?;
    let id = env.only_session()?;
    let finished: Vec<serde_json::Value> = env.child_ends(&id)?;
    assert_eq!(finished.len(), 1, "{finished:?}");
    assert_eq!(finished[0]["state"], "cancelled");
    Ok(())
}

#[test]
fn a_child_whose_model_is_unavailable_fails_with_the_providers_error_and_the_parent_goes_on()
-> TestResult {
    let env = Env::new()?;
    define(
        &env,
        "oracle",
        "---\nname: oracle\ndescription: Answers from a model that is gone.\nmodel: claude-retired-1\n---\nYou answer.\n",
    )?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("").with_tool("spawn", json!({"agent": "oracle", "task": "ORACLE-TASK"})),
        Reply::text("")
            .with_fault(hotl_fakellm::Fault::status(404))
            .matching("ORACLE-TASK"),
        Reply::text("The oracle is unavailable; I answer myself.").matching("failed"),
    ]))?;
    let out = env.agent(&fake, &["-p", "ask the oracle"]).ok();
    assert_eq!(
        out.stdout, "The oracle is unavailable; I answer myself.\n",
        "{out}"
    );
    let sent = requests(&fake)?;
    assert_eq!(
        sent[1]["model"], "claude-retired-1",
        "the child asks its own model"
    );
    let told = sent.last().ok_or("requests")?.to_string();
    assert!(told.contains("oracle") && told.contains("404"), "{told}");
    // The child's failure is in its own log, its run closed.
    let child = children(&env)?;
    let id = child[0]["id"].as_str().ok_or("child id")?;
    let records = env.records(id)?;
    assert!(records.iter().any(|r| r["type"] == "error"), "{records:?}");
    assert!(
        records
            .iter()
            .any(|r| r["type"] == "run" && r["state"] == "interrupted"),
        "{records:?}"
    );
    Ok(())
}

#[test]
fn sigterm_stops_the_console_as_leaving_does_and_records_its_children_stopping() -> TestResult {
    let env = Env::new()?;
    let fake = crate::common::slow_background_child()?;
    let (run, sent) = std::thread::scope(|scope| {
        let killer = scope
            .spawn(|| crate::common::terminate_when(&env, &fake, "started in the background", 800));
        let run = crate::common::console_typed(&env, &fake, &[], &[("go look\n", 0), ("", 5_000)]);
        (run, killer.join())
    });
    let Some(run) = run? else {
        return Ok(());
    };
    assert_eq!(sent.ok(), Some(true), "SIGTERM was sent");
    assert!(run.stdout.contains("stopped (SIGTERM)"), "{run}");
    assert_eq!(run.code, 143, "{run}");
    let finished = env.child_ends(&env.only_session()?)?;
    assert_eq!(finished.len(), 1, "{finished:?}");
    assert_eq!(finished[0]["state"], "cancelled");
    assert_eq!(
        env.run(&["sessions", "check"]).code,
        0,
        "the logs check clean"
    );
    Ok(())
}

/// Runs git in `dir` with a name set (the test's HOME has no git config).
fn git(dir: &std::path::Path, args: &[&str]) -> TestResult<String> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .output()?;
    if !out.status.success() {
        return Err(format!("git {args:?}: {}", String::from_utf8_lossy(&out.stderr)).into());
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn an_isolated_child_writes_in_its_own_worktree_and_its_patch_is_applied_only_when_asked()
-> TestResult {
    let env = Env::new()?;
    let project = &env.project;
    git(project, &["init", "-q"])?;
    std::fs::write(project.join("a.txt"), "one\n")?;
    git(project, &["add", "a.txt"])?;
    git(project, &["commit", "-q", "-m", "first"])?;
    // Work in progress the child must see: a change not committed and a file not tracked.
    std::fs::write(project.join("a.txt"), "one\ntwo\n")?;
    std::fs::write(project.join("notes.txt"), "NOTES-HERE\n")?;
    define(
        &env,
        "fixer",
        "---\nname: fixer\ndescription: Fixes things in a worktree of its own.\ntools: [read, write, bash]\nisolation: worktree\nbackground: true\n---\nYou fix things.\n",
    )?;
    let branches = git(project, &["branch", "--list"])?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("")
            .with_tool("spawn", json!({"agent": "fixer", "task": "FIX-TASK add b.txt"}))
            .matching("fix it apart"),
        Reply::text("")
            .with_tool(
                "bash",
                json!({"command": "printf 'bee\\n' > b.txt && echo three >> a.txt && cat a.txt notes.txt"}),
            )
            .matching("FIX-TASK"),
        Reply::text("Added b.txt and a third line.").matching("NOTES-HERE"),
        Reply::text("Started the fixer.").matching("started in the background"),
        Reply::text("The fixer's patch is ready.").matching("background child"),
    ]))?;
    let out = env
        .agent(
            &fake,
            &["-p", "fix it apart", "--permission-mode", "bypass"],
        )
        .ok();
    assert_eq!(out.stdout, "The fixer's patch is ready.\n", "{out}");

    // The child wrote with its own tools, in the background, and the user's files are as
    // they were: no new file, no new branch, the work in progress untouched.
    let sent = requests(&fake)?;
    let child = sent
        .iter()
        .find(|r| r.to_string().contains("NOTES-HERE"))
        .ok_or("the child's second request")?
        .to_string();
    assert!(
        child.contains("one\\ntwo\\nthree"),
        "it started from the work in progress: {child}"
    );
    assert!(!project.join("b.txt").exists());
    assert_eq!(
        std::fs::read_to_string(project.join("a.txt"))?,
        "one\ntwo\n"
    );
    assert_eq!(git(project, &["branch", "--list"])?, branches);

    let id = env.only_session()?;
    let records = env.records(&id)?;
    let finished = records
        .iter()
        .find(|r| r["type"] == "child_finished")
        .ok_or("no child_finished record")?;
    assert_eq!(finished["state"], "finished");
    let blob = finished["patch_blob"]
        .as_str()
        .ok_or_else(|| format!("a patch blob: {finished}"))?;
    let report = finished["report"].as_str().ok_or("report")?;
    let worktrees = env.home.join("worktrees");
    let start = report
        .find("`git apply ")
        .ok_or(format!("how to apply: {report}"))?
        + 11;
    let patch = &report[start..start + report[start..].find('`').ok_or("end")?];
    assert!(
        patch.starts_with(&worktrees.display().to_string()),
        "{patch}"
    );
    let dir = std::path::Path::new(patch).with_extension("");
    assert_eq!(
        std::fs::read_to_string(dir.join("b.txt"))?,
        "bee\n",
        "kept for a look"
    );
    let stored = env.home.join("blobs").join(&blob[..2]).join(blob);
    assert_eq!(
        std::fs::read(stored)?,
        std::fs::read(patch)?,
        "the blob is the patch"
    );

    // The tree names it too.
    let tree = env.run(&["sessions", "show", &id, "--tree"]).ok();
    let handle = finished["handle"].as_str().ok_or("handle")?;
    assert!(
        tree.stdout
            .contains(&format!("patch of {handle}: git apply {patch}")),
        "{tree}"
    );

    // Applied when asked, the patch brings exactly the child's changes.
    git(project, &["apply", patch])?;
    assert_eq!(std::fs::read_to_string(project.join("b.txt"))?, "bee\n");
    assert_eq!(
        std::fs::read_to_string(project.join("a.txt"))?,
        "one\ntwo\nthree\n"
    );
    assert_eq!(
        std::fs::read_to_string(project.join("notes.txt"))?,
        "NOTES-HERE\n"
    );

    // While the child is kept, gc keeps its worktree; once its tree is gone, gc removes it and
    // the repository forgets it.
    let kept = env.run(&["gc"]).ok();
    assert!(!kept.stdout.contains("worktree /"), "{kept}");
    assert!(dir.exists());
    env.run(&["sessions", "drop", &id]).ok();
    let swept = env.run(&["gc"]).ok();
    assert!(
        swept
            .stdout
            .contains(&format!("removed worktree {}", dir.display())),
        "{swept}"
    );
    assert!(!dir.exists() && !std::path::Path::new(patch).exists());
    let listed = git(project, &["worktree", "list"])?;
    assert_eq!(listed.lines().count(), 1, "{listed}");
    Ok(())
}

#[test]
fn isolation_outside_git_is_a_tool_error_the_model_reads() -> TestResult {
    let env = Env::new()?;
    define(
        &env,
        "fixer",
        "---\nname: fixer\ndescription: Fixes things apart.\nisolation: worktree\n---\nYou fix things.\n",
    )?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("").with_tool("spawn", json!({"agent": "fixer", "task": "fix"})),
        Reply::text("No worktree here; I fix it myself."),
    ]))?;
    env.agent(&fake, &["-p", "go"]).ok();
    let sent = requests(&fake)?;
    let last = sent.last().ok_or("requests")?.to_string();
    assert!(
        last.contains("isolation: worktree") && last.contains("not inside a git work tree"),
        "{last}"
    );
    assert!(!env.home.join("worktrees").exists());
    Ok(())
}

#[test]
fn sigterm_mid_answer_ends_the_console_without_waiting_for_the_stream() -> TestResult {
    let env = Env::new()?;
    // The answer streams for a minute: a chunk every 2 s, then one after 30 s.
    let fake = FakeLlm::start(Config::scripted([Reply::text(
        "a slow answer that keeps coming for a long while, word after word",
    )
    .with_fault(hotl_fakellm::Fault::split_at((1..16).map(|i| i * 4)).with_chunk_delay_ms(2_000))
    .matching("go slow")]))?;
    let started = std::time::Instant::now();
    let (run, sent) = std::thread::scope(|scope| {
        let killer = scope.spawn(|| crate::common::terminate_when(&env, &fake, "go slow", 300));
        let run = crate::common::console_typed(&env, &fake, &[], &[("go slow\n", 0)]);
        (run, killer.join())
    });
    let Some(run) = run? else {
        return Ok(());
    };
    assert_eq!(sent.ok(), Some(true), "SIGTERM was sent");
    assert_eq!(run.code, 143, "{run}");
    // Long before the first delayed chunk would come: the request was dropped.
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "it waited for the stream: {:?}",
        started.elapsed()
    );
    let records = env.records(&env.only_session()?)?;
    assert!(
        records
            .iter()
            .any(|r| r["type"] == "run" && r["state"] == "cancelled"),
        "{records:?}"
    );
    Ok(())
}
