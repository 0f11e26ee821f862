//! Tools that arrive after the agent has started: an MCP server's, which a front end starts
//! once its first frame is on the screen, so that a slow server never delays it.
//!
//! The agent takes them as soon as they come, and waits for them before anything that asks
//! the model or writes a session (a new session freezes its tool definitions when it is
//! written, so it must not be written without them). A session already open takes only the
//! tools it froze; a switch to another session carries them along.

use std::sync::Arc;

use tokio::sync::oneshot;

use hotl_tool::Tool;

/// What arrives: the tools, the instructions a new session's prompt gains, the `--allow`
/// entries they bring, and what to tell the user (a server that did not start, say).
#[derive(Default)]
pub struct LateTools {
    /// The tools, in the order the model sees them after the standard ones.
    pub tools: Vec<Arc<dyn Tool>>,
    /// Blocks joined to the system prompt of a session written after they came.
    pub instructions: Vec<String>,
    /// Entries for the permission policy's allow list (`mcp__srv__*`).
    pub allow: Vec<String>,
    /// Notices for the user.
    pub notices: Vec<String>,
}

impl std::fmt::Debug for LateTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LateTools")
            .field(
                "tools",
                &self.tools.iter().map(|t| t.name()).collect::<Vec<_>>(),
            )
            .field("instructions", &self.instructions.len())
            .field("allow", &self.allow)
            .finish_non_exhaustive()
    }
}

/// Where late tools come from: `Err` says why the session cannot start (a required server
/// that did not). A sender dropped without sending counts as no tools.
pub type Late = oneshot::Receiver<Result<LateTools, String>>;

/// A channel for late tools: the sender to the front end's starter, the receiver to
/// [`spawn_with_late`](crate::spawn_with_late).
pub fn late_channel() -> (oneshot::Sender<Result<LateTools, String>>, Late) {
    oneshot::channel()
}
