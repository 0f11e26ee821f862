//! Search over segments, shared by a session's archive and the index of every session: BM25
//! ranking ([`ranked`]) and the newest-first regex walk ([`scan_segment`]), each told which
//! documents count by a filter (a session's archived documents; the sessions a cross-session
//! search may show), and the helpers that pick and clip a hit's line.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::io;
use std::time::Instant;

use regex::bytes::{Regex, RegexBuilder};

use crate::error::{RecallError, Result};
use crate::prefilter;
use crate::segment::Segment;
use crate::token::{for_each_token, holds_token, long_query_tokens, query_terms};

/// A ranked hit scores at least this share of the best hit's score.
const RELATIVE_CUTOFF: f32 = 0.3;
/// How many candidates per wanted hit are checked for the query as written.
const EXACT_CANDIDATES: usize = 4;
/// BM25 term-frequency saturation.
const K1: f64 = 1.2;
/// BM25 length normalisation.
const B: f64 = 0.75;
/// Longest line a hit shows, in characters.
pub(crate) const LINE_CHARS: usize = 200;
/// How much text an exact or regex scan reads at a time.
const SCAN_CHUNK: u64 = 8 << 20;

/// What a ranked search scores over: segments, and the number and total length (in tokens) of
/// the documents that count.
pub(crate) struct Collection<'a> {
    pub segments: &'a [Segment],
    pub docs: u64,
    pub tokens: u64,
    /// Leave out of scoring the query's terms held by more than [`COMMON_SHARE`] of the
    /// documents when it has rarer ones (they weigh next to nothing and cost the most).
    pub skip_common: bool,
}

/// A term in more than this share of a collection's documents is common (see
/// [`Collection::skip_common`]).
const COMMON_SHARE: f64 = 0.1;

/// A ranked hit: its segment and document, its best line and its score.
pub(crate) struct Found {
    pub segment: usize,
    pub doc: usize,
    pub line: String,
    pub score: f64,
}

/// Candidate: score, key (newer first on a tie), segment, document.
type Candidate = (f32, u64, usize, usize);

/// BM25 over the documents of `c` that `keep(segment, doc)` allows; at most `limit` hits, best
/// first (ties: newest first), those holding the query as written ahead of the rest. `io`
/// turns a segment's read error into the caller's error.
pub(crate) fn ranked(
    c: &Collection<'_>,
    query: &str,
    limit: usize,
    keep: impl Fn(usize, u32) -> bool,
    io: impl Fn(usize, io::Error) -> RecallError,
) -> Result<Vec<Found>> {
    let terms = query_terms(query);
    if terms.is_empty() {
        return Err(RecallError::EmptyQuery {
            query: query.to_owned(),
        });
    }
    if limit == 0 || c.docs == 0 {
        return Ok(Vec::new());
    }
    let terms = if c.skip_common {
        without_common(c, terms)
    } else {
        terms
    };
    let scored = score(c, query, &terms, &keep, &io)?;
    let idfs = scored.idfs.clone();
    let best = select(c, &scored, terms.len(), limit);
    let best = exact_first(c, best, query, query_terms(query).len(), limit, &io)?;
    let finder = term_finder(&terms);
    let mut hits = Vec::with_capacity(best.len());
    for (score, _, s, d) in best {
        let text = c.segments[s].text(d).map_err(|e| io(s, e))?;
        let line = best_line(&text, &terms, &idfs, &finder);
        hits.push(Found {
            segment: s,
            doc: d,
            line,
            score: f64::from(score),
        });
    }
    Ok(hits)
}

/// `terms` without the common ones, when some are not common (the dictionaries' document
/// counts say which, before any posting is read).
fn without_common(c: &Collection<'_>, terms: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    let all: u64 = c.segments.iter().map(|s| s.n_docs() as u64).sum();
    let df = |term: &[u8]| -> u64 {
        (c.segments.iter())
            .filter_map(|s| s.lookup(term).map(|i| u64::from(s.df(i))))
            .sum()
    };
    let common: Vec<bool> = terms
        .iter()
        .map(|t| df(t) as f64 > COMMON_SHARE * all as f64)
        .collect();
    if common.iter().all(|c| *c) || !common.iter().any(|c| *c) {
        return terms;
    }
    terms
        .into_iter()
        .zip(common)
        .filter_map(|(t, common)| (!common).then_some(t))
        .collect()
}

/// What scoring found: per segment, per document, its BM25 score and how many of the query's
/// terms it holds (allocated only for segments that hold a term); the documents that hold any
/// (so choosing the best reads only those); and each term's idf.
struct Scored {
    scores: Vec<Vec<f32>>,
    matched: Vec<Vec<u8>>,
    touched: Vec<(u32, u32)>,
    idfs: Vec<f64>,
}

fn score(
    c: &Collection<'_>,
    query: &str,
    terms: &[Vec<u8>],
    keep: &impl Fn(usize, u32) -> bool,
    io: &impl Fn(usize, io::Error) -> RecallError,
) -> Result<Scored> {
    let n = c.docs as f64;
    let avgdl = (c.tokens as f64 / n).max(1.0);
    let mut scores: Vec<Vec<f32>> = vec![Vec::new(); c.segments.len()];
    let mut matched: Vec<Vec<u8>> = vec![Vec::new(); c.segments.len()];
    let mut idfs = Vec::with_capacity(terms.len());
    let mut touched = Vec::new();
    let mut postings = Vec::new();
    // Each posting the filter keeps: its segment, its document and the term's BM25 weight
    // before the idf (known only once they are counted): 12 bytes, not the 24 of the tuple of
    // its parts.
    let mut kept: Vec<(u32, u32, f32)> = Vec::new();
    let long = long_query_tokens(query);
    for term in terms {
        kept.clear();
        // A long term may be the cut of a longer token: it counts only where the document
        // holds one of the query's tokens whole.
        let wholes: Vec<&[u8]> = long
            .iter()
            .filter(|(cut, _)| cut == term)
            .map(|(_, whole)| whole.as_slice())
            .collect();
        let found: Vec<(usize, usize)> = (c.segments.iter().enumerate())
            .filter_map(|(s, seg)| seg.lookup(term).map(|i| (s, i)))
            .collect();
        // Room for every posting at once: growing by doubling copies them again and again.
        kept.reserve(
            found
                .iter()
                .map(|&(s, i)| c.segments[s].df(i) as usize)
                .sum(),
        );
        for (s, i) in found {
            let seg = &c.segments[s];
            postings.clear();
            seg.postings(i, &mut postings).map_err(|e| io(s, e))?;
            for &(d, tf) in &postings {
                let Some(len) = keep(s, d).then(|| seg.doc(d as usize).tokens) else {
                    continue;
                };
                if !wholes.is_empty() {
                    let text = seg.text(d as usize).map_err(|e| io(s, e))?;
                    if !wholes.iter().any(|whole| holds_token(&text, whole)) {
                        continue;
                    }
                }
                let (len, tf) = (f64::from(len), f64::from(tf));
                let norm = tf + K1 * (1.0 - B + B * len / avgdl);
                kept.push((s as u32, d, (tf * (K1 + 1.0) / norm) as f32));
            }
        }
        let df = kept.len() as f64;
        let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
        idfs.push(idf);
        let idf32 = idf as f32;
        for &(s, d, weight) in &kept {
            let s = s as usize;
            if scores[s].is_empty() {
                scores[s] = vec![0.0; c.segments[s].n_docs()];
                matched[s] = vec![0; c.segments[s].n_docs()];
            }
            scores[s][d as usize] += idf32 * weight;
            let count = &mut matched[s][d as usize];
            if *count == 0 {
                touched.push((s as u32, d));
            }
            *count = count.saturating_add(1);
        }
    }
    Ok(Scored {
        scores,
        matched,
        touched,
        idfs,
    })
}

/// Hits worth their tokens, best first: those holding most of the terms the best hit holds,
/// and scoring a fair share of its score (a document that shares only "42" with
/// `DETAIL-ZEBRA-42` is not one); a document holding every term is always one. Keeps the
/// leading candidates the query-as-written check looks at.
fn select(c: &Collection<'_>, scored: &Scored, n_terms: usize, limit: usize) -> Vec<Candidate> {
    let Scored {
        scores,
        matched,
        touched,
        ..
    } = scored;
    let at = |&(s, d): &(u32, u32)| {
        (
            scores[s as usize][d as usize],
            matched[s as usize][d as usize],
        )
    };
    let (top_score, top_matched) = touched
        .iter()
        .map(at)
        .fold((0.0_f32, 0), |(s, m), (score, held)| {
            (s.max(score), m.max(held))
        });
    let need = (usize::from(top_matched) * 2).div_ceil(3).max(1);
    let floor = top_score * RELATIVE_CUTOFF;
    let candidates = if n_terms > 1 {
        limit.saturating_mul(EXACT_CANDIDATES)
    } else {
        limit
    };
    // The best `candidates` kept as they come (a heap whose top is the worst of them): a
    // common word touches millions of documents, and a list of them all costs more than
    // choosing among them.
    let mut best = std::collections::BinaryHeap::with_capacity(candidates + 1);
    for &(s, d) in touched {
        let (score, held) = at(&(s, d));
        let held = usize::from(held);
        let kept = held >= n_terms || (held >= need && score >= floor);
        if score > 0.0 && kept {
            if best.len() == candidates && best.peek().is_some_and(|w: &Ranked| score < w.0.0) {
                continue;
            }
            let (s, d) = (s as usize, d as usize);
            best.push(Ranked((score, c.segments[s].doc(d).key, s, d)));
            if best.len() > candidates {
                best.pop();
            }
        }
    }
    let mut best: Vec<Candidate> = best.into_iter().map(|r| r.0).collect();
    best.sort_unstable_by(order);
    best
}

/// A candidate in the heap of the best: greater is worse (the heap's top is dropped first).
struct Ranked(Candidate);

impl PartialEq for Ranked {
    fn eq(&self, other: &Ranked) -> bool {
        order(&self.0, &other.0) == Ordering::Equal
    }
}

impl Eq for Ranked {}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Ranked) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ranked {
    fn cmp(&self, other: &Ranked) -> Ordering {
        order(&self.0, &other.0)
    }
}

fn order(a: &Candidate, b: &Candidate) -> Ordering {
    b.0.partial_cmp(&a.0)
        .unwrap_or(Ordering::Equal)
        .then(b.1.cmp(&a.1))
        .then(b.2.cmp(&a.2))
        .then(b.3.cmp(&a.3))
}

/// Exact identifiers first: among the leading candidates, those that hold the query as
/// written (`DETAIL-ZEBRA-42`, `parse_config`) come before the rest; then the first `limit`.
fn exact_first(
    c: &Collection<'_>,
    mut best: Vec<Candidate>,
    query: &str,
    n_terms: usize,
    limit: usize,
    io: &impl Fn(usize, io::Error) -> RecallError,
) -> Result<Vec<Candidate>> {
    if n_terms > 1 {
        let phrase = query.trim().to_ascii_lowercase().into_bytes();
        let mut exact = Vec::with_capacity(best.len());
        for &(_, _, s, d) in &best {
            let text = c.segments[s].text(d).map_err(|e| io(s, e))?;
            let text = text.to_ascii_lowercase();
            exact.push(text.windows(phrase.len()).any(|w| w == phrase.as_slice()));
        }
        let mut marked: Vec<_> = best.into_iter().zip(exact).collect();
        // Stable: within each group the ranking stands.
        marked.sort_by_key(|(_, exact)| !*exact);
        best = marked.into_iter().map(|(b, _)| b).collect();
    }
    best.truncate(limit);
    Ok(best)
}

/// Walks segment `seg` newest document first, calling `found(doc, text, first match)` for each
/// document `keep` allows whose text `re` matches, until it returns true; only the documents
/// the prefilter's `constraints` allow, when they narrow it down. Returns false when it
/// stopped at `deadline` before the walk was done.
pub(crate) fn scan_segment(
    seg: &Segment,
    re: &Regex,
    constraints: &[prefilter::Constraint],
    keep: impl Fn(usize) -> bool,
    mut found: impl FnMut(usize, &[u8], regex::bytes::Match<'_>) -> bool,
    deadline: Option<Instant>,
) -> io::Result<bool> {
    let late = || deadline.is_some_and(|d| Instant::now() >= d);
    let most = seg.n_docs() / 4 + 1;
    if !constraints.is_empty()
        && let Some(docs) = prefilter::candidates(seg, constraints, most)?
    {
        for (k, &d) in docs.iter().rev().enumerate() {
            let d = d as usize;
            if !keep(d) {
                continue;
            }
            if k % 256 == 255 && late() {
                return Ok(false);
            }
            let text = seg.text(d)?;
            if let Some(m) = re.find(&text)
                && found(d, &text, m)
            {
                return Ok(true);
            }
        }
        return Ok(true);
    }
    // Walk back over runs of kept documents, reading up to SCAN_CHUNK at a time.
    let mut end = seg.n_docs();
    while end > 0 {
        if !keep(end - 1) {
            end -= 1;
            continue;
        }
        if late() {
            return Ok(false);
        }
        let mut start = end - 1;
        let mut bytes = u64::from(seg.doc(start).text_len);
        while start > 0
            && keep(start - 1)
            && bytes + u64::from(seg.doc(start - 1).text_len) <= SCAN_CHUNK
        {
            start -= 1;
            bytes += u64::from(seg.doc(start).text_len);
        }
        let (chunk, base) = seg.text_span(start, end)?;
        for d in (start..end).rev() {
            let meta = seg.doc(d);
            let from = meta.text_off.wrapping_sub(base) as usize;
            let text = chunk
                .get(from..from.saturating_add(meta.text_len as usize))
                .ok_or_else(|| {
                    io::Error::new(
                        io::ErrorKind::InvalidData,
                        "a document's text is out of place",
                    )
                })?;
            if let Some(m) = re.find(text)
                && found(d, text, m)
            {
                return Ok(true);
            }
        }
        end = start;
    }
    Ok(true)
}

pub(crate) fn invalid(pattern: &str, e: regex::Error) -> RecallError {
    let reason = e.to_string();
    // The regex crate's message spans several lines; its last line says what is wrong.
    let reason = reason
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or(&reason)
        .trim()
        .trim_start_matches("error: ")
        .to_owned();
    RecallError::InvalidRegex {
        pattern: pattern.to_owned(),
        reason,
    }
}

/// A case-insensitive matcher for any query term, to find the lines worth scoring.
pub(crate) fn term_finder(terms: &[Vec<u8>]) -> Option<Regex> {
    let alternatives: Vec<String> = terms
        .iter()
        .map(|t| regex::escape(&String::from_utf8_lossy(t)))
        .collect();
    RegexBuilder::new(&alternatives.join("|"))
        .case_insensitive(true)
        .build()
        .ok()
}

/// The line of `text` whose distinct query terms weigh most (sum of their idf), the first one
/// on a tie, clipped around its rarest term.
pub(crate) fn best_line(
    text: &[u8],
    terms: &[Vec<u8>],
    idfs: &[f64],
    finder: &Option<Regex>,
) -> String {
    let mut best: Option<(f64, usize, usize, usize)> = None; // weight, line start, focus, focus end
    let mut consider = |start: usize, end: usize| {
        let line = &text[start..end];
        let mut present = vec![false; terms.len()];
        let mut focus: Option<(f64, usize, usize)> = None;
        for_each_token(line, |t, at| {
            if let Some(i) = terms.iter().position(|q| q.as_slice() == t) {
                present[i] = true;
                if focus.is_none_or(|(w, _, _)| idfs[i] > w) {
                    focus = Some((idfs[i], start + at, start + at + t.len()));
                }
            }
        });
        let weight: f64 = present
            .iter()
            .zip(idfs)
            .filter(|(p, _)| **p)
            .map(|(_, w)| w)
            .sum();
        if let Some((_, f, fe)) = focus
            && best.is_none_or(|(w, ..)| weight > w)
        {
            best = Some((weight, start, f, fe));
        }
    };
    let mut last_line = usize::MAX;
    match finder {
        Some(re) => {
            for m in re.find_iter(text) {
                let (start, end) = line_bounds(text, m.start());
                if start != last_line {
                    last_line = start;
                    consider(start, end);
                }
            }
        }
        None => {
            let mut start = 0;
            for (i, _) in text.iter().enumerate().filter(|(_, b)| **b == b'\n') {
                consider(start, i);
                start = i + 1;
            }
            consider(start, text.len());
        }
    }
    match best {
        Some((_, _, focus, focus_end)) => clip(text, focus, focus_end),
        // Matched only through a long, cut token or an odd case fold: show the start.
        None => clip(text, 0, 0),
    }
}

/// The start and end (before the newline) of the line holding byte `at`.
fn line_bounds(text: &[u8], at: usize) -> (usize, usize) {
    let start = text[..at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let end = text[at..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(text.len(), |i| at + i);
    (start, end)
}

/// The line holding bytes `from..to`, trimmed, and cut to about [`LINE_CHARS`] characters around
/// them when it is longer.
pub(crate) fn clip(text: &[u8], from: usize, to: usize) -> String {
    let (start, end) = line_bounds(text, from.min(text.len()));
    // Only a window around the match is decoded: one line of a tool's output may be hundreds
    // of megabytes. A char is at most 4 bytes, so the window holds every char shown.
    let reach = LINE_CHARS * 4;
    let from = from.clamp(start, end);
    let mut w_start = from.saturating_sub(reach).max(start);
    let mut w_end = from.saturating_add(2 * reach).min(end);
    while w_start < from && text[w_start] & 0xC0 == 0x80 {
        w_start += 1;
    }
    while w_end > from && w_end < end && text[w_end] & 0xC0 == 0x80 {
        w_end -= 1;
    }
    let (cut_before, cut_after) = (w_start > start, w_end < end);
    let line: Cow<'_, str> = String::from_utf8_lossy(&text[w_start..w_end]);
    let focus = (from - w_start).min(line.len());
    let focus_end = to.saturating_sub(w_start).clamp(focus, line.len());
    let chars: Vec<(usize, char)> = line.char_indices().collect();
    if chars.len() <= LINE_CHARS && !cut_before && !cut_after {
        return line.trim().to_owned();
    }
    // Offsets in the lossy text may differ from the raw ones only when the line is not UTF-8;
    // snapping to char boundaries keeps the cut valid either way.
    let at = chars.partition_point(|(i, _)| *i < focus);
    let span = chars.partition_point(|(i, _)| *i < focus_end) - at;
    let lead = if span + 40 >= LINE_CHARS { 10 } else { 40 };
    let first = at
        .saturating_sub(lead)
        .min(chars.len().saturating_sub(LINE_CHARS));
    let last = (first + LINE_CHARS).min(chars.len());
    let byte = |c: usize| chars.get(c).map_or(line.len(), |(i, _)| *i);
    let mut out = String::new();
    if first > 0 || cut_before {
        out.push('…');
    }
    out.push_str(line[byte(first)..byte(last)].trim());
    if last < chars.len() || cut_after {
        out.push('…');
    }
    out
}
