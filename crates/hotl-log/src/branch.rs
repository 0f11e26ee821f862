//! The visible branch: which records survive the `revert` records of a lineage.
//!
//! A revert to `t` hides every record after `t` that was written before the revert; later
//! records form a new branch. Reverts nest: reverting again can hide part of a newer branch.

use crate::record::{Body, Record};

/// Indices of the records on the visible branch, in order. Revert records themselves are
/// included (after the records they hid).
pub fn visible_branch(records: &[Record]) -> Vec<usize> {
    let mut visible: Vec<usize> = Vec::with_capacity(records.len());
    for (i, record) in records.iter().enumerate() {
        if let Body::Revert { to } = record.body {
            while visible.last().is_some_and(|&j| records[j].seq > to) {
                visible.pop();
            }
        }
        visible.push(i);
    }
    visible
}

/// What one revert hid: the revert's seq, the stamp it returned to, and how many user
/// messages (turns) it took off the visible branch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RevertMark {
    /// The `revert` record's seq.
    pub seq: u64,
    /// The stamp it returned to.
    pub to: u64,
    /// The user messages it hid.
    pub hidden_turns: usize,
}

/// Every revert on the visible branch, with what it hid (for a transcript to mark them).
pub fn revert_marks(records: &[Record]) -> Vec<RevertMark> {
    let mut visible: Vec<usize> = Vec::with_capacity(records.len());
    let mut marks: Vec<RevertMark> = Vec::new();
    for (i, record) in records.iter().enumerate() {
        if let Body::Revert { to } = record.body {
            let mut hidden_turns = 0;
            while let Some(&j) = visible.last().filter(|&&j| records[j].seq > to) {
                visible.pop();
                if matches!(records[j].body, Body::User { .. }) {
                    hidden_turns += 1;
                }
            }
            // A revert a later one hid is not on the branch any more.
            marks.retain(|m| m.seq <= to);
            marks.push(RevertMark {
                seq: record.seq,
                to,
                hidden_turns,
            });
        }
        visible.push(i);
    }
    marks
}

/// For each record, whether it is on the visible branch.
pub fn visible_mask(records: &[Record]) -> Vec<bool> {
    let mut mask = vec![false; records.len()];
    for i in visible_branch(records) {
        mask[i] = true;
    }
    mask
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(seq: u64, body: Body) -> Record {
        Record::new(seq, "T", body)
    }

    #[test]
    fn a_revert_mark_counts_the_turns_it_hid() {
        let records = vec![
            rec(1, Body::user_text("a")),
            rec(2, Body::user_text("b")),
            rec(3, Body::user_text("c")),
            rec(4, Body::Revert { to: 1 }),
            rec(5, Body::user_text("d")),
            rec(6, Body::Revert { to: 4 }),
        ];
        let marks = revert_marks(&records);
        assert_eq!(
            marks,
            [
                RevertMark {
                    seq: 4,
                    to: 1,
                    hidden_turns: 2
                },
                RevertMark {
                    seq: 6,
                    to: 4,
                    hidden_turns: 1
                }
            ]
        );
        // A revert behind an earlier one hides it with the rest.
        let records = vec![
            rec(1, Body::user_text("a")),
            rec(2, Body::user_text("b")),
            rec(3, Body::Revert { to: 1 }),
            rec(4, Body::Revert { to: 0 }),
        ];
        let marks = revert_marks(&records);
        assert_eq!(marks.len(), 1);
        assert_eq!((marks[0].to, marks[0].hidden_turns), (0, 1));
    }

    #[test]
    fn revert_hides_later_records_and_nests() {
        let records = vec![
            rec(1, Body::user_text("a")),
            rec(2, Body::user_text("b")),
            rec(3, Body::user_text("c")),
            rec(4, Body::Revert { to: 1 }),
            rec(5, Body::user_text("d")),
            rec(6, Body::Revert { to: 4 }),
        ];
        let seqs: Vec<u64> = visible_branch(&records)
            .into_iter()
            .map(|i| records[i].seq)
            .collect();
        assert_eq!(seqs, [1, 4, 6]);
    }
}
