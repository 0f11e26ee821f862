//! Delegation and cancellation at the protocol level, with no timing in the tests: a child's
//! reply is held at a gate the test opens, and the test waits for the events that say where
//! the work is (the child's stream began, the turn ended) instead of sleeping.

use hotl_agent::{Agent, Command, Envelope, Event, NewSession, Outcome, Provider, Settings, Start};
use hotl_fakellm::{Config, FakeLlm, Fault, Gate, Reply, Tokenizer};
use hotl_log::{Body, RunState, Store};
use hotl_testkit::TestResult;
use hotl_wire::{Dialect, HttpProvider};
use serde_json::json;

use crate::common::turn;

/// A project, a home, a fake answering `replies`, and an agent on a new session that can
/// fork and spawn.
struct Held {
    _dir: tempfile::TempDir,
    store: Store,
    _fake: FakeLlm,
    runtime: tokio::runtime::Runtime,
    agent: Option<Agent>,
}

impl Held {
    fn new(replies: Vec<Reply>) -> TestResult<Held> {
        let dir = tempfile::tempdir()?;
        let project = dir.path().join("project");
        std::fs::create_dir_all(&project)?;
        let store = Store::new(dir.path().join("home"));
        let fake = FakeLlm::start(Config::scripted(replies).with_tokenizer(Tokenizer::Bytes4))?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let provider = Provider::Http(HttpProvider::new(
            Dialect::Anthropic,
            &fake.base_url(),
            Some("k".into()),
        )?);
        let tools =
            hotl_agent::with_agents(hotl_agent::standard_tools(), hotl_agent::agents::builtins());
        let new = NewSession::new(&store, &project, "claude-sonnet-5", tools)?;
        let agent = {
            let _guard = runtime.enter();
            hotl_agent::spawn(Start::New(new), provider, Settings::new("claude-sonnet-5"))
        };
        Ok(Held {
            _dir: dir,
            store,
            _fake: fake,
            runtime,
            agent: Some(agent),
        })
    }

    fn agent(&mut self) -> &mut Agent {
        self.agent.as_mut().expect("the agent runs")
    }

    /// Events until one `stop` accepts (returned).
    fn until(&mut self, stop: impl Fn(&Envelope) -> bool) -> Envelope {
        let Held { runtime, agent, .. } = self;
        let agent = agent.as_mut().expect("the agent runs");
        runtime.block_on(async {
            loop {
                let envelope = agent.recv().await.expect("the agent runs");
                if stop(&envelope) {
                    return envelope;
                }
            }
        })
    }

    /// The records of the session and of its tree's children, root first.
    fn logs(&self) -> TestResult<Vec<Vec<hotl_log::Record>>> {
        let root = self.store.session_ids()?[0].clone();
        let mut logs = vec![self.store.read(&root)?.records];
        for child in self.store.tree_children(&root)? {
            logs.push(self.store.read(&child)?.records);
        }
        Ok(logs)
    }
}

fn last_run(records: &[hotl_log::Record]) -> Option<RunState> {
    records.iter().rev().find_map(|r| match &r.body {
        Body::Run { state, .. } => Some(state.clone()),
        _ => None,
    })
}

#[test]
fn cancelling_while_a_fork_child_answers_stops_it_and_records_both_runs_cancelled() -> TestResult {
    let gate = Gate::new();
    let mut held = Held::new(vec![
        Reply::text("")
            .with_tool("fork", json!({ "task": "HELD-KID look around" }))
            .matching("go"),
        Reply::text("never finished")
            .with_fault(Fault::held(&gate))
            .matching("HELD-KID"),
    ])?;
    let id = held.agent().send(Command::Submit { text: "go".into() });
    // The child's answer has begun (its first event) and waits at the gate.
    held.until(|e| e.child.is_some() && matches!(e.event, Event::Model { .. }));
    held.agent().send(Command::Cancel);
    let done = held.until(|e| e.command == Some(id) && matches!(e.event, Event::Done(_)));
    let turn = turn(&done.event).ok_or("the turn ends")?;
    assert!(turn.cancelled, "{turn:?}");
    gate.release();
    let logs = held.logs()?;
    assert_eq!(logs.len(), 2, "the parent and its fork");
    assert_eq!(last_run(&logs[0]), Some(RunState::Cancelled));
    assert_eq!(
        last_run(&logs[1]),
        Some(RunState::Cancelled),
        "the child closed its own run"
    );
    Ok(())
}

#[test]
fn a_background_child_that_ends_while_the_session_is_idle_is_recorded_at_once() -> TestResult {
    let gate = Gate::new();
    let mut held = Held::new(vec![
        Reply::text("")
            .with_tool(
                "spawn",
                json!({ "agent": "explore", "task": "BG-KID read", "background": true }),
            )
            .matching("start"),
        Reply::text("the kid's report")
            .with_fault(Fault::held(&gate))
            .matching("BG-KID"),
        Reply::text("Started it.").matching("started in the background"),
    ])?;
    let id = held.agent().send(Command::Submit {
        text: "start".into(),
    });
    let done = held.until(|e| e.command == Some(id) && matches!(e.event, Event::Done(_)));
    assert_eq!(
        turn(&done.event).map(|t| t.text.as_str()),
        Some("Started it.")
    );
    // The parent is idle; the child's answer waits at the gate. Released, its end is recorded
    // without a command: the agent says so between commands.
    gate.release();
    let told = held.until(|e| {
        e.command.is_none()
            && matches!(&e.event, Event::Notice { message } if message.contains("background child"))
    });
    assert!(told.child.is_none());
    let logs = held.logs()?;
    assert!(
        logs[0]
            .iter()
            .any(|r| matches!(&r.body, Body::ChildFinished { .. })),
        "the parent's log has the child's end"
    );
    // The next command sees it: the status is the session's.
    let status = held.agent().send(Command::Status);
    let done = held.until(|e| e.command == Some(status) && matches!(e.event, Event::Done(_)));
    assert!(matches!(
        done.event,
        Event::Done(ref d) if matches!(d.result, Ok(Outcome::Status(_)))
    ));
    Ok(())
}
