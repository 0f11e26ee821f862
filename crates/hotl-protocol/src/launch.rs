//! Starting agents without knowing the engine: a front end that makes and opens sessions of
//! its own (an editor over ACP) gets a [`Launcher`], which the engine implements.

use std::path::Path;

use crate::handle::Agent;
use crate::mode::Mode;

/// A new session's agent.
#[derive(Debug)]
pub struct Launched {
    /// The session's id (its log is written with its first message).
    pub id: String,
    /// The permission mode it starts in.
    pub mode: Mode,
    /// Its agent.
    pub agent: Agent,
}

/// An existing session, opened for writing.
#[derive(Debug)]
pub struct Opened {
    /// The permission mode it recorded.
    pub mode: Mode,
    /// Its visible transcript, for a front end that shows what it goes on from.
    pub view: hotl_view::View,
    /// Its agent.
    pub agent: Agent,
}

/// Why a session could not be started.
#[derive(Debug, PartialEq, Eq)]
pub enum LaunchError {
    /// No session has that id.
    NoSuchSession(String),
    /// Anything else: what to tell the user.
    Refused(String),
}

impl std::fmt::Display for LaunchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LaunchError::NoSuchSession(id) => write!(f, "no session {id}"),
            LaunchError::Refused(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for LaunchError {}

/// Makes and opens sessions, each run by an agent on the current runtime.
pub trait Launcher: Send + Sync {
    /// A new session in `cwd`.
    fn new_session(&self, cwd: &Path) -> Result<Launched, LaunchError>;
    /// Session `id`, opened for writing (its lock taken).
    fn open_session(&self, id: &str) -> Result<Opened, LaunchError>;
}
