//! What this home knows it published to (or pulled from) the store, per tree: for each
//! session, how far its local log is in the store and the hash of its last segment; the
//! blobs known to be there. Derived: when missing or out of step with the log, it is made
//! again from the store.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

/// The file's format.
const FORMAT: u32 = 1;

/// One session's place in the store.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionState {
    /// Bytes of the local log the store holds (what the next segment starts after).
    pub offset: u64,
    /// The last seq the store holds (the next segment starts at `last + 1`).
    pub last: u64,
    /// The hash of the last segment's lines (the next one names it as `prev`).
    pub hash: Option<String>,
}

/// A tree's state.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TreeState {
    format: u32,
    /// By session id.
    pub sessions: BTreeMap<String, SessionState>,
    /// Blobs (by content hash) known to be in the store.
    pub blobs: BTreeSet<String>,
    /// By session id, the offset of the view checkpoint published for it.
    #[serde(default)]
    pub views: BTreeMap<String, u64>,
}

impl TreeState {
    /// Reads a tree's state; empty when missing or unreadable.
    pub fn load(path: &std::path::Path) -> TreeState {
        std::fs::read(path)
            .ok()
            .and_then(|bytes| serde_json::from_slice::<TreeState>(&bytes).ok())
            .filter(|s| s.format == FORMAT)
            .unwrap_or_default()
    }

    /// Writes it (derived: a failure is logged and costs reading the store again).
    pub fn save(&mut self, store: &hotl_log::Store, place: &(String, String)) {
        self.format = FORMAT;
        let bytes = serde_json::to_vec(self).expect("state serializes");
        if let Err(e) = store.put_derived(&place.0, &place.1, &bytes) {
            tracing::warn!("the remote state {} is not written: {e}", place.1);
        }
    }
}

impl crate::remote::Remote {
    /// Where a tree's state lives: its derived directory and file name.
    pub(crate) fn state_place(&self, root: &str) -> (String, String) {
        (
            format!("{}/trees", self.state_name()),
            format!("{root}.json"),
        )
    }

    /// Reads a tree's state.
    pub(crate) fn load_state(&self, root: &str) -> TreeState {
        let (dir, file) = self.state_place(root);
        TreeState::load(&self.store.derived_dir(&dir).join(file))
    }

    /// Writes a tree's state.
    pub(crate) fn save_state(&self, root: &str, state: &mut TreeState) {
        state.save(&self.store, &self.state_place(root));
    }
}
