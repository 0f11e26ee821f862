//! hotl's agent: turns over the log, tools, permissions, and recovery after a crash.
//!
//! It owns the loop (a user message, then model calls and tool calls until the model stops,
//! every step appended to the session's log as it happens), the built-in tools, permission
//! checks, and finishing a turn a killed process left open. It never parses arguments and
//! never prints: callers get events and decide how to show them.

#![deny(missing_docs)]

mod error;
mod moves;
mod permission;
mod prompt;
mod provider;
mod session;
mod snapshot;
mod tool;
pub mod tools;

pub use crate::error::{AgentError, Result};
pub use crate::moves::{
    AskTool, FoldTool, ForkTool, RecallTool, ask_prompt, check_note, fork_brief, make_fold,
    parse_stamp, recall_mode, stamp_seq,
};
pub use crate::permission::{Decision, Mode, Policy, inside, resolve};
pub use crate::prompt::system_blocks;
pub use crate::provider::Provider;
pub use crate::session::{
    COMPACT_AT_PERCENT, INTERRUPTED, Progress, Session, Settings, Totals, TurnOutcome, Ui,
    default_context_window, known_context_window,
};
pub use crate::tool::{Tool, ToolCtx, ToolFuture, ToolKind, ToolOutput, content_hash, definition};

/// The tools a new session starts with: the built-in tools and the moves on its own context.
pub fn default_tools() -> Vec<std::sync::Arc<dyn Tool>> {
    let mut tools = tools::builtin();
    tools.push(std::sync::Arc::new(moves::FoldTool));
    tools.push(std::sync::Arc::new(moves::RecallTool));
    tools.push(std::sync::Arc::new(moves::AskTool));
    tools.push(std::sync::Arc::new(moves::ForkTool));
    tools
}
