//! The store's error type, and the `.at(path)` extension that gives every I/O error its path.

use std::io;
use std::path::{Path, PathBuf};

/// Everything that can go wrong in the store. Messages are lowercase and name what failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LogError {
    /// A file operation failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory involved.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// A log held nothing usable: no valid `session` record.
    #[error("{}: not a hotl session log ({reason})", path.display())]
    NotALog {
        /// The file that was read.
        path: PathBuf,
        /// Why it was refused.
        reason: String,
    },
    /// No session matches the user's reference.
    #[error("no session matches '{query}'")]
    NoSuchSession {
        /// What the user typed.
        query: String,
    },
    /// An id prefix matched several sessions.
    #[error("'{query}' matches {} sessions: {}", candidates.len(), first_of(candidates))]
    Ambiguous {
        /// What the user typed.
        query: String,
        /// Short descriptions of the sessions it matched.
        candidates: Vec<String>,
    },
    /// Another process owns the session tree.
    #[error("session {session} is owned by another hotl process ({})", owner_text(*owner_pid))]
    Locked {
        /// The root session of the tree.
        session: String,
        /// The pid written by the owner, when it could be read.
        owner_pid: Option<u32>,
    },
    /// An ancestor named by a fork's pin is not on disk.
    #[error("ancestor {ancestor} of session {child} is missing")]
    MissingAncestor {
        /// The ancestor that could not be found.
        ancestor: String,
        /// The session whose pin names it.
        child: String,
    },
    /// The user gave a name that cannot be used.
    #[error("invalid session name {name:?}: {reason}")]
    BadName {
        /// The refused name.
        name: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// Another live session holds the name.
    #[error("the name {name:?} is taken by session {by}")]
    NameTaken {
        /// The refused name.
        name: String,
        /// The session that holds it.
        by: String,
    },
    /// A read needs bytes of a log that were not fetched (see [`crate::Hole`]).
    #[error(
        "bytes {}..{} of session {id}'s log are still in {} (`hotl sessions pull {id}` fetches them)",
        hole.from, hole.to, hole.source
    )]
    Hole {
        /// The session.
        id: String,
        /// What is missing.
        hole: crate::hole::Hole,
    },
    /// Fetching the missing bytes of a log failed.
    #[error("the archived part of session {id} cannot be fetched: {why}")]
    HoleNotFilled {
        /// The session.
        id: String,
        /// Why.
        why: String,
    },
    /// A session with this id or name already exists.
    #[error("{what} already exists")]
    Exists {
        /// What collided.
        what: String,
    },
    /// A record could not be serialised (a bug, not user input).
    #[error("cannot encode record: {0}")]
    Encode(#[from] serde_json::Error),
}

/// The first five candidates and how many more: one line a person can read, however many
/// sessions a short prefix matches.
fn first_of(candidates: &[String]) -> String {
    const SHOWN: usize = 5;
    let mut text = candidates[..candidates.len().min(SHOWN)].join(", ");
    if candidates.len() > SHOWN {
        text.push_str(&format!(
            " and {} more (a longer prefix picks one)",
            candidates.len() - SHOWN
        ));
    }
    text
}

fn owner_text(pid: Option<u32>) -> String {
    match pid {
        Some(pid) => format!("pid {pid}"),
        None => "pid unknown".to_owned(),
    }
}

/// The store's result type.
pub type Result<T, E = LogError> = std::result::Result<T, E>;

impl LogError {
    /// The error for failing to open session `id`'s log at `path`: "no such session" when it
    /// is not there, the I/O error otherwise.
    pub(crate) fn opening(id: &str, path: &Path, source: io::Error) -> Self {
        match source.kind() {
            io::ErrorKind::NotFound => LogError::NoSuchSession {
                query: id.to_owned(),
            },
            _ => LogError::Io {
                path: path.to_owned(),
                source,
            },
        }
    }
}

/// Attaches a path to an I/O error.
pub trait IoResultExt<T> {
    /// Converts the error into [`LogError::Io`] naming `path`.
    fn at(self, path: &Path) -> Result<T>;
}

impl<T> IoResultExt<T> for io::Result<T> {
    fn at(self, path: &Path) -> Result<T> {
        self.map_err(|source| LogError::Io {
            path: path.to_owned(),
            source,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn many_candidates_are_cut_to_five_and_counted() {
        let candidates: Vec<String> = (1..=38).map(|i| format!("session {i}")).collect();
        let err = LogError::Ambiguous {
            query: "01".into(),
            candidates,
        };
        assert_eq!(
            err.to_string(),
            "'01' matches 38 sessions: session 1, session 2, session 3, session 4, session 5 and 33 more (a longer prefix picks one)"
        );
    }
}
