//! Session operations through the protocol: a switch to a new, resumed or forked session is
//! all or nothing and a `before_switch` hook can cancel it; clear, fresh and drop record what
//! they say; none of them waits behind a running turn; a session held only in memory is
//! never resumed or forked.

use std::time::Duration;

use hotl_agent::{
    Agent, Command, Envelope, Event, ForkAt, Hook, HookPoint, NewSession, Outcome, Policy,
    Provider, Settings, Start, SwitchReason, SwitchTo,
};
use hotl_fakellm::{Config, Endpoint, FakeLlm, Reply, Tokenizer};
use hotl_log::{Body, Store};
use hotl_testkit::TestResult;
use hotl_wire::{Dialect, HttpProvider};
use serde_json::json;

use crate::common::{failure, outcome, turn};

const MODEL: &str = "claude-sonnet-5";

struct Setup {
    dir: tempfile::TempDir,
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
            dir,
        })
    }

    fn agent_with(&self, dialect: Dialect, settings: Settings) -> TestResult<Agent> {
        let provider = Provider::Http(HttpProvider::new(
            dialect,
            &self.fake.base_url(),
            Some("k".into()),
        )?);
        let new = NewSession::new(
            &self.store,
            &self.project,
            MODEL,
            hotl_agent::standard_tools(),
        )?;
        let _guard = self.runtime.enter();
        Ok(hotl_agent::spawn(Start::New(new), provider, settings))
    }

    fn agent(&self, settings: Settings) -> TestResult<Agent> {
        self.agent_with(Dialect::Anthropic, settings)
    }

    /// The JSON bodies of the generation requests, in order.
    fn requests(&self) -> Vec<serde_json::Value> {
        self.fake
            .captured()
            .iter()
            .filter(|c| {
                matches!(
                    c.endpoint,
                    Endpoint::Messages | Endpoint::ChatCompletions | Endpoint::Responses
                )
            })
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

/// Waits for the agent's first event.
async fn init(agent: &mut Agent) {
    while let Some(Envelope { event, .. }) = agent.recv().await {
        if matches!(event, Event::Init { .. }) {
            break;
        }
    }
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

/// The session the agent is on, as its status says.
async fn on(agent: &mut Agent) -> String {
    match run(agent, Command::Status).await.last().and_then(outcome) {
        Some(Outcome::Status(status)) => status.session_id.clone(),
        _ => String::new(),
    }
}

fn say(text: &str) -> Command {
    Command::Submit { text: text.into() }
}

fn switched(events: &[Event]) -> Option<(SwitchReason, String, String, bool)> {
    events.iter().find_map(|e| match e {
        Event::Switch {
            reason,
            from,
            to,
            saved,
            ..
        } => Some((*reason, from.clone(), to.clone(), *saved)),
        _ => None,
    })
}

fn failed_with(events: &[Event]) -> Option<String> {
    events
        .iter()
        .find_map(|e| failure(e).map(|f| f.message.clone()))
}

#[test]
fn new_resume_and_fork_switch_and_a_failed_switch_changes_nothing() -> TestResult {
    let s = Setup::new(vec![
        Reply::text("one done"),
        Reply::text("two done"),
        Reply::text("back in one"),
        Reply::text("still in one"),
        Reply::text("in the fork"),
    ])?;
    let mut agent = s.agent(settings())?;
    s.runtime.block_on(async {
        init(&mut agent).await;
        run(&mut agent, say("first session")).await;
        let first = on(&mut agent).await;

        // New: nothing is written until its first message.
        let events = run(&mut agent, Command::Switch(SwitchTo::New)).await;
        assert!(
            matches!(events.first(), Some(Event::BeforeSwitch { reason: SwitchReason::New, from, .. }) if *from == first),
            "{events:?}"
        );
        let (reason, from, second, saved) = switched(&events).expect("a switch");
        assert_eq!((reason, from.as_str(), saved), (SwitchReason::New, first.as_str(), false));
        assert_eq!(s.store.session_ids()?.len(), 1, "a switch writes nothing");
        run(&mut agent, say("second session")).await;
        assert_eq!(s.store.session_ids()?.len(), 2);

        // Resume: the other session's history goes with the next request.
        let events = run(
            &mut agent,
            Command::Switch(SwitchTo::Resume {
                session: first.clone(),
                reroot: None,
            }),
        )
        .await;
        assert_eq!(
            switched(&events),
            Some((SwitchReason::Resume, second.clone(), first.clone(), true))
        );
        run(&mut agent, say("again")).await;
        let sent = s.requests();
        let last = sent.last().expect("a request").to_string();
        assert!(last.contains("first session") && !last.contains("second session"), "{last}");

        // A session another process holds: refused, and the agent stays where it was.
        let held = s.store.writer(&second)?;
        let events = run(
            &mut agent,
            Command::Switch(SwitchTo::Resume {
                session: second.clone(),
                reroot: None,
            }),
        )
        .await;
        let why = failed_with(&events).expect("refused");
        assert!(why.contains(&second[..8]) || why.contains("lock"), "{why}");
        assert_eq!(on(&mut agent).await, first);
        run(&mut agent, say("still here")).await;
        drop(held);
        let already = run(
            &mut agent,
            Command::Switch(SwitchTo::Resume {
                session: first.clone(),
                reroot: None,
            }),
        )
        .await;
        assert!(failed_with(&already).is_some_and(|w| w.contains("already in session")));

        // Fork: a new session pinned to this one, switched to.
        let events = run(&mut agent, Command::Switch(SwitchTo::Fork {
            at: ForkAt::Head,
            worktree: false,
        })).await;
        let (reason, from, fork, saved) = switched(&events).expect("a fork");
        assert_eq!((reason, from.as_str(), saved), (SwitchReason::Fork, first.as_str(), true));
        let start = s.store.read_start(&fork)?;
        assert_eq!(start.parent.map(|p| p.session), Some(first.clone()));
        run(&mut agent, say("forked")).await;
        let last = s.requests().last().expect("a request").to_string();
        assert!(last.contains("first session") && last.contains("forked"), "{last}");
        TestResult::Ok(())
    })?;
    Ok(())
}

#[test]
fn a_before_switch_hook_cancels_and_a_switch_hook_is_told() -> TestResult {
    let s = Setup::new(vec![Reply::text("ok"), Reply::text("ok")])?;
    let told = s.dir.path().join("switched.json");
    let mut with_hooks = settings();
    let veto = s.dir.path().join("veto");
    with_hooks.hooks = vec![
        Hook {
            point: HookPoint::BeforeSwitch,
            command: format!(
                "[ ! -e {} ] || {{ echo not while the build runs >&2; exit 1; }}",
                veto.display()
            ),
            timeout: Duration::from_secs(5),
            matcher: None,
        },
        Hook {
            point: HookPoint::Switch,
            command: format!("cat > {}", told.display()),
            timeout: Duration::from_secs(5),
            matcher: None,
        },
    ]
    .into();
    let mut agent = s.agent(with_hooks)?;
    s.runtime.block_on(async {
        init(&mut agent).await;
        run(&mut agent, say("hello")).await;
        let first = on(&mut agent).await;
        std::fs::write(&veto, "")?;
        let events = run(&mut agent, Command::Switch(SwitchTo::New)).await;
        let why = failed_with(&events).expect("cancelled");
        assert!(why.contains("not while the build runs"), "{why}");
        assert!(switched(&events).is_none());
        assert_eq!(on(&mut agent).await, first);
        assert!(!told.exists(), "no switch happened");

        std::fs::remove_file(&veto)?;
        let events = run(&mut agent, Command::Switch(SwitchTo::New)).await;
        let (_, _, second, _) = switched(&events).expect("a switch");
        // The switch hooks have run by the status that ends the switch.
        assert_eq!(on(&mut agent).await, second);
        let event: serde_json::Value = serde_json::from_slice(&std::fs::read(&told)?)?;
        assert_eq!(event["event"], "switch");
        assert_eq!(event["reason"], "new");
        assert_eq!(event["from"], first.as_str());
        assert_eq!(event["to"], second.as_str());
        TestResult::Ok(())
    })?;
    Ok(())
}

#[test]
fn session_operations_are_refused_while_a_turn_runs() -> TestResult {
    let s = Setup::new(vec![
        Reply::text("").with_tool("bash", json!({"command": "sleep 1"})),
        Reply::text("slept"),
    ])?;
    let mut agent = s.agent(settings())?;
    s.runtime.block_on(async {
        init(&mut agent).await;
        agent.send(say("sleep a little"));
        let mut refused = Vec::new();
        let mut sent_ops = false;
        while let Some(Envelope { event, .. }) = agent.recv().await {
            match event {
                Event::ToolUse { .. } if !sent_ops => {
                    sent_ops = true;
                    for op in [
                        Command::Switch(SwitchTo::New),
                        Command::Clear,
                        Command::Fresh,
                        Command::Drop,
                    ] {
                        agent.send(op);
                    }
                }
                event => {
                    if let Some(failure) = failure(&event) {
                        assert!(failure.message.contains("a turn is running"), "{failure:?}");
                        refused.push(failure.command.clone());
                    }
                    if let Some(outcome) = turn(&event) {
                        assert_eq!(outcome.text, "slept");
                        break;
                    }
                }
            }
        }
        assert_eq!(refused, ["switch", "clear", "fresh", "drop"]);
        TestResult::Ok(())
    })?;
    let records = s.store.read(&s.store.session_ids()?[0])?.records;
    assert!(
        !records
            .iter()
            .any(|r| matches!(r.body, Body::Clear | Body::Fresh { .. })),
        "nothing was recorded"
    );
    Ok(())
}

#[test]
fn clear_and_fresh_record_what_they_say() -> TestResult {
    let s = Setup::new(vec![
        Reply::text("one"),
        Reply::text("two"),
        Reply::text("three"),
    ])?;
    let mut agent = s.agent_with(Dialect::OpenAiChat, settings())?;
    let (id, key) = s.runtime.block_on(async {
        init(&mut agent).await;
        let before = run(&mut agent, Command::Clear).await;
        assert!(
            failed_with(&before).is_some_and(|w| w.contains("nothing to clear yet")),
            "{before:?}"
        );
        run(&mut agent, say("remember the blue door")).await;
        let id = on(&mut agent).await;
        let events = run(&mut agent, Command::Fresh).await;
        let Some(Outcome::Fresh {
            cache_key, routed, ..
        }) = events.last().and_then(outcome).cloned()
        else {
            panic!("{events:?}");
        };
        assert!(routed, "Chat Completions routes by prompt_cache_key");
        assert_ne!(cache_key, id);
        run(&mut agent, say("and now?")).await;
        let sent = s.requests();
        let last = sent.last().expect("a request");
        assert_eq!(last["prompt_cache_key"], cache_key.as_str());
        assert!(
            last.to_string().contains("blue door"),
            "fresh keeps the view"
        );
        let events = run(&mut agent, Command::Clear).await;
        assert!(
            matches!(
                events.last().and_then(outcome),
                Some(Outcome::Cleared { .. })
            ),
            "{events:?}"
        );
        run(&mut agent, say("what door?")).await;
        let last = s.requests().last().expect("a request").to_string();
        assert!(
            !last.contains("blue door"),
            "clear drops it from the view: {last}"
        );
        agent.shutdown().await;
        TestResult::Ok((id, cache_key))
    })?;
    // The key holds after a resume.
    let session = hotl_agent::Session::open(&s.store, &id, hotl_agent::standard_tools())?;
    assert_eq!(session.cache_key(), key);
    Ok(())
}

#[test]
fn drop_deletes_or_keeps_for_descendants_and_moves_to_a_new_session() -> TestResult {
    let s = Setup::new(vec![Reply::text("one"), Reply::text("two")])?;
    let mut agent = s.agent(settings())?;
    s.runtime.block_on(async {
        init(&mut agent).await;
        run(&mut agent, say("to be forked")).await;
        let parent = on(&mut agent).await;
        let events = run(&mut agent, Command::Switch(SwitchTo::Fork {
            at: ForkAt::Head,
            worktree: false,
        })).await;
        let (_, _, fork, _) = switched(&events).expect("forked");
        // Back to the parent, and drop it: the fork descends from it, so it is kept.
        run(
            &mut agent,
            Command::Switch(SwitchTo::Resume {
                session: parent.clone(),
                reroot: None,
            }),
        )
        .await;
        let events = run(&mut agent, Command::Drop).await;
        assert!(
            events.iter().any(|e| matches!(outcome(e), Some(Outcome::Dropped { session_id, kept_for }) if *session_id == parent && *kept_for == [fork.clone()])),
            "{events:?}"
        );
        let (reason, from, _, saved) = switched(&events).expect("a new session");
        assert_eq!((reason, from.as_str(), saved), (SwitchReason::New, parent.as_str(), false));
        assert!(s.store.meta(&parent)?.dropped);
        // The fork has no descendant: dropping it deletes it.
        run(&mut agent, Command::Switch(SwitchTo::Resume { session: fork.clone(), reroot: None })).await;
        let events = run(&mut agent, Command::Drop).await;
        assert!(
            events.iter().any(|e| matches!(outcome(e), Some(Outcome::Dropped { kept_for, .. }) if kept_for.is_empty())),
            "{events:?}"
        );
        assert!(!s.store.exists(&fork));
        TestResult::Ok(())
    })?;
    Ok(())
}

#[test]
fn a_session_in_memory_is_never_resumed_or_forked() -> TestResult {
    let s = Setup::new(vec![Reply::text("one")])?;
    let mut ephemeral = settings();
    ephemeral.ephemeral = true;
    let mut agent = s.agent(ephemeral)?;
    s.runtime.block_on(async {
        init(&mut agent).await;
        run(&mut agent, say("hi")).await;
        let id = on(&mut agent).await;
        for to in [
            SwitchTo::Fork {
                at: ForkAt::Head,
                worktree: false,
            },
            SwitchTo::Resume {
                session: id.clone(),
                reroot: None,
            },
        ] {
            let events = run(&mut agent, Command::Switch(to)).await;
            let why = failed_with(&events).expect("refused");
            assert!(why.contains("needs a saved session"), "{why}");
        }
        let events = run(&mut agent, Command::Switch(SwitchTo::New)).await;
        assert!(switched(&events).is_some());
        TestResult::Ok(())
    })?;
    Ok(())
}
