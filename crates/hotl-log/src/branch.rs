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
