//! What a revert does to the code: which part it takes back (the conversation, the code, or
//! both), and what became of each file the later turns changed.

use serde::{Deserialize, Serialize};

/// What a revert takes back.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RevertScope {
    /// The conversation, and the files the later turns changed put back as they were.
    #[default]
    Both,
    /// Only the conversation: the files stay as they are.
    Conversation,
    /// Only the files: the conversation goes on from where it is.
    Code,
}

impl RevertScope {
    /// Whether the conversation goes back.
    pub fn conversation(self) -> bool {
        self != RevertScope::Code
    }

    /// Whether the files go back.
    pub fn code(self) -> bool {
        self != RevertScope::Conversation
    }

    /// Reads `--code`, `--conversation` or `--both` (the flag's word without dashes too).
    pub fn from_flag(flag: &str) -> Option<RevertScope> {
        match flag.trim_start_matches("--") {
            "both" => Some(RevertScope::Both),
            "conversation" => Some(RevertScope::Conversation),
            "code" => Some(RevertScope::Code),
            _ => None,
        }
    }
}

/// One file a revert looked at.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRewound {
    /// Relative to the session's directory, `/`-separated.
    pub path: String,
    /// What became of it.
    pub what: Rewound,
}

/// What became of a file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rewound {
    /// Put back as it was.
    Restored,
    /// Removed: it did not exist then.
    Removed,
    /// Left as it is, and why (changed since hotl last saw it, say).
    Kept(String),
}
