//! The `spawn` tool: another agent (one of the session's definitions) consulted on a task; its
//! definition decides how much of this conversation it starts with, and only its report comes
//! back, with a handle to its work.

use std::sync::Arc;

use hotl_wire::ToolDef;

use crate::agents::{AgentDef, description_list};
use crate::session::Started;
use crate::session_tool::{SessionCall, SessionTool};
use hotl_tool::{BoxFuture, ToolFuture, ToolOutput, definition};

const SCHEMA: &str = r#"{"type":"object","properties":{"agent":{"type":"string"},"task":{"type":"string"},"fork":{"type":"boolean"},"background":{"type":"boolean"}},"required":["agent","task"]}"#;

/// The `spawn` tool over a session's agent definitions.
pub struct SpawnTool {
    defs: Arc<[AgentDef]>,
}

impl SpawnTool {
    /// The tool offering `defs`.
    pub fn new(defs: impl Into<Arc<[AgentDef]>>) -> SpawnTool {
        SpawnTool { defs: defs.into() }
    }
}

impl SessionTool for SpawnTool {
    fn name(&self) -> &str {
        "spawn"
    }

    /// Its calls start a child (which may write; its own calls ask for permission).
    fn delegates(&self) -> bool {
        true
    }

    fn definition(&self) -> ToolDef {
        // The definitions are listed in the description, frozen with the session's tools.
        let description = format!(
            "Give an agent a task; its report comes back. Agents:\n{}",
            description_list(&self.defs).trim_end()
        );
        definition("spawn", &description, SCHEMA)
    }

    fn run<'a>(&'a self, mut call: SessionCall<'a>) -> ToolFuture<'a> {
        Box::pin(async move {
            let started = start(&self.defs, &mut call).await;
            super::run_alone(&mut call, started).await
        })
    }

    fn delegate<'a>(&'a self, mut call: SessionCall<'a>) -> BoxFuture<'a, Started> {
        Box::pin(async move { start(&self.defs, &mut call).await })
    }

    /// A spawn the dead process left running: a fork is resumed; another agent's child is
    /// closed `interrupted` and this call answered with its handle and worktree.
    fn resume<'a>(&'a self, mut call: SessionCall<'a>) -> BoxFuture<'a, Option<Started>> {
        Box::pin(async move {
            let id = call.id;
            let host = call.host();
            host.session.resume_spawn(id, host.cx)
        })
    }
}

/// Starts the child a call asks for.
async fn start(defs: &[AgentDef], call: &mut SessionCall<'_>) -> Started {
    match spawn(defs, call).await {
        Ok(started) => started,
        Err(why) => ToolOutput::error(why).into(),
    }
}

async fn spawn(defs: &[AgentDef], call: &mut SessionCall<'_>) -> Result<Started, String> {
    let agent = call.args.text("agent")?;
    let task = call.args.text("task")?;
    let fork = call.args.opt_bool("fork")?.unwrap_or(false);
    let background = call.args.opt_bool("background")?;
    let Some(def) = defs.iter().find(|d| d.name == agent) else {
        let names: Vec<&str> = defs.iter().map(|d| d.name.as_str()).collect();
        return Err(format!(
            "there is no agent {agent:?}; the agents are: {}",
            names.join(", ")
        ));
    };
    let id = call.id;
    let host = call.host();
    Ok(Box::pin(
        host.session
            .spawn_call(id, def, &task, fork, background, host.cx),
    )
    .await)
}
