//! A revert that takes back the conversation, the code, or both: the conversation by a
//! `revert` record, the code by putting back the files the later turns changed (see
//! [`crate::snapshot::rewind`]). The tree is recorded before and after, so the log shows what
//! the revert changed and a later revert can take it back too.

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
        // What the tree is now, recorded: what the revert undoes stays in the log.
        self.snapshot().await?;
        let lineage = self.store.lineage(self.id())?;
        let Some((target, latest)) = rewind::trees_since(&lineage.records, to) else {
            return Ok(Vec::new());
        };
        let (target, latest) = (target.to_owned(), latest.to_owned());
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
        Ok(files)
    }
}
