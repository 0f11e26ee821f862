//! hotl's agent: sessions and their turns, the tools, permissions, the moves on a session's
//! own context, recovery after a crash, and the protocol front ends drive it with.
//!
//! The main types and how they fit:
//!
//! - [`Session`]: a session open for writing: its log, frozen prompt and tools, view. Made by
//!   [`NewSession::create`] (nothing is written before the first message), [`Session::open`],
//!   or [`fork`] at a turn of another session.
//! - [`ToolSet`]: every tool a session can call, built-in ([`ToolSet::builtin`]), the moves
//!   (fold, recall, ask, fork) and tools that arrive at run time, each a [`Tool`]. Every call
//!   goes through one seam: arguments parsed into [`Args`], the permission [`Policy`], a
//!   `tool_use` and a `tool_result` event. A move reaches the session through its
//!   [`Invocation`].
//! - A turn ([`Session::submit`]) steps until the model stops: ask, record, run calls; the
//!   compaction rules and what else lasts one turn end with it. It runs with a [`Context`]:
//!   the [`Provider`], the [`Settings`], where [`Event`]s go, the cancel signal.
//! - [`spawn`]: the session as a task that takes the protocol's [`Command`]s and sends
//!   [`Envelope`]s, through an [`Agent`] handle (`hotl-protocol`); every command ends with one
//!   [`Event::Done`]; approvals are asked with an event and answered with a command. The
//!   terminal UI, the console, headless runs and ACP are front ends on it.
//!
//! It never parses a command line and never prints: front ends get events and decide how to
//! show them. Blocking work (snapshots of the working tree, archive searches) runs on the
//! blocking pool, off the async workers.
//!
//! ```
//! use hotl_agent::{Command, NewSession, Outcome, Provider, Settings, Start, ToolSet, spawn};
//!
//! let dir = tempfile::tempdir().unwrap();
//! let store = hotl_log::Store::new(dir.path().join("home"));
//! let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
//! runtime.block_on(async {
//!     let new = NewSession::new(&store, dir.path(), "demo", hotl_agent::standard_tools()).unwrap();
//!     let mut agent = spawn(Start::New(new), Provider::Demo, Settings::new("demo"));
//!     let id = agent.send(Command::Submit { text: "hello".into() });
//!     let done = agent.until_done(id, |_| {}).await.expect("the agent answers");
//!     let Ok(Outcome::TurnEnded(outcome)) = done.result else { panic!("{done:?}") };
//!     assert!(outcome.text.contains("hello"), "{}", outcome.text);
//!     agent.shutdown().await;
//! });
//! assert_eq!(store.list().unwrap().len(), 1, "written with its first message");
//! ```

#![deny(missing_docs)]

mod agent;
pub mod agents;
mod context;
mod error;
mod events;
mod hooks;
mod late;
mod launcher;
mod lifecycle;
mod moves;
mod permission;
mod prompt;
mod provider;
mod publish;
mod session;
mod session_tool;
mod snapshot;
mod stats;
mod tools;
pub mod tree;

pub use crate::agent::{Start, spawn, spawn_with_late};
pub use crate::context::Context;
pub use crate::error::{AgentError, Result};
pub use crate::events::Events;
pub use crate::hooks::{Hook, HookPoint, ToolMatcher, run_hooks};
pub use crate::late::{Late, LateTools, late_channel};
pub use crate::launcher::SessionLauncher;
pub use crate::lifecycle::{ForkAt, NewSession, fork, fork_into_worktree, rename};
pub use crate::moves::{ask_prompt, check_note, fork_brief, make_fold, recall_mode};
pub use crate::permission::{
    ALLOW_UNSANDBOXED, Access, Decision, Mode, Policy, allows, inside, resolve,
};
pub use crate::prompt::system_blocks;
pub use crate::provider::Provider;
pub use crate::publish::{PublishFuture, Publisher};
pub use crate::session::{
    COMPACT_AT_PERCENT, CheckpointState, ChildRun, ContextParts, DEFAULT_MAX_CONCURRENT,
    DEFAULT_MAX_DEPTH, DEFAULT_MAX_TOKENS, Dump, DumpedTool, INTERRUPTED, PROVIDER_KEY_VARS,
    Session, Settings, Started, TitleSettings, Totals, TurnOutcome, checkpoint_state,
    default_context_window, hidden_env, known_context_window, messages_text,
};
pub use crate::snapshot::{changed_from, end_children, revert_files, sweep_worktrees};
pub use crate::stats::{session_stats, stats};
pub use crate::tools::{standard_tools, with_agents};
pub use hotl_protocol::{
    Agent, Answer, Canceller, Command, CommandId, Done, Envelope, Event, Failure, FailureKind,
    FileRewound, Move, MoveResult, Outcome, RevertScope, Rewound, Status, SwitchReason, SwitchTo,
    slash, tools_added_line, words,
};
pub use hotl_protocol::{ChildSpent, Saving, Spent, Stats, TurnSpent, fresh_equivalent};
pub use hotl_tool::{
    Args, BoxFuture, DuplicateTool, Fail, Invocation, Tool, ToolCtx, ToolFuture, ToolKind,
    ToolOutput, ToolSet, cap_output, content_hash, definition,
};
pub use hotl_view::{parse_stamp, stamp_seq};
