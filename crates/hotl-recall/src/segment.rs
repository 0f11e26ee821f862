//! Segments: an immutable block of documents with their text, postings and sorted term
//! dictionary, plus the skeleton of the records they came from; held in memory or in a file
//! (read with `pread`, so opening one reads only its document table and dictionary).
//!
//! On disk (little-endian): `hotlrseg`, the text of every document, the document table (32
//! bytes a document: key, text offset, text length, token count, kind), the postings (per term,
//! LEB128 pairs of document-id delta and term frequency), the term bytes, the term table (24
//! bytes a term: term offset, term length, document frequency, postings length, postings
//! offset), the skeleton (JSON lines), then a footer of twelve u64 (where each region is and
//! how long) and `hotlrsg2`.

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
const TAIL: &[u8; 8] = b"hotlrsg2";
const DOC_SIZE: u64 = 32;
const ENTRY_SIZE: u64 = 24;
const FIELDS: usize = 12;
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
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    term_off: u32,
    term_len: u32,
    df: u32,
    post_len: u32,
    post_off: u64,
}

/// Where the text, postings and skeleton bytes are.
enum Bytes {
    Mem {
        text: Vec<u8>,
        postings: Vec<u8>,
        skeleton: Vec<u8>,
    },
    File {
        file: File,
        path: PathBuf,
        text_at: u64,
        post_at: u64,
        skel_at: u64,
    },
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
    /// Its documents, in the order they were added (record order).
    pub docs: Vec<DocMeta>,
    terms: Vec<u8>,
    entries: Vec<Entry>,
    bytes: Bytes,
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
            Bytes::File { path, .. } => Some(path),
            Bytes::Mem { .. } => None,
        }
    }

    /// The index of `term` in the dictionary.
    pub(crate) fn lookup(&self, term: &[u8]) -> Option<usize> {
        self.entries
            .binary_search_by(|e| self.term_bytes(e).cmp(term))
            .ok()
    }

    /// The terms that must always be candidates of the exact-mode prefilter (computed once).
    pub(crate) fn unreliable_terms(&self) -> &[u32] {
        self.unreliable.get_or_init(|| {
            (0..self.entries.len())
                .filter(|&i| crate::prefilter::unreliable(self.term(i)))
                .map(|i| i as u32)
                .collect()
        })
    }

    /// How many terms the dictionary holds.
    pub(crate) fn n_terms(&self) -> usize {
        self.entries.len()
    }

    /// The bytes of dictionary term `i`.
    pub(crate) fn term(&self, i: usize) -> &[u8] {
        self.term_bytes(&self.entries[i])
    }

    /// How many documents hold term `i`.
    pub(crate) fn df(&self, i: usize) -> u32 {
        self.entries[i].df
    }

    /// The dictionary terms starting with `prefix`: a range of term indices.
    pub(crate) fn prefixed(&self, prefix: &[u8]) -> std::ops::Range<usize> {
        let start = self
            .entries
            .partition_point(|e| self.term_bytes(e) < prefix);
        let end = start
            + self.entries[start..].partition_point(|e| self.term_bytes(e).starts_with(prefix));
        start..end
    }

    /// Every term's bytes, concatenated in dictionary order, to search through at once.
    pub(crate) fn term_blob(&self) -> &[u8] {
        &self.terms
    }

    /// The term whose bytes in [`Segment::term_blob`] cover `start..end`, if one does.
    pub(crate) fn term_covering(&self, start: usize, end: usize) -> Option<usize> {
        let i = self
            .entries
            .partition_point(|e| e.term_off as usize <= start)
            .checked_sub(1)?;
        let e = self.entries[i];
        (end <= (e.term_off + e.term_len) as usize).then_some(i)
    }

    fn term_bytes(&self, e: &Entry) -> &[u8] {
        &self.terms[e.term_off as usize..(e.term_off + e.term_len) as usize]
    }

    /// The postings of dictionary term `i`: `(doc, term frequency)`, docs ascending.
    pub(crate) fn postings(&self, i: usize, out: &mut Vec<(u32, u32)>) -> io::Result<()> {
        let e = self.entries[i];
        let bytes = self.read(Region::Postings, e.post_off, e.post_len as usize)?;
        let n_docs = self.docs.len() as u64;
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
        let d = self.docs[doc];
        self.read(Region::Text, d.text_off, d.text_len as usize)
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
        let start = self.docs[from].text_off;
        let last = self.docs[to - 1];
        let end = last.text_off + u64::from(last.text_len);
        Ok((
            self.read(Region::Text, start, (end - start) as usize)?,
            start,
        ))
    }

    fn read(&self, region: Region, off: u64, len: usize) -> io::Result<Cow<'_, [u8]>> {
        match &self.bytes {
            Bytes::Mem {
                text,
                postings,
                skeleton,
            } => {
                let src = match region {
                    Region::Text => text,
                    Region::Postings => postings,
                    Region::Skeleton => skeleton,
                };
                Ok(Cow::Borrowed(&src[off as usize..off as usize + len]))
            }
            Bytes::File {
                file,
                text_at,
                post_at,
                skel_at,
                ..
            } => {
                let base = match region {
                    Region::Text => *text_at,
                    Region::Postings => *post_at,
                    Region::Skeleton => *skel_at,
                };
                let mut buf = vec![0u8; len];
                file.read_exact_at(&mut buf, base + off)?;
                Ok(Cow::Owned(buf))
            }
        }
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
        for d in &self.docs {
            let mut rec = [0u8; DOC_SIZE as usize];
            rec[0..8].copy_from_slice(&d.key.to_le_bytes());
            rec[8..16].copy_from_slice(&d.text_off.to_le_bytes());
            rec[16..20].copy_from_slice(&d.text_len.to_le_bytes());
            rec[20..24].copy_from_slice(&d.tokens.to_le_bytes());
            rec[24] = d.kind.code();
            out.write_all(&rec)?;
        }
        at += DOC_SIZE * self.docs.len() as u64;
        let post_at = at;
        out.write_all(&postings)?;
        at += postings.len() as u64;
        let terms_at = at;
        out.write_all(&self.terms)?;
        at += self.terms.len() as u64;
        let entries_at = at;
        for e in &self.entries {
            let mut rec = [0u8; ENTRY_SIZE as usize];
            rec[0..4].copy_from_slice(&e.term_off.to_le_bytes());
            rec[4..8].copy_from_slice(&e.term_len.to_le_bytes());
            rec[8..12].copy_from_slice(&e.df.to_le_bytes());
            rec[12..16].copy_from_slice(&e.post_len.to_le_bytes());
            rec[16..24].copy_from_slice(&e.post_off.to_le_bytes());
            out.write_all(&rec)?;
        }
        at += ENTRY_SIZE * self.entries.len() as u64;
        let skel_at = at;
        out.write_all(&skeleton)?;
        let footer = [
            text_at,
            text.len() as u64,
            docs_at,
            self.docs.len() as u64,
            post_at,
            postings.len() as u64,
            terms_at,
            self.terms.len() as u64,
            entries_at,
            self.entries.len() as u64,
            skel_at,
            skeleton.len() as u64,
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
        ] = f[..]
        else {
            unreachable!("the footer has twelve fields")
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
            && n_docs < u64::from(u32::MAX)
            && terms_len <= u64::from(u32::MAX)
            && n_terms <= terms_len;
        if !ok {
            return Ok(Err("a region is out of bounds".into()));
        }
        let mut table = vec![0u8; (n_docs * DOC_SIZE) as usize];
        file.read_exact_at(&mut table, docs_at)?;
        let mut docs = Vec::with_capacity(n_docs as usize);
        for rec in table.chunks_exact(DOC_SIZE as usize) {
            let d = DocMeta {
                key: u64::from_le_bytes(rec[0..8].try_into().expect("8 bytes")),
                text_off: u64::from_le_bytes(rec[8..16].try_into().expect("8 bytes")),
                text_len: u32::from_le_bytes(rec[16..20].try_into().expect("4 bytes")),
                tokens: u32::from_le_bytes(rec[20..24].try_into().expect("4 bytes")),
                kind: match DocKind::from_code(rec[24]) {
                    Some(k) => k,
                    None => return Ok(Err("unknown document kind".into())),
                },
            };
            // Texts are stored back to back, in document order (scans read runs of them).
            let expected = docs
                .last()
                .map_or(0, |p: &DocMeta| p.text_off + u64::from(p.text_len));
            if d.text_off != expected || d.text_off + u64::from(d.text_len) > text_len {
                return Ok(Err("a document's text is out of place".into()));
            }
            docs.push(d);
        }
        drop(table);
        let mut terms = vec![0u8; terms_len as usize];
        file.read_exact_at(&mut terms, terms_at)?;
        let mut table = vec![0u8; (n_terms * ENTRY_SIZE) as usize];
        file.read_exact_at(&mut table, entries_at)?;
        let mut entries: Vec<Entry> = Vec::with_capacity(n_terms as usize);
        for rec in table.chunks_exact(ENTRY_SIZE as usize) {
            let e = Entry {
                term_off: u32::from_le_bytes(rec[0..4].try_into().expect("4 bytes")),
                term_len: u32::from_le_bytes(rec[4..8].try_into().expect("4 bytes")),
                df: u32::from_le_bytes(rec[8..12].try_into().expect("4 bytes")),
                post_len: u32::from_le_bytes(rec[12..16].try_into().expect("4 bytes")),
                post_off: u64::from_le_bytes(rec[16..24].try_into().expect("8 bytes")),
            };
            let term_ok = u64::from(e.term_off) + u64::from(e.term_len) <= terms_len;
            let post_ok = e
                .post_off
                .checked_add(u64::from(e.post_len))
                .is_some_and(|end| end <= post_len);
            if !term_ok || !post_ok || u64::from(e.df) > n_docs {
                return Ok(Err("a term is out of bounds".into()));
            }
            let t = &terms[e.term_off as usize..(e.term_off + e.term_len) as usize];
            if let Some(prev) = entries.last()
                && (&terms[prev.term_off as usize..(prev.term_off + prev.term_len) as usize] >= t
                    || prev.term_off + prev.term_len > e.term_off)
            {
                return Ok(Err("the dictionary is not sorted".into()));
            }
            entries.push(e);
        }
        Ok(Ok(Segment {
            docs,
            terms,
            entries,
            bytes: Bytes::File {
                file,
                path: path.to_owned(),
                text_at,
                post_at,
                skel_at,
            },
            text_len,
            post_len,
            skel_len,
            unreliable: OnceLock::new(),
        }))
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

    /// Adds a document made from record `key`.
    pub(crate) fn add(&mut self, key: u64, kind: DocKind, text: &[u8]) {
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
        });
        self.text.extend_from_slice(text);
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
        for id in order {
            let term = ids.term(id);
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
            docs: self.docs,
            terms,
            entries,
            bytes: Bytes::Mem {
                text: self.text,
                postings,
                skeleton: self.skeleton,
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
            assert_eq!(seg.docs[1].key, 7);
            assert_eq!(seg.docs[0].tokens, 3);
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
