//! Opening a session from the store without its archive. A session's view checkpoint (what
//! opening it computes, pinned to its log by offset, seq and hash: docs/log-format.md) is
//! published beside its segments as `trees/<root>/<session>/view`, with the log's first line.
//! A home that has never seen the session fetches that object and the segments from the
//! checkpoint's pin on, and writes the log at its full length with the archived middle left
//! as a hole ([`hotl_log::Hole`]); the session opens from the checkpoint and the tail, and
//! the middle is fetched the first time anything reads it ([`Remote::fill`]).
//!
//! Only what the checkpoint's own checks accept is used: the pin must fall in a fetched
//! segment whose lines hash as its header says, chained to the ones after it, and the bytes
//! the pin hashes must be fetched. Anything else (no view, a redacting publisher whose
//! offsets are not the log's, a session of a single segment) falls back to a whole pull.

use std::collections::BTreeSet;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use futures_util::StreamExt;
use object_store::PutMode;
use serde::{Deserialize, Serialize};

use crate::error::{RemoteError, Result};
use crate::layout;
use crate::pull::Pulled;
use crate::remote::Remote;
use crate::segment::Segment;
use crate::state::{SessionState, TreeState};

/// The view object's format.
const FORMAT: &str = "hotl-remote-view/1";

/// How many segments are fetched at once.
const AT_ONCE: usize = 4;

/// The view object.
#[derive(Serialize, Deserialize)]
struct View {
    format: String,
    /// The log's first line (its `session` record).
    first: String,
    /// The checkpoint file, as written.
    checkpoint: String,
    /// The bytes its pin hashes (the 4 KiB of the log before the pin), base64: a home then
    /// needs no segment before the pin.
    before: String,
}

/// What this code reads of a checkpoint: its session and pin.
#[derive(Deserialize)]
struct Pinned {
    id: String,
    pin: hotl_log::Pin,
}

impl Remote {
    /// Publishes `id`'s view checkpoint when it is newer than the one published and its pin
    /// falls in what the store holds of the log. Not when publishing redacts: the offsets of
    /// redacted segments are not the log's.
    pub(crate) async fn publish_view(&self, root: &str, id: &str, state: &mut TreeState) {
        if self.redactor.is_some() {
            return;
        }
        let path = self.store.view_checkpoint_path(id);
        let Ok(checkpoint) = std::fs::read_to_string(&path) else {
            return;
        };
        let Ok(pinned) = serde_json::from_str::<Pinned>(&checkpoint) else {
            return;
        };
        let published = state.sessions.get(id).map_or(0, |s| s.offset);
        if pinned.id != id
            || pinned.pin.offset > published
            || state.views.get(id) == Some(&pinned.pin.offset)
        {
            return;
        }
        let Ok(first) = self.first_line(id) else {
            return;
        };
        let window = hotl_log::pinned_bytes(pinned.pin.offset);
        let Ok(before) = self.store.raw_range(id, window.start, window.end) else {
            return;
        };
        let view = View {
            format: FORMAT.to_owned(),
            first,
            checkpoint,
            before: BASE64.encode(before),
        };
        let name = layout::view(root, id);
        let plain = serde_json::to_vec(&view).expect("a view serializes");
        let written = match self.bucket.seal(&name, &plain) {
            Ok(sealed) => self.bucket.put_raw(&name, sealed, PutMode::Overwrite).await,
            Err(_) => return,
        };
        match written {
            Ok(_) => {
                state.views.insert(id.to_owned(), pinned.pin.offset);
            }
            // Only a shortcut: a home without it pulls the whole log.
            Err(e) => tracing::debug!("the view of {id} is not published: {e}"),
        }
    }

    /// The first line of a session's log, whole.
    fn first_line(&self, id: &str) -> Result<String> {
        let mut read = 1 << 16;
        loop {
            let bytes = self.store.raw_range(id, 0, read)?;
            if let Some(end) = bytes.iter().position(|&b| b == b'\n') {
                return String::from_utf8(bytes[..=end].to_vec())
                    .map_err(|_| RemoteError::Config(format!("{id}'s first line is not text")));
            }
            if (bytes.len() as u64) < read {
                return Err(RemoteError::Config(format!(
                    "{id}'s first line is not whole"
                )));
            }
            read *= 4;
        }
    }

    /// Pulls the tree `root`, which this home lacks, without its root session's archive
    /// (see the module docs): `None` when the store holds no usable view, for a whole pull.
    pub async fn pull_lazily(&self, root: &str) -> Result<Option<Pulled>> {
        if self.store.exists(root) || self.redactor.is_some() {
            return Ok(None);
        }
        let Some(opening) = self.read_view(root).await? else {
            return Ok(None);
        };
        let Opening {
            view,
            pin,
            before,
            segments,
            others,
            summary,
        } = opening;
        let first = view.first.len() as u64;
        let Some(tail) = self
            .fetch_tail(root, &segments, &pin, before, first)
            .await?
        else {
            return Ok(None);
        };
        let Some(meta) = summary.as_ref().and_then(|s| s.root_meta()).cloned() else {
            return Ok(None);
        };
        if meta.last_seq != tail.last {
            // The summary describes another point of the log than the segments: its counts
            // would be wrong, so the log is pulled and summarised whole.
            return Ok(None);
        }
        let mut pulled = Pulled::default();
        let refs = tail_refs(&view, &tail.body, &self.store.blobs());
        self.fetch_all_blobs(&refs, &mut pulled).await?;
        self.write_lazily(root, &view, &pin, &tail, meta, summary)?;
        pulled.roots.push(root.to_owned());
        pulled.sessions.push(root.to_owned());
        pulled.segments += tail.segments;
        pulled.bytes += tail.bytes;
        pulled.left_in_store = tail.at - first;
        // The sessions delegated inside the tree, and the trees it descends from, come whole.
        if others {
            pulled.add(self.pull(root).await?);
        }
        if let Some(parent) = self.store.read_start(root)?.parent
            && !self.store.exists(&parent.session)
            && let Some(tree) = self.ancestor_tree(&parent.session, &mut pulled).await?
        {
            pulled.add(self.pull(&tree).await?);
        }
        Ok(Some(pulled))
    }

    /// The view of `root`'s own session, checked (its checkpoint names the session, its first
    /// line starts it, the bytes before the pin hash as the pin says), with what else opening
    /// needs, read at once: the tree's segments and its summary. `None` without a usable view.
    async fn read_view(&self, root: &str) -> Result<Option<Opening>> {
        let name = layout::view(root, root);
        // Three reads that do not wait on each other; without a view the other two are
        // left unused.
        let (stored, objects, summary) = tokio::join!(
            self.bucket.get_raw(&name),
            self.tree_objects(root),
            self.summary(root)
        );
        let Some((stored, _)) = stored? else {
            return Ok(None);
        };
        let ((segments, others), summary) = (objects?, summary?);
        let view = self
            .bucket
            .unseal(&name, &stored)
            .ok()
            .and_then(|plain| serde_json::from_slice::<View>(&plain).ok())
            .filter(|v| v.format == FORMAT);
        let Some(view) = view else {
            tracing::warn!(
                "{} is not a view: the whole log is pulled",
                self.bucket.shown(&name)
            );
            return Ok(None);
        };
        let Ok(pinned) = serde_json::from_str::<Pinned>(&view.checkpoint) else {
            return Ok(None);
        };
        let before = BASE64.decode(&view.before).unwrap_or_default();
        let window = hotl_log::pinned_bytes(pinned.pin.offset);
        let whole_window = before.len() as u64 == window.end - window.start;
        if pinned.id != root
            || !starts(view.first.as_bytes(), root)
            || !whole_window
            || hotl_log::pin_hash_of(&before) != pinned.pin.hash
        {
            return Ok(None);
        }
        Ok(Some(Opening {
            view,
            pin: pinned.pin,
            before,
            segments,
            others,
            summary,
        }))
    }

    /// Writes what a lazy pull fetched: the log with its hole, the checkpoint, the summary
    /// published with it, and where the session stands in the store.
    fn write_lazily(
        &self,
        root: &str,
        view: &View,
        pin: &hotl_log::Pin,
        tail: &Tail,
        meta: hotl_log::SessionMeta,
        summary: Option<crate::summary::TreeSummary>,
    ) -> Result<()> {
        let (first, label) = (view.first.as_bytes(), self.cfg.label());
        self.store
            .create_with_hole(root, first, tail.at, &tail.body, label)?;
        self.store
            .put_view_checkpoint(root, view.checkpoint.as_bytes())?;
        let size = self.store.log_size(root)?;
        self.store.keep_summary(meta)?;
        let mut state = TreeState::default();
        state.sessions.insert(
            root.to_owned(),
            SessionState {
                offset: size,
                last: tail.last,
                hash: Some(tail.hash.clone()),
            },
        );
        state.views.insert(root.to_owned(), pin.offset);
        state
            .blobs
            .extend(summary.map(|s| s.blobs).unwrap_or_default());
        self.save_state(root, &mut state);
        Ok(())
    }

    /// Fills the hole in session `id`'s log from the store: the segments before the ones it
    /// has, checked and chained, and the blobs they reference.
    pub async fn fill(&self, id: &str) -> Result<Pulled> {
        let mut pulled = Pulled::default();
        let Some(hole) = self.store.hole(id) else {
            return Ok(pulled);
        };
        let root = self.store.root_of(id);
        let segments = self.segments_of(&root, id).await?;
        let mut body = Vec::with_capacity(hole.to.min(1 << 30) as usize);
        let mut prev: Option<String> = None;
        let mut last = 0;
        let root = root.as_str();
        let mut read =
            futures_util::stream::iter(segments)
                .map(|(start, name)| async move {
                    (start, self.read_segment(&name, root, id, start).await)
                })
                .buffered(AT_ONCE);
        while (body.len() as u64) < hole.to {
            let Some((start, segment)) = read.next().await else {
                break;
            };
            let segment = segment?;
            let first = last == 0 && prev.is_none();
            if (start != last + 1 && !first) || segment.header.prev != prev {
                return Err(RemoteError::Damaged {
                    name: self.bucket.shown(&layout::segment(root, id, start)),
                    why: "it does not follow the segment before it (replaced?)".to_owned(),
                });
            }
            last = segment.header.last;
            prev = Some(segment.header.hash.clone());
            pulled.segments += 1;
            pulled.bytes += segment.header.bytes;
            body.extend_from_slice(&segment.body);
        }
        drop(read);
        if (body.len() as u64) < hole.to {
            return Err(RemoteError::Damaged {
                name: self.bucket.shown(&layout::tree_prefix(root)),
                why: format!(
                    "its segments of {id} end before where this home's copy goes on (byte {})",
                    hole.to
                ),
            });
        }
        // What this home holds around the hole must be what the segments hold there.
        let around = |from: u64, to: u64| -> Result<bool> {
            Ok(self.store.raw_range(id, from, to)? == body[from as usize..to as usize])
        };
        if !around(0, hole.from)? || !around(hole.to, body.len() as u64)? {
            return Err(RemoteError::Diverged {
                session: id.to_owned(),
                why: "the store's copy of its archive does not fit the lines this home has"
                    .to_owned(),
            });
        }
        let middle = &body[hole.from as usize..hole.to as usize];
        let refs = crate::blobs::refs_in(middle, &self.store.blobs());
        self.fetch_all_blobs(&refs, &mut pulled).await?;
        self.store.fill_hole(id, middle)?;
        pulled.sessions.push(id.to_owned());
        Ok(pulled)
    }

    /// The segments of `root`'s own log, in order, and whether its tree holds other sessions.
    async fn tree_objects(&self, root: &str) -> Result<(Vec<(u64, String)>, bool)> {
        let mut segments = Vec::new();
        let mut others = false;
        for meta in self.bucket.list(&layout::tree_prefix(root)).await? {
            let name = self.bucket.relative(&meta.location);
            if let Some(layout::TreeObject::Segment { session, start, .. }) =
                layout::parse_tree_object(&name)
            {
                if session == root {
                    segments.push((start, name));
                } else {
                    others = true;
                }
            }
        }
        segments.sort();
        Ok((segments, others))
    }

    /// The end of `root`'s log from `before` (the bytes the pin hashes, checked) on: the
    /// segments after the pin, and the one holding it when the pin is not at its end (or is
    /// the last: the next publish names its hash). `None` when there would be nothing to leave
    /// out, or the pin is not where the segments say.
    async fn fetch_tail(
        &self,
        root: &str,
        segments: &[(u64, String)],
        pin: &hotl_log::Pin,
        before: Vec<u8>,
        first: u64,
    ) -> Result<Option<Tail>> {
        let Some(k) = segments.iter().rposition(|(start, _)| *start <= pin.seq) else {
            return Ok(None);
        };
        let at = pin.offset - before.len() as u64;
        if at <= first {
            return Ok(None);
        }
        // The pin ends segment k when the next one starts right after its seq.
        let at_end = segments
            .get(k + 1)
            .is_some_and(|(start, _)| *start == pin.seq + 1);
        let from = if at_end { k + 1 } else { k };
        let read = self.read_segments(root, &segments[from..]).await?;
        for pair in read.windows(2) {
            let (a, b) = (&pair[0].header, &pair[1].header);
            if b.start != a.last + 1 || b.prev.as_deref() != Some(a.hash.as_str()) {
                return Err(RemoteError::Damaged {
                    name: self.bucket.shown(&layout::segment(root, root, b.start)),
                    why: "it does not follow the segment before it (replaced?)".to_owned(),
                });
            }
        }
        let mut body = before;
        let mut tail = Tail {
            at,
            body: Vec::new(),
            last: pin.seq,
            hash: String::new(),
            segments: read.len(),
            bytes: 0,
        };
        for (i, segment) in read.into_iter().enumerate() {
            let mut lines = &segment.body[..];
            if i == 0 && !at_end {
                // The lines up to the pin are in `before` already; what of them both hold
                // must agree.
                let Some(end) = line_end_of(lines, pin.seq) else {
                    return Ok(None);
                };
                let (upto, after) = lines.split_at(end as usize);
                let n = upto.len().min(body.len());
                if upto[upto.len() - n..] != body[body.len() - n..] {
                    return Ok(None);
                }
                lines = after;
            }
            tail.last = segment.header.last;
            tail.hash = segment.header.hash;
            tail.bytes += segment.header.bytes;
            body.extend_from_slice(lines);
        }
        if tail.hash.is_empty() || body.last() != Some(&b'\n') {
            return Ok(None);
        }
        tail.body = body;
        Ok(Some(tail))
    }

    /// The segments `names` of `root`'s own log, read and checked, in order.
    async fn read_segments(&self, root: &str, names: &[(u64, String)]) -> Result<Vec<Segment>> {
        let read: Vec<Result<Segment>> = futures_util::stream::iter(names.to_vec())
            .map(|(start, name)| async move { self.read_segment(&name, root, root, start).await })
            .buffered(AT_ONCE)
            .collect()
            .await;
        read.into_iter().collect()
    }

    /// Fetches `refs` into this home, noting what moved and what is missing.
    async fn fetch_all_blobs(&self, refs: &BTreeSet<String>, pulled: &mut Pulled) -> Result<()> {
        let (moved, missing) = self.fetch_blobs(refs).await?;
        pulled.blobs += moved.count;
        pulled.blob_bytes += moved.bytes;
        for hash in missing {
            pulled.problems.push(format!(
                "blob {hash} is missing or damaged in the store: what needs it shows it as missing"
            ));
        }
        Ok(())
    }
}

/// A root session's view, checked, and what else opening it needs.
struct Opening {
    view: View,
    pin: hotl_log::Pin,
    /// The bytes the pin hashes.
    before: Vec<u8>,
    /// The segments of the root's own log, in order.
    segments: Vec<(u64, String)>,
    /// Whether the tree holds other sessions.
    others: bool,
    summary: Option<crate::summary::TreeSummary>,
}

/// The end of a session's log from its view on.
struct Tail {
    /// Where it starts in the log.
    at: u64,
    body: Vec<u8>,
    last: u64,
    hash: String,
    segments: usize,
    bytes: u64,
}

/// Whether `line` is the `session` record of `id`.
fn starts(line: &[u8], id: &str) -> bool {
    line.last() == Some(&b'\n')
        && serde_json::from_slice::<hotl_log::Record>(line)
            .ok()
            .and_then(|r| r.start().map(|s| s.id == id))
            .unwrap_or(false)
}

/// The offset just past the line holding `seq` in `lines`.
fn line_end_of(lines: &[u8], seq: u64) -> Option<u64> {
    let mut at = 0u64;
    for line in lines.split_inclusive(|&b| b == b'\n') {
        at += line.len() as u64;
        if hotl_log::seq_of(line) == Some(seq) {
            return Some(at);
        }
    }
    None
}

/// The blobs the first line, the checkpoint's view and the tail reference.
fn tail_refs(view: &View, tail: &[u8], local: &hotl_log::Blobs) -> BTreeSet<String> {
    let mut refs = crate::blobs::refs_in(view.first.as_bytes(), local);
    refs.extend(crate::blobs::refs_in(tail, local));
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(&view.checkpoint) {
        let mut found = Vec::new();
        hotl_log::blob_refs(&value, &mut found);
        refs.extend(
            found
                .into_iter()
                .filter(|h| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit())),
        );
    }
    refs
}
