//! The program's side of hotl's front ends. The binary parses arguments and prints; what a
//! command does with the home is decided here, once for every front end:
//!
//! - [`ctx::Ctx`]: where the home is (or a private one in memory), the store, the directory
//!   and the clock; session references resolved; [`error::CliError`], an error as the command
//!   line reports it.
//! - [`tui`]: the [`hotl_tui::Host`] the terminal UI and the line console ask (pickers, trees,
//!   transcripts, export, share, foreign sessions), and starting them.
//! - [`headless`]: `hotl -p`, a run printed as text, one JSON object or a JSON-lines stream.
//! - [`takeout`]: a session written out or shared; [`foreign`]: other agents' sessions found
//!   and imported; [`picking`]: the plain resume picker and the read-only snapshot.
//! - [`breadcrumb`] (this terminal's last session), [`delegation`] (the tools a run offers,
//!   agent definitions included), [`mcp`] (a project's servers and their trust), [`logging`].
//! - [`opening`]: the session a run works in (resumed, forked, continued or new);
//!   [`signals`]: Ctrl-C and SIGTERM during a run.
//! - [`search`]: every session's text searched (`hotl search`, the picker's content search).
//! - [`remote`]: the remote store (`[remote]`): a reference no local session matches found
//!   and pulled there, a tree's lease taken before a run writes it, its commands' reports.

pub mod breadcrumb;
pub mod ctx;
pub mod delegation;
pub mod error;
pub mod foreign;
pub mod headless;
pub mod logging;
pub mod mcp;
mod memory_home;
pub mod opening;
pub mod picking;
pub mod remote;
pub mod sandbox;
pub mod search;
pub mod signals;
pub mod takeout;
pub mod tui;
