//! Where a request's Anthropic `cache_control` markers go: a pure function of the request.
//!
//! At most four: the end of tools and system (the frozen prefix), the last durable block (the
//! last block of the last user message or tool result; the per-request dynamic text comes after
//! it), the previous request's write when one step added 20 blocks or more, an optional
//! episode-start anchor, and rolling anchors. The cache looks back only 20
//! blocks from a marker for an earlier write, so rolling anchors sit at fixed strides of the
//! conversation's blocks: whatever the last request wrote, the next one finds a write within
//! reach even after a turn that added many blocks.

use hotl_view::{Part, Role};

use crate::request::Request;

/// Anthropic's limit on markers per request.
pub const MAX_BREAKPOINTS: usize = 4;

/// How far back (in blocks, the marker itself included) a marker finds an earlier write.
pub const LOOKBACK: usize = 20;

/// Rolling anchors sit on multiples of this many conversation blocks (under the 20-block
/// lookback, with room for the blocks of one step).
pub const ANCHOR_STRIDE: usize = 15;

/// The markers of one request.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Breakpoints {
    /// A marker on the last system block (or, without system, the last tool).
    pub prefix: bool,
    /// Markers on message blocks, as (message index, block index), in order.
    pub blocks: Vec<(usize, usize)>,
}

impl Breakpoints {
    /// Whether block `block` of message `message` carries a marker.
    pub fn has(&self, message: usize, block: usize) -> bool {
        self.blocks.contains(&(message, block))
    }

    /// How many markers in all.
    pub fn len(&self) -> usize {
        usize::from(self.prefix) + self.blocks.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Places the markers for `request`.
pub fn place(request: &Request<'_>) -> Breakpoints {
    if request.cache.disabled {
        return Breakpoints::default();
    }
    let mut out = Breakpoints {
        prefix: !request.system.is_empty() || !request.tools.is_empty(),
        blocks: Vec::new(),
    };
    // Every message block, flattened, with whether it may carry a marker.
    let mut flat: Vec<(usize, usize)> = Vec::new();
    let mut last_durable: Option<usize> = None;
    // The last durable block before the latest assistant message: where the previous request
    // (the one that message answered) put its last marker, so an entry was written there.
    let mut previous_write: Option<usize> = None;
    for (m, message) in request.messages.iter().enumerate() {
        if message.role == Role::Assistant {
            previous_write = last_durable;
        }
        for (b, part) in message.content.iter().enumerate() {
            if cacheable(part) {
                if message.role == Role::User {
                    last_durable = Some(flat.len());
                }
                flat.push((m, b));
            }
        }
    }
    let Some(last) = last_durable else {
        return out;
    };
    let mut chosen: Vec<usize> = vec![last];
    // A step that added 20 blocks or more (parallel tool calls) puts the previous write out of
    // the last marker's lookback: mark it again so this request reads it.
    if let Some(previous) = previous_write
        && last - previous >= LOOKBACK
    {
        chosen.push(previous);
    }
    if let Some(anchor) = request.cache.episode_anchor
        && let Some(i) = flat.iter().rposition(|&(m, _)| m == anchor)
        && i < last
    {
        chosen.push(i);
    }
    // The two highest stride multiples below the last durable block: the next request's own
    // anchors land on the same positions, so one of them reads what this one wrote.
    let room = MAX_BREAKPOINTS - usize::from(out.prefix);
    let highest = last.saturating_sub(1) / ANCHOR_STRIDE;
    for k in (1..=highest).rev().take(2) {
        let i = k * ANCHOR_STRIDE;
        if chosen.len() < room && !chosen.contains(&i) {
            chosen.push(i);
        }
    }
    chosen.sort_unstable();
    out.blocks = chosen.into_iter().map(|i| flat[i]).collect();
    out
}

/// Thinking blocks cannot carry a marker, and neither can empty text.
fn cacheable(part: &Part<'_>) -> bool {
    match part {
        Part::Block(
            hotl_log::Block::Thinking { .. } | hotl_log::Block::RedactedThinking { .. },
        ) => false,
        Part::Block(hotl_log::Block::Text { text }) => !text.is_empty(),
        Part::Text(text) => !text.is_empty(),
        _ => true,
    }
}
