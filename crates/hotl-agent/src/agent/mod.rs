//! The agent as a task: it owns one session, takes the protocol's [`Command`]s and sends
//! [`Envelope`](hotl_protocol::Envelope)s, so every front end (the terminal UI, the line
//! console, headless `-p`, stream-json, an editor over ACP) drives the same thing through an
//! [`Agent`] handle and none of them holds the session while a turn runs.
//!
//! Commands run one at a time, in order. While one runs, the agent still reads its command
//! channel: `Cancel` and `Approve` act at once, a command that must not wait behind running
//! work is refused at once, anything else waits its turn. Every command ends with exactly one
//! [`Event::Done`] carrying its id.
//!
//! ```no_run
//! # async fn run(store: hotl_log::Store) -> hotl_agent::Result<()> {
//! use hotl_agent::{Command, NewSession, Outcome, Provider, Settings, Start, ToolSet, spawn};
//!
//! let new = NewSession::new(&store, "/my/project", "demo", hotl_agent::standard_tools())?;
//! let mut agent = spawn(Start::New(new), Provider::Demo, Settings::new("demo"));
//! let id = agent.send(Command::Submit { text: "list the files".into() });
//! if let Some(done) = agent.until_done(id, |_| {}).await
//!     && let Ok(Outcome::TurnEnded(outcome)) = done.result
//! {
//!     println!("{}", outcome.text);
//! }
//! # Ok(()) }
//! ```

use std::collections::VecDeque;
use std::sync::Arc;

use hotl_protocol::{Agent, AgentEnd, Command, CommandId, Done, Event, Failure, Outcome};
use tokio::sync::{mpsc, watch};

mod commands;
mod switch;
mod worker;

use self::worker::Worker;
use crate::context::{Approvals, Context};
use crate::events::Events;
use crate::late::Late;
use crate::lifecycle::NewSession;
use crate::provider::Provider;
use crate::session::{Session, Settings};

/// What an agent starts with.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)] // made once per agent: boxing would only cost callers
pub enum Start {
    /// A session not written yet: its log appears with the first message.
    New(NewSession),
    /// A session already open for writing (resumed or forked).
    Open(Box<Session>),
}

/// Starts an agent as a task on the current runtime and gives its handle. Its first event is
/// [`Event::Init`].
pub fn spawn(start: Start, provider: Provider, settings: Settings) -> Agent {
    spawn_with_late(start, provider, settings, None)
}

/// [`spawn`], with tools still to come from `late` (an MCP server's, started after the front
/// end's first frame): taken as they come, and waited for before anything asks the model or
/// writes a session.
pub fn spawn_with_late(
    start: Start,
    provider: Provider,
    settings: Settings,
    late: Option<Late>,
) -> Agent {
    let (agent, end) = hotl_protocol::connect();
    let AgentEnd {
        commands,
        events,
        cancel,
    } = end;
    let approvals = Approvals::default();
    let events = Events::to(events).cancelling(Arc::clone(&cancel));
    let cx = Context::new(provider, settings)
        .with_events(events)
        .with_cancel(cancel.subscribe())
        .with_approvals(approvals.clone());
    let worker = Worker::new(start, late, cx);
    let task = tokio::spawn(drive(worker, commands, cancel, approvals));
    agent.with_task(task)
}

/// The control loop: commands one at a time; `Cancel` and `Approve` at once; between
/// commands, what arrives on its own (late tools, background children's ends, a title).
async fn drive(
    mut worker: Worker,
    mut commands: mpsc::UnboundedReceiver<(CommandId, Command)>,
    cancel: Arc<watch::Sender<bool>>,
    approvals: Approvals,
) {
    worker.init();
    worker.session_start_hooks().await;
    let mut queue: VecDeque<(CommandId, Command)> = VecDeque::new();
    let mut open = true;
    // Whoever receives the events: once gone, the work in progress stops at once (not only
    // at its next event: a long tool call sends none).
    let listener = worker.events().clone();
    loop {
        let (id, command) = match queue.pop_front() {
            Some(next) => next,
            None if open => match worker.idle(&mut commands).await {
                Some(next) => next,
                None => break,
            },
            None => break,
        };
        if command.is_immediate() {
            act_at_once(worker.events(), None, &approvals, id, command);
            continue;
        }
        cancel.send_replace(false);
        let running = worker.run(id, command);
        tokio::pin!(running);
        let mut heard = true;
        loop {
            tokio::select! {
                biased;
                () = &mut running => break,
                () = listener.closed(), if heard => {
                    heard = false;
                    cancel.send_replace(true);
                }
                next = commands.recv(), if open => match next {
                    None => open = false,
                    Some((id, command)) if command.is_immediate() => {
                        act_at_once(&listener, Some(&cancel), &approvals, id, command);
                    }
                    Some((id, other)) if other.needs_idle() => {
                        listener.for_command(Some(id)).send(Event::Done(Done::failed(
                            Failure::busy(other.name()),
                        )));
                    }
                    Some(next) => queue.push_back(next),
                },
            }
        }
        if listener.is_closed() {
            // Nobody listens: what is queued is not run.
            break;
        }
    }
    worker.finish().await;
}

/// Cancels what runs (`running`: nothing to cancel when idle) or answers a question, at
/// once, and says the command was taken.
fn act_at_once(
    events: &Events,
    running: Option<&watch::Sender<bool>>,
    approvals: &Approvals,
    id: CommandId,
    command: Command,
) {
    match &command {
        Command::Cancel => {
            if let Some(cancel) = running {
                cancel.send_replace(true);
            }
        }
        Command::Approve { id, answer, reason } => {
            approvals.answer(*id, *answer, reason.clone());
        }
        _ => {}
    }
    events
        .for_command(Some(id))
        .send(Event::Done(Done::ok(Outcome::Accepted {
            command: command.name().to_owned(),
        })));
}
