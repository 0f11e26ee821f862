//! The plain data recall speaks: documents, threads, search modes and hits.

use std::fmt;

use hotl_log::FileTouch;
use serde::{Deserialize, Serialize};

/// What a document was in the conversation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DocKind {
    /// A user message.
    User,
    /// The text of a model response, with the tool calls it made (`name {json}` lines).
    Assistant,
    /// A tool's output (the full output when it was stored as a blob and the blob is at hand).
    ToolOutput,
    /// Model reasoning, where the provider returned it.
    Reasoning,
    /// A fold's note or a compaction's summary (a fork's task).
    Note,
    /// An earlier question put to an archived thread, and its answer.
    Ask,
}

impl DocKind {
    /// Every kind, in code order.
    pub const ALL: [DocKind; 6] = [
        DocKind::User,
        DocKind::Assistant,
        DocKind::ToolOutput,
        DocKind::Reasoning,
        DocKind::Note,
        DocKind::Ask,
    ];

    /// The short name hits are rendered with: `user`, `assistant`, `tool`, `reasoning`, `note`,
    /// `ask`.
    pub fn name(self) -> &'static str {
        match self {
            DocKind::User => "user",
            DocKind::Assistant => "assistant",
            DocKind::ToolOutput => "tool",
            DocKind::Reasoning => "reasoning",
            DocKind::Note => "note",
            DocKind::Ask => "ask",
        }
    }

    pub(crate) fn code(self) -> u8 {
        match self {
            DocKind::User => 0,
            DocKind::Assistant => 1,
            DocKind::ToolOutput => 2,
            DocKind::Reasoning => 3,
            DocKind::Note => 4,
            DocKind::Ask => 5,
        }
    }

    pub(crate) fn from_code(code: u8) -> Option<DocKind> {
        DocKind::ALL.get(usize::from(code)).copied()
    }
}

impl fmt::Display for DocKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One searchable piece of an archived thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Doc {
    /// The thread's handle (`compaction` for a compacted span).
    pub handle: String,
    /// The record's seq (the stamp `t<seq>`); for a note, the thread's first seq.
    pub seq: u64,
    /// What it was.
    pub kind: DocKind,
    /// Its text.
    pub text: String,
}

/// An archived thread: a folded or compacted span, an earlier ask (under the handle of the
/// thread it asked), or a delegated session's own work (a fork's, under its handle).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Thread {
    /// The handle to recall or ask it by (`compaction` for a compacted span).
    pub handle: String,
    /// The note (a compaction's summary, an ask's question, a fork's task).
    pub note: String,
    /// First seq of the span.
    pub since: u64,
    /// Last seq of the span.
    pub until: u64,
    /// The file touches of the span's tool results, in order (a path may appear more than
    /// once; the last touch is what the span left).
    pub files: Vec<FileTouch>,
}

/// How a query is matched.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// BM25 (k1 1.2, b 0.75) over lowercased alphanumeric tokens; best first.
    #[default]
    Ranked,
    /// Case-insensitive substring; newest first.
    Exact,
    /// A regular expression (`regex` crate syntax, `^`/`$` at line ends); newest first.
    Regex,
}

/// One match: a document and its best line.
#[derive(Clone, Debug, PartialEq)]
pub struct Hit {
    /// The thread's handle.
    pub handle: String,
    /// The document's seq (a note's: its thread's first seq).
    pub seq: u64,
    /// What the document was.
    pub kind: DocKind,
    /// The best matching line, trimmed to about 200 characters.
    pub line: String,
    /// BM25 score (ranked), or the number of matches in the document (exact, regex).
    pub score: f64,
    /// Files the thread touched that changed since (or are gone); for an earlier ask, those of
    /// the thread it asked.
    pub stale: Vec<String>,
}

pub use hotl_view::{compaction_handle, is_compaction_handle};
