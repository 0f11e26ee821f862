//! Session trees: the sessions delegated inside a root's directory (`sessions/<root>/`), where
//! a delegated id lives, and which delegated sessions a session can see.
//!
//! A delegated session's id does not say which tree holds it, so finding one means looking
//! into tree directories; what was found is remembered for the life of the [`Store`].

use std::collections::HashMap;

use crate::error::Result;
use crate::record::Delegation;
use crate::store::{Store, is_session_id, log_ids, session_entries};

/// A delegated session a session can see, with what it was asked to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delegated {
    /// Its id.
    pub id: String,
    /// How it was started (who delegated, the task, its handle).
    pub delegation: Delegation,
    /// The session its pin points into (the one that delegated it), and the seq there; for a
    /// clean delegated session (no pin), the delegating session.
    pub pinned_in: String,
    /// The seq it was pinned at in `pinned_in` (a clean one's `delegated.at`).
    pub pinned_at: u64,
}

impl Store {
    /// The ids of the sessions delegated inside `root`'s tree, in no particular order.
    pub fn tree_children(&self, root: &str) -> Result<Vec<String>> {
        let ids = log_ids(&self.tree_dir(root))?;
        let mut trees = self.trees.lock().unwrap_or_else(|e| e.into_inner());
        for id in &ids {
            trees.insert(id.clone(), root.to_owned());
        }
        Ok(ids)
    }

    /// Every delegated session on disk, with the root whose tree holds it.
    pub fn all_tree_children(&self) -> Result<Vec<(String, String)>> {
        let mut out = Vec::new();
        for root in self.tree_roots()? {
            for child in self.tree_children(&root)? {
                out.push((child, root.clone()));
            }
        }
        Ok(out)
    }

    /// The root whose tree holds `id` when it is a delegated session; `None` for a root or an
    /// id that is nowhere.
    pub(crate) fn tree_of(&self, id: &str) -> Option<String> {
        if let Some(root) = self.trees.lock().unwrap_or_else(|e| e.into_inner()).get(id) {
            return Some(root.clone());
        }
        if !is_session_id(id) || self.root_log_path(id).is_file() {
            return None;
        }
        let root = self
            .tree_roots()
            .ok()?
            .into_iter()
            .find(|root| self.tree_dir(root).join(format!("{id}.jsonl")).is_file())?;
        self.note_child(id, &root);
        Some(root)
    }

    /// Remembers that `id` lives in `root`'s tree.
    pub(crate) fn note_child(&self, id: &str, root: &str) {
        self.trees
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id.to_owned(), root.to_owned());
    }

    /// The roots that have a tree directory (sessions delegated inside them).
    pub fn tree_roots(&self) -> Result<Vec<String>> {
        Ok(session_entries(&self.sessions_dir())?
            .into_iter()
            .filter(|(name, is_dir)| *is_dir && is_session_id(name))
            .map(|(name, _)| name)
            .collect())
    }

    /// The delegated sessions whose work `id` can see: those delegated by `id` itself, by an
    /// ancestor before the point `id`'s history was cut from it, or by one of those in turn,
    /// at a point no revert on the branch left behind. Oldest first.
    pub fn visible_delegated(&self, id: &str) -> Result<Vec<Delegated>> {
        // Each session whose history `id` holds, and the last seq of it that it holds.
        let mut cuts: HashMap<String, u64> = HashMap::new();
        cuts.insert(id.to_owned(), u64::MAX);
        let mut cut = u64::MAX;
        let mut pin = self.read_start(id)?.parent;
        let mut hops = 0;
        while let Some(p) = pin.take() {
            hops += 1;
            if hops > crate::lineage::MAX_ANCESTORS {
                break;
            }
            cut = cut.min(p.seq);
            cuts.insert(p.session.clone(), cut);
            pin = self.read_start(&p.session).ok().and_then(|s| s.parent);
        }
        let mut roots: Vec<String> = cuts.keys().map(|s| self.root_of(s)).collect();
        roots.sort();
        roots.dedup();
        let mut candidates = Vec::new();
        for root in roots {
            for child in self.tree_children(&root)? {
                if cuts.contains_key(&child) {
                    continue;
                }
                let start = match self.read_start(&child) {
                    Ok(start) => start,
                    Err(e) => {
                        tracing::warn!(child, "a delegated session cannot be read: {e}");
                        continue;
                    }
                };
                let Some(delegation) = start.delegated else {
                    continue;
                };
                // A pinned child inherits history up to its pin; a clean one inherits none
                // and names its position in the delegating session itself.
                let position = match (start.parent, delegation.at) {
                    (Some(parent), _) => Some((parent.session, parent.seq)),
                    (None, Some(at)) => Some((delegation.by.clone(), at)),
                    (None, None) => None,
                };
                if let Some((pinned_in, pinned_at)) = position {
                    candidates.push(Delegated {
                        id: child,
                        delegation,
                        pinned_in,
                        pinned_at,
                    });
                }
            }
        }
        if candidates.is_empty() {
            return Ok(Vec::new());
        }
        // The reverts `id`'s branch holds, from every session of its lineage up to its cut
        // (each log's summary keeps them; a stale one is not rebuilt for this):
        // seqs along one lineage are all distinct, so one list judges any pin into it.
        let mut lineage_reverts = Vec::new();
        for (session, &cut) in &cuts {
            let reverts = self.reverts(session).unwrap_or_default();
            lineage_reverts.extend(reverts.into_iter().filter(|&(seq, _)| seq <= cut));
        }
        let lineage_hidden = HiddenSeqs::new(lineage_reverts);
        let mut child_hidden: HashMap<String, HiddenSeqs> = HashMap::new();
        // A child of a visible child is visible: repeat until nothing more joins.
        let mut visible = Vec::new();
        loop {
            let before = visible.len();
            candidates.retain(|c: &Delegated| {
                // A pin into a visible child is judged by that child's own reverts.
                let hidden = child_hidden.get(&c.pinned_in).unwrap_or(&lineage_hidden);
                let seen = cuts
                    .get(&c.pinned_in)
                    .is_some_and(|&cut| c.pinned_at <= cut && !hidden.hides(c.pinned_at));
                if seen {
                    visible.push(c.clone());
                }
                !seen
            });
            for c in &visible[before..] {
                cuts.insert(c.id.clone(), u64::MAX);
                let reverts = self.reverts(&c.id).unwrap_or_default();
                child_hidden.insert(c.id.clone(), HiddenSeqs::new(reverts));
            }
            if visible.len() == before {
                break;
            }
        }
        visible.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(visible)
    }
}

/// The seq ranges a branch's reverts hide: each hides what lies between its target and
/// itself, and stays in force when a later revert hides it in turn (as in `visible_branch`).
struct HiddenSeqs(Vec<(u64, u64)>);

impl HiddenSeqs {
    /// From `(seq, to)` pairs.
    fn new(reverts: Vec<(u64, u64)>) -> Self {
        HiddenSeqs(reverts)
    }

    fn hides(&self, seq: u64) -> bool {
        self.0.iter().any(|&(s, t)| t < seq && seq < s)
    }
}

#[cfg(test)]
mod tests {
    use super::HiddenSeqs;
    use crate::branch::visible_mask;
    use crate::record::{Body, Record};

    /// The same answer as the visible branch, for nested reverts too.
    #[test]
    fn hidden_seqs_agree_with_the_visible_branch() {
        let mut records = Vec::new();
        let reverts = [(10, 4), (20, 8), (30, 25), (31, 2)];
        for seq in 1..=40 {
            let body = match reverts.iter().find(|r| r.0 == seq) {
                Some(&(_, to)) => Body::Revert { to },
                None => Body::user_text("m"),
            };
            records.push(Record::new(seq, "T", body));
        }
        let visible = visible_mask(&records);
        let hidden = HiddenSeqs::new(reverts.to_vec());
        for (record, shown) in records.iter().zip(visible) {
            if !matches!(record.body, Body::Revert { .. }) {
                assert_eq!(hidden.hides(record.seq), !shown, "t{}", record.seq);
            }
        }
    }
}
