//! The `ask` tool: one question to an archived thread, answered from its own context.

use hotl_wire::ToolDef;

use crate::session_tool::{SessionCall, SessionTool};
use hotl_tool::{ToolFuture, ToolOutput, definition};

const DESCRIPTION: &str =
    "Ask an archived thread (by handle) a question; it answers from its full context.";

const SCHEMA: &str = r#"{"type":"object","properties":{"handle":{"type":"string"},"question":{"type":"string"}},"required":["handle","question"]}"#;

/// The `ask` tool.
pub(crate) struct AskTool;

impl SessionTool for AskTool {
    fn name(&self) -> &str {
        "ask"
    }

    fn definition(&self) -> ToolDef {
        definition("ask", DESCRIPTION, SCHEMA)
    }

    fn run<'a>(&'a self, call: SessionCall<'a>) -> ToolFuture<'a> {
        Box::pin(async move { ToolOutput::from_result(ask(call).await) })
    }
}

async fn ask(mut call: SessionCall<'_>) -> Result<ToolOutput, String> {
    let handle = call.args.text("handle")?;
    let question = call.args.text("question")?;
    let host = call.host();
    let answer = host
        .session
        .ask(&handle, &question, host.cx)
        .await
        .map_err(|e| e.to_string())?;
    Ok(ToolOutput::ok(answer))
}
