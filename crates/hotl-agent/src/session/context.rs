//! What the model's context is made of, measured: the frozen system prompt and tool
//! definitions, the notes folds and compactions stand in with, the live messages, and what the
//! archive saves. Sizes are estimated at a token per four bytes, as the turn estimates what it
//! adds between two measured requests; the provider's own count of the last request is in
//! `Status`.

use hotl_protocol::ContextParts;
use hotl_view::Item;

use super::Session;
use super::compact::item_bytes;

impl Session {
    /// What the context the next request sends is made of, each item measured as the turn
    /// measures what it adds (`compact::item_bytes`).
    pub fn context_parts(&self) -> ContextParts {
        let mut parts = ContextParts {
            system: tokens(self.system.iter().map(|s| s.len() as u64).sum()),
            tools: tokens(
                self.tool_defs
                    .iter()
                    .map(|t| {
                        (t.name.len() + t.description.len() + t.input_schema.get().len()) as u64
                    })
                    .sum(),
            ),
            ..ContextParts::default()
        };
        // A view read from a checkpoint left the archived originals in the log: measuring
        // what folds saved needs them.
        let full;
        let view = match self.thin {
            true => match self.store.lineage(self.id()) {
                Ok(lineage) => {
                    full = hotl_view::View::from_lineage(lineage);
                    &full
                }
                Err(_) => &self.view,
            },
            false => &self.view,
        };
        for item in &view.items {
            let shown = tokens(item_bytes(item));
            match item {
                Item::Folded { .. } => parts.folds += 1,
                Item::Compacted { .. } => parts.compactions += 1,
                _ => {
                    parts.messages += shown;
                    continue;
                }
            }
            parts.notes += shown;
            let whole = tokens(item.originals().iter().map(item_bytes).sum());
            parts.saved += whole.saturating_sub(shown);
        }
        parts
    }
}

fn tokens(bytes: u64) -> u64 {
    bytes.div_ceil(4)
}
