//! The metadata cache: a small summary of each session, so listing never reads logs.
//!
//! `sessions/<id>.meta.json` is derived: it is trusted only while the log's size and mtime match
//! the ones it records, and rebuilt silently when missing, stale or unreadable.

use std::time::UNIX_EPOCH;

use serde::{Deserialize, Serialize};

use crate::block::plain_text;
use crate::branch::visible_mask;
use crate::read::LoadReport;
use crate::record::{Body, Record, Todo};

/// Bumped whenever the cache's shape or meaning changes; other versions are rebuilt.
pub const META_FORMAT: u32 = 2;

/// The longest title derived from a first message.
const TITLE_CHARS: usize = 80;

/// Where a fork starts, as listings show it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParentRef {
    /// The parent's id.
    pub session: String,
    /// The last parent seq the fork sees.
    pub seq: u64,
}

/// Permission and plan mode.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Modes {
    /// Permission mode, when one was set.
    pub permission: Option<String>,
    /// Plan mode.
    pub plan: bool,
    /// Reasoning effort, when one was set (`low`, `medium`, `high`).
    #[serde(default)]
    pub effort: Option<String>,
    /// Sandbox mode, when one other than the default was set.
    #[serde(default)]
    pub sandbox: Option<String>,
    /// The model chosen in the session (`/model`), when one was.
    #[serde(default)]
    pub model: Option<String>,
    /// The provider that model was chosen on.
    #[serde(default)]
    pub provider: Option<String>,
}

/// Counts of what the last read skipped.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProblemCounts {
    /// Lines that did not parse.
    pub corrupt: u64,
    /// Records of unknown type.
    pub unknown: u64,
    /// Out-of-order seqs.
    pub seq: u64,
    /// Whether the log ends in a torn line.
    pub torn: bool,
}

/// The cached summary of one session.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionMeta {
    /// Cache format; see [`META_FORMAT`].
    pub format: u32,
    /// Session id.
    pub id: String,
    /// Fork point, for forks.
    pub parent: Option<ParentRef>,
    /// Working directory.
    pub cwd: String,
    /// Model configured at start.
    pub model: Option<String>,
    /// Timestamp of the `session` record.
    pub created: String,
    /// Timestamp of the newest record.
    pub updated: String,
    /// Name, if set.
    pub name: Option<String>,
    /// Explicit title, if one was recorded.
    pub title: Option<String>,
    /// The first user message, shortened (the title when none was recorded).
    pub first_message: Option<String>,
    /// User turns on the visible branch, inherited ones included.
    pub turns: u64,
    /// Records in this session's own log.
    pub records: u64,
    /// Largest seq in the own log.
    pub last_seq: u64,
    /// Offset just past the last complete line.
    pub complete_end: u64,
    /// Log size when this summary was made.
    pub size: u64,
    /// Log mtime (ns since the epoch) when this summary was made.
    pub mtime_ns: u128,
    /// Dropped, and kept only for its descendants.
    pub dropped: bool,
    /// Current modes.
    pub modes: Modes,
    /// Current todo list.
    pub todos: Vec<Todo>,
    /// What reading skipped.
    pub problems: ProblemCounts,
    /// The own log's `revert` records, as (seq, to), in log order: which seqs they hide
    /// decides which delegated sessions the branch still holds.
    #[serde(default)]
    pub reverts: Vec<(u64, u64)>,
    /// Set for delegated sessions.
    pub delegated: bool,
}

impl SessionMeta {
    /// The title to display: the recorded one, else the first message.
    pub fn display_title(&self) -> &str {
        self.title
            .as_deref()
            .or(self.first_message.as_deref())
            .unwrap_or("")
    }

    /// Folds one record into the summary. `own` is false for records inherited from ancestors,
    /// which count as turns but carry no session state. Returns false for a record that cannot
    /// be applied incrementally (a revert): the summary must then be rebuilt from the lineage.
    pub fn apply(&mut self, record: &Record, own: bool) -> bool {
        if own {
            self.count(record);
        }
        match &record.body {
            Body::User { content } => {
                self.turns += 1;
                if self.first_message.is_none() {
                    self.first_message = Some(hotl_text::clip(
                        hotl_text::first_nonblank_line(&plain_text(content)),
                        TITLE_CHARS,
                    ));
                }
            }
            Body::Revert { to } => {
                if own {
                    self.reverts.push((record.seq, *to));
                }
                return false;
            }
            _ if !own => {}
            Body::Session(start) => {
                self.id.clone_from(&start.id);
                self.cwd.clone_from(&start.cwd);
                self.model.clone_from(&start.model);
                self.created.clone_from(&record.ts);
                self.delegated = start.delegated.is_some();
                self.parent = start.parent.as_ref().map(|p| ParentRef {
                    session: p.session.clone(),
                    seq: p.seq,
                });
            }
            Body::Name { name } => self.name.clone_from(name),
            Body::Title { title, .. } => self.title = Some(title.clone()),
            Body::Todos { items } => self.todos.clone_from(items),
            Body::Mode {
                permission,
                plan,
                effort,
                sandbox,
                model,
                provider,
            } => {
                if let Some(p) = permission {
                    self.modes.permission = Some(p.clone());
                }
                if let Some(m) = model {
                    self.modes.model = Some(m.clone());
                    self.modes.provider.clone_from(provider);
                }
                if let Some(s) = sandbox {
                    self.modes.sandbox = Some(s.clone());
                }
                if let Some(plan) = plan {
                    self.modes.plan = *plan;
                }
                if let Some(e) = effort {
                    self.modes.effort = Some(e.clone());
                }
            }
            Body::Drop => self.dropped = true,
            Body::Reroot { cwd } => self.cwd.clone_from(cwd),
            _ => {}
        }
        true
    }

    /// Counts an own record without applying what it says.
    fn count(&mut self, record: &Record) {
        self.records += 1;
        self.last_seq = self.last_seq.max(record.seq);
        // The latest stamp, not the last line's: an imported session's own records (written
        // now) come before the foreign history they hold (stamped when it happened).
        if record.ts > self.updated {
            self.updated.clone_from(&record.ts);
        }
    }

    /// Records the log file's identity, which decides whether this summary is fresh.
    pub fn stamp_file(&mut self, file: &std::fs::Metadata) {
        self.size = file.len();
        self.mtime_ns = mtime_ns(file);
    }

    /// Whether this summary still describes a log with `file` metadata.
    pub fn is_fresh_for(&self, file: &std::fs::Metadata) -> bool {
        self.format == META_FORMAT && self.size == file.len() && self.mtime_ns == mtime_ns(file)
    }

    /// Copies what a read skipped into the summary.
    pub fn note_problems(&mut self, report: &LoadReport) {
        self.problems = ProblemCounts {
            corrupt: report.skipped.len() as u64,
            unknown: report.unknown.len() as u64,
            seq: report.seq_problems.len() as u64,
            torn: report.torn_tail.is_some(),
        };
    }
}

/// Summarises a lineage: `records` as the lineage loader returns them, own records from
/// `own_start` on. Name and modes come from the whole own log (they are not positioned in the
/// transcript); turns, title, todos and the first message from the visible branch.
pub fn summarize(records: &[Record], own_start: usize) -> SessionMeta {
    summarize_visible(records, own_start, &visible_mask(records))
}

/// [`summarize`] with the visible branch already known (`visible[i]` for `records[i]`).
pub fn summarize_visible(records: &[Record], own_start: usize, visible: &[bool]) -> SessionMeta {
    let mut meta = SessionMeta {
        format: META_FORMAT,
        ..SessionMeta::default()
    };
    for (i, record) in records.iter().enumerate() {
        let own = i >= own_start;
        let applies = match record.body {
            Body::User { .. } => visible[i],
            Body::Revert { .. } => false,
            Body::Title { .. } | Body::Todos { .. } => own && visible[i],
            _ => own,
        };
        if applies {
            meta.apply(record, own);
        } else if own {
            meta.count(record);
            if let Body::Revert { to } = record.body {
                meta.reverts.push((record.seq, to));
            }
        }
    }
    meta
}

fn mtime_ns(file: &std::fs::Metadata) -> u128 {
    file.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::SessionStart;

    fn session() -> Body {
        Body::Session(Box::new(SessionStart {
            id: "01A".into(),
            cwd: "/p".into(),
            model: None,
            parent: None,
            delegated: None,
            cache_key: None,
            system_blob: None,
            tools_blob: None,
        }))
    }

    #[test]
    fn summary_counts_visible_turns_and_keeps_name_through_revert() {
        let records = vec![
            Record::new(1, "T1", session()),
            Record::new(2, "T2", Body::user_text("first question\nmore")),
            Record::new(
                3,
                "T3",
                Body::Name {
                    name: Some("n".into()),
                },
            ),
            Record::new(4, "T4", Body::user_text("second")),
            Record::new(5, "T5", Body::Revert { to: 3 }),
        ];
        let meta = summarize(&records, 0);
        assert_eq!(meta.turns, 1);
        assert_eq!(meta.name.as_deref(), Some("n"));
        assert_eq!(meta.display_title(), "first question");
        assert_eq!((meta.records, meta.last_seq), (5, 5));
        assert_eq!(meta.updated, "T5");
        assert_eq!(meta.created, "T1");
    }

    #[test]
    fn a_revert_undoes_title_and_todos_but_not_modes() {
        let records = vec![
            Record::new(1, "T", session()),
            Record::new(2, "T", Body::user_text("q")),
            Record::new(3, "T", Body::title("later".into())),
            Record::new(
                4,
                "T",
                Body::Mode {
                    permission: None,
                    plan: Some(true),
                    effort: None,
                    sandbox: None,
                    model: None,
                    provider: None,
                },
            ),
            Record::new(
                5,
                "T",
                Body::Todos {
                    items: vec![Todo {
                        text: "x".into(),
                        status: "pending".into(),
                    }],
                },
            ),
            Record::new(6, "T", Body::Revert { to: 2 }),
        ];
        let meta = summarize(&records, 0);
        assert_eq!(meta.title, None);
        assert!(meta.todos.is_empty());
        assert!(meta.modes.plan);
        assert_eq!(meta.records, 6);
    }
}
