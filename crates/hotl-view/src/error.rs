//! The view's error type: cuts a user asked for that are not valid.

/// A cut or position that does not fit the view.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum ViewError {
    /// The cut is not on a turn boundary.
    #[error(
        "{requested} is not on a turn boundary; nearest valid: {}",
        or_list(nearest)
    )]
    BadCut {
        /// What the user asked for, as they would type it.
        requested: String,
        /// The closest valid values, as they would type them.
        nearest: Vec<String>,
    },
    /// A fold that may not be made.
    #[error("cannot fold from t{since}: {why}")]
    BadFold {
        /// The `since` asked for.
        since: u64,
        /// Why not.
        why: String,
    },
    /// Fewer completed turns than asked for.
    #[error("cannot keep {requested} turn{}: the session has {completed} completed turn{}", s(*requested), s(*completed))]
    TurnsOutOfRange {
        /// Turns asked for.
        requested: usize,
        /// Completed turns available.
        completed: usize,
    },
}

fn s(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn or_list(items: &[String]) -> String {
    if items.is_empty() {
        "none (the session has no completed turn)".to_owned()
    } else {
        items.join(" or ")
    }
}

/// The view's result type.
pub type Result<T, E = ViewError> = std::result::Result<T, E>;
