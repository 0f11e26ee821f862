//! The MCP servers of the config, for a run. Headless, they start before the session opens;
//! in the console and the terminal UI, after its first frame (a slow server never delays
//! it), and the agent takes their tools as they come ([`hotl_agent::LateTools`]). Their
//! tools join the registry a new session freezes (a resumed session reaches the same names
//! on the servers running now), their instructions join a new session's system prompt, and
//! a server that did not start is told.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use hotl_agent::LateTools;
use tokio::sync::Notify;

use crate::Resolved;

/// What servers started now give a run.
#[derive(Debug, Default)]
pub struct Started {
    /// Instruction blocks for a new session's prompt.
    pub instructions: Vec<String>,
    /// `--allow` entries (`approval = "allow"`).
    pub allow: Vec<String>,
    /// What to tell.
    pub notices: Vec<String>,
}

/// The servers a run starts: the user's, then a trusted project's (a name in both is the
/// user's server, and that is told).
pub struct Servers {
    servers: BTreeMap<String, hotl_mcp::ServerConfig>,
    notices: Vec<String>,
}

impl Servers {
    /// The user's servers and `project`'s.
    pub fn new(resolved: &Resolved, project: BTreeMap<String, hotl_mcp::ServerConfig>) -> Self {
        let mut servers = resolved.mcp_servers.clone();
        let mut notices = Vec::new();
        for (name, server) in project {
            if servers.contains_key(&name) {
                notices.push(format!(
                    "warning: the project's MCP server {name} has the name of one of yours; yours is used"
                ));
                continue;
            }
            servers.insert(name, server);
        }
        Servers { servers, notices }
    }

    /// Whether there is any.
    pub fn is_empty(&self) -> bool {
        self.servers.is_empty()
    }

    /// Starts them in `cwd`, their environment without `hidden_env` (the run's
    /// `Settings::hidden_env`, as its tools): their tools, the instruction blocks for a new
    /// session's prompt, the `--allow` entries `approval = "allow"` gives, and what to tell.
    /// `Err` is a required server that did not start.
    pub async fn start(self, cwd: &Path, hidden_env: Arc<[String]>) -> Result<LateTools, String> {
        let Servers {
            servers,
            mut notices,
        } = self;
        if servers.is_empty() {
            return Ok(LateTools {
                notices,
                ..LateTools::default()
            });
        }
        let started = hotl_mcp::start_all(&servers, cwd, hidden_env)
            .await
            .map_err(|e| e.to_string())?;
        for (server, why) in &started.failed {
            notices.push(format!(
                "warning: the MCP server {server} did not start: {why}"
            ));
        }
        let instructions = started
            .instructions
            .into_iter()
            .map(|(server, text)| format!("Instructions from the MCP server {server}:\n{text}"))
            .collect();
        let allow = servers
            .iter()
            .filter(|(_, c)| c.approval == hotl_mcp::Approval::Allow)
            .map(|(name, _)| format!("{}*", hotl_mcp::tool_prefix(name)))
            .collect();
        Ok(LateTools {
            tools: started.tools,
            instructions,
            allow,
            notices,
        })
    }

    /// Starts them now, for a run that draws nothing (headless, ACP): their tools join
    /// `tools`; the instruction blocks, the `--allow` entries, and what to tell (a server that
    /// did not start, a tool left out).
    pub async fn start_now(
        self,
        cwd: &Path,
        hidden_env: Arc<[String]>,
        tools: &mut hotl_agent::ToolSet,
    ) -> crate::Result<Started> {
        let started = self
            .start(cwd, hidden_env)
            .await
            .map_err(crate::ConfigError)?;
        let mut notices = started.notices;
        for tool in started.tools {
            let name = tool.name().to_owned();
            if tools.add(tool).is_err() {
                notices.push(format!(
                    "warning: the MCP tool {name} has the name of another tool; left out"
                ));
            }
        }
        Ok(Started {
            instructions: started.instructions,
            allow: started.allow,
            notices,
        })
    }

    /// Starts them once `first_frame` is notified, and hands what came to the agent through
    /// the returned channel.
    pub fn start_after(
        self,
        first_frame: Arc<Notify>,
        cwd: PathBuf,
        hidden_env: Arc<[String]>,
    ) -> hotl_agent::Late {
        let (sender, late) = hotl_agent::late_channel();
        tokio::spawn(async move {
            first_frame.notified().await;
            let started = self.start(&cwd, hidden_env).await;
            // An agent already gone wants nothing.
            let _ = sender.send(started);
        });
        late
    }
}
