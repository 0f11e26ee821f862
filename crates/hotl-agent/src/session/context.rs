//! What the model's context is made of: the frozen system prompt and tool definitions, the
//! notes folds and compactions stand in with, the live messages, and what the archive saves.
//! Sizes are estimated at a token per four bytes, as the turn estimates what it adds between
//! two measured requests; the provider's own count of the last request is in `Status`.

use hotl_log::Block;
use hotl_view::Item;
use serde::Serialize;

use super::Session;

/// The context by part, in estimated tokens.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ContextParts {
    /// The system prompt.
    pub system: u64,
    /// The tool definitions.
    pub tools: u64,
    /// The notes of folds and the summaries of compactions.
    pub notes: u64,
    /// Messages the model sees whole.
    pub messages: u64,
    /// What the folded and compacted spans would cost if they were still there, less their
    /// notes.
    pub saved: u64,
    /// Folded spans in the view.
    pub folds: usize,
    /// Compactions in the view.
    pub compactions: usize,
}

impl Session {
    /// What the context the next request sends is made of.
    pub fn context_parts(&self) -> ContextParts {
        let mut parts = ContextParts {
            system: tokens(self.system.iter().map(String::len).sum()),
            tools: tokens(
                self.tool_defs
                    .iter()
                    .map(|t| t.name.len() + t.description.len() + t.input_schema.get().len())
                    .sum(),
            ),
            ..ContextParts::default()
        };
        for item in &self.view.items {
            match item {
                Item::Folded { note, items, .. } => {
                    parts.folds += 1;
                    parts.notes += tokens(note.len());
                    parts.saved += tokens(items_bytes(items)).saturating_sub(tokens(note.len()));
                }
                Item::Compacted { summary, items, .. } => {
                    parts.compactions += 1;
                    parts.notes += tokens(summary.len());
                    parts.saved += tokens(items_bytes(items)).saturating_sub(tokens(summary.len()));
                }
                other => parts.messages += tokens(items_bytes(std::slice::from_ref(other))),
            }
        }
        parts
    }
}

fn tokens(bytes: usize) -> u64 {
    (bytes as u64).div_ceil(4)
}

fn items_bytes(items: &[Item]) -> usize {
    items
        .iter()
        .map(|item| match item {
            Item::User { content, .. }
            | Item::Assistant { content, .. }
            | Item::ToolResult { content, .. } => blocks_bytes(content),
            Item::Folded { note, items, .. } => note.len().max(items_bytes(items)),
            Item::Compacted { summary, items, .. } => summary.len().max(items_bytes(items)),
        })
        .sum()
}

fn blocks_bytes(blocks: &[Block]) -> usize {
    blocks
        .iter()
        .map(|block| match block {
            Block::Text { text } => text.len(),
            Block::Thinking { thinking, .. } => thinking.len(),
            Block::ToolUse { name, input, .. } => name.len() + input.get().len(),
            Block::ToolResult { content, .. } => blocks_bytes(content),
            _ => 0,
        })
        .sum()
}
