//! The `fold` tool: the model folds a finished episode into a note and a handle.

use hotl_wire::ToolDef;

use crate::tool::{Invocation, Tool, ToolFuture, ToolKind, ToolOutput, definition};

const DESCRIPTION: &str = "Fold a finished episode: replace the span from the stamp `since` (a user message or tool result, e.g. \"t12\") up to your previous step with a short note, keeping it archived under a handle. Use it when a piece of work is done and its details (logs, dead ends) are no longer needed in context. The note must have these lines: changed: / learned: (with caveats) / decided and rejected: / open: / where:";

const SCHEMA: &str = r#"{"type":"object","properties":{"since":{"type":"string","description":"stamp where the episode starts, e.g. t12"},"note":{"type":"string","description":"lines starting changed:, learned:, decided and rejected:, open:, where:"}},"required":["since","note"]}"#;

/// The `fold` tool.
pub(crate) struct FoldTool;

impl Tool for FoldTool {
    fn name(&self) -> &str {
        "fold"
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn definition(&self) -> ToolDef {
        definition("fold", DESCRIPTION, SCHEMA)
    }

    fn run<'a>(&'a self, call: Invocation<'a>) -> ToolFuture<'a> {
        Box::pin(async move { ToolOutput::from_result(fold(call).await) })
    }
}

async fn fold(mut call: Invocation<'_>) -> Result<ToolOutput, String> {
    let since = call.args.stamp("since")?;
    let note = call.args.string("note")?;
    let host = call.host("fold")?;
    host.session.fold_call(since, &note).await
}
