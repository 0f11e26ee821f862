//! `hotl sessions pull`: trees brought into this home, checked, only what it lacks.

use serde::Serialize;

use super::{Failed, Report, Shown, short};
use crate::error::{RemoteError, Result};
use crate::pull::Pulled;
use crate::remote::Remote;

/// What `hotl sessions pull` did.
#[derive(Clone, Debug, Serialize)]
pub struct PullReport {
    /// The store (its name, else its URL).
    pub remote: String,
    /// What every tree pulled brought, together.
    pub pulled: Pulled,
    /// Trees that could not be pulled.
    pub failed: Vec<Failed>,
}

impl Remote {
    /// Pulls the tree holding the session `query` names (with what it descends from), or
    /// every tree in the store when `query` is `None`. A tree that fails does not stop the
    /// others; a reference that matches nothing is an error.
    pub async fn pull_some(&self, query: Option<&str>) -> Result<PullReport> {
        let roots = match query {
            Some(query) => vec![self.find(query).await?.0],
            None => self
                .list_trees()
                .await?
                .0
                .into_iter()
                .map(|t| t.root)
                .collect(),
        };
        let mut report = PullReport {
            remote: self.cfg.label().to_owned(),
            pulled: Pulled::default(),
            failed: Vec::new(),
        };
        for root in roots {
            match self.pull_whole(&root).await {
                Ok(p) => report.pulled.add(p),
                Err(e @ RemoteError::Store { .. }) if e.is_unreachable() => return Err(e),
                Err(e) => report.failed.push(Failed {
                    root,
                    error: e.to_string(),
                }),
            }
        }
        Ok(report)
    }
}

impl Remote {
    /// Pulls a tree and fills the hole a lazy pull left in its root's log.
    async fn pull_whole(&self, root: &str) -> Result<Pulled> {
        let mut pulled = self.pull(root).await?;
        if self.store.hole(root).is_some() {
            pulled.add(self.fill(root).await?);
        }
        Ok(pulled)
    }
}

impl Report for PullReport {
    fn text(&self, _: &Shown) -> String {
        let p = &self.pulled;
        if p.sessions.is_empty() {
            return format!("nothing new in {}\n", self.remote);
        }
        let sessions: Vec<&str> = p.sessions.iter().map(|s| short(s)).collect();
        format!(
            "pulled {} from {}: {} ({} bytes), {} ({} bytes)\n",
            sessions.join(", "),
            self.remote,
            hotl_text::plural(p.segments, "segment"),
            p.bytes,
            hotl_text::plural(p.blobs, "blob"),
            p.blob_bytes
        )
    }

    fn warnings(&self) -> Vec<String> {
        let problems = self.pulled.problems.iter().map(|p| format!("warning: {p}"));
        let failed = self
            .failed
            .iter()
            .map(|f| format!("{} not pulled: {}", short(&f.root), f.error));
        problems.chain(failed).collect()
    }

    fn ok(&self) -> bool {
        self.failed.is_empty() && self.pulled.problems.is_empty()
    }
}
