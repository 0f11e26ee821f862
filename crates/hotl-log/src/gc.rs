//! Dropping sessions and collecting garbage, never touching history a kept session needs.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::io::BufRead;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use serde::Serialize;

use crate::blob::blob_refs;
use crate::clock::format_ts;
use crate::error::{IoResultExt, LogError, Result};
use crate::fsutil;
use crate::meta::SessionMeta;
use crate::record::Body;
use crate::store::Store;
use crate::write::remove_session_files;

/// What `drop` did.
#[derive(Debug, PartialEq, Eq)]
pub enum Dropped {
    /// The session's files are gone.
    Deleted,
    /// Other sessions descend from it: it is hidden and kept until gc finds none left.
    Tombstoned {
        /// The sessions forked from it.
        descendants: Vec<String>,
    },
}

/// Settings of a gc run.
#[derive(Clone, Copy, Debug)]
pub struct GcOptions {
    /// Sessions with no activity for this long go.
    pub older_than: Duration,
    /// Only report.
    pub dry_run: bool,
    /// Blobs and temp files younger than this stay (a writer may be about to reference them).
    pub grace: Duration,
}

impl Default for GcOptions {
    fn default() -> Self {
        GcOptions {
            older_than: Duration::from_secs(30 * 24 * 3600),
            dry_run: false,
            grace: Duration::from_secs(3600),
        }
    }
}

/// One session gc removes (or would).
#[derive(Clone, Debug, Serialize)]
pub struct GcSession {
    /// Its id.
    pub id: String,
    /// Why: `old` or `dropped`.
    pub reason: &'static str,
    /// What its files took: the log, its summary and its delegated sessions.
    pub bytes: u64,
}

/// What a gc run removed (or, dry, would remove) and what it spared.
#[derive(Clone, Debug, Default, Serialize)]
pub struct GcReport {
    /// Sessions removed.
    pub sessions: Vec<GcSession>,
    /// Blobs removed, with their sizes.
    pub blobs: Vec<(String, u64)>,
    /// Stale derived files removed.
    pub derived: Vec<PathBuf>,
    /// Old sessions kept because a kept session descends from them.
    pub kept_for_descendants: Vec<String>,
    /// Old sessions kept because another process owns them.
    pub spared_owned: Vec<String>,
    /// Everything removed (or, dry, that would be) took this many bytes: sessions, blobs and
    /// derived files.
    pub freed_bytes: u64,
}

impl Store {
    /// Deletes a session, or tombstones it when other sessions descend from it.
    pub fn drop_session(&self, id: &str) -> Result<Dropped> {
        let metas = self.list()?;
        // A fork of a session delegated inside this tree descends from it too.
        let mut descendants: Vec<String> = metas
            .iter()
            .filter(|m| m.id != id)
            .filter(|m| {
                m.parent
                    .as_ref()
                    .is_some_and(|p| p.session == id || self.root_of(&p.session) == id)
            })
            .map(|m| m.id.clone())
            .collect();
        // A delegated session's own delegated sessions live in the same tree and pin into it.
        let root = self.root_of(id);
        if root != id {
            for child in self.tree_children(&root)? {
                // A clean delegated session has no pin but names its delegating session.
                let pinned_here = self.read_start(&child).ok().is_some_and(|s| {
                    let clean_by = s.delegated.filter(|d| d.at.is_some()).map(|d| d.by);
                    s.parent.map(|p| p.session).or(clean_by).as_deref() == Some(id)
                });
                if pinned_here {
                    descendants.push(child);
                }
            }
        }
        if descendants.is_empty() {
            let _lock = self.lock(id)?;
            remove_session_files(self, id)?;
            return Ok(Dropped::Deleted);
        }
        self.writer(id)?.append(Body::Drop)?;
        Ok(Dropped::Tombstoned { descendants })
    }

    /// Removes old and dropped sessions no kept session descends from, blobs no kept session
    /// references, and derived files whose session is gone.
    pub fn gc(&self, opts: GcOptions) -> Result<GcReport> {
        let now = self.clock().now();
        // An age past the epoch (`--older-than 100y`) means nothing is old enough.
        let cutoff = format_ts(
            now.checked_sub(opts.older_than)
                .filter(|t| *t >= SystemTime::UNIX_EPOCH)
                .unwrap_or(SystemTime::UNIX_EPOCH),
        );
        let metas = self.list()?;
        let by_id: HashMap<&str, &SessionMeta> = metas.iter().map(|m| (m.id.as_str(), m)).collect();
        // A tree is as young as its youngest session: work resumed in a delegated session
        // keeps its root.
        let mut tree_activity: HashMap<String, String> = HashMap::new();
        for root in self.tree_roots()? {
            for child in self.tree_children(&root)? {
                if let Ok(meta) = self.meta(&child) {
                    let latest = tree_activity.entry(root.clone()).or_default();
                    if meta.updated > *latest {
                        *latest = meta.updated;
                    }
                }
            }
        }
        let candidate = |m: &SessionMeta| {
            m.dropped
                || (m.updated < cutoff
                    && tree_activity.get(&m.id).is_none_or(|child| *child < cutoff))
        };

        let mut kept: HashSet<&str> = HashSet::new();
        let mut report = GcReport::default();
        for meta in metas.iter().filter(|m| !candidate(m)) {
            kept.insert(&meta.id);
            let mut parent = meta.parent.as_ref();
            while let Some(p) = parent {
                // A pin into a delegated session keeps the whole tree holding it.
                let root = self.root_of(&p.session);
                let Some(ancestor) = by_id.get(root.as_str()) else {
                    break;
                };
                if !kept.insert(&ancestor.id) {
                    break;
                }
                if candidate(ancestor) {
                    report.kept_for_descendants.push(ancestor.id.clone());
                }
                parent = ancestor.parent.as_ref();
            }
        }

        let doomed: Vec<&SessionMeta> = metas
            .iter()
            .filter(|m| !kept.contains(m.id.as_str()))
            .collect();
        for meta in doomed {
            if self.is_owned(&meta.id) {
                report.spared_owned.push(meta.id.clone());
                kept.insert(&meta.id);
                continue;
            }
            let bytes = fsutil::bytes_on_disk(&self.log_path(&meta.id))
                + fsutil::bytes_on_disk(&self.meta_path(&meta.id))
                + fsutil::bytes_on_disk(&self.tree_dir(&meta.id));
            if !opts.dry_run {
                let lock = match self.lock(&meta.id) {
                    Ok(lock) => lock,
                    Err(LogError::Locked { .. }) => {
                        report.spared_owned.push(meta.id.clone());
                        kept.insert(&meta.id);
                        continue;
                    }
                    Err(e) => return Err(e),
                };
                remove_session_files(self, &meta.id)?;
                drop(lock);
                fsutil::remove_file_if_exists(&self.lock_path(&meta.id))?;
            }
            report.sessions.push(GcSession {
                id: meta.id.clone(),
                reason: if meta.dropped { "dropped" } else { "old" },
                bytes,
            });
            report.freed_bytes += bytes;
        }

        let young = |path: &std::path::Path| {
            fs::metadata(path)
                .and_then(|m| m.modified())
                .is_ok_and(|t| now.duration_since(t).unwrap_or_default() < opts.grace)
        };
        let mut referenced = HashSet::new();
        for id in &kept {
            self.collect_blob_refs(id, &mut referenced)?;
            for child in self.tree_children(id)? {
                self.collect_blob_refs(&child, &mut referenced)?;
            }
        }
        for (hash, path) in self.blobs().list()? {
            if referenced.contains(&hash) || young(&path) {
                continue;
            }
            let bytes = fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
            if !opts.dry_run {
                fsutil::remove_file_if_exists(&path)?;
            }
            report.freed_bytes += bytes;
            report.blobs.push((hash, bytes));
        }

        for path in self.stale_derived()? {
            // A young temp file or hole marker may be a write about to complete: a log with a
            // hole appears after its marker.
            if young(&path) && path.extension().is_some_and(|e| e == "tmp" || e == "hole") {
                continue;
            }
            report.freed_bytes += fsutil::bytes_on_disk(&path);
            if !opts.dry_run {
                if path.is_dir() {
                    fs::remove_dir_all(&path).at(&path)?;
                } else {
                    fsutil::remove_file_if_exists(&path)?;
                }
            }
            report.derived.push(path);
        }
        Ok(report)
    }

    fn collect_blob_refs(&self, id: &str, out: &mut HashSet<String>) -> Result<()> {
        let path = self.log_path(id);
        let file = match fs::File::open(&path) {
            Ok(file) => file,
            // Removed since it was listed: it references nothing any more.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e).at(&path),
        };
        let mut reader = std::io::BufReader::new(file);
        let mut line = Vec::new();
        let mut found = Vec::new();
        // What a log's hole references is kept where its bytes are.
        let hole = self.hole(id);
        let mut at = 0u64;
        loop {
            if let Some(hole) = &hole
                && at == hole.from
            {
                std::io::Seek::seek(&mut reader, std::io::SeekFrom::Start(hole.to)).at(&path)?;
                at = hole.to;
            }
            line.clear();
            let n = reader.read_until(b'\n', &mut line).at(&path)?;
            if n == 0 {
                break;
            }
            at += n as u64;
            let manifest = contains(&line, SNAPSHOT_MANIFEST.as_bytes());
            if !contains(&line, b"blob\"") && !manifest {
                continue;
            }
            let Ok(value) = serde_json::from_slice::<serde_json::Value>(&line) else {
                continue;
            };
            blob_refs(&value, &mut found);
            // A snapshot outside git names a manifest blob, which names the files' blobs.
            if let Some(hash) = value
                .get("tree")
                .and_then(|t| t.as_str())
                .and_then(|t| t.strip_prefix(SNAPSHOT_MANIFEST))
            {
                found.push(hash.to_owned());
                if let Some(listed) = self
                    .blobs()
                    .get(hash)
                    .ok()
                    .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
                {
                    blob_refs(&listed, &mut found);
                }
            }
        }
        out.extend(found);
        Ok(())
    }

    /// Derived files whose session is gone: caches, locks, trees and temp files.
    fn stale_derived(&self) -> Result<Vec<PathBuf>> {
        let dir = self.sessions_dir();
        let Ok(entries) = fs::read_dir(&dir) else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for entry in entries {
            let path = entry.at(&dir)?.path();
            let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            let stale = if let Some(id) = name.strip_suffix(".meta.json") {
                !self.exists(id)
            } else if let Some(id) = name.strip_suffix(".lock") {
                !self.exists(id) && !self.is_owned(id)
            } else if let Some(id) = name.strip_suffix(".jsonl.hole") {
                // A hole's marker whose log is gone (a pull cut short before the log appeared).
                !self.exists(id)
            } else if name.ends_with(".tmp") {
                true
            } else if path.is_dir() {
                !self.exists(name)
            } else {
                false
            };
            if stale {
                out.push(path);
            }
        }
        // Derived indexes of later layers name their files after the session
        // (`index/recall/<id>.idx`, `<id>-<hex>.seg`, `index/trees/<id>.index`,
        // `index/views/<id>.json`).
        for sub in ["recall", "trees", "views"] {
            let dir = self.index_dir().join(sub);
            let Ok(entries) = fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries {
                let path = entry.at(&dir)?.path();
                let id = path
                    .file_name()
                    .and_then(|n| n.to_str())
                    .and_then(|n| n.get(..26))
                    .filter(|id| crate::store::is_session_id(id));
                if let Some(id) = id
                    && !self.exists(id)
                {
                    out.push(path);
                }
            }
        }
        out.sort();
        Ok(out)
    }
}

/// How a `snapshot` record taken outside git names its tree: `manifest:<blob hash>`.
const SNAPSHOT_MANIFEST: &str = "manifest:";

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}
