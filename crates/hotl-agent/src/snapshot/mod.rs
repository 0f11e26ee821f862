//! Working-tree snapshots: after a step that may have changed files, the session records the
//! tree, so a fold can store the diff its span made (the tree before the span against the tree
//! now). No tool can say which files `bash` changed; the tree can.
//!
//! A snapshot id names one of two kinds:
//!
//! - inside a git work tree, a git tree id (40 hex digits; 64 in a SHA-256 repository), written
//!   through a private index so the user's index and history are untouched ([`git`]);
//! - anywhere else, `manifest:<blob hash>`: a manifest of content hashes stored as a blob, with
//!   each file's content stored beside it ([`manifest`]). It gives up on trees too big to
//!   snapshot after every step (20,000 files, 100 MiB to store); see [`manifest::Limits`].
//!
//! [`Snapshotter::diff`] turns two ids of the same kind into a patch: git's own for trees, a
//! git-style one ([`patch`]) for manifests.

mod children;
mod git;
mod manifest;
mod patch;
pub(crate) mod rewind;
mod worktree;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use hotl_log::Blobs;

pub use children::end_children;
pub(crate) use manifest::Limits;
pub use rewind::{changed_from, revert_files};
pub use worktree::sweep_worktrees;
pub(crate) use worktree::{Worktree, worktree_at};

/// Takes the snapshots of one session's working tree, keeping what makes the next one cheap: a
/// cache of the files already hashed, and whether the tree was too big last time.
pub(crate) struct Snapshotter {
    index: PathBuf,
    manifests: manifest::Manifests,
    /// What git said of the last cwd: its work tree's top (or none), and the `.git` entry
    /// that answer was given under. Asking git costs two processes; looking for `.git` costs a
    /// few `stat`s, so git is asked again only when that entry changes (a `git init`, say).
    work_tree: Option<(PathBuf, Option<PathBuf>, Option<PathBuf>)>,
}

impl Snapshotter {
    /// A snapshotter staging git trees through the private index file `index`
    /// (`<home>/index/trees/<session>.index`), with the default [`Limits`].
    pub(crate) fn new(index: PathBuf) -> Snapshotter {
        Snapshotter::with_limits(index, Limits::default())
    }

    /// A snapshotter whose manifests keep within `limits`.
    pub(crate) fn with_limits(index: PathBuf, limits: Limits) -> Snapshotter {
        Snapshotter {
            index,
            manifests: manifest::Manifests::new(limits),
            work_tree: None,
        }
    }

    /// The top of the git work tree holding `cwd` (see `git::work_tree`), asked of git again
    /// only when the nearest `.git` above `cwd` is another one than last time.
    fn work_tree(&mut self, cwd: &Path) -> Option<PathBuf> {
        let marker = git::nearest_git_entry(cwd);
        if let Some((known, seen, top)) = &self.work_tree
            && known == cwd
            && *seen == marker
        {
            return top.clone();
        }
        let top = git::work_tree(cwd);
        self.work_tree = Some((cwd.to_owned(), marker, top.clone()));
        top
    }

    /// The snapshot id of the tree at `cwd` now: a git tree id inside a git work tree, else
    /// `manifest:<blob hash>` (the manifest and the files' contents stored in `blobs`). `None`
    /// when git fails, or outside git when the tree is too big to snapshot after every step
    /// (more than 20,000 files, 100 MiB to store, or 1 GiB of files over 1 MiB to hash; after
    /// that only every 50th take walks the tree again), or when a blob cannot be written.
    ///
    /// hotl's own home is never snapshotted, even when it lies inside `cwd` or its repository:
    /// it changes with every step.
    pub(crate) fn take(&mut self, cwd: &Path, blobs: &Blobs) -> Option<String> {
        let mut excluded = vec![blobs.root().to_owned()];
        if let Some(home) = blobs.root().parent()
            && self.index.starts_with(home)
        {
            excluded.push(home.to_owned());
        }
        if let Some(top) = self.work_tree(cwd) {
            let tree = git::tree(cwd, &top, &self.index, &excluded);
            if tree.is_none() {
                tracing::warn!(
                    "git could not snapshot the work tree {}: a fold now lists only the files \
                     tools named",
                    top.display()
                );
            }
            return tree;
        }
        let Some(hash) = self.manifests.take(cwd, blobs, &excluded) else {
            tracing::info!(
                "the working tree {} is not snapshotted (too big, or a blob cannot be written)",
                cwd.display()
            );
            return None;
        };
        Some(format!("{}{hash}", manifest::ID_PREFIX))
    }

    /// The patch from snapshot `from` to snapshot `to`: git's binary patch between two git trees
    /// (made in `cwd`'s repository), a git-style text patch between two manifests (read from
    /// `blobs`). `None` when it cannot be made: ids of different kinds (the cwd became a git work
    /// tree in between), a missing blob, or git failing.
    pub(crate) fn diff(cwd: &Path, from: &str, to: &str, blobs: &Blobs) -> Option<Vec<u8>> {
        let manifests = (
            from.strip_prefix(manifest::ID_PREFIX),
            to.strip_prefix(manifest::ID_PREFIX),
        );
        match manifests {
            (Some(from), Some(to)) => patch::render(
                blobs,
                &manifest::load(blobs, from)?,
                &manifest::load(blobs, to)?,
            ),
            (None, None) if git::is_tree_id(from) && git::is_tree_id(to) => {
                git::diff(cwd, from, to)
            }
            _ => None,
        }
    }

    /// The paths (relative to the tree's root, `/`-separated) that differ between snapshot
    /// `from` and snapshot `to`: what a span changed, whichever tool changed it. `None` when it
    /// cannot be told (ids of different kinds, a missing manifest, git failing).
    pub(crate) fn changed(cwd: &Path, from: &str, to: &str, blobs: &Blobs) -> Option<Vec<String>> {
        let manifests = (
            from.strip_prefix(manifest::ID_PREFIX),
            to.strip_prefix(manifest::ID_PREFIX),
        );
        match manifests {
            (Some(from), Some(to)) => Some(patch::changed_paths(
                &manifest::load(blobs, from)?,
                &manifest::load(blobs, to)?,
            )),
            (None, None) if git::is_tree_id(from) && git::is_tree_id(to) => {
                git::changed_paths(cwd, from, to)
            }
            _ => None,
        }
    }

    /// The blake3 hash (hex) of the content each of `paths` (relative to `cwd`, `/`-separated)
    /// had in snapshot `tree`, `None` for a path it does not hold. `None` when
    /// it cannot be told (a missing manifest, git failing, a link in a manifest, whose content
    /// is its target's).
    pub(crate) fn content_hashes(
        cwd: &Path,
        tree: &str,
        paths: &[String],
        blobs: &Blobs,
    ) -> Option<Vec<Option<String>>> {
        if let Some(hash) = tree.strip_prefix(manifest::ID_PREFIX) {
            let entries = manifest::load(blobs, hash)?;
            return paths
                .iter()
                .map(|path| match entries.iter().find(|e| e.path == *path) {
                    None => Some(None),
                    Some(entry) => match &entry.content {
                        manifest::Content::Blob(h) | manifest::Content::Hash(h) => {
                            Some(Some(h.clone()))
                        }
                        manifest::Content::Target(_) => None,
                    },
                })
                .collect();
        }
        let contents = git::contents(cwd, tree, paths)?;
        Some(
            contents
                .into_iter()
                .map(|c| c.map(|bytes| blake3::hash(&bytes).to_hex().to_string()))
                .collect(),
        )
    }

    /// The manifest snapshotter, for tests that need its cache to look settled.
    #[cfg(test)]
    pub(crate) fn settle_cache(&mut self) {
        self.manifests.settle_cache();
    }
}

/// A session's snapshots, one of which may be taken in the background: a turn starts taking
/// the tree as it is while the model thinks, so a step that may change files rarely waits for
/// it. Snapshots share one [`Snapshotter`] (and its cache), so one taken now waits for the one
/// in the background. Every snapshot runs on the blocking pool, never on an async worker: a
/// tree of 20,000 files takes a while to hash.
pub(crate) struct Snapshots {
    snapshotter: Arc<Mutex<Snapshotter>>,
    pending: Option<tokio::sync::oneshot::Receiver<Option<String>>>,
}

impl Snapshots {
    /// Snapshots staged through the private git index `index` (see [`Snapshotter::new`]).
    pub(crate) fn new(index: PathBuf) -> Snapshots {
        Snapshots {
            snapshotter: Arc::new(Mutex::new(Snapshotter::new(index))),
            pending: None,
        }
    }

    /// Starts taking the tree at `cwd` as it is now, in the background (the result of one
    /// started earlier is dropped once it is done). It runs on a thread of its own rather than
    /// the runtime's blocking pool: it is taken in case a step changes files, and a process
    /// that ends first (a turn that only talked) must not wait for it.
    pub(crate) fn start(&mut self, cwd: &Path, blobs: &Blobs) {
        let (snapshotter, cwd, blobs) =
            (Arc::clone(&self.snapshotter), cwd.to_owned(), blobs.clone());
        let (done, pending) = tokio::sync::oneshot::channel();
        // The one before holds the snapshotter until it is done: this one waits its turn.
        let spawned = std::thread::Builder::new()
            .name("hotl-snapshot".into())
            .spawn(move || {
                let tree = lock(&snapshotter).take(&cwd, &blobs);
                // Nobody waits any more: the turn ended without a step that needed it.
                let _ = done.send(tree);
            });
        match spawned {
            Ok(_) => self.pending = Some(pending),
            Err(e) => {
                tracing::warn!("a snapshot thread cannot start: {e}");
                self.pending = None;
            }
        }
    }

    /// The snapshot started in the background, once it is done; `None` when none was started.
    pub(crate) async fn started(&mut self) -> Option<Option<String>> {
        let pending = self.pending.take()?;
        Some(pending.await.unwrap_or_else(|_| {
            tracing::warn!("a working-tree snapshot failed");
            None
        }))
    }

    /// The snapshot of the tree at `cwd` now (see [`Snapshotter::take`]).
    pub(crate) async fn take(&mut self, cwd: &Path, blobs: &Blobs) -> Option<String> {
        drop(self.started().await);
        let (snapshotter, cwd, blobs) =
            (Arc::clone(&self.snapshotter), cwd.to_owned(), blobs.clone());
        tokio::task::spawn_blocking(move || lock(&snapshotter).take(&cwd, &blobs))
            .await
            .unwrap_or_else(|e| {
                tracing::warn!("a working-tree snapshot failed: {e}");
                None
            })
    }
}

/// The snapshotter, even if a thread panicked holding it (its cache is only a cache).
fn lock(snapshotter: &Mutex<Snapshotter>) -> std::sync::MutexGuard<'_, Snapshotter> {
    snapshotter
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outside_git_ids_name_manifests_and_hotls_home_is_not_walked() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cwd = dir.path().join("project");
        let home = cwd.join(".hotl");
        std::fs::create_dir_all(&cwd).expect("project");
        std::fs::write(cwd.join("a.txt"), "a\n").expect("write");
        let blobs = Blobs::new(home.join("blobs"));
        let mut s = Snapshotter::new(home.join("index/trees/s.index"));
        let first = s.take(&cwd, &blobs).expect("a snapshot");
        let hash = first
            .strip_prefix(manifest::ID_PREFIX)
            .expect("a manifest id");
        let entries = manifest::load(&blobs, hash).expect("loads");
        assert_eq!(entries.len(), 1, "only a.txt: {entries:?}");
        // The blobs just written (and a log beside them) do not change the tree.
        std::fs::write(home.join("log.jsonl"), "{}\n").expect("write");
        s.settle_cache();
        assert_eq!(s.take(&cwd, &blobs).as_deref(), Some(&*first));
    }

    #[tokio::test]
    async fn a_snapshot_started_in_the_background_is_the_tree_as_it_was_then() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cwd = dir.path().join("project");
        std::fs::create_dir_all(&cwd).expect("project");
        std::fs::write(cwd.join("a.txt"), "a\n").expect("write");
        let blobs = Blobs::new(dir.path().join("home/blobs"));
        let mut s = Snapshots::new(dir.path().join("home/index/trees/s.index"));
        assert_eq!(s.started().await, None, "nothing was started");
        s.start(&cwd, &blobs);
        let then = s.started().await.expect("started").expect("a snapshot");
        assert_eq!(s.started().await, None, "taken once");
        // Started, then the tree changes: the started one is dropped, `take` sees the change.
        s.start(&cwd, &blobs);
        std::fs::write(cwd.join("b.txt"), "b\n").expect("write");
        let now = s.take(&cwd, &blobs).await.expect("a snapshot");
        assert_ne!(now, then);
        assert_eq!(s.started().await, None);
    }

    #[test]
    fn a_git_init_between_snapshots_is_seen() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cwd = dir.path().join("project");
        std::fs::create_dir_all(&cwd).expect("project");
        std::fs::write(cwd.join("a.txt"), "a\n").expect("write");
        let blobs = Blobs::new(dir.path().join("home/blobs"));
        let mut s = Snapshotter::new(dir.path().join("home/index/trees/s.index"));
        let before = s.take(&cwd, &blobs).expect("a snapshot");
        assert!(before.starts_with(manifest::ID_PREFIX), "{before}");
        let init = std::process::Command::new("git")
            .arg("-C")
            .arg(&cwd)
            .args(["init", "-q"])
            .status()
            .is_ok_and(|s| s.success());
        if !hotl_testkit::require("git", init).expect("git, under CI") {
            return;
        }
        let after = s.take(&cwd, &blobs).expect("a snapshot");
        assert!(git::is_tree_id(&after), "a git tree now: {after}");
    }

    #[test]
    fn ids_of_different_kinds_have_no_diff() {
        let dir = tempfile::tempdir().expect("tempdir");
        let blobs = Blobs::new(dir.path().join("blobs"));
        let manifest = blobs.put(&manifest::encode(&[])).expect("stored");
        let manifest = format!("{}{manifest}", manifest::ID_PREFIX);
        let tree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
        assert!(Snapshotter::diff(dir.path(), tree, &manifest, &blobs).is_none());
        assert!(Snapshotter::diff(dir.path(), &manifest, "HEAD", &blobs).is_none());
        assert_eq!(
            Snapshotter::diff(dir.path(), &manifest, &manifest, &blobs),
            Some(Vec::new())
        );
    }
}
