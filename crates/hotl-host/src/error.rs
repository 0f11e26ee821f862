//! One place that maps library errors to what the user reads: a message, hints, an exit code.

use std::fmt;

use hotl_log::LogError;
use hotl_view::ViewError;

/// An error on its way to the terminal.
#[derive(Debug)]
pub enum CliError {
    /// The user asked for something that cannot be done (exit 1).
    User { message: String, hints: Vec<String> },
    /// The command line itself is wrong: a flag's value, flags that do not go together
    /// (exit 2, as clap's own usage errors).
    Usage(String),
    /// Something broke that is not the user's doing (exit 1, worded as such).
    Internal(String),
    /// stdout was closed (exit 0, nothing printed).
    BrokenPipe,
    /// Another process owns the session (exit 1); the console shows a snapshot instead.
    Locked { session: String, message: String },
}

impl From<hotl_config::ConfigError> for CliError {
    fn from(e: hotl_config::ConfigError) -> Self {
        CliError::user(e.0)
    }
}

impl CliError {
    /// A user error without hints.
    pub fn user(message: impl Into<String>) -> Self {
        CliError::User {
            message: message.into(),
            hints: Vec::new(),
        }
    }

    /// A usage error: the command line is wrong (exit 2).
    pub fn usage(message: impl Into<String>) -> Self {
        CliError::Usage(message.into())
    }

    /// Adds a hint.
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        if let CliError::User { hints, .. } = &mut self {
            hints.push(hint.into());
        }
        self
    }

    /// Hints to print after the message.
    pub fn hints(&self) -> &[String] {
        const LOCKED: &[String] = &[];
        match self {
            CliError::User { hints, .. } => hints,
            CliError::Locked { .. } => LOCKED,
            _ => &[],
        }
    }

    /// The process exit status.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::BrokenPipe => 0,
            CliError::Usage(_) => 2,
            _ => 1,
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::User { message, .. } | CliError::Usage(message) => f.write_str(message),
            CliError::Internal(message) => write!(f, "internal error: {message}"),
            CliError::BrokenPipe => f.write_str("broken pipe"),
            CliError::Locked { message, .. } => f.write_str(message),
        }
    }
}

impl From<std::io::Error> for CliError {
    fn from(e: std::io::Error) -> Self {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            CliError::BrokenPipe
        } else {
            CliError::user(e.to_string())
        }
    }
}

impl From<serde_json::Error> for CliError {
    fn from(e: serde_json::Error) -> Self {
        if e.io_error_kind() == Some(std::io::ErrorKind::BrokenPipe) {
            CliError::BrokenPipe
        } else {
            CliError::Internal(e.to_string())
        }
    }
}

impl From<LogError> for CliError {
    fn from(e: LogError) -> Self {
        let message = e.to_string();
        let err = CliError::user(message.clone());
        match e {
            LogError::NoSuchSession { .. } => {
                err.hint("`hotl sessions list --all` shows every session")
            }
            LogError::Ambiguous { .. } => err.hint("type more characters of the id"),
            LogError::Locked { session, .. } => CliError::Locked {
                session,
                message: format!(
                    "{message}\nhint: it can still be read (`hotl sessions show`); it becomes writable when that process exits"
                ),
            },
            LogError::Encode(_) => CliError::Internal(message),
            _ => err,
        }
    }
}

impl From<hotl_remote::RemoteError> for CliError {
    fn from(e: hotl_remote::RemoteError) -> Self {
        use hotl_remote::RemoteError;
        let message = e.to_string();
        match e {
            RemoteError::Log(e) => e.into(),
            RemoteError::Held { root, .. } => CliError::Locked {
                session: root,
                message: format!(
                    "{message}\nhint: it can still be read (`hotl sessions show`); it becomes writable when that process leaves it or its lease runs out"
                ),
            },
            RemoteError::Ambiguous { .. } => {
                CliError::user(message).hint("type more characters of the id")
            }
            RemoteError::NoMatch(_) => CliError::user(message)
                .hint("`hotl sessions list --remote` shows every session in the remote store"),
            _ => CliError::user(message),
        }
    }
}

impl From<ViewError> for CliError {
    fn from(e: ViewError) -> Self {
        CliError::user(e.to_string())
    }
}

impl From<hotl_agent::AgentError> for CliError {
    fn from(e: hotl_agent::AgentError) -> Self {
        match e {
            hotl_agent::AgentError::Log(e) => e.into(),
            other => CliError::user(other.to_string()),
        }
    }
}
