//! hotl as an ACP agent: editors that speak the Agent Client Protocol (Zed and others) start
//! `hotl acp` as a child process and drive it with JSON-RPC over its stdio. This crate is one
//! more front end on the agent's protocol (`hotl-protocol`, not the engine: sessions come from
//! a [`Launcher`](hotl_protocol::Launcher)): each ACP session is a hotl session run by an
//! [`Agent`](hotl_protocol::Agent), its events turned into `session/update` notifications, its approval
//! questions into `session/request_permission` requests. Sessions it makes are ordinary hotl
//! sessions: listed, resumed, forked and folded from the shell like any other.
//!
//! - `server.rs`: the connection (initialize, new, load, prompt, cancel, set mode) and the
//!   sessions it holds;
//! - `prompt.rs`: one prompt, from the text the editor sent to the stop reason, slash
//!   commands included;
//! - `updates.rs`: what hotl's events and records look like as ACP updates (tool calls with
//!   kinds, titles and diffs; the todo list as a plan);
//! - `replay.rs`: a loaded session's visible transcript, replayed as updates;
//! - `guard.rs`: each line the editor sends, checked before the protocol reads it.
//!
//! Nothing but protocol messages goes to stdout; logs go to hotl's log file.

#![deny(missing_docs)]

mod guard;
mod prompt;
mod replay;
mod server;
mod updates;

pub use crate::server::Server;
