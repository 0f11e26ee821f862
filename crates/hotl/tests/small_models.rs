//! Small windows and weak models: bounded replies, cut tool calls that do not poison the next
//! request, a loop guard, and failures that name their real cause.

use hotl_fakellm::{Config, FakeLlm, Reply, Stop};
use hotl_testkit::TestResult;
use serde_json::{Value, json};

use crate::common::{Env, requests};

/// The model a local server answers as.
const LOCAL: &str = "smollm2";

/// Every request's output limit, as the Chat Completions dialect sends it.
fn limits(fake: &FakeLlm) -> TestResult<Vec<u64>> {
    requests(fake)?
        .iter()
        .map(|r| {
            r["max_completion_tokens"]
                .as_u64()
                .ok_or_else(|| format!("no max_completion_tokens in {r}").into())
        })
        .collect()
}

#[test]
fn a_small_window_bounds_each_answer_and_the_limit_can_be_set() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(
        Config::scripted((0..4).map(|i| Reply::text(format!("ok {i}")))).with_context_window(8192),
    )?;
    // The window comes from the server's /props: a quarter of it by default.
    env.agent_with("openai-chat", &fake, LOCAL, &["-p", "hi"])
        .ok();
    env.agent_with(
        "openai-chat",
        &fake,
        LOCAL,
        &["-p", "hi", "--max-tokens", "100"],
    )
    .ok();
    let mut cmd = env.agent_command();
    cmd.env("HOTL_MAX_TOKENS", "300")
        .args(["--provider", "openai-chat", "--base-url"])
        .arg(fake.base_url())
        .args(["--model", LOCAL, "-p", "hi"]);
    crate::common::run(cmd).ok();
    // Set higher than the window leaves: the window wins.
    env.agent_with(
        "openai-chat",
        &fake,
        LOCAL,
        &["-p", "hi", "--max-tokens", "100000"],
    )
    .ok();
    let limits = limits(&fake)?;
    assert_eq!(limits[..3], [2048, 100, 300]);
    assert!(
        (256..8192 - 1000).contains(&limits[3]),
        "the window less the request: {limits:?}"
    );
    Ok(())
}

#[test]
fn a_bad_output_limit_is_refused_before_anything_is_sent() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([Reply::text("never")]))?;
    let out = env.agent(&fake, &["-p", "hi", "--max-tokens", "0"]);
    assert_eq!(out.code, 2, "{out}");
    let mut cmd = env.agent_command();
    cmd.env("HOTL_MAX_TOKENS", "lots")
        .args(["--provider", "anthropic", "--base-url"])
        .arg(fake.base_url())
        .args(["-p", "hi"]);
    let out = crate::common::run(cmd);
    assert_ne!(out.code, 0, "{out}");
    assert!(out.stderr.contains("HOTL_MAX_TOKENS=\"lots\""), "{out}");
    assert!(requests(&fake)?.is_empty());
    Ok(())
}

/// A call stopped at the output limit is not run, and its answer quotes only the head of the
/// arguments: the next request does not carry them again.
#[test]
fn a_tool_call_cut_at_the_output_limit_does_not_refill_the_window() -> TestResult {
    let env = Env::new()?;
    let content = "line of a large file\n".repeat(600);
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("Writing it.")
            .with_tool("write", json!({"path": "big.txt", "content": content}))
            .with_stop(Stop::MaxTokens),
        Reply::text("I will write it in parts."),
    ]))?;
    let out = env.agent(&fake, &["-p", "write the file", "--allow", "write"]);
    assert_eq!(out.code, 0, "{out}");
    assert!(
        out.stderr.contains(
            "cut off at the output limit (8192 tokens, stop reason max_tokens): a tool call in it \
             was cut off too and did not run"
        ),
        "{out}"
    );
    assert!(!env.project.join("big.txt").exists());
    let sent = requests(&fake)?;
    let next = sent.get(1).ok_or("a second request")?.to_string();
    assert!(
        next.contains("was cut off at the output limit before its arguments were complete"),
        "{next}"
    );
    let repeats = next.matches("line of a large file").count();
    assert!(
        repeats <= 12,
        "only a short head is quoted: {repeats} lines"
    );
    assert!(next.len() < sent[0].to_string().len() + 2_000, "{next}");
    Ok(())
}

/// A model that makes the same call again and again is told where the result already is, then
/// stopped.
#[test]
fn the_same_call_over_and_over_is_nudged_then_stopped() -> TestResult {
    let env = Env::new()?;
    std::fs::write(
        env.project.join("calc.py"),
        "def add(a, b):\n    return a + b\n",
    )?;
    let mut read = Reply::default().with_tool("read", json!({"path": "calc.py"}));
    read.repeat = true;
    let fake = FakeLlm::start(Config::scripted([read]))?;
    let out = env.agent(&fake, &["-p", "fix calc.py"]);
    assert_eq!(out.code, 1, "{out}");
    assert!(
        out.stderr
            .contains("the model called read 5 times in a row with the same arguments"),
        "{out}"
    );
    let sent = requests(&fake)?;
    assert_eq!(sent.len(), 5, "no request after the fifth call");
    let records = env.records(&env.only_session()?)?;
    let results: Vec<&Value> = records
        .iter()
        .filter(|r| r["type"] == "tool_result")
        .collect();
    assert_eq!(results.len(), 5);
    let text = |r: &Value| r["content"][0]["text"].as_str().unwrap_or("").to_owned();
    assert!(text(results[1]).contains("return a + b"));
    let first = records
        .iter()
        .find(|r| r["type"] == "tool_result")
        .and_then(|r| r["seq"].as_u64())
        .ok_or("a first result")?;
    for (r, n) in results[2..].iter().zip(3..) {
        assert!(
            text(r).contains(&format!("This is call {n} in a row of read"))
                && text(r).contains(&format!("already given at t{first}")),
            "{r}"
        );
        assert!(!text(r).contains("return a + b"), "{r}");
    }
    let last = records.last().ok_or("records")?;
    assert_eq!(
        (&last["type"], &last["error"]),
        (&json!("error"), &json!("loop"))
    );
    crate::common::assert_calls_answered(&records);
    Ok(())
}

#[test]
fn an_answer_cut_at_the_output_limit_is_told_in_text_mode() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("The first half").with_stop(Stop::MaxTokens)
    ]))?;
    let out = env
        .agent(&fake, &["-p", "write a lot", "--max-tokens", "500"])
        .ok();
    assert_eq!(out.stdout, "The first half\n", "{out}");
    assert!(
        out.stderr
            .contains("the answer was cut off at the output limit (500 tokens"),
        "{out}"
    );
    Ok(())
}
