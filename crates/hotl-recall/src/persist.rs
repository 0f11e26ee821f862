//! The persisted index of a session: `<index>/recall/<session>.idx` and its segment files,
//! brought up to date from the records appended since its watermark.
//!
//! The `.idx` file is `hotlridx`, a u64 length, a JSON header (format, watermark, working
//! directory, segment files), then the current threads and the records each holds (binary, see
//! `codec`). Segments (`<session>-<16 hex>.seg`) hold the text and postings of every message on
//! the visible branch, live ones included, so a fold appended later costs no re-reading of the
//! log, and the *skeleton* of the records they cover: the records without their text, enough to
//! project them again. An update reads the lines after the watermark, indexes them into a new
//! small segment and re-plans the threads: when the new records cannot change what came before
//! (no revert, no compaction, folds only after the last span), by projecting only the records
//! from the first new fold's start on; otherwise by projecting the whole skeleton. Small
//! segments are merged so there are only logarithmically many.
//!
//! Every file is derived: written to a temp file in the same directory, synced, renamed; a
//! missing, stale, foreign-format or damaged one is rebuilt from the lineage.

use std::collections::HashSet;
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use hotl_log::{Body, ReadOptions, Record, Store, encode_line, read_from};
use serde::{Deserialize, Serialize};

use crate::archive::Archive;
use crate::codec;
use crate::error::{RecallError, Result};
use crate::extract::{self, Plan};
use crate::segment::{Builder, Segment};

/// The header's format; any other is rebuilt.
const FORMAT: u32 = 6;
const MAGIC: &[u8; 8] = b"hotlridx";
/// A rebuild of fewer records runs on one thread.
const PARALLEL_MIN_RECORDS: usize = 20_000;
/// Threads a rebuild uses at most (one segment each).
const MAX_WORKERS: usize = 4;
/// Past this many segments, the newest are merged whatever their sizes.
const MAX_SEGMENTS: usize = 12;
/// Unreferenced segment and temp files older than this are deleted (younger ones may belong to
/// another process that has not written its `.idx` yet).
const ORPHAN_AGE: Duration = Duration::from_secs(3600);

#[derive(Clone, Debug, Serialize, Deserialize)]
struct Header {
    format: u32,
    session: String,
    watermark: Watermark,
    root: String,
    /// Index in the skeleton of the own log's first record.
    own_start: usize,
    segments: Vec<SegRef>,
    /// Stored after the JSON, in binary.
    #[serde(skip)]
    plan: Plan,
}

/// How far the index has read the own log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Watermark {
    /// The last seq indexed.
    seq: u64,
    /// The log's size up to its last complete line, when indexed.
    size: u64,
    /// `pin_hash` of the log at `size`: a different value means the log is not the one indexed.
    hash: String,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct SegRef {
    name: String,
    size: u64,
}

/// Opens session `id`'s archive from its persisted index, bringing the index up to date with
/// the log first (and saving it). A missing, stale or unreadable index is rebuilt from the
/// lineage. When the index cannot be written (a read-only home), the archive is still
/// returned, held in memory.
pub fn open_index(store: &Store, id: &str) -> Result<Archive> {
    let dir = store.derived_dir("recall");
    let size = store.log_size(id)?;
    if let Some(header) = read_header(&dir, id)
        && let Some(archive) = refresh(store, &dir, header, id, size)?
    {
        return Ok(archive);
    }
    tracing::info!(session = id, "building the recall index from the log");
    rebuild(store, id, &dir)
}

/// The path of session `id`'s index file in `store`'s derived files.
pub fn index_path(store: &Store, id: &str) -> PathBuf {
    store.derived_dir("recall").join(format!("{id}.idx"))
}

/// Reads the header of `id`'s index; `None` when there is none usable.
fn read_header(dir: &Path, id: &str) -> Option<Header> {
    let bytes = fs::read(dir.join(format!("{id}.idx"))).ok()?;
    let rest = bytes.strip_prefix(MAGIC)?;
    let len = usize::try_from(u64::from_le_bytes(rest.get(..8)?.try_into().ok()?)).ok()?;
    let json = rest.get(8..8usize.checked_add(len)?)?;
    let mut header: Header = serde_json::from_slice(json).ok()?;
    if header.format != FORMAT || header.session != id {
        return None;
    }
    header.plan = codec::decode(&rest[8 + len..])?;
    Some(header)
}

/// The archive, brought up to date with a log now `size` bytes long; `None` when the index
/// does not fit the log (or is damaged) and must be rebuilt.
fn refresh(
    store: &Store,
    dir: &Path,
    header: Header,
    id: &str,
    size: u64,
) -> Result<Option<Archive>> {
    let wm = header.watermark.clone();
    if size < wm.size || store.log_hash(id, wm.size).ok().as_ref() != Some(&wm.hash) {
        return Ok(None);
    }
    let mut segments = Vec::with_capacity(header.segments.len());
    for r in &header.segments {
        let path = dir.join(&r.name);
        match fs::metadata(&path).map(|m| m.len()) {
            Ok(len) if len == r.size => {}
            _ => return Ok(None),
        }
        match Segment::open(&path) {
            Ok(Ok(seg)) => segments.push(seg),
            _ => return Ok(None),
        }
    }
    let new = store.read_range(id, wm.size, size)?;
    let root = PathBuf::from(&header.root);
    if new.complete_end == 0 {
        return Ok(Some(Archive::assemble(header.plan, segments, root)));
    }
    let fits = new
        .records
        .iter()
        .all(|r| r.seq > wm.seq && !matches!(r.body, Body::Session(_)));
    if !fits {
        return Ok(None);
    }
    let mut lines = Vec::new();
    let mut skeleton = Vec::new();
    for record in &new.records {
        if let Some(s) = extract::skeleton(record) {
            lines.extend(encode_line(&s)?);
            skeleton.push(s);
        }
    }
    let replanned = match quick_plan(&header.plan, &segments, &skeleton, wm.seq) {
        Some(plan) => Some((plan, None)),
        None => full_plan(&segments, &skeleton, header.own_start),
    };
    let Some((plan, hidden)) = replanned else {
        return Ok(None);
    };
    let blobs = store.blobs();
    let mut builder = Builder::default();
    builder.skeleton(&lines);
    for record in &new.records {
        if hidden.as_ref().is_some_and(|h| h.contains(&record.seq)) {
            continue;
        }
        for (kind, text) in extract::record_docs(record, Some(&blobs)) {
            builder.add(record.seq, kind, text.as_bytes());
        }
    }
    let mut names: Vec<Option<String>> = header
        .segments
        .iter()
        .map(|r| Some(r.name.clone()))
        .collect();
    let mut superseded = Vec::new();
    if !builder.is_empty() {
        segments.push(builder.finish());
        names.push(None);
        merge_tail(&mut segments, &mut names, &mut superseded)?;
    }
    let end = wm.size + new.complete_end;
    let header = Header {
        watermark: Watermark {
            seq: new.records.iter().map(|r| r.seq).max().unwrap_or(wm.seq),
            size: end,
            hash: store.log_hash(id, end)?,
        },
        plan,
        segments: Vec::new(),
        ..header
    };
    Ok(Some(save(dir, header, segments, names, &superseded)))
}

/// The threads after appending `new` (skeletons of the new records) without projecting what
/// came before, when the new records cannot change it: no revert, compaction or session
/// record, and every new fold starts after the last archived span. Without a new fold the
/// threads stay as they are; with some, projecting the records from the first new fold's
/// start on (old fold records left out: their effect is in `old`) places the new folds exactly
/// as projecting everything would. `None` when that does not hold, or when an old fold or
/// compaction could still change (one the view did not apply, or one that names seqs past the
/// watermark).
fn quick_plan(old: &Plan, segments: &[Segment], new: &[Record], wm_seq: u64) -> Option<Plan> {
    let after = old
        .threads
        .iter()
        .zip(&old.members)
        .filter(|(_, m)| !m.ask)
        .map(|(t, _)| t.until)
        .max()
        .unwrap_or(0);
    if old.unplaced > 0 || after > wm_seq {
        return None;
    }
    let mut from = None;
    for r in new {
        match &r.body {
            Body::Revert { .. } | Body::Compaction { .. } | Body::Session(_) => return None,
            Body::Fold(f) if f.since <= after => return None,
            Body::Fold(f) => from = Some(from.unwrap_or(f.since).min(f.since)),
            _ => {}
        }
    }
    let mut plan = old.clone();
    let Some(from) = from else {
        for r in new {
            extract::add_ask(&mut plan, r);
        }
        return Some(plan);
    };
    // Asks are added after the folds, new ones only (the old ones are in `old`).
    let mut suffix = skeleton_after(segments, from - 1)?;
    suffix.retain(|r| match r.body {
        Body::Ask { .. } => false,
        Body::Fold(_) | Body::Compaction { .. } => r.seq > wm_seq,
        _ => true,
    });
    suffix.extend(
        new.iter()
            .filter(|r| !matches!(r.body, Body::Ask { .. }))
            .cloned(),
    );
    // A fold starting at a tool result snaps back to its step's assistant message; that must
    // not lie before the suffix.
    let first = suffix.iter().find(|r| {
        matches!(
            r.body,
            Body::User { .. } | Body::Assistant { .. } | Body::ToolResult { .. }
        )
    });
    if first.is_some_and(|r| matches!(r.body, Body::ToolResult { .. })) {
        return None;
    }
    let added = extract::plan(&suffix, 0);
    // Spans come before asks, as projecting everything orders them.
    let at = plan
        .members
        .iter()
        .position(|m| m.ask)
        .unwrap_or(plan.members.len());
    plan.threads.splice(at..at, added.threads);
    plan.members.splice(at..at, added.members);
    plan.unplaced = added.unplaced;
    for r in new {
        extract::add_ask(&mut plan, r);
    }
    Some(plan)
}

/// The threads from projecting the whole skeleton (the segments' and `new`), and the seqs of
/// new records that are not on the visible branch. `None` when a skeleton does not read back.
fn full_plan(
    segments: &[Segment],
    new: &[Record],
    own_start: usize,
) -> Option<(Plan, Option<HashSet<u64>>)> {
    let mut all = Vec::new();
    for seg in segments {
        all.extend(parse_skeleton(&seg.skeleton().ok()?)?);
    }
    let first_new = all.len();
    all.extend_from_slice(new);
    let plan = extract::plan(&all, own_start);
    let visible = hotl_log::visible_mask(&all);
    let hidden = all[first_new..]
        .iter()
        .zip(&visible[first_new..])
        .filter(|(_, v)| !**v)
        .map(|(r, _)| r.seq)
        .collect();
    Some((plan, Some(hidden)))
}

/// The skeleton records with seq above `after`, from the newest segments back.
fn skeleton_after(segments: &[Segment], after: u64) -> Option<Vec<Record>> {
    let mut parts = Vec::new();
    for seg in segments.iter().rev() {
        let from = seg.skeleton_after(after)?;
        parts.push(parse_skeleton(&seg.skeleton_from(from).ok()?)?);
        if from > 0 {
            break;
        }
    }
    Some(parts.into_iter().rev().flatten().collect())
}

/// Skeleton lines back into records; `None` unless every line reads cleanly.
fn parse_skeleton(bytes: &[u8]) -> Option<Vec<Record>> {
    let log = read_from(bytes, ReadOptions::default()).ok()?;
    (log.report.is_clean() && log.report.torn_tail.is_none()).then_some(log.records)
}

/// Builds `id`'s index from its whole lineage, and saves it.
fn rebuild(store: &Store, id: &str, dir: &Path) -> Result<Archive> {
    let lineage = store.lineage(id)?;
    let own_start = lineage.records[..lineage.own_start]
        .iter()
        .filter(|r| extract::skeleton(r).is_some())
        .count();
    let visible = hotl_log::visible_mask(&lineage.records);
    let blobs = store.blobs();
    // Tokenizing is most of the work: contiguous slices of the lineage are indexed in
    // parallel, one segment each, in order.
    let workers = if lineage.records.len() < PARALLEL_MIN_RECORDS {
        1
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get().min(MAX_WORKERS))
    };
    let per = lineage.records.len().div_ceil(workers).max(1);
    let built: Vec<Result<(Segment, Vec<Record>)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = lineage
            .records
            .chunks(per)
            .zip(visible.chunks(per))
            .map(|(records, visible)| scope.spawn(|| index_slice(records, visible, &blobs)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    });
    let mut segments = Vec::with_capacity(built.len());
    let mut skeleton = Vec::new();
    for part in built {
        let (segment, records) = part?;
        segments.push(segment);
        skeleton.extend(records);
    }
    let plan = extract::plan(&skeleton, own_start);
    drop(skeleton);
    let size = lineage.own_complete_end;
    let header = Header {
        format: FORMAT,
        session: id.to_owned(),
        watermark: Watermark {
            seq: lineage.own().iter().map(|r| r.seq).max().unwrap_or(0),
            size,
            hash: store.log_hash(id, size)?,
        },
        root: extract::session_cwd(&lineage.records, lineage.own_start).unwrap_or_default(),
        own_start,
        segments: Vec::new(),
        plan,
    };
    drop(lineage);
    let superseded: Vec<String> = read_header(dir, id)
        .map(|old| old.segments.into_iter().map(|r| r.name).collect())
        .unwrap_or_default();
    let names = vec![None; segments.len()];
    Ok(save(dir, header, segments, names, &superseded))
}

/// A segment of `records`' documents (those on the visible branch) and skeletons, and the
/// skeleton records.
fn index_slice(
    records: &[Record],
    visible: &[bool],
    blobs: &hotl_log::Blobs,
) -> Result<(Segment, Vec<Record>)> {
    let mut builder = Builder::default();
    let mut lines = Vec::new();
    let mut skeleton = Vec::new();
    for record in records {
        if let Some(s) = extract::skeleton(record) {
            lines.extend(encode_line(&s)?);
            skeleton.push(s);
        }
    }
    builder.skeleton(&lines);
    drop(lines);
    for (record, _) in records.iter().zip(visible).filter(|(_, v)| **v) {
        for (kind, text) in extract::record_docs(record, Some(blobs)) {
            builder.add(record.seq, kind, text.as_bytes());
        }
    }
    Ok((builder.finish(), skeleton))
}

/// Merges the newest segments while the one before the newest is not much larger (or there are
/// too many), so sizes grow geometrically and there are only logarithmically many.
fn merge_tail(
    segments: &mut Vec<Segment>,
    names: &mut Vec<Option<String>>,
    superseded: &mut Vec<String>,
) -> Result<()> {
    while segments.len() >= 2 {
        let n = segments.len();
        let (older, newer) = (&segments[n - 2], &segments[n - 1]);
        if older.weight() > 2 * newer.weight() && n <= MAX_SEGMENTS {
            break;
        }
        let io = |seg: &Segment| {
            let path = seg.path().map_or_else(PathBuf::new, Path::to_owned);
            move |source| RecallError::Io { path, source }
        };
        let mut builder = Builder::default();
        for seg in [older, newer] {
            builder.skeleton(&seg.skeleton().map_err(io(seg))?);
            for (d, meta) in seg.docs().enumerate() {
                let text = seg.text(d).map_err(io(seg))?;
                builder.add(meta.key, meta.kind, &text);
            }
        }
        segments.truncate(n - 2);
        superseded.extend(names.drain(n - 2..).flatten());
        segments.push(builder.finish());
        names.push(None);
    }
    Ok(())
}

/// Writes the segments that are only in memory, then the `.idx`, then deletes what it
/// superseded. Returns the archive, its segments read from their files when the writes
/// succeeded and still in memory otherwise.
fn save(
    dir: &Path,
    mut header: Header,
    segments: Vec<Segment>,
    names: Vec<Option<String>>,
    superseded: &[String],
) -> Archive {
    let root = PathBuf::from(&header.root);
    let plan = header.plan.clone();
    let id = header.session.clone();
    let mut kept = Vec::with_capacity(segments.len());
    let mut refs = Vec::with_capacity(segments.len());
    let mut ok = create_dir(dir)
        .inspect_err(|e| {
            tracing::warn!(
                "the recall index is kept in memory: {} cannot be made: {e}",
                dir.display()
            );
        })
        .is_ok();
    for (seg, name) in segments.into_iter().zip(names) {
        if let Some(name) = name {
            let size = fs::metadata(dir.join(&name)).map_or(0, |m| m.len());
            refs.push(SegRef { name, size });
            kept.push(seg);
            continue;
        }
        if !ok {
            kept.push(seg);
            continue;
        }
        let name = format!("{id}-{}.seg", unique());
        let path = dir.join(&name);
        let written = write_atomic(&path, |w| seg.write_to(w)).and_then(|size| {
            Segment::open(&path)?
                .map(|disk| (disk, size))
                .map_err(|why| io::Error::new(io::ErrorKind::InvalidData, why))
        });
        match written {
            Ok((disk, size)) => {
                refs.push(SegRef { name, size });
                kept.push(disk);
            }
            Err(e) => {
                tracing::warn!(
                    session = id,
                    "the recall index is kept in memory: a segment cannot be written: {e}"
                );
                ok = false;
                kept.push(seg);
            }
        }
    }
    if ok {
        header.segments = refs;
        let saved = serde_json::to_vec(&header)
            .map_err(io::Error::from)
            .and_then(|json| {
                let mut plan = Vec::new();
                codec::encode(&header.plan, &mut plan);
                write_atomic(&dir.join(format!("{id}.idx")), |w| {
                    w.write_all(MAGIC)?;
                    w.write_all(&(json.len() as u64).to_le_bytes())?;
                    w.write_all(&json)?;
                    w.write_all(&plan)
                })
            })
            .inspect_err(|e| {
                tracing::warn!(session = id, "the recall index header is not saved: {e}");
            })
            .ok();
        if saved.is_some() {
            let live: Vec<&str> = header.segments.iter().map(|r| r.name.as_str()).collect();
            for name in superseded.iter().filter(|n| !live.contains(&n.as_str())) {
                let _ = fs::remove_file(dir.join(name));
            }
            sweep(dir, &id, &live);
        }
    }
    Archive::assemble(plan, kept, root)
}

/// Deletes `id`'s unreferenced segment and temp files that are older than [`ORPHAN_AGE`]
/// (left by a crash or by a process that lost a race). Best-effort: a failure costs disk only.
fn sweep(dir: &Path, id: &str, live: &[&str]) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let now = SystemTime::now();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let ours = (name.starts_with(&format!("{id}-")) && name.ends_with(".seg"))
            || (name.starts_with(&format!(".{id}")) && name.ends_with(".tmp"));
        if !ours || live.contains(&name) {
            continue;
        }
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|age| age > ORPHAN_AGE);
        if old {
            let _ = fs::remove_file(entry.path());
        }
    }
}

pub(crate) fn create_dir(dir: &Path) -> io::Result<()> {
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

/// Writes `path` with what `fill` writes, atomically and privately (the one recipe:
/// [`hotl_log::Atomic`]); the bytes written.
pub(crate) fn write_atomic(
    path: &Path,
    fill: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
) -> io::Result<u64> {
    hotl_log::Atomic::PRIVATE.write_with(path, fill)
}

/// 16 hex characters unlikely to repeat across processes and calls.
pub(crate) fn unique() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let mut h = blake3::Hasher::new();
    h.update(&std::process::id().to_le_bytes());
    h.update(&nanos.to_le_bytes());
    h.update(&COUNTER.fetch_add(1, Ordering::Relaxed).to_le_bytes());
    h.finalize().to_hex()[..16].to_owned()
}
