//! Session titles: a console titles a new root session after its first answer, with the fast
//! model when one is configured; `-p` never spends a request on it; `[session_title] enabled =
//! false` turns it off; a delegated child is titled by its task.

use hotl_fakellm::{Config, FakeLlm, Reply};
use hotl_testkit::TestResult;

use crate::common::{Env, console_with_env, requests};

fn title_of(env: &Env) -> TestResult<serde_json::Value> {
    let listed = env.json(&["sessions", "list", "--json"])?;
    Ok(listed[0]["title"].clone())
}

#[test]
fn a_console_titles_its_session_after_the_first_answer_with_the_fast_model() -> TestResult {
    let env = Env::new()?;
    let config = env.root().join("config/hotl");
    std::fs::create_dir_all(&config)?;
    std::fs::write(
        config.join("config.toml"),
        "[provider]\nfast_model = \"claude-haiku-4-5\"\n[session_title]\nmax_chars = 40\n",
    )?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("Paris is the capital of France."),
        Reply::text("\"Capital of France question, answered briefly and more words.\""),
        Reply::text("About 2.1 million."),
    ]))?;
    let Some(out) = console_with_env(
        &env,
        &fake,
        &[],
        &[("HOTL_SESSION_TITLE", "on")],
        "what is the capital of France?\nand its population?\n/exit\n",
    )?
    else {
        return Ok(());
    };
    assert!(out.stdout.contains("About 2.1 million."), "{out}");
    let sent = requests(&fake)?;
    assert_eq!(sent.len(), 3, "the answer, the title, the second answer");
    assert_eq!(sent[1]["model"], "claude-haiku-4-5", "the fast model");
    assert!(sent[1].to_string().contains("at most 40 characters"));
    assert!(
        !sent[2].to_string().contains("Capital of France question"),
        "the title is not conversation"
    );
    assert_eq!(title_of(&env)?, "Capital of France question, answered");
    // The title's request is on the record and in the session's cost, on a line of its own.
    let id = env.only_session()?;
    let title = env
        .records(&id)?
        .into_iter()
        .find(|r| r["type"] == "title")
        .ok_or("a title record")?;
    assert_eq!(title["model"], "claude-haiku-4-5", "{title}");
    assert!(
        title["usage"]["output"].as_u64().is_some_and(|o| o > 0),
        "{title}"
    );
    let stats = env.json(&["stats", &id, "--json"])?;
    assert_eq!(stats["titles"]["requests"], 1, "{stats}");
    assert_eq!(stats["own"]["requests"], 3, "{stats}");
    let turns: f64 = stats["turns"]
        .as_array()
        .ok_or("turns")?
        .iter()
        .filter_map(|t| t["cost"].as_f64())
        .sum();
    let own = stats["own"]["cost"].as_f64().ok_or("own cost")?;
    let titled = stats["titles"]["cost"].as_f64().ok_or("title cost")?;
    assert!(
        titled > 0.0 && (turns + titled - own).abs() < 1e-9,
        "{stats}"
    );
    let table = env.run(&["stats", &id]).ok().stdout;
    assert!(
        table.lines().any(|l| l.trim_start().starts_with("title")),
        "{table}"
    );
    Ok(())
}

#[test]
fn headless_runs_and_a_disabled_config_write_no_title() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([Reply::text("ok")]))?;
    let mut cmd = env.agent_command();
    cmd.env("HOTL_SESSION_TITLE", "on")
        .args(["--provider", "anthropic", "--base-url"])
        .arg(fake.base_url())
        .args(["--model", "claude-sonnet-5", "-p", "hello"]);
    crate::common::run(cmd).ok();
    assert_eq!(requests(&fake)?.len(), 1, "no request for a title");

    let env = Env::new()?;
    let config = env.root().join("config/hotl");
    std::fs::create_dir_all(&config)?;
    std::fs::write(
        config.join("config.toml"),
        "[session_title]\nenabled = false\n",
    )?;
    let fake = FakeLlm::start(Config::scripted([Reply::text("hi"), Reply::text("again")]))?;
    let Some(_) = console_with_env(&env, &fake, &[], &[], "hello\nmore\n/exit\n")? else {
        return Ok(());
    };
    assert_eq!(requests(&fake)?.len(), 2, "two answers, no title");
    Ok(())
}
