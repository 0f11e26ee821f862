//! Fitting a snapshot into a size budget, one step at a time, each step taken only when the
//! one before it was not enough, and each reported: images, then full outputs kept only as
//! blob references, then the archived items inside folds, compactions and reverted branches
//! (their notes stay), then children reduced to their task and final answer, then long strings
//! cut (32K, 8K, 2K, 512 characters), then the oldest whole turns.

use hotl_log::{Block, Body, Record, ToolInput, visible_mask};

use crate::html::transcript::Omit;
use crate::names::thousands;
use crate::snapshot::Snapshot;

/// The string caps, in the order they are tried.
const STRING_CAPS: [usize; 4] = [32 * 1024, 8 * 1024, 2 * 1024, 512];

/// A snapshot that cannot fit however much is trimmed.
#[derive(Debug, thiserror::Error)]
#[error("the session is too large: {} bytes after every trimming step, over the limit of {} bytes", thousands(*.size as u64), thousands(*.limit as u64))]
pub struct TooLarge {
    /// The smallest size reached.
    pub size: usize,
    /// The limit.
    pub limit: usize,
}

/// Trims `snapshot` until `measure` says it fits `limit`; returns what to leave out when
/// rendering and the steps taken. `measure` is given the steps taken so far, so what it
/// renders last is the final form.
pub fn fit(
    snapshot: &mut Snapshot,
    limit: usize,
    measure: impl FnMut(&Snapshot, Omit, &[String]) -> usize,
) -> Result<(Omit, Vec<String>), TooLarge> {
    let mut omit = Omit::default();
    let mut ladder = Ladder {
        measure,
        limit,
        size: 0,
        steps: Vec::new(),
    };
    ladder.size = (ladder.measure)(snapshot, omit, &[]);
    if ladder.size <= limit {
        return Ok((omit, ladder.steps));
    }
    // Each rung: what it drops (how many things it changed), what the renderer then leaves
    // out, and how it is said.
    type Rung = (
        fn(&mut Snapshot) -> usize,
        fn(&mut Omit),
        &'static str,
        &'static str,
    );
    let rungs: [Rung; 4] = [
        (
            drop_images,
            |o| o.images = true,
            "image replaced by a placeholder",
            "images replaced by placeholders",
        ),
        (
            drop_full_outputs,
            |o| o.full_outputs = true,
            "full output or diff kept only as a blob reference",
            "full outputs and diffs kept only as blob references",
        ),
        (
            drop_archived,
            |_| {},
            "archived record inside a fold, compaction or reverted branch left out (notes kept)",
            "archived records inside folds, compactions and reverted branches left out (notes kept)",
        ),
        (
            brief_children,
            |_| {},
            "delegated session reduced to its task and final answer",
            "delegated sessions reduced to their task and final answer",
        ),
    ];
    for (drop, leave_out, one, many) in rungs {
        let n = drop(snapshot);
        leave_out(&mut omit);
        if ladder.took(snapshot, omit, n, plural(n, one, many)) {
            return Ok((omit, ladder.steps));
        }
    }
    for cap in STRING_CAPS {
        let n = cap_strings(snapshot, cap);
        let said = format!("{n} strings cut to {} characters", thousands(cap as u64));
        if ladder.took(snapshot, omit, n, said) {
            return Ok((omit, ladder.steps));
        }
    }
    // The oldest turns last: one more each time, said as one step.
    let mut dropped = 0;
    while drop_oldest_turn(snapshot) {
        dropped += 1;
        let said = format!(
            "the {dropped} oldest turn{} left out",
            if dropped == 1 { "" } else { "s" }
        );
        ladder.steps.push(said);
        ladder.size = (ladder.measure)(snapshot, omit, &ladder.steps);
        if ladder.size <= limit {
            return Ok((omit, ladder.steps));
        }
        ladder.steps.pop();
    }
    Err(TooLarge {
        size: ladder.size,
        limit,
    })
}

/// The steps taken so far and the size they came to.
struct Ladder<M> {
    measure: M,
    limit: usize,
    size: usize,
    steps: Vec<String>,
}

impl<M: FnMut(&Snapshot, Omit, &[String]) -> usize> Ladder<M> {
    /// A step that changed `n` things is said (`said`) and measured; one that changed nothing
    /// is passed over. Whether the snapshot fits now.
    fn took(&mut self, snapshot: &Snapshot, omit: Omit, n: usize, said: String) -> bool {
        if n > 0 {
            self.steps.push(said);
            self.size = (self.measure)(snapshot, omit, &self.steps);
        }
        self.size <= self.limit
    }
}

/// "1 image replaced", "3 images replaced".
fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{} {many}", thousands(n as u64))
    }
}

fn records_mut(snapshot: &mut Snapshot, f: &mut impl FnMut(&mut Record) -> usize) -> usize {
    let mut n = 0;
    snapshot.walk_mut(&mut |s| {
        for record in &mut s.records {
            n += f(record);
        }
    });
    n
}

fn blocks_of(body: &mut Body) -> Option<&mut Vec<Block>> {
    match body {
        Body::User { content }
        | Body::Assistant { content, .. }
        | Body::ToolResult { content, .. } => Some(content),
        _ => None,
    }
}

fn drop_images(snapshot: &mut Snapshot) -> usize {
    let mut image_blobs = Vec::new();
    let n = records_mut(snapshot, &mut |record| {
        let Some(blocks) = blocks_of(&mut record.body) else {
            return 0;
        };
        let mut n = 0;
        for block in blocks.iter_mut() {
            n += strip_image(block, &mut image_blobs);
        }
        n
    });
    snapshot.walk_mut(&mut |s| {
        for hash in &image_blobs {
            s.blobs.remove(hash);
        }
    });
    n
}

fn strip_image(block: &mut Block, blobs: &mut Vec<String>) -> usize {
    match block {
        Block::Image { data, blob, .. } => {
            blobs.extend(blob.iter().cloned());
            usize::from(data.take().is_some() || blob.is_some())
        }
        Block::ToolResult { content, .. } => {
            content.iter_mut().map(|b| strip_image(b, blobs)).sum()
        }
        _ => 0,
    }
}

fn drop_full_outputs(snapshot: &mut Snapshot) -> usize {
    let mut n = 0;
    snapshot.walk_mut(&mut |s| {
        n += s.blobs.len();
        s.blobs.clear();
    });
    n
}

/// Leaves out the records inside folded and compacted spans, and those on reverted branches.
fn drop_archived(snapshot: &mut Snapshot) -> usize {
    let mut n = 0;
    snapshot.walk_mut(&mut |s| {
        // The spans the visible folds and compactions archived, from their records (a pass,
        // not a projection): a message inside one goes, the fold or compaction stays.
        let mask = visible_mask(&s.records);
        let mut spans: Vec<(u64, u64)> = Vec::new();
        for (record, visible) in s.records.iter().zip(&mask) {
            match &record.body {
                Body::Fold(fold) if *visible => spans.push((fold.since, fold.until)),
                Body::Compaction { until, .. } if *visible => spans.push((0, *until)),
                _ => {}
            }
        }
        let archived = |seq: u64| spans.iter().any(|&(a, b)| a <= seq && seq <= b);
        let before = s.records.len();
        let mut keep = mask.iter();
        s.records.retain(|r| {
            let visible = keep.next().copied().unwrap_or(true);
            let message = matches!(
                r.body,
                Body::User { .. } | Body::Assistant { .. } | Body::ToolResult { .. }
            );
            matches!(r.body, Body::Session(_)) || (visible && !(message && archived(r.seq)))
        });
        n += before - s.records.len();
        find_own_start(s);
    });
    n
}

/// Each child keeps its `session` record, its first message (the task) and its last answer.
fn brief_children(snapshot: &mut Snapshot) -> usize {
    let mut n = 0;
    for child in &mut snapshot.children {
        n += 1;
        let s = &mut child.snapshot;
        let first_user = s
            .records
            .iter()
            .position(|r| matches!(r.body, Body::User { .. }));
        let last_answer = s.records.iter().rposition(|r| {
            matches!(&r.body, Body::Assistant { content, .. }
                if content.iter().any(|b| matches!(b, Block::Text { .. })))
        });
        let mut keep = 0;
        s.records.retain(|r| {
            let i = keep;
            keep += 1;
            matches!(r.body, Body::Session(_)) || Some(i) == first_user || Some(i) == last_answer
        });
        // The answer's calls have no results left: keep its text only.
        for record in &mut s.records {
            if let Body::Assistant { content, .. } = &mut record.body {
                content.retain(|b| matches!(b, Block::Text { .. }));
            }
        }
        s.own_start = 0;
        s.blobs.clear();
        s.children.clear();
    }
    n
}

fn cap_strings(snapshot: &mut Snapshot, cap: usize) -> usize {
    let mut n = 0;
    snapshot.walk_mut(&mut |s| {
        if let Some(system) = &mut s.system {
            n += cap_string(system, cap);
        }
        for tool in &mut s.tools {
            n += cap_string(&mut tool.description, cap) + cap_string(&mut tool.schema, cap);
        }
        for record in &mut s.records {
            n += cap_body(&mut record.body, cap);
        }
    });
    n
}

fn cap_body(body: &mut Body, cap: usize) -> usize {
    match body {
        Body::Fold(fold) => cap_string(&mut fold.note, cap),
        Body::Compaction { summary, .. } => cap_string(summary, cap),
        Body::Ask {
            question, answer, ..
        } => cap_string(question, cap) + cap_string(answer, cap),
        Body::Error { message, .. } => cap_string(message, cap),
        _ => blocks_of(body).map_or(0, |blocks| {
            blocks.iter_mut().map(|b| cap_block(b, cap)).sum()
        }),
    }
}

fn cap_block(block: &mut Block, cap: usize) -> usize {
    match block {
        Block::Text { text } => cap_string(text, cap),
        Block::Thinking { thinking, .. } => cap_string(thinking, cap),
        Block::ToolResult { content, .. } => content.iter_mut().map(|b| cap_block(b, cap)).sum(),
        Block::ToolUse { input, .. } if input.get().len() > cap => {
            let Ok(mut value) = input.parse::<serde_json::Value>() else {
                return 0;
            };
            let n = cap_value(&mut value, cap);
            if let Ok(text) = serde_json::to_string(&value)
                && let Ok(capped) = ToolInput::from_json(text)
            {
                *input = capped;
            }
            n
        }
        _ => 0,
    }
}

fn cap_value(value: &mut serde_json::Value, cap: usize) -> usize {
    match value {
        serde_json::Value::String(s) => cap_string(s, cap),
        serde_json::Value::Array(items) => items.iter_mut().map(|v| cap_value(v, cap)).sum(),
        serde_json::Value::Object(map) => map.values_mut().map(|v| cap_value(v, cap)).sum(),
        _ => 0,
    }
}

const CUT: &str = "\n…[cut to fit the size limit]";

fn cap_string(text: &mut String, cap: usize) -> usize {
    if text.len() <= cap + CUT.len() {
        return 0;
    }
    let mut end = cap;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text.push_str(CUT);
    1
}

/// Leaves out the oldest turn of the session's own records (inherited history first); false
/// when one turn or less is left.
fn drop_oldest_turn(snapshot: &mut Snapshot) -> bool {
    let users: Vec<usize> = snapshot
        .records
        .iter()
        .enumerate()
        .filter(|(_, r)| matches!(r.body, Body::User { .. }))
        .map(|(i, _)| i)
        .collect();
    let [first, second, ..] = users[..] else {
        return false;
    };
    let mut i = 0;
    snapshot.records.retain(|r| {
        let keep = i < first || i >= second || matches!(r.body, Body::Session(_));
        i += 1;
        keep
    });
    find_own_start(snapshot);
    true
}

/// Points `own_start` at the session's own `session` record again after records went.
fn find_own_start(s: &mut Snapshot) {
    let id = s.id.clone();
    s.own_start = s
        .records
        .iter()
        .position(|r| matches!(&r.body, Body::Session(start) if start.id == id))
        .unwrap_or(0);
}
