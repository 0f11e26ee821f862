//! Putting the code back with the conversation: the files the turns after a point changed,
//! as the working-tree snapshots show (whichever tool changed them, `bash` included), put
//! back as they were at that point. A file changed since hotl last saw it (by the user, an
//! editor, another program) is never overwritten: it is named and kept.

use std::path::Path;

use hotl_log::{Blobs, Body, Record};
use hotl_protocol::{FileRewound, Rewound};

use super::{Snapshotter, git, manifest};

/// The snapshot the tree had at the end of the record at `to`, and the latest one; `None` when
/// either is missing or they are the same. The tree then is the last snapshot at or before
/// `to`; with none (the turns before only talked), the first one after it, which hotl takes
/// before a step changes anything.
pub(crate) fn trees_since(records: &[Record], to: u64) -> Option<(&str, &str)> {
    let target = tree_at(records, to)?;
    let latest = records.iter().rev().find_map(snapshot)?;
    (target != latest).then_some((target, latest))
}

/// The snapshot the tree had at the end of the record at `seq`: the last one at or before it,
/// else the first after it (taken before a step changed anything).
pub(crate) fn tree_at(records: &[Record], seq: u64) -> Option<&str> {
    let at = records.iter().rposition(|r| r.seq <= seq)?;
    records[..=at]
        .iter()
        .rev()
        .find_map(snapshot)
        .or_else(|| records[at..].iter().find_map(snapshot))
}

fn snapshot(r: &Record) -> Option<&str> {
    match &r.body {
        Body::Snapshot { tree } => Some(tree.as_str()),
        _ => None,
    }
}

/// The trees of the last `restore` in `records`: before it and after it (what an undo puts
/// back, and what it expects on disk).
pub(crate) fn last_restore(records: &[Record]) -> Option<(&str, &str)> {
    records.iter().rev().find_map(|r| match &r.body {
        Body::Restore { before, after, .. } => Some((before.as_str(), after.as_str())),
        _ => None,
    })
}

/// Puts back code for a session that is not open here (`hotl sessions revert`), through its
/// `writer`: with `to`, the files changed after that stamp, as the snapshot then held them;
/// without, the undo of the last restore. The tree is snapshotted before and after, and the
/// restore recorded, as an open session does it.
pub fn revert_files(
    store: &hotl_log::Store,
    writer: &mut hotl_log::Writer,
    cwd: &Path,
    to: Option<u64>,
) -> Result<Vec<FileRewound>, String> {
    let id = writer.id().to_owned();
    let blobs = store.blobs();
    let mut snapshotter = Snapshotter::new(store.derived_dir("trees").join(format!("{id}.index")));
    let mut record_tree = |writer: &mut hotl_log::Writer| -> Result<Option<String>, String> {
        let Some(tree) = snapshotter.take(cwd, &blobs) else {
            return Ok(None);
        };
        let lineage = store.lineage(&id).map_err(|e| e.to_string())?;
        let last = lineage.records.iter().rev().find_map(|r| match &r.body {
            Body::Snapshot { tree } => Some(tree.as_str()),
            _ => None,
        });
        if last != Some(tree.as_str()) {
            writer
                .append(Body::Snapshot { tree: tree.clone() })
                .map_err(|e| e.to_string())?;
        }
        Ok(Some(tree))
    };
    // The trees as hotl last saw them, before the tree now is recorded: a file that differs
    // from what hotl last saw was changed by someone else, and is kept.
    let lineage = store.lineage(&id).map_err(|e| e.to_string())?;
    let (target, latest) = match to {
        Some(to) => match trees_since(&lineage.records, to) {
            Some(trees) => trees,
            None => return Ok(Vec::new()),
        },
        None => last_restore(&lineage.records)
            .ok_or("no code was put back in this session, so there is nothing to undo")?,
    };
    let before = record_tree(writer)?;
    let files = rewind(cwd, &blobs, target, latest, true)?;
    let after = record_tree(writer)?;
    if let (Some(before), Some(after)) = (before, after)
        && before != after
    {
        writer
            .append(Body::Restore { to, before, after })
            .map_err(|e| e.to_string())?;
    }
    Ok(files)
}

/// For each user message `seqs` of session `id`, the files the turns from it on changed (what
/// a revert to just before it puts back); an empty list where the snapshots cannot say.
pub fn changed_from(
    store: &hotl_log::Store,
    id: &str,
    cwd: &Path,
    seqs: &[u64],
) -> Vec<Vec<String>> {
    let Ok(lineage) = store.lineage(id) else {
        return vec![Vec::new(); seqs.len()];
    };
    let blobs = store.blobs();
    seqs.iter()
        .map(|seq| {
            trees_since(&lineage.records, seq.saturating_sub(1))
                .and_then(|(target, latest)| Snapshotter::changed(cwd, target, latest, &blobs))
                .unwrap_or_default()
        })
        .collect()
}

/// What putting back the files changed between snapshot `target` and snapshot `latest` does
/// to the tree at `cwd`, file by file; `apply` does it, else it is only said.
pub(crate) fn rewind(
    cwd: &Path,
    blobs: &Blobs,
    target: &str,
    latest: &str,
    apply: bool,
) -> Result<Vec<FileRewound>, String> {
    let paths = Snapshotter::changed(cwd, target, latest, blobs).ok_or(
        "the snapshots cannot be compared (the directory changed kind, or a snapshot is gone)",
    )?;
    let last_seen = Snapshotter::content_hashes(cwd, latest, &paths, blobs)
        .ok_or("the latest snapshot cannot be read")?;
    let wanted =
        contents(cwd, target, &paths, blobs).ok_or("the earlier snapshot cannot be read")?;
    let mut files = Vec::with_capacity(paths.len());
    for ((path, seen), wanted) in paths.into_iter().zip(last_seen).zip(wanted) {
        let file = cwd.join(&path);
        let now = std::fs::read(&file)
            .ok()
            .map(|bytes| blake3::hash(&bytes).to_hex().to_string());
        let what = if now != seen {
            Rewound::Kept("changed since hotl last saw it".to_owned())
        } else {
            match wanted {
                Wanted::Gone => Rewound::Removed,
                Wanted::Bytes(_) => Rewound::Restored,
                Wanted::NotStored => Rewound::Kept("its earlier content was not stored".to_owned()),
            }
        };
        let what = match (apply, &what, wanted) {
            (true, Rewound::Removed, _) => match std::fs::remove_file(&file) {
                Ok(()) => what,
                Err(e) => Rewound::Kept(format!("cannot be removed: {e}")),
            },
            (true, Rewound::Restored, Wanted::Bytes(bytes)) => {
                let made = match file.parent() {
                    Some(dir) => std::fs::create_dir_all(dir),
                    None => Ok(()),
                };
                match made.and_then(|()| hotl_log::write_file_atomic(&file, &bytes)) {
                    Ok(()) => what,
                    Err(e) => Rewound::Kept(format!("cannot be written: {e}")),
                }
            }
            _ => what,
        };
        files.push(FileRewound { path, what });
    }
    Ok(files)
}

/// A file as a snapshot held it.
enum Wanted {
    Bytes(Vec<u8>),
    /// Not in the snapshot.
    Gone,
    /// In it, but only as a hash (a large file) or a link's target.
    NotStored,
}

/// The content each of `paths` had in snapshot `tree`.
fn contents(cwd: &Path, tree: &str, paths: &[String], blobs: &Blobs) -> Option<Vec<Wanted>> {
    if let Some(hash) = tree.strip_prefix(manifest::ID_PREFIX) {
        let entries = manifest::load(blobs, hash)?;
        return Some(
            paths
                .iter()
                .map(|path| match entries.iter().find(|e| e.path == *path) {
                    None => Wanted::Gone,
                    Some(entry) => match &entry.content {
                        manifest::Content::Blob(h) => {
                            blobs.get(h).map_or(Wanted::NotStored, Wanted::Bytes)
                        }
                        _ => Wanted::NotStored,
                    },
                })
                .collect(),
        );
    }
    let found = git::contents(cwd, tree, paths)?;
    Some(
        found
            .into_iter()
            .map(|c| c.map_or(Wanted::Gone, Wanted::Bytes))
            .collect(),
    )
}
