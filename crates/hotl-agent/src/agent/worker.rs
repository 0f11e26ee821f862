//! The agent's own state: the session (or the one still to be written), what its work runs
//! with, and what arrives between commands (late tools, background children's ends, a
//! session's title).

use std::path::PathBuf;
use std::sync::Arc;

use hotl_protocol::{Command, CommandId, Event, Mode, Status};
use tokio::sync::mpsc;

use super::Start;
use crate::context::Context;
use crate::error::{AgentError, Result};
use crate::events::Events;
use crate::late::{Late, LateTools};
use crate::lifecycle::NewSession;
use crate::session::{Session, TitleAsk, TitleReply};
use hotl_tool::ToolSet;

/// How long an ending agent waits for its background children to record that they stopped,
/// and for a title still being asked.
const STOP_BOUND: std::time::Duration = std::time::Duration::from_secs(2);

/// The agent's own state: the session and what its work runs with.
pub(super) struct Worker {
    /// Where its sessions live.
    pub(super) store: hotl_log::Store,
    /// The tools a session switched to can reach (as many as its frozen list names).
    pub(super) tools: ToolSet,
    /// What a new session's system prompt gains (an MCP server's instructions).
    pub(super) instructions: Vec<String>,
    /// Tools still to come.
    late: Option<Late>,
    /// Why the session cannot start: what the late tools' starter said went wrong.
    late_failed: Option<String>,
    pub(super) session: Option<Session>,
    /// The session to write at the first message, until then.
    pub(super) pending: Option<NewSession>,
    /// A title being asked, away from the commands (the next message does not wait for it).
    title: Option<tokio::task::JoinHandle<TitleReply>>,
    pub(super) cx: Context,
}

impl Worker {
    pub(super) fn new(start: Start, late: Option<Late>, cx: Context) -> Worker {
        let (store, tools, session, pending) = match start {
            Start::New(new) => (new.store().clone(), new.tools().clone(), None, Some(new)),
            Start::Open(s) => (s.store().clone(), s.tools().clone(), Some(*s), None),
        };
        let instructions = pending
            .as_ref()
            .map(|n: &NewSession| n.instructions().to_vec())
            .unwrap_or_default();
        Worker {
            store,
            tools,
            instructions,
            late,
            late_failed: None,
            session,
            pending,
            title: None,
            cx,
        }
    }

    /// Where the events of what runs now go.
    pub(super) fn events(&self) -> &Events {
        &self.cx.events
    }

    /// Waits between commands for the next one, taking what arrives meanwhile: late tools, a
    /// background child's end (recorded at once), a title. `None` when no command will come.
    pub(super) async fn idle(
        &mut self,
        commands: &mut mpsc::UnboundedReceiver<(CommandId, Command)>,
    ) -> Option<(CommandId, Command)> {
        self.cx.events = self.cx.events.for_command(None);
        loop {
            let background = self.session.as_ref().map(|s| s.background().clone());
            tokio::select! {
                next = commands.recv() => return next,
                late = late_arrival(&mut self.late) => self.take_late(late),
                () = async {
                    match &background {
                        Some(background) => background.arrival().await,
                        None => std::future::pending().await,
                    }
                } => self.deliver_background(),
                reply = async {
                    match self.title.as_mut() {
                        Some(task) => task.await,
                        None => std::future::pending().await,
                    }
                } => {
                    self.title = None;
                    self.record_title(reply);
                }
            }
        }
    }

    /// The first events: where the agent stands, and what is wrong with the session.
    pub(super) fn init(&self) {
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
            mode: settings.policy.mode.name().to_owned(),
        });
        self.tell_about_session();
    }

    /// The `session_start` hooks (`source`: `new` or `resume`); a failure is told.
    pub(super) async fn session_start_hooks(&self) {
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

    /// What is wrong with the session, and a model change since its last answer.
    pub(super) fn tell_about_session(&self) {
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
    pub(super) fn session(&mut self) -> Result<&mut Session> {
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

    /// The root of the tree the agent writes, once its session is saved.
    fn root(&self) -> Option<String> {
        self.session.as_ref().map(|s| self.store.root_of(s.id()))
    }

    /// Tells the publisher, if any, that the tree was written.
    pub(super) fn written(&self) {
        if let (Some(publisher), Some(root)) = (&self.cx.settings.publisher, self.root()) {
            publisher.written(&root);
        }
    }

    /// Why this process may no longer write its tree, if another took it over.
    pub(super) fn fenced(&self) -> Option<String> {
        let publisher = self.cx.settings.publisher.as_ref()?;
        publisher.fenced(&self.root()?)
    }

    /// Takes `session`'s tree before writing it, when it is not the tree the agent writes.
    pub(super) async fn adopt(&self, session: &str) -> Result<()> {
        let Some(publisher) = &self.cx.settings.publisher else {
            return Ok(());
        };
        let root = self.store.root_of(session);
        if self.root().as_deref() == Some(root.as_str()) {
            return Ok(());
        }
        publisher.adopt(&root).await.map_err(AgentError::Refused)
    }

    /// Lets `root`'s tree go, once the agent no longer writes it (in the background).
    pub(super) fn leave(&self, root: Option<String>) {
        if let (Some(publisher), Some(root)) = (&self.cx.settings.publisher, root)
            && self.root().as_deref() != Some(root.as_str())
        {
            tokio::spawn(publisher.leave(&root));
        }
    }

    /// The directory the agent works in.
    pub(super) fn current_cwd(&self) -> PathBuf {
        match (&self.session, &self.pending) {
            (Some(s), _) => s.cwd().to_path_buf(),
            (None, Some(new)) => new.cwd().to_path_buf(),
            (None, None) => PathBuf::from("."),
        }
    }

    pub(super) fn status(&self) -> Status {
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
                sandbox: Some(self.cx.settings.policy.sandbox_name().to_owned()),
                unpriced: self
                    .cx
                    .settings
                    .pricing
                    .price(&self.cx.settings.model)
                    .is_none(),
                ..Status::default()
            },
        }
    }

    pub(super) fn send_status(&self) {
        self.events().send(Event::Status(self.status()));
    }

    /// The agent is ending: a title still being asked is waited for (within [`STOP_BOUND`]),
    /// and background children are stopped, their ends recorded if they come within the same
    /// bound (a child that does not is settled by the next open, as interrupted).
    pub(super) async fn finish(&mut self) {
        if let Some(task) = self.title.take() {
            match tokio::time::timeout(STOP_BOUND, task).await {
                Ok(reply) => self.record_title(reply),
                Err(_) => tracing::warn!("the title did not come in time; the session is untitled"),
            }
        }
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
                self.written();
            }
            Err(e) => tracing::warn!("a background child's end could not be recorded: {e}"),
        }
    }

    /// Asks for a root session's title after its first answer, when titles are on, in a task
    /// of its own: the next command does not wait for it.
    pub(super) fn ask_title(&mut self) {
        let Some(session) = self.session.as_ref() else {
            return;
        };
        match session.title_ask(&self.cx) {
            Ok(Some(ask)) => self.title = Some(tokio::spawn(TitleAsk::send(ask))),
            Ok(None) => {}
            Err(e) => tracing::warn!("no title was asked: {e}"),
        }
    }

    /// Takes a title that came in (or was not had: logged, never told, the session goes on
    /// untitled).
    fn record_title(&mut self, reply: Result<TitleReply, tokio::task::JoinError>) {
        let Some(session) = self.session.as_mut() else {
            return;
        };
        let recorded = match reply {
            Ok(reply) => session.record_title(reply, &self.cx),
            Err(e) => Err(AgentError::Task(e.to_string())),
        };
        match recorded {
            Ok(Some(_)) => self.send_status(),
            Ok(None) => {}
            Err(e) => tracing::warn!("no title was written: {e}"),
        }
    }

    /// Records a title that came while a command ran, before the next one starts.
    pub(super) fn take_title_if_ready(&mut self) {
        if self.title.as_ref().is_some_and(|t| t.is_finished())
            && let Some(task) = self.title.take()
        {
            // Finished: this does not wait.
            let reply = futures_util::FutureExt::now_or_never(task);
            if let Some(reply) = reply {
                self.record_title(reply);
            }
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
    /// session: `Err` when it was cancelled meanwhile or cannot run.
    pub(super) async fn ready_for(&mut self, command: &Command) -> Result<(), Readiness> {
        let needs_tools = matches!(
            command,
            Command::Submit { .. }
                | Command::Recover
                | Command::Move(_)
                | Command::Switch(_)
                | Command::Drop
        );
        if !needs_tools {
            return Ok(());
        }
        if self.late.is_some() {
            let cancelled = self.cx.clone();
            tokio::select! {
                late = late_arrival(&mut self.late) => self.take_late(late),
                () = cancelled.cancelled() => return Err(Readiness::Cancelled),
            }
        }
        match &self.late_failed {
            Some(why) => Err(Readiness::Failed(AgentError::Refused(why.clone()))),
            None => Ok(()),
        }
    }
}

/// The late tools, once they come (never, when none are awaited).
async fn late_arrival(late: &mut Option<Late>) -> Result<LateTools, String> {
    match late.as_mut() {
        // A starter that went away without a word brought nothing.
        Some(late) => late.await.unwrap_or_else(|_| Ok(LateTools::default())),
        None => std::future::pending().await,
    }
}

/// Why a command could not start.
pub(super) enum Readiness {
    /// It was cancelled while it waited for the late tools.
    Cancelled,
    /// The late tools' starter failed: what it said.
    Failed(AgentError),
}
