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
    /// The items in pre-order: a span is followed by its children (each compaction holds
    /// the one before it, so nesting would grow with history: a flat list reads back at any
    /// depth).
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
    #[serde(default)]
    imported_until: u64,
    walk: Walk,
}

impl View {
    /// This view with the originals inside folded and compacted spans left out.
    pub fn thin(&self) -> ThinView {
        ThinView {
            items: flatten(self.items.iter().map(thin_top)),
            boundaries: self.boundaries.clone(),
            turns: self.turns,
            open_turn: self.open_turn,
            model_after: self.model_after,
            head_seq: self.head_seq,
            state: self.state.clone(),
            anomalies: self.anomalies.clone(),
            failures: self.failures.clone(),
            reverts: self.reverts.clone(),
            imported_until: self.imported_until,
            walk: self.walk.clone(),
        }
    }

    /// The view a [`ThinView`] keeps: records after its head can be pushed onto it.
    pub fn from_thin(thin: ThinView) -> View {
        View {
            items: unflatten(thin.items),
            boundaries: thin.boundaries,
            turns: thin.turns,
            open_turn: thin.open_turn,
            model_after: thin.model_after,
            head_seq: thin.head_seq,
            state: thin.state,
            anomalies: thin.anomalies,
            failures: thin.failures,
            reverts: thin.reverts,
            imported_until: thin.imported_until,
            walk: thin.walk,
        }
    }

    /// Whether archived originals were left out (a view read from a checkpoint).
    pub fn is_thin(&self) -> bool {
        let mut elided = false;
        for item in &self.items {
            item.walk(&mut |i| elided |= matches!(i, Item::Elided { .. }));
        }
        elided
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

/// [`Item`] as a checkpoint stores it: flat (a span says how many children follow it), and
/// externally tagged, so a tool call's arguments are read back byte for byte (an internally
/// tagged enum buffers its content, and raw JSON cannot be read from a buffer).
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
        children: usize,
    },
    Compacted {
        until: u64,
        summary: String,
        children: usize,
    },
    Elided {
        first: u64,
        last: u64,
        count: usize,
    },
    ChildReport {
        seq: u64,
        handle: String,
        state: String,
        report: String,
    },
}

/// `items` in pre-order, each span followed by its children.
fn flatten(items: impl Iterator<Item = Item>) -> Vec<Stored> {
    let mut out = Vec::new();
    // Iterators still to walk, innermost last: no recursion, whatever the depth.
    let mut stack: Vec<std::vec::IntoIter<Item>> = vec![items.collect::<Vec<_>>().into_iter()];
    while let Some(level) = stack.last_mut() {
        let Some(item) = level.next() else {
            stack.pop();
            continue;
        };
        let children = match item {
            Item::User { seq, content } => {
                out.push(Stored::User { seq, content });
                continue;
            }
            Item::Assistant {
                seq,
                content,
                model,
                stop,
                usage,
            } => {
                out.push(Stored::Assistant {
                    seq,
                    content,
                    model,
                    stop,
                    usage,
                });
                continue;
            }
            Item::ToolResult {
                seq,
                call,
                content,
                is_error,
                blob,
            } => {
                out.push(Stored::ToolResult {
                    seq,
                    call,
                    content,
                    is_error,
                    blob,
                });
                continue;
            }
            Item::Elided { first, last, count } => {
                out.push(Stored::Elided { first, last, count });
                continue;
            }
            Item::ChildReport {
                seq,
                handle,
                state,
                report,
            } => {
                out.push(Stored::ChildReport {
                    seq,
                    handle,
                    state,
                    report,
                });
                continue;
            }
            Item::Folded {
                handle,
                note,
                since,
                until,
                items,
            } => {
                out.push(Stored::Folded {
                    handle,
                    note,
                    since,
                    until,
                    children: items.len(),
                });
                items
            }
            Item::Compacted {
                until,
                summary,
                items,
            } => {
                out.push(Stored::Compacted {
                    until,
                    summary,
                    children: items.len(),
                });
                items
            }
        };
        stack.push(children.into_iter());
    }
    out
}

/// The items [`flatten`] wrote.
fn unflatten(flat: Vec<Stored>) -> Vec<Item> {
    /// A span whose children are still being read.
    struct Open {
        span: Item,
        left: usize,
    }
    let mut top = Vec::new();
    let mut open: Vec<Open> = Vec::new();
    for stored in flat {
        let (item, children) = match stored {
            Stored::User { seq, content } => (Item::User { seq, content }, 0),
            Stored::Assistant {
                seq,
                content,
                model,
                stop,
                usage,
            } => (
                Item::Assistant {
                    seq,
                    content,
                    model,
                    stop,
                    usage,
                },
                0,
            ),
            Stored::ToolResult {
                seq,
                call,
                content,
                is_error,
                blob,
            } => (
                Item::ToolResult {
                    seq,
                    call,
                    content,
                    is_error,
                    blob,
                },
                0,
            ),
            Stored::Elided { first, last, count } => (Item::Elided { first, last, count }, 0),
            Stored::ChildReport {
                seq,
                handle,
                state,
                report,
            } => (
                Item::ChildReport {
                    seq,
                    handle,
                    state,
                    report,
                },
                0,
            ),
            Stored::Folded {
                handle,
                note,
                since,
                until,
                children,
            } => (
                Item::Folded {
                    handle,
                    note,
                    since,
                    until,
                    items: Vec::with_capacity(children),
                },
                children,
            ),
            Stored::Compacted {
                until,
                summary,
                children,
            } => (
                Item::Compacted {
                    until,
                    summary,
                    items: Vec::with_capacity(children),
                },
                children,
            ),
        };
        if children > 0 {
            open.push(Open {
                span: item,
                left: children,
            });
            continue;
        }
        // A finished item goes into the span it belongs to, which may finish in turn.
        let mut done = item;
        loop {
            let Some(parent) = open.last_mut() else {
                top.push(done);
                break;
            };
            if let Item::Folded { items, .. } | Item::Compacted { items, .. } = &mut parent.span {
                items.push(done);
            }
            parent.left -= 1;
            if parent.left > 0 {
                break;
            }
            done = open.pop().expect("a parent").span;
        }
    }
    // A truncated list leaves spans open: they keep what was read.
    while let Some(last) = open.pop() {
        match open.last_mut() {
            Some(parent) => {
                if let Item::Folded { items, .. } | Item::Compacted { items, .. } = &mut parent.span
                {
                    items.push(last.span);
                }
            }
            None => top.push(last.span),
        }
    }
    top
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each compaction holds the one before: a thousand of them read back through JSON
    /// (whose readers stop at a nesting depth far below that).
    #[test]
    fn deeply_nested_spans_read_back_whole() {
        let mut item = Item::User {
            seq: 1,
            content: vec![Block::text("first")],
        };
        for n in 0..1_000u64 {
            item = Item::Compacted {
                until: n + 2,
                summary: format!("summary {n}"),
                items: vec![
                    item,
                    Item::Elided {
                        first: n + 2,
                        last: n + 2,
                        count: 1,
                    },
                ],
            };
        }
        let items = vec![
            item,
            Item::User {
                seq: 5_000,
                content: vec![Block::text("last")],
            },
        ];
        let text = serde_json::to_string(&flatten(items.clone().into_iter())).expect("writes");
        let read: Vec<Stored> = serde_json::from_str(&text).expect("reads");
        assert_eq!(unflatten(read), items);
    }
}
