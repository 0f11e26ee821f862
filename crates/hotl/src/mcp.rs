//! The MCP servers of the config, for a run: started before the session opens, their tools
//! added to the registry the session freezes (a resumed session reaches the same names on the
//! servers running now), their instructions joined to a new session's system prompt, and a
//! server that did not start told on stderr.

use std::path::Path;
use std::sync::Arc;

use hotl_agent::ToolSet;

use crate::config::Resolved;
use crate::error::CliError;

/// Starts the configured servers in `cwd` and adds their tools to `tools`; returns the
/// instruction blocks for a new session's system prompt and the `--allow` entries the servers
/// set to `approval = "allow"` give.
pub async fn start(
    resolved: &Resolved,
    cwd: &Path,
    tools: &mut ToolSet,
) -> Result<(Vec<String>, Vec<String>), CliError> {
    if resolved.mcp_servers.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let hidden: Arc<[String]> = hotl_agent::PROVIDER_KEY_VARS
        .iter()
        .map(|v| (*v).to_owned())
        .collect();
    let started = hotl_mcp::start_all(&resolved.mcp_servers, cwd, hidden)
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
    let allowed = resolved
        .mcp_servers
        .iter()
        .filter(|(_, c)| c.approval == hotl_mcp::Approval::Allow)
        .map(|(name, _)| format!("{}*", hotl_mcp::tool_prefix(name)))
        .collect();
    Ok((instructions, allowed))
}
