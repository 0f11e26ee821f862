//! A revert that takes back the conversation, the code, or both: the conversation by a
//! `revert` record, the code by putting back the files the later turns changed (see
//! [`crate::snapshot::rewind`]). The tree is recorded before and after, and the restore as a
//! `restore` record naming both, so the log shows what it changed and `/revert undo` can take
//! it back.

use hotl_log::Body;
use hotl_protocol::{FileRewound, RevertScope};

use super::Session;
use crate::error::{AgentError, Result};
use crate::snapshot::rewind;

impl Session {
    /// Reverts to just before user message `t<seq>`, taking back what `scope` says. Returns
    /// the last stamp kept, the message's text, and what became of each file.
    pub async fn revert(
        &mut self,
        seq: u64,
        scope: RevertScope,
    ) -> Result<(u64, String, Vec<FileRewound>)> {
        let (to, text) = self.revert_target(seq)?;
        let files = if scope.code() {
            self.rewind_code(to).await?
        } else {
            Vec::new()
        };
        if scope.conversation() {
            self.append(Body::Revert { to })?;
        }
        Ok((to, text, files))
    }

    /// Puts back the files changed after stamp `to` as the snapshot then held them; a file
    /// changed since the last snapshot is kept.
    async fn rewind_code(&mut self, to: u64) -> Result<Vec<FileRewound>> {
        // The trees as hotl last saw them, before the tree now is recorded: a file that
        // differs from what hotl last saw was changed by someone else, and is kept.
        let lineage = self.store.lineage(self.id())?;
        let Some((target, latest)) = rewind::trees_since(&lineage.records, to) else {
            return Ok(Vec::new());
        };
        let (target, latest) = (target.to_owned(), latest.to_owned());
        drop(lineage);
        self.put_back(Some(to), target, latest).await
    }

    /// Undoes the last restore (a revert's code, or an undo): the files it changed go back as
    /// they were before it, except those changed since (kept and named).
    pub async fn undo_restore(&mut self) -> Result<Vec<FileRewound>> {
        let lineage = self.store.lineage(self.id())?;
        let Some((before, after)) = rewind::last_restore(&lineage.records) else {
            return Err(AgentError::Refused(
                "no code was put back in this session, so there is nothing to undo".to_owned(),
            ));
        };
        let (before, after) = (before.to_owned(), after.to_owned());
        self.put_back(None, before, after).await
    }

    /// Puts back the files that differ between snapshots `target` and `latest` as `target`
    /// has them, and records the restore (`to`: the stamp of a revert, `None` for an undo).
    async fn put_back(
        &mut self,
        to: Option<u64>,
        target: String,
        latest: String,
    ) -> Result<Vec<FileRewound>> {
        // What the tree is now, recorded: what the restore changes stays in the log.
        self.snapshot().await?;
        let before = self.tree.last.clone();
        let (cwd, blobs) = (self.cwd.clone(), self.store.blobs());
        let files = tokio::task::spawn_blocking(move || {
            rewind::rewind(&cwd, &blobs, &target, &latest, true)
        })
        .await
        .map_err(|e| AgentError::Refused(format!("putting the code back failed: {e}")))?
        .map_err(|why| {
            AgentError::Refused(format!(
                "the code cannot be put back: {why}; --conversation reverts only the conversation"
            ))
        })?;
        self.snapshot().await?;
        if let (Some(before), Some(after)) = (before, self.tree.last.clone())
            && before != after
        {
            // Recorded, so that it can be undone.
            self.append(Body::Restore { to, before, after })?;
        }
        Ok(files)
    }
}
