//! The whole archive a session can search: its persisted index (folded and compacted spans,
//! earlier asks) plus the work of the sessions delegated from its history (forks), each one
//! thread under its handle, and within it the threads its own log archived (a fork can fold
//! inside itself, so the archive is a tree; search runs flat over all of it and names each
//! line's innermost thread).
//!
//! A fork's threads are cached as its own segment, `index/recall/<child>.fork-<size>.seg`, with
//! a header `<child>.fork.json` naming the threads, the owner of each document, and the log's
//! size and pin hash when indexed: a finished fork is indexed once, and a fork whose log changed
//! since (or whose header is of another format) is indexed again. Like every index file, both
//! are derived and may be deleted at any time; one found damaged while searching is deleted,
//! and [`search_archive`] then opens the archive again, rebuilding it, and searches once more.

use std::fs;
use std::path::Path;

use hotl_log::{Delegated, Store};
use serde::{Deserialize, Serialize};

use crate::archive::{Archive, Subtree, delegated_thread};
use crate::error::{RecallError, Result};
use crate::persist::{create_dir, open_index, write_atomic};
use crate::segment::Segment;
use crate::types::{Hit, Mode, Thread};

/// The fork cache header's format; any other is rebuilt.
const FORK_FORMAT: u32 = 4;

#[derive(Serialize, Deserialize)]
struct ForkHeader {
    format: u32,
    /// The log's size when indexed, and `pin_hash` of it at that size.
    size: u64,
    hash: String,
    /// The fork's thread, then the threads its own log archived.
    threads: Vec<Thread>,
    /// Per thread: whether it is an earlier ask.
    asks: Vec<bool>,
    /// The owner (an index into `threads`) of each document of the segment, in document
    /// order, as runs of `[owner, count]`.
    owners: Vec<[u32; 2]>,
}

impl ForkHeader {
    /// The per-document owners, when they fit `segment` and the threads.
    fn owners(&self, segment: &Segment) -> Option<Vec<u32>> {
        let mut out = Vec::with_capacity(segment.n_docs());
        for &[owner, count] in &self.owners {
            if owner as usize >= self.threads.len() || out.len() + count as usize > segment.n_docs()
            {
                return None;
            }
            out.extend(std::iter::repeat_n(owner, count as usize));
        }
        (out.len() == segment.n_docs() && self.asks.len() == self.threads.len()).then_some(out)
    }
}

/// `owners` as runs of `[owner, count]`.
fn runs(owners: &[u32]) -> Vec<[u32; 2]> {
    let mut out: Vec<[u32; 2]> = Vec::new();
    for &o in owners {
        match out.last_mut() {
            Some([last, count]) if *last == o => *count += 1,
            _ => out.push([o, 1]),
        }
    }
    out
}

/// Opens everything session `id` can recall: [`open_index`]'s archive, and for each delegated
/// session it can see a thread of its own records (with its task as the note) plus the threads
/// its own log archived (see [`Archive::add_delegated`]). A delegated session without a handle
/// is known by the first 8 characters of its id.
pub fn open_archive(store: &Store, id: &str) -> Result<Archive> {
    let mut archive = open_index(store, id)?;
    let dir = store.derived_dir("recall");
    let delegated = store.visible_delegated(id)?;
    for child in &delegated {
        if let Some(subtree) = fork_thread(store, &dir, child) {
            archive.add_subtree(subtree, outermost_pin(&delegated, child));
        }
    }
    Ok(archive)
}

/// Where `child`'s work sits in the history of the session that sees `delegated`: its pin, or
/// for a fork of a fork, the pin of the outermost fork (a child's seqs continue from its pin,
/// so within that place a fork's records and its own forks' still order by seq).
fn outermost_pin(delegated: &[Delegated], child: &Delegated) -> u64 {
    let mut at = child;
    for _ in 0..delegated.len() {
        match delegated.iter().find(|d| d.id == at.pinned_in) {
            Some(parent) => at = parent,
            None => break,
        }
    }
    at.pinned_at
}

/// Opens session `id`'s archive ([`open_archive`]) and searches it ([`Archive::search`]). An
/// index file found damaged during the search is deleted and does not fail the call: the
/// archive is opened again (rebuilding what was deleted) and searched once more. Returns the
/// archive searched, for what else the caller asks of it.
pub fn search_archive(
    store: &Store,
    id: &str,
    query: &str,
    mode: Mode,
    limit: usize,
) -> Result<(Archive, Vec<Hit>)> {
    search_opened(store, id, |archive| {
        let hits = archive.search(query, mode, limit);
        (archive, hits)
    })
}

/// What the model's `recall` searches: [`search_archive`]'s archive plus the tool outputs of
/// the session's main line, whole ([`Archive::with_live_outputs`]). A damaged index file is
/// rebuilt and searched again, as in [`search_archive`].
pub fn search_recall(
    store: &Store,
    id: &str,
    query: &str,
    mode: Mode,
    limit: usize,
) -> Result<(Archive, Vec<Hit>)> {
    search_opened(store, id, |archive| {
        let archive = archive.with_live_outputs();
        let hits = archive.search(query, mode, limit);
        (archive, hits)
    })
}

/// Opens session `id`'s archive and runs `search` on it; an index file found damaged during
/// the search (deleted by the search) is rebuilt by opening the archive again, and searched
/// once more.
fn search_opened(
    store: &Store,
    id: &str,
    search: impl Fn(Archive) -> (Archive, Result<Vec<Hit>>),
) -> Result<(Archive, Vec<Hit>)> {
    let (archive, hits) = search(open_archive(store, id)?);
    match hits {
        Ok(hits) => Ok((archive, hits)),
        Err(RecallError::Corrupt { .. }) => {
            drop(archive);
            let (archive, hits) = search(open_archive(store, id)?);
            Ok((archive, hits?))
        }
        Err(e) => Err(e),
    }
}

/// Searches session `id`'s whole text: its main line after seq `after` (see
/// [`Archive::with_main_line`]; a hit there has an empty handle) and everything
/// [`open_archive`] opens. An index file found damaged is rebuilt and searched again, as in
/// [`search_archive`].
pub fn search_whole(
    store: &Store,
    id: &str,
    after: u64,
    query: &str,
    mode: Mode,
    limit: usize,
) -> Result<Vec<Hit>> {
    let search = || {
        open_archive(store, id)?
            .with_main_line(after)
            .search(query, mode, limit)
    };
    match search() {
        Err(RecallError::Corrupt { .. }) => search(),
        other => other,
    }
}

/// A fork's threads and segment: from its cache when that still fits its log, else indexed from
/// the log (and cached when the index directory can be written). `None` when its log cannot be
/// read or holds nothing.
fn fork_thread(store: &Store, dir: &Path, child: &Delegated) -> Option<Subtree> {
    let size = store.log_size(&child.id).ok()?;
    // The segment is named by the log size it indexes, so a header always names a segment of
    // its own size even when two processes cache the same fork at once.
    let seg_path = |size: u64| dir.join(format!("{}.fork-{size}.seg", child.id));
    let head_path = dir.join(format!("{}.fork.json", child.id));
    let cached = fs::read(&head_path)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<ForkHeader>(&bytes).ok())
        .filter(|h| h.format == FORK_FORMAT && h.size == size)
        .filter(|h| {
            store
                .log_hash(&child.id, h.size)
                .is_ok_and(|hash| hash == h.hash)
        });
    if let Some(header) = cached
        && let Ok(Ok(segment)) = Segment::open(&seg_path(header.size))
        && let Some(owners) = header.owners(&segment)
    {
        return Some(Subtree {
            threads: header.threads,
            asks: header.asks,
            owners,
            segment,
        });
    }
    // Its own log only: what it inherited is the parent's, archived (or not) there.
    let own = store.read(&child.id).ok()?;
    let handle = child
        .delegation
        .handle
        .clone()
        .unwrap_or_else(|| child.id[..8].to_owned());
    let subtree = delegated_thread(
        &handle,
        &child.delegation.description,
        &own.records,
        Some(&store.blobs()),
    )?;
    // Cache only what matches the file as it is: a log that grew while it was read is
    // indexed again next time.
    let Ok(hash) = store.log_hash(&child.id, own.bytes) else {
        return Some(subtree);
    };
    let header = ForkHeader {
        format: FORK_FORMAT,
        size: own.bytes,
        hash,
        threads: subtree.threads,
        asks: subtree.asks,
        owners: runs(&subtree.owners),
    };
    let segment = subtree.segment;
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
    Some(Subtree {
        threads: header.threads,
        asks: header.asks,
        owners: subtree.owners,
        segment,
    })
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
