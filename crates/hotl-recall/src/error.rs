//! The crate's error type.

use std::io;
use std::path::PathBuf;

/// What can go wrong in a search or while opening an index. Messages are lowercase and name
/// what failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RecallError {
    /// The query holds no word to search for (ranked mode) or is empty.
    #[error("the query {query:?} has no word to search for; give a word, a name or an error text")]
    EmptyQuery {
        /// The query as given.
        query: String,
    },
    /// A regex-mode query did not compile.
    #[error("invalid regex {pattern:?}: {reason}; escape special characters or use exact mode")]
    InvalidRegex {
        /// The pattern as given.
        pattern: String,
        /// What the regex parser said.
        reason: String,
    },
    /// The query is longer than a search takes.
    #[error(
        "the query is {chars} characters long; a search takes at most {max}: give the words that matter"
    )]
    QueryTooLong {
        /// Its length in characters.
        chars: usize,
        /// The most searched.
        max: usize,
    },
    /// Reading an index file failed (a missing or damaged index is rebuilt, not reported; this
    /// is a read that failed after the index was opened).
    #[error("{}: {source}", path.display())]
    Io {
        /// The file involved.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// An index file that opened cleanly turned out damaged while searching it.
    #[error("{}: damaged recall index ({reason}); it is rebuilt on the next open", path.display())]
    Corrupt {
        /// The damaged file.
        path: PathBuf,
        /// What was wrong.
        reason: String,
    },
    /// Reading the session's log failed.
    #[error(transparent)]
    Log(#[from] hotl_log::LogError),
}

/// The crate's result type.
pub type Result<T, E = RecallError> = std::result::Result<T, E>;
