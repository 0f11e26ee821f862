//! Tokens: lowercased alphanumeric runs, the unit ranked search counts, and a fast hasher for
//! the term maps.

use std::hash::{BuildHasherDefault, Hasher};

/// Longest token kept, in bytes; longer runs (hashes, base64) are cut to this length, the same
/// way in documents and queries, so they still match.
pub(crate) const MAX_TOKEN: usize = 48;

/// Calls `f(token, start)` for each token of `text`, lowercased, in order; `start` is the byte
/// offset of the token in `text`. A token is a run of alphanumeric characters (Unicode); bytes
/// that are not UTF-8 separate tokens.
pub(crate) fn for_each_token(text: &[u8], f: impl FnMut(&[u8], usize)) {
    for_each_token_upto(text, MAX_TOKEN, f);
}

/// [`for_each_token`] keeping up to `max` bytes of each token.
fn for_each_token_upto(text: &[u8], max: usize, mut f: impl FnMut(&[u8], usize)) {
    let mut buf: Vec<u8> = Vec::with_capacity(max.min(256) + 4);
    let mut start = 0;
    let mut i = 0;
    while i < text.len() {
        let b = text[i];
        if b < 0x80 {
            if b.is_ascii_alphanumeric() {
                if buf.is_empty() {
                    start = i;
                }
                if buf.len() < max {
                    buf.push(b.to_ascii_lowercase());
                }
            } else if !buf.is_empty() {
                f(&buf, start);
                buf.clear();
            }
            i += 1;
            continue;
        }
        let (c, len) = decode(&text[i..]);
        match c {
            Some(c) if c.is_alphanumeric() => {
                if buf.is_empty() {
                    start = i;
                }
                for lower in c.to_lowercase() {
                    let mut tmp = [0u8; 4];
                    let s = lower.encode_utf8(&mut tmp);
                    if buf.len() + s.len() <= max {
                        buf.extend_from_slice(s.as_bytes());
                    }
                }
            }
            _ => {
                if !buf.is_empty() {
                    f(&buf, start);
                    buf.clear();
                }
            }
        }
        i += len;
    }
    if !buf.is_empty() {
        f(&buf, start);
    }
}

/// The query's tokens that may stand for longer ones in a document, whole, by the term they
/// are indexed as: a token at or near [`MAX_TOKEN`] bytes is indexed cut, so a document
/// holding the cut term holds the query's token only if it holds it whole.
pub(crate) fn long_query_tokens(query: &str) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut long = Vec::new();
    for_each_token_upto(query.as_bytes(), usize::MAX, |t, _| {
        let mut cut = Vec::new();
        for_each_token(t, |c, _| cut = c.to_vec());
        // A character of up to 4 bytes that did not fit ends the kept bytes early.
        if cut.len() + 4 > MAX_TOKEN {
            long.push((cut, t.to_vec()));
        }
    });
    long
}

/// Whether `text` holds `token` (lowercased, whole) as one of its tokens.
pub(crate) fn holds_token(text: &[u8], token: &[u8]) -> bool {
    let mut found = false;
    for_each_token_upto(text, usize::MAX, |t, _| found |= t == token);
    found
}

/// The tokens of a query, lowercased, each once, in order of first appearance.
pub(crate) fn query_terms(query: &str) -> Vec<Vec<u8>> {
    let mut terms: Vec<Vec<u8>> = Vec::new();
    for_each_token(query.as_bytes(), |t, _| {
        if !terms.iter().any(|x| x == t) {
            terms.push(t.to_vec());
        }
    });
    terms
}

/// Decodes the character at the start of `bytes` (which starts with a non-ASCII byte): the
/// char, or `None` when the bytes are not UTF-8, and how many bytes to skip.
fn decode(bytes: &[u8]) -> (Option<char>, usize) {
    let want = match bytes[0] {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => return (None, 1),
    };
    match bytes.get(..want).and_then(|b| std::str::from_utf8(b).ok()) {
        Some(s) => (s.chars().next(), want),
        None => (None, 1),
    }
}

/// The Firefox/rustc "Fx" hash with a final mix: much faster than SipHash on short keys. Term maps are built from
/// session text, not from an attacker, so flooding resistance is not needed.
#[derive(Clone, Copy, Default)]
pub(crate) struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().expect("chunks of 8")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(last));
        }
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        // The product's low bits depend only on the input's low bits, and hash tables pick the
        // bucket from the low bits: fold the well-mixed high half down.
        let h = self.hash;
        (h ^ (h >> 32)).wrapping_mul(SEED) ^ (h >> 29)
    }
}

/// A `HashMap` with the Fx hash.
pub(crate) type FxMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<FxHasher>>;

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str) -> Vec<(String, usize)> {
        let mut out = Vec::new();
        for_each_token(text.as_bytes(), |t, s| {
            out.push((String::from_utf8(t.to_vec()).unwrap(), s))
        });
        out
    }

    #[test]
    fn splits_on_non_alphanumerics_and_lowercases() {
        let t = tokens("error[E0308]: read_log Größe");
        let words: Vec<&str> = t.iter().map(|(w, _)| w.as_str()).collect();
        assert_eq!(words, ["error", "e0308", "read", "log", "größe"]);
        assert_eq!(t[1].1, 6);
        assert_eq!(t[4].1, "error[E0308]: read_log ".len());
    }

    #[test]
    fn long_tokens_are_cut_the_same_way() {
        let long = "a".repeat(100);
        let t = tokens(&format!("x {long} y"));
        assert_eq!(t[1].0.len(), MAX_TOKEN);
        assert_eq!(query_terms(&long), vec![t[1].0.as_bytes().to_vec()]);
    }

    #[test]
    fn invalid_utf8_separates() {
        let mut out = Vec::new();
        for_each_token(b"ab\xffcd", |t, _| out.push(t.to_vec()));
        assert_eq!(out, [b"ab".to_vec(), b"cd".to_vec()]);
    }

    #[test]
    fn query_terms_are_unique() {
        assert_eq!(
            query_terms("Foo foo BAR"),
            [b"foo".to_vec(), b"bar".to_vec()]
        );
    }
}
