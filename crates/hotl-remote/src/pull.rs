//! Pulling a tree: the segments this home lacks are fetched and checked (each whole, as its
//! header says, chained to the one before), the blobs they reference fetched and checked
//! against their hashes, and only then written: a new tree appears complete, a known one
//! grows by whole lines under its lock. Nothing damaged is ever loaded; a session whose copy
//! in the store went another way than this home's is left as this home has it.

use std::collections::{BTreeMap, BTreeSet};

use futures_util::StreamExt;
use serde::Serialize;

use crate::error::{RemoteError, Result};
use crate::layout;
use crate::remote::Remote;
use crate::segment::Segment;
use crate::state::SessionState;

/// How many segments are fetched at once.
const AT_ONCE: usize = 4;

/// What a pull fetched.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Pulled {
    /// The trees pulled (the one asked for, then those its sessions descend from).
    pub roots: Vec<String>,
    /// Sessions that appeared or grew.
    pub sessions: Vec<String>,
    /// Segments fetched.
    pub segments: usize,
    /// Their bytes, as stored.
    pub bytes: u64,
    /// Blobs fetched.
    pub blobs: usize,
    /// Their bytes, as stored.
    pub blob_bytes: u64,
    /// What could not be loaded, by name.
    pub problems: Vec<String>,
    /// Bytes of the logs left in the store, fetched when something reads them (see
    /// [`Remote::pull_lazily`]).
    #[serde(skip_serializing_if = "is_zero")]
    pub left_in_store: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Pulled {
    /// Adds what another pull brought.
    pub fn add(&mut self, other: Pulled) {
        self.roots.extend(other.roots);
        self.sessions.extend(other.sessions);
        self.segments += other.segments;
        self.bytes += other.bytes;
        self.blobs += other.blobs;
        self.blob_bytes += other.blob_bytes;
        self.problems.extend(other.problems);
        self.left_in_store += other.left_in_store;
    }
}

/// One session's new lines, fetched and checked.
struct Fetched {
    id: String,
    body: Vec<u8>,
    last: u64,
    hash: String,
    segments: usize,
    bytes: u64,
    exists: bool,
}

impl Remote {
    /// Pulls the tree `root` and the trees its sessions descend from (see the module docs).
    pub async fn pull(&self, root: &str) -> Result<Pulled> {
        let mut pulled = Pulled::default();
        let mut todo = vec![root.to_owned()];
        let mut seen = BTreeSet::new();
        while let Some(next) = todo.pop() {
            if !seen.insert(next.clone()) || seen.len() > hotl_log::MAX_ANCESTORS + 1 {
                continue;
            }
            let parents = self.pull_tree(&next, &mut pulled).await?;
            for parent in parents {
                todo.extend(self.ancestor_tree(&parent, &mut pulled).await?);
            }
        }
        Ok(pulled)
    }

    /// The tree in the store holding `parent`, a session a pulled one descends from; `None`,
    /// noted in `pulled`, when the store lacks it.
    pub(crate) async fn ancestor_tree(
        &self,
        parent: &str,
        pulled: &mut Pulled,
    ) -> Result<Option<String>> {
        match self.find(parent).await {
            Ok((tree, _)) => Ok(Some(tree)),
            Err(RemoteError::NoMatch(_)) => {
                pulled
                    .problems
                    .push(format!("ancestor {parent} is not in the store"));
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    /// Pulls one tree; returns the ancestors its new sessions pin into that this home lacks.
    async fn pull_tree(&self, root: &str, pulled: &mut Pulled) -> Result<Vec<String>> {
        if self.marker().await?.is_none() {
            return Err(RemoteError::NoMatch(root.to_owned()));
        }
        let mut by_session: BTreeMap<String, Vec<(u64, String)>> = BTreeMap::new();
        for meta in self.bucket.list(&layout::tree_prefix(root)).await? {
            let name = self.bucket.relative(&meta.location);
            if let Some(layout::TreeObject::Segment { session, start, .. }) =
                layout::parse_tree_object(&name)
            {
                by_session.entry(session).or_default().push((start, name));
            }
        }
        if !by_session.contains_key(root) {
            return Err(RemoteError::NoMatch(root.to_owned()));
        }
        let state = self.load_state(root);
        let mut fetched = Vec::new();
        // The root first: without it, nothing of the tree is written.
        let mut ids: Vec<String> = by_session.keys().cloned().collect();
        ids.sort_by_key(|id| id != root);
        for id in ids {
            let mut segments = by_session.remove(&id).unwrap_or_default();
            segments.sort();
            match self
                .fetch_session(root, &id, &segments, state.sessions.get(&id))
                .await
            {
                Ok(Some(f)) => fetched.push(f),
                Ok(None) => {}
                Err(e @ RemoteError::Store { .. }) => return Err(e),
                Err(e) if id == root && !self.store.exists(root) => return Err(e),
                Err(e) => pulled.problems.push(e.to_string()),
            }
        }
        if fetched.is_empty() {
            pulled.roots.push(root.to_owned());
            return Ok(Vec::new());
        }
        self.fetch_referenced(&fetched, pulled).await?;
        self.write_fetched(root, &fetched)?;
        let mut state = self.load_state(root);
        let mut parents = Vec::new();
        for f in &fetched {
            state.sessions.insert(
                f.id.clone(),
                SessionState {
                    offset: self.store.log_size(&f.id)?,
                    last: f.last,
                    hash: Some(f.hash.clone()),
                },
            );
            pulled.sessions.push(f.id.clone());
            pulled.segments += f.segments;
            pulled.bytes += f.bytes;
            if !f.exists
                && let Some(pin) = self.store.read_start(&f.id)?.parent
                && !self.store.exists(&pin.session)
            {
                parents.push(pin.session);
            }
        }
        state.blobs.extend(
            self.summary(root)
                .await?
                .map(|s| s.blobs)
                .unwrap_or_default(),
        );
        self.save_state(root, &mut state);
        pulled.roots.push(root.to_owned());
        Ok(parents)
    }

    /// The lines of `id` this home lacks, fetched and checked; `None` when it lacks none.
    async fn fetch_session(
        &self,
        root: &str,
        id: &str,
        segments: &[(u64, String)],
        known: Option<&SessionState>,
    ) -> Result<Option<Fetched>> {
        let exists = self.store.exists(id);
        let local_last = if exists {
            self.store.meta(id)?.last_seq
        } else {
            0
        };
        if let Some(k) = known.filter(|k| exists && k.last < local_last)
            && let Some((start, _)) = segments
                .iter()
                .find(|(start, _)| *start > k.last && *start <= local_last)
        {
            // This home wrote past what it last had of the store, and the store went on
            // from the same point with other records.
            return Err(RemoteError::Diverged {
                session: id.to_owned(),
                why: format!(
                    "this home wrote seqs {} to {local_last} on its own, and the store's copy goes on from seq {start} with others",
                    k.last + 1
                ),
            });
        }
        let needed: Vec<(u64, String)> = segments
            .iter()
            .filter(|(start, _)| *start > local_last)
            .cloned()
            .collect();
        let Some(&(first, _)) = needed.first() else {
            return Ok(None);
        };
        if exists && first != local_last + 1 {
            return Err(RemoteError::Diverged {
                session: id.to_owned(),
                why: format!(
                    "the store's copy goes on from seq {first} where this home's ends at seq {local_last}"
                ),
            });
        }
        let read: Vec<Result<Segment>> = futures_util::stream::iter(needed)
            .map(|(start, name)| async move { self.read_segment(&name, root, id, start).await })
            .buffered(AT_ONCE)
            .collect()
            .await;
        let mut body = Vec::new();
        let mut prev = known
            .filter(|k| k.last == local_last)
            .and_then(|k| k.hash.clone());
        let (mut last, mut count, mut bytes) = (local_last, 0, 0u64);
        for segment in read {
            let segment = segment?;
            let h = &segment.header;
            let chained = (last == 0 && !exists) || h.start == last + 1;
            let linked = prev.is_none() || h.prev == prev;
            if !chained || !linked {
                return Err(RemoteError::Damaged {
                    name: self.bucket.shown(&layout::segment(root, id, h.start)),
                    why: "it does not follow the segment before it (replaced?)".to_owned(),
                });
            }
            last = h.last;
            prev = Some(h.hash.clone());
            count += 1;
            bytes += h.bytes;
            body.extend_from_slice(&segment.body);
        }
        if !exists {
            let first_line = body.split(|&b| b == b'\n').next().unwrap_or_default();
            let starts = serde_json::from_slice::<hotl_log::Record>(first_line)
                .ok()
                .and_then(|r| r.start().map(|s| s.id == id))
                .unwrap_or(false);
            if !starts {
                return Err(RemoteError::Damaged {
                    name: self.bucket.shown(&layout::segment(root, id, first)),
                    why: format!("it does not start session {id}"),
                });
            }
        }
        Ok(Some(Fetched {
            id: id.to_owned(),
            body,
            last,
            hash: prev.unwrap_or_default(),
            segments: count,
            bytes,
            exists,
        }))
    }

    /// Fetches the blobs the new lines reference (and, once manifests are here, the files
    /// they list).
    async fn fetch_referenced(&self, fetched: &[Fetched], pulled: &mut Pulled) -> Result<()> {
        let local = self.store.blobs();
        let mut asked = BTreeSet::new();
        for _round in 0..2 {
            let mut refs = BTreeSet::new();
            for f in fetched {
                refs.extend(crate::blobs::refs_in(&f.body, &local));
            }
            let new: BTreeSet<String> = refs.difference(&asked).cloned().collect();
            if new.is_empty() {
                break;
            }
            let (moved, missing) = self.fetch_blobs(&new).await?;
            pulled.blobs += moved.count;
            pulled.blob_bytes += moved.bytes;
            for hash in missing {
                pulled.problems.push(format!(
                    "blob {hash} is missing or damaged in the store: what needs it shows it as missing"
                ));
            }
            asked.extend(new);
        }
        Ok(())
    }

    /// Writes what was fetched: a new tree atomically, each file complete; a known tree's
    /// sessions grown under its lock.
    fn write_fetched(&self, root: &str, fetched: &[Fetched]) -> Result<()> {
        if !self.store.exists(root) {
            let Some(main) = fetched.iter().find(|f| f.id == root) else {
                return Err(RemoteError::NoMatch(root.to_owned()));
            };
            let children: Vec<(String, Vec<u8>)> = fetched
                .iter()
                .filter(|f| f.id != root)
                .map(|f| (f.id.clone(), f.body.clone()))
                .collect();
            self.store.create_encoded((root, &main.body), &children)?;
            return Ok(());
        }
        let writer = self.store.writer(root)?;
        for f in fetched {
            if f.exists {
                let mut session = writer.open_in_tree(&f.id)?;
                session.append_encoded(&f.body)?;
            } else {
                writer.adopt_delegated(&f.id, &f.body)?;
            }
        }
        Ok(())
    }
}
