//! Recording the working tree: a snapshot record whenever the tree differs from the last one.

use hotl_log::Body;

use super::Session;
use crate::error::Result;

impl Session {
    /// Records the working tree when it changed since the last snapshot.
    pub(super) fn snapshot(&mut self) -> Result<()> {
        let tree = self.snapshots.take(&self.cwd, &self.store.blobs());
        self.record_tree(tree)
    }

    /// Records snapshot `tree` (none when the tree could not be taken) if it differs from the
    /// last one recorded.
    pub(super) fn record_tree(&mut self, tree: Option<String>) -> Result<()> {
        self.tree_is_current = tree.is_some();
        if let Some(tree) = tree
            && self.last_tree.as_deref() != Some(tree.as_str())
        {
            self.append(Body::Snapshot { tree: tree.clone() })?;
            self.last_tree = Some(tree);
        }
        Ok(())
    }
}
