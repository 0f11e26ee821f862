//! gc of the store: trees no one was active in for a while, and dropped ones, go, unless a
//! kept tree descends from them (a fork pins into its parent: the parent and its blobs
//! stay); blobs no kept tree references go once older than the grace period (a publisher
//! sends blobs before the segments that name them). A tree is deleted only under its lease:
//! one another machine holds is spared.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::time::{Duration, SystemTime};

use serde::Serialize;

use crate::error::{RemoteError, Result};
use crate::layout;
use crate::remote::Remote;

/// Settings of a gc run of the store.
#[derive(Clone, Copy, Debug)]
pub struct GcOptions {
    /// Trees with no activity for this long go.
    pub older_than: Duration,
    /// Blobs younger than this stay.
    pub grace: Duration,
    /// Only report.
    pub dry_run: bool,
}

impl Default for GcOptions {
    /// Trees idle for 30 days go; blobs younger than an hour stay; things are removed.
    fn default() -> GcOptions {
        GcOptions {
            older_than: Duration::from_secs(30 * 24 * 3600),
            grace: Duration::from_secs(3600),
            dry_run: false,
        }
    }
}

/// A tree gc removed (or, dry, would).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RemovedTree {
    /// Its root.
    pub root: String,
    /// Why: `old` (no activity for the age given) or `dropped`.
    pub reason: &'static str,
    /// Its objects' bytes, as stored.
    pub bytes: u64,
}

/// A blob gc removed (or, dry, would).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RemovedBlob {
    /// Its object name (under the prefix).
    pub name: String,
    /// Its bytes, as stored.
    pub bytes: u64,
}

/// What a gc run of the store removed (or, dry, would).
#[derive(Clone, Debug, Default, Serialize)]
pub struct GcReport {
    /// The store (its name, else its URL).
    pub remote: String,
    /// Whether nothing was removed (only reported).
    pub dry_run: bool,
    /// Trees removed.
    pub trees: Vec<RemovedTree>,
    /// Blobs no kept tree references, removed.
    pub blobs: Vec<RemovedBlob>,
    /// Old trees kept because a kept tree descends from them.
    pub kept_for_descendants: Vec<String>,
    /// Old trees kept because another process holds their lease.
    pub spared_held: Vec<String>,
    /// Everything removed took this many bytes.
    pub freed_bytes: u64,
    /// Journal entries the listing object covers for a day or more, removed.
    pub journal_entries: usize,
}

impl Remote {
    /// Collects the store's garbage (see the module docs).
    pub async fn gc(&self, opts: GcOptions) -> Result<GcReport> {
        self.claim().await?;
        let (trees, problems) = self.list_trees_whole().await?;
        if !problems.is_empty() {
            // A summary that cannot be read may be the one that keeps another tree.
            return Err(RemoteError::Config(format!(
                "gc of the store stops: {}",
                problems.join("; ")
            )));
        }
        let now = SystemTime::now();
        let cutoff = hotl_log::format_ts(
            now.checked_sub(opts.older_than)
                .unwrap_or(SystemTime::UNIX_EPOCH),
        );
        let tree_of: HashMap<&str, &str> = trees
            .iter()
            .flat_map(|t| {
                t.sessions
                    .iter()
                    .map(move |m| (m.id.as_str(), t.root.as_str()))
            })
            .collect();
        let by_root: HashMap<&str, &crate::summary::TreeSummary> =
            trees.iter().map(|t| (t.root.as_str(), t)).collect();
        let dropped = |t: &crate::summary::TreeSummary| t.root_meta().is_some_and(|m| m.dropped);
        let candidate =
            |t: &crate::summary::TreeSummary| dropped(t) || t.updated() < cutoff.as_str();
        let mut report = GcReport {
            remote: self.cfg.label().to_owned(),
            dry_run: opts.dry_run,
            ..GcReport::default()
        };
        let mut kept: HashSet<&str> = HashSet::new();
        let mut todo: Vec<&str> = Vec::new();
        for tree in &trees {
            if !candidate(tree) {
                todo.push(&tree.root);
            } else if self.held_by_another(&tree.root).await? {
                // Kept, and so is everything it descends from.
                report.spared_held.push(tree.root.clone());
                todo.push(&tree.root);
            }
        }
        while let Some(root) = todo.pop() {
            if !kept.insert(root) {
                continue;
            }
            let Some(tree) = by_root.get(root) else {
                continue;
            };
            for meta in &tree.sessions {
                let Some(parent) = &meta.parent else {
                    continue;
                };
                if let Some(&ancestor) = tree_of.get(parent.session.as_str())
                    && !kept.contains(ancestor)
                {
                    if by_root.get(ancestor).is_some_and(|t| candidate(t)) {
                        report.kept_for_descendants.push(ancestor.to_owned());
                    }
                    todo.push(ancestor);
                }
            }
        }
        let doomed: Vec<&crate::summary::TreeSummary> = trees
            .iter()
            .filter(|t| !kept.contains(t.root.as_str()))
            .collect();
        for tree in doomed {
            let reason = if dropped(tree) { "dropped" } else { "old" };
            match self.remove_tree(&tree.root, opts.dry_run).await {
                Ok(bytes) => {
                    report.freed_bytes += bytes;
                    report.trees.push(RemovedTree {
                        root: tree.root.clone(),
                        reason,
                        bytes,
                    });
                }
                Err(RemoteError::Held { .. }) => {
                    report.spared_held.push(tree.root.clone());
                    kept.insert(&tree.root);
                }
                Err(e) => return Err(e),
            }
        }
        let referenced: BTreeSet<String> = trees
            .iter()
            .filter(|t| kept.contains(t.root.as_str()))
            .flat_map(|t| t.blobs.iter().map(|h| self.bucket.blob_name(h)))
            .collect();
        for meta in self.bucket.list(layout::BLOBS).await? {
            let name = self.bucket.relative(&meta.location);
            let age = now
                .duration_since(SystemTime::from(meta.last_modified))
                .unwrap_or_default();
            if referenced.contains(&name) || age < opts.grace {
                continue;
            }
            if !opts.dry_run {
                self.bucket.delete(&name).await?;
            }
            report.freed_bytes += meta.size;
            report.blobs.push(RemovedBlob {
                name,
                bytes: meta.size,
            });
        }
        report.journal_entries = self.trim_journal(opts.dry_run).await?;
        Ok(report)
    }

    /// Removes a tree's objects under its lease (the lease last, which lets it go); returns
    /// their bytes. `Held` when another process holds it.
    async fn remove_tree(&self, root: &str, dry_run: bool) -> Result<u64> {
        let lease = if dry_run {
            None
        } else {
            Some(self.acquire(root).await?)
        };
        let objects = self.bucket.list(&layout::tree_prefix(root)).await?;
        let mut bytes = 0;
        let lease_name = layout::lease(root);
        for meta in &objects {
            let name = self.bucket.relative(&meta.location);
            bytes += meta.size;
            if name != lease_name && !dry_run {
                self.bucket.delete(&name).await?;
            }
        }
        if !dry_run {
            self.bucket.delete(&layout::summary(root)).await?;
            self.note_change(root).await?;
            if lease.is_some() {
                self.bucket.delete(&lease_name).await?;
            }
        }
        let state = self.state_place(root);
        let path = self.store.derived_dir(&state.0).join(&state.1);
        if !dry_run
            && let Err(e) = std::fs::remove_file(&path)
            && e.kind() != std::io::ErrorKind::NotFound
        {
            tracing::debug!("a remote state stays: {e}");
        }
        Ok(bytes)
    }
}
