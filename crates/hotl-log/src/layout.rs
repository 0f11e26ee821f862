//! Where the store keeps each file, for code that writes or damages files on purpose: tests of
//! torn lines and corrupt caches, generators of benchmark homes. Only with the `layout`
//! feature; hotl's own crates read and write through [`Store`] methods, so the layout can
//! change without them.

use std::path::PathBuf;

use crate::store::Store;

/// The paths of a store's files (see the module docs).
#[derive(Clone, Copy, Debug)]
pub struct Layout<'a> {
    store: &'a Store,
}

impl Store {
    /// Where this store keeps its files.
    pub fn layout(&self) -> Layout<'_> {
        Layout { store: self }
    }
}

impl Layout<'_> {
    /// `sessions/`.
    pub fn sessions_dir(&self) -> PathBuf {
        self.store.sessions_dir()
    }

    /// `index/`: the derived files of later layers.
    pub fn index_dir(&self) -> PathBuf {
        self.store.index_dir()
    }

    /// A session's log: `sessions/<id>.jsonl` for a root, `sessions/<root>/<id>.jsonl` for a
    /// session delegated inside a root's tree.
    pub fn log(&self, id: &str) -> PathBuf {
        self.store.log_path(id)
    }

    /// A session's metadata cache, next to its log.
    pub fn meta(&self, id: &str) -> PathBuf {
        self.store.meta_path(id)
    }

    /// The lock of the tree a session belongs to.
    pub fn lock(&self, id: &str) -> PathBuf {
        self.store.lock_path(id)
    }

    /// A root session's tree directory.
    pub fn tree_dir(&self, root: &str) -> PathBuf {
        self.store.tree_dir(root)
    }

    /// The home-wide list cache.
    pub fn list_cache(&self) -> PathBuf {
        self.store.list_cache_path()
    }
}
