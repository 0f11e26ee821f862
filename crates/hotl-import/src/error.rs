//! What an import can fail with. Damage inside a file never fails it (it is reported); these
//! are the reasons nothing can be imported at all.

use std::path::PathBuf;

/// Why an import did not happen.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
    /// A `.zst` file that does not decompress.
    #[error("cannot decompress {path}: {reason}")]
    Decompress {
        /// The file.
        path: PathBuf,
        /// What the decoder said.
        reason: String,
    },
    /// Nothing in the file is a session of the named source.
    #[error("{path} is not a {agent} session: {reason}")]
    NotASession {
        /// The file.
        path: PathBuf,
        /// The source it was read as.
        agent: &'static str,
        /// Why.
        reason: String,
    },
    /// A sub-agent's transcript given alone: its session is what to import.
    #[error(
        "{path} is a sub-agent transcript of session {parent}; import the session instead{hint}"
    )]
    SubAgent {
        /// The file.
        path: PathBuf,
        /// The session it belongs to.
        parent: String,
        /// Where that session's file is, when it was found (`: <path>`).
        hint: String,
    },
    /// No session file matches the id given.
    #[error("no {agent} session matches {query:?} (looked in {looked})")]
    NoMatch {
        /// The source.
        agent: &'static str,
        /// The id or prefix.
        query: String,
        /// Where it looked.
        looked: String,
    },
    /// Several session files match the id given.
    #[error("{query:?} matches several {agent} sessions:\n{candidates}")]
    Ambiguous {
        /// The source.
        agent: &'static str,
        /// The id or prefix.
        query: String,
        /// One per line.
        candidates: String,
    },
    /// The store refused or failed the write.
    #[error(transparent)]
    Store(#[from] hotl_log::LogError),
    /// Encoding a record failed.
    #[error("cannot encode a record: {0}")]
    Encode(#[from] serde_json::Error),
}

/// This crate's results.
pub type Result<T, E = ImportError> = std::result::Result<T, E>;
