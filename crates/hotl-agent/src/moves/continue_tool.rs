//! The `continue` tool: one more turn for a child this session delegated (by its handle), in
//! the child's own log; its new final message comes back.

use hotl_wire::ToolDef;

use crate::tool::{Invocation, Tool, ToolFuture, ToolKind, ToolOutput, definition};

const DESCRIPTION: &str = "Give a finished child (spawn or fork) a new message by its handle; its next report comes back.";

const SCHEMA: &str = r#"{"type":"object","properties":{"handle":{"type":"string"},"message":{"type":"string"}},"required":["handle","message"]}"#;

/// The `continue` tool.
pub struct ContinueTool;

impl Tool for ContinueTool {
    fn name(&self) -> &str {
        "continue"
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    /// The child may run tools that change files (its own calls ask for permission).
    fn changes_files(&self) -> bool {
        true
    }

    fn runs_last(&self) -> bool {
        true
    }

    fn stops_itself(&self) -> bool {
        true
    }

    fn definition(&self) -> ToolDef {
        definition("continue", DESCRIPTION, SCHEMA)
    }

    fn run<'a>(&'a self, call: Invocation<'a>) -> ToolFuture<'a> {
        Box::pin(async move { ToolOutput::from_result(carry_on(call).await) })
    }
}

async fn carry_on(mut call: Invocation<'_>) -> Result<ToolOutput, String> {
    let handle = call.args.text("handle")?;
    let message = call.args.text("message")?;
    let host = call.host("continue")?;
    Ok(Box::pin(host.session.continue_call(&handle, &message, host.cx)).await)
}
