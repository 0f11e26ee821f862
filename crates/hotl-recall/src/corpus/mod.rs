//! The index of every session: the full text of each root session's log (messages, tool
//! outputs, notes, archived spans) in one set of memory-mapped segments under the home's
//! `index/search/`, for searching across sessions with no model call (`hotl search`, the
//! resume picker's content search, `recall` with `scope: "sessions"`).
//!
//! It is derived and incremental: [`SessionIndex::open`] brings it up to date from each log's
//! last indexed byte (a `stat` for a log that did not change), rebuilds it when it is missing or
//! damaged, and holds a lock while it writes so two processes never update it at once; a
//! search itself takes no lock (segments are never changed once written, the manifest is
//! replaced whole). Each document names its source session; the manifest says what every
//! session was indexed through, its directory and last activity (what searches filter by),
//! whether it was dropped, and its folded spans (the thread a hit is in, and whether the files
//! that thread touched changed since). Ranking is the archive's BM25 over every document a
//! search may show.

mod manifest;
mod update;

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use hotl_log::Store;
use regex::bytes::RegexBuilder;

use crate::error::{RecallError, Result};
use crate::persist::create_dir;
use crate::prefilter;
use crate::search::{self, Collection, clip, invalid};
use crate::segment::Segment;
use crate::stale::staleness;
use crate::types::{DocKind, Mode};

use manifest::{Manifest, Source};
pub use update::Refreshed;

/// The longest query searched, in characters.
pub const MAX_QUERY_CHARS: usize = 4096;
/// The most a compiled regex may take (its program and lazy DFA).
const REGEX_BYTES: usize = 4 << 20;
/// How long an exact or regex walk may read before it stops with what it found.
const SCAN_TIME: Duration = Duration::from_secs(5);
/// The index's directory under the home's derived files.
const DIR: &str = "search";
/// The lock file held while the index is updated.
const LOCK: &str = "lock";

/// Which sessions a search looks at.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    /// Only sessions made in this directory or below it.
    pub project: Option<String>,
    /// Only sessions active at or after this time (RFC 3339 UTC, compared as text).
    pub since: Option<String>,
    /// Sessions left out (by id).
    pub leave_out: Vec<String>,
}

/// One match in another session.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionHit {
    /// The session's id.
    pub session: String,
    /// The directory it was made in.
    pub project: String,
    /// Its newest record's time.
    pub updated: String,
    /// The record's seq (its stamp is `t<seq>`).
    pub seq: u64,
    /// What the document was.
    pub kind: DocKind,
    /// The best matching line, trimmed to about 200 characters.
    pub line: String,
    /// BM25 score (ranked), or the number of matches in the document (exact, regex).
    pub score: f64,
    /// The handle of the folded or compacted span holding it, if one does.
    pub thread: Option<String>,
    /// Files that span touched that changed since (or are gone).
    pub stale: Vec<String>,
}

/// What a search found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Found {
    /// The hits: ranked, best first; exact and regex, newest session first.
    pub hits: Vec<SessionHit>,
    /// Set when an exact or regex walk stopped before reading everything, saying why.
    pub partial: Option<String>,
}

/// How big the index is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SessionIndexStats {
    /// Sessions indexed (shown ones: not dropped, not gone).
    pub sessions: usize,
    /// Documents of those sessions.
    pub docs: u64,
    /// Segment files.
    pub segments: usize,
    /// Bytes on disk (segments and manifest).
    pub bytes: u64,
}

/// The index of every session, opened (see the module docs).
pub struct SessionIndex {
    dir: PathBuf,
    manifest: Manifest,
    segments: Vec<Segment>,
    refreshed: Refreshed,
}

impl SessionIndex {
    /// Opens the index of `store`'s sessions, bringing it up to date (or building it).
    pub fn open(store: &Store) -> Result<SessionIndex> {
        let dir = store.derived_dir(DIR);
        let io = |path: &Path| {
            let path = path.to_owned();
            move |source| RecallError::Io { path, source }
        };
        create_dir(&dir).map_err(io(&dir))?;
        let lock = lock(&dir)?;
        let (mut manifest, mut segments) = load(&dir);
        let before = manifest.segments.clone();
        let refreshed = update::Updater::new(store, &dir, &mut manifest, &mut segments).run()?;
        // Most opens find every log as it was: rewriting a manifest of megabytes then would be
        // most of what a search costs.
        if refreshed.changed || manifest.segments != before || !manifest::exists(&dir) {
            manifest.save(&dir).map_err(io(&dir))?;
        }
        sweep(&dir, &manifest);
        drop(lock);
        Ok(SessionIndex {
            dir,
            manifest,
            segments,
            refreshed,
        })
    }

    /// What opening it indexed.
    pub fn refreshed(&self) -> &Refreshed {
        &self.refreshed
    }

    /// Its size.
    pub fn stats(&self) -> SessionIndexStats {
        let shown = self.manifest.sources.iter().filter(|s| s.shown());
        let bytes = fs::read_dir(&self.dir)
            .map(|entries| {
                entries
                    .flatten()
                    .filter_map(|e| e.metadata().ok())
                    .map(|m| m.len())
                    .sum()
            })
            .unwrap_or(0);
        SessionIndexStats {
            sessions: shown.clone().count(),
            docs: shown.map(|s| s.docs).sum(),
            segments: self.segments.len(),
            bytes,
        }
    }

    /// Searches the sessions `scope` allows: at most `limit` hits.
    pub fn search(&self, query: &str, mode: Mode, scope: &Scope, limit: usize) -> Result<Found> {
        let chars = query.chars().count();
        if chars > MAX_QUERY_CHARS {
            return Err(RecallError::QueryTooLong {
                chars,
                max: MAX_QUERY_CHARS,
            });
        }
        let allowed: Vec<bool> = self
            .manifest
            .sources
            .iter()
            .map(|s| s.shown() && in_scope(s, scope))
            .collect();
        let keep = |source: u32| allowed.get(source as usize).copied().unwrap_or(false);
        match mode {
            Mode::Ranked => self.ranked(query, limit, &allowed, keep),
            Mode::Exact | Mode::Regex => self.scan(query, mode, limit, keep),
        }
    }

    fn ranked(
        &self,
        query: &str,
        limit: usize,
        allowed: &[bool],
        keep: impl Fn(u32) -> bool,
    ) -> Result<Found> {
        let counted = self
            .manifest
            .sources
            .iter()
            .zip(allowed)
            .filter(|(_, a)| **a);
        let collection = Collection {
            segments: &self.segments,
            docs: counted.clone().map(|(s, _)| s.docs).sum(),
            tokens: counted.map(|(s, _)| s.tokens).sum(),
            // Over every session, a word most documents hold costs most and says least.
            skip_common: true,
        };
        let keep_doc = |s: usize, d: u32| keep(self.segments[s].doc(d as usize).source);
        let found = search::ranked(&collection, query, limit, keep_doc, |s, e| self.io(s, e))?;
        let hits = found
            .into_iter()
            .map(|f| self.hit(f.segment, f.doc, f.line, f.score))
            .collect();
        Ok(Found {
            hits,
            partial: None,
        })
    }

    /// Exact and regex: the newest segments first, at most `limit` documents, then ordered
    /// newest session first; stops after [`SCAN_TIME`] with what it found.
    fn scan(
        &self,
        query: &str,
        mode: Mode,
        limit: usize,
        keep: impl Fn(u32) -> bool,
    ) -> Result<Found> {
        if query.is_empty() {
            return Err(RecallError::EmptyQuery {
                query: query.to_owned(),
            });
        }
        let (pattern, constraints) = match mode {
            Mode::Exact => (regex::escape(query), prefilter::constraints(query)),
            _ => (query.to_owned(), Vec::new()),
        };
        let re = RegexBuilder::new(&pattern)
            .case_insensitive(mode == Mode::Exact)
            .multi_line(true)
            .size_limit(REGEX_BYTES)
            .dfa_size_limit(REGEX_BYTES)
            .build()
            .map_err(|e| invalid(query, e))?;
        let deadline = Instant::now() + SCAN_TIME;
        let mut hits = Vec::new();
        let mut partial = None;
        for s in (0..self.segments.len()).rev() {
            if hits.len() >= limit {
                break;
            }
            let seg = &self.segments[s];
            let found = |d: usize, text: &[u8], m: regex::bytes::Match<'_>| {
                let count = re.find_iter(text).count();
                hits.push(self.hit(s, d, clip(text, m.start(), m.end()), count as f64));
                hits.len() >= limit
            };
            let keep_doc = |d: usize| keep(seg.doc(d).source);
            let done =
                search::scan_segment(seg, &re, &constraints, keep_doc, found, Some(deadline))
                    .map_err(|e| self.io(s, e))?;
            if !done {
                partial = Some(format!(
                    "the search stopped after {} s with what it had found; narrow it with \
                     --project or --since, or give a word the index can look up",
                    SCAN_TIME.as_secs()
                ));
                break;
            }
        }
        hits.sort_by(|a, b| (&b.updated, b.seq).cmp(&(&a.updated, a.seq)));
        Ok(Found { hits, partial })
    }

    fn hit(&self, s: usize, d: usize, line: String, score: f64) -> SessionHit {
        let meta = self.segments[s].doc(d);
        let src = &self.manifest.sources[meta.source as usize];
        let span = src.span_of(meta.key);
        SessionHit {
            session: src.id.clone(),
            project: src.cwd.clone(),
            updated: src.updated.clone(),
            seq: meta.key,
            kind: meta.kind,
            line,
            score,
            thread: span.map(|t| t.handle.clone()),
            stale: span
                .filter(|t| !t.files.is_empty())
                .map(|t| staleness(t, Path::new(&src.cwd)))
                .unwrap_or_default(),
        }
    }

    fn io(&self, s: usize, source: std::io::Error) -> RecallError {
        let path = self.segments[s]
            .path()
            .map_or_else(|| self.dir.clone(), Path::to_owned);
        if source.kind() == std::io::ErrorKind::InvalidData {
            RecallError::Corrupt {
                path,
                reason: source.to_string(),
            }
        } else {
            RecallError::Io { path, source }
        }
    }

    /// Rewrites the segments without the documents of dropped and deleted sessions, and the
    /// manifest without those sessions (what `hotl gc` does); returns the bytes freed.
    /// An index never built is left unbuilt (0).
    pub fn compact(store: &Store) -> Result<u64> {
        if !store.derived_dir(DIR).join(manifest::FILE).exists() {
            return Ok(0);
        }
        let before = SessionIndex::open(store)?;
        let had = before.stats().bytes;
        let wasted = before.manifest.sources.iter().any(|s| !s.shown());
        drop(before);
        if !wasted {
            return Ok(0);
        }
        let dir = store.derived_dir(DIR);
        // Renumbering sources is a rebuild of every segment: done from the kept documents.
        let lock = lock(&dir)?;
        let (manifest, segments) = load(&dir);
        let (manifest, segments) = update::renumbered(&dir, manifest, segments)?;
        manifest.save(&dir).map_err(|source| RecallError::Io {
            path: dir.clone(),
            source,
        })?;
        drop(segments);
        sweep(&dir, &manifest);
        drop(lock);
        let after = SessionIndex::open(store)?.stats().bytes;
        Ok(had.saturating_sub(after))
    }
}

impl std::fmt::Debug for SessionIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionIndex")
            .field("dir", &self.dir)
            .field("sources", &self.manifest.sources.len())
            .field("segments", &self.segments.len())
            .finish()
    }
}

/// Opens `store`'s index and searches it ([`SessionIndex::search`]); an index found damaged
/// during the search is removed, rebuilt and searched once more.
pub fn search_sessions(
    store: &Store,
    query: &str,
    mode: Mode,
    scope: &Scope,
    limit: usize,
) -> Result<(Found, Refreshed)> {
    let index = SessionIndex::open(store)?;
    match index.search(query, mode, scope, limit) {
        Err(RecallError::Corrupt { path, reason }) => {
            tracing::warn!(
                "the session index is damaged ({}: {reason}); it is rebuilt",
                path.display()
            );
            let _ = fs::remove_file(index.dir.join(manifest::FILE));
            drop(index);
            let index = SessionIndex::open(store)?;
            let found = index.search(query, mode, scope, limit)?;
            Ok((found, index.refreshed))
        }
        Ok(found) => Ok((found, index.refreshed)),
        Err(e) => Err(e),
    }
}

/// Takes the index's update lock in `dir` (waiting for another process's update to end).
fn lock(dir: &Path) -> Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let path = dir.join(LOCK);
    let io = |source| RecallError::Io {
        path: path.clone(),
        source,
    };
    let file = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .open(&path)
        .map_err(io)?;
    file.lock().map_err(io)?;
    Ok(file)
}

/// Whether `scope` allows source `s`.
fn in_scope(s: &Source, scope: &Scope) -> bool {
    let project = scope.project.as_deref().is_none_or(|p| {
        let p = p.trim_end_matches('/');
        s.cwd == p
            || s.cwd
                .strip_prefix(p)
                .is_some_and(|rest| rest.starts_with('/'))
    });
    let since = scope
        .since
        .as_deref()
        .is_none_or(|t| s.updated.as_str() >= t);
    project && since && !scope.leave_out.contains(&s.id)
}

/// The manifest and segments in `dir`; an empty index when either is missing or damaged.
fn load(dir: &Path) -> (Manifest, Vec<Segment>) {
    let fresh = || {
        (
            Manifest {
                format: manifest::FORMAT,
                ..Manifest::default()
            },
            Vec::new(),
        )
    };
    let Some(manifest) = Manifest::load(dir) else {
        return fresh();
    };
    let mut segments = Vec::with_capacity(manifest.segments.len());
    for name in &manifest.segments {
        match Segment::open(&dir.join(name)) {
            Ok(Ok(seg)) => segments.push(seg),
            _ => {
                tracing::warn!("the session index lost a segment ({name}); it is rebuilt");
                return fresh();
            }
        }
    }
    (manifest, segments)
}

/// Removes the segment files the manifest does not name (left by a merge, a rebuild or an
/// interrupted update); called with the lock held.
fn sweep(dir: &Path, manifest: &Manifest) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let ours = name.ends_with(".seg") || name.starts_with('.');
        if ours && !manifest.segments.iter().any(|s| s == name) {
            let _ = fs::remove_file(entry.path());
        }
    }
}
