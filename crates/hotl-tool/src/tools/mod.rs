//! The built-in tools: read, write, edit, bash, grep, glob, ls and todo.
//!
//! Each lives in its own file and implements [`Tool`]. Arguments are read field by field so a
//! missing or mistyped field yields an error naming it; unknown fields are ignored. Relative
//! paths resolve against [`ToolCtx::cwd`](crate::ToolCtx); absolute paths are accepted (the
//! permission layer, not the tool, decides on writes outside the project). File work runs on
//! the blocking pool; `bash` runs its command in its own process group, killed on timeout or
//! when the future is dropped.

mod bash;
mod edit;
mod files;
mod glob;
mod grep;
mod ls;
mod output;
mod passes;
pub use self::output::{BLOB_REF_CHARS, blob_ref, cap_output};
mod read;
mod todo;
mod write;

use std::sync::Arc;

use crate::tool::Tool;

/// Every built-in tool, in the order the model sees them: read, write, edit, bash, grep, glob,
/// ls, todo.
pub(crate) fn builtin() -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(read::Read),
        Arc::new(write::Write),
        Arc::new(edit::Edit),
        Arc::new(bash::Bash),
        Arc::new(grep::Grep),
        Arc::new(glob::Glob),
        Arc::new(ls::Ls),
        Arc::new(todo::TodoTool),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_carry_object_schemas_named_like_the_tool() {
        for tool in builtin() {
            let def = tool.definition();
            assert_eq!(def.name, tool.name());
            let schema: serde_json::Value = serde_json::from_str(def.input_schema.get()).unwrap();
            assert_eq!(schema["type"], "object", "{}", def.name);
            assert!(!def.description.is_empty());
        }
    }
}
