//! The tool registry: every tool a session can call, built-in, the engine's own or arrived at
//! run time, in the order the model sees them, found by name.

use std::sync::Arc;

use hotl_wire::ToolDef;

use crate::tool::Tool;

/// The tools of a session, in the order the model sees them; names are unique.
///
/// A session freezes the definitions of the set it was created with (their bytes are in its
/// `session` record), and on resume a call runs only when its name is among the frozen ones
/// and this set has a tool of that name: a tool added later is not offered to an old session,
/// and a frozen one that is gone answers with an error.
#[derive(Clone, Default)]
pub struct ToolSet {
    tools: Vec<Arc<dyn Tool>>,
}

impl std::fmt::Debug for ToolSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

/// A tool whose name another tool of the set already has.
#[derive(Debug, thiserror::Error)]
#[error("there is already a tool named {0:?}")]
pub struct DuplicateTool(pub String);

impl ToolSet {
    /// An empty set.
    pub fn new() -> ToolSet {
        ToolSet::default()
    }

    /// The built-in tools: read, write, edit, bash, grep, glob, ls, todo.
    pub fn builtin() -> ToolSet {
        ToolSet {
            tools: crate::tools::builtin(),
        }
    }

    /// Adds `tool` at the end.
    pub fn add(&mut self, tool: Arc<dyn Tool>) -> Result<(), DuplicateTool> {
        if self.get(tool.name()).is_some() {
            return Err(DuplicateTool(tool.name().to_owned()));
        }
        self.tools.push(tool);
        Ok(())
    }

    /// This set without the tools `keep` refuses.
    pub fn filtered(&self, mut keep: impl FnMut(&dyn Tool) -> bool) -> ToolSet {
        ToolSet {
            tools: self
                .tools
                .iter()
                .filter(|t| keep(t.as_ref()))
                .cloned()
                .collect(),
        }
    }

    /// The tool named `name`.
    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.tools.iter().find(|t| t.name() == name)
    }

    /// The names, in order.
    pub fn names(&self) -> Vec<&str> {
        self.tools.iter().map(|t| t.name()).collect()
    }

    /// The definitions the model is sent, in order.
    pub fn definitions(&self) -> Vec<ToolDef> {
        self.tools.iter().map(|t| t.definition()).collect()
    }

    /// The tools, in order.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<dyn Tool>> {
        self.tools.iter()
    }

    /// How many there are.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_taken_once() {
        let mut set = ToolSet::builtin();
        let bash = set.get("bash").cloned().expect("bash is built in");
        let err = set.add(bash).expect_err("bash twice");
        assert_eq!(err.to_string(), "there is already a tool named \"bash\"");
        assert!(set.get("fold").is_none());
        let reads = set.filtered(|t| t.kind() == crate::ToolKind::Read);
        assert_eq!(reads.names(), ["read", "grep", "glob", "ls", "todo"]);
    }
}
