//! Content-addressed blobs: large tool outputs, pastes, images and diffs, shared by forks.

use std::fs;
use std::path::{Path, PathBuf};

use crate::error::{IoResultExt, Result};
use crate::fsutil;

/// The blob directory of a home: `blobs/<2 hex>/<blake3 hex>`.
#[derive(Clone, Debug)]
pub struct Blobs {
    root: PathBuf,
}

impl Blobs {
    /// Blobs under `root`.
    pub fn new(root: PathBuf) -> Self {
        Blobs { root }
    }

    /// Where the blob with `hash` lives (it may not exist). `hash` must be hex.
    pub fn path(&self, hash: &str) -> PathBuf {
        let prefix = hash.get(..2).unwrap_or("00");
        self.root.join(prefix).join(hash)
    }

    /// Stores `bytes` and returns their hash. Writing an existing blob again is harmless.
    pub fn put(&self, bytes: &[u8]) -> Result<String> {
        self.store(bytes, true)
    }

    /// [`Blobs::put`] without waiting for the disk: for copies a crash may lose without losing
    /// history (a working-tree file kept for a later diff). Still atomic: a blob is whole or
    /// absent; a later `put` of the same bytes syncs it (and a copy of the wrong size, torn by
    /// a crash, is written again).
    pub fn put_unsynced(&self, bytes: &[u8]) -> Result<String> {
        self.store(bytes, false)
    }

    fn store(&self, bytes: &[u8], sync: bool) -> Result<String> {
        let hash = blob_hash(bytes);
        let path = self.path(&hash);
        if let Ok(file) = fs::OpenOptions::new().write(true).open(&path)
            && file.metadata().is_ok_and(|m| m.len() == bytes.len() as u64)
        {
            // Already stored, maybe unsynced (a snapshot's copy): make it as durable as asked,
            // and young again, since gc judges unreferenced blobs by age.
            if sync {
                file.sync_data().at(&path)?;
            }
            if let Err(e) = file.set_modified(std::time::SystemTime::now()) {
                // Only its age is wrong: gc may take it sooner, once nothing references it.
                tracing::debug!(blob = hash, "a stored blob's time is not refreshed: {e}");
            }
            return Ok(hash);
        }
        let dir = path.parent().expect("blob paths have a prefix directory");
        fsutil::create_private_dir(dir)?;
        if sync {
            fsutil::write_atomic(&path, bytes)?;
        } else {
            fsutil::write_derived(&path, bytes)?;
        }
        Ok(hash)
    }

    /// Reads the blob with `hash`.
    pub fn get(&self, hash: &str) -> Result<Vec<u8>> {
        let path = self.path(hash);
        fs::read(&path).at(&path)
    }

    /// The hashes of the stored blobs that start with `prefix` (hex, at least two characters:
    /// they name the directory searched), sorted. Pointers in what the model reads name a blob
    /// by a short prefix of its hash, which this resolves; an unknown or malformed prefix
    /// matches nothing.
    pub fn find(&self, prefix: &str) -> Vec<String> {
        let prefix = prefix.to_ascii_lowercase();
        let Some(dir) = prefix.get(..2) else {
            return Vec::new();
        };
        if !prefix.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Vec::new();
        }
        let Ok(entries) = fs::read_dir(self.root.join(dir)) else {
            return Vec::new();
        };
        let mut out: Vec<String> = entries
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|name| name.starts_with(&prefix))
            .collect();
        out.sort();
        out
    }

    /// Every stored blob: its hash and path.
    pub fn list(&self) -> Result<Vec<(String, PathBuf)>> {
        let mut out = Vec::new();
        let Ok(prefixes) = fs::read_dir(&self.root) else {
            return Ok(out);
        };
        for prefix in prefixes {
            let prefix = prefix.at(&self.root)?.path();
            if !prefix.is_dir() {
                continue;
            }
            for blob in fs::read_dir(&prefix).at(&prefix)? {
                let path = blob.at(&prefix)?.path();
                if let Some(name) = path.file_name().and_then(|n| n.to_str()) {
                    out.push((name.to_owned(), path.clone()));
                }
            }
        }
        Ok(out)
    }

    /// The blob root.
    pub fn root(&self) -> &Path {
        &self.root
    }
}

/// The name a blob with these bytes is stored under (BLAKE3, 64 hex characters).
pub fn blob_hash(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

/// Every blob hash a JSON value references: any field named `blob` or ending in `_blob`, at any
/// depth, in any record type, known or not.
pub fn blob_refs(value: &serde_json::Value, out: &mut Vec<String>) {
    match value {
        serde_json::Value::Object(map) => {
            for (key, v) in map {
                if (key == "blob" || key.ends_with("_blob"))
                    && let Some(hash) = v.as_str()
                {
                    out.push(hash.to_owned());
                }
                blob_refs(v, out);
            }
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| blob_refs(v, out)),
        _ => {}
    }
}

/// The bytes of a blob a `session` record froze part of the session in (`what`: "system
/// prompt", "tool definitions"), so resumes and forks send the bytes the session started
/// with. `Ok(None)` when the record names none (an old or imported log); `Err` names the blob
/// and why it cannot be used: missing, unreadable, or not a JSON array.
pub fn read_frozen(
    blobs: &Blobs,
    hash: Option<&str>,
    what: &str,
) -> std::result::Result<Option<Vec<u8>>, String> {
    let Some(hash) = hash else {
        return Ok(None);
    };
    let bytes = blobs
        .get(hash)
        .map_err(|e| format!("the session's frozen {what} (blob {hash}) cannot be read: {e}"))?;
    match serde_json::from_slice::<serde_json::Value>(&bytes) {
        Ok(serde_json::Value::Array(_)) => Ok(Some(bytes)),
        _ => Err(format!(
            "the session's frozen {what} (blob {hash}) is damaged: not a JSON list"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_torn_copy_is_written_again_and_a_stored_one_made_young() {
        let dir = tempfile::tempdir().unwrap();
        let blobs = Blobs::new(dir.path().join("blobs"));
        let hash = blobs.put_unsynced(b"working tree copy").unwrap();
        // A crash left it short: the next put writes it whole.
        std::fs::write(blobs.path(&hash), b"work").unwrap();
        assert_eq!(blobs.put(b"working tree copy").unwrap(), hash);
        assert_eq!(blobs.get(&hash).unwrap(), b"working tree copy");
        // An old copy stored again is young again (gc spares young blobs).
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(7200);
        std::fs::File::options()
            .write(true)
            .open(blobs.path(&hash))
            .unwrap()
            .set_modified(old)
            .unwrap();
        blobs.put(b"working tree copy").unwrap();
        let modified = std::fs::metadata(blobs.path(&hash))
            .unwrap()
            .modified()
            .unwrap();
        assert!(modified > old + std::time::Duration::from_secs(3600));
    }

    #[test]
    fn put_is_content_addressed_and_idempotent() {
        let dir = tempfile::tempdir().unwrap();
        let blobs = Blobs::new(dir.path().join("blobs"));
        let a = blobs.put(b"hello").unwrap();
        let b = blobs.put(b"hello").unwrap();
        assert_eq!(a, b);
        assert_eq!(blobs.get(&a).unwrap(), b"hello");
        assert_eq!(blobs.list().unwrap().len(), 1);
    }

    #[test]
    fn a_prefix_finds_the_blobs_it_starts() {
        let dir = tempfile::tempdir().unwrap();
        let blobs = Blobs::new(dir.path().join("blobs"));
        let a = blobs.put(b"one").unwrap();
        assert_eq!(blobs.find(&a[..16]), vec![a.clone()]);
        assert_eq!(blobs.find(&a[..16].to_uppercase()), vec![a.clone()]);
        assert_eq!(blobs.find(&a), vec![a.clone()]);
        assert!(blobs.find("0").is_empty());
        assert!(blobs.find("../x").is_empty());
        let other = if a.starts_with('0') { "1" } else { "0" };
        assert!(blobs.find(&format!("{other}{}", &a[1..16])).is_empty());
    }

    #[test]
    fn refs_are_found_at_any_depth_in_unknown_shapes() {
        let v = serde_json::json!({"type":"future","x":{"diff_blob":"aa","y":[{"blob":"bb"}]}});
        let mut out = Vec::new();
        blob_refs(&v, &mut out);
        out.sort();
        assert_eq!(out, ["aa", "bb"]);
    }
}
