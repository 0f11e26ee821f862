//! The tools a new session starts with: the built-in ones (`hotl-tool`), then the engine's own
//! that work on the session (the moves; delegation when agents are defined).

use std::sync::Arc;

use hotl_tool::{Tool, ToolSet};

use crate::session_tool::OnSession;

/// What a new session starts with: the built-in tools, then the moves on its own context
/// (fold, recall, ask, fork).
pub fn standard_tools() -> ToolSet {
    let mut set = ToolSet::builtin();
    add_all(&mut set, crate::moves::tools());
    set
}

/// `set` with the `spawn` tool offering `defs` (the agents a session may consult),
/// `continue` (another turn for one of its children) and `cancel` (a background one stopped),
/// each unless the set has a tool of its name already.
pub fn with_agents(mut set: ToolSet, defs: Vec<crate::agents::AgentDef>) -> ToolSet {
    add_all(
        &mut set,
        vec![
            OnSession::entry(crate::moves::spawn::SpawnTool::new(defs)),
            OnSession::entry(crate::moves::continue_tool::ContinueTool),
            OnSession::entry(crate::moves::cancel_tool::CancelTool),
        ],
    );
    set
}

fn add_all(set: &mut ToolSet, tools: Vec<Arc<dyn Tool>>) {
    for tool in tools {
        if let Err(taken) = set.add(tool) {
            tracing::debug!("{taken}: the set's own tool stays");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_standard_set_is_the_builtins_then_the_moves() {
        let set = standard_tools();
        assert_eq!(
            set.names(),
            [
                "read", "write", "edit", "bash", "grep", "glob", "ls", "todo", "fold", "recall",
                "ask", "fork"
            ]
        );
        let defs = set.definitions();
        assert!(defs.iter().zip(set.names()).all(|(d, n)| d.name == n));
        let with = with_agents(set, Vec::new());
        assert_eq!(with.names()[12..], ["spawn", "continue", "cancel"]);
    }
}
