//! What can go wrong with a remote, in words that say what to fix.

use std::fmt;

/// A failure of the remote store. Each variant names the object or the setting at fault.
#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    /// The `[remote]` settings are wrong (a URL hotl cannot read, a key it cannot use).
    #[error("{0}")]
    Config(String),
    /// The store refused or failed a request; `hint` says what to check.
    #[error("{what}: {detail}{}", hint.as_deref().map(|h| format!(" ({h})")).unwrap_or_default())]
    Store {
        /// What was being done (`listing s3://bucket/prefix`, `reading trees/…/lease`).
        what: String,
        /// What the store said, without credentials.
        detail: String,
        /// What to fix, when the failure says (credentials, the bucket's name, the endpoint).
        hint: Option<String>,
        /// Whether the store could not be reached at all (a network failure), as opposed to
        /// refusing the request.
        unreachable: bool,
    },
    /// The local store failed.
    #[error(transparent)]
    Log(#[from] hotl_log::LogError),
    /// Another machine (or process) holds the tree's lease.
    #[error("session {root} is owned by {holder}")]
    Held {
        /// The tree's root.
        root: String,
        /// Who holds it, and until when.
        holder: Holder,
    },
    /// This process lost the tree's lease while it was writing: what it wrote since stays
    /// local, and it writes no more.
    #[error(
        "session {root} was taken over by {by} while this process held it: it writes no more; what it wrote since stays in this home"
    )]
    Fenced {
        /// The tree's root.
        root: String,
        /// Who holds it now.
        by: String,
    },
    /// An object in the store is damaged, cut short, replaced, or sealed under another key;
    /// it is not loaded.
    #[error("{name} in the store cannot be used: {why}")]
    Damaged {
        /// The object's name.
        name: String,
        /// What is wrong with it.
        why: String,
    },
    /// The store is used read-only, and this needs to write.
    #[error("{url} is read-only for hotl: {why}")]
    ReadOnly {
        /// The store.
        url: String,
        /// Why (a probe that failed).
        why: String,
    },
    /// Nothing in the store matches a reference.
    #[error("no session matches {0:?} in the remote store")]
    NoMatch(String),
    /// More than one session in the store matches a reference.
    #[error("{query:?} matches more than one session in the remote store: {}", candidates.join(", "))]
    Ambiguous {
        /// What was asked.
        query: String,
        /// What it matches.
        candidates: Vec<String>,
    },
    /// The store's copy of a session and this home's went different ways after a common
    /// point: the local copy wins, and the store's is not loaded.
    #[error("session {session}: {why}; the local copy is kept as it is")]
    Diverged {
        /// The session.
        session: String,
        /// Where they part.
        why: String,
    },
}

/// `Result` with a [`RemoteError`].
pub type Result<T> = std::result::Result<T, RemoteError>;

/// Who holds a tree's lease, as messages name them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Holder {
    /// The machine.
    pub host: String,
    /// The process there.
    pub pid: u32,
    /// When the lease runs out unless renewed, on this machine's clock (RFC 3339).
    pub until: String,
}

impl fmt::Display for Holder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "another hotl process on {} (pid {}; its lease runs until {})",
            self.host, self.pid, self.until
        )
    }
}

impl RemoteError {
    /// An object store failure while doing `what`, with a hint where the kind of failure
    /// says what to fix.
    pub(crate) fn store(what: impl Into<String>, e: object_store::Error) -> RemoteError {
        use object_store::Error as E;
        let detail = describe(&e);
        let (hint, unreachable) = match &e {
            E::Unauthenticated { .. } => (
                Some("credentials missing or wrong: the provider's standard variables or files hold them (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, GOOGLE_APPLICATION_CREDENTIALS, AZURE_STORAGE_ACCOUNT_KEY)".to_owned()),
                false,
            ),
            E::PermissionDenied { .. } => (
                Some("the credentials may not do this: check the bucket's policy".to_owned()),
                false,
            ),
            _ if detail.contains("NoSuchBucket") || detail.contains("bucket does not exist") => (
                Some("the bucket does not exist: create it, or fix the name in [remote] url".to_owned()),
                false,
            ),
            _ if detail.contains("InvalidAccessKeyId")
                || detail.contains("SignatureDoesNotMatch")
                || detail.contains("AccessDenied") =>
            {
                (
                    Some("credentials missing or wrong: check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY".to_owned()),
                    false,
                )
            }
            _ if is_unreachable(&detail) => (
                Some("the store cannot be reached: check [remote] endpoint and the network".to_owned()),
                true,
            ),
            _ => (None, false),
        };
        RemoteError::Store {
            what: what.into(),
            detail,
            hint,
            unreachable,
        }
    }

    /// Whether the store could not be reached (the network, not a refusal): work that can
    /// wait is tried again later.
    pub fn is_unreachable(&self) -> bool {
        matches!(
            self,
            RemoteError::Store {
                unreachable: true,
                ..
            }
        )
    }
}

/// What an object store error says, on one line. object_store's messages never hold the
/// credentials (its signer keeps them out of errors).
fn describe(e: &object_store::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let more = s.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = s.source();
    }
    text.replace('\n', " ")
}

fn is_unreachable(detail: &str) -> bool {
    [
        "error sending request",
        "Connection refused",
        "connection refused",
        "tcp connect error",
        "dns error",
        "operation timed out",
        "timed out",
        "connection reset",
        "Connection reset",
        "connection closed",
        "error trying to connect",
    ]
    .iter()
    .any(|needle| detail.contains(needle))
}
