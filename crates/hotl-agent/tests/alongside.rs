//! The reads of one step run side by side: three calls of a tool that runs alongside others
//! all wait at one barrier (serial calls would never get past it), and their results are
//! recorded in the calls' order all the same; a tool that does not run alongside runs alone
//! (the first two calls find nobody at the barrier).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use hotl_agent::{
    Command, Invocation, NewSession, Outcome, Policy, Provider, Settings, Start, Tool, ToolFuture,
    ToolKind, ToolOutput,
};
use hotl_fakellm::{Config, FakeLlm, Reply};
use hotl_log::Store;
use hotl_testkit::TestResult;
use hotl_wire::{Dialect, HttpProvider, ToolDef};
use serde_json::json;

/// A tool whose calls meet at a barrier of three: each answers `met` when all three were
/// running at once, `alone` when the others never came.
struct Meet {
    name: &'static str,
    alongside: bool,
    barrier: Arc<tokio::sync::Barrier>,
    running: Arc<AtomicUsize>,
    most: Arc<AtomicUsize>,
}

impl Tool for Meet {
    fn name(&self) -> &str {
        self.name
    }
    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }
    fn runs_alongside(&self) -> bool {
        self.alongside
    }
    fn definition(&self) -> ToolDef {
        ToolDef::new(
            self.name,
            "Meets the others.",
            r#"{"type":"object","properties":{"n":{"type":"integer"}}}"#,
        )
        .expect("a schema")
    }
    fn run<'a>(&'a self, call: Invocation<'a>) -> ToolFuture<'a> {
        Box::pin(async move {
            let n = call.args.opt_u64("n").ok().flatten().unwrap_or(0);
            let now = self.running.fetch_add(1, Ordering::SeqCst) + 1;
            self.most.fetch_max(now, Ordering::SeqCst);
            let met = tokio::time::timeout(Duration::from_secs(2), self.barrier.wait()).await;
            self.running.fetch_sub(1, Ordering::SeqCst);
            ToolOutput::ok(format!(
                "{n}: {}",
                if met.is_ok() { "met" } else { "alone" }
            ))
        })
    }
}

/// Runs one turn whose first answer calls `name` three times; returns the results in the
/// order the model is sent them, and the most calls that ran at once.
fn three_calls(name: &'static str, alongside: bool) -> TestResult<(Vec<String>, usize)> {
    let dir = tempfile::tempdir()?;
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project)?;
    let store = Store::new(dir.path().join("home"));
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("")
            .with_tool(name, json!({ "n": 1 }))
            .with_tool(name, json!({ "n": 2 }))
            .with_tool(name, json!({ "n": 3 })),
        Reply::text("Done."),
    ]))?;
    let most = Arc::new(AtomicUsize::new(0));
    let meet = Meet {
        name,
        alongside,
        barrier: Arc::new(tokio::sync::Barrier::new(3)),
        running: Arc::new(AtomicUsize::new(0)),
        most: Arc::clone(&most),
    };
    let mut tools = hotl_agent::standard_tools();
    tools.add(Arc::new(meet))?;
    let new = NewSession::new(&store, &project, "claude-sonnet-5", tools)?;
    let provider = Provider::Http(HttpProvider::new(
        Dialect::Anthropic,
        &fake.base_url(),
        Some("k".into()),
    )?);
    let mut settings = Settings::new("claude-sonnet-5");
    settings.policy = Policy::default();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let done = runtime.block_on(async {
        let mut agent = hotl_agent::spawn(Start::New(new), provider, settings);
        let id = agent.send(Command::Submit {
            text: "meet".into(),
        });
        let done = agent.until_done(id, |_| {}).await;
        agent.shutdown().await;
        done
    });
    assert!(
        matches!(done.map(|d| d.result), Some(Ok(Outcome::TurnEnded(_)))),
        "the turn ends"
    );
    let sent = fake.captured();
    let body: serde_json::Value = serde_json::from_slice(&sent[1].body)?;
    let results: Vec<String> = body["messages"]
        .as_array()
        .ok_or("messages")?
        .iter()
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .filter(|b| b["type"] == "tool_result")
        .map(|b| b["content"].to_string())
        .collect();
    Ok((results, most.load(Ordering::SeqCst)))
}

#[test]
fn three_reads_of_one_step_run_side_by_side_and_are_recorded_in_order() -> TestResult {
    let (results, most) = three_calls("meet", true)?;
    assert_eq!(most, 3, "the three calls ran at once");
    assert_eq!(results.len(), 3, "{results:?}");
    for (i, result) in results.iter().enumerate() {
        assert!(
            result.contains(&format!("{}: met", i + 1)),
            "in the calls' order: {results:?}"
        );
    }
    Ok(())
}

#[test]
fn a_tool_that_does_not_run_alongside_runs_alone() -> TestResult {
    let (results, most) = three_calls("meet_alone", false)?;
    assert_eq!(most, 1, "one call at a time");
    assert!(results[0].contains("1: alone"), "{results:?}");
    assert!(results[1].contains("2: alone"), "{results:?}");
    Ok(())
}
