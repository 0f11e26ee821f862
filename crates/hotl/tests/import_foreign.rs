//! `hotl sessions import --from claude|codex|pi`: the fixtures import and check clean, the last
//! stdout line is the id, re-imports are recognised, damage and refusals are told, and an
//! imported session continues on the Anthropic and OpenAI dialects with its foreign tool calls
//! sent as text notes and no foreign signature.

use std::path::PathBuf;

use hotl_fakellm::{Config, FakeLlm, Reply};
use hotl_testkit::TestResult;

use crate::common::{Env, MODEL, path_str, requests};

/// A fixture of hotl-import's tests.
fn fixture(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../hotl-import/tests/fixtures")
        .join(rel)
}

const CC_217: &str = "claude-code/cc-2.1.7-subagent/e9fb405b-169f-40eb-9396-7e75076f045d.jsonl";
const CC_2064: &str =
    "claude-code/cc-2.0.64-flat/-tmp-private/4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl";
const CODEX: &str = "codex/sessions/2026/05/11/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl";

/// Imports `rel` from `agent` into the project directory; returns the printed id.
fn import(env: &Env, agent: &str, rel: &str) -> TestResult<String> {
    let file = fixture(rel);
    let out = env
        .run(&[
            "sessions",
            "import",
            "--from",
            agent,
            path_str(&file)?,
            "--cwd",
            &env.cwd(),
        ])
        .ok();
    let last = out
        .stdout
        .lines()
        .last()
        .ok_or("nothing printed")?
        .to_owned();
    assert!(hotl_log::is_session_id(&last), "{out}");
    Ok(last)
}

#[test]
fn the_fixtures_import_and_check_clean() -> TestResult {
    let env = Env::new()?;
    for (agent, rel) in [("claude", CC_217), ("claude", CC_2064), ("codex", CODEX)] {
        let id = import(&env, agent, rel)?;
        let check = env.run(&["sessions", "check", &id]);
        assert_eq!(check.code, 0, "{agent} {rel}:\n{check}");
        let show = env.json(&["sessions", "show", &id, "--json"])?;
        assert_eq!(show["id"], id.as_str());
        assert!(show["turns"].as_u64().unwrap_or(0) >= 1, "{show}");
    }
    let list = env.json(&["sessions", "list", "--json"])?;
    assert_eq!(list.as_array().map(Vec::len), Some(3), "{list}");
    // Months-old histories, imported today: gc's default age keeps them.
    env.run(&["gc"]).ok();
    let list = env.json(&["sessions", "list", "--json"])?;
    assert_eq!(list.as_array().map(Vec::len), Some(3), "{list}");
    Ok(())
}

#[test]
fn skipped_lines_are_told_and_the_id_is_the_last_line() -> TestResult {
    let env = Env::new()?;
    let file = fixture(CC_217);
    let out = env
        .run(&["sessions", "import", "--from", "claude", path_str(&file)?])
        .ok();
    assert!(
        out.stderr
            .contains("hotl: lines 2, 45: skipped file-history-snapshot"),
        "{out}"
    );
    assert!(out.stderr.contains("1 sub-agent session"), "{out}");
    // The fixture's directory is another machine's.
    assert!(out.stderr.contains("does not exist here"), "{out}");
    assert_eq!(out.stdout.lines().count(), 1);
    let id = out.line().to_owned();

    let again = env
        .run(&["sessions", "import", "--from", "claude", path_str(&file)?])
        .ok();
    assert_eq!(again.line(), id, "an unchanged file gives the same session");
    assert!(again.stderr.contains("unchanged"), "{again}");
    assert_eq!(env.session_ids()?.len(), 1);

    // The sub-agent is shown at its call and its work is recalled by its handle.
    let show = env.run(&["sessions", "show", &id]).ok();
    assert!(
        show.stdout
            .contains("↳ solution-architect a485154 (t4): Analyze CLI and spec new commands"),
        "{show}"
    );
    let recall = env.run(&["recall", &id, "Commander.js-based"]).ok();
    assert!(recall.stdout.contains("a485154"), "{recall}");
    Ok(())
}

#[test]
fn refusals_and_usage_errors() -> TestResult {
    let env = Env::new()?;
    let agent = fixture(
        "claude-code/cc-2.1.7-subagent/e9fb405b-169f-40eb-9396-7e75076f045d/subagents/agent-a485154.jsonl",
    );
    let out = env
        .run(&["sessions", "import", "--from", "claude", path_str(&agent)?])
        .fails(1);
    assert!(
        out.stderr
            .contains("sub-agent transcript of session e9fb405b"),
        "{out}"
    );
    let out = env
        .run(&["sessions", "import", "--from", "claude", "no-such-id"])
        .fails(1);
    assert!(
        out.stderr.contains("no Claude Code session matches"),
        "{out}"
    );
    env.run(&["sessions", "import", "--from", "gemini", "x"])
        .fails(2);
    env.run(&["sessions", "import", "x.jsonl", "--cwd", "/tmp"])
        .fails(2);
    let help = env.run(&["sessions", "import", "--help"]).ok();
    assert!(
        help.stdout.contains("Examples:") && help.stdout.contains("--from claude"),
        "{help}"
    );
    Ok(())
}

#[test]
fn a_session_id_is_found_under_the_agents_home() -> TestResult {
    let env = Env::new()?;
    let projects = env.root().join("claude-home/projects/-p");
    std::fs::create_dir_all(&projects)?;
    std::fs::copy(
        fixture(CC_2064),
        projects.join("4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl"),
    )?;
    let mut cmd = env.command();
    cmd.env("CLAUDE_CONFIG_DIR", env.root().join("claude-home"))
        .args(["sessions", "import", "--from", "claude", "4c2ddf"]);
    let out = cmd.output()?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let id = String::from_utf8(out.stdout)?.trim().to_owned();
    assert!(hotl_log::is_session_id(&id));
    Ok(())
}

/// After an import, one turn on `provider`: the request is accepted, carries the foreign
/// calls as text notes, no foreign signature and no structured foreign call.
fn continues_on(provider: &str, model: &str, rel: &str, agent: &str) -> TestResult {
    let env = Env::new()?;
    let id = import(&env, agent, rel)?;
    let fake = FakeLlm::start(Config::scripted([Reply::text("continued")]))?;
    let out = env
        .agent_with(provider, &fake, model, &["-r", &id, "-p", "what next?"])
        .ok();
    assert!(out.stdout.contains("continued"), "{out}");
    let sent = requests(&fake)?;
    assert_eq!(sent.len(), 1, "{out}");
    let body = sent[0].to_string();
    assert!(
        body.contains("[imported tool call: "),
        "{provider}: no note"
    );
    assert!(
        body.contains("[imported tool result"),
        "{provider}: no result note"
    );
    assert!(
        !body.contains("\"signature\""),
        "{provider}: a signature was sent"
    );
    assert!(
        !body.contains("system-reminder"),
        "{provider}: Claude Code's own reminders were sent to another model"
    );
    assert!(
        !body.contains("\"tool_use\""),
        "{provider}: a structured foreign call"
    );
    assert!(
        !body.contains("\"function_call\""),
        "{provider}: a structured foreign call"
    );
    assert!(
        !body.contains("\"tool_calls\""),
        "{provider}: a structured foreign call"
    );
    assert!(body.contains("what next?"));
    Ok(())
}

#[test]
fn an_imported_claude_session_continues_on_anthropic() -> TestResult {
    continues_on("anthropic", MODEL, CC_217, "claude")
}

#[test]
fn an_imported_codex_session_continues_on_openai() -> TestResult {
    continues_on("openai", "gpt-5.1", CODEX, "codex")?;
    continues_on("openai-chat", "gpt-5.1", CC_2064, "claude")
}

#[test]
fn a_session_imported_mid_turn_continues_with_the_open_call_closed() -> TestResult {
    let env = Env::new()?;
    let lines = [
        serde_json::json!({"type": "user", "uuid": "u1", "parentUuid": null, "sessionId": "s",
            "cwd": env.cwd(), "timestamp": "2026-01-01T00:00:00Z",
            "message": {"role": "user", "content": "run the tests"}}),
        serde_json::json!({"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s",
            "timestamp": "2026-01-01T00:00:01Z", "message": {"id": "m1", "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash",
                "input": {"command": "cargo test"}}]}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let file = env.scratch("s.jsonl", text.as_bytes())?;
    let id = env
        .run(&["sessions", "import", "--from", "claude", path_str(&file)?])
        .ok()
        .line()
        .to_owned();
    let fake = FakeLlm::start(Config::scripted([Reply::text("continued")]))?;
    let out = env.agent(&fake, &["-r", &id, "-p", "what next?"]).ok();
    assert!(!out.stderr.contains("finishing"), "{out}");
    let sent = requests(&fake)?;
    assert_eq!(sent.len(), 1, "{out}");
    let body = sent[0].to_string();
    assert!(
        body.contains("[no result recorded in the imported session]"),
        "{body}"
    );
    assert!(body.contains("[imported tool call: Bash]"), "{body}");
    Ok(())
}
