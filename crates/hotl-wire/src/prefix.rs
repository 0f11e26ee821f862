//! The canonical prefix (DESIGN's definition): a request's cache units, in order, and whether
//! one request extends another up to its last breakpoint. This is what makes a prompt-cache
//! hit possible, so it is tested on the bytes a request really sends.

use crate::encode::anthropic;
use crate::request::Request;

/// A request's cache units, serialised without markers, and the index of the last marked one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CanonicalPrefix {
    /// Each tool, each system block, the request-level settings, then each message block with
    /// its role.
    pub units: Vec<Vec<u8>>,
    /// The last unit that carries a breakpoint, if any.
    pub last_breakpoint: Option<usize>,
}

impl CanonicalPrefix {
    /// The canonical prefix of `request`.
    pub fn of(request: &Request<'_>) -> Self {
        let (units, last_breakpoint) = anthropic::units(request);
        CanonicalPrefix {
            units,
            last_breakpoint,
        }
    }

    /// How many leading units `self` and `other` share.
    pub fn common_len(&self, other: &CanonicalPrefix) -> usize {
        self.units
            .iter()
            .zip(&other.units)
            .take_while(|(a, b)| a == b)
            .count()
    }
}

/// Whether `later` extends `earlier`: its units equal `earlier`'s up to and including
/// `earlier`'s last breakpoint. A request without breakpoints is extended by nothing.
pub fn extends(later: &CanonicalPrefix, earlier: &CanonicalPrefix) -> bool {
    match earlier.last_breakpoint {
        Some(last) => later.common_len(earlier) > last,
        None => false,
    }
}
