//! Lineage: a session's records with its ancestors' history in front, read up to each fork pin.

use std::fmt;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use serde::Serialize;

use crate::error::{IoResultExt, LogError, Result};
use crate::meta::{SessionMeta, summarize};
use crate::read::LoadReport;
use crate::record::{Pin, Record, SessionStart};
use crate::store::Store;

/// Replay follows at most this many ancestors; older history is shed with a warning.
pub const MAX_ANCESTORS: usize = 32;

/// How many bytes before a pin's offset its hash covers.
const PIN_HASH_WINDOW: u64 = 4096;

/// Something wrong with a session's ancestry. The lineage still loads what it can.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LineageProblem {
    /// A pinned ancestor is not on disk; history before it is unavailable.
    MissingAncestor {
        /// The missing session.
        ancestor: String,
        /// The session whose pin names it.
        child: String,
    },
    /// The bytes at a pin differ from what the fork saw.
    ChangedAncestor {
        /// The changed session.
        ancestor: String,
        /// The session whose pin names it.
        child: String,
    },
    /// More than [`MAX_ANCESTORS`] ancestors; the oldest were shed.
    TooDeep {
        /// The oldest ancestor that was kept.
        oldest_kept: String,
    },
    /// An ancestor's log has skipped lines.
    DamagedAncestor {
        /// The ancestor.
        ancestor: String,
        /// What was skipped.
        summary: String,
    },
}

impl fmt::Display for LineageProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineageProblem::MissingAncestor { ancestor, child } => write!(
                f,
                "ancestor {ancestor} (parent of {child}) is missing: history before it is unavailable"
            ),
            LineageProblem::ChangedAncestor { ancestor, child } => write!(
                f,
                "ancestor {ancestor} changed at the point {child} was forked from"
            ),
            LineageProblem::TooDeep { oldest_kept } => write!(
                f,
                "lineage is deeper than {MAX_ANCESTORS} ancestors: history before {oldest_kept} was shed; start a fresh session rather than forking further"
            ),
            LineageProblem::DamagedAncestor { ancestor, summary } => {
                write!(f, "ancestor {ancestor}: {summary}")
            }
        }
    }
}

/// A session's records with inherited history in front.
#[derive(Clone, Debug)]
pub struct Lineage {
    /// The session's id.
    pub id: String,
    /// Inherited records (oldest ancestor first, each cut at its pin), then the own log's.
    pub records: Vec<Record>,
    /// Index of the first own record.
    pub own_start: usize,
    /// For each own record, the offset just past its line.
    pub own_ends: Vec<u64>,
    /// What reading the own log skipped.
    pub report: LoadReport,
    /// Bytes of the own log that were read.
    pub own_bytes: u64,
    /// Offset just past the own log's last complete line.
    pub own_complete_end: u64,
    /// Ancestor ids, nearest first.
    pub ancestors: Vec<String>,
    /// Problems with the ancestry.
    pub problems: Vec<LineageProblem>,
}

impl Lineage {
    /// The own `session` record.
    pub fn start(&self) -> &SessionStart {
        match &self.records[self.own_start].body {
            crate::record::Body::Session(s) => s,
            _ => unreachable!("lineage loading guarantees the own log starts with a session"),
        }
    }

    /// The session's own records.
    pub fn own(&self) -> &[Record] {
        &self.records[self.own_start..]
    }

    /// The summary the metadata cache holds.
    pub fn summarize(&self) -> SessionMeta {
        let mut meta = summarize(&self.records, self.own_start);
        meta.note_problems(&self.report);
        meta.complete_end = self.own_complete_end;
        meta
    }

    /// Where a fork that sees everything up to `seq` must pin, as (offset into this session's
    /// log). Seqs in inherited history pin at the end of the own `session` line: reading the
    /// pinned session then stops there and the seq cut trims the ancestors.
    pub fn offset_for(&self, seq: u64) -> u64 {
        let own = self.own();
        let idx = own.iter().rposition(|r| r.seq <= seq).unwrap_or(0);
        self.own_ends[idx]
    }
}

impl Store {
    /// Loads a session's lineage. Fails when the session is missing or has no `session` record;
    /// missing, changed or too-deep ancestry is reported in [`Lineage::problems`].
    pub fn lineage(&self, id: &str) -> Result<Lineage> {
        let own = self.read(id)?;
        let Some(start_idx) = own.records.iter().position(|r| r.start().is_some()) else {
            return Err(LogError::NotALog {
                path: self.log_path(id),
                reason: "no valid session record".to_owned(),
            });
        };
        let mut problems = Vec::new();
        let mut ancestors: Vec<(Pin, Vec<Record>)> = Vec::new();
        let mut pin = own.records[start_idx]
            .start()
            .and_then(|s| s.parent.clone());
        let mut child = id.to_owned();
        while let Some(p) = pin {
            if ancestors.len() >= MAX_ANCESTORS {
                problems.push(LineageProblem::TooDeep {
                    oldest_kept: child.clone(),
                });
                break;
            }
            // Decoding refuses a pin that is not a session id; a pin made in memory is checked
            // here too, since the id becomes a file name.
            if !crate::store::is_session_id(&p.session) || !self.exists(&p.session) {
                problems.push(LineageProblem::MissingAncestor {
                    ancestor: p.session.clone(),
                    child: child.clone(),
                });
                break;
            }
            let log = self.read_limited(&p.session, Some(p.offset))?;
            self.need(&p.session, pinned_bytes(p.offset))?;
            if pin_hash(&self.log_path(&p.session), p.offset)? != p.hash {
                problems.push(LineageProblem::ChangedAncestor {
                    ancestor: p.session.clone(),
                    child: child.clone(),
                });
            }
            if let Some(summary) = log.report.damage_summary() {
                problems.push(LineageProblem::DamagedAncestor {
                    ancestor: p.session.clone(),
                    summary,
                });
            }
            pin = log.start().and_then(|s| s.parent.clone());
            child.clone_from(&p.session);
            ancestors.push((p, log.records));
        }
        let ancestor_ids = ancestors.iter().map(|(p, _)| p.session.clone()).collect();
        let own_ends: Vec<u64> = own.spans[start_idx..].iter().map(|s| s.end).collect();
        let mut own_records = own.records;
        own_records.drain(..start_idx);
        let (records, own_start) = if ancestors.is_empty() {
            (own_records, 0)
        } else {
            let mut records = Vec::new();
            for (p, ancestor_records) in ancestors.into_iter().rev() {
                records.extend(ancestor_records);
                records.retain(|r| r.seq <= p.seq);
            }
            let own_start = records.len();
            records.extend(own_records);
            (records, own_start)
        };
        let own_bytes = own.bytes;
        let own_complete_end = own.complete_end;
        let report = own.report;
        Ok(Lineage {
            id: id.to_owned(),
            records,
            own_start,
            own_ends,
            report,
            own_bytes,
            own_complete_end,
            ancestors: ancestor_ids,
            problems,
        })
    }

    /// A pin into `id`'s log that sees everything up to `seq`, ending at `offset`.
    pub fn pin(&self, id: &str, seq: u64, offset: u64) -> Result<Pin> {
        Ok(Pin {
            session: id.to_owned(),
            seq,
            offset,
            hash: {
                self.need(id, pinned_bytes(offset))?;
                pin_hash(&self.log_path(id), offset)?
            },
        })
    }
}

impl Record {
    /// The session start, if this is a `session` record.
    pub fn start(&self) -> Option<&SessionStart> {
        match &self.body {
            crate::record::Body::Session(s) => Some(s),
            _ => None,
        }
    }
}

/// The bytes [`pin_hash`] reads for a pin at `offset`: the (at most) 4 KiB before it.
pub fn pinned_bytes(offset: u64) -> std::ops::Range<u64> {
    offset.saturating_sub(PIN_HASH_WINDOW)..offset
}

/// [`pin_hash`] of the bytes [`pinned_bytes`] names, already read.
pub fn pin_hash_of(pinned: &[u8]) -> String {
    blake3::hash(pinned).to_hex()[..32].to_owned()
}

/// blake3 of the bytes just before `offset` (at most 4 KiB): cheap to check, whatever the size.
pub fn pin_hash(path: &Path, offset: u64) -> Result<String> {
    let mut file = File::open(path).at(path)?;
    let from = offset.saturating_sub(PIN_HASH_WINDOW);
    file.seek(SeekFrom::Start(from)).at(path)?;
    let mut buf = Vec::with_capacity((offset - from) as usize);
    file.take(offset - from).read_to_end(&mut buf).at(path)?;
    Ok(pin_hash_of(&buf))
}
