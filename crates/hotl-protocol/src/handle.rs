//! The front end's handle on a running agent: commands go in with an id, envelopes come out.
//! An engine makes one with [`connect`] and runs the other end ([`AgentEnd`]) as a task;
//! front ends hold only the [`Agent`], so they depend on this crate and not on the engine.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::sync::{mpsc, watch};

use crate::command::{Command, CommandId};
use crate::event::{Envelope, Event};

/// A running agent, as a front end holds it: the commands going in, the events coming out.
#[derive(Debug)]
pub struct Agent {
    commands: Option<mpsc::UnboundedSender<(CommandId, Command)>>,
    next_id: AtomicU64,
    events: mpsc::UnboundedReceiver<Envelope>,
    cancel: Arc<watch::Sender<bool>>,
    task: Option<tokio::task::JoinHandle<()>>,
}

/// The engine's end of an [`Agent`]: the commands to run, where events go, and the cancel
/// signal the handle sets.
#[derive(Debug)]
pub struct AgentEnd {
    /// The commands, each with the id the handle gave it.
    pub commands: mpsc::UnboundedReceiver<(CommandId, Command)>,
    /// Where envelopes go.
    pub events: mpsc::UnboundedSender<Envelope>,
    /// Set by [`Agent::cancel`] and [`Canceller::cancel`]; the engine clears it when it
    /// starts a command.
    pub cancel: Arc<watch::Sender<bool>>,
}

/// A new agent handle and the engine's end of it. The engine runs the end as a task and gives
/// the handle that task with [`Agent::with_task`].
pub fn connect() -> (Agent, AgentEnd) {
    let (commands, incoming) = mpsc::unbounded_channel();
    let (events, receiver) = mpsc::unbounded_channel();
    let (cancel, _) = watch::channel(false);
    let cancel = Arc::new(cancel);
    let agent = Agent {
        commands: Some(commands),
        next_id: AtomicU64::new(1),
        events: receiver,
        cancel: Arc::clone(&cancel),
        task: None,
    };
    let end = AgentEnd {
        commands: incoming,
        events,
        cancel,
    };
    (agent, end)
}

/// Cancels what an agent runs, from anywhere (a signal handler, say).
#[derive(Clone, Debug)]
pub struct Canceller(Arc<watch::Sender<bool>>);

impl Canceller {
    /// Cancels what is running now.
    pub fn cancel(&self) {
        self.0.send_replace(true);
    }
}

impl Agent {
    /// This handle, owning the task that runs its engine's end (awaited by [`Agent::join`]
    /// and [`Agent::shutdown`]).
    pub fn with_task(mut self, task: tokio::task::JoinHandle<()>) -> Agent {
        self.task = Some(task);
        self
    }

    /// Queues `command` and gives its id: every event it causes carries the id, and it ends
    /// with exactly one [`Event::Done`]. When the agent is gone (or closed) the command is
    /// dropped and no event ever names its id.
    pub fn send(&self, command: Command) -> CommandId {
        let id = CommandId(self.next_id.fetch_add(1, Ordering::Relaxed));
        if let Some(commands) = &self.commands
            && commands.send((id, command)).is_err()
        {
            tracing::debug!("a command was sent to an agent that is gone");
        }
        id
    }

    /// No more commands: the agent runs what is queued, then ends (and its events with it).
    pub fn close(&mut self) {
        self.commands = None;
    }

    /// The next event; `None` once the agent has ended.
    pub async fn recv(&mut self) -> Option<Envelope> {
        self.events.recv().await
    }

    /// The next event if one is waiting, without waiting for one.
    pub fn try_recv(&mut self) -> Option<Envelope> {
        self.events.try_recv().ok()
    }

    /// Shows events to `each` until command `id` is done, and returns how it ended; `None`
    /// when the agent ended first.
    pub async fn until_done(
        &mut self,
        id: CommandId,
        mut each: impl FnMut(&Envelope),
    ) -> Option<crate::Done> {
        while let Some(envelope) = self.recv().await {
            if envelope.command == Some(id)
                && let Event::Done(done) = envelope.event
            {
                return Some(done);
            }
            each(&envelope);
        }
        None
    }

    /// Cancels what is running now (the same as [`Command::Cancel`], without queueing).
    pub fn cancel(&self) {
        self.cancel.send_replace(true);
    }

    /// A handle that cancels what this agent runs.
    pub fn canceller(&self) -> Canceller {
        Canceller(Arc::clone(&self.cancel))
    }

    /// Waits for the agent to end once the queue is done (no more commands are taken); the
    /// events still to come are dropped.
    pub async fn join(mut self) {
        self.commands = None;
        // Keep reading, so the agent's last events find their receiver.
        while self.events.recv().await.is_some() {}
        if let Some(task) = self.task.take()
            && let Err(e) = task.await
        {
            tracing::error!("the agent task failed: {e}");
        }
    }

    /// Stops the agent as a front end that goes away does, and waits until it has: what runs
    /// is cancelled (a turn answers its open calls and closes its run as cancelled, so the log
    /// stays valid and resumable) and nothing queued runs. Dropping the agent does the same
    /// without waiting, while the runtime lives.
    pub async fn shutdown(self) {
        let Agent {
            commands,
            events,
            task,
            ..
        } = self;
        drop((commands, events));
        if let Some(task) = task
            && let Err(e) = task.await
        {
            tracing::error!("the agent task failed: {e}");
        }
    }
}
