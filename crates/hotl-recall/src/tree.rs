//! The whole archive a session can search: its persisted index (folded and compacted spans,
//! earlier asks) plus the work of the sessions delegated from its history (forks), each one
//! thread under its handle.
//!
//! Delegated sessions are indexed in memory when the archive opens: they are short-lived side
//! tasks, small next to a main line, and their logs may still be growing.

use hotl_log::Store;

use crate::archive::Archive;
use crate::error::Result;
use crate::persist::open_index;

/// Opens everything session `id` can recall: [`open_index`]'s archive, and one thread per
/// delegated session it can see (its own records, with its task as the note). A delegated
/// session without a handle is known by the first 8 characters of its id.
pub fn open_archive(store: &Store, id: &str) -> Result<Archive> {
    let mut archive = open_index(store, id)?;
    let blobs = store.blobs();
    for child in store.visible_delegated(id)? {
        let Ok(lineage) = store.lineage(&child.id) else {
            continue;
        };
        let handle = child
            .delegation
            .handle
            .clone()
            .unwrap_or_else(|| child.id[..8].to_owned());
        archive.add_delegated(
            &handle,
            &child.delegation.description,
            lineage.own(),
            Some(&blobs),
        );
    }
    Ok(archive)
}
