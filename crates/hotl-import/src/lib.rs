//! Foreign sessions brought in: Claude Code, Codex and pi session files converted into hotl
//! sessions.
//!
//! [`import_foreign`] reads one file (a `.jsonl.zst` through a pure-Rust decoder), converts it
//! into a new session under a fresh id (sub-agent transcripts as clean delegated children in
//! its tree), preceded by an `import` record naming the source, and writes the whole tree
//! atomically. Damage never fails an import: every line left out is in the returned
//! [`Report`] with its number. [`discover`] lists a directory's sessions for a picker;
//! [`resolve`] finds a file by session id.
//!
//! Imported tool calls stay structured in the log; the model view sends them as text notes
//! (`hotl-view`), so a session continues on any provider. Thinking signatures, bound to the
//! provider account that made them, are kept only in the extra `src` field.
//!
//! Synchronous, no network.

#![deny(missing_docs)]

mod claude;
mod codex;
mod discover;
mod draft;
mod error;
mod ledger;
mod lines;
mod pi;
mod report;
mod source;
mod time;
mod write;

use std::path::{Path, PathBuf};

use hotl_log::{Delegation, ImportInfo, SessionStart, Store, new_session_id};

pub use crate::discover::{Candidate, Homes, Peek, discover, resolve, session_files};
pub use crate::draft::NO_RESULT;
pub use crate::error::{ImportError, Result};
pub use crate::report::{Report, SkippedLine};
pub use crate::source::Source;

use crate::draft::Draft;
use crate::write::Session;

/// How to import.
#[derive(Clone, Debug, Default)]
pub struct ImportOptions {
    /// The working directory the session gets, whatever the file recorded (`--cwd`).
    pub cwd: Option<PathBuf>,
    /// The working directory used when the file records none.
    pub fallback_cwd: Option<PathBuf>,
}

/// What an import did.
#[derive(Clone, Debug)]
pub struct ImportOutcome {
    /// The session's id in this home.
    pub id: String,
    /// The file was imported before, unchanged: `id` is that import's session, nothing new
    /// was written (and `report` is empty).
    pub existing: bool,
    /// The session an earlier import of the same file (since changed) became.
    pub previous: Option<String>,
    /// The sub-agent sessions created in its tree.
    pub children: Vec<String>,
    /// The session's working directory.
    pub cwd: String,
    /// That directory does not exist on this machine.
    pub cwd_missing: bool,
    /// What reading and converting the file skipped.
    pub report: Report,
}

/// Imports the `source` session in `path` into `store` (see the crate doc). Importing a file
/// imported before, unchanged, returns that session with `existing` set.
pub fn import_foreign(
    store: &Store,
    source: Source,
    path: &Path,
    opts: &ImportOptions,
) -> Result<ImportOutcome> {
    let canonical = std::fs::canonicalize(path).map_err(|e| ImportError::Read {
        path: path.to_owned(),
        source: e,
    })?;
    let shown_path = canonical.to_string_lossy().into_owned();
    let bytes = lines::read_bytes(&canonical)?;
    let blake3 = blake3::hash(&bytes).to_hex().to_string();
    let ledger = ledger::Ledger::load(store);
    if let Some(id) = ledger.find(store, &shown_path, &blake3) {
        let start = store.read_start(&id)?;
        return Ok(ImportOutcome {
            id,
            existing: true,
            previous: None,
            children: Vec::new(),
            cwd_missing: !Path::new(&start.cwd).is_dir(),
            cwd: start.cwd,
            report: Report::default(),
        });
    }
    let previous = ledger.latest(store, &shown_path);
    let mut report = Report::default();
    let parsed = lines::parse(&bytes, &mut report);
    let converted = match source {
        Source::Claude => from_claude(&canonical, parsed, &mut report)?,
        Source::Codex => from_codex(&canonical, parsed, &mut report)?,
        Source::Pi => from_pi(&canonical, parsed, &mut report)?,
    };
    // Reading reports bad lines before converting reports the rest: in file order.
    report.lines.sort_by_key(|l| l.line);
    let cwd = opts
        .cwd
        .as_ref()
        .map(|c| c.to_string_lossy().into_owned())
        .or(converted.cwd.clone())
        .or_else(|| {
            report.note("the file records no working directory; the current one is used");
            opts.fallback_cwd
                .as_ref()
                .map(|c| c.to_string_lossy().into_owned())
        })
        .unwrap_or_default();
    let cwd_missing = !Path::new(&cwd).is_dir();
    if cwd_missing {
        report.note(format!(
            "the working directory {cwd} does not exist on this machine"
        ));
    }
    let id = new_session_id();
    let mut start = SessionStart::new(cwd.clone());
    start.id.clone_from(&id);
    let info = ImportInfo {
        source: source.record_name().to_owned(),
        source_version: converted.version,
        source_id: converted.source_id,
        source_path: shown_path.clone(),
        blake3: blake3.clone(),
        records_total: report.records_total,
        skipped: report.skipped.clone(),
        notes: report.notes.clone(),
        previous: previous.clone(),
        until: 0,
    };
    let now = store.clock().stamp();
    let root = Session {
        id: id.clone(),
        start,
        info,
        draft: converted.draft,
    }
    .encode(&now)?;
    let mut children = Vec::new();
    let mut child_ids = Vec::new();
    for child in converted.children {
        let child_id = new_session_id();
        let mut start = SessionStart::new(child.cwd.unwrap_or_else(|| cwd.clone()));
        start.id.clone_from(&child_id);
        start.delegated = Some(Delegation {
            by: id.clone(),
            agent: child.agent,
            description: child.description,
            handle: child.handle,
            call: child.call,
            at: child.at,
            agent_blob: None,
            background: false,
        });
        let bytes = Session {
            id: child_id.clone(),
            start,
            info: child.info,
            draft: child.draft,
        }
        .encode(&now)?;
        child_ids.push(child_id.clone());
        children.push((child_id, bytes));
    }
    store.create_encoded((&id, &root), &children)?;
    ledger.add(
        store,
        ledger::Entry {
            path: shown_path,
            blake3,
            id: id.clone(),
            source: source.record_name().to_owned(),
        },
    )?;
    Ok(ImportOutcome {
        id,
        existing: false,
        previous,
        children: child_ids,
        cwd,
        cwd_missing,
        report,
    })
}

/// A converted file, before ids are given out.
struct Converted {
    source_id: Option<String>,
    version: Option<String>,
    cwd: Option<String>,
    draft: Draft,
    children: Vec<Child>,
}

/// A sub-agent's converted transcript.
struct Child {
    cwd: Option<String>,
    /// What recall and ask know it by: the agent's own id, when it is hex like hotl's handles.
    handle: Option<String>,
    agent: Option<String>,
    description: String,
    call: Option<String>,
    at: Option<u64>,
    info: ImportInfo,
    draft: Draft,
}

fn from_claude(path: &Path, parsed: Vec<lines::Line>, report: &mut Report) -> Result<Converted> {
    let conv = claude::convert(parsed, claude::Mode::Session, report);
    if conv.draft.is_empty() && conv.sidechain > 0 {
        let parent = conv.session_id.unwrap_or_else(|| "unknown".to_owned());
        let hint = claude::parent_session_file(path, &parent)
            .map(|p| format!(": {}", p.display()))
            .unwrap_or_default();
        return Err(ImportError::SubAgent {
            path: path.to_owned(),
            parent,
            hint,
        });
    }
    if conv.draft.is_empty() && conv.session_id.is_none() {
        return Err(ImportError::NotASession {
            path: path.to_owned(),
            agent: Source::Claude.display(),
            reason: "no user or assistant record".to_owned(),
        });
    }
    let mut children = Vec::new();
    if let Some(session_id) = &conv.session_id {
        for file in claude::find_subagents(path, session_id) {
            let Ok(bytes) = lines::read_bytes(&file.path) else {
                report.note(format!("sub-agent {} could not be read", file.agent_id));
                continue;
            };
            let mut child_report = Report::default();
            let parsed = lines::parse(&bytes, &mut child_report);
            let child = claude::convert(parsed, claude::Mode::SubAgent, &mut child_report);
            if child.draft.is_empty() {
                continue;
            }
            let call = file
                .call
                .clone()
                .or_else(|| conv.agents.get(&file.agent_id).cloned());
            let task = call.as_ref().and_then(|c| conv.tasks.get(c));
            if task.is_none() {
                report.note(format!(
                    "sub-agent {} is linked to no call of the session (imported unplaced)",
                    file.agent_id
                ));
            }
            let info = ImportInfo {
                source: Source::Claude.record_name().to_owned(),
                source_version: child.version.clone(),
                source_id: Some(format!("agent-{}", file.agent_id)),
                source_path: file.path.to_string_lossy().into_owned(),
                blake3: blake3::hash(&bytes).to_hex().to_string(),
                records_total: child_report.records_total,
                skipped: child_report.skipped,
                notes: child_report.notes,
                previous: None,
                until: 0,
            };
            let hex =
                !file.agent_id.is_empty() && file.agent_id.chars().all(|c| c.is_ascii_hexdigit());
            children.push(Child {
                cwd: child.cwd,
                handle: hex.then(|| file.agent_id.to_ascii_lowercase()),
                agent: task.and_then(|t| t.agent.clone()).or(file.agent),
                description: task
                    .map(|t| t.description.clone())
                    .or(file.description)
                    .unwrap_or_default(),
                at: task.map(|t| t.seq).filter(|&s| s > 0),
                call,
                info,
                draft: child.draft,
            });
        }
    }
    Ok(Converted {
        source_id: conv.session_id,
        version: conv.version,
        cwd: conv.cwd,
        draft: conv.draft,
        children,
    })
}

fn from_codex(path: &Path, parsed: Vec<lines::Line>, report: &mut Report) -> Result<Converted> {
    let conv = codex::convert(parsed, report);
    if let Some(parent) = conv.parent_thread {
        return Err(ImportError::SubAgent {
            path: path.to_owned(),
            parent,
            hint: String::new(),
        });
    }
    if conv.session_id.is_none() && conv.draft.is_empty() {
        return Err(ImportError::NotASession {
            path: path.to_owned(),
            agent: Source::Codex.display(),
            reason: "no session_meta line and no messages".to_owned(),
        });
    }
    if conv.instructions {
        report.note(
            "Codex's base instructions are not adopted: a continued session runs with hotl's",
        );
    }
    Ok(Converted {
        source_id: conv.session_id,
        version: conv.version,
        cwd: conv.cwd,
        draft: conv.draft,
        children: Vec::new(),
    })
}

fn from_pi(path: &Path, parsed: Vec<lines::Line>, report: &mut Report) -> Result<Converted> {
    let conv = pi::convert(parsed, report);
    if conv.session_id.is_none() && conv.draft.is_empty() {
        return Err(ImportError::NotASession {
            path: path.to_owned(),
            agent: Source::Pi.display(),
            reason: "no session header and no messages".to_owned(),
        });
    }
    Ok(Converted {
        source_id: conv.session_id,
        version: conv.version,
        cwd: conv.cwd,
        draft: conv.draft,
        children: Vec::new(),
    })
}
