//! The `continue` tool: one more turn for a child this session delegated (by its handle), in
//! the child's own log; its new final message comes back.

use hotl_wire::ToolDef;

use crate::session::Started;
use crate::session_tool::{SessionCall, SessionTool};
use hotl_tool::{BoxFuture, ToolFuture, ToolOutput, definition};

const DESCRIPTION: &str =
    "Send a finished child (spawn or fork) another message; its next report comes back.";

const SCHEMA: &str = r#"{"type":"object","properties":{"handle":{"type":"string"},"message":{"type":"string"}},"required":["handle","message"]}"#;

/// The `continue` tool.
pub struct ContinueTool;

impl SessionTool for ContinueTool {
    fn name(&self) -> &str {
        "continue"
    }

    /// Its calls start a child (which may write; its own calls ask for permission).
    fn delegates(&self) -> bool {
        true
    }

    fn definition(&self) -> ToolDef {
        definition("continue", DESCRIPTION, SCHEMA)
    }

    fn run<'a>(&'a self, mut call: SessionCall<'a>) -> ToolFuture<'a> {
        Box::pin(async move {
            let started = start(&mut call);
            super::run_alone(&mut call, started).await
        })
    }

    fn delegate<'a>(&'a self, mut call: SessionCall<'a>) -> BoxFuture<'a, Started> {
        Box::pin(async move { start(&mut call) })
    }

    /// A `continue` the dead process left running: the child's open run is closed
    /// `interrupted` and this call answered with its handle, for another `continue`.
    fn resume<'a>(&'a self, mut call: SessionCall<'a>) -> BoxFuture<'a, Option<Started>> {
        Box::pin(async move {
            let handle = call.args.text("handle").ok()?;
            let host = call.host();
            host.session.resume_continue(&handle, host.cx)
        })
    }
}

/// Starts the child's new turn a call asks for.
fn start(call: &mut SessionCall<'_>) -> Started {
    let parsed = (|| {
        let handle = call.args.text("handle")?;
        let message = call.args.text("message")?;
        Ok::<_, String>((handle, message))
    })();
    match parsed {
        Ok((handle, message)) => {
            let host = call.host();
            host.session.continue_call(&handle, &message, host.cx)
        }
        Err(why) => ToolOutput::error(why).into(),
    }
}
