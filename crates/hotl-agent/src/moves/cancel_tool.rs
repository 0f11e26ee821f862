//! The `cancel` tool: stops a child this session runs in the background (by its handle); its
//! end still comes as a message, `cancelled`, with what it did so far in its log.

use hotl_wire::ToolDef;

use crate::session_tool::{SessionCall, SessionTool};
use hotl_tool::{ToolFuture, ToolOutput, definition};

const DESCRIPTION: &str = "Stop a background child.";

const SCHEMA: &str =
    r#"{"type":"object","properties":{"handle":{"type":"string"}},"required":["handle"]}"#;

/// The `cancel` tool.
pub struct CancelTool;

impl SessionTool for CancelTool {
    fn name(&self) -> &str {
        "cancel"
    }

    fn definition(&self) -> ToolDef {
        definition("cancel", DESCRIPTION, SCHEMA)
    }

    fn run<'a>(&'a self, call: SessionCall<'a>) -> ToolFuture<'a> {
        Box::pin(async move { ToolOutput::from_result(cancel(call)) })
    }
}

fn cancel(mut call: SessionCall<'_>) -> Result<ToolOutput, String> {
    let handle = call.args.text("handle")?;
    let host = call.host();
    let background = host.session.background();
    if background.cancel(&handle) {
        return Ok(ToolOutput::ok(format!(
            "{handle} is stopping; its end comes as a message"
        )));
    }
    let running = background.running_handles();
    Ok(ToolOutput::error(if running.is_empty() {
        format!("no background child {handle:?} is running: none is")
    } else {
        format!(
            "no background child {handle:?} is running; these are: {}",
            running.join(", ")
        )
    }))
}
