//! Blobs between the home and the store: which ones lines reference, sent once each (by
//! content, so a blob many sessions share is stored once), fetched and checked against the
//! hash that names them.

use std::collections::BTreeSet;

use futures_util::StreamExt;
use object_store::PutMode;

use crate::error::{RemoteError, Result};
use crate::remote::Remote;

/// How many blobs move at once.
const AT_ONCE: usize = 8;

/// How a snapshot taken outside git names its manifest blob.
const MANIFEST: &str = "manifest:";

/// Every blob `lines` reference: any `blob` or `*_blob` field, and the files a snapshot
/// manifest lists (read from `local`, where the manifest is).
pub fn refs_in(lines: &[u8], local: &hotl_log::Blobs) -> BTreeSet<String> {
    let mut found = Vec::new();
    for line in lines.split_inclusive(|&b| b == b'\n') {
        let manifest = contains(line, MANIFEST.as_bytes());
        if !contains(line, b"blob\"") && !manifest {
            continue;
        }
        let Ok(value) = serde_json::from_slice::<serde_json::Value>(line) else {
            continue;
        };
        hotl_log::blob_refs(&value, &mut found);
        if let Some(hash) = value
            .get("tree")
            .and_then(|t| t.as_str())
            .and_then(|t| t.strip_prefix(MANIFEST))
        {
            found.push(hash.to_owned());
            if let Some(listed) = local
                .get(hash)
                .ok()
                .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
            {
                hotl_log::blob_refs(&listed, &mut found);
            }
        }
    }
    found
        .into_iter()
        .filter(|h| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()))
        .collect()
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    memchr_find(haystack, needle).is_some()
}

fn memchr_find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// What moving blobs did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Moved {
    /// Blobs sent or fetched.
    pub count: usize,
    /// Their bytes (as stored).
    pub bytes: u64,
}

impl Remote {
    /// Sends the blobs of `hashes` the store does not hold yet (`known`: those it does,
    /// updated). A blob this home does not have is skipped with a warning: the store is as
    /// complete as the home.
    pub(crate) async fn send_blobs(
        &self,
        hashes: &BTreeSet<String>,
        known: &mut BTreeSet<String>,
    ) -> Result<Moved> {
        let local = self.store.blobs();
        let todo: Vec<String> = hashes.difference(known).cloned().collect();
        let results: Vec<Result<(String, Option<u64>)>> = futures_util::stream::iter(todo)
            .map(|hash| {
                let local = local.clone();
                async move {
                    let name = self.bucket.blob_name(&hash);
                    if self.bucket.head(&name).await?.is_some() {
                        return Ok((hash, None));
                    }
                    let bytes = match local.get(&hash) {
                        Ok(bytes) => bytes,
                        Err(e) => {
                            tracing::warn!(
                                blob = hash,
                                "a referenced blob is not in this home: {e}"
                            );
                            return Ok((hash, Some(0)));
                        }
                    };
                    let sealed = self.bucket.seal(&name, &bytes)?;
                    let len = sealed.len() as u64;
                    match self.bucket.put_raw(&name, sealed, PutMode::Create).await {
                        Ok(_) | Err(object_store::Error::AlreadyExists { .. }) => {
                            Ok((hash, Some(len)))
                        }
                        Err(e) => Err(RemoteError::store(
                            format!("writing {}", self.bucket.shown(&name)),
                            e,
                        )),
                    }
                }
            })
            .buffer_unordered(AT_ONCE)
            .collect()
            .await;
        let mut moved = Moved::default();
        for result in results {
            let (hash, sent) = result?;
            if let Some(len) = sent.filter(|&l| l > 0) {
                moved.count += 1;
                moved.bytes += len;
            }
            known.insert(hash);
        }
        Ok(moved)
    }

    /// Fetches the blobs of `hashes` this home does not have, each checked against its
    /// hash. Returns what moved and the blobs that could not be had (missing from the store,
    /// or damaged: named, never stored).
    pub(crate) async fn fetch_blobs(
        &self,
        hashes: &BTreeSet<String>,
    ) -> Result<(Moved, Vec<String>)> {
        let local = self.store.blobs();
        let todo: Vec<String> = hashes
            .iter()
            .filter(|h| !local.path(h).is_file())
            .cloned()
            .collect();
        let results: Vec<Result<(String, Option<u64>)>> = futures_util::stream::iter(todo)
            .map(|hash| {
                let local = local.clone();
                async move {
                    let name = self.bucket.blob_name(&hash);
                    let Some((stored, _)) = self.bucket.get_raw(&name).await? else {
                        return Ok((hash, None));
                    };
                    let plain = match self.bucket.unseal(&name, &stored) {
                        Ok(plain) if blake3::hash(&plain).to_hex().as_str() == hash => plain,
                        _ => {
                            tracing::warn!(blob = hash, "a blob in the store is damaged");
                            return Ok((hash, None));
                        }
                    };
                    local.put(&plain)?;
                    Ok((hash, Some(stored.len() as u64)))
                }
            })
            .buffer_unordered(AT_ONCE)
            .collect()
            .await;
        let mut moved = Moved::default();
        let mut missing = Vec::new();
        for result in results {
            match result? {
                (_, Some(len)) => {
                    moved.count += 1;
                    moved.bytes += len;
                }
                (hash, None) => missing.push(hash),
            }
        }
        Ok((moved, missing))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refs_come_from_blob_fields_and_manifests() {
        let dir = tempfile::tempdir().unwrap();
        let blobs = hotl_log::Blobs::new(dir.path().to_path_buf());
        let file = blobs.put(b"file").unwrap();
        let manifest = blobs
            .put(format!("{{\"files\":[{{\"path\":\"a\",\"blob\":\"{file}\"}}]}}").as_bytes())
            .unwrap();
        let other = "a".repeat(64);
        let lines = format!(
            "{{\"seq\":1,\"type\":\"tool_result\",\"blob\":\"{other}\"}}\n{{\"seq\":2,\"type\":\"snapshot\",\"tree\":\"manifest:{manifest}\"}}\n{{\"seq\":3,\"type\":\"user\"}}\n"
        );
        let refs = refs_in(lines.as_bytes(), &blobs);
        assert_eq!(refs, BTreeSet::from([file, manifest, other]));
    }
}
