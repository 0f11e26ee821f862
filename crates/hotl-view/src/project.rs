//! The projection: a lineage's records become the visible transcript, its turn boundaries and
//! the session state.

use hotl_log::{
    Block, Body, Fold, Lineage, Record, RunState, SessionMeta, summarize_visible, visible_mask,
};
use serde::{Deserialize, Serialize};

use crate::item::Item;

/// The end of a turn: a place a fork or a revert may cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
    /// What ended the turns that failed (`error` records), in log order; never in the model
    /// view.
    pub failures: Vec<Failure>,
    /// The reverts on the visible branch, with what each hid, in log order.
    pub reverts: Vec<hotl_log::RevertMark>,
    /// Items up to this seq were imported from another agent's session (an `import` record
    /// says how far), 0 when none: the model view sends their tool calls as text notes.
    pub imported_until: u64,
    /// Where the walk over records stands, so later records can be pushed.
    #[serde(skip)]
    pub(crate) walk: Walk,
}

impl Walk {
    /// A message after a `run started` with no user message between: the run went on (a
    /// recovery restarting the run a dead process left, a delegated session's run answering
    /// the call that made it), so it belongs to the turn it continues and is open.
    fn continue_run(&mut self) {
        if self.in_preamble {
            self.in_preamble = false;
            self.run_closed = Some(false);
        }
    }
}

/// What ended a failed turn, as its `error` record says.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    /// The record's seq.
    pub seq: u64,
    /// The provider's error type, or hotl's word for what failed.
    pub error: String,
    /// What it said.
    pub message: String,
    /// The provider's HTTP status, when it answered with one.
    pub status: Option<u16>,
}

/// The projection's running state between records.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct Walk {
    /// The seq a cut before the next user message keeps through: a `run started` (and whatever
    /// follows it up to the message) belongs to the turn it starts, not to the one before.
    boundary_seq: u64,
    in_preamble: bool,
    run_closed: Option<bool>,
    /// Original items so far (folds count as their items).
    flat_items: usize,
    /// Whether the last boundary is the provisional one at the head of a closed turn.
    head_boundary: bool,
    /// Whether the last message is a final answer (the model spoke and asked for no tool).
    answered: bool,
}

impl View {
    /// Projects a loaded lineage, leaving it intact (its content is copied).
    pub fn of(lineage: &Lineage) -> View {
        project(&lineage.records, lineage.own_start)
    }

    /// Projects a loaded lineage, moving its content into the view (no copy).
    pub fn from_lineage(lineage: Lineage) -> View {
        project_owned(lineage.records, lineage.own_start)
    }

    /// The seq turn `turn` (1-based) ends at, 0 when the view does not know it.
    pub fn turn_end_seq(&self, turn: usize) -> u64 {
        self.boundaries
            .iter()
            .find(|b| b.turns == turn)
            .map_or(0, |b| b.seq)
    }

    /// Original items on the visible branch (a folded span counts as its items).
    pub fn item_count(&self) -> usize {
        self.items.iter().map(Item::original_count).sum()
    }

    /// Applies one more of the session's own records, appended at the head, without
    /// re-projecting: messages, run records, clears and state records. A record that changes
    /// what came before (revert, fold, compaction) or starts a session comes back as `Err`:
    /// re-project then. Pushing gives exactly the view projecting would.
    pub fn push(&mut self, record: Record) -> Result<(), Box<Record>> {
        // Out of order: the projection (which leaves it out, reported) decides.
        if record.seq <= self.head_seq && self.head_seq > 0 {
            return Err(Box::new(record));
        }
        if matches!(
            record.body,
            Body::Revert { .. } | Body::Fold(_) | Body::Compaction { .. } | Body::Session(_)
        ) {
            return Err(Box::new(record));
        }
        if self.walk.head_boundary {
            self.boundaries.pop();
            self.walk.head_boundary = false;
        }
        self.state.apply(&record, true);
        self.step(record, &mut Vec::new());
        self.close();
        Ok(())
    }

    fn empty(state: SessionMeta) -> View {
        View {
            items: Vec::new(),
            boundaries: Vec::new(),
            turns: 0,
            open_turn: false,
            model_after: 0,
            head_seq: 0,
            state,
            anomalies: Vec::new(),
            failures: Vec::new(),
            reverts: Vec::new(),
            imported_until: 0,
            walk: Walk::default(),
        }
    }

    /// Takes one record of the visible branch, in order.
    fn step(&mut self, record: Record, collapses: &mut Vec<Collapse>) {
        let seq = record.seq;
        self.head_seq = seq;
        // A revert ends no turn of its own: the turn it returned to keeps its end (and the
        // stamp a cut there uses), so stamps stay as they were before it.
        let moves_boundary = !matches!(record.body, Body::Revert { .. });
        let walk = &mut self.walk;
        match record.body {
            Body::User { content } => {
                self.boundaries.push(Boundary {
                    turns: self.turns,
                    items: walk.flat_items,
                    seq: walk.boundary_seq,
                });
                self.turns += 1;
                walk.run_closed = walk.in_preamble.then_some(false);
                walk.in_preamble = false;
                walk.flat_items += 1;
                walk.answered = false;
                self.items.push(Item::User { seq, content });
            }
            Body::Assistant {
                content,
                model,
                stop,
                usage,
                ..
            } => {
                walk.continue_run();
                walk.flat_items += 1;
                walk.answered = !content.iter().any(|b| matches!(b, Block::ToolUse { .. }));
                self.items.push(Item::Assistant {
                    seq,
                    content,
                    model,
                    stop: stop.map(|s| hotl_log::stop_name(&s).to_owned()),
                    usage,
                });
            }
            Body::ToolResult {
                call,
                content,
                is_error,
                blob,
                ..
            } => {
                walk.continue_run();
                walk.flat_items += 1;
                walk.answered = false;
                self.items.push(Item::ToolResult {
                    seq,
                    call,
                    content,
                    is_error,
                    blob,
                });
            }
            Body::Run {
                state: RunState::Started,
                ..
            } => walk.in_preamble = true,
            Body::Run { .. } => {
                // A run that ends before any message (a recovery whose model call failed)
                // starts no turn: what follows belongs to the turn before.
                walk.run_closed = Some(true);
                walk.in_preamble = false;
            }
            Body::Clear => self.model_after = seq,
            Body::Fold(fold) => collapses.push(Collapse::Fold {
                seq,
                fold,
                after: self.model_after,
            }),
            Body::Compaction { until, summary } => collapses.push(Collapse::Compaction {
                until,
                summary,
                after: self.model_after,
            }),
            Body::Error {
                error,
                message,
                status,
            } => self.failures.push(Failure {
                seq,
                error,
                message,
                status,
            }),
            Body::Import(info) => self.imported_until = self.imported_until.max(info.until),
            // A background child's report: model-visible, but no turn of its own.
            Body::ChildFinished {
                handle,
                state,
                report,
                ..
            } => {
                walk.flat_items += 1;
                self.items.push(Item::ChildReport {
                    seq,
                    handle,
                    state,
                    report,
                });
            }
            _ => {}
        }
        if !self.walk.in_preamble && moves_boundary {
            self.walk.boundary_seq = seq;
        }
    }

    /// Settles whether the last turn is open, and the boundary at the head when it is not.
    fn close(&mut self) {
        // Without run records (an imported log), a turn is finished when the model spoke last
        // and asked for no tool.
        let closed = self.walk.run_closed.unwrap_or(self.walk.answered)
            // Nothing ran here since an import wrote the history: its turns are over (a
            // call the source left open was closed by the import).
            || (self.imported_until > 0 && self.head_seq <= self.imported_until);
        self.open_turn = self.turns > 0 && !closed;
        if !self.open_turn {
            self.boundaries.push(Boundary {
                turns: self.turns,
                items: self.walk.flat_items,
                seq: self.walk.boundary_seq,
            });
            self.walk.head_boundary = true;
        }
    }
}

/// Projects `records` (a lineage, own records from `own_start` on). Pure: no I/O, no clock.
pub fn project(records: &[Record], own_start: usize) -> View {
    project_owned(records.to_vec(), own_start)
}

/// [`project`], consuming the records so their content moves into the view.
pub fn project_owned(records: Vec<Record>, own_start: usize) -> View {
    let visible = visible_mask(&records);
    let state = summarize_visible(&records, own_start.min(records.len()), &visible);
    let mut view = View::empty(state);
    view.reverts = hotl_log::revert_marks(&records);
    let mut collapses: Vec<Collapse> = Vec::new();
    let mut last: Option<u64> = None;
    for (record, _) in records.into_iter().zip(visible).filter(|(_, v)| *v) {
        // A line repeated (or out of order) is reported by `check`; taken into the view it
        // would send the same message, and the same tool call id, twice.
        if let Some(last) = last.filter(|&last| record.seq <= last) {
            view.anomalies.push(format!(
                "t{} does not follow t{last}: a repeated or out-of-order line, left out",
                record.seq
            ));
            continue;
        }
        last = Some(record.seq);
        view.step(record, &mut collapses);
    }
    view.close();
    let items = std::mem::take(&mut view.items);
    view.items = collapse(items, collapses, &mut view.anomalies);
    view
}

/// A fold or compaction record, waiting to be applied.
enum Collapse {
    /// `after`: the latest clear when it was recorded; the fold may not reach behind it.
    Fold {
        seq: u64,
        fold: Box<Fold>,
        after: u64,
    },
    /// `after`: the latest clear when it was recorded. The model saw nothing before it, so
    /// the compaction holds only what came after.
    Compaction {
        until: u64,
        summary: String,
        after: u64,
    },
}

/// An accepted fold: the item range it replaces.
struct Accepted {
    start: usize,
    end: usize,
    fold: Box<Fold>,
}

/// Applies folds and compactions to the flat items, in one pass for the folds.
///
/// Records are judged in log order: a fold that overlaps an earlier fold, or reaches behind an
/// earlier compaction, is ignored and reported. A fold whose `since` is a tool result starts at
/// the assistant message of that step instead (it snaps backward, never forward), so a tool
/// call is never separated from its result.
fn collapse(items: Vec<Item>, collapses: Vec<Collapse>, anomalies: &mut Vec<String>) -> Vec<Item> {
    if collapses.is_empty() {
        return items;
    }
    let mut accepted: Vec<Accepted> = Vec::new();
    let mut compactions: Vec<(u64, String, u64)> = Vec::new();
    let mut compacted_through = 0;
    for c in collapses {
        match c {
            Collapse::Fold { seq, fold, after } => {
                match place_fold(&items, &fold, &accepted, compacted_through, after) {
                    Ok((start, end)) => {
                        let at = accepted.partition_point(|a| a.start < start);
                        accepted.insert(at, Accepted { start, end, fold });
                    }
                    Err(why) => {
                        anomalies.push(format!("t{seq}: fold {} {why}; ignored", fold.handle))
                    }
                }
            }
            Collapse::Compaction {
                until,
                summary,
                after,
            } => {
                compacted_through = compacted_through.max(until);
                compactions.push((until, summary, after));
            }
        }
    }
    let mut out = Vec::with_capacity(items.len());
    let mut folds = accepted.into_iter().peekable();
    let mut items = items.into_iter().enumerate().peekable();
    while let Some((i, item)) = items.next() {
        match folds.peek() {
            Some(a) if a.start == i => {
                let a = folds.next().expect("peeked");
                let mut originals = vec![item];
                while let Some((_, next)) = items.next_if(|(j, _)| *j < a.end) {
                    originals.push(next);
                }
                out.push(Item::Folded {
                    handle: a.fold.handle.clone(),
                    note: a.fold.note.clone(),
                    since: originals[0].first_seq(),
                    until: a.fold.until,
                    items: originals,
                });
            }
            _ => out.push(item),
        }
    }
    for (until, summary, after) in compactions {
        let start = out.iter().take_while(|i| i.last_seq() <= after).count();
        let end = out.iter().take_while(|i| i.last_seq() <= until).count();
        if end <= start {
            continue;
        }
        let originals: Vec<Item> = out.drain(start..end).collect();
        out.insert(
            start,
            Item::Compacted {
                until,
                summary,
                items: originals,
            },
        );
    }
    out
}

/// The item range `[start, end)` a fold replaces, or why it cannot apply.
fn place_fold(
    items: &[Item],
    fold: &Fold,
    accepted: &[Accepted],
    compacted_through: u64,
    cleared_through: u64,
) -> Result<(usize, usize), String> {
    let mut start = items.partition_point(|i| i.first_seq() < fold.since);
    let end = items.partition_point(|i| i.last_seq() <= fold.until);
    if start >= end {
        return Err("covers no visible item".to_owned());
    }
    while start > 0 && matches!(items[start], Item::ToolResult { .. }) {
        start -= 1;
        if matches!(items[start], Item::Assistant { .. }) {
            break;
        }
    }
    if items[start].first_seq() <= compacted_through {
        return Err("reaches behind an earlier compaction".to_owned());
    }
    // The model saw nothing before the clear: a note over it would bring it back.
    if items[start].first_seq() <= cleared_through {
        return Err(format!("reaches behind the clear at t{cleared_through}"));
    }
    let overlaps = accepted.iter().any(|a| a.start < end && start < a.end);
    if overlaps {
        return Err("reaches behind an earlier fold".to_owned());
    }
    Ok((start, end))
}
