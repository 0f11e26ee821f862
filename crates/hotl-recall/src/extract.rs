//! From records to what recall indexes: the threads the view archived, the text of each record,
//! and the skeleton of a lineage (its records without their text) that is enough to project it
//! again.

use hotl_log::{Blobs, Block, Body, FileTouch, Record, plain_text, visible_mask};
use hotl_view::Item;

use crate::token::FxMap;
use crate::types::{DocKind, Thread, compaction_handle, is_compaction_handle};

/// What a projection archived: the threads, and which records belong to which thread.
#[derive(Clone, Debug, Default)]
pub(crate) struct Plan {
    /// The archived spans, in transcript order (an outer compaction before what it holds),
    /// then the asks, in log order.
    pub threads: Vec<Thread>,
    /// Per thread: the seq of the fold or compaction record whose note it shows, and the seqs
    /// of the original items it holds directly.
    pub members: Vec<Members>,
    /// Visible fold records the view did not apply (overlapping, or covering nothing yet).
    pub unplaced: usize,
}

/// Which records one thread holds.
#[derive(Clone, Debug, Default)]
pub(crate) struct Members {
    /// The fold or compaction record (its note or summary is the thread's note document).
    pub note_key: Option<u64>,
    /// Seqs of the user, assistant and tool-result records of the span (not those of a fold
    /// nested in a compaction: they belong to that fold's thread); an ask's own record.
    pub items: Vec<u64>,
    /// Whether the thread is an earlier ask (it archives no span of the view).
    pub ask: bool,
}

/// Which thread owns a document: by record seq for messages, by fold or compaction record seq
/// for notes.
pub(crate) struct Owners {
    items: FxMap<u64, u32>,
    notes: FxMap<u64, u32>,
}

/// A document not in any archived thread.
pub(crate) const NOT_ARCHIVED: u32 = u32::MAX;

impl Owners {
    pub(crate) fn of(plan: &Plan) -> Owners {
        let mut items = FxMap::default();
        let mut notes = FxMap::default();
        for (t, m) in plan.members.iter().enumerate() {
            let t = t as u32;
            if let Some(k) = m.note_key {
                notes.insert(k, t);
            }
            for &seq in &m.items {
                items.insert(seq, t);
            }
        }
        Owners { items, notes }
    }

    /// The thread owning a document of `kind` made from record `key`, or [`NOT_ARCHIVED`].
    pub(crate) fn owner(&self, key: u64, kind: DocKind) -> u32 {
        let map = if kind == DocKind::Note {
            &self.notes
        } else {
            &self.items
        };
        map.get(&key).copied().unwrap_or(NOT_ARCHIVED)
    }

    /// Whether record `seq` (of any kind) is in an archived thread.
    pub(crate) fn holds(&self, seq: u64) -> bool {
        self.items.contains_key(&seq) || self.notes.contains_key(&seq)
    }
}

/// Projects `records` with hotl-view and walks its folded and compacted items: what counts as
/// archived is exactly what the view folded.
pub(crate) fn plan(records: &[Record], own_start: usize) -> Plan {
    let view = hotl_view::project(records, own_start);
    let visible = visible_mask(records);
    let mut files: FxMap<u64, &[FileTouch]> = FxMap::default();
    let mut folds: FxMap<(&str, u64), u64> = FxMap::default();
    let mut compactions: FxMap<u64, u64> = FxMap::default();
    let mut fold_records = 0;
    for (record, _) in records.iter().zip(&visible).filter(|(_, v)| **v) {
        fold_records += usize::from(matches!(record.body, Body::Fold(_)));
        match &record.body {
            Body::ToolResult { files: f, .. } if !f.is_empty() => {
                files.insert(record.seq, f);
            }
            // The first of two identical folds is the one the view applied. Its own file list
            // (what the span left, found from the working-tree diff too) is keyed by its seq.
            Body::Fold(f) => {
                folds.entry((&f.handle, f.until)).or_insert(record.seq);
                if !f.files.is_empty() {
                    files.insert(record.seq, &f.files);
                }
            }
            Body::Compaction { until, .. } => {
                compactions.entry(*until).or_insert(record.seq);
            }
            _ => {}
        }
    }
    let mut walk = Walk {
        plan: Plan::default(),
        files: &files,
        folds: &folds,
        compactions: &compactions,
    };
    for item in &view.items {
        walk.archived(item);
    }
    let mut plan = walk.plan;
    let placed = plan
        .threads
        .iter()
        .filter(|t| !is_compaction_handle(&t.handle))
        .count();
    plan.unplaced = fold_records.saturating_sub(placed);
    for (record, _) in records.iter().zip(&visible).filter(|(_, v)| **v) {
        add_ask(&mut plan, record);
    }
    plan
}

/// A tool call as searchable text: the tool's name, then each argument as `key: value` with
/// strings as written (not JSON-escaped: a quote, a backslash or a newline in a command is
/// found as typed), other values as JSON.
fn call_text(name: &str, input: &hotl_log::ToolInput) -> String {
    let value: serde_json::Value = match serde_json::from_str(input.get()) {
        Ok(value) => value,
        Err(_) => return format!("{name} {input}"),
    };
    let serde_json::Value::Object(fields) = value else {
        return format!("{name} {value}");
    };
    let mut out = name.to_owned();
    for (key, value) in fields {
        out.push_str(if out.len() == name.len() { " " } else { "\n" });
        match value {
            serde_json::Value::String(text) => out.push_str(&format!("{key}: {text}")),
            other => out.push_str(&format!("{key}: {other}")),
        }
    }
    out
}

/// Adds the thread of an `ask` record (a question put to an archived thread and its answer:
/// searchable under the handle it asked); other records add nothing.
pub(crate) fn add_ask(plan: &mut Plan, record: &Record) {
    if let Body::Ask {
        handle, question, ..
    } = &record.body
    {
        plan.threads.push(Thread {
            handle: handle.clone(),
            note: question.clone(),
            since: record.seq,
            until: record.seq,
            files: Vec::new(),
        });
        plan.members.push(Members {
            note_key: None,
            items: vec![record.seq],
            ask: true,
        });
    }
}

struct Walk<'a> {
    plan: Plan,
    files: &'a FxMap<u64, &'a [FileTouch]>,
    folds: &'a FxMap<(&'a str, u64), u64>,
    compactions: &'a FxMap<u64, u64>,
}

impl Walk<'_> {
    /// Records `item` as a thread when it is an archived span (live items are skipped).
    fn archived(&mut self, item: &Item) {
        let (thread, note_key, items) = match item {
            Item::Folded {
                handle,
                note,
                since,
                until,
                items,
            } => (
                Thread {
                    handle: handle.clone(),
                    note: note.clone(),
                    since: *since,
                    until: *until,
                    files: Vec::new(),
                },
                self.folds.get(&(handle.as_str(), *until)).copied(),
                items,
            ),
            Item::Compacted {
                until,
                summary,
                items,
            } => (
                Thread {
                    handle: compaction_handle(*until),
                    note: summary.clone(),
                    since: item.first_seq(),
                    until: *until,
                    files: Vec::new(),
                },
                self.compactions.get(until).copied(),
                items,
            ),
            _ => return,
        };
        let t = self.plan.threads.len();
        self.plan.threads.push(thread);
        self.plan.members.push(Members {
            note_key,
            items: Vec::new(),
            ask: false,
        });
        for inner in items {
            match inner {
                Item::User { seq, .. }
                | Item::Assistant { seq, .. }
                | Item::ChildReport { seq, .. } => self.plan.members[t].items.push(*seq),
                Item::ToolResult { seq, .. } => {
                    self.plan.members[t].items.push(*seq);
                    if let Some(f) = self.files.get(seq) {
                        self.plan.threads[t].files.extend_from_slice(f);
                    }
                }
                Item::Folded { .. } | Item::Compacted { .. } => self.archived(inner),
                // Only a view read from a checkpoint has these; recall projects the log.
                Item::Elided { .. } => {}
            }
        }
        // Last, what the fold says the span left (bare paths of older logs say nothing).
        if let Some(f) = note_key.and_then(|k| self.files.get(&k)) {
            self.plan.threads[t]
                .files
                .extend(f.iter().filter(|t| t.op != FileTouch::LISTED).cloned());
        }
    }
}

/// The searchable text of a record: `(kind, text)` pairs, empty ones left out. A tool result
/// stored as a blob is read from `blobs` when given (the full output, not the head and tail
/// the model saw).
pub(crate) fn record_docs(record: &Record, blobs: Option<&Blobs>) -> Vec<(DocKind, String)> {
    let mut out = Vec::new();
    let mut push = |kind, text: String| {
        if !text.trim().is_empty() {
            out.push((kind, text));
        }
    };
    match &record.body {
        Body::User { content } => push(DocKind::User, plain_text(content)),
        Body::Assistant { content, .. } => {
            let mut text = String::new();
            let mut thinking = String::new();
            for block in content {
                let (dest, piece) = match block {
                    Block::Text { text: t } => (&mut text, t.clone()),
                    Block::ToolUse { name, input, .. } => (&mut text, call_text(name, input)),
                    Block::Thinking { thinking: t, .. } => (&mut thinking, t.clone()),
                    _ => continue,
                };
                if !dest.is_empty() {
                    dest.push('\n');
                }
                dest.push_str(&piece);
            }
            push(DocKind::Assistant, text);
            push(DocKind::Reasoning, thinking);
        }
        Body::ToolResult { content, blob, .. } => {
            let full = blob
                .as_deref()
                .zip(blobs)
                .and_then(|(hash, blobs)| blobs.get(hash).ok())
                .and_then(|bytes| String::from_utf8(bytes).ok());
            push(
                DocKind::ToolOutput,
                full.unwrap_or_else(|| tool_text(content)),
            );
        }
        Body::Fold(fold) => push(DocKind::Note, fold.note.clone()),
        Body::Compaction { summary, .. } => push(DocKind::Note, summary.clone()),
        Body::Ask {
            question, answer, ..
        } => push(DocKind::Ask, format!("{question}\n{answer}")),
        _ => {}
    }
    out
}

/// The text of a tool result's content, nested results included.
fn tool_text(content: &[Block]) -> String {
    let mut out = String::new();
    for block in content {
        let piece = match block {
            Block::Text { text } => text.clone(),
            Block::ToolResult { content, .. } => tool_text(content),
            _ => continue,
        };
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&piece);
    }
    out
}

/// The record without its text, or `None` when projection does not need it at all. Projecting
/// the skeletons of a lineage places folds and compactions exactly as projecting the records
/// does: the view looks at kinds, seqs, tool calls, runs, folds, compactions, reverts and
/// clears, never at message text.
pub(crate) fn skeleton(record: &Record) -> Option<Record> {
    let body = match &record.body {
        Body::Session(start) => Body::Session(start.clone()),
        Body::User { .. } => Body::User {
            content: Vec::new(),
        },
        Body::Assistant { content, .. } => Body::Assistant {
            content: content
                .iter()
                .filter_map(|b| match b {
                    Block::ToolUse { id, name, .. } => Some(Block::ToolUse {
                        id: id.clone(),
                        name: name.clone(),
                        input: Default::default(),
                    }),
                    _ => None,
                })
                .collect(),
            model: None,
            stop: None,
            stop_raw: None,
            usage: None,
        },
        Body::ToolResult {
            call,
            is_error,
            files,
            ..
        } => Body::ToolResult {
            call: call.clone(),
            content: Vec::new(),
            blob: None,
            is_error: *is_error,
            files: files.clone(),
        },
        // The question names the thread in the plan; the answer is only text.
        Body::Ask {
            handle, question, ..
        } => Body::Ask {
            handle: handle.clone(),
            question: question.clone(),
            answer: String::new(),
            usage: None,
        },
        Body::Run { .. }
        | Body::Fold(_)
        | Body::Revert { .. }
        | Body::Clear
        | Body::Compaction { .. } => record.body.clone(),
        _ => return None,
    };
    Some(Record {
        seq: record.seq,
        ts: String::new(),
        v: None,
        body,
    })
}

/// The working directory of the lineage's own session (what relative touched paths are
/// relative to).
pub(crate) fn session_cwd(records: &[Record], own_start: usize) -> Option<String> {
    records
        .get(own_start..)?
        .iter()
        .find_map(|r| r.start())
        .or_else(|| records.iter().find_map(|r| r.start()))
        .map(|s| s.cwd.clone())
}
