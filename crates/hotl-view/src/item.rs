//! Transcript items: what a person sees, one per message, with folded spans kept whole (or,
//! read from a checkpoint, with their answers and tool results left in the log).

use hotl_log::{Block, Usage};
use serde::Serialize;

/// One item of the visible transcript.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Item {
    /// A user message.
    User {
        /// Its seq (the stamp `t<seq>`).
        seq: u64,
        /// The message.
        content: Vec<Block>,
    },
    /// A model response.
    Assistant {
        /// Its seq.
        seq: u64,
        /// Text, thinking and tool_use blocks.
        content: Vec<Block>,
        /// The model that wrote it.
        model: Option<String>,
        /// Why it stopped, in hotl's words (see [`hotl_log::stop_name`]).
        stop: Option<String>,
        /// Token usage.
        usage: Option<Usage>,
    },
    /// A tool's answer.
    ToolResult {
        /// Its seq (the stamp `t<seq>`).
        seq: u64,
        /// The tool_use id it answers.
        call: String,
        /// What the model sees.
        content: Vec<Block>,
        /// Whether the tool failed.
        is_error: bool,
        /// The full output's blob, when it was too large to inline.
        blob: Option<String>,
    },
    /// A folded span: a note and a handle standing in for the original items.
    Folded {
        /// The handle to recall or ask the span by.
        handle: String,
        /// The note.
        note: String,
        /// First seq of the span.
        since: u64,
        /// Last seq of the span.
        until: u64,
        /// The original items.
        items: Vec<Item>,
    },
    /// Everything up to `until`, compacted into a summary.
    Compacted {
        /// Last seq covered.
        until: u64,
        /// The summary.
        summary: String,
        /// The original items.
        items: Vec<Item>,
    },
    /// A child that ran in the background ended: its report, which the model reads as a
    /// user-side message (it starts no turn).
    ChildReport {
        /// Its seq (the stamp `t<seq>`).
        seq: u64,
        /// The child's handle.
        handle: String,
        /// `finished`, `failed`, `cancelled` or `interrupted`.
        state: String,
        /// Its final message.
        report: String,
    },
    /// Original items of a folded or compacted span that a view read from a checkpoint did
    /// not load (the log keeps them; whatever needs them projects the log). Only answers and
    /// tool results are left out: a span's user messages stay, the model view quotes them.
    Elided {
        /// The first seq they cover.
        first: u64,
        /// The last seq they cover.
        last: u64,
        /// How many original items they are.
        count: usize,
    },
}

impl Item {
    /// The first seq the item covers.
    pub fn first_seq(&self) -> u64 {
        match self {
            Item::User { seq, .. }
            | Item::Assistant { seq, .. }
            | Item::ToolResult { seq, .. }
            | Item::ChildReport { seq, .. } => *seq,
            Item::Folded { since, .. } => *since,
            Item::Compacted { items, .. } => items.first().map_or(0, Item::first_seq),
            Item::Elided { first, .. } => *first,
        }
    }

    /// The last seq the item covers.
    pub fn last_seq(&self) -> u64 {
        match self {
            Item::User { seq, .. }
            | Item::Assistant { seq, .. }
            | Item::ToolResult { seq, .. }
            | Item::ChildReport { seq, .. } => *seq,
            Item::Folded { until, .. } | Item::Compacted { until, .. } => *until,
            Item::Elided { last, .. } => *last,
        }
    }

    /// Whether a turn begins here: a user message, or a folded or compacted span whose first
    /// item is one (transcripts draw a turn's end before it).
    pub fn starts_turn(&self) -> bool {
        match self {
            Item::User { .. } => true,
            Item::Folded { items, .. } | Item::Compacted { items, .. } => {
                items.first().is_some_and(Item::starts_turn)
            }
            _ => false,
        }
    }

    /// How many original items this stands for (a folded span counts as its items).
    pub fn original_count(&self) -> usize {
        match self {
            Item::Folded { items, .. } | Item::Compacted { items, .. } => {
                items.iter().map(Item::original_count).sum()
            }
            Item::Elided { count, .. } => *count,
            _ => 1,
        }
    }

    /// The original items a folded or compacted span stands for (none for other items).
    pub fn originals(&self) -> &[Item] {
        match self {
            Item::Folded { items, .. } | Item::Compacted { items, .. } => items,
            _ => &[],
        }
    }

    /// Calls `f` on this item, then on each original inside it, depth first, in the order
    /// they were written: the one walk of the tree every renderer and index shares.
    ///
    /// ```
    /// use hotl_view::Item;
    /// let span = Item::Compacted {
    ///     until: 2,
    ///     summary: "s".into(),
    ///     items: vec![
    ///         Item::User { seq: 1, content: vec![] },
    ///         Item::Elided { first: 2, last: 2, count: 1 },
    ///     ],
    /// };
    /// let mut seen = Vec::new();
    /// span.walk(&mut |item| seen.push(item.first_seq()));
    /// assert_eq!(seen, [1, 1, 2]);
    /// ```
    pub fn walk<'a>(&'a self, f: &mut impl FnMut(&'a Item)) {
        f(self);
        for original in self.originals() {
            original.walk(f);
        }
    }

    /// Calls `f` on every original user message inside this item, in order.
    pub fn for_each_user<'a>(&'a self, f: &mut impl FnMut(u64, &'a [Block])) {
        self.walk(&mut |item| {
            if let Item::User { seq, content } = item {
                f(*seq, content);
            }
        });
    }
}

/// The handle a compacted span is searched and asked by: compactions carry no handle of their
/// own, and the seq they end at tells them apart.
pub fn compaction_handle(until: u64) -> String {
    format!("compaction@t{until}")
}

/// Whether `handle` names a compacted span (see [`compaction_handle`]).
pub fn is_compaction_handle(handle: &str) -> bool {
    handle.starts_with("compaction@t")
}
