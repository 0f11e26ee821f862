//! The agent as a task: it owns one session, takes [`Command`]s and sends
//! [`Envelope`](crate::Envelope)s, so every front end (the line console, headless `-p`,
//! stream-json, an editor over a protocol) drives the same thing and none of them holds the
//! session while a turn runs.
//!
//! Commands run one at a time, in order. While one runs, the agent still reads its command
//! channel: `Cancel` and `Approve` act at once, anything else waits its turn. Each command
//! that does work ends with exactly one event saying how: `turn_ended`, `recovered`,
//! `move_ended`, `renamed`, `mode_changed`, `status`, or `failed` / `cancelled`.
//!
//! ```no_run
//! # async fn run(store: hotl_log::Store) -> hotl_agent::Result<()> {
//! use hotl_agent::{Agent, Command, Event, NewSession, Provider, Settings, Start, ToolSet};
//!
//! let new = NewSession::new(&store, "/my/project", "demo", ToolSet::standard())?;
//! let mut agent = Agent::spawn(Start::New(new), Provider::Demo, Settings::new("demo"));
//! agent.send(Command::Submit { text: "list the files".into() });
//! agent.close();
//! while let Some(envelope) = agent.recv().await {
//!     if let Event::TurnEnded(outcome) = envelope.event {
//!         println!("{}", outcome.text);
//!     }
//! }
//! # Ok(()) }
//! ```

use std::collections::VecDeque;
use std::sync::Arc;

use tokio::sync::{mpsc, watch};

mod switch;

use crate::context::{Answer, Approvals, Context};
use crate::error::{AgentError, Result};
use crate::events::{Envelope, Event, Events, MoveResult, Status};
use crate::late::{Late, LateTools};
use crate::lifecycle::{ForkAt, NewSession};
use crate::permission::Mode;
use crate::provider::Provider;
use crate::session::{Session, Settings, Totals, TurnOutcome};

/// What an agent starts with.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)] // made once per agent: boxing would only cost callers
pub enum Start {
    /// A session not written yet: its log appears with the first message.
    New(NewSession),
    /// A session already open for writing (resumed or forked).
    Open(Box<Session>),
}

/// What a front end asks of an agent.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Command {
    /// Run a turn on this message.
    Submit {
        /// The message.
        text: String,
    },
    /// Finish a turn a dead process left open, if there is one.
    Recover,
    /// Stop what is running (acted on at once; nothing when idle).
    Cancel,
    /// Answer an approval question (acted on at once).
    Approve {
        /// The question's id, from [`Event::Approval`].
        id: u64,
        /// The answer.
        answer: Answer,
    },
    /// Run a move on the session's own context.
    Move(Move),
    /// Name the session.
    Rename {
        /// The name.
        name: String,
    },
    /// Change the permission mode (recorded, so resumes and forks keep it).
    SetMode {
        /// The mode.
        mode: Mode,
    },
    /// Send a [`Event::Status`].
    Status,
    /// Send an [`Event::Context`]: what the context is made of.
    Context,
    /// Send an [`Event::Stats`]: what the session spent, per turn and in total.
    Stats,
    /// Send an [`Event::Dump`]: the session as the model sees it, and its next body.
    Dump,
    /// Send an [`Event::Models`]: the models the provider lists.
    Models,
    /// Ask with reasoning effort `low`, `medium` or `high` from now on (recorded, so resumes
    /// and forks keep it).
    SetEffort {
        /// The level.
        effort: String,
    },
    /// Answer with `model` from the next request on (the session's records name the model of
    /// each answer, so a resume says when it changes).
    SetModel {
        /// The model.
        model: String,
    },
    /// Switch to another session: all or nothing (anything that fails leaves the agent on
    /// the session it was on), cancellable by a `before_switch` hook. Refused while work runs.
    Switch(SwitchTo),
    /// Record a `clear`: the model sees nothing before it. Refused while work runs.
    Clear,
    /// Record a `fresh`: a new prompt-cache key, and this process's provider state dropped.
    /// Refused while work runs.
    Fresh,
    /// Revert to just before user message `t<seq>`: it and every later turn leave the
    /// visible branch (the log keeps them). Refused while work runs.
    Revert {
        /// The user message's seq.
        before: u64,
    },
    /// Drop the session as `hotl sessions drop` does (deleted, or hidden and kept for the
    /// sessions that descend from it) and switch to a new one. Refused while work runs.
    Drop,
}

impl Command {
    /// The command's name, as [`Event::Failed`] gives it.
    pub fn name(&self) -> &'static str {
        match self {
            Command::Submit { .. } => "submit",
            Command::Recover => "recover",
            Command::Cancel => "cancel",
            Command::Approve { .. } => "approve",
            Command::Move(step) => step.name(),
            Command::Rename { .. } => "rename",
            Command::SetMode { .. } => "mode",
            Command::Status => "status",
            Command::Context => "context",
            Command::Stats => "stats",
            Command::Dump => "dump",
            Command::Models => "models",
            Command::SetEffort { .. } => "effort",
            Command::SetModel { .. } => "model",
            Command::Switch(_) => "switch",
            Command::Clear => "clear",
            Command::Fresh => "fresh",
            Command::Drop => "drop",
            Command::Revert { .. } => "revert",
        }
    }

    /// Whether it changes which session, or what the model sees of it, so that it must not
    /// wait behind running work: it is refused then.
    fn needs_idle(&self) -> bool {
        matches!(
            self,
            Command::Switch(_)
                | Command::Clear
                | Command::Fresh
                | Command::Drop
                | Command::Revert { .. }
        )
    }
}

/// The session a [`Command::Switch`] goes to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SwitchTo {
    /// A new, empty session in the same directory (written with its first message).
    New,
    /// An existing session, by id.
    Resume {
        /// Its id.
        session: String,
        /// Move it here first (its recorded directory is gone): a `reroot` record, written
        /// only once it is open.
        reroot: Option<std::path::PathBuf>,
    },
    /// A fork of the current session, cut at `at`.
    Fork {
        /// Where the fork ends its inherited history.
        at: ForkAt,
    },
}

/// A move a person runs (the model runs the same ones as tools).
#[derive(Clone, Debug, PartialEq)]
pub enum Move {
    /// Fold the span from `since` (default: the current episode) to the head into `note`
    /// (default: one the model writes).
    Fold {
        /// The stamp the span starts at.
        since: Option<u64>,
        /// A person's note, checked against the template.
        note: Option<String>,
    },
    /// Compact everything the model sees into `note` (default: one the model writes).
    Compact {
        /// A person's note.
        note: Option<String>,
    },
    /// Search the archive (no model call).
    Recall {
        /// What to look for.
        query: String,
        /// `ranked` (default), `exact` or `regex`.
        mode: Option<String>,
        /// At most this many hits.
        limit: usize,
    },
    /// Put one question to an archived thread.
    Ask {
        /// The thread's handle (a unique prefix does).
        handle: String,
        /// The question.
        question: String,
    },
}

impl Move {
    /// The move's name, as commands and events name it.
    pub fn name(&self) -> &'static str {
        match self {
            Move::Fold { .. } => "fold",
            Move::Compact { .. } => "compact",
            Move::Recall { .. } => "recall",
            Move::Ask { .. } => "ask",
        }
    }
}

/// A running agent: the commands going in, the events coming out.
#[derive(Debug)]
pub struct Agent {
    commands: Option<mpsc::UnboundedSender<Command>>,
    events: mpsc::UnboundedReceiver<Envelope>,
    cancel: Arc<watch::Sender<bool>>,
    task: tokio::task::JoinHandle<()>,
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
    /// Starts the agent as a task on the current runtime. Its first event is
    /// [`Event::Init`].
    pub fn spawn(start: Start, provider: Provider, settings: Settings) -> Agent {
        Agent::spawn_with_late(start, provider, settings, None)
    }

    /// [`Agent::spawn`], with tools still to come from `late` (an MCP server's, started
    /// after the front end's first frame): taken as they come, and waited for before
    /// anything asks the model or writes a session.
    pub fn spawn_with_late(
        start: Start,
        provider: Provider,
        settings: Settings,
        late: Option<Late>,
    ) -> Agent {
        let (cancel, watching) = watch::channel(false);
        let cancel = Arc::new(cancel);
        let (events, receiver) = Events::channel();
        let events = events.cancelling(Arc::clone(&cancel));
        let (commands, incoming) = mpsc::unbounded_channel();
        let approvals = Approvals::default();
        let (store, tools, session, pending) = match start {
            Start::New(new) => (new.store().clone(), new.tools().clone(), None, Some(new)),
            Start::Open(s) => (s.store().clone(), s.tools().clone(), Some(*s), None),
        };
        let instructions = pending
            .as_ref()
            .map(|n: &NewSession| n.instructions().to_vec())
            .unwrap_or_default();
        let worker = Worker {
            store,
            tools,
            instructions,
            late,
            late_failed: None,
            session,
            pending,
            cx: Context::new(provider, settings)
                .with_events(events)
                .with_cancel(watching)
                .with_approvals(approvals.clone()),
        };
        let task = tokio::spawn(drive(worker, incoming, Arc::clone(&cancel), approvals));
        Agent {
            commands: Some(commands),
            events: receiver,
            cancel,
            task,
        }
    }

    /// Queues `command`; `false` when the agent is gone (or closed).
    pub fn send(&self, command: Command) -> bool {
        self.commands
            .as_ref()
            .is_some_and(|c| c.send(command).is_ok())
    }

    /// No more commands: the agent runs what is queued, then ends (and its events with it).
    pub fn close(&mut self) {
        self.commands = None;
    }

    /// The next event; `None` once the agent has ended.
    pub async fn recv(&mut self) -> Option<Envelope> {
        self.events.recv().await
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
        if let Err(e) = (&mut self.task).await {
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
        if let Err(e) = task.await {
            tracing::error!("the agent task failed: {e}");
        }
    }
}

/// The control loop: commands one at a time; `Cancel` and `Approve` at once.
async fn drive(
    mut worker: Worker,
    mut commands: mpsc::UnboundedReceiver<Command>,
    cancel: Arc<watch::Sender<bool>>,
    approvals: Approvals,
) {
    worker.init();
    worker.session_start_hooks().await;
    let mut queue: VecDeque<Command> = VecDeque::new();
    let mut open = true;
    // Whoever receives the events: once gone, the work in progress stops at once (not only
    // at its next event: a long tool call sends none).
    let listener = worker.cx.events.clone();
    loop {
        let command = match queue.pop_front() {
            Some(command) => command,
            None if open => {
                // A background child that ends while nothing runs is recorded at once.
                let background = worker.session.as_ref().map(|s| s.background().clone());
                let next = tokio::select! {
                    command = commands.recv() => command,
                    late = worker.late_arrival() => {
                        worker.take_late(late);
                        continue;
                    }
                    () = async {
                        match &background {
                            Some(background) => background.arrival().await,
                            None => std::future::pending().await,
                        }
                    } => {
                        worker.deliver_background();
                        continue;
                    }
                };
                match next {
                    Some(command) => command,
                    None => break,
                }
            }
            None => break,
        };
        match command {
            // Nothing runs: nothing to cancel, no question waits.
            Command::Cancel => {}
            Command::Approve { id, answer } => {
                approvals.answer(id, answer);
            }
            work => {
                cancel.send_replace(false);
                let running = worker.execute(work);
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
                        command = commands.recv(), if open => match command {
                            None => open = false,
                            Some(Command::Cancel) => {
                                cancel.send_replace(true);
                            }
                            Some(Command::Approve { id, answer }) => {
                                approvals.answer(id, answer);
                            }
                            Some(other) if other.needs_idle() => listener.send(Event::Failed {
                                command: other.name().to_owned(),
                                error: "a turn is running: wait for it to end, or stop it \
                                        first"
                                    .to_owned(),
                                usage: None,
                                cost: None,
                            }),
                            Some(other) => queue.push_back(other),
                        },
                    }
                }
            }
        }
        if worker.cx.events.is_closed() {
            // Nobody listens: what is queued is not run.
            break;
        }
    }
    worker.stop_background().await;
}

/// How long an ending agent waits for its background children to record that they stopped.
const STOP_BOUND: std::time::Duration = std::time::Duration::from_secs(2);

/// The agent's own state: the session and what its work runs with.
struct Worker {
    /// Where its sessions live.
    store: hotl_log::Store,
    /// The tools a session switched to can reach (as many as its frozen list names).
    tools: crate::toolset::ToolSet,
    /// What a new session's system prompt gains (an MCP server's instructions).
    instructions: Vec<String>,
    /// Tools still to come.
    late: Option<Late>,
    /// Why the session cannot start: what the late tools' starter said went wrong.
    late_failed: Option<String>,
    session: Option<Session>,
    /// The session to write at the first message, until then.
    pending: Option<NewSession>,
    cx: Context,
}

impl Worker {
    fn events(&self) -> &Events {
        &self.cx.events
    }

    /// The first events: where the agent stands, and what is wrong with the session.
    fn init(&self) {
        let settings = &self.cx.settings;
        let (session_id, cwd, tools) = match (&self.session, &self.pending) {
            (Some(s), _) => (
                s.id().to_owned(),
                s.cwd().display().to_string(),
                s.tools().names(),
            ),
            (None, Some(new)) => (
                new.id().to_owned(),
                new.cwd().display().to_string(),
                new.tools().names(),
            ),
            (None, None) => (String::new(), String::new(), Vec::new()),
        };
        self.events().send(Event::Init {
            session_id,
            saved: self.session.is_some(),
            cwd,
            model: settings.model.clone(),
            tools: tools.into_iter().map(str::to_owned).collect(),
        });
        self.tell_about_session();
    }

    /// The `session_start` hooks (`source`: `new` or `resume`); a failure is told.
    async fn session_start_hooks(&self) {
        let (id, source) = match (&self.session, &self.pending) {
            (Some(s), _) => (s.id(), "resume"),
            (None, Some(new)) => (new.id(), "new"),
            (None, None) => return,
        };
        let event = serde_json::json!({ "source": source });
        let cwd = self.current_cwd();
        let fired = crate::hooks::fire(
            &self.cx.settings,
            crate::hooks::HookPoint::SessionStart,
            None,
            id,
            &cwd,
            event,
        )
        .await;
        if let Err(why) = fired {
            self.events()
                .notice(format!("a session_start hook failed: {why}"));
        }
    }

    /// The `stop` hooks after a turn: how it ended; a failure is told.
    async fn stop_hooks(&self, done: &Result<TurnOutcome>) {
        let Some(session) = &self.session else {
            return;
        };
        let event = match done {
            Ok(outcome) => serde_json::json!({
                "stop": outcome.stop.map(|s| s.name()),
                "cancelled": outcome.cancelled,
                "text": outcome.text,
            }),
            Err(e) => serde_json::json!({ "error": e.to_string() }),
        };
        let fired = crate::hooks::fire(
            &self.cx.settings,
            crate::hooks::HookPoint::Stop,
            None,
            session.id(),
            session.cwd(),
            event,
        )
        .await;
        if let Err(why) = fired {
            self.events().notice(format!("a stop hook failed: {why}"));
        }
    }

    /// What is wrong with the session, and a model change since its last answer.
    fn tell_about_session(&self) {
        let settings = &self.cx.settings;
        if let Some(s) = &self.session {
            for problem in &s.problems {
                self.events().notice(format!("warning: {problem}"));
            }
            if let Some(last) = s.last_model()
                && last != settings.model
            {
                self.events().notice(format!(
                    "the model changed: this transcript was produced by {last}; continuing with {}",
                    settings.model
                ));
            }
        }
    }

    /// The session, written now if it was still pending.
    fn session(&mut self) -> Result<&mut Session> {
        if self.session.is_none() {
            let new = self.pending.as_ref().ok_or(AgentError::NoSession)?;
            let session = new.create()?;
            self.events().send(Event::Created {
                session_id: session.id().to_owned(),
            });
            self.pending = None;
            self.session = Some(session);
        }
        self.session.as_mut().ok_or(AgentError::NoSession)
    }

    fn status(&self) -> Status {
        match (&self.session, &self.pending) {
            (Some(s), _) => s.status(&self.cx.settings),
            (None, pending) => Status {
                session_id: pending
                    .as_ref()
                    .map(|n| n.id().to_owned())
                    .unwrap_or_default(),
                context_window: self.cx.settings.context_window,
                model: Some(self.cx.settings.model.clone()),
                effort: self.cx.settings.effort.clone(),
                // As a saved session's: a mode only once one other than the default is set.
                mode: (self.cx.settings.policy.mode != Mode::Default)
                    .then(|| self.cx.settings.policy.mode.name().to_owned()),
                ..Status::default()
            },
        }
    }

    /// The agent is ending: its background children are stopped, and their ends recorded if
    /// they come within [`STOP_BOUND`] (a child that does not is settled by the next open, as
    /// interrupted).
    async fn stop_background(&mut self) {
        let Some(session) = self.session.as_mut() else {
            return;
        };
        let background = session.background().clone();
        if background.running() == 0 && !background.has_done() {
            return;
        }
        for handle in background.running_handles() {
            background.cancel(&handle);
        }
        match tokio::time::timeout(STOP_BOUND, session.wait_background()).await {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => tracing::warn!("a background child's end could not be recorded: {e}"),
            Err(_) => {
                tracing::warn!(
                    "background children did not stop in time; the next open settles them"
                );
                let _ = session.deliver_finished();
            }
        }
    }

    /// Records the background children that ended while the session was idle, and says so.
    fn deliver_background(&mut self) {
        let Some(session) = self.session.as_mut() else {
            return;
        };
        match session.deliver_finished() {
            Ok(0) => {}
            Ok(n) => {
                self.events().notice(format!(
                    "{n} background child{} reported: the next message carries {}",
                    if n == 1 { "" } else { "ren" },
                    if n == 1 {
                        "its report"
                    } else {
                        "their reports"
                    }
                ));
                self.send_status();
            }
            Err(e) => tracing::warn!("a background child's end could not be recorded: {e}"),
        }
    }

    /// Titles a root session after its first answer, when titles are on; a title that cannot
    /// be had is logged, never told (the session goes on untitled).
    async fn title(&mut self, cx: &Context) {
        let Some(session) = self.session.as_mut() else {
            return;
        };
        match session.title_after_first_answer(cx).await {
            Ok(Some(_)) => self.send_status(),
            Ok(None) => {}
            Err(e) => tracing::warn!("no title was written: {e}"),
        }
    }

    fn send_status(&self) {
        self.events().send(Event::Status(self.status()));
    }

    fn fail(&self, command: &str, error: &AgentError) {
        self.fail_after(command, error, None);
    }

    /// A failed command's event, with what it had spent since `before` (the session's totals
    /// when it started).
    fn fail_after(&self, command: &str, error: &AgentError, before: Option<Totals>) {
        let mut spent = TurnOutcome::default();
        if let (Some(before), Some(session)) = (before, &self.session) {
            spent.add_spent(&before, &session.totals);
        }
        let spent_any = spent.usage != hotl_wire::Usage::default();
        self.events().send(Event::Failed {
            command: command.to_owned(),
            error: error.to_string(),
            usage: spent_any.then_some(spent.usage),
            cost: spent.cost,
        });
    }

    /// The late tools, once they come (never, when none are awaited).
    async fn late_arrival(&mut self) -> Result<LateTools, String> {
        match self.late.as_mut() {
            // A starter that went away without a word brought nothing.
            Some(late) => late.await.unwrap_or_else(|_| Ok(LateTools::default())),
            None => std::future::pending().await,
        }
    }

    /// Takes what arrived: the tools join the set sessions switched to reach, the session
    /// being written or worked in, and the allow list.
    fn take_late(&mut self, arrived: Result<LateTools, String>) {
        self.late = None;
        let late = match arrived {
            Ok(late) => late,
            Err(why) => {
                self.events().notice(format!("error: {why}"));
                self.late_failed = Some(why);
                return;
            }
        };
        for notice in &late.notices {
            self.events().notice(notice.clone());
        }
        let mut clashes = Vec::new();
        for tool in &late.tools {
            if self.tools.add(tool.clone()).is_err() {
                clashes.push(tool.name().to_owned());
            }
        }
        let late_tools: Vec<_> = late
            .tools
            .iter()
            .filter(|t| !clashes.iter().any(|c| c == t.name()))
            .cloned()
            .collect();
        for name in clashes {
            self.events().notice(format!(
                "warning: the tool {name} has the name of another tool; left out"
            ));
        }
        self.instructions.extend(late.instructions.iter().cloned());
        if let Some(new) = self.pending.as_mut() {
            new.add_late(&late_tools, &late.instructions);
        }
        if let Some(session) = self.session.as_mut() {
            session.admit_tools(&late_tools);
        }
        if !late.allow.is_empty() {
            Arc::make_mut(&mut self.cx.settings)
                .policy
                .allow
                .extend(late.allow);
        }
        if !late_tools.is_empty() {
            let names: Vec<&str> = late_tools.iter().map(|t| t.name()).collect();
            self.events().send(Event::ToolsAdded {
                tools: names.into_iter().map(str::to_owned).collect(),
            });
        }
    }

    /// Waits for the late tools before `command` when it may ask the model or write a
    /// session; `false` when it was cancelled meanwhile or cannot run (both told).
    async fn ready_for(&mut self, command: &Command) -> bool {
        let needs_tools = matches!(
            command,
            Command::Submit { .. }
                | Command::Recover
                | Command::Move(_)
                | Command::Switch(_)
                | Command::Drop
        );
        if !needs_tools {
            return true;
        }
        if self.late.is_some() {
            let cancelled = self.cx.clone();
            tokio::select! {
                late = self.late_arrival() => self.take_late(late),
                () = cancelled.cancelled() => {
                    self.events().send(Event::Cancelled {
                        command: command.name().to_owned(),
                    });
                    return false;
                }
            }
        }
        if let Some(why) = &self.late_failed {
            let error = AgentError::Refused(why.clone());
            self.fail(command.name(), &error);
            return false;
        }
        true
    }

    /// Runs one command and sends the event that ends it.
    async fn execute(&mut self, command: Command) {
        if !self.ready_for(&command).await {
            return;
        }
        let cx = self.cx.clone();
        match command {
            Command::Submit { text } => {
                let mut before = None;
                let done = match self.session() {
                    Ok(session) => {
                        before = Some(session.totals);
                        session.submit(&text, &cx).await
                    }
                    Err(e) => Err(e),
                };
                self.stop_hooks(&done).await;
                self.send_status();
                let ended = done.is_ok();
                match done {
                    Ok(outcome) => self.events().send(Event::TurnEnded(outcome)),
                    Err(e) => self.fail_after("submit", &e, before),
                }
                if ended {
                    self.title(&cx).await;
                }
            }
            Command::Recover => {
                let before = self.session.as_ref().map(|s| s.totals);
                let done = match self.session.as_mut() {
                    Some(session) => session.recover(&cx).await,
                    None => Ok(None),
                };
                match done {
                    Ok(outcome) => {
                        if outcome.is_some() {
                            self.send_status();
                        }
                        self.events().send(Event::Recovered { outcome });
                    }
                    Err(e) => {
                        self.send_status();
                        self.fail_after("recover", &e, before);
                    }
                }
            }
            Command::Move(step) => {
                let name = step.name();
                let done = tokio::select! {
                    done = self.run_move(step, &cx) => Some(done),
                    // Nothing is recorded until a move is done: dropping it loses nothing.
                    () = cx.cancelled() => None,
                };
                match done {
                    None => self.events().send(Event::Cancelled {
                        command: name.to_owned(),
                    }),
                    Some(Ok(result)) => {
                        if !matches!(result, MoveResult::Recalled { .. }) {
                            self.send_status();
                        }
                        self.events().send(Event::MoveEnded(result));
                    }
                    Some(Err(e)) => self.fail(name, &e),
                }
            }
            Command::Rename { name } => {
                let done = match (self.session.as_mut(), self.pending.take()) {
                    (Some(session), _) => session.set_name(&name),
                    (None, Some(new)) => match new.clone().with_name(Some(&name)) {
                        Ok(named) => {
                            self.pending = Some(named);
                            Ok(())
                        }
                        Err(e) => {
                            self.pending = Some(new);
                            Err(e)
                        }
                    },
                    (None, None) => Err(AgentError::NoSession),
                };
                match done {
                    Ok(()) => self.events().send(Event::Renamed { name }),
                    Err(e) => self.fail("rename", &e),
                }
            }
            Command::SetMode { mode } => {
                let done = match (self.session.as_mut(), self.pending.take()) {
                    (Some(session), _) => session.set_mode(mode),
                    (None, pending) => {
                        self.pending = pending.map(|new| new.with_mode(mode));
                        Ok(())
                    }
                };
                match done {
                    Ok(()) => {
                        Arc::make_mut(&mut self.cx.settings).policy.mode = mode;
                        self.events().send(Event::ModeChanged {
                            mode: mode.name().to_owned(),
                        });
                    }
                    Err(e) => self.fail("mode", &e),
                }
            }
            Command::Status => self.send_status(),
            Command::Switch(to) => {
                if let Err(e) = self.switch(to).await {
                    self.fail("switch", &e);
                }
            }
            Command::Clear => match self.clear() {
                Ok(seq) => {
                    self.send_status();
                    self.events().send(Event::Cleared { seq });
                }
                Err(e) => self.fail("clear", &e),
            },
            Command::SetEffort { effort } => {
                let effort = effort.trim().to_ascii_lowercase();
                let done = if !matches!(effort.as_str(), "low" | "medium" | "high") {
                    Err(AgentError::Refused(format!(
                        "unknown effort {effort:?}; use low, medium or high"
                    )))
                } else {
                    match (self.session.as_mut(), self.pending.take()) {
                        (Some(session), _) => session.set_effort(&effort),
                        (None, pending) => {
                            self.pending = pending.map(|new| new.with_effort(Some(effort.clone())));
                            Ok(())
                        }
                    }
                };
                match done {
                    Ok(()) => {
                        let reasoning = self.cx.provider.reasoning_for(&effort);
                        let settings = Arc::make_mut(&mut self.cx.settings);
                        settings.reasoning = Some(reasoning);
                        settings.effort = Some(effort.clone());
                        self.events().send(Event::EffortChanged { effort });
                        self.send_status();
                    }
                    Err(e) => self.fail("effort", &e),
                }
            }
            Command::Models => match self.cx.provider.models().await {
                Ok(models) => self.events().send(Event::Models {
                    models,
                    current: self.cx.settings.model.clone(),
                }),
                Err(e) => self.fail("models", &e.into()),
            },
            Command::SetModel { model } => {
                let model = model.trim().to_owned();
                if model.is_empty() {
                    self.fail("model", &AgentError::Refused("which model?".to_owned()));
                } else {
                    let settings = Arc::make_mut(&mut self.cx.settings);
                    let from = std::mem::replace(&mut settings.model, model.clone());
                    if let Some(window) = crate::known_context_window(&model) {
                        settings.context_window = window;
                    }
                    self.events().send(Event::ModelChanged { from, to: model });
                    self.send_status();
                }
            }
            Command::Dump => match self.saved("dump") {
                Ok(session) => {
                    let dump = session.dump(&cx.provider, &cx.settings);
                    self.events().send(Event::Dump(Box::new(dump)));
                }
                Err(e) => self.fail("dump", &e),
            },
            Command::Stats => {
                let settings = Arc::clone(&self.cx.settings);
                let pricing = &settings.pricing;
                let done = self.saved("count").and_then(|session| {
                    crate::stats::session_stats(session.store(), session.id(), pricing)
                        .map_err(AgentError::from)
                });
                match done {
                    Ok(stats) => self.events().send(Event::Stats(Box::new(stats))),
                    Err(e) => self.fail("stats", &e),
                }
            }
            Command::Context => match self.saved("measure") {
                Ok(session) => {
                    let parts = session.context_parts();
                    self.events().send(Event::Context(parts));
                }
                Err(e) => self.fail("context", &e),
            },
            Command::Revert { before } => {
                let reverted = self
                    .saved("revert")
                    .and_then(|session| session.revert_before(before));
                match reverted {
                    Ok((to, text)) => {
                        self.send_status();
                        self.events().send(Event::Reverted { before, to, text });
                    }
                    Err(e) => self.fail("revert", &e),
                }
            }
            Command::Fresh => {
                if let Err(e) = self.fresh() {
                    self.fail("fresh", &e);
                }
            }
            Command::Drop => {
                if let Err(e) = self.drop_session().await {
                    self.fail("drop", &e);
                }
            }
            // The control loop acts on these at once.
            Command::Cancel | Command::Approve { .. } => {}
        }
    }

    async fn run_move(&mut self, step: Move, cx: &Context) -> Result<MoveResult> {
        let session = self.session.as_mut().ok_or(AgentError::NoSession)?;
        match step {
            Move::Fold { since, note } => {
                let since = since
                    .or_else(|| session.view().episode_start())
                    .ok_or_else(|| {
                        AgentError::Fold(
                            "nothing to fold: nothing since the last fold, compaction or clear; \
                         name the stamp it starts at"
                                .to_owned(),
                        )
                    })?;
                let note = match note {
                    Some(note) => {
                        crate::moves::check_note(&note).map_err(AgentError::BadNote)?;
                        note
                    }
                    None => session.write_note(since, cx).await?,
                };
                let fold = session.fold(since, None, &note).await?;
                Ok(MoveResult::Folded {
                    since: fold.since,
                    until: fold.until,
                    handle: fold.handle,
                    note: fold.note,
                    files: fold.files.into_iter().map(|f| f.path).collect(),
                })
            }
            Move::Compact { note } => {
                let until = match note {
                    Some(note) => session.record_compaction(note)?,
                    None => session.compact(cx).await?,
                };
                Ok(MoveResult::Compacted {
                    until,
                    handle: hotl_recall::compaction_handle(until),
                })
            }
            Move::Recall { query, mode, limit } => {
                let text = session
                    .recall(&query, mode.as_deref(), limit)
                    .await
                    .map_err(AgentError::Recall)?;
                Ok(MoveResult::Recalled { text })
            }
            Move::Ask { handle, question } => {
                let text = session.ask(&handle, &question, cx).await?;
                Ok(MoveResult::Answered { text })
            }
        }
    }
}
