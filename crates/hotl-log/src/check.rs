//! `sessions check`: a session's log and ancestry, verified and explained.

use serde::Serialize;

use crate::error::Result;
use crate::lock::TreeLock;
use crate::store::Store;

/// How serious a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Data was skipped or history is unreliable.
    Problem,
    /// Worth knowing, nothing lost.
    Note,
}

/// One thing `check` found.
#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    /// How serious it is.
    pub severity: Severity,
    /// What it is, in words.
    pub message: String,
}

/// The verdict on one session.
#[derive(Clone, Debug, Serialize)]
pub struct CheckReport {
    /// The session checked.
    pub id: String,
    /// Records loaded from its own log.
    pub records: usize,
    /// Ancestors followed.
    pub ancestors: usize,
    /// What was found.
    pub findings: Vec<Finding>,
}

impl CheckReport {
    /// Whether nothing rose to a problem.
    pub fn is_healthy(&self) -> bool {
        self.findings.iter().all(|f| f.severity == Severity::Note)
    }
}

impl Store {
    /// Verifies a session: lines that do not parse, a torn tail, seq order, and its ancestry
    /// (missing or changed ancestors, lineage deeper than 32).
    pub fn check(&self, id: &str) -> Result<CheckReport> {
        let lineage = self.lineage(id)?;
        let mut findings = Vec::new();
        let mut problem = |message: String| {
            findings.push(Finding {
                severity: Severity::Problem,
                message,
            })
        };
        let report = &lineage.report;
        for s in &report.skipped {
            problem(format!(
                "line {} (byte {}) does not parse: {}",
                s.line, s.offset, s.reason
            ));
        }
        for s in &report.seq_problems {
            problem(format!(
                "line {}: seq {} does not follow seq {}",
                s.line, s.seq, s.after
            ));
        }
        for p in &lineage.problems {
            problem(p.to_string());
        }
        // Resumes and forks send the prompt and tools frozen at the start: without them the
        // prefix changes and the prompt cache starts cold.
        let start = lineage.start();
        let blobs = self.blobs();
        for (hash, what) in [
            (&start.system_blob, "system prompt"),
            (&start.tools_blob, "tool definitions"),
        ] {
            if let Err(why) = crate::blob::read_frozen(&blobs, hash.as_deref(), what) {
                problem(why);
            }
        }
        let mut note = |message: String| {
            findings.push(Finding {
                severity: Severity::Note,
                message,
            })
        };
        if let Some(t) = &report.torn_tail {
            if report.tail_is_live {
                note(format!(
                    "the last line ({} bytes) is being written by the owner ({})",
                    t.len,
                    TreeLock::owner_pid(&self.lock_path(id))
                        .map_or("pid unknown".to_owned(), |p| format!("pid {p}"))
                ));
            } else {
                findings.push(Finding {
                    severity: Severity::Problem,
                    message: format!(
                        "line {} (byte {}, {} bytes) is torn: a write that never finished, \
                         most likely from a process killed while appending. Readers skip it; \
                         the next writer ends it with a newline, and nothing is truncated",
                        t.line, t.offset, t.len
                    ),
                });
            }
        }
        for s in &report.unknown {
            findings.push(Finding {
                severity: Severity::Note,
                message: format!(
                    "line {}: {} (kept, skipped by this version)",
                    s.line, s.reason
                ),
            });
        }
        for (seq, call, tool) in unanswered_calls(&lineage) {
            findings.push(Finding {
                severity: Severity::Problem,
                message: format!(
                    "the `{tool}` call {call} (t{seq}) has no result before the conversation \
                     goes on (its line was lost?); the model is told its result was lost"
                ),
            });
        }
        for (seq, call) in orphan_results(&lineage) {
            findings.push(Finding {
                severity: Severity::Problem,
                message: format!(
                    "the result t{seq} answers the call {call}, which no model message made \
                     (its line was lost?); it is sent without its call"
                ),
            });
        }
        if let Some(delegation) = &start.delegated
            && let Some(run) = open_run(lineage.own())
            && !TreeLock::is_held(&self.lock_path(id))
        {
            findings.push(Finding {
                severity: Severity::Problem,
                message: format!(
                    "its run {run} is still open though no process holds its tree: the process \
                     running it ended before it did; opening the session that delegated it \
                     ({}) settles it",
                    delegation.by
                ),
            });
        }
        Ok(CheckReport {
            id: id.to_owned(),
            records: lineage.own().len(),
            ancestors: lineage.ancestors.len(),
            findings,
        })
    }
}

/// The tool calls of the session's own visible records that have no result before the next
/// model message or user message: (the seq of the call's message, its id, the tool). The
/// calls of the last step are left out: a turn a dead process left open is still to finish.
fn unanswered_calls(lineage: &crate::lineage::Lineage) -> Vec<(u64, String, String)> {
    use crate::block::Block;
    use crate::record::Body;
    let visible = crate::branch::visible_mask(&lineage.records);
    let mut open: Vec<(u64, String, String)> = Vec::new();
    let mut lost = Vec::new();
    let own = lineage.own_start;
    for (record, _) in lineage.records[own..]
        .iter()
        .zip(&visible[own..])
        .filter(|(_, v)| **v)
    {
        match &record.body {
            Body::Assistant { content, .. } => {
                lost.append(&mut open);
                for block in content {
                    if let Block::ToolUse { id, name, .. } = block {
                        open.push((record.seq, id.clone(), name.clone()));
                    }
                }
            }
            Body::User { .. } => lost.append(&mut open),
            Body::ToolResult { call, .. } => open.retain(|(_, id, _)| id != call),
            _ => {}
        }
    }
    lost
}

/// The run the records leave open (started, never ended), if any.
fn open_run(records: &[crate::record::Record]) -> Option<&str> {
    use crate::record::{Body, RunState};
    records
        .iter()
        .rev()
        .find_map(|r| match &r.body {
            Body::Run { run, state } => Some((run.as_str(), state)),
            _ => None,
        })
        .and_then(|(run, state)| (*state == RunState::Started).then_some(run))
}

/// The tool results of the session's own records that answer no call any model message of
/// its lineage made: (the result's seq, the call it names).
fn orphan_results(lineage: &crate::lineage::Lineage) -> Vec<(u64, String)> {
    use crate::block::Block;
    use crate::record::Body;
    let mut made = std::collections::HashSet::new();
    for record in &lineage.records {
        if let Body::Assistant { content, .. } = &record.body {
            for block in content {
                if let Block::ToolUse { id, .. } = block {
                    made.insert(id.as_str());
                }
            }
        }
    }
    lineage
        .own()
        .iter()
        .filter_map(|r| match &r.body {
            Body::ToolResult { call, .. } if !made.contains(call.as_str()) => {
                Some((r.seq, call.clone()))
            }
            _ => None,
        })
        .collect()
}
