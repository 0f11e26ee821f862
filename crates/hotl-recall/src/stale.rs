//! Staleness: which files an archived thread touched have changed since, and how hits are
//! rendered for the model and the shell.

use std::path::Path;

use crate::types::{Hit, Thread};

/// The files `thread` touched whose content differs now from what the thread last saw or left,
/// or which are gone (or, recorded as absent, exist now), in order of first touch. Relative
/// paths are resolved against `root`; paths under `root` are named relative to it. A touch's hash is the first 32 hex characters of the
/// blake3 of the content (a longer or shorter recorded hash is compared as a prefix).
pub fn staleness(thread: &Thread, root: &Path) -> Vec<String> {
    // The last touch of each path is what the thread left.
    let mut last: Vec<(&str, Option<&str>)> = Vec::new();
    for touch in &thread.files {
        match last.iter_mut().find(|(p, _)| *p == touch.path) {
            Some(entry) => entry.1 = touch.hash.as_deref(),
            None => last.push((&touch.path, touch.hash.as_deref())),
        }
    }
    last.into_iter()
        .filter(|(path, hash)| hotl_log::FileTouch::changed_since(*hash, &root.join(path)))
        // Shown relative to the root when under it, as the user and the model think of them.
        .map(|(path, _)| {
            Path::new(path)
                .strip_prefix(root)
                .ok()
                .filter(|rel| !rel.as_os_str().is_empty())
                .map_or_else(|| path.to_owned(), |rel| rel.display().to_string())
        })
        .collect()
}

/// [`render_hits`], except that a search of an archive holding no thread says so rather than
/// `no matches` (the main line's outputs, searched too, are no thread: they have no handle).
pub fn render_search(archive: &crate::Archive, hits: &[Hit]) -> String {
    if hits.is_empty() && archive.threads().iter().all(|t| t.handle.is_empty()) {
        return "no matches; nothing is archived yet (recall searches folded and compacted \
                spans, forks, earlier asks and this session's tool outputs)\n"
            .to_owned();
    }
    render_hits(hits)
}

/// What the model and the shell see: one block per hit, `[<handle> t<seq> <kind>] <line>`
/// (`[t<seq> <kind>]` for the main line, which has no handle), followed by `  stale: <files>
/// changed since` when files the thread touched changed. `no matches` when there are none.
pub fn render_hits(hits: &[Hit]) -> String {
    if hits.is_empty() {
        return "no matches\n".to_owned();
    }
    let mut out = String::new();
    for hit in hits {
        let handle = if hit.handle.is_empty() {
            String::new()
        } else {
            format!("{} ", hit.handle)
        };
        out.push_str(&format!(
            "[{handle}t{} {}] {}\n",
            hit.seq, hit.kind, hit.line
        ));
        if !hit.stale.is_empty() {
            out.push_str(&format!(
                "  stale: {} changed since\n",
                hit.stale.join(", ")
            ));
        }
    }
    out
}
