//! What the remote's commands report: `hotl sessions push` and `pull`, `hotl sessions list
//! --remote`, `hotl remote check`, `hotl gc --remote`, `hotl recall --remote`. Each report's
//! JSON is the command's `--json` output (docs/json.md), its [`Report::text`] what a terminal
//! is shown, its [`Report::warnings`] what goes to stderr, and [`Report::ok`] the exit status.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::Serialize;

mod check;
mod gc;
mod list;
mod pull;
mod push;

pub use self::check::Checked;
pub use self::list::{Listed, Listing};
pub use self::pull::PullReport;
pub use self::push::{PushReport, lineage_roots};

/// What a report's words depend on besides the report: the clock relative times are read
/// against, and the home paths are shortened with.
#[derive(Clone, Debug)]
pub struct Shown {
    /// Now, for "3m ago".
    pub now: SystemTime,
    /// The user's home, shown as `~`.
    pub home: Option<PathBuf>,
}

impl Shown {
    /// `path` with the home shown as `~`.
    pub fn tilde(&self, path: &str) -> String {
        match self
            .home
            .as_deref()
            .map(|home| Path::new(path).strip_prefix(home))
        {
            Some(Ok(rest)) if rest.as_os_str().is_empty() => "~".to_owned(),
            Some(Ok(rest)) => format!("~/{}", rest.display()),
            _ => path.to_owned(),
        }
    }
}

/// A command's outcome (see the module docs).
pub trait Report: Serialize {
    /// What a terminal is shown (whole lines).
    fn text(&self, shown: &Shown) -> String;

    /// What goes to stderr, one line each (without the program's name).
    fn warnings(&self) -> Vec<String> {
        Vec::new()
    }

    /// Whether the command did all it was asked (exit status 0).
    fn ok(&self) -> bool {
        true
    }
}

/// A tree an operation could not do, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Failed {
    /// The tree's root.
    pub root: String,
    /// Why, in words.
    pub error: String,
}

/// The first 8 characters of an id, as lines name sessions.
pub(crate) fn short(id: &str) -> &str {
    id.get(..8).unwrap_or(id)
}
