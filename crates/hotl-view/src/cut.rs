//! Cuts: where a fork may end its inherited history, or a revert may return to. Every cut is a
//! turn boundary; asking for anything else names the nearest valid ones.

use hotl_log::{Body, SessionMeta};

use crate::error::{Result, ViewError};
use crate::project::{Boundary, View};

/// What a fork's title adds to its parent's.
const FORK_MARK: &str = " (fork)";

/// A position on a turn boundary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cut {
    /// The boundary.
    pub boundary: Boundary,
    /// Whether nothing visible comes after it.
    pub at_head: bool,
}

impl View {
    fn cut(&self, boundary: Boundary) -> Cut {
        let last = self.boundaries.last();
        Cut {
            boundary,
            at_head: !self.open_turn && last == Some(&boundary),
        }
    }

    /// The end of the `n`-th completed turn (`--keep-turns n`). A fork needs at least one.
    pub fn cut_after_turns(&self, n: usize) -> Result<Cut> {
        let completed = self.boundaries.last().map_or(0, |b| b.turns);
        if n == 0 || n > completed {
            return Err(ViewError::TurnsOutOfRange {
                requested: n,
                completed,
            });
        }
        let boundary = self.boundaries[n];
        Ok(self.cut(boundary))
    }

    /// The cut after `n` items (`--keep n`); it must be the end of a completed turn.
    pub fn cut_after_items(&self, n: usize) -> Result<Cut> {
        let valid: Vec<usize> = self
            .boundaries
            .iter()
            .filter(|b| b.turns > 0)
            .map(|b| b.items)
            .collect();
        if let Some(b) = self.boundaries.iter().find(|b| b.turns > 0 && b.items == n) {
            return Ok(self.cut(*b));
        }
        Err(ViewError::BadCut {
            requested: format!("--keep {n}"),
            nearest: nearest(&valid, n)
                .into_iter()
                .map(|v| format!("--keep {v}"))
                .collect(),
        })
    }

    /// The cut that keeps everything through `seq` (`revert --to t<seq>`).
    pub fn cut_at_seq(&self, seq: u64) -> Result<Cut> {
        if let Some(b) = self.boundaries.iter().find(|b| b.seq == seq) {
            return Ok(self.cut(*b));
        }
        let valid: Vec<u64> = self.boundaries.iter().map(|b| b.seq).collect();
        Err(ViewError::BadCut {
            requested: format!("t{seq}"),
            nearest: nearest(&valid, seq)
                .into_iter()
                .map(|v| format!("t{v}"))
                .collect(),
        })
    }

    /// The end of the turn user message `t<seq>` started (a fork "at" that message keeps
    /// it, and what answered it). Refused for a stamp that is not a visible user message, or
    /// whose turn has not ended.
    pub fn cut_after_message(&self, seq: u64) -> Result<Cut> {
        let mut users = Vec::new();
        user_stamps(&self.items, &mut users);
        if !users.contains(&seq) {
            users.sort_unstable();
            return Err(ViewError::BadCut {
                requested: format!("t{seq} (not a user message)"),
                nearest: nearest(&users, seq)
                    .into_iter()
                    .map(|v| format!("t{v}"))
                    .collect(),
            });
        }
        match self.boundaries.iter().find(|b| b.turns > 0 && b.seq >= seq) {
            Some(b) => Ok(self.cut(*b)),
            None => Err(ViewError::BadCut {
                requested: format!("t{seq} (its turn has not ended)"),
                nearest: self
                    .boundaries
                    .iter()
                    .rev()
                    .find(|b| b.turns > 0)
                    .map(|b| format!("the turn ending t{}", b.seq))
                    .into_iter()
                    .collect(),
            }),
        }
    }

    /// The head: everything visible, an unfinished last turn included (a fork does not
    /// finish it). Refused when there is no user message yet.
    pub fn cut_at_head(&self) -> Result<Cut> {
        if self.turns == 0 {
            return Err(ViewError::TurnsOutOfRange {
                requested: 1,
                completed: 0,
            });
        }
        Ok(Cut {
            boundary: Boundary {
                turns: self.turns,
                items: self.item_count(),
                seq: self.head_seq,
            },
            at_head: true,
        })
    }
}

/// The state records a fork starts with: the parent's final modes (even when cut earlier:
/// modes are not positioned in the transcript), its todos only when forking at the head, and
/// its title marked as a fork. Never the name.
pub fn fork_state(parent: &SessionMeta, at_head: bool) -> Vec<Body> {
    let mut out = Vec::new();
    let modes = &parent.modes;
    if modes.permission.is_some()
        || modes.plan
        || modes.effort.is_some()
        || modes.sandbox.is_some()
        || modes.model.is_some()
    {
        out.push(Body::Mode {
            permission: modes.permission.clone(),
            plan: Some(modes.plan),
            effort: modes.effort.clone(),
            sandbox: modes.sandbox.clone(),
            model: modes.model.clone(),
            provider: modes.provider.clone(),
        });
    }
    if at_head && !parent.todos.is_empty() {
        out.push(Body::Todos {
            items: parent.todos.clone(),
        });
    }
    let title = parent.display_title();
    if !title.is_empty() {
        // A fork of a fork is still "a fork of" the work the title names.
        let title = if title.ends_with(FORK_MARK) {
            title.to_owned()
        } else {
            format!("{title}{FORK_MARK}")
        };
        out.push(Body::title(title));
    }
    out
}

/// The closest valid values below and above `n`.
fn nearest<T: Copy + Ord>(valid: &[T], n: T) -> Vec<T> {
    let below = valid.iter().copied().filter(|&v| v < n).max();
    let above = valid.iter().copied().filter(|&v| v > n).min();
    below.into_iter().chain(above).collect()
}

/// The seqs of the user messages among `items`, folded and compacted ones included.
fn user_stamps(items: &[crate::Item], out: &mut Vec<u64>) {
    for item in items {
        match item {
            crate::Item::User { seq, .. } => out.push(*seq),
            crate::Item::Folded { items, .. } | crate::Item::Compacted { items, .. } => {
                user_stamps(items, out);
            }
            _ => {}
        }
    }
}
