//! The import ledger, `index/imports/ledger.json`: which session each imported file (by its
//! canonical path and content hash) became. Importing an unchanged file again finds its
//! session here; a changed file's new session names the earlier one. The file is replaced
//! atomically; every entry is also in its session's `import` record, so losing the ledger only
//! loses that recognition.

use hotl_log::Store;
use serde::{Deserialize, Serialize};

const DIR: &str = "imports";
const FILE: &str = "ledger.json";
const FORMAT: &str = "hotl-imports/1";

/// One imported file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Entry {
    pub path: String,
    pub blake3: String,
    pub id: String,
    pub source: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct Ledger {
    #[serde(default)]
    format: String,
    #[serde(default)]
    entries: Vec<Entry>,
}

impl Ledger {
    /// The ledger of `store`'s home (empty when missing or unreadable).
    pub fn load(store: &Store) -> Ledger {
        std::fs::read(store.derived_dir(DIR).join(FILE))
            .ok()
            .and_then(|b| serde_json::from_slice::<Ledger>(&b).ok())
            .filter(|l| l.format == FORMAT)
            .unwrap_or_default()
    }

    /// The session an import of exactly these bytes at `path` became, while it exists.
    pub fn find(&self, store: &Store, path: &str, blake3: &str) -> Option<String> {
        self.entries
            .iter()
            .rev()
            .find(|e| e.path == path && e.blake3 == blake3 && store.exists(&e.id))
            .map(|e| e.id.clone())
    }

    /// The latest session an import of `path` became, while it exists.
    pub fn latest(&self, store: &Store, path: &str) -> Option<String> {
        self.entries
            .iter()
            .rev()
            .find(|e| e.path == path && store.exists(&e.id))
            .map(|e| e.id.clone())
    }

    /// Records an import and writes the ledger.
    pub fn add(mut self, store: &Store, entry: Entry) -> hotl_log::Result<()> {
        self.format = FORMAT.to_owned();
        self.entries.push(entry);
        let bytes = serde_json::to_vec_pretty(&self)?;
        store.put_derived(DIR, FILE, &bytes)
    }
}
