//! hotl's terminal front ends: the terminal UI and the line console, both on the agent's
//! protocol (`hotl-protocol`) and one [`Host`] for the session store; they render events and
//! send commands, with all the logic left in the engine.
//!
//! The screen is inline: finished rows go into the terminal's own scrollback ([`screen`]
//! inserts them above a viewport through a scroll region, never clearing anything), and the
//! viewport at the bottom holds what is live: the tail of a streaming answer, calls and
//! children running, a question, the composer and the status strip. [`App`] is the state,
//! with no terminal: agent events and keys in, rows and commands out, so tests drive it
//! directly. [`run`] wires it to a terminal and an [`Agent`](hotl_protocol::Agent) handle:
//! the UI depends on the protocol, not on the engine.
//!
//! How an answer reaches the scrollback: text deltas go into a [`stream::Stream`], which
//! finishes markdown blocks at boundaries that depend only on the text (so any split of a
//! stream commits the same rows); finished blocks are rendered once ([`markdown`],
//! [`highlight`]) at the terminal's width and inserted; the unfinished tail is drawn in the
//! viewport each frame it changes. Frames are drawn only when something changed, at most 60 a
//! second, each one synchronized output.
#![deny(missing_docs)]

mod app;
pub mod cells;
pub mod composer;
mod console;
pub mod files;
pub mod fullscreen;
pub mod highlight;
pub mod markdown;
mod pager;
pub mod picker;
pub mod probe;
mod run;
pub mod screen;
pub use hotl_protocol::slash;
pub mod stream;
pub mod transcript;
pub mod ui;
pub mod wrap;

pub use app::{App, Busy, Effect, LiveChild, Modal, Waiting, context_text, tokens};
pub use console::run as run_console;
pub use run::{Ended, Host, Later, Options, ReadOnly, Resumed, copy_to_terminal, run};
