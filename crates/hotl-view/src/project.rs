//! The projection: a lineage's records become the visible transcript, its turn boundaries and
//! the session state.

use hotl_log::{Block, Body, Lineage, Record, RunState, SessionMeta, summarize, visible_branch};
use serde::Serialize;

use crate::item::Item;

/// The end of a turn: a place a fork or a revert may cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Boundary {
    /// Turns before the cut.
    pub turns: usize,
    /// Original items before the cut (what `--keep` counts).
    pub items: usize,
    /// The last seq before the cut.
    pub seq: u64,
}

/// A session as its records project it.
#[derive(Clone, Debug, Serialize)]
pub struct View {
    /// The visible transcript, folded spans kept whole.
    pub items: Vec<Item>,
    /// Turn boundaries, from before the first turn (0) to the last completed turn.
    pub boundaries: Vec<Boundary>,
    /// User turns on the visible branch.
    pub turns: usize,
    /// Whether the last turn is still open (no answer yet, or a tool call unanswered).
    pub open_turn: bool,
    /// The model view covers only items after this seq (the latest `clear`), 0 when none.
    pub model_after: u64,
    /// The last seq on the visible branch.
    pub head_seq: u64,
    /// Name, title, modes and todos.
    #[serde(skip)]
    pub state: SessionMeta,
    /// Records the projection could not apply (e.g. a fold overlapping an earlier one).
    pub anomalies: Vec<String>,
}

impl View {
    /// Projects a loaded lineage.
    pub fn of(lineage: &Lineage) -> View {
        project(&lineage.records, lineage.own_start)
    }

    /// Original items on the visible branch (a folded span counts as its items).
    pub fn item_count(&self) -> usize {
        self.items.iter().map(Item::original_count).sum()
    }
}

/// Projects `records` (a lineage, own records from `own_start` on). Pure: no I/O, no clock.
pub fn project(records: &[Record], own_start: usize) -> View {
    let mut items: Vec<Item> = Vec::new();
    let mut boundaries = Vec::new();
    let mut collapses: Vec<&Record> = Vec::new();
    let mut turns = 0;
    // The seq a cut before the next user message keeps through: a `run started` (and whatever
    // follows it up to the message) belongs to the turn it starts, not to the one before.
    let mut boundary_seq = 0;
    let mut head_seq = 0;
    let mut in_preamble = false;
    let mut model_after = 0;
    let mut run_closed: Option<bool> = None;
    for i in visible_branch(records) {
        let record = &records[i];
        head_seq = record.seq;
        match &record.body {
            Body::User { content } => {
                boundaries.push(Boundary {
                    turns,
                    items: items.len(),
                    seq: boundary_seq,
                });
                turns += 1;
                run_closed = in_preamble.then_some(false);
                in_preamble = false;
                items.push(Item::User {
                    seq: record.seq,
                    content: content.clone(),
                });
            }
            Body::Assistant {
                content,
                model,
                usage,
                ..
            } => items.push(Item::Assistant {
                seq: record.seq,
                content: content.clone(),
                model: model.clone(),
                usage: *usage,
            }),
            Body::ToolResult {
                call,
                content,
                is_error,
                blob,
                ..
            } => items.push(Item::ToolResult {
                seq: record.seq,
                call: call.clone(),
                content: content.clone(),
                is_error: *is_error,
                blob: blob.clone(),
            }),
            Body::Run {
                state: RunState::Started,
                ..
            } => in_preamble = true,
            Body::Run { .. } => run_closed = Some(true),
            Body::Clear => model_after = record.seq,
            Body::Fold(_) | Body::Compaction { .. } => collapses.push(record),
            _ => {}
        }
        if !in_preamble {
            boundary_seq = record.seq;
        }
    }
    let open_turn = turns > 0 && !run_closed.unwrap_or_else(|| last_answer_is_final(&items));
    if !open_turn {
        boundaries.push(Boundary {
            turns,
            items: items.len(),
            seq: boundary_seq,
        });
    }
    let mut anomalies = Vec::new();
    for record in collapses {
        if let Err(why) = collapse(&mut items, record) {
            anomalies.push(format!("t{}: {why}", record.seq));
        }
    }
    View {
        items,
        boundaries,
        turns,
        open_turn,
        model_after,
        head_seq,
        state: summarize(records, own_start.min(records.len())),
        anomalies,
    }
}

/// Without run records (an imported log), a turn is finished when the model spoke last and
/// asked for no tool.
fn last_answer_is_final(items: &[Item]) -> bool {
    match items.last() {
        Some(Item::Assistant { content, .. }) => {
            !content.iter().any(|b| matches!(b, Block::ToolUse { .. }))
        }
        _ => false,
    }
}

/// Applies a fold or a compaction to the top-level items.
fn collapse(items: &mut Vec<Item>, record: &Record) -> Result<(), String> {
    match &record.body {
        Body::Fold(fold) => {
            let inside =
                |item: &Item| item.first_seq() >= fold.since && item.last_seq() <= fold.until;
            let Some(start) = items.iter().position(inside) else {
                return Err(format!("fold {} covers no visible item", fold.handle));
            };
            let len = items[start..].iter().take_while(|i| inside(i)).count();
            let span = &items[start..start + len];
            if span
                .iter()
                .any(|i| matches!(i, Item::Folded { .. } | Item::Compacted { .. }))
            {
                return Err(format!(
                    "fold {} reaches behind an earlier fold; ignored",
                    fold.handle
                ));
            }
            if items[start + len..].iter().any(inside) {
                return Err(format!(
                    "fold {} span is not contiguous; ignored",
                    fold.handle
                ));
            }
            let originals: Vec<Item> = items.drain(start..start + len).collect();
            items.insert(
                start,
                Item::Folded {
                    handle: fold.handle.clone(),
                    note: fold.note.clone(),
                    since: fold.since,
                    until: fold.until,
                    items: originals,
                },
            );
            Ok(())
        }
        Body::Compaction { until, summary } => {
            let len = items.iter().take_while(|i| i.last_seq() <= *until).count();
            let originals: Vec<Item> = items.drain(..len).collect();
            items.insert(
                0,
                Item::Compacted {
                    until: *until,
                    summary: summary.clone(),
                    items: originals,
                },
            );
            Ok(())
        }
        _ => Ok(()),
    }
}
