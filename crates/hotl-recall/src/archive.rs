//! The archive: threads, their documents in segments, and search over them.

use std::path::{Path, PathBuf};

use hotl_log::Record;
use regex::bytes::{Regex, RegexBuilder};

use crate::error::{RecallError, Result};
use crate::extract::{self, NOT_ARCHIVED, Owners, Plan};
use crate::prefilter;
use crate::search::{self, invalid};
use crate::segment::{Builder, Segment};
use crate::stale::staleness;
use crate::types::{Doc, DocKind, Hit, Mode, Thread};

/// How big an index is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndexStats {
    /// Segments (a persisted index grows by one per update, merged geometrically).
    pub segments: usize,
    /// Documents indexed, archived or not.
    pub docs: u64,
    /// Documents in archived threads.
    pub archived_docs: u64,
    /// Dictionary terms, summed over segments.
    pub terms: u64,
    /// Text bytes indexed.
    pub text_bytes: u64,
}

/// Everything a session's lineage holds off the main line, indexed for search.
///
/// Made in memory by [`Archive::from_records`], or from the persisted index by
/// [`open_index`](crate::open_index); both search the same way and give the same hits.
pub struct Archive {
    threads: Vec<Thread>,
    /// Per thread: whether it is an earlier ask (its staleness is that of the thread it asked).
    asks: Vec<bool>,
    segments: Vec<Segment>,
    /// Per segment, per document: the index of the owning thread, or [`NOT_ARCHIVED`] (the
    /// persisted index also holds the live main line, so a later fold costs no re-reading).
    owners: Vec<Vec<u32>>,
    /// Per segment: `None` for the session's own, or where a fork's work sits in its history
    /// (the seq its outermost fork was pinned at), to order hits newest first across both.
    pinned_at: Vec<Option<u64>>,
    /// Archived documents, and their total length in tokens.
    docs: u64,
    tokens: u64,
    root: PathBuf,
}

impl Archive {
    /// Everything a session's lineage holds off the main line: every folded span's and
    /// compacted span's original items (user text, assistant text, reasoning, tool outputs)
    /// and its note, with the thread's handle (a compaction has handle `compaction`). `files`
    /// of a thread: the file touches of its tool results. Touched paths are resolved against
    /// the session's working directory.
    pub fn from_records(records: &[Record], own_start: usize) -> Archive {
        let plan = extract::plan(records, own_start);
        let owners = Owners::of(&plan);
        let mut builder = Builder::default();
        for record in records.iter().filter(|r| owners.holds(r.seq)) {
            for (kind, text) in extract::record_docs(record, None) {
                if owners.owner(record.seq, kind) != NOT_ARCHIVED {
                    builder.add(record.seq, kind, text.as_bytes());
                }
            }
        }
        let root = extract::session_cwd(records, own_start).unwrap_or_default();
        Archive::assemble(plan, vec![builder.finish()], root.into())
    }

    /// Adds a delegated session's own work (a fork's): its own log's records on their visible
    /// branch (user, assistant and tool calls, reasoning, tool outputs, notes and asks) as a
    /// thread under `handle` with `task` as its note and its tool results' touches as files,
    /// plus the threads its own log archived, as [`Archive::from_records`] finds them (folds,
    /// compactions and asks made inside it). Each document belongs to the innermost thread
    /// holding it: a span folded inside the fork is found under that fold's handle, the rest
    /// under `handle`. Tool outputs stored as blobs are read from `blobs` when given.
    pub fn add_delegated(
        &mut self,
        handle: &str,
        task: &str,
        own: &[Record],
        blobs: Option<&hotl_log::Blobs>,
    ) {
        let pinned_at = own.first().and_then(|r| match &r.body {
            hotl_log::Body::Session(start) => start.parent.as_ref().map(|p| p.seq),
            _ => None,
        });
        if let Some(subtree) = delegated_thread(handle, task, own, blobs) {
            self.add_subtree(subtree, pinned_at.unwrap_or(u64::MAX));
        }
    }

    /// Adds a delegated session's threads, owning the documents of its segment as it says;
    /// its work sits at `pinned_at` in this session's history (for a fork of a fork: where the
    /// outermost one was pinned).
    pub(crate) fn add_subtree(&mut self, subtree: Subtree, pinned_at: u64) {
        let Subtree {
            threads,
            asks,
            owners,
            segment,
        } = subtree;
        let base = self.threads.len() as u32;
        self.threads.extend(threads);
        self.asks.extend(asks);
        self.docs += segment.n_docs() as u64;
        self.tokens += segment.docs().map(|d| u64::from(d.tokens)).sum::<u64>();
        self.owners
            .push(owners.into_iter().map(|o| base + o).collect());
        self.pinned_at.push(Some(pinned_at));
        self.segments.push(segment);
    }

    /// An archive over `segments`, whose documents `plan` assigns to threads.
    pub(crate) fn assemble(plan: Plan, segments: Vec<Segment>, root: PathBuf) -> Archive {
        let owners_of = Owners::of(&plan);
        let mut docs = 0;
        let mut tokens = 0;
        let owners = segments
            .iter()
            .map(|seg| {
                seg.docs()
                    .map(|d| {
                        let o = owners_of.owner(d.key, d.kind);
                        if o != NOT_ARCHIVED {
                            docs += 1;
                            tokens += u64::from(d.tokens);
                        }
                        o
                    })
                    .collect()
            })
            .collect();
        let asks = (0..plan.threads.len())
            .map(|t| plan.members.get(t).is_some_and(|m| m.ask))
            .collect();
        Archive {
            threads: plan.threads,
            asks,
            pinned_at: vec![None; segments.len()],
            segments,
            owners,
            docs,
            tokens,
            root,
        }
    }

    /// The same archive with the main line searched too: every document of the session's own
    /// records after seq `after` that no thread archived (a fork's inherited history is its
    /// parent's to show), under one more thread whose handle is empty. What a search of a
    /// session's whole text (`hotl recall --remote`) runs over.
    pub fn with_main_line(self, after: u64) -> Archive {
        self.with_live(after, |_| true)
    }

    /// The same archive with the main line's tool outputs searched too, each whole (a capped
    /// output's full text, from its blob), under one more thread whose handle is empty: the
    /// middle of an output the model was shown only the head and tail of is one recall away.
    pub fn with_live_outputs(self) -> Archive {
        self.with_live(0, |kind| kind == DocKind::ToolOutput)
    }

    /// The main line's documents after `after` of the kinds `keep` takes, as one more thread.
    fn with_live(mut self, after: u64, keep: impl Fn(DocKind) -> bool) -> Archive {
        let main = self.threads.len() as u32;
        let mut added = false;
        for (s, seg) in self.segments.iter().enumerate() {
            // A fork's segment is its own thread already.
            if self.pinned_at[s].is_some() {
                continue;
            }
            for (d, meta) in seg.docs().enumerate() {
                // A note outside any thread (a fold the view did not apply) has no span to
                // stamp it with.
                let live = self.owners[s][d] == NOT_ARCHIVED
                    && meta.kind != DocKind::Note
                    && keep(meta.kind);
                if live && meta.key > after {
                    self.owners[s][d] = main;
                    self.docs += 1;
                    self.tokens += u64::from(meta.tokens);
                    added = true;
                }
            }
        }
        if added {
            self.threads.push(Thread {
                handle: String::new(),
                note: String::new(),
                since: after + 1,
                until: u64::MAX,
                files: Vec::new(),
            });
            self.asks.push(false);
        }
        self
    }

    /// The archived threads: the spans, in transcript order (an outer compaction before what
    /// it holds), then the earlier asks, then per fork its thread and the threads its own log
    /// archived (in that order).
    pub fn threads(&self) -> &[Thread] {
        &self.threads
    }

    /// How many archived documents there are.
    pub fn doc_count(&self) -> u64 {
        self.docs
    }

    /// The size of what is indexed (live documents of the persisted index included).
    pub fn stats(&self) -> IndexStats {
        IndexStats {
            segments: self.segments.len(),
            docs: self.segments.iter().map(|s| s.n_docs() as u64).sum(),
            archived_docs: self.docs,
            terms: self.segments.iter().map(|s| s.n_terms() as u64).sum(),
            text_bytes: self.segments.iter().map(|s| s.text_bytes()).sum(),
        }
    }

    /// The directory touched paths are resolved against (the session's working directory).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Resolves touched paths against `root` instead of the session's working directory.
    pub fn with_root(mut self, root: impl Into<PathBuf>) -> Archive {
        self.root = root.into();
        self
    }

    /// Every archived document, in record order (reads their text).
    pub fn docs(&self) -> Result<Vec<Doc>> {
        let mut out = Vec::new();
        for (s, seg) in self.segments.iter().enumerate() {
            for (d, meta) in seg.docs().enumerate() {
                let owner = self.owners[s][d];
                if owner == NOT_ARCHIVED {
                    continue;
                }
                let text = seg.text(d).map_err(|e| self.io(s, e))?;
                out.push(Doc {
                    handle: self.threads[owner as usize].handle.clone(),
                    seq: self.seq_of(owner, meta.key, meta.kind),
                    kind: meta.kind,
                    text: String::from_utf8_lossy(&text).into_owned(),
                });
            }
        }
        Ok(out)
    }

    /// Searches the archive; at most `limit` hits. Ranked: best first (ties: newest first).
    /// Exact and regex: one hit per matching document, newest first (in log order: a note
    /// counts where its fold or compaction record is, after the span; a fork's work where the
    /// fork was pinned), with its first matching line. Each hit names the files its thread touched that changed since.
    pub fn search(&self, query: &str, mode: Mode, limit: usize) -> Result<Vec<Hit>> {
        let found = match mode {
            Mode::Ranked => self.ranked(query, limit)?,
            Mode::Exact => {
                if query.is_empty() {
                    return Err(RecallError::EmptyQuery {
                        query: query.to_owned(),
                    });
                }
                let re = RegexBuilder::new(&regex::escape(query))
                    .case_insensitive(true)
                    .build()
                    .map_err(|e| invalid(query, e))?;
                self.scan(&re, limit, &prefilter::constraints(query))?
            }
            Mode::Regex => {
                let re = RegexBuilder::new(query)
                    .multi_line(true)
                    .build()
                    .map_err(|e| invalid(query, e))?;
                self.scan(&re, limit, &[])?
            }
        };
        let mut stale: Vec<Option<Vec<String>>> = vec![None; self.threads.len()];
        Ok(found
            .into_iter()
            .map(|(owner, mut hit)| {
                let source = self.files_source(owner as usize);
                hit.stale = stale[source]
                    .get_or_insert_with(|| staleness(&self.threads[source], &self.root))
                    .clone();
                hit
            })
            .collect())
    }

    /// The staleness of the thread `handle` names, for a line ahead of what `ask` returns:
    /// the touched files that changed since (see [`staleness`]) of the thread with that handle
    /// that touched files (a fold's, a fork's, a fold's inside a fork), or nothing when none
    /// did. `None` when no thread has that handle.
    pub fn stale_files(&self, handle: &str) -> Option<Vec<String>> {
        let mut named = self
            .threads
            .iter()
            .filter(|t| t.handle == handle)
            .peekable();
        named.peek()?;
        Some(
            named
                .find(|t| !t.files.is_empty())
                .map(|t| staleness(t, &self.root))
                .unwrap_or_default(),
        )
    }

    /// The thread whose files tell thread `t`'s staleness: `t` itself, or, for an earlier ask
    /// (which touches nothing), the first thread that is not an ask with the same handle.
    fn files_source(&self, t: usize) -> usize {
        if !self.asks[t] || !self.threads[t].files.is_empty() {
            return t;
        }
        let handle = &self.threads[t].handle;
        self.threads
            .iter()
            .zip(&self.asks)
            .position(|(other, ask)| !ask && other.handle == *handle)
            .unwrap_or(t)
    }

    fn seq_of(&self, owner: u32, key: u64, kind: DocKind) -> u64 {
        if kind == DocKind::Note {
            self.threads[owner as usize].since
        } else {
            key
        }
    }

    fn io(&self, seg: usize, source: std::io::Error) -> RecallError {
        let path = self.segments[seg]
            .path()
            .map_or_else(PathBuf::new, Path::to_owned);
        if source.kind() == std::io::ErrorKind::InvalidData {
            // The segment is derived: removing it makes the next open rebuild the index.
            // Best-effort; if it stays, the same error comes back.
            tracing::warn!(
                "a damaged recall segment is removed, to be rebuilt: {}: {source}",
                path.display()
            );
            if !path.as_os_str().is_empty()
                && let Err(e) = std::fs::remove_file(&path)
            {
                tracing::warn!("the damaged segment stays: {e}");
            }
            RecallError::Corrupt {
                path,
                reason: source.to_string(),
            }
        } else {
            RecallError::Io { path, source }
        }
    }

    fn hit(&self, s: usize, d: usize, line: String, score: f64) -> (u32, Hit) {
        let owner = self.owners[s][d];
        let meta = self.segments[s].doc(d);
        let hit = Hit {
            handle: self.threads[owner as usize].handle.clone(),
            seq: self.seq_of(owner, meta.key, meta.kind),
            kind: meta.kind,
            line,
            score,
            stale: Vec::new(),
        };
        (owner, hit)
    }

    /// BM25 over the archived documents of every segment.
    fn ranked(&self, query: &str, limit: usize) -> Result<Vec<(u32, Hit)>> {
        let collection = search::Collection {
            segments: &self.segments,
            docs: self.docs,
            tokens: self.tokens,
            skip_common: false,
        };
        let keep = |s: usize, d: u32| self.owners[s][d as usize] != NOT_ARCHIVED;
        let found = search::ranked(&collection, query, limit, keep, |s, e| self.io(s, e))?;
        Ok(found
            .into_iter()
            .map(|f| self.hit(f.segment, f.doc, f.line, f.score))
            .collect())
    }

    /// Scans archived documents newest first, one hit per matching document; only those the
    /// prefilter's `constraints` allow, when they narrow it down.
    fn scan(
        &self,
        re: &Regex,
        limit: usize,
        constraints: &[prefilter::Constraint],
    ) -> Result<Vec<(u32, Hit)>> {
        // The session's own segments, newest first, give at most `limit`; each fork's give as
        // many; the merge orders a fork's work where it was pinned in the history.
        let mut found: Vec<((u64, u64), u32, Hit)> = Vec::new();
        let mut own = 0;
        for s in (0..self.segments.len()).rev() {
            let want = match self.pinned_at[s] {
                None => limit - own,
                Some(_) => limit,
            };
            let before = found.len();
            self.scan_segment(s, re, constraints, want, &mut found)?;
            if self.pinned_at[s].is_none() {
                own += found.len() - before;
            }
        }
        found.sort_by_key(|f| std::cmp::Reverse(f.0));
        found.truncate(limit);
        Ok(found.into_iter().map(|(_, o, h)| (o, h)).collect())
    }

    /// Scans segment `s` newest document first, adding at most `want` hits to `out`, each with
    /// its place in the session's history.
    fn scan_segment(
        &self,
        s: usize,
        re: &Regex,
        constraints: &[prefilter::Constraint],
        want: usize,
        out: &mut Vec<((u64, u64), u32, Hit)>,
    ) -> Result<()> {
        if want == 0 {
            return Ok(());
        }
        let seg = &self.segments[s];
        let owners = &self.owners[s];
        let mut left = want;
        let found = |d: usize, text: &[u8], m: regex::bytes::Match<'_>| {
            let count = re.find_iter(text).count();
            let line = search::clip(text, m.start(), m.end());
            let (owner, hit) = self.hit(s, d, line, count as f64);
            let key = seg.doc(d).key;
            let place = match self.pinned_at[s] {
                None => (key, 0),
                Some(pin) => (pin, key),
            };
            out.push((place, owner, hit));
            left -= 1;
            left == 0
        };
        let keep = |d: usize| owners[d] != NOT_ARCHIVED;
        search::scan_segment(seg, re, constraints, keep, found, None).map_err(|e| self.io(s, e))?;
        Ok(())
    }
}

/// A delegated session's own work, ready to add to an archive (see [`Archive::add_delegated`]).
pub(crate) struct Subtree {
    /// The fork's thread first, then the threads its own log archived, as
    /// [`extract::plan`] orders them.
    pub threads: Vec<Thread>,
    /// Per thread: whether it is an earlier ask.
    pub asks: Vec<bool>,
    /// Per document of `segment`: the index in `threads` of its owner.
    pub owners: Vec<u32>,
    /// The documents of every record of the fork's own log on its visible branch, and the
    /// fork's task (its thread's note).
    pub segment: Segment,
}

/// A delegated session's own work as threads and the segment of its documents (see
/// [`Archive::add_delegated`]); `None` when it has no visible record.
pub(crate) fn delegated_thread(
    handle: &str,
    task: &str,
    own: &[Record],
    blobs: Option<&hotl_log::Blobs>,
) -> Option<Subtree> {
    let visible = hotl_log::visible_mask(own);
    let live: Vec<&Record> = own
        .iter()
        .zip(&visible)
        .filter(|(_, v)| **v)
        .map(|(r, _)| r)
        .collect();
    let (first, last) = (live.first()?, live.last()?);
    let mut fork = Thread {
        handle: handle.to_owned(),
        note: task.to_owned(),
        since: first.seq,
        until: last.seq,
        files: Vec::new(),
    };
    // What the fork archived inside itself, found as for a main-line session; the rest is the
    // fork's thread (index 0), the inner threads follow it.
    let plan = extract::plan(own, 0);
    let inner = Owners::of(&plan);
    let mut builder = Builder::default();
    let mut owners = vec![0];
    builder.add(first.seq, DocKind::Note, task.as_bytes());
    for record in &live {
        if let hotl_log::Body::ToolResult { files, .. } = &record.body {
            fork.files.extend_from_slice(files);
        }
        for (kind, text) in extract::record_docs(record, blobs) {
            let owner = inner.owner(record.seq, kind);
            owners.push(if owner == NOT_ARCHIVED { 0 } else { owner + 1 });
            builder.add(record.seq, kind, text.as_bytes());
        }
    }
    let asks = std::iter::once(false)
        .chain((0..plan.threads.len()).map(|t| plan.members.get(t).is_some_and(|m| m.ask)))
        .collect();
    let mut threads = Vec::with_capacity(plan.threads.len() + 1);
    threads.push(fork);
    threads.extend(plan.threads);
    Some(Subtree {
        threads,
        asks,
        owners,
        segment: builder.finish(),
    })
}

impl std::fmt::Debug for Archive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Archive")
            .field("threads", &self.threads.len())
            .field("segments", &self.segments.len())
            .field("docs", &self.docs)
            .field("root", &self.root)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{LINE_CHARS, best_line, clip, term_finder};

    #[test]
    fn an_archive_can_be_shared_between_threads() {
        fn check<T: Send + Sync>() {}
        check::<Archive>();
    }

    #[test]
    fn clip_keeps_short_lines_and_cuts_long_ones_around_the_match() {
        assert_eq!(clip(b"a\n  hello world  \nb", 5, 10), "hello world");
        let long = format!("{}needle{}", "x".repeat(500), "y".repeat(500));
        let c = clip(long.as_bytes(), 500, 506);
        assert!(c.contains("needle"), "{c}");
        assert!(c.starts_with('…') && c.ends_with('…'));
        assert_eq!(c.chars().count(), LINE_CHARS + 2);
        // A line far longer than what is shown is decoded only around the match.
        let huge = format!("{}needle{}", "é".repeat(2_000_000), "y".repeat(3_000_000));
        let at = "é".len() * 2_000_000;
        let c = clip(huge.as_bytes(), at, at + 6);
        assert!(c.contains("needle") && c.contains('é'), "{c}");
        assert!(c.starts_with('…') && c.ends_with('…'));
        assert_eq!(c.chars().count(), LINE_CHARS + 2);
    }

    #[test]
    fn best_line_prefers_the_line_with_more_and_rarer_terms() {
        let text = b"common word here\nrare and common together\nrare alone";
        let terms = vec![b"common".to_vec(), b"rare".to_vec()];
        let idfs = [0.1, 2.0];
        let finder = term_finder(&terms);
        assert_eq!(
            best_line(text, &terms, &idfs, &finder),
            "rare and common together"
        );
        assert_eq!(
            best_line(text, &terms, &idfs, &None),
            "rare and common together"
        );
    }
}
