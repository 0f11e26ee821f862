//! `hotl -p`: the three output formats, the session it writes, how the provider is chosen, and
//! when a new session's log appears.

use hotl_fakellm::{Config, FakeLlm, Reply};
use hotl_testkit::TestResult;

use crate::common::{Env, MODEL, assert_calls_answered, console, requests};

#[test]
fn print_prints_the_final_answer_and_writes_the_session() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([Reply::text("The answer is 42.")]))?;
    let out = env.agent(&fake, &["-p", "what is the answer?"]).ok();
    assert_eq!(out.stdout, "The answer is 42.\n", "{out}");
    assert_eq!(out.stderr, "", "{out}");

    let ids = env.session_ids()?;
    assert_eq!(ids.len(), 1, "{ids:?}");
    let id = &ids[0];
    assert_eq!(env.turns(id)?, 1);
    let show = env.run(&["sessions", "show", id]).ok();
    assert!(show.stdout.contains("user: what is the answer?"), "{show}");
    assert!(show.stdout.contains("The answer is 42."), "{show}");
    let types = env.record_types(id)?;
    assert_eq!(
        types,
        ["session", "run", "user", "assistant", "run"],
        "{types:?}"
    );
    let records = env.records(id)?;
    assert_eq!(records[0]["model"], MODEL);
    assert_eq!(records[0]["cwd"], env.cwd().as_str());
    assert_eq!(records[1]["state"], "started");
    assert_eq!(records[4]["state"], "finished");
    assert_eq!(records[1]["run"], records[4]["run"]);

    let sent = requests(&fake)?;
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0]["model"], MODEL);
    assert_eq!(sent[0]["stream"], true);
    let last = sent[0]["messages"]
        .as_array()
        .and_then(|m| m.last())
        .ok_or("no messages")?;
    let text = last["content"][0]["text"].as_str().ok_or("no text")?;
    assert!(
        text.starts_with("[t"),
        "the user message is stamped: {text}"
    );
    assert!(text.ends_with("what is the answer?"), "{text}");
    Ok(())
}

#[test]
fn json_output_is_one_object_with_id_result_usage_and_cost() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([Reply::text("Done.")]))?;
    let out = env
        .agent(&fake, &["-p", "hello", "--output-format", "json"])
        .ok();
    assert_eq!(out.stdout.lines().count(), 1, "{out}");
    let json = out.json()?;
    assert_eq!(json["type"], "result");
    assert_eq!(json["is_error"], false);
    assert_eq!(json["result"], "Done.");
    assert_eq!(
        json["session_id"].as_str(),
        Some(env.session_ids()?[0].as_str())
    );
    let usage = &json["usage"];
    let prompt: u64 = ["input", "cache_read", "cache_write_5m", "cache_write_1h"]
        .iter()
        .filter_map(|k| usage[*k].as_u64())
        .sum();
    assert!(prompt > 0, "{json}");
    assert!(json["usage"]["output"].as_u64().unwrap_or(0) > 0, "{json}");
    assert!(json["cost_usd"].as_f64().unwrap_or(0.0) > 0.0, "{json}");
    assert_eq!(json["steps"], 1);
    Ok(())
}

#[test]
fn stream_json_prints_one_object_per_line_ending_with_the_result() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("Let me think.").with_tool("no_such_tool", serde_json::json!({"x": 1})),
        Reply::text("Finished."),
    ]))?;
    let out = env
        .agent(&fake, &["-p", "go", "--output-format", "stream-json"])
        .ok();
    let lines: Vec<serde_json::Value> = out
        .stdout
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()?;
    assert!(lines.len() > 2, "{out}");
    let last = lines.last().ok_or("no lines")?;
    assert_eq!(last["type"], "result", "{out}");
    assert_eq!(last["result"], "Finished.");
    assert_eq!(last["steps"], 2);
    assert!(
        lines[..lines.len() - 1]
            .iter()
            .all(|l| l["type"] != "result"),
        "{out}"
    );
    let deltas: String = lines
        .iter()
        .filter(|l| l["type"] == "model" && l["event"]["event"] == "text_delta")
        .filter_map(|l| l["event"]["text"].as_str())
        .collect();
    assert_eq!(deltas, "Let me think.Finished.");
    Ok(())
}

#[test]
fn with_no_provider_it_runs_the_demo_model_and_says_so_once() -> TestResult {
    let env = Env::new()?;
    let out = run_agent(&env, &["-p", "hello there"]).ok();
    insta::assert_snapshot!(out, @r#"
        This is hotl's offline demo model: no API key is configured, so I answer by simple rules rather than by thinking. You said: "hello there". Ask me to list the files, to read a path such as src/main.rs, or to run `a command`.
        [stderr]
        hotl: no provider is configured: using hotl's offline demo model (set ANTHROPIC_API_KEY or OPENAI_API_KEY, or --base-url, to use a real one)
        "#);
    assert!(out.stdout.contains("hello there"), "{out}");
    assert_eq!(out.stderr.lines().count(), 1, "{out}");
    assert!(out.stderr.contains("demo model"), "{out}");
    let ids = env.session_ids()?;
    assert_eq!(ids.len(), 1);
    assert_eq!(env.records(&ids[0])?[0]["model"], "demo");
    Ok(())
}

/// Offline, the demo still writes notes in the fold template, so folding and compacting work
/// with no provider.
#[test]
fn the_demo_model_writes_notes_for_a_fold_and_a_compaction() -> TestResult {
    let env = Env::new()?;
    run_agent(&env, &["-p", "list the files"]).ok();
    let id = env.session_ids()?.remove(0);
    let folded = run_agent(&env, &["fold", &id, "--since", "t3"]).ok();
    assert!(folded.stdout.contains("into handle "), "{folded}");
    run_agent(&env, &["-r", &id, "-p", "hello again"]).ok();
    let compacted = run_agent(&env, &["compact", &id]).ok();
    assert!(
        compacted
            .stdout
            .starts_with(&format!("compacted {id} through t")),
        "{compacted}"
    );
    let records = env.records(&id)?;
    let summary = records
        .iter()
        .find(|r| r["type"] == "compaction")
        .and_then(|r| r["summary"].as_str())
        .ok_or("a compaction")?;
    assert!(summary.starts_with("changed: (offline demo)"), "{summary}");
    Ok(())
}

fn run_agent(env: &Env, args: &[&str]) -> crate::common::Run {
    let mut cmd = env.agent_command();
    cmd.args(args);
    crate::common::run(cmd)
}

#[test]
fn the_provider_can_come_from_the_environment() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([Reply::text("from env")]))?;
    let mut cmd = env.agent_command();
    cmd.env("HOTL_PROVIDER", "anthropic")
        .env("HOTL_BASE_URL", fake.base_url())
        .env("HOTL_MODEL", "claude-opus-4-8")
        .args(["-p", "hi"]);
    let out = crate::common::run(cmd).ok();
    assert_eq!(out.stdout, "from env\n", "{out}");
    assert_eq!(out.stderr, "", "{out}");
    let sent = requests(&fake)?;
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0]["model"], "claude-opus-4-8");
    Ok(())
}

#[test]
fn every_dialect_answers_a_headless_run() -> TestResult {
    for (provider, model, endpoint) in [
        ("anthropic", MODEL, hotl_fakellm::Endpoint::Messages),
        (
            "openai-chat",
            "gpt-5.1",
            hotl_fakellm::Endpoint::ChatCompletions,
        ),
        ("openai", "gpt-5.1", hotl_fakellm::Endpoint::Responses),
    ] {
        let env = Env::new()?;
        let fake = FakeLlm::start(Config::scripted([
            Reply::text("Calling.").with_tool("no_such_tool", serde_json::json!({})),
            Reply::text(format!("answer via {provider}")),
        ]))?;
        let out = env
            .agent_with(
                provider,
                &fake,
                model,
                &["-p", "hi", "--output-format", "json"],
            )
            .ok();
        let json = out.json()?;
        assert_eq!(json["result"], format!("answer via {provider}"), "{out}");
        // A local Chat server is also asked what it serves (`/props`): only generation
        // requests count here.
        let captured: Vec<_> = fake
            .captured()
            .into_iter()
            .filter(|c| c.method == "POST")
            .collect();
        assert_eq!(captured.len(), 2, "{provider}: {captured:?}");
        assert!(
            captured.iter().all(|c| c.endpoint == endpoint),
            "{provider}"
        );
        let id = json["session_id"].as_str().ok_or("no id")?;
        assert_calls_answered(&env.records(id)?);
    }
    Ok(())
}

#[test]
fn a_new_sessions_log_appears_only_when_a_message_is_submitted() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([Reply::text("ok")]))?;
    // No prompt and no terminal: refused before any session exists.
    let out = env.agent(&fake, &[]).fails(1);
    assert!(out.stderr.contains("pass the task with -p"), "{out}");
    // A bad flag value: a usage error (exit 2), refused before the session is created.
    let bad = env
        .agent(&fake, &["-p", "x", "--permission-mode", "sideways"])
        .fails(2);
    assert!(
        bad.stderr.starts_with(
            "hotl: invalid value 'sideways' for '--permission-mode <MODE>' [possible values: \
             default, accept-edits, bypass, plan]"
        ),
        "{bad}"
    );
    // As clap's own: the same shape, the same status.
    let unknown = env.agent(&fake, &["-p", "x", "--sideways"]).fails(2);
    assert!(
        unknown
            .stderr
            .starts_with("hotl: unexpected argument '--sideways'")
            && unknown.stderr.contains("\nhint: "),
        "{unknown}"
    );
    assert!(env.session_ids()?.is_empty());
    assert!(fake.captured().is_empty());

    env.agent(&fake, &["-p", "now"]).ok();
    assert_eq!(env.session_ids()?.len(), 1);
    Ok(())
}

#[test]
fn the_console_writes_no_log_until_the_first_message() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([Reply::text("Hello from the fake.")]))?;
    let Some(out) = console(&env, &fake, &[], "\n/exit\n")? else {
        return Ok(());
    };
    let out = out.ok();
    assert!(out.stdout.contains("new session"), "{out}");
    assert!(env.session_ids()?.is_empty(), "{out}");
    assert!(fake.captured().is_empty());

    let out = console(&env, &fake, &[], "hi there\n/exit\n")?
        .ok_or("script vanished")?
        .ok();
    assert!(out.stdout.contains("Hello from the fake."), "{out}");
    let ids = env.session_ids()?;
    assert_eq!(ids.len(), 1, "{out}");
    assert!(out.stdout.contains(&format!("hotl -r {}", ids[0])), "{out}");
    assert_eq!(env.turns(&ids[0])?, 1);
    Ok(())
}

#[test]
fn an_unknown_tool_in_allow_is_refused_naming_the_tools() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([Reply::text("never")]))?;
    let out = env.agent(&fake, &["-p", "hi", "--allow", "Bash"]);
    assert_ne!(out.code, 0, "{out}");
    assert!(
        out.stderr
            .contains("--allow Bash: there is no such tool; the tools are read,"),
        "{out}"
    );
    assert!(requests(&fake)?.is_empty());
    Ok(())
}

/// A headless run in a git repository leaves no process behind: the snapshot's git (down to
/// the one reading the configuration) is ended and reaped before hotl exits, so nothing of
/// its process group is left running or `<defunct>`. Run five times: the git it ends races
/// the exit.
#[test]
fn a_run_leaves_no_git_behind() -> TestResult {
    let env = Env::new()?;
    std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&env.project)
        .status()?;
    std::fs::write(env.project.join("a.txt"), "x\n")?;
    let fake = crate::common::fake_answering(5)?;
    for _ in 0..5 {
        let hotl = env.command_against("anthropic", &fake, crate::common::MODEL);
        let mut cmd = std::process::Command::new("setsid");
        cmd.arg("sh")
            .arg("-c")
            .arg("\"$0\" \"$@\" >/dev/null 2>&1; ps -o stat=,args= -g $$")
            .arg(hotl.get_program())
            .args(hotl.get_args())
            .args(["-p", "hi"])
            .current_dir(&env.project);
        for (key, value) in hotl.get_envs() {
            match value {
                Some(v) => cmd.env(key, v),
                None => cmd.env_remove(key),
            };
        }
        let out = cmd.output()?;
        let left = String::from_utf8_lossy(&out.stdout);
        assert!(
            !left
                .lines()
                .any(|l| l.contains("[git]") || l.split_whitespace().nth(1) == Some("git")),
            "left behind:\n{left}"
        );
    }
    Ok(())
}
