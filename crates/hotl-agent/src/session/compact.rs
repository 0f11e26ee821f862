//! Compaction, the fallback when the context window fills: everything the model sees so far
//! becomes one note (the span stays archived, searchable by recall), written by the model in
//! the fold template. Folding finished episodes keeps a session far from this; compaction is
//! for the long turn nobody folded.

use hotl_log::{Block, Body};
use hotl_view::Item;

use super::{Progress, Session, Settings, Ui};
use crate::error::{AgentError, Result};
use crate::provider::Provider;

/// Share of the context window (in percent) at which a turn compacts before its next request.
pub const COMPACT_AT_PERCENT: u64 = 85;

/// The context window of `model`, in tokens, when its family is known; else a conservative
/// 128K (set `context_window` in the config for a local model with less).
pub fn default_context_window(model: &str) -> u64 {
    let model = model.to_ascii_lowercase();
    if model.contains("claude") {
        200_000
    } else if model.starts_with("gpt-4.1") {
        1_000_000
    } else if model.starts_with("gpt-5") {
        400_000
    } else if model.starts_with("o3") || model.starts_with("o4") {
        200_000
    } else {
        128_000
    }
}

impl Session {
    /// About how many tokens the next request holds: what the provider counted for the last
    /// answer the model view shows (input, cache reads and writes, output), plus about a token
    /// per 4 bytes of what came after it. 0 when unknown: no answer since the latest fold,
    /// compaction or clear (those shrank what the count measured).
    pub fn context_used(&self) -> u64 {
        let mut after = 0u64;
        for item in self.view.items.iter().rev() {
            match item {
                Item::Assistant { usage: Some(u), .. } => {
                    return u.input + u.cache_read + u.cache_write + u.output + after / 4;
                }
                Item::Assistant { usage: None, .. } => return 0,
                Item::Folded { .. } | Item::Compacted { .. } => return 0,
                other => after += item_bytes(other),
            }
        }
        0
    }

    /// Whether the next request comes near `settings.context_window`.
    pub(super) fn needs_compaction(&self, settings: &Settings) -> bool {
        settings.context_window > 0
            && self.context_used() * 100 >= settings.context_window * COMPACT_AT_PERCENT
    }

    /// Compacts everything the model sees so far into one note the model writes (the fold
    /// template), recorded as a `compaction` up to the head; the span stays archived. Refused
    /// while a tool call waits for its result. Returns the seq compacted through.
    pub async fn compact(
        &mut self,
        provider: &Provider,
        settings: &Settings,
        ui: &mut dyn Ui,
    ) -> Result<u64> {
        let until = self.compaction_end()?;
        ui.progress(Progress::Notice(&format!(
            "compacting: the context is about {}% of the window",
            (self.context_used() * 100)
                .checked_div(settings.context_window)
                .unwrap_or(0)
        )));
        let ask = format!(
            "[compaction] The context window is nearly full. Write the note that will replace \
             everything above (through t{until}) in your context; the user's messages are kept \
             word for word beside it, and the rest stays archived for recall. Tools are \
             unavailable: reply with the note only, one line each starting with changed:, \
             learned: (with caveats), decided and rejected:, open: (the task in progress and \
             its next step), where:"
        );
        // A fallback keeps whatever note it got, fitting the template or not, rather than
        // overflow the window.
        let (summary, _) = self.request_note(ask, provider, settings).await?;
        if summary.trim().is_empty() {
            return Err(AgentError::Compaction("the model wrote no note".to_owned()));
        }
        self.record_compaction(summary)
    }

    /// Records a compaction of everything the model sees, with `summary` as its note (a
    /// person's, from the shell). Returns the seq compacted through.
    pub fn record_compaction(&mut self, summary: String) -> Result<u64> {
        let until = self.compaction_end()?;
        self.append(Body::Compaction { until, summary })?;
        Ok(until)
    }

    /// Where a compaction now would end: the head, once no tool call waits for its result.
    fn compaction_end(&self) -> Result<u64> {
        let Some(until) = self.view.items.last().map(Item::last_seq) else {
            return Err(AgentError::Compaction(
                "there is nothing to compact".to_owned(),
            ));
        };
        if let Some((call, _)) = self.open_calls().into_iter().next() {
            return Err(AgentError::Compaction(format!(
                "the tool call {call} has no result yet"
            )));
        }
        Ok(until)
    }
}

/// About how many bytes of text an item adds to a request.
fn item_bytes(item: &Item) -> u64 {
    let blocks = match item {
        Item::User { content, .. } | Item::ToolResult { content, .. } => content,
        Item::Assistant { content, .. } => content,
        Item::Folded { note, .. } => return note.len() as u64,
        Item::Compacted { summary, .. } => return summary.len() as u64,
    };
    blocks
        .iter()
        .map(|b| match b {
            Block::Text { text } => text.len() as u64,
            other => serde_json::to_string(other).map_or(0, |s| s.len() as u64),
        })
        .sum()
}
