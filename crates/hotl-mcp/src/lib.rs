//! hotl's MCP client. Servers come from the config (`[mcp_servers.NAME]`: a command run over
//! stdio, or a streamable-HTTP URL); they start together, each within its timeout, and their
//! tools join the tool registry as `mcp__<server>__<tool>` (hotl's tool names: letters, digits,
//! `_` and `-`, at most 64 characters). A session freezes the definitions it starts with, so a
//! server's `tools/list_changed` is noted and never changes a session's tools; a resumed session
//! reaches the same names on the servers running now, and a tool that vanished answers an
//! error. Calls ask permission as commands do (plan mode refuses them), have a timeout, put a
//! large result in a blob; a stdio server that died is started again, at most once a turn.
//!
//! - `config.rs`: one server's configuration, as the config file gives it;
//! - `names.rs`: MCP tool names made into hotl tool names;
//! - `server.rs`: starting, calling and restarting one server;
//! - `tool.rs`: a server's tool as a hotl [`Tool`](hotl_tool::Tool).

#![deny(missing_docs)]

mod config;
mod content;
mod guard;
mod names;
mod server;
mod tool;

pub use crate::config::{Approval, ServerConfig};
pub use crate::names::{tool_name, tool_prefix};
pub use crate::server::{Started, lead_servers_with, start_all};
