//! The agent as a task, driven as a front end drives it: commands in, events out. Approvals
//! wait for their answer without blocking anything, a front end that goes away cancels the
//! turn cleanly, a fork's events carry its handle, and every call (moves included) is told
//! with a `tool_use` and a `tool_result`.

use std::time::Duration;

use hotl_agent::{
    Agent, Answer, Command, Envelope, Event, Mode, NewSession, Outcome, Policy, Provider, Settings,
    Start,
};
use hotl_fakellm::{Config, FakeLlm, Fault, Reply, Tokenizer};
use hotl_log::{Body, RunState, Store};
use hotl_testkit::TestResult;
use hotl_wire::{Dialect, HttpProvider};
use serde_json::json;

use crate::common::{ends, failure, outcome, turn};

/// A project, a home and a fake provider answering `replies`.
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
            fake: FakeLlm::start(Config::scripted(replies).with_tokenizer(Tokenizer::Bytes4))?,
            runtime: tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?,
            project,
            _dir: dir,
        })
    }

    /// An agent on a new session, asking the fake, under `policy`. Spawned on the setup's
    /// single-threaded runtime: nothing in the agent may block it.
    fn agent(&self, policy: Policy) -> TestResult<Agent> {
        let provider = Provider::Http(HttpProvider::new(
            Dialect::Anthropic,
            &self.fake.base_url(),
            Some("k".into()),
        )?);
        let mut settings = Settings::new("claude-sonnet-5");
        settings.policy = policy;
        let new = NewSession::new(
            &self.store,
            &self.project,
            "claude-sonnet-5",
            hotl_agent::standard_tools(),
        )?;
        let _guard = self.runtime.enter();
        Ok(hotl_agent::spawn(Start::New(new), provider, settings))
    }

    /// The records of the only session.
    fn records(&self) -> TestResult<Vec<hotl_log::Record>> {
        let ids = self.store.session_ids()?;
        assert_eq!(ids.len(), 1, "{ids:?}");
        Ok(self.store.read(&ids[0])?.records)
    }
}

/// Every event until the one that ends a command.
async fn until_done(agent: &mut Agent) -> Vec<Envelope> {
    let mut seen = Vec::new();
    while let Some(envelope) = agent.recv().await {
        let done = ends(&envelope.event);
        seen.push(envelope);
        if done {
            break;
        }
    }
    seen
}

fn bash(command: &str) -> Reply {
    Reply::text("").with_tool("bash", json!({ "command": command }))
}

#[test]
fn an_approval_waits_for_the_front_ends_answer() -> TestResult {
    let s = Setup::new(vec![
        bash("echo one"),
        bash("echo two"),
        bash("echo three"),
        Reply::text("Done."),
    ])?;
    let mut agent = s.agent(Policy {
        interactive: true,
        ..Policy::default()
    })?;
    let results = s.runtime.block_on(async {
        agent.send(Command::Submit {
            text: "run things".into(),
        });
        let mut asked = Vec::new();
        let mut results = Vec::new();
        let answers = [Answer::No, Answer::Always];
        while let Some(envelope) = agent.recv().await {
            if let Some(outcome) = turn(&envelope.event) {
                assert_eq!(outcome.text, "Done.");
                break;
            }
            if let Some(failure) = failure(&envelope.event) {
                panic!("{}", failure.message);
            }
            match envelope.event {
                Event::Approval {
                    id, tool, question, ..
                } => {
                    assert_eq!(tool, "bash");
                    assert!(question.contains("bash runs commands"), "{question}");
                    let answer = answers[asked.len()];
                    asked.push(question);
                    agent.send(Command::Approve {
                        id,
                        answer,
                        reason: None,
                    });
                }
                Event::ToolResult { content, .. } => results.push(content),
                _ => {}
            }
        }
        assert_eq!(asked.len(), 2, "always: the third call is not asked");
        results
    });
    assert!(results[0].starts_with("the user declined"), "{results:?}");
    assert!(results[1].starts_with("two"), "{results:?}");
    assert!(results[2].starts_with("three"), "{results:?}");
    Ok(())
}

#[test]
fn every_call_is_told_moves_included_and_a_bad_argument_names_its_field() -> TestResult {
    let s = Setup::new(vec![
        Reply::text("")
            .with_tool("recall", json!({ "query": 5 }))
            .with_tool("fold", json!({ "since": "t2", "note": [] }))
            .with_tool("ask", json!({ "handle": "ab12", "question": "" }))
            .with_tool("fork", json!({ "task": 7 })),
        Reply::text("").with_tool("recall", json!({ "query": "anything", "mode": "fuzzy" })),
        Reply::text("Done."),
    ])?;
    let mut agent = s.agent(Policy::default())?;
    let events = s.runtime.block_on(async {
        agent.send(Command::Submit { text: "go".into() });
        until_done(&mut agent).await
    });
    assert!(
        matches!(&events[0].event, Event::Init { tools, .. } if tools.iter().any(|t| t == "fold")),
        "{:?}",
        events[0]
    );
    let used: Vec<&str> = events
        .iter()
        .filter_map(|e| match &e.event {
            Event::ToolUse { name, .. } => Some(name.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(used, ["recall", "fold", "ask", "fork", "recall"]);
    let results: Vec<(&str, bool, &str)> = events
        .iter()
        .filter_map(|e| match &e.event {
            Event::ToolResult {
                name,
                is_error,
                content,
                ..
            } => Some((name.as_str(), *is_error, content.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(
        results,
        [
            ("recall", true, "`query` must be a string, got the number 5"),
            ("fold", true, "`note` must be a string, got an array"),
            ("ask", true, "`question` must not be empty"),
            ("fork", true, "`task` must be a string, got the number 7"),
            (
                "recall",
                true,
                "`mode`: unknown recall mode \"fuzzy\"; use ranked, exact or regex"
            ),
        ]
    );
    // The model reads the same errors, and nothing ran: no fold, no fork.
    let records = s.records()?;
    assert!(!records.iter().any(|r| matches!(r.body, Body::Fold(_))));
    assert!(
        s.store
            .tree_children(&s.store.session_ids()?[0])?
            .is_empty()
    );
    assert!(events.last().and_then(|e| turn(&e.event)).is_some());
    Ok(())
}

#[test]
fn a_front_end_that_goes_away_cancels_the_turn_cleanly() -> TestResult {
    let slow = Fault::split_seeded(3, 4).with_chunk_delay_ms(400);
    let s = Setup::new(vec![
        bash("sleep 30"),
        Reply::text("never seen ".repeat(20)).with_fault(slow),
    ])?;
    let mut agent = s.agent(Policy {
        allow: vec!["bash".into()],
        ..Policy::default()
    })?;
    s.runtime.block_on(async {
        agent.send(Command::Submit {
            text: "wait".into(),
        });
        // Gone as soon as the command runs: the call is cancelled though it sends nothing.
        while let Some(envelope) = agent.recv().await {
            if matches!(envelope.event, Event::ToolUse { .. }) {
                break;
            }
        }
        let started = std::time::Instant::now();
        agent.shutdown().await;
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the sleep was cut short"
        );
    });
    let records = s.records()?;
    let last_run = records.iter().rev().find_map(|r| match &r.body {
        Body::Run { state, .. } => Some(state.clone()),
        _ => None,
    });
    assert_eq!(last_run, Some(RunState::Cancelled));
    let answered = records.iter().any(|r| {
        matches!(&r.body, Body::ToolResult { content, is_error: true, .. }
            if content[0].as_text().is_some_and(|t| t.starts_with("cancelled by the user")))
    });
    assert!(answered, "the open call is answered: {records:#?}");
    // And the lock is free: the session can be opened again.
    drop(s.store.writer(&s.store.session_ids()?[0])?);
    Ok(())
}

#[test]
fn a_forks_events_carry_its_handle() -> TestResult {
    let s = Setup::new(vec![
        Reply::text("").with_tool("fork", json!({ "task": "look around" })),
        Reply::text("").with_tool("ls", json!({})),
        Reply::text("child report"),
        Reply::text("Parent done."),
    ])?;
    let mut agent = s.agent(Policy::default())?;
    let events = s.runtime.block_on(async {
        agent.send(Command::Submit {
            text: "fork it".into(),
        });
        until_done(&mut agent).await
    });
    let handle = events
        .iter()
        .find_map(|e| match &e.event {
            Event::ChildStarted {
                handle,
                task,
                agent,
            } => {
                assert_eq!(task, "look around");
                assert_eq!(agent, "fork");
                Some(handle.clone())
            }
            _ => None,
        })
        .ok_or("a child started")?;
    let tagged = |name: &str| {
        events.iter().find_map(|e| match &e.event {
            Event::ToolUse { name: n, .. } if n == name => Some(e.child.clone()),
            _ => None,
        })
    };
    assert_eq!(tagged("fork"), Some(None), "the parent's own call");
    assert_eq!(tagged("ls"), Some(Some(handle.clone())), "the child's call");
    assert!(
        events
            .iter()
            .any(|e| matches!(&e.event, Event::ChildEnded { handle: h, ok: true } if *h == handle))
    );
    Ok(())
}

#[test]
fn a_session_is_written_with_its_first_message_named_and_in_its_mode() -> TestResult {
    let s = Setup::new(vec![Reply::text("Hi.")])?;
    let mut agent = s.agent(Policy::default())?;
    s.runtime.block_on(async {
        for command in [
            Command::Rename { name: "123".into() },
            Command::Rename {
                name: "scratch".into(),
            },
            Command::SetMode { mode: Mode::Plan },
        ] {
            agent.send(command);
        }
        let mut seen = Vec::new();
        while seen.len() < 4 {
            let envelope = agent.recv().await.expect("the agent runs");
            if let Some(failure) = failure(&envelope.event) {
                assert_eq!(failure.command, "rename");
                assert!(
                    failure.message.contains("invalid session name \"123\""),
                    "{}",
                    failure.message
                );
                seen.push("failed");
            }
            match (&envelope.event, outcome(&envelope.event)) {
                (_, Some(Outcome::Renamed { .. })) => seen.push("renamed"),
                (_, Some(Outcome::ModeChanged { .. })) => seen.push("mode"),
                (Event::Init { saved, .. }, _) => {
                    assert!(!saved);
                    seen.push("init");
                }
                _ => {}
            }
        }
        assert_eq!(seen, ["init", "failed", "renamed", "mode"]);
        assert!(
            s.store.session_ids().expect("ids").is_empty(),
            "nothing written yet"
        );
        agent.send(Command::Submit { text: "hi".into() });
        until_done(&mut agent).await;
        agent.shutdown().await;
    });
    let meta = s.store.meta(&s.store.session_ids()?[0])?;
    assert_eq!(meta.name.as_deref(), Some("scratch"));
    assert!(meta.modes.plan, "{:?}", meta.modes);
    Ok(())
}

/// A tool made at run time (as an MCP server's are): its name and schema are data.
struct Echo {
    name: String,
    schema: String,
}

impl hotl_agent::Tool for Echo {
    fn name(&self) -> &str {
        &self.name
    }
    fn kind(&self) -> hotl_agent::ToolKind {
        hotl_agent::ToolKind::Read
    }
    fn definition(&self) -> hotl_wire::ToolDef {
        hotl_wire::ToolDef::new(&self.name, "Says its words back.", &self.schema)
            .expect("a JSON schema")
    }
    fn run<'a>(&'a self, call: hotl_agent::Invocation<'a>) -> hotl_agent::ToolFuture<'a> {
        Box::pin(async move {
            hotl_agent::ToolOutput::from_result(
                call.args
                    .string("words")
                    .map(|w| hotl_agent::ToolOutput::ok(format!("echo: {w}"))),
            )
        })
    }
}

#[test]
fn a_tool_made_at_run_time_is_frozen_with_the_session() -> TestResult {
    let s = Setup::new(vec![
        Reply::text("").with_tool("mcp__fixture__echo", json!({ "words": "hi" })),
        Reply::text("Echoed."),
        Reply::text("").with_tool("mcp__fixture__echo", json!({ "words": "again" })),
        Reply::text("Gone."),
    ])?;
    let echo = Echo {
        name: format!("mcp__{}__echo", "fixture"),
        schema:
            r#"{"type":"object","properties":{"words":{"type":"string"}},"required":["words"]}"#
                .to_owned(),
    };
    let mut tools = hotl_agent::standard_tools();
    tools.add(std::sync::Arc::new(echo))?;
    let new = NewSession::new(&s.store, &s.project, "claude-sonnet-5", tools)?;
    let provider = || -> TestResult<Provider> {
        Ok(Provider::Http(HttpProvider::new(
            Dialect::Anthropic,
            &s.fake.base_url(),
            Some("k".into()),
        )?))
    };
    let results = |agent: &mut Agent| {
        s.runtime.block_on(async {
            let events = until_done(agent).await;
            events
                .into_iter()
                .filter_map(|e| match e.event {
                    Event::ToolResult { content, .. } => Some(content),
                    _ => None,
                })
                .collect::<Vec<_>>()
        })
    };
    let mut agent = {
        let _guard = s.runtime.enter();
        hotl_agent::spawn(
            Start::New(new),
            provider()?,
            Settings::new("claude-sonnet-5"),
        )
    };
    agent.send(Command::Submit {
        text: "echo".into(),
    });
    assert_eq!(results(&mut agent), ["echo: hi"]);
    s.runtime.block_on(agent.shutdown());
    // The model was sent its definition with the others.
    let sent = s.fake.captured();
    assert!(
        sent[0]
            .body_text()
            .contains("\"name\":\"mcp__fixture__echo\"")
    );
    // Resumed without it (the server is gone): the frozen definition stays, its calls fail.
    let id = s.store.session_ids()?[0].clone();
    let session = hotl_agent::Session::open(&s.store, &id, hotl_agent::standard_tools())?;
    let mut agent = {
        let _guard = s.runtime.enter();
        hotl_agent::spawn(
            Start::Open(Box::new(session)),
            provider()?,
            Settings::new("claude-sonnet-5"),
        )
    };
    agent.send(Command::Submit {
        text: "echo again".into(),
    });
    let after = results(&mut agent);
    assert!(
        after[0].starts_with("there is no tool named \"mcp__fixture__echo\""),
        "{after:?}"
    );
    let sent = s.fake.captured();
    let tools_of = |i: usize| -> TestResult<String> {
        let body: serde_json::Value = serde_json::from_slice(&sent[i].body)?;
        Ok(body["tools"].to_string())
    };
    assert_eq!(
        tools_of(0)?,
        tools_of(2)?,
        "the same tool bytes after the resume"
    );
    s.runtime.block_on(agent.shutdown());
    Ok(())
}

#[test]
fn a_childs_approval_reaches_the_front_end_labelled_with_its_handle() -> TestResult {
    let s = Setup::new(vec![
        Reply::text("").with_tool("fork", json!({ "task": "count the files" })),
        bash("echo KID-RAN"),
        Reply::text("kid done"),
        Reply::text("Done."),
    ])?;
    let mut agent = s.agent(Policy {
        interactive: true,
        ..Policy::default()
    })?;
    let (asked_by, results) = s.runtime.block_on(async {
        agent.send(Command::Submit { text: "go".into() });
        let mut asked_by = Vec::new();
        let mut results = Vec::new();
        while let Some(envelope) = agent.recv().await {
            if turn(&envelope.event).is_some() {
                break;
            }
            if let Some(failure) = failure(&envelope.event) {
                panic!("{}", failure.message);
            }
            match envelope.event {
                Event::Approval { id, tool, .. } => {
                    assert_eq!(tool, "bash");
                    asked_by.push(envelope.child.clone());
                    agent.send(Command::Approve {
                        id,
                        answer: Answer::Yes,
                        reason: None,
                    });
                }
                Event::ToolResult { content, .. } => results.push((envelope.child, content)),
                _ => {}
            }
        }
        (asked_by, results)
    });
    assert_eq!(asked_by.len(), 1, "{asked_by:?}");
    let handle = asked_by[0]
        .clone()
        .expect("the child's handle labels its question");
    assert!(
        results
            .iter()
            .any(|(child, content)| child.as_deref() == Some(handle.as_str())
                && content.contains("KID-RAN")),
        "{results:?}"
    );
    Ok(())
}

#[test]
fn a_childs_call_that_needs_an_answer_nobody_can_give_fails_and_the_parent_goes_on() -> TestResult {
    let s = Setup::new(vec![
        Reply::text("").with_tool("fork", json!({ "task": "count the files" })),
        bash("echo KID-RAN"),
        Reply::text("kid could not run it"),
        Reply::text("Done."),
    ])?;
    let mut agent = s.agent(Policy::default())?;
    let events = s.runtime.block_on(async {
        agent.send(Command::Submit { text: "go".into() });
        until_done(&mut agent).await
    });
    let refused = events.iter().find_map(|e| match &e.event {
        Event::ToolResult {
            content, is_error, ..
        } if e.child.is_some() && *is_error => Some(content.clone()),
        _ => None,
    });
    assert!(
        refused
            .as_deref()
            .is_some_and(|c| c.contains("permission denied")),
        "{refused:?}"
    );
    assert!(
        events
            .iter()
            .any(|e| turn(&e.event).is_some_and(|o| o.text == "Done.")),
        "the parent goes on"
    );
    Ok(())
}
