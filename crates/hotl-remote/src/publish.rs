//! Publishing a tree: what each session's local log holds beyond what the store has goes up
//! as new segments, after the blobs they reference, and then the tree's summary. Only under
//! the tree's lease, renewed first; a segment the store already holds under the same name is
//! either this home's own (a write that landed before a crash: nothing is sent twice) or
//! another writer's (this process was fenced: it stops).

use object_store::PutMode;
use serde::Serialize;

use crate::error::{RemoteError, Result};
use crate::layout;
use crate::lease::Lease;
use crate::remote::Remote;
use crate::segment::{self, Header};
use crate::state::{SessionState, TreeState};

/// What a publish sent.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Published {
    /// The tree.
    pub root: String,
    /// Segments written.
    pub segments: usize,
    /// Their bytes, as stored.
    pub bytes: u64,
    /// Blobs written.
    pub blobs: usize,
    /// Their bytes, as stored.
    pub blob_bytes: u64,
    /// Sessions that got segments.
    pub sessions: Vec<String>,
    /// Secrets redacted, by kind (counts only).
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub redacted: std::collections::BTreeMap<String, usize>,
}

impl Remote {
    /// Publishes `lease`'s tree (see the module docs).
    pub async fn publish(&self, lease: &mut Lease) -> Result<Published> {
        self.claim().await?;
        // The fence: the lease is still this process's, for at least its time to live.
        self.renew(lease).await?;
        let root = lease.body.root.clone();
        let mut state = self.load_state(&root);
        let mut ids = vec![root.clone()];
        ids.extend(self.store.tree_children(&root)?);
        let mut report = Published {
            root: root.clone(),
            ..Published::default()
        };
        let mut fresh_state = state.sessions.is_empty();
        for id in &ids {
            if !state.sessions.contains_key(id) {
                fresh_state = true;
            }
            self.publish_session(&root, id, lease.body.epoch, &mut state, &mut report)
                .await?;
            self.publish_view(&root, id, &mut state).await;
        }
        if fresh_state && let Some(summary) = self.summary(&root).await.ok().flatten() {
            // What earlier segments referenced, when this home's state was made anew.
            state.blobs.extend(summary.blobs);
        }
        let summary_missing = self.bucket.head(&layout::summary(&root)).await?.is_none();
        if report.segments > 0 || summary_missing {
            self.write_summary(&root, &state.blobs).await?;
        }
        self.save_state(&root, &mut state);
        Ok(report)
    }

    async fn publish_session(
        &self,
        root: &str,
        id: &str,
        epoch: u64,
        state: &mut TreeState,
        report: &mut Published,
    ) -> Result<()> {
        let size = self.store.log_size(id)?;
        let known = match state.sessions.get(id) {
            Some(s) if s.offset <= size => s.clone(),
            _ => self.session_state_from_store(root, id).await?,
        };
        state.sessions.insert(id.to_owned(), known.clone());
        if size <= known.offset {
            return Ok(());
        }
        let raw = self.store.raw_range(id, known.offset, size)?;
        let (pieces, _) = segment::cut(&raw);
        let mut at = known;
        for piece in pieces {
            let refs = crate::blobs::refs_in(piece, &self.store.blobs());
            let moved = self.send_blobs(&refs, &mut state.blobs).await?;
            report.blobs += moved.count;
            report.blob_bytes += moved.bytes;
            let body = match &self.redactor {
                Some(redactor) => crate::redact::lines(redactor, piece, &mut report.redacted),
                None => piece.to_vec(),
            };
            let (low, high) = segment::seq_range(&body).expect("a cut piece holds a seq");
            let start = if at.hash.is_none() { low } else { at.last + 1 };
            if low < start {
                return Err(RemoteError::Diverged {
                    session: id.to_owned(),
                    why: format!(
                        "its log holds seq {low} after the store's copy ended at seq {}",
                        at.last
                    ),
                });
            }
            let header = Header {
                format: segment::FORMAT.to_owned(),
                root: root.to_owned(),
                session: id.to_owned(),
                start,
                last: high,
                bytes: body.len() as u64,
                hash: blake3::hash(&body).to_hex().to_string(),
                prev: at.hash.clone(),
                epoch,
            };
            let name = layout::segment(root, id, start);
            let stored = self.bucket.seal(&name, &segment::encode(&header, &body))?;
            let len = stored.len() as u64;
            match self.bucket.put_raw(&name, stored, PutMode::Create).await {
                Ok(_) => {
                    report.segments += 1;
                    report.bytes += len;
                    if !report.sessions.iter().any(|s| s == id) {
                        report.sessions.push(id.to_owned());
                    }
                }
                Err(object_store::Error::AlreadyExists { .. }) => {
                    if !self.is_ours(&name, root, id, start, &header.hash).await? {
                        return Err(self.fenced(root).await);
                    }
                }
                Err(e) => {
                    return Err(RemoteError::store(
                        format!("writing {}", self.bucket.shown(&name)),
                        e,
                    ));
                }
            }
            at = SessionState {
                offset: at.offset + piece.len() as u64,
                last: high,
                hash: Some(header.hash),
            };
            state.sessions.insert(id.to_owned(), at.clone());
            self.save_state(root, state);
        }
        Ok(())
    }

    /// Whether the segment at `name` holds exactly the lines hashing `hash` (this home's own
    /// write, landed before it could note it).
    async fn is_ours(
        &self,
        name: &str,
        root: &str,
        id: &str,
        start: u64,
        hash: &str,
    ) -> Result<bool> {
        let Some((stored, _)) = self.bucket.get_raw(name).await? else {
            return Ok(false);
        };
        let Ok(plain) = self.bucket.unseal(name, &stored) else {
            return Ok(false);
        };
        Ok(segment::decode(&plain, root, id, start).is_ok_and(|s| s.header.hash == hash))
    }

    /// Where a session stands in the store, when this home's state does not say: its last
    /// segment read, and the local log's offset after the same seq. The local bytes of that
    /// segment must be the ones the store holds (unless publishing redacts them).
    pub(crate) async fn session_state_from_store(
        &self,
        root: &str,
        id: &str,
    ) -> Result<SessionState> {
        let segments = self.segments_of(root, id).await?;
        let Some(&(start, ref name)) = segments.last() else {
            return Ok(SessionState::default());
        };
        let segment = self.read_segment(name, root, id, start).await?;
        let local_last = self.store.meta(id)?.last_seq;
        if local_last < segment.header.last {
            return Err(RemoteError::Diverged {
                session: id.to_owned(),
                why: format!(
                    "the store holds it through seq {} and this home through seq {local_last}: pull it first",
                    segment.header.last
                ),
            });
        }
        let end = self.store.offset_through(id, segment.header.last)?;
        if self.redactor.is_none() {
            let from = if start <= 1 {
                0
            } else {
                self.store.offset_through(id, start - 1)?
            };
            let local = self.store.raw_range(id, from, end)?;
            if blake3::hash(&local).to_hex().as_str() != segment.header.hash {
                return Err(RemoteError::Diverged {
                    session: id.to_owned(),
                    why: format!(
                        "the store's seqs {start} to {} are not this home's",
                        segment.header.last
                    ),
                });
            }
        }
        Ok(SessionState {
            offset: end,
            last: segment.header.last,
            hash: Some(segment.header.hash),
        })
    }

    /// A session's segments in the store, by start.
    pub(crate) async fn segments_of(&self, root: &str, id: &str) -> Result<Vec<(u64, String)>> {
        let prefix = format!("{}{id}/", layout::tree_prefix(root));
        let mut out: Vec<(u64, String)> = self
            .bucket
            .list(&prefix)
            .await?
            .iter()
            .filter_map(|m| {
                let name = self.bucket.relative(&m.location);
                match layout::parse_tree_object(&name)? {
                    layout::TreeObject::Segment { session, start, .. } if session == id => {
                        Some((start, name))
                    }
                    _ => None,
                }
            })
            .collect();
        out.sort();
        Ok(out)
    }

    /// Reads and checks one segment.
    pub(crate) async fn read_segment(
        &self,
        name: &str,
        root: &str,
        id: &str,
        start: u64,
    ) -> Result<segment::Segment> {
        let Some((stored, _)) = self.bucket.get_raw(name).await? else {
            return Err(RemoteError::Damaged {
                name: self.bucket.shown(name),
                why: "it is gone".to_owned(),
            });
        };
        let plain = self.bucket.unseal(name, &stored)?;
        segment::decode(&plain, root, id, start).map_err(|why| RemoteError::Damaged {
            name: self.bucket.shown(name),
            why,
        })
    }
}
