//! Listing every tree in the store without listing every summary. Listing 10,000 summaries
//! is ten sequential pages of a store's listing API; reading one object is one request. So
//! a publisher that rewrites a tree's summary also writes an empty journal entry,
//! `changes/<ms>-<root>`, named by the store's time, and listings keep one derived object,
//! `listing`, holding every summary as of a point in the journal (`through`). A listing reads
//! that object (a `304` when this home holds it already), lists the journal from shortly
//! before `through`, and reads only the summaries of trees changed since. Whoever finds the
//! object behind by [`REWRITE_AFTER`] trees writes a newer one, conditionally on the one it
//! read.
//!
//! Why the journal is read from before `through`: an entry names the time its writer took
//! (its clock corrected by the measured skew) but appears when its write lands. An entry not
//! yet visible when the object was made is at most [`LATE_MS`] older than the newest one then
//! visible, because a writer whose write took longer writes its entry again. The entries of
//! that window already read are kept by name (`seen`), so any other entry there means its
//! tree's summary is read again: whichever machine's clock named it, the summary read after
//! the entry appeared is at least as new as the change it notes.
//!
//! The object is only a shortcut. `gc --remote` lists every summary (what it deletes must
//! not rest on a shortcut), rewrites the object from that pass and trims the journal; a
//! missing or unreadable object is rebuilt the same way.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant, SystemTime};

use futures_util::StreamExt;
use object_store::{PutMode, UpdateVersion};
use serde::{Deserialize, Serialize};

use crate::bucket::Fetched;
use crate::error::{RemoteError, Result};
use crate::layout;
use crate::remote::{Remote, shift};
use crate::summary::TreeSummary;

/// The listing object's format.
const FORMAT: &str = "hotl-remote-listing/1";

/// How far before the newest entry a listing rereads the journal (see the module docs).
pub(crate) const LATE_MS: u64 = 30_000;

/// A journal entry whose write took longer than this is written again under a newer time.
const SLOW_WRITE: Duration = Duration::from_secs(10);

/// The listing object is rewritten once it misses this many trees' changes.
const REWRITE_AFTER: usize = 16;

/// Journal entries older than this before the listing's point are removed by gc.
const JOURNAL_KEPT: Duration = Duration::from_secs(24 * 3600);

/// How many summaries are read at once.
const AT_ONCE: usize = 16;

/// Every tree as of a point in the journal: the listing object, and this home's copy of it.
#[derive(Clone, Default, Serialize, Deserialize)]
struct Listing {
    format: String,
    /// The newest journal entry it covers ("": none).
    through: String,
    /// The entries it covers from [`LATE_MS`] before `through` on.
    seen: BTreeSet<String>,
    trees: BTreeMap<String, Entry>,
}

impl Listing {
    /// Where a listing that covers through `through` reads the journal from.
    fn window_start(through: &str) -> Option<String> {
        layout::parse_change(through).map(|(ms, _)| layout::change(ms.saturating_sub(LATE_MS), ""))
    }

    /// Notes the journal entry `name` as covered; whether it was new.
    fn cover(&mut self, name: &str) -> bool {
        if name > self.through.as_str() {
            self.through = name.to_owned();
        }
        self.seen.insert(name.to_owned())
    }

    /// Forgets covered entries before the window.
    fn trim_seen(&mut self) {
        if let Some(start) = Listing::window_start(&self.through) {
            self.seen = self.seen.split_off(&start);
        }
    }
}

/// One tree in a listing.
#[derive(Clone, Serialize, Deserialize)]
struct Entry {
    /// The summary's ETag when it was read.
    tag: String,
    /// Whether `summary.blobs` is whole: the listing object leaves blobs out (gc alone needs
    /// them and reads every summary itself).
    #[serde(default)]
    blobs: bool,
    summary: TreeSummary,
}

/// What this home keeps of the listing: the object's ETag and point when read or written,
/// the trees read since, and the listing as this home brought it up to date.
#[derive(Default, Serialize, Deserialize)]
struct Cache {
    format: u32,
    object_tag: Option<String>,
    object_through: String,
    read_since: usize,
    listing: Listing,
}

const CACHE_FORMAT: u32 = 2;
const CACHE_FILE: &str = "listing.json";

impl Remote {
    /// Every tree in the store, most recently active first: the listing object, the end of
    /// the journal and the summaries changed since (see the module docs). A summary that
    /// cannot be read is named in the second value and left out.
    pub async fn list_trees(&self) -> Result<(Vec<TreeSummary>, Vec<String>)> {
        self.marker().await?;
        let mut cache = self.load_cache();
        let mut dirty = match self.read_listing(cache.object_tag.as_deref()).await? {
            Got::Unchanged => false,
            Got::Changed(listing, tag) => {
                cache.object_tag = Some(tag);
                cache.object_through.clone_from(&listing.through);
                cache.read_since = 0;
                cache.listing = listing;
                true
            }
            Got::Missing => return self.whole_pass().await,
        };
        let (problems, read) = self.catch_up(&mut cache.listing).await?;
        dirty |= read > 0;
        cache.read_since += read;
        if cache.read_since >= REWRITE_AFTER {
            self.rewrite_listing(&mut cache).await;
        }
        if dirty {
            self.save_cache(&cache);
        }
        Ok((sorted(&cache.listing), problems))
    }

    /// Every tree in the store, from a listing of every summary (those this home read at the
    /// same ETag, with their blobs, are not read again); the listing object is rewritten from
    /// it. What gc decides on.
    pub(crate) async fn list_trees_whole(&self) -> Result<(Vec<TreeSummary>, Vec<String>)> {
        self.marker().await?;
        self.whole_pass().await
    }

    /// [`Remote::list_trees_whole`] once the marker was read.
    async fn whole_pass(&self) -> Result<(Vec<TreeSummary>, Vec<String>)> {
        let cached = self.load_cache().listing;
        // The journal first: what changes while summaries are listed is read again next time.
        let journal = self.bucket.list(layout::CHANGES).await?;
        let mut listing = Listing {
            format: FORMAT.to_owned(),
            ..Listing::default()
        };
        for meta in &journal {
            let name = self.bucket.relative(&meta.location);
            if layout::parse_change(&name).is_some() {
                listing.cover(&name);
            }
        }
        listing.trim_seen();
        let mut stale = Vec::new();
        for meta in self.bucket.list(layout::SUMMARIES).await? {
            let name = self.bucket.relative(&meta.location);
            let Some(root) = name.strip_prefix(layout::SUMMARIES) else {
                continue;
            };
            if !hotl_log::is_session_id(root) {
                continue;
            }
            let tag = tag_of(&meta);
            match cached.trees.get(root) {
                Some(entry) if entry.tag == tag && entry.blobs => {
                    listing.trees.insert(root.to_owned(), entry.clone());
                }
                _ => stale.push(root.to_owned()),
            }
        }
        let problems = self.read_entries(stale, &mut listing).await?;
        let mut cache = Cache {
            format: CACHE_FORMAT,
            listing,
            ..Cache::default()
        };
        self.rewrite_listing(&mut cache).await;
        self.save_cache(&cache);
        Ok((sorted(&cache.listing), problems))
    }

    /// Notes in the journal that `root`'s summary changed (see the module docs).
    pub(crate) async fn note_change(&self, root: &str) -> Result<()> {
        let skew = self.skew_ms().await.unwrap_or(0);
        loop {
            let began = Instant::now();
            let name = layout::change(store_ms(shift(SystemTime::now(), -skew)), root);
            self.bucket
                .put_raw(&name, Vec::new(), PutMode::Overwrite)
                .await
                .map_err(|e| {
                    RemoteError::store(format!("writing {}", self.bucket.shown(&name)), e)
                })?;
            if began.elapsed() < SLOW_WRITE {
                return Ok(());
            }
        }
    }

    /// Removes journal entries long covered by the listing object (gc).
    pub(crate) async fn trim_journal(&self, dry_run: bool) -> Result<usize> {
        let cache = self.load_cache();
        let Some((ms, _)) = layout::parse_change(&cache.object_through) else {
            return Ok(0);
        };
        let keep_from = ms.saturating_sub(JOURNAL_KEPT.as_millis() as u64);
        let mut removed = 0;
        for meta in self.bucket.list(layout::CHANGES).await? {
            let name = self.bucket.relative(&meta.location);
            if layout::parse_change(&name).is_some_and(|(at, _)| at < keep_from) {
                if !dry_run {
                    self.bucket.delete(&name).await?;
                }
                removed += 1;
            }
        }
        Ok(removed)
    }

    /// Reads the journal from shortly before `listing.through` and the summaries of the trees
    /// its new entries name into `listing`; returns the problems and how many trees were read.
    async fn catch_up(&self, listing: &mut Listing) -> Result<(Vec<String>, usize)> {
        let from = Listing::window_start(&listing.through);
        let entries = self
            .bucket
            .list_after(layout::CHANGES, from.as_deref())
            .await?;
        let mut changed: BTreeSet<String> = BTreeSet::new();
        for meta in entries {
            let name = self.bucket.relative(&meta.location);
            if let Some((_, root)) = layout::parse_change(&name)
                && listing.cover(&name)
            {
                changed.insert(root.to_owned());
            }
        }
        listing.trim_seen();
        let read = changed.len();
        let problems = self
            .read_entries(changed.into_iter().collect(), listing)
            .await?;
        Ok((problems, read))
    }

    /// Reads the summaries of `roots` into `listing`; a tree whose summary is gone leaves it.
    async fn read_entries(&self, roots: Vec<String>, listing: &mut Listing) -> Result<Vec<String>> {
        let read: Vec<_> = futures_util::stream::iter(roots)
            .map(|root| async move {
                let name = layout::summary(&root);
                let got = match self.bucket.get_raw(&name).await {
                    Ok(Some((stored, meta))) => self
                        .read_summary(&name, &root, &stored)
                        .map(|s| Some((s, tag_of(&meta)))),
                    Ok(None) => Ok(None),
                    Err(e) => Err(e),
                };
                (root, got)
            })
            .buffer_unordered(AT_ONCE)
            .collect()
            .await;
        let mut problems = Vec::new();
        for (root, got) in read {
            match got {
                Ok(Some((summary, tag))) => {
                    let entry = Entry {
                        tag,
                        blobs: true,
                        summary,
                    };
                    listing.trees.insert(root, entry);
                }
                Ok(None) => {
                    listing.trees.remove(&root);
                }
                Err(e @ RemoteError::Store { .. }) => return Err(e),
                Err(e) => problems.push(e.to_string()),
            }
        }
        Ok(problems)
    }

    /// The listing object, unless it is the one this home read at `known`. One that does not
    /// read as a listing counts as missing (it is made again).
    async fn read_listing(&self, known: Option<&str>) -> Result<Got> {
        let (stored, meta) = match self.bucket.get_if_changed(layout::LISTING, known).await? {
            Fetched::Unchanged => return Ok(Got::Unchanged),
            Fetched::Missing => return Ok(Got::Missing),
            Fetched::Got(stored, meta) => (stored, meta),
        };
        let listing = self
            .bucket
            .unseal(layout::LISTING, &stored)
            .ok()
            .and_then(|plain| serde_json::from_slice::<Listing>(&plain).ok())
            .filter(|l| l.format == FORMAT);
        Ok(match listing {
            Some(listing) => Got::Changed(listing, tag_of(&meta)),
            None => {
                tracing::warn!(
                    "{} is not a listing: it is made again",
                    self.bucket.shown(layout::LISTING)
                );
                Got::Missing
            }
        })
    }

    /// Writes `cache.listing` as the listing object: over the one this home read (refused,
    /// and left, when another home wrote a newer one since), or anew. A listing that cannot be
    /// written costs the next listing a few more reads, so a failure is only logged.
    async fn rewrite_listing(&self, cache: &mut Cache) {
        let mut shared = cache.listing.clone();
        for entry in shared.trees.values_mut() {
            entry.blobs = false;
            entry.summary.blobs.clear();
        }
        let plain = serde_json::to_vec(&shared).expect("a listing serializes");
        let mode = match &cache.object_tag {
            Some(tag) => PutMode::Update(UpdateVersion {
                e_tag: Some(tag.clone()),
                version: None,
            }),
            None => PutMode::Overwrite,
        };
        let written = match self.bucket.seal(layout::LISTING, &plain) {
            Ok(sealed) => self.bucket.put_raw(layout::LISTING, sealed, mode).await,
            Err(e) => {
                tracing::warn!("the listing is not written: {e}");
                return;
            }
        };
        match written {
            Ok(put) => {
                cache.object_tag = put.e_tag;
                cache.object_through.clone_from(&cache.listing.through);
                cache.read_since = 0;
            }
            Err(e) => tracing::debug!("the listing is not written: {e}"),
        }
    }

    fn load_cache(&self) -> Cache {
        let path = self.store.derived_dir(&self.state_name()).join(CACHE_FILE);
        std::fs::read(path)
            .ok()
            .and_then(|b| serde_json::from_slice::<Cache>(&b).ok())
            .filter(|c| c.format == CACHE_FORMAT && c.listing.format == FORMAT)
            .unwrap_or_default()
    }

    fn save_cache(&self, cache: &Cache) {
        let cache = Cache {
            format: CACHE_FORMAT,
            object_tag: cache.object_tag.clone(),
            object_through: cache.object_through.clone(),
            read_since: cache.read_since,
            listing: Listing {
                format: FORMAT.to_owned(),
                ..cache.listing.clone()
            },
        };
        let bytes = serde_json::to_vec(&cache).expect("the cache serializes");
        if let Err(e) = self
            .store
            .put_derived(&self.state_name(), CACHE_FILE, &bytes)
        {
            tracing::warn!("the remote listing cache is not written: {e}");
        }
    }
}

/// The listing object as read.
enum Got {
    /// The one this home holds.
    Unchanged,
    /// Another one (or one this home never read), with its ETag.
    Changed(Listing, String),
    /// None, or one that does not read as a listing.
    Missing,
}

/// The trees of `listing`, most recently active first.
fn sorted(listing: &Listing) -> Vec<TreeSummary> {
    let mut trees: Vec<TreeSummary> = listing.trees.values().map(|e| e.summary.clone()).collect();
    trees.sort_by(|a, b| {
        b.updated()
            .cmp(a.updated())
            .then_with(|| b.root.cmp(&a.root))
    });
    trees
}

/// What tells one version of an object from another.
fn tag_of(meta: &object_store::ObjectMeta) -> String {
    meta.e_tag
        .clone()
        .unwrap_or_else(|| format!("{}:{}", meta.size, meta.last_modified))
}

/// Milliseconds since the epoch.
fn store_ms(t: SystemTime) -> u64 {
    t.duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}
