//! A session being worked in: its log, its frozen prompt and tools, its view, and what lasts
//! from one turn to the next.
//!
//! Every step is appended as it happens (the user message, each model response, each tool
//! result), so a process killed at any point leaves a log that a later `open` can finish: calls
//! that never got a result are answered "interrupted: may have partly run" and the model is
//! asked again. Cancelling answers open calls the same way and records the run as cancelled;
//! the session stays resumable.
//!
//! Where the parts live: `turn` (the step loop: ask, record, run calls; recovery and
//! cancelling), `rules` (when a turn compacts), `calls` (one call through the tool seam,
//! answering calls left open), `requests` (building requests and counting their cost),
//! `snapshots` (recording the working tree), `settings` and `outcome`, and the moves' work:
//! `fold`, `ask` (with recall), `fork`, and `compact` (the fallback when the window fills).

mod ask;
mod background;
mod calls;
mod checkpoint;
mod compact;
mod context;
mod delegate;
mod dump;
mod fit;
mod fold;
mod fork;
mod loops;
mod ops;
mod printed;
mod requests;
mod rewind;
mod rules;
mod settings;
mod settle;
mod snapshots;
mod spawn;
mod title;
mod turn;
mod unparsed;
mod window_cap;
mod words;

use std::path::{Path, PathBuf};

use hotl_log::{Body, RunState, SessionStart, Store, Writer};
use hotl_view::{Item, View};
use hotl_wire::ToolDef;

use crate::error::{AgentError, Result};
use crate::permission::Mode;
use crate::prompt::system_blocks;
use crate::snapshot::Snapshots;
use hotl_protocol::Status;
use hotl_tool::ToolSet;

pub(crate) use self::checkpoint::view_of as checkpoint_view;
pub use self::checkpoint::{CheckpointState, checkpoint_state};
pub use self::compact::{COMPACT_AT_PERCENT, default_context_window, known_context_window};
pub use self::delegate::{ChildRun, Started};
use self::fold::note_files;
use self::fork::note_delegated_files;
pub use self::settings::{
    DEFAULT_MAX_CONCURRENT, DEFAULT_MAX_DEPTH, DEFAULT_MAX_TOKENS, PROVIDER_KEY_VARS, Settings,
    hidden_env,
};
pub use self::title::TitleSettings;
pub(crate) use self::title::{TitleAsk, TitleReply};
pub use self::turn::INTERRUPTED;
pub use hotl_protocol::ContextParts;
pub use hotl_protocol::{Dump, DumpedTool, messages_text};
pub use hotl_protocol::{Totals, TurnOutcome};

/// A session open for writing. It holds its tree's lock until dropped.
pub struct Session {
    store: Store,
    writer: Writer,
    /// The view, kept current record by record (re-projected from disk only after a record
    /// that changes history: revert, fold, compaction).
    /// It had turns when this process opened it: what this process spent is not all it
    /// spent (the strip says "this run").
    opened_with_turns: bool,
    view: View,
    start: SessionStart,
    last_run: Option<(String, RunState)>,
    /// Bumped whenever the view is re-projected: earlier messages may have changed, so the
    /// encoder must not reuse their bytes.
    epoch: u64,
    /// The open items of the latest fold, reminded during the next turn.
    next_reminder: Option<String>,
    /// Files archived threads touched, for the file-touch cue.
    archived_files: Vec<ArchivedFile>,
    /// The seq of the latest record that shrank what the model sees (fold, compaction, clear,
    /// revert): a provider's count of an earlier request no longer measures the context.
    shrunk_at: u64,
    /// The working tree as last recorded, and what takes the next snapshot.
    tree: WorkingTree,
    /// The system prompt and tool definitions frozen when the session started.
    system: Vec<String>,
    tool_defs: Vec<ToolDef>,
    /// The tools calls can reach: the live ones whose names are among the frozen definitions.
    tools: ToolSet,
    /// What the calls running now printed so far.
    printed: printed::Printed,
    cwd: PathBuf,
    cache_key: String,
    /// What this process spent.
    pub totals: Totals,
    /// Turns this process ran (submitted or recovered).
    turns_run: u64,
    /// Problems with the session, for the user: missing ancestors, lineage depth, frozen
    /// blobs that cannot be read.
    pub problems: Vec<String>,
    /// The view was read from a checkpoint: archived originals are left out of it until
    /// something needs them.
    thin: bool,
    /// The own seq the latest checkpoint covers (0: none), and whether a record since
    /// reshaped the view.
    checkpoint_seq: u64,
    /// Its children running in the background, and their ends not yet recorded.
    background: background::Background,
    /// The handles of its children running in the foreground now.
    in_flight: Vec<String>,
}

/// A file an archived thread touched.
#[derive(Clone, Debug)]
pub(crate) struct ArchivedFile {
    /// Touched by a fork's work (else by a folded span).
    pub(crate) fork: bool,
    pub(crate) path: String,
    pub(crate) handle: String,
    /// The note's first line, or the fork's task.
    pub(crate) title: String,
}

/// The working tree as the log last recorded it, and the snapshotter.
struct WorkingTree {
    /// The latest snapshot recorded. Snapshots are recorded around steps that may change
    /// files (before the first such step of a turn, and after each); the one before is
    /// started in the background when the turn starts.
    last: Option<String>,
    snapshots: Snapshots,
}

impl Drop for Session {
    /// A session let go after many records writes a checkpoint, so the next open reads it
    /// and not the whole log.
    fn drop(&mut self) {
        let last_seq = self.writer.next_seq().saturating_sub(1);
        if last_seq.saturating_sub(self.checkpoint_seq) >= checkpoint::EVERY {
            self.write_checkpoint();
        }
    }
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
    /// Writes a new session in `cwd` (see [`NewSession::create`](crate::NewSession::create)):
    /// the system prompt (with the project's `AGENTS.md` and `CLAUDE.md`) and the definitions
    /// of `tools` are frozen into blobs its `session` record names (`instructions` join the
    /// prompt: an MCP server's); `state` follows it in the same write.
    pub(crate) fn start(
        store: &Store,
        id: &str,
        cwd: &Path,
        model: &str,
        tools: ToolSet,
        instructions: &[String],
        state: Vec<Body>,
    ) -> Result<Session> {
        if !cwd.is_dir() {
            return Err(AgentError::MissingCwd(cwd.display().to_string()));
        }
        let mut system = system_blocks(cwd);
        system.extend(instructions.iter().cloned());
        let blobs = store.blobs();
        let mut start = SessionStart::new(cwd.display().to_string());
        id.clone_into(&mut start.id);
        start.model = Some(model.to_owned());
        start.system_blob =
            Some(blobs.put(&serde_json::to_vec(&system).map_err(hotl_log::LogError::from)?)?);
        start.tools_blob =
            Some(blobs.put(
                &serde_json::to_vec(&tools.definitions()).map_err(hotl_log::LogError::from)?,
            )?);
        let writer = store.create(start, 1, state)?;
        Session::from_writer(store, writer, tools)
    }

    /// Opens an existing session for writing: takes its tree lock (or fails naming the owner),
    /// then loads its lineage and its frozen prompt and tools.
    pub fn open(store: &Store, id: &str, tools: ToolSet) -> Result<Session> {
        let writer = store.writer(id)?;
        let mut session = Session::from_writer(store, writer, tools)?;
        // Background children a dead process left are settled before the session is used.
        session.reconcile_background()?;
        Ok(session)
    }

    /// A session around a writer already holding the lock (a new fork, say). A frozen prompt
    /// or tool list that cannot be read is a problem named in [`Session::problems`]: the
    /// current ones stand in, so the prompt cache starts cold.
    pub fn from_writer(store: &Store, writer: Writer, tools: ToolSet) -> Result<Session> {
        let opened = match checkpoint::open(store, writer.id()) {
            Some(opened) => opened,
            None => opened_from_log(store, writer.id())?,
        };
        let checkpoint::Opened {
            start,
            view,
            mut problems,
            cache_key,
            cwd,
            last_run,
            fold_files,
            shrunk_at,
            last_tree,
            thin,
            checkpoint_seq,
        } = opened;
        let blobs = store.blobs();
        let system = frozen(&blobs, start.system_blob.as_deref(), "system prompt")
            .unwrap_or_else(|why| {
                problems.push(why);
                None
            })
            .unwrap_or_else(|| system_blocks(std::path::Path::new(&start.cwd)));
        let tool_defs = frozen(&blobs, start.tools_blob.as_deref(), "tool definitions")
            .unwrap_or_else(|why| {
                problems.push(why);
                None
            })
            .unwrap_or_else(|| tools.definitions());
        for problem in &problems {
            tracing::warn!(session = writer.id(), "{problem}");
        }
        let tools = tools.filtered(|t| tool_defs.iter().any(|d| d.name == t.name()));
        let mut archived_files = Vec::new();
        note_delegated_files(store, writer.id(), &mut archived_files);
        archived_files.extend(fold_files);
        let snapshots = Snapshots::new(
            store
                .derived_dir("trees")
                .join(format!("{}.index", writer.id())),
        );
        let opened_with_turns = view.turns > 0;
        Ok(Session {
            store: store.clone(),
            writer,
            problems,
            opened_with_turns,
            view,
            start,
            last_run,
            epoch: 0,
            next_reminder: None,
            archived_files,
            shrunk_at,
            tree: WorkingTree {
                last: last_tree,
                snapshots,
            },
            system,
            tool_defs,
            tools,
            printed: printed::Printed::default(),
            cwd,
            cache_key,
            totals: Totals::default(),
            turns_run: 0,
            thin,
            checkpoint_seq,
            background: background::Background::default(),
            in_flight: Vec::new(),
        })
    }

    /// Whether its view was read from a view checkpoint (archived originals left in the log)
    /// and has not been projected from the log since.
    pub fn is_thin(&self) -> bool {
        self.thin
    }

    /// The session id.
    pub fn id(&self) -> &str {
        self.writer.id()
    }

    /// The store it lives in.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The working directory tools run in.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// The current view.
    pub fn view(&self) -> &View {
        &self.view
    }

    /// The tools its calls can reach, in the order the model sees them.
    pub fn tools(&self) -> &ToolSet {
        &self.tools
    }

    /// Lets calls reach `tools` that arrived after the session was opened (an MCP server's),
    /// as many of them as its frozen definitions name.
    pub fn admit_tools(&mut self, tools: &[std::sync::Arc<dyn hotl_tool::Tool>]) {
        for tool in tools {
            if self.tool_defs.iter().any(|d| d.name == tool.name()) {
                // Already there: the one it has stays.
                let _ = self.tools.add(tool.clone());
            }
        }
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

    /// Where the session stands, measured against `settings`' context window.
    pub fn status(&self, settings: &Settings) -> Status {
        let state = &self.view.state;
        let used = self.context_estimate();
        let cache_hit = self.view.items.iter().rev().find_map(|i| match i {
            Item::Assistant { usage: Some(u), .. } => {
                let prompt = u.input + u.cache_read + u.cache_write;
                (prompt > 0).then(|| u.cache_read as f64 / prompt as f64)
            }
            _ => None,
        });
        Status {
            session_id: self.id().to_owned(),
            context_used: used,
            context_window: settings.context_window,
            context_percent: (used * 100)
                .checked_div(settings.context_window)
                .unwrap_or(0),
            todos_done: state.todos.iter().filter(|t| t.status == "done").count(),
            todos: state.todos.len(),
            model: self.last_model(),
            mode: state.modes.permission.clone(),
            effort: settings.effort.clone(),
            sandbox: Some(settings.policy.sandbox_name().to_owned()),
            usage: self.totals.usage,
            cost: self.totals.cost,
            this_run: self.opened_with_turns,
            unpriced: settings.pricing.price(&settings.model).is_none(),
            requests: self.totals.requests,
            cache_hit,
            model_time: self.totals.model_time,
            tool_time: self.totals.tool_time,
        }
    }

    /// The permission mode the session recorded last (plan mode, when set, wins).
    pub fn recorded_mode(&self) -> Option<Mode> {
        let modes = &self.view.state.modes;
        if modes.plan {
            return Some(Mode::Plan);
        }
        modes.permission.as_deref().and_then(Mode::from_name)
    }

    /// The sandbox mode the session recorded last, if any.
    pub fn recorded_sandbox(&self) -> Option<&str> {
        self.view.state.modes.sandbox.as_deref()
    }

    /// Records a sandbox mode (`read-only`, `workspace-write`, `off`): resumes and forks keep it.
    pub fn set_sandbox(&mut self, mode: &str) -> Result<()> {
        self.append(Body::sandbox(mode))
    }

    /// The model chosen in the session (`/model`) and the provider it was chosen on
    /// ([`crate::Provider::identity`]), if one was.
    pub fn recorded_model(&self) -> Option<(&str, &str)> {
        let modes = &self.view.state.modes;
        Some((
            modes.model.as_deref()?,
            modes.provider.as_deref().unwrap_or(""),
        ))
    }

    /// Records the model chosen on `provider`: a resume on the same provider uses it.
    pub fn set_model(&mut self, model: &str, provider: &str) -> Result<()> {
        self.append(Body::chosen_model(model, provider))
    }

    /// The reasoning effort the session recorded last, if any.
    pub fn recorded_effort(&self) -> Option<&str> {
        self.view.state.modes.effort.as_deref()
    }

    /// Records a reasoning effort (`low`, `medium`, `high`): resumes and forks keep it.
    pub fn set_effort(&mut self, effort: &str) -> Result<()> {
        self.append(Body::effort(effort))
    }

    /// Appends a record and brings the view up to date.
    fn append(&mut self, body: Body) -> Result<()> {
        self.append_all(vec![body])
    }

    /// Appends records in one write and one sync, and brings the view up to date.
    fn append_all(&mut self, bodies: Vec<Body>) -> Result<()> {
        let mut rebuild = false;
        let mut reshaped = false;
        for record in self.writer.append_all(bodies)? {
            if let Body::Run { run, state } = &record.body {
                self.last_run = Some((run.clone(), state.clone()));
            }
            if shrinks(&record.body) {
                self.shrunk_at = record.seq;
            }
            reshaped |= checkpoint::reshapes(&record);
            rebuild |= !rebuild && self.view.push(record).is_err();
        }
        if rebuild {
            let lineage = self.store.lineage(self.writer.id())?;
            let visible = hotl_log::visible_mask(&lineage.records);
            self.last_run = last_visible_run(&lineage.records, &visible);
            self.view = View::from_lineage(lineage);
            self.thin = false;
            self.epoch += 1;
        }
        if reshaped {
            // The next open would otherwise project everything this record reshaped.
            self.write_checkpoint();
        }
        Ok(())
    }

    /// Writes a view checkpoint of the session as it stands (a failure costs only speed, and
    /// is logged). Not for a session whose lineage has problems: it opens from its log, so
    /// they are told each time.
    fn write_checkpoint(&mut self) {
        if !self.problems.is_empty() {
            return;
        }
        let last_seq = self.writer.next_seq().saturating_sub(1);
        let snapshot = checkpoint::Snapshot {
            id: self.writer.id(),
            start: &self.start,
            last_seq,
            view: &self.view,
            cache_key: &self.cache_key,
            cwd: &self.cwd,
            last_run: self.last_run.as_ref(),
            fold_files: self.archived_files.iter().filter(|f| !f.fork).collect(),
            shrunk_at: self.shrunk_at,
            last_tree: self.tree.last.as_deref(),
        };
        match checkpoint::write(&self.store, &snapshot) {
            Ok(()) => self.checkpoint_seq = last_seq,
            Err(e) => tracing::warn!(session = self.id(), "no view checkpoint written: {e}"),
        }
    }

    /// Names the session: the name rule (valid, unique among live sessions) is checked before
    /// anything is written.
    pub fn set_name(&mut self, name: &str) -> Result<()> {
        self.store.check_name(name, Some(self.writer.id()))?;
        self.append(Body::Name {
            name: Some(name.to_owned()),
        })
    }

    /// Records a permission mode change.
    pub fn set_mode(&mut self, mode: Mode) -> Result<()> {
        self.append(mode_record(mode))
    }
}

/// What opening session `id` computes, read from its whole lineage.
fn opened_from_log(store: &Store, id: &str) -> Result<checkpoint::Opened> {
    let lineage = store.lineage(id)?;
    let start = lineage.start().clone();
    let problems: Vec<String> = lineage.problems.iter().map(ToString::to_string).collect();
    // The latest `fresh` wins, inherited ones too: a fork of a freshened session shares its
    // cache shard.
    let freshened = lineage.records.iter().rev().find_map(|r| match &r.body {
        Body::Fresh { cache_key } => Some(cache_key.clone()),
        _ => None,
    });
    let cache_key = freshened
        .or_else(|| start.cache_key.clone())
        .or_else(|| lineage.ancestors.last().cloned())
        .unwrap_or_else(|| id.to_owned());
    // A move is the session's own: a fork records its own directory.
    let cwd = lineage.records[lineage.own_start..]
        .iter()
        .rev()
        .find_map(|r| match &r.body {
            Body::Reroot { cwd } => Some(PathBuf::from(cwd)),
            _ => None,
        })
        .unwrap_or_else(|| PathBuf::from(&start.cwd));
    // A reverted branch holds no open turn and no archived thread.
    let visible = hotl_log::visible_mask(&lineage.records);
    let last_run = last_visible_run(&lineage.records, &visible);
    let mut fold_files = Vec::new();
    let mut last_tree = None;
    let mut shrunk_at = 0;
    for (record, visible) in lineage.records.iter().zip(&visible) {
        if shrinks(&record.body) {
            shrunk_at = record.seq;
        }
        match &record.body {
            Body::Fold(fold) if *visible => note_files(&mut fold_files, fold),
            Body::Snapshot { tree } => last_tree = Some(tree.clone()),
            _ => {}
        }
    }
    Ok(checkpoint::Opened {
        start,
        view: View::from_lineage(lineage),
        problems,
        cache_key,
        cwd,
        last_run,
        fold_files,
        shrunk_at,
        last_tree,
        thin: false,
        checkpoint_seq: 0,
    })
}

/// A frozen blob's content as `T`, `None` when the session froze none, or the problem.
fn frozen<T: serde::de::DeserializeOwned>(
    blobs: &hotl_log::Blobs,
    hash: Option<&str>,
    what: &str,
) -> std::result::Result<Option<T>, String> {
    let Some(bytes) = hotl_log::read_frozen(blobs, hash, what)? else {
        return Ok(None);
    };
    serde_json::from_slice(&bytes).map(Some).map_err(|e| {
        format!(
            "the session's frozen {what} (blob {}) is damaged: {e}",
            hash.unwrap_or_default()
        )
    })
}

pub(crate) fn mode_record(mode: Mode) -> Body {
    Body::Mode {
        permission: Some(mode.name().to_owned()),
        plan: Some(mode == Mode::Plan),
        effort: None,
        sandbox: None,
        model: None,
        provider: None,
    }
}

/// Whether a record shrinks what the model sees.
fn shrinks(body: &Body) -> bool {
    matches!(
        body,
        Body::Fold(_) | Body::Compaction { .. } | Body::Clear | Body::Revert { .. }
    )
}

/// The latest `run` record on the visible branch: a run a revert left behind is not open.
fn last_visible_run(records: &[hotl_log::Record], visible: &[bool]) -> Option<(String, RunState)> {
    records
        .iter()
        .zip(visible)
        .rev()
        .find_map(|(r, v)| match &r.body {
            Body::Run { run, state } if *v => Some((run.clone(), state.clone())),
            _ => None,
        })
}
