//! A view without its archived originals, as a checkpoint keeps it: what the model is sent,
//! the turn boundaries, the session state and where the walk over records stands, so a
//! session opened from it projects only the records written after it.
//!
//! Inside folded and compacted spans only user messages stay (the model view quotes them);
//! each run of answers and tool results between them becomes one [`Item::Elided`] counting
//! them, so cuts (`--keep`) count as before. Whatever needs the originals (an ask, a new fold,
//! `/context`) projects the log instead.

use hotl_log::{Block, RevertMark, SessionMeta, Usage};
use serde::{Deserialize, Serialize};

use crate::item::Item;
use crate::project::{Boundary, Failure, View, Walk};

/// [`View`] with its archived originals left out; serializable.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ThinView {
    items: Vec<Stored>,
    boundaries: Vec<Boundary>,
    turns: usize,
    open_turn: bool,
    model_after: u64,
    head_seq: u64,
    state: SessionMeta,
    anomalies: Vec<String>,
    failures: Vec<Failure>,
    reverts: Vec<RevertMark>,
    walk: Walk,
}

impl View {
    /// This view with the originals inside folded and compacted spans left out.
    pub fn thin(&self) -> ThinView {
        ThinView {
            items: self
                .items
                .iter()
                .map(|i| Stored::from(thin_top(i)))
                .collect(),
            boundaries: self.boundaries.clone(),
            turns: self.turns,
            open_turn: self.open_turn,
            model_after: self.model_after,
            head_seq: self.head_seq,
            state: self.state.clone(),
            anomalies: self.anomalies.clone(),
            failures: self.failures.clone(),
            reverts: self.reverts.clone(),
            walk: self.walk.clone(),
        }
    }

    /// The view a [`ThinView`] keeps: records after its head can be pushed onto it.
    pub fn from_thin(thin: ThinView) -> View {
        View {
            items: thin.items.into_iter().map(Item::from).collect(),
            boundaries: thin.boundaries,
            turns: thin.turns,
            open_turn: thin.open_turn,
            model_after: thin.model_after,
            head_seq: thin.head_seq,
            state: thin.state,
            anomalies: thin.anomalies,
            failures: thin.failures,
            reverts: thin.reverts,
            walk: thin.walk,
        }
    }

    /// Whether archived originals were left out (a view read from a checkpoint).
    pub fn is_thin(&self) -> bool {
        fn any(items: &[Item]) -> bool {
            items.iter().any(|i| match i {
                Item::Elided { .. } => true,
                Item::Folded { items, .. } | Item::Compacted { items, .. } => any(items),
                _ => false,
            })
        }
        any(&self.items)
    }
}

/// A top-level item: kept, a span's originals thinned.
fn thin_top(item: &Item) -> Item {
    match item {
        Item::Folded {
            handle,
            note,
            since,
            until,
            items,
        } => Item::Folded {
            handle: handle.clone(),
            note: note.clone(),
            since: *since,
            until: *until,
            items: thin_span(items),
        },
        Item::Compacted {
            until,
            summary,
            items,
        } => Item::Compacted {
            until: *until,
            summary: summary.clone(),
            items: thin_span(items),
        },
        other => other.clone(),
    }
}

/// A span's originals: user messages and nested spans kept, runs of everything else elided.
fn thin_span(items: &[Item]) -> Vec<Item> {
    let mut out: Vec<Item> = Vec::new();
    for item in items {
        match item {
            Item::User { .. } => out.push(item.clone()),
            Item::Folded { .. } | Item::Compacted { .. } => out.push(thin_top(item)),
            other => {
                let (first, last, count) =
                    (other.first_seq(), other.last_seq(), other.original_count());
                match out.last_mut() {
                    Some(Item::Elided {
                        last: run_last,
                        count: run_count,
                        ..
                    }) => {
                        *run_last = last;
                        *run_count += count;
                    }
                    _ => out.push(Item::Elided { first, last, count }),
                }
            }
        }
    }
    out
}

/// [`Item`] as a checkpoint stores it: externally tagged, so a tool call's arguments are read
/// back byte for byte (an internally tagged enum buffers its content, and raw JSON cannot be
/// read from a buffer).
#[derive(Clone, Debug, Serialize, Deserialize)]
enum Stored {
    User {
        seq: u64,
        content: Vec<Block>,
    },
    Assistant {
        seq: u64,
        content: Vec<Block>,
        model: Option<String>,
        stop: Option<String>,
        usage: Option<Usage>,
    },
    ToolResult {
        seq: u64,
        call: String,
        content: Vec<Block>,
        is_error: bool,
        blob: Option<String>,
    },
    Folded {
        handle: String,
        note: String,
        since: u64,
        until: u64,
        items: Vec<Stored>,
    },
    Compacted {
        until: u64,
        summary: String,
        items: Vec<Stored>,
    },
    Elided {
        first: u64,
        last: u64,
        count: usize,
    },
}

impl From<Item> for Stored {
    fn from(item: Item) -> Stored {
        match item {
            Item::User { seq, content } => Stored::User { seq, content },
            Item::Assistant {
                seq,
                content,
                model,
                stop,
                usage,
            } => Stored::Assistant {
                seq,
                content,
                model,
                stop,
                usage,
            },
            Item::ToolResult {
                seq,
                call,
                content,
                is_error,
                blob,
            } => Stored::ToolResult {
                seq,
                call,
                content,
                is_error,
                blob,
            },
            Item::Folded {
                handle,
                note,
                since,
                until,
                items,
            } => Stored::Folded {
                handle,
                note,
                since,
                until,
                items: items.into_iter().map(Stored::from).collect(),
            },
            Item::Compacted {
                until,
                summary,
                items,
            } => Stored::Compacted {
                until,
                summary,
                items: items.into_iter().map(Stored::from).collect(),
            },
            Item::Elided { first, last, count } => Stored::Elided { first, last, count },
        }
    }
}

impl From<Stored> for Item {
    fn from(stored: Stored) -> Item {
        match stored {
            Stored::User { seq, content } => Item::User { seq, content },
            Stored::Assistant {
                seq,
                content,
                model,
                stop,
                usage,
            } => Item::Assistant {
                seq,
                content,
                model,
                stop,
                usage,
            },
            Stored::ToolResult {
                seq,
                call,
                content,
                is_error,
                blob,
            } => Item::ToolResult {
                seq,
                call,
                content,
                is_error,
                blob,
            },
            Stored::Folded {
                handle,
                note,
                since,
                until,
                items,
            } => Item::Folded {
                handle,
                note,
                since,
                until,
                items: items.into_iter().map(Item::from).collect(),
            },
            Stored::Compacted {
                until,
                summary,
                items,
            } => Item::Compacted {
                until,
                summary,
                items: items.into_iter().map(Item::from).collect(),
            },
            Stored::Elided { first, last, count } => Item::Elided { first, last, count },
        }
    }
}
