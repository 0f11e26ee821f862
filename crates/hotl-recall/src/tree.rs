//! The whole archive a session can search: its persisted index (folded and compacted spans,
//! earlier asks) plus the work of the sessions delegated from its history (forks), each one
//! thread under its handle.
//!
//! A fork's thread is cached as its own segment, `index/recall/<child>.fork-<size>.seg`, with a
//! header `<child>.fork.json` naming the thread and the log's size and pin hash when indexed: a
//! finished fork is indexed once, and a fork whose log changed since is indexed again. Like
//! every index file, both are derived and may be deleted at any time.

use std::fs;
use std::path::Path;

use hotl_log::{Delegated, Store, pin_hash};
use serde::{Deserialize, Serialize};

use crate::archive::{Archive, delegated_thread};
use crate::error::Result;
use crate::persist::{create_dir, open_index, write_atomic};
use crate::segment::Segment;
use crate::types::Thread;

/// The fork cache header's format; any other is rebuilt.
const FORK_FORMAT: u32 = 1;

#[derive(Serialize, Deserialize)]
struct ForkHeader {
    format: u32,
    /// The log's size when indexed, and `pin_hash` of it at that size.
    size: u64,
    hash: String,
    thread: Thread,
}

/// Opens everything session `id` can recall: [`open_index`]'s archive, and one thread per
/// delegated session it can see (its own records, with its task as the note). A delegated
/// session without a handle is known by the first 8 characters of its id.
pub fn open_archive(store: &Store, id: &str) -> Result<Archive> {
    let mut archive = open_index(store, id)?;
    let dir = store.index_dir().join("recall");
    for child in store.visible_delegated(id)? {
        if let Some((thread, segment)) = fork_thread(store, &dir, &child) {
            archive.add_thread(thread, segment);
        }
    }
    Ok(archive)
}

/// A fork's thread and segment: from its cache when that still fits its log, else indexed from
/// the log (and cached when the index directory can be written). `None` when its log cannot be
/// read or holds nothing.
fn fork_thread(store: &Store, dir: &Path, child: &Delegated) -> Option<(Thread, Segment)> {
    let log = store.log_path(&child.id);
    let size = fs::metadata(&log).ok()?.len();
    // The segment is named by the log size it indexes, so a header always names a segment of
    // its own size even when two processes cache the same fork at once.
    let seg_path = |size: u64| dir.join(format!("{}.fork-{size}.seg", child.id));
    let head_path = dir.join(format!("{}.fork.json", child.id));
    let cached = fs::read(&head_path)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<ForkHeader>(&bytes).ok())
        .filter(|h| h.format == FORK_FORMAT && h.size == size)
        .filter(|h| pin_hash(&log, h.size).is_ok_and(|hash| hash == h.hash));
    if let Some(header) = cached
        && let Ok(Ok(segment)) = Segment::open(&seg_path(header.size))
    {
        return Some((header.thread, segment));
    }
    // Its own log only: what it inherited is the parent's, archived (or not) there.
    let own = store.read(&child.id).ok()?;
    let handle = child
        .delegation
        .handle
        .clone()
        .unwrap_or_else(|| child.id[..8].to_owned());
    let (thread, segment) = delegated_thread(
        &handle,
        &child.delegation.description,
        &own.records,
        Some(&store.blobs()),
    )?;
    // Cache only what matches the file as it is: a log that grew while it was read is
    // indexed again next time.
    let header = ForkHeader {
        format: FORK_FORMAT,
        size: own.bytes,
        hash: pin_hash(&log, own.bytes).ok()?,
        thread,
    };
    let seg_path = seg_path(own.bytes);
    let saved = create_dir(dir).is_ok()
        && write_atomic(&seg_path, |w| segment.write_to(w)).is_ok()
        && serde_json::to_vec(&header).ok().is_some_and(|json| {
            write_atomic(&head_path, |w| std::io::Write::write_all(w, &json)).is_ok()
        });
    if saved {
        remove_other_segments(dir, &child.id, &seg_path);
    }
    let segment = if saved {
        match Segment::open(&seg_path) {
            Ok(Ok(disk)) => disk,
            _ => segment,
        }
    } else {
        segment
    };
    Some((header.thread, segment))
}

/// Deletes the cached segments of fork `id` other than `keep` (of sizes its log has passed).
/// Best-effort: a failure costs disk only, and gc removes them with the fork.
fn remove_other_segments(dir: &Path, id: &str, keep: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let prefix = format!("{id}.fork-");
    for entry in entries.flatten() {
        let path = entry.path();
        let ours = entry
            .file_name()
            .to_str()
            .is_some_and(|n| n.starts_with(&prefix) && n.ends_with(".seg"));
        if ours && path != keep {
            let _ = fs::remove_file(path);
        }
    }
}
