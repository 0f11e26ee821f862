//! The hotl session an import builds, before it is written: records in order, each with the
//! source's timestamp and its provenance (`src`), tool results in the order their calls were
//! made, calls the source left unanswered closed, reverts and compactions placed.
//!
//! Every converter fills one; the writer numbers it (seq 1 is `session`, 2 is `import`, the
//! converted records follow densely).

use std::collections::HashMap;

use hotl_log::{Block, Body, Todo};
use serde_json::Value;

/// The seq of the first converted record (after `session` and `import`).
pub(crate) const FIRST_SEQ: u64 = 3;

/// What closes a call the source never answered.
pub const NO_RESULT: &str = "[no result recorded in the imported session]";

/// One record to write.
#[derive(Debug)]
pub(crate) struct Entry {
    pub body: Body,
    /// RFC 3339 UTC with milliseconds.
    pub ts: String,
    /// Provenance, written as the record's extra `src` field.
    pub src: Option<Value>,
}

/// The records of one session being imported.
#[derive(Debug, Default)]
pub(crate) struct Draft {
    pub entries: Vec<Entry>,
    /// Calls made and not yet answered, in the order they were made.
    open: Vec<String>,
    /// Every call's position among all calls made, for ordering results.
    order: HashMap<String, usize>,
    /// The latest title and todo list seen (written at the end).
    pub title: Option<String>,
    pub todos: Option<Vec<Todo>>,
    /// The last timestamp any record carried.
    pub last_ts: Option<String>,
}

impl Draft {
    /// The seq the next record gets.
    pub fn next_seq(&self) -> u64 {
        FIRST_SEQ + self.entries.len() as u64
    }

    /// The seq of the last record, or 2 (the `import` record) when there is none.
    pub fn last_seq(&self) -> u64 {
        self.next_seq() - 1
    }

    /// Appends a record; returns its seq.
    pub fn push(&mut self, body: Body, ts: &str, src: Option<Value>) -> u64 {
        match &body {
            Body::Assistant { content, .. } => {
                for block in content {
                    if let Block::ToolUse { id, .. } = block {
                        let n = self.order.len();
                        self.order.entry(id.clone()).or_insert(n);
                        self.open.push(id.clone());
                    }
                }
            }
            Body::ToolResult { call, .. } => self.open.retain(|c| c != call),
            _ => {}
        }
        self.last_ts = Some(ts.to_owned());
        self.entries.push(Entry {
            body,
            ts: ts.to_owned(),
            src,
        });
        self.last_seq()
    }

    /// Appends tool results in the order their calls were made (results whose call is unknown
    /// last, in the order given), whatever order the source wrote them in. Returns each
    /// `key` with the seq its result got.
    pub fn push_results<K>(&mut self, mut results: Vec<(K, Entry)>) -> Vec<(K, u64)> {
        let position = |e: &Entry| match &e.body {
            Body::ToolResult { call, .. } => self.order.get(call).copied().unwrap_or(usize::MAX),
            _ => usize::MAX,
        };
        results.sort_by_key(|(_, e)| position(e));
        results
            .into_iter()
            .map(|(key, e)| (key, self.push(e.body, &e.ts, e.src)))
            .collect()
    }

    /// Answers every open call with an error saying the source recorded no result.
    pub fn close_open(&mut self, ts: &str) {
        for call in std::mem::take(&mut self.open) {
            self.push(
                Body::ToolResult {
                    call,
                    content: vec![Block::text(NO_RESULT)],
                    blob: None,
                    is_error: true,
                    files: Vec::new(),
                },
                ts,
                None,
            );
        }
    }

    /// A user message: open calls are closed first (the turn they belong to is over).
    pub fn user(&mut self, content: Vec<Block>, ts: &str, src: Option<Value>) -> u64 {
        self.close_open(ts);
        self.push(Body::User { content }, ts, src)
    }

    /// The visible branch returns to `to`: what came after it stays, on a branch of its own.
    pub fn revert(&mut self, to: u64, ts: &str) -> u64 {
        self.close_open(ts);
        self.push(Body::Revert { to }, ts, None)
    }

    /// Everything up to `until` summarised.
    pub fn compaction(&mut self, until: u64, summary: String, ts: &str, src: Option<Value>) {
        self.close_open(ts);
        let until = until.min(self.last_seq());
        if until >= FIRST_SEQ {
            self.push(Body::Compaction { until, summary }, ts, src);
        }
    }

    /// Closes what is open and adds the title and todo list: the draft is complete.
    pub fn finish(&mut self, fallback_ts: &str) {
        let ts = self
            .last_ts
            .clone()
            .unwrap_or_else(|| fallback_ts.to_owned());
        self.close_open(&ts);
        if let Some(title) = self.title.take() {
            self.push(Body::title(title), &ts, None);
        }
        if let Some(items) = self.todos.take().filter(|t| !t.is_empty()) {
            self.push(Body::Todos { items }, &ts, None);
        }
    }

    /// Whether no message was converted.
    pub fn is_empty(&self) -> bool {
        !self.entries.iter().any(|e| {
            matches!(
                e.body,
                Body::User { .. } | Body::Assistant { .. } | Body::ToolResult { .. }
            )
        })
    }
}

/// A `{"id": …, "line": …}` provenance object, with `more` fields added.
pub(crate) fn src(id: Option<&str>, line: usize, more: Vec<(&str, Value)>) -> Value {
    let mut obj = serde_json::Map::new();
    if let Some(id) = id {
        obj.insert("id".to_owned(), Value::String(id.to_owned()));
    }
    obj.insert("line".to_owned(), Value::from(line));
    for (k, v) in more {
        obj.insert(k.to_owned(), v);
    }
    Value::Object(obj)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(id: &str) -> Block {
        Block::ToolUse {
            id: id.into(),
            name: "Bash".into(),
            input: hotl_log::ToolInput::default(),
        }
    }

    fn result(call: &str) -> Entry {
        Entry {
            body: Body::ToolResult {
                call: call.into(),
                content: vec![],
                blob: None,
                is_error: false,
                files: vec![],
            },
            ts: "T".into(),
            src: None,
        }
    }

    #[test]
    fn results_follow_call_order_and_open_calls_are_closed() {
        let mut d = Draft::default();
        d.push(
            Body::Assistant {
                content: vec![call("a"), call("b"), call("c")],
                model: None,
                stop: None,
                stop_raw: None,
                usage: None,
            },
            "T",
            None,
        );
        let seqs = d.push_results(vec![("rc", result("c")), ("ra", result("a"))]);
        assert_eq!(seqs, [("ra", 4), ("rc", 5)]);
        d.finish("T");
        let Body::ToolResult { call, is_error, .. } = &d.entries[3].body else {
            panic!("{:?}", d.entries[3]);
        };
        assert_eq!((call.as_str(), *is_error), ("b", true));
        assert_eq!(d.last_seq(), 6);
    }
}
