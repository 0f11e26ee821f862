//! `hotl stats`: what a session spent per turn and in total, from its records, and what a
//! fold saved (an estimate); a model the pricing table does not know is named, not priced
//! at zero.

use hotl_fakellm::{Config, FakeLlm, Reply};
use hotl_testkit::TestResult;
use serde_json::json;

use crate::common::Env;

const NOTE: &str = "changed: nothing\nlearned: the build prints 300 lines\ndecided and rejected: kept it\nopen: none\nwhere: the build";

#[test]
fn stats_count_each_turn_and_estimate_what_a_fold_saved() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::default().with_tool(
            "bash",
            json!({"command": "seq 1 110 | sed 's/^/build line of a step with a long description /'"}),
        ),
        Reply::text("Built."),
        Reply::text("Two."),
        Reply::text("Three."),
    ]))?;
    env.agent(&fake, &["-p", "build it", "--allow", "bash"])
        .ok();
    let id = env.only_session()?;
    let note = env.scratch("note.txt", NOTE.as_bytes())?;
    env.run(&[
        "fold",
        &id,
        "--since",
        "t3",
        "--note-file",
        &note.display().to_string(),
    ])
    .ok();
    env.agent(&fake, &["-r", &id, "-p", "two"]).ok();
    env.agent(&fake, &["-r", &id, "-p", "three"]).ok();

    let stats = env.json(&["stats", &id, "--json"])?;
    let turns = stats["turns"].as_array().ok_or("turns")?;
    assert_eq!(turns.len(), 3, "{stats:#}");
    assert_eq!(turns[0]["requests"], 2);
    assert_eq!(stats["total"]["requests"], 4);
    let sum: u64 = turns.iter().filter_map(|t| t["input"].as_u64()).sum();
    assert_eq!(stats["total"]["input"].as_u64(), Some(sum));
    assert!(
        stats["total"]["cost"].as_f64().unwrap_or(0.0) > 0.0,
        "{stats:#}"
    );
    assert!(stats["unpriced"].as_array().is_some_and(Vec::is_empty));
    let fold = &stats["savings"][0];
    assert_eq!(fold["kind"], "fold", "{stats:#}");
    assert_eq!(fold["requests_since"], 2);
    assert!(fold["tokens"].as_u64().unwrap_or(0) > 1_000, "{fold}");
    let expected = fold["tokens"].as_f64().unwrap_or(0.0) * 2.0 * 0.1;
    assert!((fold["fresh_equivalent"].as_f64().unwrap_or(0.0) - expected).abs() < 1e-6);

    let text = env.run(&["stats", &id]).ok().stdout;
    assert!(text.contains("total"), "{text}");
    assert!(text.contains("fold"), "{text}");
    assert!(text.contains("estimated savings"), "{text}");
    Ok(())
}

#[test]
fn a_model_without_a_price_is_named_and_not_counted_as_free() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([Reply::text("Hi.")]))?;
    env.agent_with("openai-chat", &fake, "mystery-model-7b", &["-p", "hi"])
        .ok();
    let id = env.only_session()?;
    let stats = env.json(&["stats", &id, "--json"])?;
    assert_eq!(stats["unpriced"], json!(["mystery-model-7b"]), "{stats:#}");
    let text = env.run(&["stats", &id]).ok().stdout;
    assert!(
        text.contains("the pricing table does not know mystery-model-7b"),
        "{text}"
    );
    Ok(())
}

#[test]
fn hour_long_cache_writes_cost_the_same_in_stats_as_in_the_console() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("First."),
        Reply::text("Second."),
    ]))?;
    // The console marks its prompt cache for an hour: those writes cost 2x input, not 1.25x.
    let typed = [("one\n", 0), ("two\n", 1_000), ("/exit\n", 1_000)];
    let Some(out) = crate::common::console_typed(&env, &fake, &[], &typed)? else {
        return Ok(());
    };
    let out = out.ok();
    // Each turn's footer ends with what the session has cost so far.
    let footers: Vec<f64> = out
        .stdout
        .lines()
        .filter(|l| l.starts_with("── ") && l.contains(" ctx · "))
        .filter_map(|l| l.rsplit_once('$'))
        .filter_map(|(_, cost)| cost.split_whitespace().next()?.parse().ok())
        .collect();
    assert_eq!(footers.len(), 2, "{}", out.stdout);
    let id = env.only_session()?;
    let stats = env.json(&["stats", &id, "--json"])?;
    let total = stats["total"]["cost"].as_f64().ok_or("no total cost")?;
    let written = stats["total"]["cache_write"].as_u64().unwrap_or(0);
    assert!(written > 0, "the turns wrote the cache: {stats:#}");
    let shown = footers[1];
    assert!(
        (total - shown).abs() < 0.0002,
        "stats says ${total:.4}, the footers ${shown:.4}: {stats:#}\n{}",
        out.stdout
    );
    Ok(())
}
