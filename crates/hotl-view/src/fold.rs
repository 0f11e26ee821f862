//! Planning a fold: which span a `fold(since)` covers, and whether it may.
//!
//! `since` is inclusive. A user-message stamp starts the span at that message; a tool-result
//! stamp snaps backward to the assistant message of that step (never forward). The span ends at
//! the last completed step before the step that issued the fold, or at the head when a person
//! folds from the shell. A fold is refused only when it reaches behind an earlier fold,
//! compaction or clear, holds an unanswered tool call, or holds the step that issued it.

use hotl_log::Block;

use crate::error::{Result, ViewError};
use crate::item::Item;
use crate::project::View;

/// The span a fold will cover.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoldSpan {
    /// First seq (after snapping).
    pub since: u64,
    /// Last seq.
    pub until: u64,
    /// The user messages inside, by seq.
    pub users: Vec<u64>,
}

/// The headings a fold note must have, as line prefixes.
pub const NOTE_HEADINGS: [&str; 5] = [
    "changed:",
    "learned:",
    "decided and rejected:",
    "open:",
    "where:",
];

/// The headings `note` lacks (case-insensitive line prefixes), in template order.
pub fn missing_headings(note: &str) -> Vec<&'static str> {
    let lines: Vec<String> = note
        .lines()
        .map(|l| l.trim_start().to_lowercase())
        .collect();
    NOTE_HEADINGS
        .iter()
        .copied()
        .filter(|h| !lines.iter().any(|l| l.starts_with(h)))
        .collect()
}

/// The note's open items (the text after `open:`), for the reminder after a fold.
pub fn open_items(note: &str) -> Option<String> {
    note.lines()
        .find_map(|l| {
            let t = l.trim_start();
            t.get(..5)
                .filter(|p| p.eq_ignore_ascii_case("open:"))
                .map(|_| t[5..].trim().to_owned())
        })
        .filter(|s| !s.is_empty())
}

impl View {
    /// Where a fold with no stamp given starts (`/fold`, `hotl fold` without `--since`): the
    /// first user message or tool result after the latest fold, compaction or clear (a tool
    /// result's step, once planned: the steps a turn took after the model folded are an
    /// episode too). `None` when there is none.
    pub fn episode_start(&self) -> Option<u64> {
        let folded = self
            .items
            .iter()
            .rev()
            .find_map(|i| match i {
                Item::Folded { until, .. } | Item::Compacted { until, .. } => Some(*until),
                _ => None,
            })
            .unwrap_or(0);
        let after = folded.max(self.model_after);
        self.items.iter().find_map(|i| match i {
            Item::User { seq, .. } | Item::ToolResult { seq, .. } if *seq > after => Some(*seq),
            _ => None,
        })
    }

    /// The span `fold(since)` covers. `issuer` is the seq of the assistant message whose tool
    /// call asks for the fold (`None` from the shell: the span runs to the head).
    pub fn plan_fold(&self, since: u64, issuer: Option<u64>) -> Result<FoldSpan> {
        let refuse = |why: String| Err(ViewError::BadFold { since, why });
        let Some(mut start) = self.items.iter().position(|i| i.last_seq() >= since) else {
            if since <= self.head_seq {
                // A turn's end, another record that is not a message, or a message a revert
                // took back.
                return refuse(format!(
                    "t{since} is not a message on this branch; use the stamp of a user message \
                     or tool result"
                ));
            }
            return refuse(format!("t{since} is past the end of the session"));
        };
        match &self.items[start] {
            Item::Folded {
                handle, since: s, ..
            } if *s <= since => {
                return refuse(format!("t{since} is inside the earlier fold {handle}"));
            }
            Item::Folded { handle, .. } => {
                return refuse(format!("it reaches behind the earlier fold {handle}"));
            }
            Item::Compacted { .. } => {
                return refuse("it reaches behind an earlier compaction".to_owned());
            }
            item if item.first_seq() != since => {
                return refuse(format!(
                    "t{since} is not a message; use the stamp of a user message or tool result"
                ));
            }
            Item::ToolResult { .. } => {
                while start > 0 && matches!(self.items[start], Item::ToolResult { .. }) {
                    start -= 1;
                }
                if !matches!(self.items[start], Item::Assistant { .. }) {
                    return refuse(format!("t{since} has no step to snap back to"));
                }
            }
            _ => {}
        }
        let end = match issuer {
            Some(issuer) => self.items.iter().position(|i| i.first_seq() >= issuer),
            None => None,
        }
        .unwrap_or(self.items.len());
        if issuer.is_some() && end <= start {
            return refuse("the span would hold the step that issued the fold".to_owned());
        }
        if end <= start {
            return refuse("there is nothing to fold".to_owned());
        }
        if self.items[start].first_seq() <= self.model_after {
            return refuse(format!(
                "it reaches behind the clear at t{}",
                self.model_after
            ));
        }
        let span = &self.items[start..end];
        // A span that starts before an earlier note holds it: the projection could not place
        // such a fold, so it is refused here rather than recorded and ignored.
        for item in span {
            match item {
                Item::Folded { handle, .. } => {
                    return refuse(format!("it reaches behind the earlier fold {handle}"));
                }
                Item::Compacted { .. } => {
                    return refuse("it reaches behind an earlier compaction".to_owned());
                }
                _ => {}
            }
        }
        // Only a span that runs to the head can end in a step still running.
        if end == self.items.len()
            && let Some(open) = waiting_call(span)
        {
            return refuse(format!("it holds the unanswered tool call {open}"));
        }
        let mut users = Vec::new();
        for item in span {
            item.for_each_user(&mut |seq, _| users.push(seq));
        }
        Ok(FoldSpan {
            since: span[0].first_seq(),
            until: span[span.len() - 1].last_seq(),
            users,
        })
    }
}

/// A tool call of the last step in `span` still waiting for its result: `span` ends with an
/// assistant message's calls and some of their results. A call that a later message passed by
/// lost its result (an unreadable line) and is not waiting: the model view answers it.
fn waiting_call(span: &[Item]) -> Option<String> {
    let mut answered: Vec<&str> = Vec::new();
    for item in span.iter().rev() {
        match item {
            Item::ToolResult { call, .. } => answered.push(call),
            Item::Assistant { content, .. } => {
                return content.iter().find_map(|b| match b {
                    Block::ToolUse { id, .. } if !answered.contains(&id.as_str()) => {
                        Some(id.clone())
                    }
                    _ => None,
                });
            }
            _ => return None,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn note_headings_and_open_items() {
        let note =
            "changed: x\nlearned: y\nDecided and rejected: z\nopen: run the tests\nwhere: src/";
        assert!(missing_headings(note).is_empty());
        assert_eq!(open_items(note).as_deref(), Some("run the tests"));
        assert_eq!(
            missing_headings("changed: x"),
            ["learned:", "decided and rejected:", "open:", "where:"]
        );
    }
}
