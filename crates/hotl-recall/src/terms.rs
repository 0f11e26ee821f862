//! The term table of a segment being built: term bytes to dense ids, tuned for lookups of
//! short keys that mostly hit (an open-addressing table whose 16-byte slots hold a tag, the id
//! and the first 8 bytes of the term, so a term of up to 8 bytes is matched without touching
//! the term bytes).

use std::hash::Hasher;

use crate::token::FxHasher;

#[derive(Clone, Copy)]
struct Slot {
    /// High bits of the hash, with the term's length in the low byte; 0 when empty.
    tag: u32,
    id: u32,
    /// The term's first 8 bytes, zero-padded.
    head: u64,
}

const EMPTY: Slot = Slot {
    tag: 0,
    id: 0,
    head: 0,
};

/// Term bytes to ids `0..len()`, in order of first insertion.
pub(crate) struct TermTable {
    slots: Vec<Slot>,
    bytes: Vec<u8>,
    /// Where each id's bytes start in `bytes` (one more entry than ids).
    starts: Vec<u32>,
}

impl Default for TermTable {
    fn default() -> Self {
        TermTable {
            slots: vec![EMPTY; 1 << 12],
            bytes: Vec::new(),
            starts: vec![0],
        }
    }
}

impl TermTable {
    /// How many terms it holds.
    pub(crate) fn len(&self) -> usize {
        self.starts.len() - 1
    }

    /// The bytes of term `id`.
    pub(crate) fn term(&self, id: u32) -> &[u8] {
        &self.bytes[self.starts[id as usize] as usize..self.starts[id as usize + 1] as usize]
    }

    /// The id of `term` (at most 255 bytes), and whether it was just added.
    pub(crate) fn intern(&mut self, term: &[u8]) -> (u32, bool) {
        let mut h = FxHasher::default();
        h.write(term);
        let hash = h.finish();
        let tag = ((hash >> 32) as u32 & !0xff) | 0x100 | term.len() as u32;
        let mut head = [0u8; 8];
        let n = term.len().min(8);
        head[..n].copy_from_slice(&term[..n]);
        let head = u64::from_le_bytes(head);
        let mask = self.slots.len() - 1;
        let mut i = hash as usize & mask;
        loop {
            let s = self.slots[i];
            if s.tag == 0 {
                break;
            }
            if s.tag == tag && s.head == head && (term.len() <= 8 || self.term(s.id) == term) {
                return (s.id, false);
            }
            i = (i + 1) & mask;
        }
        let id = self.len() as u32;
        self.bytes.extend_from_slice(term);
        self.starts.push(self.bytes.len() as u32);
        self.slots[i] = Slot { tag, id, head };
        if self.len() * 10 > self.slots.len() * 7 {
            self.grow();
        }
        (id, true)
    }

    fn grow(&mut self) {
        let size = self.slots.len() * 2;
        let old = std::mem::replace(&mut self.slots, vec![EMPTY; size]);
        let mask = self.slots.len() - 1;
        for s in old.into_iter().filter(|s| s.tag != 0) {
            let mut h = FxHasher::default();
            h.write(self.term(s.id));
            let mut i = h.finish() as usize & mask;
            while self.slots[i].tag != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = s;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_gives_stable_dense_ids() {
        let mut t = TermTable::default();
        let words: Vec<String> = (0..20_000)
            .map(|i| format!("w{i}{}", "x".repeat(i % 13)))
            .collect();
        for (i, w) in words.iter().enumerate() {
            assert_eq!(t.intern(w.as_bytes()), (i as u32, true));
        }
        for (i, w) in words.iter().enumerate().rev() {
            assert_eq!(t.intern(w.as_bytes()), (i as u32, false));
            assert_eq!(t.term(i as u32), w.as_bytes());
        }
        assert_eq!(t.intern(b""), (20_000, true));
        assert_eq!(t.len(), 20_001);
    }
}
