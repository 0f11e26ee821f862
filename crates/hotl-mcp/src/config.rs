//! One MCP server's configuration, as `[mcp_servers.NAME]` in the config file gives it.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

/// How a server's tools are approved.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Approval {
    /// Ask before each call, whatever the server says of its tools (the default).
    #[default]
    Ask,
    /// Run its tools without asking (plan mode still refuses them).
    Allow,
}

/// `[mcp_servers.NAME]`: a server run over stdio (`command`) or reached over streamable HTTP
/// (`url`).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ServerConfig {
    /// The program to run (stdio).
    pub command: Option<String>,
    /// Its arguments.
    pub args: Vec<String>,
    /// Environment variables to set for it (the provider keys are never passed on).
    pub env: BTreeMap<String, String>,
    /// Where it runs (default: the session's directory).
    pub cwd: Option<PathBuf>,
    /// A streamable-HTTP endpoint.
    pub url: Option<String>,
    /// The environment variable holding a bearer token for `url`.
    pub bearer_token_env_var: Option<String>,
    /// Headers to send to `url`.
    pub headers: BTreeMap<String, String>,
    /// Seconds it may take to start and list its tools (default 10).
    pub startup_timeout_sec: Option<u64>,
    /// Seconds one call may take (default 60).
    pub tool_timeout_sec: Option<u64>,
    /// `false` leaves it out.
    pub enabled: Option<bool>,
    /// A required server that fails to start stops the session's start with its error.
    pub required: bool,
    /// Only these of its tools (names as the server gives them).
    pub enabled_tools: Option<Vec<String>>,
    /// Never these of its tools.
    pub disabled_tools: Vec<String>,
    /// Whether its calls ask first.
    pub approval: Approval,
}

impl ServerConfig {
    /// Whether it is to be started.
    pub fn is_enabled(&self) -> bool {
        self.enabled.unwrap_or(true)
    }

    /// How long it may take to start.
    pub fn startup_timeout(&self) -> Duration {
        Duration::from_secs(self.startup_timeout_sec.unwrap_or(10))
    }

    /// How long one call may take.
    pub fn tool_timeout(&self) -> Duration {
        Duration::from_secs(self.tool_timeout_sec.unwrap_or(60))
    }

    /// What is wrong with it, if anything: exactly one of `command` and `url`.
    pub fn check(&self, name: &str) -> Result<(), String> {
        match (&self.command, &self.url) {
            (Some(_), Some(_)) => Err(format!(
                "mcp server {name}: give either command (stdio) or url (HTTP), not both"
            )),
            (None, None) => Err(format!(
                "mcp server {name}: give a command (stdio) or a url (streamable HTTP)"
            )),
            _ => Ok(()),
        }
    }

    /// Whether the tool the server calls `tool` is to be offered.
    pub fn offers(&self, tool: &str) -> bool {
        self.enabled_tools
            .as_ref()
            .is_none_or(|only| only.iter().any(|t| t == tool))
            && !self.disabled_tools.iter().any(|t| t == tool)
    }
}
