//! Recording the working tree: a snapshot record whenever the tree differs from the last one.

use hotl_log::Body;

use super::Session;
use crate::error::Result;

impl Session {
    /// Records the working tree when it changed since the last snapshot; `true` when a
    /// snapshot could be taken (it then shows the tree as it is).
    pub(super) async fn snapshot(&mut self) -> Result<bool> {
        let tree = self
            .tree
            .snapshots
            .take(&self.cwd, &self.store.blobs())
            .await;
        self.record_tree(tree)
    }

    /// Records snapshot `tree` (none when the tree could not be taken) if it differs from the
    /// last one recorded; `true` when there was one.
    pub(super) fn record_tree(&mut self, tree: Option<String>) -> Result<bool> {
        let Some(tree) = tree else {
            return Ok(false);
        };
        if self.tree.last.as_deref() != Some(tree.as_str()) {
            self.append(Body::Snapshot { tree: tree.clone() })?;
            self.tree.last = Some(tree);
        }
        Ok(true)
    }
}
