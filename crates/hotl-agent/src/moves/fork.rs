//! The `fork` tool: a child that starts from this view, works a task to the end with the same
//! tools, and returns its final message with a handle to its archived work.

use hotl_wire::ToolDef;

use crate::session::Started;
use crate::session_tool::{SessionCall, SessionTool};
use hotl_tool::{BoxFuture, ToolFuture, ToolOutput, definition};

const DESCRIPTION: &str = "Run a task in a copy of yourself that starts from this context; only its report comes back, with a handle. For log-heavy work.";

const SCHEMA: &str = r#"{"type":"object","properties":{"task":{"type":"string"},"background":{"type":"boolean"}},"required":["task"]}"#;

/// The `fork` tool.
pub(crate) struct ForkTool;

impl SessionTool for ForkTool {
    fn name(&self) -> &str {
        "fork"
    }

    /// Its calls start a child (which may write; its own calls ask for permission).
    fn delegates(&self) -> bool {
        true
    }

    fn definition(&self) -> ToolDef {
        definition("fork", DESCRIPTION, SCHEMA)
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

    /// A fork the dead process left running is resumed: its child finishes its own turn and
    /// this call gets its report.
    fn resume<'a>(&'a self, mut call: SessionCall<'a>) -> BoxFuture<'a, Option<Started>> {
        Box::pin(async move {
            let id = call.id;
            let host = call.host();
            host.session.resume_fork(id, host.cx)
        })
    }
}

/// Starts the fork a call asks for.
fn start(call: &mut SessionCall<'_>) -> Started {
    let parsed = (|| {
        let task = call.args.text("task")?;
        let background = call.args.opt_bool("background")?.unwrap_or(false);
        Ok::<_, String>((task, background))
    })();
    let id = call.id;
    match parsed {
        Ok((task, background)) => {
            let host = call.host();
            host.session.fork_call(id, &task, background, host.cx)
        }
        Err(why) => ToolOutput::error(why).into(),
    }
}
