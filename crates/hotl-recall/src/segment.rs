//! Segments: an immutable block of documents with their text, postings and sorted term
//! dictionary, plus the skeleton of the records they came from; held in memory or in a file.
//! A file is memory-mapped, so opening one costs the same whatever its size: a query touches
//! only the dictionary entries it bisects, its terms' postings and the texts it shows.
//!
//! On disk (little-endian): `hotlrseg`, the text of every document, the document table (32
//! bytes a document: key, text offset, text length, token count, kind, and at 28 the source:
//! which session of a cross-session index it came from), the postings (per term,
//! LEB128 pairs of document-id delta and term frequency), the term bytes, the term table (24
//! bytes a term: term offset, term length, document frequency, postings length, postings
//! offset), the skeleton (JSON lines), the unreliable terms (u32 term indices tagged
//! [`CUT`] and/or [`WIDE`]: what the exact-mode prefilter must always consider, listed when the
//! segment is built so no search scans the dictionary for them), then a footer of fourteen u64
//! (where each region is and how long) and `hotlrsg4`.

use std::borrow::Cow;
use std::fs::File;
use std::io::{self, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::terms::TermTable;
use crate::token::for_each_token;
use crate::types::DocKind;

const HEAD: &[u8; 8] = b"hotlrseg";
/// The last byte is the format version; a different one is rebuilt.
const TAIL: &[u8; 8] = b"hotlrsg4";
const DOC_SIZE: u64 = 32;
const ENTRY_SIZE: u64 = 24;
const FIELDS: usize = 14;
/// An unreliable term's tag: it may be a long token cut short (its end is not shown).
pub(crate) const CUT: u32 = 1 << 31;
/// An unreliable term's tag: it holds non-ASCII letters (case folds differ from the regex's).
pub(crate) const WIDE: u32 = 1 << 30;
/// The bits of a tagged entry that are the term's index.
pub(crate) const TERM_BITS: u32 = WIDE - 1;
const FOOTER_SIZE: u64 = FIELDS as u64 * 8 + 8;

/// One document of a segment.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DocMeta {
    /// The seq of the record it came from.
    pub key: u64,
    /// Where its text starts in the segment's text.
    pub text_off: u64,
    /// Its text's length in bytes.
    pub text_len: u32,
    /// How many tokens it has (its BM25 length).
    pub tokens: u32,
    /// What it was.
    pub kind: DocKind,
    /// Which session it came from, in an index over many (0 in a session's own index).
    pub source: u32,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    term_off: u32,
    term_len: u32,
    df: u32,
    post_len: u32,
    post_off: u64,
}

/// Where the document table, dictionary, text, postings and skeleton are.
enum Bytes {
    Mem {
        docs: Vec<DocMeta>,
        terms: Vec<u8>,
        entries: Vec<Entry>,
        text: Vec<u8>,
        postings: Vec<u8>,
        skeleton: Vec<u8>,
        unreliable: Vec<u32>,
    },
    Mapped {
        map: memmap2::Mmap,
        path: PathBuf,
        at: Regions,
    },
}

/// Where each region of a mapped segment starts (checked in bounds when it was opened).
#[derive(Clone, Copy)]
struct Regions {
    text: u64,
    docs: u64,
    postings: u64,
    terms: u64,
    terms_len: u64,
    entries: u64,
    skeleton: u64,
    unreliable: u64,
    n_unreliable: u64,
}

/// One of the regions read on demand.
#[derive(Clone, Copy)]
enum Region {
    Text,
    Postings,
    Skeleton,
}

/// An immutable set of indexed documents.
pub(crate) struct Segment {
    bytes: Bytes,
    n_docs: usize,
    n_terms: usize,
    text_len: u64,
    post_len: u64,
    skel_len: u64,
    unreliable: OnceLock<Vec<u32>>,
}

/// Why a segment file was refused.
pub(crate) type Refused = String;

impl Segment {
    /// Text bytes held.
    pub(crate) fn text_bytes(&self) -> u64 {
        self.text_len
    }

    /// Text and skeleton bytes held: what merging it costs.
    pub(crate) fn weight(&self) -> u64 {
        self.text_len + self.skel_len + 1
    }

    /// The file it is read from, if any.
    pub(crate) fn path(&self) -> Option<&Path> {
        match &self.bytes {
            Bytes::Mapped { path, .. } => Some(path),
            Bytes::Mem { .. } => None,
        }
    }

    /// How many documents it holds.
    pub(crate) fn n_docs(&self) -> usize {
        self.n_docs
    }

    /// Document `d` (below [`Segment::n_docs`]). A kind this build does not know reads as a
    /// tool output; [`Segment::text`] refuses such a document as damaged.
    pub(crate) fn doc(&self, d: usize) -> DocMeta {
        match &self.bytes {
            Bytes::Mem { docs, .. } => docs[d],
            Bytes::Mapped { map, at, .. } => {
                let from = (at.docs + d as u64 * DOC_SIZE) as usize;
                decode_doc(&map[from..from + DOC_SIZE as usize]).0
            }
        }
    }

    /// Every document, in order.
    pub(crate) fn docs(&self) -> impl Iterator<Item = DocMeta> + '_ {
        (0..self.n_docs).map(|d| self.doc(d))
    }

    fn entry(&self, i: usize) -> Entry {
        match &self.bytes {
            Bytes::Mem { entries, .. } => entries[i],
            Bytes::Mapped { map, at, .. } => {
                let from = (at.entries + i as u64 * ENTRY_SIZE) as usize;
                decode_entry(&map[from..from + ENTRY_SIZE as usize])
            }
        }
    }

    /// The index of `term` in the dictionary.
    pub(crate) fn lookup(&self, term: &[u8]) -> Option<usize> {
        let (mut lo, mut hi) = (0, self.n_terms);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.term(mid).cmp(term) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }

    /// The first term index in `range` at which `pred` stops holding (terms are sorted).
    fn partition_terms(
        &self,
        range: std::ops::Range<usize>,
        pred: impl Fn(&[u8]) -> bool,
    ) -> usize {
        let (mut lo, mut hi) = (range.start, range.end);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if pred(self.term(mid)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// The terms the exact-mode prefilter must always consider, tagged [`CUT`] and/or
    /// [`WIDE`] (read once from the file).
    pub(crate) fn unreliable_terms(&self) -> &[u32] {
        self.unreliable.get_or_init(|| match &self.bytes {
            Bytes::Mem { unreliable, .. } => unreliable.clone(),
            Bytes::Mapped { map, at, .. } => {
                let from = at.unreliable as usize;
                let to = from + at.n_unreliable as usize * 4;
                map[from..to]
                    .chunks_exact(4)
                    .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
                    .filter(|tagged| ((tagged & TERM_BITS) as usize) < self.n_terms)
                    .collect()
            }
        })
    }

    /// How many terms the dictionary holds.
    pub(crate) fn n_terms(&self) -> usize {
        self.n_terms
    }

    /// The bytes of dictionary term `i` (empty when its entry points out of the dictionary:
    /// a damaged dictionary finds nothing rather than failing).
    pub(crate) fn term(&self, i: usize) -> &[u8] {
        let e = self.entry(i);
        let blob = self.term_blob();
        let (from, to) = (
            e.term_off as usize,
            e.term_off as usize + e.term_len as usize,
        );
        blob.get(from..to).unwrap_or_default()
    }

    /// How many documents hold term `i`.
    pub(crate) fn df(&self, i: usize) -> u32 {
        self.entry(i).df
    }

    /// The dictionary terms starting with `prefix`: a range of term indices.
    pub(crate) fn prefixed(&self, prefix: &[u8]) -> std::ops::Range<usize> {
        let start = self.partition_terms(0..self.n_terms, |t| t < prefix);
        let end = self.partition_terms(start..self.n_terms, |t| t.starts_with(prefix));
        start..end
    }

    /// Every term's bytes, concatenated in dictionary order, to search through at once.
    pub(crate) fn term_blob(&self) -> &[u8] {
        match &self.bytes {
            Bytes::Mem { terms, .. } => terms,
            Bytes::Mapped { map, at, .. } => {
                &map[at.terms as usize..(at.terms + at.terms_len) as usize]
            }
        }
    }

    /// The term whose bytes in [`Segment::term_blob`] cover `start..end`, if one does.
    pub(crate) fn term_covering(&self, start: usize, end: usize) -> Option<usize> {
        let (mut lo, mut hi) = (0, self.n_terms);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.entry(mid).term_off as usize <= start {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let i = lo.checked_sub(1)?;
        let e = self.entry(i);
        (end <= (e.term_off + e.term_len) as usize).then_some(i)
    }

    /// The postings of dictionary term `i`: `(doc, term frequency)`, docs ascending.
    pub(crate) fn postings(&self, i: usize, out: &mut Vec<(u32, u32)>) -> io::Result<()> {
        let e = self.entry(i);
        if e.post_off.saturating_add(u64::from(e.post_len)) > self.post_len
            || u64::from(e.df) > self.n_docs as u64
        {
            return Err(self.damaged("a term's postings are out of bounds"));
        }
        let bytes = self.read(Region::Postings, e.post_off, e.post_len as usize)?;
        let n_docs = self.n_docs as u64;
        let mut at = 0;
        let mut doc = 0u64;
        out.reserve(e.df as usize);
        for k in 0..e.df {
            let delta =
                varint(&bytes, &mut at).ok_or_else(|| self.damaged("truncated postings"))?;
            let tf = varint(&bytes, &mut at).ok_or_else(|| self.damaged("truncated postings"))?;
            doc += u64::from(delta);
            if doc >= n_docs || (k > 0 && delta == 0) {
                return Err(self.damaged("postings out of order"));
            }
            out.push((doc as u32, tf));
        }
        Ok(())
    }

    /// The text of document `doc`.
    pub(crate) fn text(&self, doc: usize) -> io::Result<Cow<'_, [u8]>> {
        let d = self.doc(doc);
        self.check_text(doc, d.text_off, d.text_off + u64::from(d.text_len))?;
        self.read(Region::Text, d.text_off, d.text_len as usize)
    }

    /// Refuses, as damaged, text bounds outside the text region or a document whose kind is
    /// unknown (what a mapped document table is checked for when it is read, not opened).
    fn check_text(&self, doc: usize, from: u64, to: u64) -> io::Result<()> {
        let known = match &self.bytes {
            Bytes::Mem { .. } => true,
            Bytes::Mapped { map, at, .. } => {
                let at = (at.docs + doc as u64 * DOC_SIZE) as usize;
                decode_doc(&map[at..at + DOC_SIZE as usize]).1
            }
        };
        if from > to || to > self.text_len || !known {
            return Err(self.damaged("a document's text is out of place"));
        }
        Ok(())
    }

    /// The skeleton lines of the records this segment indexed.
    pub(crate) fn skeleton(&self) -> io::Result<Cow<'_, [u8]>> {
        self.read(Region::Skeleton, 0, self.skel_len as usize)
    }

    /// The skeleton lines from byte `from` on.
    pub(crate) fn skeleton_from(&self, from: u64) -> io::Result<Cow<'_, [u8]>> {
        let from = from.min(self.skel_len);
        self.read(Region::Skeleton, from, (self.skel_len - from) as usize)
    }

    /// Where the first skeleton line with a seq above `after` starts (the skeleton's length
    /// when there is none), found by binary search over byte offsets: lines are in seq order.
    /// `None` when a probed line does not parse.
    pub(crate) fn skeleton_after(&self, after: u64) -> Option<u64> {
        let len = self.skel_len;
        // The start of the first line that starts at or after `pos`, and that line's seq.
        let probe = |pos: u64| -> Option<(u64, Option<u64>)> {
            let mut start = pos;
            if pos > 0 {
                let mut at = pos - 1;
                loop {
                    if at >= len {
                        return Some((len, None));
                    }
                    let want = 4096.min(len - at) as usize;
                    let window = self.read(Region::Skeleton, at, want).ok()?;
                    if let Some(i) = window.iter().position(|&b| b == b'\n') {
                        start = at + i as u64 + 1;
                        break;
                    }
                    at += want as u64;
                }
            }
            if start >= len {
                return Some((len, None));
            }
            let mut line = Vec::new();
            let mut at = start;
            while at < len {
                let want = 4096.min(len - at) as usize;
                let window = self.read(Region::Skeleton, at, want).ok()?;
                match window.iter().position(|&b| b == b'\n') {
                    Some(i) => {
                        line.extend_from_slice(&window[..i]);
                        break;
                    }
                    None => line.extend_from_slice(&window),
                }
                at += want as u64;
            }
            let seq = serde_json::from_slice::<hotl_log::Record>(&line).ok()?.seq;
            Some((start, Some(seq)))
        };
        let (mut lo, mut hi) = (0, len);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match probe(mid)? {
                (_, Some(seq)) if seq <= after => lo = mid + 1,
                _ => hi = mid,
            }
        }
        probe(lo).map(|(start, _)| start)
    }

    /// The text of documents `from..to` (contiguous: documents are stored in order), and the
    /// offset of the first one.
    pub(crate) fn text_span(&self, from: usize, to: usize) -> io::Result<(Cow<'_, [u8]>, u64)> {
        let start = self.doc(from).text_off;
        let last = self.doc(to - 1);
        let end = last.text_off + u64::from(last.text_len);
        self.check_text(to - 1, start, end)?;
        Ok((
            self.read(Region::Text, start, (end - start) as usize)?,
            start,
        ))
    }

    fn read(&self, region: Region, off: u64, len: usize) -> io::Result<Cow<'_, [u8]>> {
        let (src, base, region_len): (&[u8], u64, u64) = match &self.bytes {
            Bytes::Mem {
                text,
                postings,
                skeleton,
                ..
            } => match region {
                Region::Text => (text, 0, self.text_len),
                Region::Postings => (postings, 0, self.post_len),
                Region::Skeleton => (skeleton, 0, self.skel_len),
            },
            Bytes::Mapped { map, at, .. } => match region {
                Region::Text => (map, at.text, self.text_len),
                Region::Postings => (map, at.postings, self.post_len),
                Region::Skeleton => (map, at.skeleton, self.skel_len),
            },
        };
        if off.saturating_add(len as u64) > region_len {
            return Err(self.damaged("a read past the end of its region"));
        }
        let from = (base + off) as usize;
        Ok(Cow::Borrowed(&src[from..from + len]))
    }

    fn damaged(&self, what: &str) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidData, what.to_owned())
    }

    /// Writes the segment in the file format.
    pub(crate) fn write_to(&self, out: &mut impl Write) -> io::Result<()> {
        let text = self.read(Region::Text, 0, self.text_len as usize)?;
        let postings = self.read(Region::Postings, 0, self.post_len as usize)?;
        let skeleton = self.skeleton()?;
        let mut at = HEAD.len() as u64;
        out.write_all(HEAD)?;
        let text_at = at;
        out.write_all(&text)?;
        at += text.len() as u64;
        let docs_at = at;
        for d in self.docs() {
            let mut rec = [0u8; DOC_SIZE as usize];
            rec[0..8].copy_from_slice(&d.key.to_le_bytes());
            rec[8..16].copy_from_slice(&d.text_off.to_le_bytes());
            rec[16..20].copy_from_slice(&d.text_len.to_le_bytes());
            rec[20..24].copy_from_slice(&d.tokens.to_le_bytes());
            rec[24] = d.kind.code();
            rec[28..32].copy_from_slice(&d.source.to_le_bytes());
            out.write_all(&rec)?;
        }
        at += DOC_SIZE * self.n_docs as u64;
        let post_at = at;
        out.write_all(&postings)?;
        at += postings.len() as u64;
        let terms_at = at;
        let terms = self.term_blob();
        out.write_all(terms)?;
        at += terms.len() as u64;
        let entries_at = at;
        for e in (0..self.n_terms).map(|i| self.entry(i)) {
            let mut rec = [0u8; ENTRY_SIZE as usize];
            rec[0..4].copy_from_slice(&e.term_off.to_le_bytes());
            rec[4..8].copy_from_slice(&e.term_len.to_le_bytes());
            rec[8..12].copy_from_slice(&e.df.to_le_bytes());
            rec[12..16].copy_from_slice(&e.post_len.to_le_bytes());
            rec[16..24].copy_from_slice(&e.post_off.to_le_bytes());
            out.write_all(&rec)?;
        }
        at += ENTRY_SIZE * self.n_terms as u64;
        let skel_at = at;
        out.write_all(&skeleton)?;
        at += skeleton.len() as u64;
        let unreliable_at = at;
        let unreliable = self.unreliable_terms();
        for tagged in unreliable {
            out.write_all(&tagged.to_le_bytes())?;
        }
        let footer = [
            text_at,
            text.len() as u64,
            docs_at,
            self.n_docs as u64,
            post_at,
            postings.len() as u64,
            terms_at,
            terms.len() as u64,
            entries_at,
            self.n_terms as u64,
            skel_at,
            skeleton.len() as u64,
            unreliable_at,
            unreliable.len() as u64,
        ];
        for v in footer {
            out.write_all(&v.to_le_bytes())?;
        }
        out.write_all(TAIL)
    }

    /// Opens a segment file, reading its document table and dictionary and checking that every
    /// offset stays in bounds. `Ok(Err(why))` when the file is not a valid segment.
    pub(crate) fn open(path: &Path) -> io::Result<Result<Segment, Refused>> {
        let file = File::open(path)?;
        let size = file.metadata()?.len();
        if size < HEAD.len() as u64 + FOOTER_SIZE {
            return Ok(Err("too short".into()));
        }
        let mut head = [0u8; 8];
        file.read_exact_at(&mut head, 0)?;
        let mut footer = [0u8; FOOTER_SIZE as usize];
        file.read_exact_at(&mut footer, size - FOOTER_SIZE)?;
        if &head != HEAD || &footer[FIELDS * 8..] != TAIL {
            return Ok(Err("not a segment of this format".into()));
        }
        let f: Vec<u64> = footer[..FIELDS * 8]
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("chunks of 8")))
            .collect();
        let [
            text_at,
            text_len,
            docs_at,
            n_docs,
            post_at,
            post_len,
            terms_at,
            terms_len,
            entries_at,
            n_terms,
            skel_at,
            skel_len,
            unreliable_at,
            n_unreliable,
        ] = f[..]
        else {
            unreachable!("the footer has fourteen fields")
        };
        let limit = size - FOOTER_SIZE;
        let region = |at: u64, len: Option<u64>| {
            len.and_then(|l| at.checked_add(l))
                .is_some_and(|end| at >= HEAD.len() as u64 && end <= limit)
        };
        let ok = region(text_at, Some(text_len))
            && region(docs_at, n_docs.checked_mul(DOC_SIZE))
            && region(post_at, Some(post_len))
            && region(terms_at, Some(terms_len))
            && region(entries_at, n_terms.checked_mul(ENTRY_SIZE))
            && region(skel_at, Some(skel_len))
            && region(unreliable_at, n_unreliable.checked_mul(4))
            && n_docs < u64::from(u32::MAX)
            && terms_len <= u64::from(u32::MAX)
            && n_terms <= terms_len;
        if !ok {
            return Ok(Err("a region is out of bounds".into()));
        }
        drop(file);
        // SAFETY: segment files are written whole under a temporary name and renamed into
        // place, never changed afterwards; every region was checked to lie inside the file,
        // and each read below is bounds-checked, so bytes that are wrong read as damage.
        #[allow(unsafe_code)]
        let map = unsafe { memmap2::Mmap::map(&File::open(path)?)? };
        if map.len() as u64 != size {
            return Ok(Err("the file changed while it was opened".into()));
        }
        Ok(Ok(Segment {
            bytes: Bytes::Mapped {
                map,
                path: path.to_owned(),
                at: Regions {
                    text: text_at,
                    docs: docs_at,
                    postings: post_at,
                    terms: terms_at,
                    terms_len,
                    entries: entries_at,
                    skeleton: skel_at,
                    unreliable: unreliable_at,
                    n_unreliable,
                },
            },
            n_docs: n_docs as usize,
            n_terms: n_terms as usize,
            text_len,
            post_len,
            skel_len,
            unreliable: OnceLock::new(),
        }))
    }
}

/// A document-table row, and whether its kind is one this build knows.
fn decode_doc(rec: &[u8]) -> (DocMeta, bool) {
    let u64_at = |i: usize| u64::from_le_bytes(rec[i..i + 8].try_into().expect("8 bytes"));
    let u32_at = |i: usize| u32::from_le_bytes(rec[i..i + 4].try_into().expect("4 bytes"));
    let kind = DocKind::from_code(rec[24]);
    let meta = DocMeta {
        key: u64_at(0),
        text_off: u64_at(8),
        text_len: u32_at(16),
        tokens: u32_at(20),
        kind: kind.unwrap_or(DocKind::ToolOutput),
        source: u32_at(28),
    };
    (meta, kind.is_some())
}

/// A dictionary-table row.
fn decode_entry(rec: &[u8]) -> Entry {
    let u32_at = |i: usize| u32::from_le_bytes(rec[i..i + 4].try_into().expect("4 bytes"));
    Entry {
        term_off: u32_at(0),
        term_len: u32_at(4),
        df: u32_at(8),
        post_len: u32_at(12),
        post_off: u64::from_le_bytes(rec[16..24].try_into().expect("8 bytes")),
    }
}

/// Reads one LEB128 u32 at `*at`.
fn varint(bytes: &[u8], at: &mut usize) -> Option<u32> {
    let mut v: u64 = 0;
    for shift in (0..35).step_by(7) {
        let b = *bytes.get(*at)?;
        *at += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return u32::try_from(v).ok();
        }
    }
    None
}

fn put_varint(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Builds a segment in memory, one document at a time.
#[derive(Default)]
pub(crate) struct Builder {
    text: Vec<u8>,
    docs: Vec<DocMeta>,
    ids: TermTable,
    lists: Vec<Vec<u8>>,
    last: Vec<u32>,
    df: Vec<u32>,
    scratch: Vec<u32>,
    skeleton: Vec<u8>,
}

impl Builder {
    /// Whether it holds neither documents nor skeleton lines.
    pub(crate) fn is_empty(&self) -> bool {
        self.docs.is_empty() && self.skeleton.is_empty()
    }

    /// Appends skeleton lines (of the records whose documents are added).
    pub(crate) fn skeleton(&mut self, lines: &[u8]) {
        self.skeleton.extend_from_slice(lines);
    }

    /// Text bytes held so far.
    pub(crate) fn text_bytes(&self) -> u64 {
        self.text.len() as u64
    }

    /// Adds a document made from record `key`.
    pub(crate) fn add(&mut self, key: u64, kind: DocKind, text: &[u8]) {
        self.add_from(0, key, kind, text);
    }

    /// Adds a document made from record `key` of session `source` (in an index over many);
    /// returns its length in tokens.
    pub(crate) fn add_from(&mut self, source: u32, key: u64, kind: DocKind, text: &[u8]) -> u32 {
        let doc = self.docs.len() as u32;
        let Builder {
            ids,
            lists,
            last,
            df,
            scratch,
            ..
        } = self;
        scratch.clear();
        for_each_token(text, |t, _| {
            let (id, new) = ids.intern(t);
            if new {
                lists.push(Vec::new());
                last.push(0);
                df.push(0);
            }
            scratch.push(id);
        });
        let tokens = scratch.len() as u32;
        scratch.sort_unstable();
        let mut i = 0;
        while i < scratch.len() {
            let id = scratch[i];
            let mut j = i + 1;
            while j < scratch.len() && scratch[j] == id {
                j += 1;
            }
            let t = id as usize;
            put_varint(&mut lists[t], doc - last[t]);
            put_varint(&mut lists[t], (j - i) as u32);
            last[t] = doc;
            df[t] += 1;
            i = j;
        }
        self.docs.push(DocMeta {
            key,
            text_off: self.text.len() as u64,
            text_len: text.len() as u32,
            tokens,
            kind,
            source,
        });
        self.text.extend_from_slice(text);
        tokens
    }

    /// The finished segment, in memory.
    pub(crate) fn finish(self) -> Segment {
        let ids = self.ids;
        let mut order: Vec<u32> = (0..ids.len() as u32).collect();
        order.sort_unstable_by(|a, b| ids.term(*a).cmp(ids.term(*b)));
        let mut terms = Vec::new();
        let mut entries = Vec::with_capacity(order.len());
        let total: usize = self.lists.iter().map(Vec::len).sum();
        let mut postings = Vec::with_capacity(total);
        let mut lists = self.lists;
        let mut unreliable = Vec::new();
        for id in order {
            let term = ids.term(id);
            let tag = crate::prefilter::unreliable(term);
            if tag != 0 {
                unreliable.push(entries.len() as u32 | tag);
            }
            let list = std::mem::take(&mut lists[id as usize]);
            entries.push(Entry {
                term_off: terms.len() as u32,
                term_len: term.len() as u32,
                df: self.df[id as usize],
                post_len: list.len() as u32,
                post_off: postings.len() as u64,
            });
            terms.extend_from_slice(term);
            postings.extend_from_slice(&list);
        }
        let text_len = self.text.len() as u64;
        let post_len = postings.len() as u64;
        let skel_len = self.skeleton.len() as u64;
        Segment {
            n_docs: self.docs.len(),
            n_terms: entries.len(),
            bytes: Bytes::Mem {
                docs: self.docs,
                terms,
                entries,
                text: self.text,
                postings,
                skeleton: self.skeleton,
                unreliable,
            },
            text_len,
            post_len,
            skel_len,
            unreliable: OnceLock::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip() {
        let mut out = Vec::new();
        for v in [0, 1, 127, 128, 300, u32::MAX] {
            put_varint(&mut out, v);
        }
        let mut at = 0;
        let back: Vec<u32> = (0..6).map(|_| varint(&out, &mut at).unwrap()).collect();
        assert_eq!(back, [0, 1, 127, 128, 300, u32::MAX]);
        assert_eq!(varint(&out, &mut at), None);
    }

    #[test]
    fn skeleton_after_finds_the_first_later_line() {
        let mut b = Builder::default();
        let mut starts = Vec::new();
        let mut lines = Vec::new();
        for seq in (3..300).step_by(3) {
            starts.push((seq, lines.len() as u64));
            // Lines of very different lengths, some longer than a probe window.
            let text = "x".repeat((seq as usize * 37) % 9000);
            let r = hotl_log::Record::new(seq, "", hotl_log::Body::user_text(text));
            lines.extend(hotl_log::encode_line(&r).unwrap());
        }
        b.skeleton(&lines);
        let seg = b.finish();
        for after in 0..305 {
            let want = starts
                .iter()
                .find(|(seq, _)| *seq > after)
                .map_or(lines.len() as u64, |(_, at)| *at);
            assert_eq!(seg.skeleton_after(after), Some(want), "after {after}");
        }
        assert_eq!(Builder::default().finish().skeleton_after(5), Some(0));
    }

    #[test]
    fn a_written_segment_reads_back_the_same() {
        let mut b = Builder::default();
        b.add(3, DocKind::User, b"alpha beta beta");
        b.add(7, DocKind::ToolOutput, b"beta gamma");
        b.skeleton(b"{}\n");
        let mem = b.finish();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.seg");
        let mut bytes = Vec::new();
        mem.write_to(&mut bytes).unwrap();
        std::fs::write(&path, &bytes).unwrap();
        let disk = Segment::open(&path).unwrap().unwrap();
        for seg in [&mem, &disk] {
            let i = seg.lookup(b"beta").unwrap();
            let mut p = Vec::new();
            seg.postings(i, &mut p).unwrap();
            assert_eq!(p, [(0, 2), (1, 1)]);
            assert_eq!(&*seg.text(1).unwrap(), b"beta gamma");
            assert_eq!(seg.doc(1).key, 7);
            assert_eq!(seg.doc(0).tokens, 3);
            assert!(seg.lookup(b"delta").is_none());
            assert_eq!(&*seg.skeleton().unwrap(), b"{}\n");
        }
        bytes[20] ^= 0xff; // text only: still opens
        std::fs::write(&path, &bytes).unwrap();
        assert!(Segment::open(&path).unwrap().is_ok());
        let n = bytes.len();
        bytes[n - 20] ^= 0xff; // the footer
        std::fs::write(&path, &bytes).unwrap();
        assert!(Segment::open(&path).unwrap().is_err());
    }
}
