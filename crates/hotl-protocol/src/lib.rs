//! hotl's front-end protocol: what every front end (the terminal UI, the line console, `-p`
//! and stream-json, ACP for editors, any embedding) sends an agent and gets back, with no
//! engine inside.
//!
//! - [`Command`]s go in through an [`Agent`] handle, each given a [`CommandId`]; the engine
//!   (`hotl-agent`) runs the other end ([`AgentEnd`], made by [`connect`]).
//! - [`Envelope`]s come out: an [`Event`] with the command and the child that produced it.
//!   Every command ends with exactly one [`Event::Done`]: its [`Outcome`], or a [`Failure`]
//!   of a [`FailureKind`] a front end decides on without reading words.
//! - The slash commands are one table ([`slash::COMMANDS`]): [`slash::parse`] reads a typed
//!   line, [`slash::plan`] says what to do with it; `/help`, the `/` popup and an editor's
//!   command menu are made from the table.
//! - [`words::describe`] turns an event into the sentence a user reads, once for every front
//!   end.
//!
//! It owns the protocol's types and words; it never runs a turn, reads a log or prints.
//!
//! ```
//! use hotl_protocol::{Command, Done, Envelope, Event, Outcome, connect};
//!
//! let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
//! runtime.block_on(async {
//!     let (mut agent, mut end) = connect();
//!     let id = agent.send(Command::Status);
//!     // The engine's side: take the command, end it.
//!     let (got, _) = end.commands.recv().await.unwrap();
//!     let done = Done::ok(Outcome::Renamed { name: "x".into() });
//!     end.events.send(Envelope { command: Some(got), child: None, event: Event::Done(done) }).unwrap();
//!     let done = agent.until_done(id, |_| {}).await.unwrap();
//!     assert!(done.result.is_ok());
//! });
//! ```

#![deny(missing_docs)]

mod command;
mod context;
mod done;
mod dump;
mod event;
mod handle;
mod launch;
mod mode;
mod preview;
mod rewind;
pub mod slash;
mod stats;
mod turn;
pub mod words;

pub use crate::command::{Answer, Command, CommandId, ForkAt, Move, SwitchTo};
pub use crate::context::{COMPACT_AT_PERCENT, ContextParts, context_text};
pub use crate::done::{Done, Failure, FailureKind, Outcome};
pub use crate::dump::{Dump, DumpedTool, messages_text};
pub use crate::event::{Envelope, Event, MoveResult, Status, SwitchReason, tools_added_line};
pub use crate::handle::{Agent, AgentEnd, Canceller, connect};
pub use crate::launch::{LaunchError, Launched, Launcher, Opened};
pub use crate::mode::Mode;
pub use crate::preview::{PreviewKind, PreviewLine};
pub use crate::rewind::{FileRewound, RevertScope, Rewound};
pub use crate::stats::{
    BROKE_BELOW, ChildSpent, READ_WEIGHT, Saving, Spent, Stats, TurnSpent, WRITE_WEIGHT,
    fresh_equivalent,
};
pub use crate::turn::{Totals, TurnOutcome, add_usage};
