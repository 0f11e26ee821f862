//! Bringing the index up to date with the store's logs. A log whose size is unchanged costs a
//! `stat`; one that grew has only its new lines read (its indexed prefix still hashing as it
//! did); one that was replaced or shrank is indexed again under a new source number, the old
//! one's documents dead until a merge or `gc` drops them. New documents go to new segments,
//! flushed at [`FLUSH_BYTES`] of text so a first build's memory stays bounded, and the newest
//! segments merge while the older is at most twice the newer (up to [`MERGE_CAP`]).

use std::collections::HashMap;
use std::path::Path;

use hotl_log::{Blobs, Body, Record, Store};

use crate::error::Result;
use crate::extract::record_docs;
use crate::persist::{create_dir, unique, write_atomic};
use crate::segment::{Builder, Segment};
use crate::types::Thread;

use super::manifest::{Manifest, Source};

/// Text held in memory before it is written out as a segment.
const FLUSH_BYTES: u64 = 512 << 20;
/// Segments with more text than this are not merged further.
const MERGE_CAP: u64 = 1 << 30;

/// What bringing the index up to date did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Refreshed {
    /// Sessions whose new records were indexed.
    pub sessions: usize,
    /// Log bytes read.
    pub bytes: u64,
    /// Sessions whose logs could not be read (named, with why); the rest were indexed.
    pub problems: Vec<String>,
    /// Whether the index changed (and its manifest must be written).
    pub changed: bool,
}

/// The index's state while it is brought up to date.
pub(crate) struct Updater<'a> {
    /// `None` when it only rewrites segments.
    store: Option<&'a Store>,
    dir: &'a Path,
    manifest: &'a mut Manifest,
    segments: &'a mut Vec<Segment>,
    builder: Builder,
    blobs: Option<Blobs>,
    report: Refreshed,
}

impl<'a> Updater<'a> {
    pub(crate) fn new(
        store: &'a Store,
        dir: &'a Path,
        manifest: &'a mut Manifest,
        segments: &'a mut Vec<Segment>,
    ) -> Updater<'a> {
        Updater {
            store: Some(store),
            dir,
            manifest,
            segments,
            builder: Builder::default(),
            blobs: Some(store.blobs()),
            report: Refreshed::default(),
        }
    }

    /// Indexes what every root session's log holds beyond what was indexed, marks the
    /// sources of logs that are gone dead, writes new segments and merges.
    pub(crate) fn run(mut self) -> Result<Refreshed> {
        let Some(store) = self.store else {
            return Ok(self.report);
        };
        let ids = store.session_ids()?;
        let sizes = log_sizes(store, &ids);
        let mut live: HashMap<String, usize> = HashMap::new();
        for (o, src) in self.manifest.sources.iter().enumerate() {
            if !src.dead {
                live.insert(src.id.clone(), o);
            }
        }
        for (id, size) in ids.iter().zip(sizes) {
            let known = live.remove(id);
            match size.and_then(|size| self.session(store, id, size, known)) {
                Ok(()) => {}
                // Deleted while this ran: gone, not a problem (a log that is still listed
                // but cannot be read is one).
                Err(_)
                    if !store
                        .session_ids()
                        .is_ok_and(|ids| ids.iter().any(|i| i == id)) =>
                {
                    if let Some(o) = known {
                        self.manifest.sources[o].dead = true;
                        self.report.changed = true;
                    }
                }
                Err(e) => self.report.problems.push(format!("{id}: {e}")),
            }
            if self.builder.text_bytes() >= FLUSH_BYTES {
                self.flush()?;
            }
        }
        // What is left was not found in the store: deleted since.
        for (_, o) in live {
            self.manifest.sources[o].dead = true;
            self.report.changed = true;
        }
        self.flush()?;
        self.merge()?;
        Ok(self.report)
    }

    /// Brings session `id` up to date; `known` is its source number, if it has one.
    fn session(&mut self, store: &Store, id: &str, size: u64, known: Option<usize>) -> Result<()> {
        let source = match known {
            Some(o) if self.manifest.sources[o].seen_size == size => return Ok(()),
            Some(o) if self.still_holds(store, o, size) => o,
            other => {
                if let Some(o) = other {
                    self.manifest.sources[o].dead = true;
                }
                self.manifest.sources.push(Source {
                    id: id.to_owned(),
                    ..Source::default()
                });
                self.manifest.sources.len() - 1
            }
        };
        let from = self.manifest.sources[source].size;
        let log = store.read_range(id, from, size)?;
        self.report.sessions += 1;
        self.report.changed = true;
        self.report.bytes += log.complete_end;
        for record in &log.records {
            self.record(source, record);
        }
        let end = from + log.complete_end;
        let src = &mut self.manifest.sources[source];
        src.size = end;
        src.seen_size = size;
        src.hash = store.log_hash(id, end)?;
        Ok(())
    }

    /// Whether source `o`'s indexed prefix is still the start of its log, now `size` bytes.
    fn still_holds(&self, store: &Store, o: usize, size: u64) -> bool {
        let src = &self.manifest.sources[o];
        size >= src.size
            && store
                .log_hash(&src.id, src.size)
                .is_ok_and(|h| h == src.hash)
    }

    /// Indexes one record of source `o` and notes what a search filters by.
    fn record(&mut self, o: usize, record: &Record) {
        let src = &mut self.manifest.sources[o];
        for (kind, text) in record_docs(record, self.blobs.as_ref()) {
            let tokens = self
                .builder
                .add_from(o as u32, record.seq, kind, text.as_bytes());
            src.docs += 1;
            src.tokens += u64::from(tokens);
        }
        src.last_seq = src.last_seq.max(record.seq);
        src.updated.clone_from(&record.ts);
        match &record.body {
            Body::Session(start) => src.cwd.clone_from(&start.cwd),
            Body::Drop => src.dropped = true,
            Body::Fold(fold) => src.spans.push(Thread {
                handle: fold.handle.clone(),
                note: String::new(),
                since: fold.since,
                until: fold.until,
                files: (fold.files.iter())
                    .filter(|t| t.op != hotl_log::FileTouch::LISTED)
                    .cloned()
                    .collect(),
            }),
            Body::Compaction { until, .. } => src.spans.push(Thread {
                handle: hotl_view::compaction_handle(*until),
                note: String::new(),
                since: 1,
                until: *until,
                files: Vec::new(),
            }),
            _ => {}
        }
    }

    /// Writes what the builder holds as a new segment.
    fn flush(&mut self) -> Result<()> {
        if self.builder.is_empty() {
            return Ok(());
        }
        let segment = std::mem::take(&mut self.builder).finish();
        self.write(segment)
    }

    /// Writes `segment` to a new file and adds it, read from there.
    fn write(&mut self, segment: Segment) -> Result<()> {
        let name = format!("{}.seg", unique());
        let path = self.dir.join(&name);
        let io = |source| crate::error::RecallError::Io {
            path: path.clone(),
            source,
        };
        create_dir(self.dir).map_err(io)?;
        write_atomic(&path, |w| segment.write_to(w)).map_err(io)?;
        let segment = match Segment::open(&path).map_err(io)? {
            Ok(disk) => disk,
            Err(_) => segment,
        };
        self.segments.push(segment);
        self.manifest.segments.push(name);
        Ok(())
    }

    /// Merges the newest two segments while the older holds at most twice the newer's text
    /// and together they stay under [`MERGE_CAP`]; dead sources' documents are left out.
    fn merge(&mut self) -> Result<()> {
        while let [.., older, newer] = &self.segments[..] {
            let (a, b) = (older.weight(), newer.weight());
            if a > 2 * b || a + b > MERGE_CAP {
                break;
            }
            let mut builder = Builder::default();
            for seg in [older, newer] {
                copy_live(seg, &self.manifest.sources, &mut builder)?;
            }
            self.segments.truncate(self.segments.len() - 2);
            let gone: Vec<String> = self
                .manifest
                .segments
                .drain(self.segments.len()..)
                .collect();
            self.write(builder.finish())?;
            for name in gone {
                // A search that has it open keeps reading it; the name is gone for the next.
                let _ = std::fs::remove_file(self.dir.join(name));
            }
        }
        Ok(())
    }
}

/// The size of each root log of `ids`, looked at from two threads: over thousands of sessions
/// the `stat`s are most of what an up-to-date index costs to open.
fn log_sizes(store: &Store, ids: &[String]) -> Vec<Result<u64>> {
    let half = ids.len().div_ceil(2);
    let sizes = |ids: &[String]| -> Vec<Result<u64>> {
        ids.iter()
            .map(|id| store.root_log_size(id).map_err(Into::into))
            .collect()
    };
    if ids.len() < 256 {
        return sizes(ids);
    }
    let (first, second) = ids.split_at(half);
    std::thread::scope(|scope| {
        let later = scope.spawn(|| sizes(second));
        let mut out = sizes(first);
        out.extend(later.join().unwrap_or_else(|_| {
            second
                .iter()
                .map(|id| store.root_log_size(id).map_err(Into::into))
                .collect()
        }));
        out
    })
}

/// Adds the documents of `seg` whose source is not dead to `builder`.
fn copy_live(seg: &Segment, sources: &[Source], builder: &mut Builder) -> Result<()> {
    copy_renumbered(seg, builder, |source| {
        sources
            .get(source as usize)
            .filter(|s| !s.dead)
            .map(|_| source)
    })
}

/// The index with only the sessions a search shows, numbered afresh: every segment rewritten
/// (what `gc` does when sessions were dropped or deleted).
pub(crate) fn renumbered(
    dir: &Path,
    mut manifest: Manifest,
    old: Vec<Segment>,
) -> Result<(Manifest, Vec<Segment>)> {
    let mut number = vec![None; manifest.sources.len()];
    let mut kept = Vec::new();
    for (o, src) in manifest.sources.drain(..).enumerate() {
        if src.shown() {
            number[o] = Some(kept.len() as u32);
            kept.push(src);
        }
    }
    manifest.sources = kept;
    manifest.segments.clear();
    let mut segments = Vec::new();
    let store_less = Updater {
        store: None,
        dir,
        manifest: &mut manifest,
        segments: &mut segments,
        builder: Builder::default(),
        blobs: None,
        report: Refreshed::default(),
    };
    let mut up = store_less;
    for seg in &old {
        copy_renumbered(seg, &mut up.builder, |s| {
            number.get(s as usize).copied().flatten()
        })?;
        if up.builder.text_bytes() >= FLUSH_BYTES {
            up.flush()?;
        }
    }
    up.flush()?;
    drop(up);
    Ok((manifest, segments))
}

/// Adds the documents of `seg` to `builder` under the source number `renumber` gives, leaving
/// out those it gives none.
fn copy_renumbered(
    seg: &Segment,
    builder: &mut Builder,
    renumber: impl Fn(u32) -> Option<u32>,
) -> Result<()> {
    for (d, meta) in seg.docs().enumerate() {
        let Some(source) = renumber(meta.source) else {
            continue;
        };
        let text = seg
            .text(d)
            .map_err(|source| crate::error::RecallError::Io {
                path: seg.path().map(Path::to_owned).unwrap_or_default(),
                source,
            })?;
        builder.add_from(source, meta.key, meta.kind, &text);
    }
    Ok(())
}
