//! View checkpoints: a derived, verifiable snapshot of what opening a session computes (its
//! view without archived originals, and the session's own state), so that opening reads the
//! checkpoint and only the records written after it, whatever the history holds.
//!
//! A checkpoint lives in `index/views/<id>.json`. It names the position it covers as a fork
//! names its pin (`{seq, offset, hash}`: the hash of the bytes before the offset), and the pins
//! of the session's ancestors, so checking it costs the same at 1,000 records as at 1,000,000.
//! Like every derived file it is only a shortcut: one that is missing, unreadable, from another
//! version, for another id, or whose log or ancestry no longer matches is ignored, the session
//! opens from its log, and the next checkpoint replaces it. It is written when it pays: after
//! a record that reshapes the view (a fold, a compaction, a clear, a revert) and, when a
//! session is let go, once [`EVERY`] records came since the last one.

use std::path::PathBuf;

use hotl_log::{Body, Pin, Record, RunState, SessionStart, Store};
use hotl_view::{ThinView, View};
use serde::{Deserialize, Serialize};

use super::{ArchivedFile, shrinks};

/// The checkpoint format this version writes and reads.
const FORMAT: &str = "hotl-view-checkpoint/1";

/// A session let go writes a checkpoint once this many records came since the last one.
pub(crate) const EVERY: u64 = 512;

/// What a checkpoint holds.
#[derive(Serialize, Deserialize)]
struct Checkpoint {
    format: String,
    /// The hotl version that wrote it: another version's is ignored.
    version: String,
    id: String,
    /// The own log up to here: its last seq, the bytes covered and their hash.
    pin: Pin,
    /// The pins of its ancestors, nearest first (as its lineage reads them).
    ancestors: Vec<Pin>,
    view: ThinView,
    state: State,
}

/// The session's own state at the checkpoint, as opening computes it from the records.
#[derive(Serialize, Deserialize)]
struct State {
    cache_key: String,
    cwd: PathBuf,
    last_run: Option<(String, String)>,
    /// The files each visible fold touched: (path, handle, the note's first line).
    fold_files: Vec<(String, String, String)>,
    shrunk_at: u64,
    last_tree: Option<String>,
}

/// What opening a session computes from its records, by either way.
pub(super) struct Opened {
    pub(super) start: SessionStart,
    pub(super) view: View,
    pub(super) problems: Vec<String>,
    pub(super) cache_key: String,
    pub(super) cwd: PathBuf,
    pub(super) last_run: Option<(String, RunState)>,
    pub(super) fold_files: Vec<ArchivedFile>,
    pub(super) shrunk_at: u64,
    pub(super) last_tree: Option<String>,
    /// The view was read from a checkpoint: archived originals are left out of it.
    pub(super) thin: bool,
    /// The own seq the checkpoint it was read from covers (0: none).
    pub(super) checkpoint_seq: u64,
}

/// Why a checkpoint is not used, for `hotl sessions check`.
#[derive(Debug, PartialEq, Eq)]
pub enum CheckpointState {
    /// None written (a short session, or one never let go since it grew).
    Missing,
    /// It covers the log through `seq`; `after` records came since.
    Current {
        /// The last seq it covers.
        seq: u64,
        /// Records of the own log after it.
        after: usize,
    },
    /// It is ignored (and rebuilt at the next open): why.
    Ignored(String),
}

impl std::fmt::Display for CheckpointState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CheckpointState::Missing => write!(f, "no view checkpoint: opening reads the log"),
            CheckpointState::Current { seq, after } => write!(
                f,
                "view checkpoint through t{seq}: opening reads it and the {after} record{} after it",
                if *after == 1 { "" } else { "s" }
            ),
            CheckpointState::Ignored(why) => write!(
                f,
                "view checkpoint ignored ({why}): opening reads the log, and the next checkpoint replaces it"
            ),
        }
    }
}

/// The checkpoint of session `id`, checked against its log and ancestry.
fn load(store: &Store, id: &str) -> Result<Checkpoint, String> {
    let path = store.view_checkpoint_path(id);
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(String::new()),
        Err(e) => return Err(format!("cannot read it: {e}")),
    };
    let checkpoint: Checkpoint =
        serde_json::from_slice(&bytes).map_err(|e| format!("damaged: {e}"))?;
    if checkpoint.format != FORMAT || checkpoint.version != env!("CARGO_PKG_VERSION") {
        return Err(format!(
            "written by another version ({} {})",
            checkpoint.format, checkpoint.version
        ));
    }
    if checkpoint.id != id || checkpoint.pin.session != id {
        return Err(format!("made for session {}", checkpoint.id));
    }
    if !store.pin_holds(&checkpoint.pin) {
        return Err("its log no longer matches it".to_owned());
    }
    if let Some(changed) = checkpoint.ancestors.iter().find(|p| !store.pin_holds(p)) {
        return Err(format!("ancestor {} changed or is gone", changed.session));
    }
    Ok(checkpoint)
}

/// How session `id`'s checkpoint stands, for `hotl sessions check`.
pub fn checkpoint_state(store: &Store, id: &str) -> CheckpointState {
    match load(store, id) {
        Ok(checkpoint) => {
            let after = store
                .read_after(id, checkpoint.pin.offset)
                .map_or(0, |log| log.records.len());
            CheckpointState::Current {
                seq: checkpoint.pin.seq,
                after,
            }
        }
        Err(why) if why.is_empty() => CheckpointState::Missing,
        Err(why) => CheckpointState::Ignored(why),
    }
}

/// Opens session `id` from its checkpoint and the records after it; `None` when there is no
/// usable checkpoint, or the records after it need a full projection (a fold, a revert, a
/// damaged line): the caller reads the log.
pub(super) fn open(store: &Store, id: &str) -> Option<Opened> {
    let checkpoint = match load(store, id) {
        Ok(checkpoint) => checkpoint,
        Err(why) => {
            if !why.is_empty() {
                tracing::info!(session = id, "view checkpoint ignored: {why}");
            }
            return None;
        }
    };
    let start = store.read_start(id).ok()?;
    let tail = store.read_after(id, checkpoint.pin.offset).ok()?;
    if tail.report.damage_summary().is_some() || tail.report.torn_tail.is_some() {
        return None;
    }
    let State {
        mut cache_key,
        mut cwd,
        last_run,
        fold_files,
        mut shrunk_at,
        mut last_tree,
    } = checkpoint.state;
    let mut last_run = last_run.map(|(run, state)| (run, RunState::parse(&state)));
    let mut view = View::from_thin(checkpoint.view);
    for record in tail.records {
        match &record.body {
            Body::Run { run, state } => last_run = Some((run.clone(), state.clone())),
            Body::Snapshot { tree } => last_tree = Some(tree.clone()),
            Body::Fresh { cache_key: key } => cache_key.clone_from(key),
            Body::Reroot { cwd: to } => cwd = PathBuf::from(to),
            _ => {}
        }
        if shrinks(&record.body) {
            shrunk_at = record.seq;
        }
        // A record that reshapes what came before is projected from the log.
        view.push(record).ok()?;
    }
    Some(Opened {
        start,
        view,
        problems: Vec::new(),
        cache_key,
        cwd,
        last_run,
        fold_files: fold_files
            .into_iter()
            .map(|(path, handle, title)| ArchivedFile {
                fork: false,
                path,
                handle,
                title,
            })
            .collect(),
        shrunk_at,
        last_tree,
        thin: true,
        checkpoint_seq: checkpoint.pin.seq,
    })
}

/// Session `id`'s view from its checkpoint and the records after it, without opening the
/// session (a fork reads its parent this way); `None` when the log must be projected.
pub(crate) fn view_of(store: &Store, id: &str) -> Option<View> {
    open(store, id).map(|opened| opened.view)
}

/// What [`write`] needs of a session.
pub(super) struct Snapshot<'a> {
    pub(super) id: &'a str,
    pub(super) start: &'a SessionStart,
    pub(super) last_seq: u64,
    pub(super) view: &'a View,
    pub(super) cache_key: &'a str,
    pub(super) cwd: &'a std::path::Path,
    pub(super) last_run: Option<&'a (String, RunState)>,
    pub(super) fold_files: Vec<&'a ArchivedFile>,
    pub(super) shrunk_at: u64,
    pub(super) last_tree: Option<&'a str>,
}

/// Writes the checkpoint of a session whose log ends at its last complete record (its writer
/// holds the lock, so nothing is half written).
pub(super) fn write(store: &Store, session: &Snapshot<'_>) -> hotl_log::Result<()> {
    let offset = store.log_size(session.id)?;
    let pin = store.pin(session.id, session.last_seq, offset)?;
    let mut ancestors = Vec::new();
    let mut parent = session.start.parent.clone();
    while let Some(pin) = parent {
        if ancestors.len() >= hotl_log::MAX_ANCESTORS {
            break;
        }
        parent = store.read_start(&pin.session)?.parent;
        ancestors.push(pin);
    }
    let checkpoint = Checkpoint {
        format: FORMAT.to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        id: session.id.to_owned(),
        pin,
        ancestors,
        view: session.view.thin(),
        state: State {
            cache_key: session.cache_key.to_owned(),
            cwd: session.cwd.to_path_buf(),
            last_run: session
                .last_run
                .map(|(run, state)| (run.clone(), state.as_str().to_owned())),
            fold_files: session
                .fold_files
                .iter()
                .map(|f| (f.path.clone(), f.handle.clone(), f.title.clone()))
                .collect(),
            shrunk_at: session.shrunk_at,
            last_tree: session.last_tree.map(str::to_owned),
        },
    };
    let bytes = serde_json::to_vec(&checkpoint).map_err(hotl_log::LogError::from)?;
    store.put_view_checkpoint(session.id, &bytes)
}

/// Whether `record` is one a checkpoint is worth writing after: it reshaped the view.
pub(super) fn reshapes(record: &Record) -> bool {
    shrinks(&record.body)
}
