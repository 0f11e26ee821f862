//! The MCP servers of the config, for a run: started before the session opens, their tools
//! added to the registry the session freezes (a resumed session reaches the same names on the
//! servers running now), their instructions joined to a new session's system prompt, and a
//! server that did not start told on stderr.

pub mod trust;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use hotl_agent::ToolSet;

use crate::config::Resolved;
use crate::error::CliError;

/// The variables a server started outside a run must not see: the provider keys, as a run's
/// tools (`Settings::hidden_env` within a run).
pub fn hidden_env() -> Arc<[String]> {
    hotl_agent::PROVIDER_KEY_VARS
        .iter()
        .map(|v| (*v).to_owned())
        .collect()
}

/// Starts the configured servers in `cwd`, their environment without `hidden_env` (the run's
/// `Settings::hidden_env`, as its tools), and adds their tools to `tools`; returns the
/// instruction blocks for a new session's system prompt and the `--allow` entries the servers
/// set to `approval = "allow"` give.
pub async fn start(
    resolved: &Resolved,
    project: BTreeMap<String, hotl_mcp::ServerConfig>,
    cwd: &Path,
    hidden_env: Arc<[String]>,
    tools: &mut ToolSet,
) -> Result<(Vec<String>, Vec<String>), CliError> {
    // A trusted project's servers join the user's; a name in both is the user's server.
    let mut servers = resolved.mcp_servers.clone();
    for (name, server) in project {
        if servers.contains_key(&name) {
            eprintln!(
                "hotl: warning: the project's MCP server {name} has the name of one of yours; yours is used"
            );
            continue;
        }
        servers.insert(name, server);
    }
    if servers.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let started = hotl_mcp::start_all(&servers, cwd, hidden_env)
        .await
        .map_err(CliError::user)?;
    for (server, why) in &started.failed {
        eprintln!("hotl: warning: the MCP server {server} did not start: {why}");
    }
    for tool in started.tools {
        let name = tool.name().to_owned();
        if tools.add(tool).is_err() {
            eprintln!("hotl: warning: the MCP tool {name} has the name of another tool; left out");
        }
    }
    let instructions = started
        .instructions
        .into_iter()
        .map(|(server, text)| format!("Instructions from the MCP server {server}:\n{text}"))
        .collect();
    let allowed = servers
        .iter()
        .filter(|(_, c)| c.approval == hotl_mcp::Approval::Allow)
        .map(|(name, _)| format!("{}*", hotl_mcp::tool_prefix(name)))
        .collect();
    Ok((instructions, allowed))
}
