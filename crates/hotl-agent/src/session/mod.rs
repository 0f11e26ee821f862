//! A session being worked in: its log, its frozen prompt and tools, and the turn loop.
//!
//! Every step is appended as it happens (the user message, each model response, each tool
//! result), so a process killed at any point leaves a log that a later `open` can finish: calls
//! that never got a result are answered "interrupted: may have partly run" and the model is
//! asked again. Cancelling (Ctrl-C) answers open calls the same way and records the run as
//! cancelled; the session stays resumable.
//!
//! Where the parts live: `settings` (how a turn runs, what it reports), `outcome` (what a turn
//! and this process spent), `turn` (the loop, recovery, cancelling), `calls` (running one tool
//! call, answering the calls left open), `requests` (building requests and counting their
//! cost), `snapshots` (recording the working tree), and the moves on the session's own
//! context: `fold`, `ask` (with recall), `fork`, and `compact` (the fallback when the window
//! fills).

mod ask;
mod calls;
mod compact;
mod fold;
mod fork;
mod outcome;
mod requests;
mod settings;
mod snapshots;
mod turn;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hotl_log::{Body, RunState, SessionStart, Store, Writer};
use hotl_view::{Item, View};
use hotl_wire::ToolDef;

use crate::error::{AgentError, Result};
use crate::permission::Mode;
use crate::prompt::system_blocks;
use crate::snapshot::Snapshots;
use crate::tool::Tool;

pub use self::compact::{COMPACT_AT_PERCENT, default_context_window, known_context_window};
use self::fold::note_files;
use self::fork::note_delegated_files;
pub use self::outcome::{Totals, TurnOutcome};
pub use self::settings::{Progress, Settings, Ui};
pub use self::turn::INTERRUPTED;

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
    /// The seq of the latest record that shrank what the model sees (fold, compaction, clear,
    /// revert): a provider's count of an earlier request no longer measures the context.
    shrunk_at: u64,
    /// The last model call was refused as too long for the window, and compacting could not
    /// make room (nothing left to compact, or what compaction keeps fills it).
    window_full: bool,
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
        // A reverted branch holds no open turn and no archived thread.
        let visible = hotl_log::visible_mask(&lineage.records);
        let last_run = last_visible_run(&lineage.records, &visible);
        let problems = lineage.problems.iter().map(ToString::to_string).collect();
        let mut archived_files = Vec::new();
        let mut last_tree = None;
        let mut shrunk_at = 0;
        note_delegated_files(store, writer.id(), &mut archived_files);
        for (record, visible) in lineage.records.iter().zip(&visible) {
            if shrinks(&record.body) {
                shrunk_at = record.seq;
            }
            match &record.body {
                Body::Fold(fold) if *visible => note_files(&mut archived_files, fold),
                Body::Snapshot { tree } => last_tree = Some(tree.clone()),
                _ => {}
            }
        }
        let snapshots = Snapshots::new(
            store
                .derived_dir("trees")
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
            shrunk_at,
            window_full: false,
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
            if shrinks(&record.body) {
                self.shrunk_at = record.seq;
            }
            rebuild |= !rebuild && self.view.push(record).is_err();
        }
        if rebuild {
            let lineage = self.store.lineage(self.writer.id())?;
            let visible = hotl_log::visible_mask(&lineage.records);
            self.last_run = last_visible_run(&lineage.records, &visible);
            self.view = View::from_lineage(lineage);
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
}

fn mode_record(mode: Mode) -> Body {
    Body::Mode {
        permission: Some(mode.name().to_owned()),
        plan: Some(mode == Mode::Plan),
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
