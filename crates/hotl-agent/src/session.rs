//! A session being worked in: its log, its frozen prompt and tools, and the turn loop.
//!
//! Every step is appended as it happens (the user message, each model response, each tool
//! result), so a process killed at any point leaves a log that a later `open` can finish: calls
//! that never got a result are answered "interrupted: may have partly run" and the model is
//! asked again. Cancelling (Ctrl-C) answers open calls the same way and records the run as
//! cancelled; the session stays resumable.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hotl_log::{Block, Body, RunState, SessionStart, Store, Todo, ToolInput, Writer};
use hotl_view::{Item, View, model_view};
use hotl_wire::{Event, Pricing, Reasoning, Reply, Request, StopReason, ToolDef, Ttl, Usage};
use tokio::sync::watch;

use crate::error::{AgentError, Result};
use crate::permission::{Decision, Mode, Policy};
use crate::prompt::system_blocks;
use crate::provider::Provider;
use crate::snapshot::{Snapshots, Snapshotter};
use crate::tool::{Tool, ToolCtx, ToolOutput};

/// The answer a tool call gets when the process died while it ran.
pub const INTERRUPTED: &str = "interrupted: may have partly run";

/// How a turn runs.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The model asked.
    pub model: String,
    /// Output limit per response.
    pub max_tokens: u32,
    /// Prompt-cache lifetime: 5 minutes headless, 1 hour in the console.
    pub ttl: Ttl,
    /// Prices, for the cost counter.
    pub pricing: Pricing,
    /// Permissions.
    pub policy: Policy,
    /// Model calls per turn before giving up.
    pub max_steps: usize,
    /// Reasoning settings.
    pub reasoning: Option<Reasoning>,
    /// OpenAI explicit prompt-cache breakpoints (GPT-5.6 and later).
    pub explicit_breakpoints: bool,
}

impl Settings {
    /// Defaults for `model`.
    pub fn new(model: impl Into<String>) -> Self {
        Settings {
            model: model.into(),
            max_tokens: 8192,
            ttl: Ttl::FiveMinutes,
            pricing: Pricing::builtin(),
            policy: Policy::default(),
            max_steps: 200,
            reasoning: None,
            explicit_breakpoints: false,
        }
    }
}

/// What the agent reports while it works.
#[derive(Debug)]
pub enum Progress<'a> {
    /// A model event, as it streams.
    Model(&'a Event),
    /// A tool call is about to run.
    ToolStart {
        /// The call id.
        id: &'a str,
        /// The tool.
        name: &'a str,
        /// Its arguments (JSON text).
        input: &'a str,
    },
    /// A tool call finished.
    ToolDone {
        /// The call id.
        id: &'a str,
        /// The tool.
        name: &'a str,
        /// What it returned.
        output: &'a ToolOutput,
    },
    /// Something worth a line (a retry, a refusal, a recovery).
    Notice(&'a str),
}

/// The side that shows progress and answers permission questions.
pub trait Ui: Send {
    /// Shows progress.
    fn progress(&mut self, progress: Progress<'_>);
    /// Asks the user; `false` when nobody can answer. The default refuses.
    fn confirm(&mut self, _question: &str) -> bool {
        false
    }
}

/// How a turn ended.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TurnOutcome {
    /// The final answer's text.
    pub text: String,
    /// Why the model stopped.
    pub stop: Option<StopReason>,
    /// Model calls made.
    pub steps: usize,
    /// Usage of this turn.
    pub usage: Usage,
    /// Cost of this turn in dollars, when the model's price is known.
    pub cost: Option<f64>,
    /// The user cancelled it.
    pub cancelled: bool,
}

impl TurnOutcome {
    /// Counts an earlier turn's usage and cost into this one (the text stays this turn's).
    pub fn add(&mut self, earlier: &TurnOutcome) {
        add(&mut self.usage, &earlier.usage);
        self.steps += earlier.steps;
        if let Some(c) = earlier.cost {
            *self.cost.get_or_insert(0.0) += c;
        }
    }
}

/// Usage and cost counted by this process (they start at zero on resume).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Totals {
    /// Tokens.
    pub usage: Usage,
    /// Dollars (known prices only).
    pub cost: f64,
    /// Model calls.
    pub requests: u32,
    /// Time spent waiting for the model (the exchange, after the request body was built).
    pub model_time: std::time::Duration,
    /// Time spent in tools.
    pub tool_time: std::time::Duration,
}

impl Totals {
    /// Counts a delegated session's totals (a fork's) into these.
    pub fn add(&mut self, other: &Totals) {
        add(&mut self.usage, &other.usage);
        self.cost += other.cost;
        self.requests += other.requests;
        self.model_time += other.model_time;
        self.tool_time += other.tool_time;
    }
}

/// A session open for writing.
pub struct Session {
    store: Store,
    writer: Writer,
    /// The view, kept current record by record (re-projected from disk only after a record
    /// that changes history: revert, fold, compaction).
    view: View,
    start: SessionStart,
    last_run: Option<(String, RunState)>,
    /// Bumped whenever the view is re-projected: earlier messages may have changed, so the
    /// encoder must not reuse their bytes.
    epoch: u64,
    /// The open items of the latest fold, reminded during the next turn.
    reminder: Option<String>,
    active_reminder: Option<String>,
    /// Files archived threads touched: (path, handle, the note's first line).
    archived_files: Vec<(String, String, String)>,
    /// A one-line cue for the next request: a tool touched a file an archived thread touched.
    cue: Option<String>,
    /// The latest working-tree snapshot recorded, and what takes the next one. Snapshots are
    /// recorded around steps that may change files (before the first such step of a turn, and
    /// after each); the one before is started in the background when the turn starts.
    last_tree: Option<String>,
    snapshots: Snapshots,
    /// Whether a snapshot taken in this turn still shows the tree (no user edits since).
    tree_is_current: bool,
    system: Vec<String>,
    tool_defs: Vec<ToolDef>,
    tools: Vec<Arc<dyn Tool>>,
    cwd: PathBuf,
    cache_key: String,
    /// What this process spent.
    pub totals: Totals,
    /// Problems with the lineage, for the user (missing ancestors, depth).
    pub problems: Vec<String>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("id", &self.id())
            .field("head", &self.view.head_seq)
            .finish_non_exhaustive()
    }
}

impl Session {
    /// Starts a session in `cwd`: the system prompt (with the project's `AGENTS.md` and
    /// `CLAUDE.md`) and the tool definitions are frozen into blobs its `session` record names.
    /// The log appears now: call this when the first message is submitted.
    pub fn create(
        store: &Store,
        cwd: &Path,
        model: &str,
        tools: Vec<Arc<dyn Tool>>,
        mode: Mode,
    ) -> Result<Session> {
        if !cwd.is_dir() {
            return Err(AgentError::MissingCwd(cwd.display().to_string()));
        }
        let system = system_blocks(cwd);
        let tool_defs: Vec<ToolDef> = tools.iter().map(|t| t.definition()).collect();
        let blobs = store.blobs();
        let mut start = SessionStart::new(cwd.display().to_string());
        start.model = Some(model.to_owned());
        start.system_blob =
            Some(blobs.put(&serde_json::to_vec(&system).map_err(hotl_log::LogError::from)?)?);
        start.tools_blob =
            Some(blobs.put(&serde_json::to_vec(&tool_defs).map_err(hotl_log::LogError::from)?)?);
        let mut state = Vec::new();
        if mode != Mode::Default {
            state.push(mode_record(mode));
        }
        let writer = store.create(start, 1, state)?;
        Session::from_writer(store, writer, tools)
    }

    /// Opens an existing session for writing: takes its tree lock (or fails naming the owner),
    /// then loads its lineage and its frozen prompt and tools.
    pub fn open(store: &Store, id: &str, tools: Vec<Arc<dyn Tool>>) -> Result<Session> {
        let writer = store.writer(id)?;
        Session::from_writer(store, writer, tools)
    }

    /// A session around a writer already holding the lock (a new fork, say).
    pub fn from_writer(
        store: &Store,
        writer: Writer,
        tools: Vec<Arc<dyn Tool>>,
    ) -> Result<Session> {
        let lineage = store.lineage(writer.id())?;
        let start = lineage.start().clone();
        let cwd = PathBuf::from(&start.cwd);
        let blobs = store.blobs();
        let frozen = |hash: &Option<String>| hash.as_ref().and_then(|h| blobs.get(h).ok());
        let system = frozen(&start.system_blob)
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_else(|| system_blocks(&cwd));
        let tool_defs = frozen(&start.tools_blob)
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_else(|| tools.iter().map(|t| t.definition()).collect());
        let cache_key = start
            .cache_key
            .clone()
            .or_else(|| lineage.ancestors.last().cloned())
            .unwrap_or_else(|| writer.id().to_owned());
        let last_run = lineage.records.iter().rev().find_map(|r| match &r.body {
            Body::Run { run, state } => Some((run.clone(), state.clone())),
            _ => None,
        });
        let problems = lineage.problems.iter().map(ToString::to_string).collect();
        let mut archived_files = Vec::new();
        let mut last_tree = None;
        note_delegated_files(store, writer.id(), &mut archived_files);
        for record in &lineage.records {
            match &record.body {
                Body::Fold(fold) => note_files(&mut archived_files, fold),
                Body::Snapshot { tree } => last_tree = Some(tree.clone()),
                _ => {}
            }
        }
        let snapshots = Snapshots::new(
            store
                .index_dir()
                .join("trees")
                .join(format!("{}.index", writer.id())),
        );
        Ok(Session {
            store: store.clone(),
            writer,
            problems,
            view: View::from_lineage(lineage),
            start,
            last_run,
            epoch: 0,
            reminder: None,
            active_reminder: None,
            archived_files,
            cue: None,
            last_tree,
            snapshots,
            tree_is_current: false,
            system,
            tool_defs,
            tools,
            cwd,
            cache_key,
            totals: Totals::default(),
        })
    }

    /// The session id.
    pub fn id(&self) -> &str {
        self.writer.id()
    }

    /// The working directory tools run in.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// The current view.
    pub fn view(&self) -> &View {
        &self.view
    }

    /// The model recorded on the session's last answer (or its start).
    pub fn last_model(&self) -> Option<String> {
        self.view
            .items
            .iter()
            .rev()
            .find_map(|i| match i {
                Item::Assistant { model: Some(m), .. } => Some(m.clone()),
                _ => None,
            })
            .or_else(|| self.start.model.clone())
    }

    /// Appends a record and brings the view up to date.
    fn append(&mut self, body: Body) -> Result<()> {
        self.append_all(vec![body])
    }

    /// Appends records in one write and one sync, and brings the view up to date.
    fn append_all(&mut self, bodies: Vec<Body>) -> Result<()> {
        let mut rebuild = false;
        for record in self.writer.append_all(bodies)? {
            if let Body::Run { run, state } = &record.body {
                self.last_run = Some((run.clone(), state.clone()));
            }
            rebuild |= !rebuild && self.view.push(record).is_err();
        }
        if rebuild {
            self.view = View::from_lineage(self.store.lineage(self.writer.id())?);
            self.epoch += 1;
        }
        Ok(())
    }

    /// Names the session.
    pub fn set_name(&mut self, name: &str) -> Result<()> {
        self.append(Body::Name {
            name: Some(name.to_owned()),
        })
    }

    /// Records a permission mode change.
    pub fn set_mode(&mut self, mode: Mode) -> Result<()> {
        self.append(mode_record(mode))
    }

    /// Whether the last turn was left open by a process that died (or was killed) mid-turn.
    pub fn has_open_turn(&self) -> bool {
        self.open_run().is_some()
    }

    fn open_run(&self) -> Option<String> {
        match &self.last_run {
            Some((run, RunState::Started)) => Some(run.clone()),
            _ => None,
        }
    }

    /// Finishes a turn a dead process left open: open tool calls are answered
    /// "interrupted: may have partly run", then the model is asked again. Does nothing when no
    /// turn is open.
    pub async fn recover(
        &mut self,
        provider: &Provider,
        settings: &Settings,
        ui: &mut dyn Ui,
        cancel: watch::Receiver<bool>,
    ) -> Result<Option<TurnOutcome>> {
        let Some(run) = self.open_run() else {
            return Ok(None);
        };
        ui.progress(Progress::Notice(
            "finishing the turn the last process left open",
        ));
        self.append(Body::Run {
            run: run.clone(),
            state: RunState::Interrupted,
        })?;
        self.resume_forks(provider, settings, ui, cancel.clone())
            .await?;
        self.answer_open_calls(INTERRUPTED)?;
        let outcome = self.steps(&run, provider, settings, ui, cancel).await?;
        Ok(Some(outcome))
    }

    /// Finishes the forks the dead process left running: each open `fork` call whose child
    /// exists is resumed (the child recovers its own turn) and answered with its report, as if
    /// nothing had happened. A fork call with no child yet stays open (answered "interrupted").
    async fn resume_forks(
        &mut self,
        provider: &Provider,
        settings: &Settings,
        ui: &mut dyn Ui,
        cancel: watch::Receiver<bool>,
    ) -> Result<()> {
        let open: Vec<String> = self
            .open_calls()
            .into_iter()
            .filter(|(_, name)| name == "fork")
            .map(|(id, _)| id)
            .collect();
        if open.is_empty() {
            return Ok(());
        }
        for child in self.store.visible_delegated(self.writer.id())? {
            // The child whose first result answers one of the open calls.
            let Ok(log) = self.store.read(&child.id) else {
                continue;
            };
            let Some(call) = log.records.iter().find_map(|r| match &r.body {
                Body::ToolResult { call, .. } => Some(call.clone()),
                _ => None,
            }) else {
                continue;
            };
            if !open.contains(&call) {
                continue;
            }
            let handle = child
                .delegation
                .handle
                .clone()
                .unwrap_or_else(|| child.id[..8].to_owned());
            ui.progress(Progress::Notice(&format!(
                "resuming fork {handle}: {}",
                child.delegation.description
            )));
            let writer = self.writer.open_delegated(&child.id)?;
            let mut fork = Session::from_writer(&self.store, writer, self.tools.clone())?;
            let outcome = Box::pin(fork.recover(provider, settings, ui, cancel.clone())).await?;
            self.totals.add(&fork.totals);
            let outcome = outcome.unwrap_or_else(|| TurnOutcome {
                text: fork.last_answer(),
                ..TurnOutcome::default()
            });
            let output = fork_report(&handle, fork.id(), &outcome);
            self.record_result(&call, output)?;
        }
        Ok(())
    }

    /// The text of the last model answer in the view.
    fn last_answer(&self) -> String {
        self.view
            .items
            .iter()
            .rev()
            .find_map(|i| match i {
                Item::Assistant { content, .. } => {
                    Some(content.iter().filter_map(Block::as_text).collect())
                }
                _ => None,
            })
            .unwrap_or_default()
    }

    /// Runs one turn: the user's message, then model calls and tools until the model stops.
    pub async fn submit(
        &mut self,
        prompt: &str,
        provider: &Provider,
        settings: &Settings,
        ui: &mut dyn Ui,
        cancel: watch::Receiver<bool>,
    ) -> Result<TurnOutcome> {
        if !self.cwd.is_dir() {
            return Err(AgentError::MissingCwd(self.cwd.display().to_string()));
        }
        // Calls left open (a fork of a session cut mid-turn, a crash nobody recovered) are
        // answered first, so the log stays valid for every provider. No model call is spent
        // finishing that old turn.
        self.answer_open_calls(INTERRUPTED)?;
        self.active_reminder = self.reminder.take();
        self.tree_is_current = false;
        self.snapshots.start(&self.cwd, &self.store.blobs());
        let run = hotl_log::new_session_id();
        self.append_all(vec![
            Body::Run {
                run: run.clone(),
                state: RunState::Started,
            },
            Body::user_text(prompt),
        ])?;
        self.steps(&run, provider, settings, ui, cancel).await
    }

    async fn steps(
        &mut self,
        run: &str,
        provider: &Provider,
        settings: &Settings,
        ui: &mut dyn Ui,
        mut cancel: watch::Receiver<bool>,
    ) -> Result<TurnOutcome> {
        let mut outcome = TurnOutcome::default();
        loop {
            if outcome.steps >= settings.max_steps {
                self.close_run(run, RunState::Cancelled)?;
                return Err(AgentError::TooManySteps(settings.max_steps));
            }
            outcome.steps += 1;
            let reply = tokio::select! {
                reply = self.ask_model(provider, settings, ui) => reply,
                _ = cancelled(&mut cancel) => return self.cancel_turn(run, outcome),
            };
            let reply = match reply {
                Ok(reply) => reply,
                Err(AgentError::Wire(hotl_wire::WireError::Interrupted { partial, cause })) => {
                    // Keep what was said; calls that never finished are not run.
                    let text: Vec<Block> = partial
                        .content
                        .into_iter()
                        .filter(|b| matches!(b, Block::Text { .. }))
                        .collect();
                    if !text.is_empty() {
                        self.append(Body::Assistant {
                            content: text,
                            model: partial.model,
                            stop: Some("interrupted".to_owned()),
                            usage: Some(partial.usage.to_log()),
                        })?;
                    }
                    self.close_run(run, RunState::Interrupted)?;
                    return Err(AgentError::Wire(*cause));
                }
                Err(e) => {
                    self.close_run(run, RunState::Interrupted)?;
                    return Err(e);
                }
            };
            self.count(settings, &reply, &mut outcome);
            let stop = reply.stop;
            outcome.stop = stop;
            outcome.text = reply
                .content
                .iter()
                .filter_map(Block::as_text)
                .collect::<Vec<_>>()
                .join("");
            let calls: Vec<Call> = reply
                .tool_calls()
                .map(|(id, name, input)| Call {
                    id: id.to_owned(),
                    name: name.to_owned(),
                    input: input.clone(),
                })
                .collect();
            let bad: Vec<(String, String)> = reply
                .bad_calls
                .iter()
                .map(|b| (b.id.clone(), b.arguments.clone()))
                .collect();
            let answer = Body::Assistant {
                content: reply.content,
                model: reply.model.or_else(|| Some(settings.model.clone())),
                stop: reply.raw_stop,
                usage: Some(reply.usage.to_log()),
            };
            if calls.is_empty() {
                self.append_all(vec![
                    answer,
                    Body::Run {
                        run: run.to_owned(),
                        state: RunState::Finished,
                    },
                ])?;
                self.active_reminder = None;
                return Ok(outcome);
            }
            self.append(answer)?;
            // Forks start from the view with every other call of this step answered.
            let mut calls = calls;
            calls.sort_by_key(|call| call.name == "fork");
            let changes_files = calls.iter().any(|call| {
                self.tools
                    .iter()
                    .any(|t| t.name() == call.name && t.kind() != crate::tool::ToolKind::Read)
            });
            // The tree before this step's tools run (the one started with the turn, when there
            // is one), unless a snapshot this turn already shows it: the user may have changed
            // files since the last one.
            if changes_files && !self.tree_is_current {
                match self.snapshots.started() {
                    Some(tree) => self.record_tree(tree)?,
                    None => self.snapshot()?,
                }
            }
            for call in calls {
                let id = call.id.clone();
                let output = if let Some((_, args)) = bad.iter().find(|(b, _)| *b == id) {
                    ToolOutput::error(format!(
                        "the arguments of this call are not valid JSON, so it did not run: {args}"
                    ))
                } else if call.name == "fork" {
                    // A fork stops itself when cancelled (its own log closed cleanly), then
                    // this turn stops.
                    let fork_cancel = cancel.clone();
                    let output = self
                        .call_tool(&call, provider, settings, ui, &fork_cancel)
                        .await;
                    if *cancel.borrow() {
                        self.record_result(&id, output)?;
                        return self.cancel_turn(run, outcome);
                    }
                    output
                } else {
                    let quiet = cancel.clone();
                    tokio::select! {
                        output = self.call_tool(&call, provider, settings, ui, &quiet) => output,
                        _ = cancelled(&mut cancel) => return self.cancel_turn(run, outcome),
                    }
                };
                self.record_result(&id, output)?;
            }
            if changes_files {
                self.snapshot()?;
            }
        }
    }

    /// Records the working tree when it changed since the last snapshot.
    fn snapshot(&mut self) -> Result<()> {
        let tree = self.snapshots.take(&self.cwd, &self.store.blobs());
        self.record_tree(tree)
    }

    /// Records snapshot `tree` (none when the tree could not be taken) if it differs from the
    /// last one recorded.
    fn record_tree(&mut self, tree: Option<String>) -> Result<()> {
        self.tree_is_current = tree.is_some();
        if let Some(tree) = tree
            && self.last_tree.as_deref() != Some(tree.as_str())
        {
            self.append(Body::Snapshot { tree: tree.clone() })?;
            self.last_tree = Some(tree);
        }
        Ok(())
    }

    async fn ask_model(
        &mut self,
        provider: &Provider,
        settings: &Settings,
        ui: &mut dyn Ui,
    ) -> Result<Reply> {
        let view = &self.view;
        let mut request = self.base_request(model_view(view), settings);
        request.reuse_key = Some(format!(
            "{}/{}/{}",
            self.writer.id(),
            self.epoch,
            view.model_after
        ));
        if !view.state.todos.is_empty() {
            request.dynamic.push(todo_reminder(&view.state.todos));
        }
        if let Some(reminder) = &self.active_reminder {
            request.dynamic.push(reminder.clone());
        }
        if let Some(cue) = self.cue.take() {
            request.dynamic.push(cue);
        }
        let started = std::time::Instant::now();
        let (reply, encoding) = provider
            .send_timed(&request, &mut |e: &Event| ui.progress(Progress::Model(e)))
            .await;
        drop(request);
        let waited = started.elapsed().saturating_sub(encoding);
        self.totals.model_time += waited;
        Ok(reply?)
    }

    async fn call_tool(
        &mut self,
        call: &Call,
        provider: &Provider,
        settings: &Settings,
        ui: &mut dyn Ui,
        cancel: &watch::Receiver<bool>,
    ) -> ToolOutput {
        let (id, name, input) = (call.id.as_str(), call.name.as_str(), &call.input);
        if name == "fold" && self.tool_defs.iter().any(|t| t.name == "fold") {
            return self
                .fold_call(input)
                .unwrap_or_else(|e| ToolOutput::error(e.to_string()));
        }
        if name == "fork" && self.tool_defs.iter().any(|t| t.name == "fork") {
            let args: serde_json::Value = input.parse().unwrap_or_default();
            let Some(task) = args
                .get("task")
                .and_then(|t| t.as_str())
                .filter(|t| !t.is_empty())
            else {
                return ToolOutput::error("fork needs a `task`");
            };
            let task = task.to_owned();
            return match Box::pin(self.fork_call(id, &task, provider, settings, ui, cancel.clone()))
                .await
            {
                Ok(output) => output,
                Err(e) => ToolOutput::error(format!("the fork failed: {e}")),
            };
        }
        if name == "recall" && self.tool_defs.iter().any(|t| t.name == "recall") {
            let args: serde_json::Value = input.parse().unwrap_or_default();
            let query = args.get("query").and_then(|q| q.as_str()).unwrap_or("");
            let mode = args.get("mode").and_then(|m| m.as_str());
            return match self.recall(query, mode, 20) {
                Ok(text) => ToolOutput::ok(text),
                Err(why) => ToolOutput::error(why),
            };
        }
        if name == "ask" && self.tool_defs.iter().any(|t| t.name == "ask") {
            let args: serde_json::Value = input.parse().unwrap_or_default();
            let field = |k: &str| {
                args.get(k)
                    .and_then(|v| v.as_str())
                    .unwrap_or("")
                    .to_owned()
            };
            let (handle, question) = (field("handle"), field("question"));
            if handle.is_empty() || question.is_empty() {
                return ToolOutput::error("ask needs `handle` and `question`");
            }
            ui.progress(Progress::ToolStart {
                id,
                name,
                input: input.get(),
            });
            let output = match self.ask(&handle, &question, provider, settings).await {
                Ok(answer) => ToolOutput::ok(answer),
                Err(e) => ToolOutput::error(e.to_string()),
            };
            ui.progress(Progress::ToolDone {
                id,
                name,
                output: &output,
            });
            return output;
        }
        let Some(tool) = self.tools.iter().find(|t| t.name() == name).cloned() else {
            let known: Vec<&str> = self.tools.iter().map(|t| t.name()).collect();
            return ToolOutput::error(format!(
                "there is no tool named {name:?}; the tools are: {}",
                known.join(", ")
            ));
        };
        let ctx = ToolCtx {
            cwd: self.cwd.clone(),
            blobs: self.store.blobs(),
            todos: self.view.state.todos.clone(),
        };
        let writes = tool.writes(input, &ctx);
        match settings
            .policy
            .decide(name, tool.kind(), &writes, &self.cwd)
        {
            Decision::Allow => {}
            Decision::Deny(why) => {
                ui.progress(Progress::Notice(&why));
                return ToolOutput::error(why);
            }
            Decision::Ask(why) => {
                let question = format!("{why}: {name} {}. Allow?", input.get());
                if !tokio::task::block_in_place(|| ui.confirm(&question)) {
                    return ToolOutput::error(format!("the user declined: {why}"));
                }
            }
        }
        ui.progress(Progress::ToolStart {
            id,
            name,
            input: input.get(),
        });
        let started = std::time::Instant::now();
        let output = tool.run(input, &ctx).await;
        self.totals.tool_time += started.elapsed();
        ui.progress(Progress::ToolDone {
            id,
            name,
            output: &output,
        });
        output
    }

    /// The `fold` tool: the span from `since` up to the step before this one becomes a note
    /// and a handle. A refusal or a note missing template lines is an error the model can fix.
    fn fold_call(&mut self, input: &ToolInput) -> Result<ToolOutput> {
        let args: serde_json::Value = input.parse().unwrap_or_default();
        let Some(since) = args.get("since").and_then(crate::moves::parse_stamp) else {
            return Ok(ToolOutput::error("`since` must be a stamp such as \"t12\""));
        };
        let note = args.get("note").and_then(|n| n.as_str()).unwrap_or("");
        if let Err(why) = crate::moves::check_note(note) {
            return Ok(ToolOutput::error(why));
        }
        let issuer = self.view.items.iter().rev().find_map(|i| match i {
            Item::Assistant { seq, .. } => Some(*seq),
            _ => None,
        });
        self.fold(since, issuer, note).map(|fold| {
            ToolOutput::ok(format!(
                "folded t{}..t{} into handle {}; the span stays archived (recall and ask can reach it)",
                fold.since, fold.until, fold.handle
            ))
        })
        .or_else(|e| match e {
            AgentError::View(why) => Ok(ToolOutput::error(why.to_string())),
            other => Err(other),
        })
    }

    /// The `fork` tool: a child session pinned at this session's end (the assistant message that
    /// called `fork`, other calls of the step already answered), whose first record answers the
    /// fork call with the task, so its first request extends this session's last one. It runs
    /// to completion with the same tools; its final message comes back as the result.
    async fn fork_call(
        &mut self,
        call: &str,
        task: &str,
        provider: &Provider,
        settings: &Settings,
        ui: &mut dyn Ui,
        cancel: watch::Receiver<bool>,
    ) -> Result<ToolOutput> {
        let id = self.writer.id().to_owned();
        let offset = std::fs::metadata(self.writer.path())
            .map_err(|e| hotl_log::LogError::Io {
                path: self.writer.path().to_owned(),
                source: e,
            })?
            .len();
        let pin = self.store.pin(&id, self.writer.next_seq() - 1, offset)?;
        let handle = crate::moves::unique_handle(
            &format!("fork:{id}:{}:{task}", pin.seq),
            &self.taken_handles()?,
        );
        let delegation = hotl_log::Delegation {
            by: id.clone(),
            agent: Some("fork".to_owned()),
            description: task.to_owned(),
            handle: Some(handle.clone()),
        };
        let writer =
            self.writer
                .delegate(pin, &self.cwd.display().to_string(), Vec::new(), delegation)?;
        let mut child = Session::from_writer(&self.store, writer, self.tools.clone())?;
        ui.progress(Progress::Notice(&format!("fork {handle} started: {task}")));
        let outcome = child
            .run_task(call, task, provider, settings, ui, cancel)
            .await?;
        self.totals.add(&child.totals);
        note_delegated_files(&self.store, self.writer.id(), &mut self.archived_files);
        Ok(fork_report(&handle, child.id(), &outcome))
    }

    /// Runs a fork's task: answers the call that made it with the task, then works until the
    /// model stops.
    pub async fn run_task(
        &mut self,
        call: &str,
        task: &str,
        provider: &Provider,
        settings: &Settings,
        ui: &mut dyn Ui,
        cancel: watch::Receiver<bool>,
    ) -> Result<TurnOutcome> {
        let run = hotl_log::new_session_id();
        // The run is recorded as started, so recovery can tell an unfinished task.
        self.append_all(vec![
            Body::Run {
                run: run.clone(),
                state: RunState::Started,
            },
            Body::ToolResult {
                call: call.to_owned(),
                content: vec![Block::text(crate::moves::fork_brief(task))],
                blob: None,
                is_error: false,
                files: Vec::new(),
            },
        ])?;
        Box::pin(self.steps(&run, provider, settings, ui, cancel)).await
    }

    /// Searches the session's archive (no model call) and renders the hits as the model and
    /// the shell see them.
    pub fn recall(
        &self,
        query: &str,
        mode: Option<&str>,
        limit: usize,
    ) -> std::result::Result<String, String> {
        let mode = crate::moves::recall_mode(mode)?;
        let archive =
            hotl_recall::open_archive(&self.store, self.writer.id()).map_err(|e| e.to_string())?;
        let hits = archive
            .search(query, mode, limit)
            .map_err(|e| e.to_string())?;
        Ok(hotl_recall::render_hits(&hits))
    }

    /// Puts one question to the archived thread `handle`: the request is that thread's own
    /// context (the view as it stood when its span ended) with the session's tools and tool
    /// choice unchanged, so its prefix can hit the cache; the question says tools are
    /// unavailable, and a stray tool call is answered with an error. The exchange is recorded
    /// as an `ask` record; only the answer is returned.
    pub async fn ask(
        &mut self,
        handle: &str,
        question: &str,
        provider: &Provider,
        settings: &Settings,
    ) -> Result<String> {
        let thread_view = self.thread_view(handle)?;
        let prompt = crate::moves::ask_prompt(question);
        let mut strays: Vec<Reply> = Vec::new();
        let mut usage = Usage::default();
        let answer = loop {
            let mut messages = model_view(&thread_view);
            push_user_text(&mut messages, &prompt);
            for stray in &strays {
                messages.push(hotl_view::MessageRef {
                    role: hotl_view::Role::Assistant,
                    content: stray.content.iter().map(hotl_view::Part::Block).collect(),
                });
                messages.push(hotl_view::MessageRef {
                    role: hotl_view::Role::User,
                    content: stray
                        .tool_calls()
                        .map(|(id, _, _)| hotl_view::Part::ToolResult {
                            tool_use_id: id,
                            content: vec![hotl_view::Part::Text(
                                "tools are unavailable while answering a question; answer in words"
                                    .into(),
                            )],
                            is_error: true,
                        })
                        .collect(),
                });
            }
            let request = self.base_request(messages, settings);
            let reply = provider.send(&request, &mut |_: &Event| {}).await?;
            drop(request);
            add(&mut usage, &reply.usage);
            self.account(settings, reply.model.as_deref(), &reply.usage);
            let text: String = reply.content.iter().filter_map(Block::as_text).collect();
            if reply.tool_calls().next().is_none() || strays.len() >= 2 {
                break text;
            }
            strays.push(reply);
        };
        self.append(Body::Ask {
            handle: handle.to_owned(),
            question: question.to_owned(),
            answer: answer.clone(),
            usage: Some(usage.to_log()),
        })?;
        Ok(answer)
    }

    /// The context of the archived thread `handle` as it stood when it ended: a folded span's
    /// (the records up to its end, projected), or a fork's (its whole lineage).
    fn thread_view(&self, handle: &str) -> Result<View> {
        let until = self.view.items.iter().find_map(|i| match i {
            Item::Folded {
                handle: h, until, ..
            } if h == handle => Some(*until),
            _ => None,
        });
        if let Some(until) = until {
            let lineage = self.store.lineage(self.writer.id())?;
            let own_start = lineage.records[..lineage.own_start]
                .iter()
                .filter(|r| r.seq <= until)
                .count();
            let thread: Vec<hotl_log::Record> = lineage
                .records
                .into_iter()
                .filter(|r| r.seq <= until)
                .collect();
            return Ok(hotl_view::project_owned(thread, own_start));
        }
        let delegated = self.store.visible_delegated(self.writer.id())?;
        if let Some(child) = delegated
            .iter()
            .find(|d| d.delegation.handle.as_deref() == Some(handle))
        {
            let lineage = self.store.lineage(&child.id)?;
            let own_start = lineage.own_start;
            return Ok(hotl_view::project_owned(lineage.records, own_start));
        }
        let mut known: Vec<String> = Vec::new();
        for item in &self.view.items {
            if let Item::Folded { handle, .. } = item {
                known.push(handle.clone());
            }
        }
        known.extend(delegated.into_iter().filter_map(|d| d.delegation.handle));
        Err(AgentError::NoThread {
            handle: handle.to_owned(),
            known: known.join(", "),
        })
    }

    /// Asks the model to write the note for folding the span from `since` to the head (for a
    /// fold from the shell without a note): the session's own context plus the request, with
    /// tools unchanged. A note missing template lines is sent back once with what is missing.
    pub async fn write_note(
        &mut self,
        since: u64,
        provider: &Provider,
        settings: &Settings,
    ) -> Result<String> {
        let span = self.view.plan_fold(since, None)?;
        let mut ask = format!(
            "[fold] Write the note that will replace the span t{}..t{} of this session in your \
             context (the span stays archived). Reply with the note only: one line each \
             starting with changed:, learned: (with caveats), decided and rejected:, open:, \
             where:",
            span.since, span.until
        );
        let mut note = String::new();
        for _ in 0..2 {
            let mut messages = model_view(&self.view);
            push_user_text(&mut messages, &ask);
            let request = self.base_request(messages, settings);
            let reply = provider.send(&request, &mut |_: &Event| {}).await?;
            drop(request);
            self.account(settings, reply.model.as_deref(), &reply.usage);
            note = reply.content.iter().filter_map(Block::as_text).collect();
            match crate::moves::check_note(&note) {
                Ok(()) => return Ok(note),
                Err(why) => ask = format!("{ask}\n\nYour last note was refused: {why}."),
            }
        }
        crate::moves::check_note(&note).map_err(AgentError::BadNote)?;
        Ok(note)
    }

    /// Folds the span from `since` (up to the step before `issuer`, or the head) into `note`.
    /// Returns the fold as recorded.
    pub fn fold(&mut self, since: u64, issuer: Option<u64>, note: &str) -> Result<hotl_log::Fold> {
        let span = self.view.plan_fold(since, issuer)?;
        self.snapshot()?;
        let lineage = self.store.lineage(self.writer.id())?;
        let mut fold =
            crate::moves::make_fold(&lineage.records, &span, note, &self.taken_handles()?);
        // The diff the span made: from the tree before its first tool ran to the tree now.
        // (The snapshot before a step is recorded after the call that starts it, before its
        // results.) A span that ran no tool changed nothing.
        let first_result = lineage.records.iter().find_map(|r| match &r.body {
            Body::ToolResult { .. } if (span.since..=span.until).contains(&r.seq) => Some(r.seq),
            _ => None,
        });
        let before = first_result.and_then(|first| {
            lineage.records.iter().rev().find_map(|r| match &r.body {
                Body::Snapshot { tree } if r.seq < first => Some(tree.clone()),
                _ => None,
            })
        });
        if let (Some(before), Some(now)) = (before, self.last_tree.clone())
            && before != now
        {
            let blobs = self.store.blobs();
            if let Some(patch) = Snapshotter::diff(&self.cwd, &before, &now, &blobs) {
                fold.diff_blob = Some(blobs.put(&patch)?);
            }
            // What the span changed, whichever tool changed it (no tool reports what `bash`
            // did), with the content it left.
            for path in Snapshotter::changed(&self.cwd, &before, &now, &blobs).unwrap_or_default() {
                let hash = std::fs::read(self.cwd.join(&path))
                    .ok()
                    .map(|bytes| crate::tool::content_hash(&bytes));
                match fold.files.iter_mut().find(|f| f.path == path) {
                    Some(known) => known.hash = hash,
                    None => fold.files.push(hotl_log::FileTouch {
                        op: if hash.is_some() { "changed" } else { "delete" }.to_owned(),
                        path,
                        hash,
                    }),
                }
            }
        }
        self.append(Body::Fold(Box::new(fold.clone())))?;
        note_files(&mut self.archived_files, &fold);
        self.reminder = hotl_view::open_items(&fold.note).map(|open| {
            format!(
                "<reminder>after folding {}: open: {open}</reminder>",
                fold.handle
            )
        });
        Ok(fold)
    }

    /// The handles already given out in this session's tree: its view's archived spans and
    /// the sessions delegated in the tree. A new handle must differ from all of them.
    fn taken_handles(&self) -> Result<Vec<String>> {
        fn folded(items: &[Item], out: &mut Vec<String>) {
            for item in items {
                match item {
                    Item::Folded { handle, items, .. } => {
                        out.push(handle.clone());
                        folded(items, out);
                    }
                    Item::Compacted { items, .. } => folded(items, out),
                    _ => {}
                }
            }
        }
        let mut taken = Vec::new();
        folded(&self.view.items, &mut taken);
        for child in self.store.tree_children(self.writer.root())? {
            if let Some(handle) = self
                .store
                .read_start(&child)
                .ok()
                .and_then(|s| s.delegated)
                .and_then(|d| d.handle)
            {
                taken.push(handle);
            }
        }
        Ok(taken)
    }

    fn record_result(&mut self, call: &str, output: ToolOutput) -> Result<()> {
        for touch in &output.files {
            if let Some((path, handle, title)) = self
                .archived_files
                .iter()
                .find(|(p, _, _)| *p == touch.path)
            {
                self.cue = Some(format!(
                    "<cue>{path} was also touched by the archived thread {handle} ({title}); recall or ask it for what it learned</cue>"
                ));
            }
        }
        if let Some(items) = output.todos.clone() {
            self.append(Body::Todos { items })?;
        }
        self.append(Body::ToolResult {
            call: call.to_owned(),
            content: vec![Block::text(output.content)],
            blob: output.blob,
            is_error: output.is_error,
            files: output.files,
        })
    }

    fn count(&mut self, settings: &Settings, reply: &Reply, outcome: &mut TurnOutcome) {
        add(&mut outcome.usage, &reply.usage);
        if let Some(c) = self.account(settings, reply.model.as_deref(), &reply.usage) {
            *outcome.cost.get_or_insert(0.0) += c;
        }
    }

    /// Counts one response into this process's totals; returns its cost when the price is known.
    fn account(&mut self, settings: &Settings, model: Option<&str>, usage: &Usage) -> Option<f64> {
        add(&mut self.totals.usage, usage);
        self.totals.requests += 1;
        let cost = settings
            .pricing
            .cost(model.unwrap_or(&settings.model), usage);
        if let Some(c) = cost {
            self.totals.cost += c;
        }
        cost
    }

    /// A request carrying the session's frozen prompt and tools and the run's settings. Every
    /// request of a session (turns, asks, notes) starts from this, so they share one cacheable
    /// prefix and one set of request-level settings.
    fn base_request<'a>(
        &self,
        messages: Vec<hotl_view::MessageRef<'a>>,
        settings: &Settings,
    ) -> Request<'a> {
        let mut request = Request::new(settings.model.clone(), messages);
        request.system = self.system.clone();
        request.tools = self.tool_defs.clone();
        request.max_tokens = settings.max_tokens;
        request.reasoning = settings.reasoning.clone();
        request.cache.ttl = settings.ttl;
        request.cache.key = Some(self.cache_key.clone());
        request.cache.explicit_breakpoints = settings.explicit_breakpoints;
        request
    }

    /// The tool calls of the last assistant message that have no result yet: (id, tool name).
    fn open_calls(&self) -> Vec<(String, String)> {
        let mut answered: Vec<&str> = Vec::new();
        for item in self.view.items.iter().rev() {
            match item {
                Item::ToolResult { call, .. } => answered.push(call),
                Item::Assistant { content, .. } => {
                    return content
                        .iter()
                        .filter_map(|b| match b {
                            Block::ToolUse { id, name, .. } if !answered.contains(&id.as_str()) => {
                                Some((id.clone(), name.clone()))
                            }
                            _ => None,
                        })
                        .collect();
                }
                _ => break,
            }
        }
        Vec::new()
    }

    /// Answers every tool call of the last assistant message that has no result yet.
    fn answer_open_calls(&mut self, why: &str) -> Result<()> {
        for (call, _) in self.open_calls() {
            self.append(Body::ToolResult {
                call,
                content: vec![Block::text(why)],
                blob: None,
                is_error: true,
                files: Vec::new(),
            })?;
        }
        Ok(())
    }

    fn cancel_turn(&mut self, run: &str, mut outcome: TurnOutcome) -> Result<TurnOutcome> {
        self.answer_open_calls("cancelled by the user before it finished; it may have partly run")?;
        self.close_run(run, RunState::Cancelled)?;
        outcome.cancelled = true;
        Ok(outcome)
    }

    fn close_run(&mut self, run: &str, state: RunState) -> Result<()> {
        self.append(Body::Run {
            run: run.to_owned(),
            state,
        })
    }
}

/// What a fork's call is answered with: its final message and its handle, or that it was
/// cancelled.
fn fork_report(handle: &str, id: &str, outcome: &TurnOutcome) -> ToolOutput {
    if outcome.cancelled {
        return ToolOutput::error(format!(
            "fork {handle} (session {id}) was cancelled by the user before it finished; \
             its work so far is archived under {handle}"
        ));
    }
    ToolOutput::ok(format!(
        "fork {handle} (session {id}) finished:\n{}",
        outcome.text
    ))
}

/// One tool call of a step.
struct Call {
    id: String,
    name: String,
    input: ToolInput,
}

/// Adds text to the last message when it is the user's, else as a new user message.
fn push_user_text<'a>(messages: &mut Vec<hotl_view::MessageRef<'a>>, text: &'a str) {
    let part = hotl_view::Part::Text(std::borrow::Cow::Borrowed(text));
    match messages.last_mut() {
        Some(last) if last.role == hotl_view::Role::User => last.content.push(part),
        _ => messages.push(hotl_view::MessageRef {
            role: hotl_view::Role::User,
            content: vec![part],
        }),
    }
}

/// Remembers which files the forks `id` can see touched, for the file-touch cue (once each:
/// what is already known stays).
fn note_delegated_files(store: &Store, id: &str, out: &mut Vec<(String, String, String)>) {
    let Ok(delegated) = store.visible_delegated(id) else {
        return;
    };
    for child in delegated {
        let Some(handle) = child.delegation.handle else {
            continue;
        };
        if out.iter().any(|(_, h, _)| *h == handle) {
            continue;
        }
        let Ok(log) = store.read(&child.id) else {
            continue;
        };
        let title = format!("fork: {}", child.delegation.description);
        for record in &log.records {
            if let Body::ToolResult { files, .. } = &record.body {
                for touch in files {
                    out.push((touch.path.clone(), handle.clone(), title.clone()));
                }
            }
        }
    }
}

/// Remembers which files a fold's span touched, for the file-touch cue.
fn note_files(out: &mut Vec<(String, String, String)>, fold: &hotl_log::Fold) {
    let title = fold.note.lines().next().unwrap_or("").trim().to_owned();
    for touch in &fold.files {
        out.push((touch.path.clone(), fold.handle.clone(), title.clone()));
    }
}

fn mode_record(mode: Mode) -> Body {
    Body::Mode {
        permission: Some(mode.name().to_owned()),
        plan: Some(mode == Mode::Plan),
    }
}

fn todo_reminder(todos: &[Todo]) -> String {
    let mut out = String::from("<todos>\n");
    for t in todos {
        out.push_str(&format!("[{}] {}\n", t.status, t.text));
    }
    out.push_str("</todos>");
    out
}

fn add(total: &mut Usage, more: &Usage) {
    total.input += more.input;
    total.cache_read += more.cache_read;
    total.cache_write_5m += more.cache_write_5m;
    total.cache_write_1h += more.cache_write_1h;
    total.output += more.output;
    total.thinking += more.thinking;
}

async fn cancelled(cancel: &mut watch::Receiver<bool>) {
    loop {
        if *cancel.borrow() {
            return;
        }
        if cancel.changed().await.is_err() {
            // Nobody can cancel any more.
            std::future::pending::<()>().await;
        }
    }
}
