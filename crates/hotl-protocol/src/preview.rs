//! What an approval shows before its question: the change an edit or write would make, the
//! command bash would run and where, the server and arguments of an MCP call. Lines, each with
//! its kind, so every front end draws them its own way (colours in the terminal UI, signs in
//! the line console).

use serde::{Deserialize, Serialize};

/// One line of a preview.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PreviewLine {
    /// What the line is.
    pub kind: PreviewKind,
    /// Its text, without a sign.
    pub text: String,
}

/// What a preview line is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PreviewKind {
    /// A line the call takes out (drawn `- `).
    Removed,
    /// A line the call puts in (drawn `+ `).
    Added,
    /// A command the call runs (drawn `$ `).
    Command,
    /// Anything else: where it runs, what was left out, an argument.
    Note,
}

impl PreviewLine {
    /// A line of `kind`.
    pub fn new(kind: PreviewKind, text: impl Into<String>) -> Self {
        PreviewLine {
            kind,
            text: text.into(),
        }
    }

    /// The sign a plain-text front end puts before the line.
    pub fn sign(&self) -> &'static str {
        match self.kind {
            PreviewKind::Removed => "- ",
            PreviewKind::Added => "+ ",
            PreviewKind::Command => "$ ",
            PreviewKind::Note => "",
        }
    }
}
