//! Tools that arrive after the agent started (an MCP server's, started after the front end's
//! first frame): a message waits for them, a new session freezes them with their
//! instructions, a resumed one reaches the ones it froze, a switch carries them along, and a
//! starter that failed stops the session before anything is written.

use std::sync::Arc;
use std::time::Duration;

use hotl_agent::{
    Agent, Command, Event, Invocation, LateTools, NewSession, Outcome, Policy, Provider, Session,
    Settings, Start, SwitchTo, Tool, ToolFuture, ToolKind, ToolOutput, late_channel,
};
use hotl_fakellm::{Config, Endpoint, FakeLlm, Reply};
use hotl_log::Store;
use hotl_testkit::TestResult;
use hotl_wire::{Dialect, HttpProvider, ToolDef};
use serde_json::json;

use crate::common::{failure, outcome, turn};

const MODEL: &str = "claude-sonnet-5";

/// A tool as a server would bring: it answers with its argument.
struct Echo;

impl Tool for Echo {
    fn name(&self) -> &str {
        "mcp__late__echo"
    }
    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }
    fn definition(&self) -> ToolDef {
        hotl_agent::definition(
            self.name(),
            "[MCP server late] Echoes its text.",
            r#"{"type":"object","properties":{"text":{"type":"string"}}}"#,
        )
    }
    fn run<'a>(&'a self, call: Invocation<'a>) -> ToolFuture<'a> {
        Box::pin(async move {
            let text = call.args.string("text").unwrap_or_default();
            ToolOutput::ok(format!("late echo: {text}"))
        })
    }
}

fn arrived() -> LateTools {
    LateTools {
        tools: vec![Arc::new(Echo)],
        instructions: vec!["Instructions from the MCP server late:\nbe brief".to_owned()],
        allow: Vec::new(),
        notices: vec!["warning: the MCP server slow did not start: timed out".to_owned()],
    }
}

struct Setup {
    _dir: tempfile::TempDir,
    project: std::path::PathBuf,
    store: Store,
    fake: FakeLlm,
    runtime: tokio::runtime::Runtime,
}

impl Setup {
    fn new(replies: Vec<Reply>) -> TestResult<Setup> {
        let dir = tempfile::tempdir()?;
        let project = dir.path().join("project");
        std::fs::create_dir_all(&project)?;
        Ok(Setup {
            store: Store::new(dir.path().join("home")),
            fake: FakeLlm::start(Config::scripted(replies))?,
            runtime: tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?,
            project,
            _dir: dir,
        })
    }

    fn provider(&self) -> TestResult<Provider> {
        Ok(Provider::Http(HttpProvider::new(
            Dialect::Anthropic,
            &self.fake.base_url(),
            Some("k".into()),
        )?))
    }

    fn requests(&self) -> Vec<serde_json::Value> {
        self.fake
            .captured()
            .iter()
            .filter(|c| c.endpoint == Endpoint::Messages)
            .filter_map(|c| c.json())
            .collect()
    }
}

fn settings() -> Settings {
    let mut settings = Settings::new(MODEL);
    settings.policy = Policy {
        mode: hotl_agent::Mode::Bypass,
        ..Policy::default()
    };
    settings
}

/// Sends `command` and returns its events up to the one that ends it (its `Done` last).
async fn run(agent: &mut Agent, command: Command) -> Vec<Event> {
    let id = agent.send(command);
    let mut seen = Vec::new();
    let done = agent
        .until_done(id, |envelope| seen.push(envelope.event.clone()))
        .await;
    seen.extend(done.map(Event::Done));
    seen
}

fn say(text: &str) -> Command {
    Command::Submit { text: text.into() }
}

fn echo_then(text: &str) -> [Reply; 2] {
    [
        Reply::default().with_tool("mcp__late__echo", json!({"text": "hi"})),
        Reply::text(text),
    ]
}

#[test]
fn a_message_waits_for_late_tools_and_the_new_session_freezes_them() -> TestResult {
    let mut replies = echo_then("Echoed.").to_vec();
    replies.extend(echo_then("Again."));
    let setup = Setup::new(replies)?;
    let new = NewSession::new(
        &setup.store,
        &setup.project,
        MODEL,
        hotl_agent::standard_tools(),
    )?;
    let id = new.id().to_owned();
    let (sender, late) = late_channel();
    setup.runtime.block_on(async {
        let mut agent =
            hotl_agent::spawn_with_late(Start::New(new), setup.provider()?, settings(), Some(late));
        let id = agent.send(say("echo hi"));
        // The message waits: nothing is asked and nothing is written meanwhile.
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert!(setup.requests().is_empty(), "asked before the tools came");
        assert!(
            setup.store.list()?.is_empty(),
            "written before the tools came"
        );
        let _ = sender.send(Ok(arrived()));
        let mut seen = Vec::new();
        let done = agent
            .until_done(id, |envelope| seen.push(envelope.event.clone()))
            .await;
        seen.extend(done.map(Event::Done));
        assert!(
            seen.iter().any(
                |e| matches!(e, Event::Notice { message } if message.contains("slow did not start"))
            ),
            "{seen:?}"
        );
        assert!(
            seen.iter()
                .any(|e| matches!(e, Event::ToolsAdded { tools } if tools == &["mcp__late__echo"])),
            "{seen:?}"
        );
        let ended = seen.last().ok_or("no end")?;
        assert!(
            turn(ended).is_some_and(|o| o.text == "Echoed."),
            "{ended:?}"
        );
        agent.shutdown().await;
        TestResult::Ok(())
    })?;
    let sent = setup.requests();
    assert!(sent[0]["tools"].to_string().contains("mcp__late__echo"));
    assert!(sent[0]["system"].to_string().contains("be brief"));
    assert!(sent[1].to_string().contains("late echo: hi"));

    // Resumed with the standard tools only, then the late ones: the frozen call runs again,
    // and the tool block is the one the session froze.
    let setup2 = setup;
    let session = Session::open(&setup2.store, &id, hotl_agent::standard_tools())?;
    let (sender, late) = late_channel();
    let _ = sender.send(Ok(arrived()));
    setup2.runtime.block_on(async {
        let mut agent = hotl_agent::spawn_with_late(
            Start::Open(Box::new(session)),
            setup2.provider()?,
            settings(),
            Some(late),
        );
        let seen = run(&mut agent, say("again")).await;
        assert!(
            seen.last()
                .and_then(turn)
                .is_some_and(|o| o.text == "Again."),
            "{seen:?}"
        );
        agent.shutdown().await;
        TestResult::Ok(())
    })?;
    let resent = setup2.requests();
    assert_eq!(sent[0]["tools"], resent[2]["tools"]);
    assert_eq!(
        resent[3]["messages"]
            .to_string()
            .matches("late echo: hi")
            .count(),
        2
    );
    Ok(())
}

#[test]
fn a_switch_to_a_new_session_carries_late_tools_and_their_instructions() -> TestResult {
    let setup = Setup::new(vec![Reply::text("one"), Reply::text("two")])?;
    let new = NewSession::new(
        &setup.store,
        &setup.project,
        MODEL,
        hotl_agent::standard_tools(),
    )?;
    let (sender, late) = late_channel();
    let _ = sender.send(Ok(arrived()));
    setup.runtime.block_on(async {
        let mut agent =
            hotl_agent::spawn_with_late(Start::New(new), setup.provider()?, settings(), Some(late));
        run(&mut agent, say("first")).await;
        let switched = run(&mut agent, Command::Switch(SwitchTo::New)).await;
        assert!(
            matches!(
                switched.last().and_then(outcome),
                Some(Outcome::Switched { .. })
            ),
            "{switched:?}"
        );
        run(&mut agent, say("second")).await;
        agent.shutdown().await;
        TestResult::Ok(())
    })?;
    let sent = setup.requests();
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[0]["tools"], sent[1]["tools"]);
    assert!(sent[1]["tools"].to_string().contains("mcp__late__echo"));
    assert!(sent[1]["system"].to_string().contains("be brief"));
    Ok(())
}

#[test]
fn a_starter_that_failed_stops_the_session_before_anything_is_written() -> TestResult {
    let setup = Setup::new(vec![Reply::text("never")])?;
    let new = NewSession::new(
        &setup.store,
        &setup.project,
        MODEL,
        hotl_agent::standard_tools(),
    )?;
    let (sender, late) = late_channel();
    let _ = sender.send(Err(
        "the MCP server gone is required and did not start: no such file".to_owned(),
    ));
    setup.runtime.block_on(async {
        let mut agent =
            hotl_agent::spawn_with_late(Start::New(new), setup.provider()?, settings(), Some(late));
        let seen = run(&mut agent, say("hi")).await;
        assert!(
            seen.last()
                .and_then(failure)
                .is_some_and(|f| f.message.contains("gone is required")),
            "{seen:?}"
        );
        agent.shutdown().await;
        TestResult::Ok(())
    })?;
    assert!(setup.requests().is_empty());
    assert!(setup.store.list()?.is_empty());
    Ok(())
}
