//! The `fold` tool: the model folds a finished episode into a note and a handle.

use hotl_wire::ToolDef;

use crate::session_tool::{SessionCall, SessionTool};
use hotl_tool::{ToolFuture, ToolOutput, definition};

const DESCRIPTION: &str = "Fold a finished episode: from stamp `since` (e.g. t12) to your previous step, archived under a handle, replaced by `note` with lines changed:, learned: (with caveats), decided and rejected:, open:, where:";

const SCHEMA: &str = r#"{"type":"object","properties":{"since":{"type":"string"},"note":{"type":"string"}},"required":["since","note"]}"#;

/// The `fold` tool.
pub(crate) struct FoldTool;

impl SessionTool for FoldTool {
    fn name(&self) -> &str {
        "fold"
    }

    fn definition(&self) -> ToolDef {
        definition("fold", DESCRIPTION, SCHEMA)
    }

    fn run<'a>(&'a self, call: SessionCall<'a>) -> ToolFuture<'a> {
        Box::pin(async move { ToolOutput::from_result(fold(call).await) })
    }
}

async fn fold(mut call: SessionCall<'_>) -> Result<ToolOutput, String> {
    let since = call.args.stamp("since")?;
    let note = call.args.string("note")?;
    let host = call.host();
    host.session.fold_call(since, &note).await
}
