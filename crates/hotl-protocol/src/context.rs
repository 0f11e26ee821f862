//! What the model's context is made of ([`ContextParts`]): the frozen system prompt and tool
//! definitions, the notes folds and compactions stand in with, the live messages, and what the
//! archive saves; and `/context`'s report of it ([`context_text`]).

use hotl_text::tokens;
use serde::Serialize;

use crate::event::Status;

/// Share of the context window (in percent) at which a turn compacts before its next request.
pub const COMPACT_AT_PERCENT: u64 = 85;

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

/// `/context`'s report: the parts, the window, and what the provider measured last.
pub fn context_text(parts: &ContextParts, status: Option<&Status>) -> String {
    let total = parts.system + parts.tools + parts.notes + parts.messages;
    let mut out = match status.filter(|s| s.context_window > 0) {
        Some(s) => format!(
            "context: about {} of {} tokens ({}%); a turn compacts at {}%",
            tokens(total),
            tokens(s.context_window),
            total * 100 / s.context_window,
            COMPACT_AT_PERCENT
        ),
        None => format!("context: about {} tokens", tokens(total)),
    };
    let row = |name: &str, n: u64| format!("\n  {name:<16}{:>8}", tokens(n));
    out.push_str(&row("system prompt", parts.system));
    out.push_str(&row("tools", parts.tools));
    out.push_str(&row("fold notes", parts.notes));
    if parts.folds + parts.compactions > 0 {
        out.push_str(&format!(
            "   ({}, {})",
            hotl_text::plural(parts.folds, "fold"),
            hotl_text::plural(parts.compactions, "compaction"),
        ));
    }
    out.push_str(&row("live messages", parts.messages));
    out.push_str(&row("saved by folds", parts.saved));
    if let Some(s) = status.filter(|s| s.context_used > 0) {
        out.push_str(&format!(
            "\n  (estimated at 4 bytes a token; the provider counted {} for the last request)",
            tokens(s.context_used)
        ));
    }
    out
}
