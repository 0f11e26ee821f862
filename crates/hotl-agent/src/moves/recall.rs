//! The `recall` tool: search what the session archived, with no model call.

use hotl_wire::ToolDef;

use crate::session_tool::{SessionCall, SessionTool};
use hotl_tool::{ToolFuture, ToolOutput, definition};

/// The most hits one call returns.
const LIMIT: usize = 10;

const DESCRIPTION: &str = "Search the archive (folds, compactions, forks, asks) and stored outputs; hits give handle, stamp and line. scope \"sessions\": the user's other sessions.";

const SCHEMA: &str = r#"{"type":"object","properties":{"query":{"type":"string"},"mode":{"type":"string","enum":["ranked","exact","regex"]},"scope":{"type":"string","enum":["session","sessions"]}},"required":["query"]}"#;

/// The `recall` tool.
pub(crate) struct RecallTool;

impl SessionTool for RecallTool {
    fn name(&self) -> &str {
        "recall"
    }

    fn definition(&self) -> ToolDef {
        definition("recall", DESCRIPTION, SCHEMA)
    }

    fn run<'a>(&'a self, call: SessionCall<'a>) -> ToolFuture<'a> {
        Box::pin(async move { ToolOutput::from_result(recall(call).await) })
    }
}

async fn recall(mut call: SessionCall<'_>) -> Result<ToolOutput, String> {
    let query = call.args.text("query")?;
    let mode = call.args.opt_string("mode")?;
    // The mode is checked before the search, so a bad one is named as the field at fault.
    super::recall_mode(mode.as_deref()).map_err(|why| format!("`mode`: {why}"))?;
    let scope = call.args.opt_string("scope")?;
    let host = call.host();
    let hits = match scope.as_deref() {
        None | Some("session") => host.session.recall(&query, mode.as_deref(), LIMIT).await?,
        Some("sessions") => {
            (host.session)
                .recall_sessions(&query, mode.as_deref(), LIMIT)
                .await?
        }
        Some(other) => {
            return Err(format!(
                "`scope`: {other:?} is not one; use \"session\" (this session's archive, the \
                 default) or \"sessions\" (the user's other sessions)"
            ));
        }
    };
    Ok(ToolOutput::ok(hits))
}
