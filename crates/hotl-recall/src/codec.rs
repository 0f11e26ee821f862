//! A compact binary encoding of a [`Plan`] for the `.idx` file: LEB128 integers and
//! length-prefixed strings, item seqs delta-coded. Decoding checks every length and returns
//! `None` on anything malformed.

use hotl_log::FileTouch;

use crate::extract::{Members, Plan};
use crate::types::Thread;

/// Appends the encoding of `plan` to `out`.
pub(crate) fn encode(plan: &Plan, out: &mut Vec<u8>) {
    let mut w = Writer(out);
    w.int(plan.threads.len() as u64);
    for (t, m) in plan.threads.iter().zip(&plan.members) {
        w.str(&t.handle);
        w.str(&t.note);
        w.int(t.since);
        w.int(t.until);
        w.int(t.files.len() as u64);
        for f in &t.files {
            w.str(&f.path);
            w.str(&f.op);
            match &f.hash {
                Some(h) => {
                    w.int(1);
                    w.str(h);
                }
                None => w.int(0),
            }
        }
        match m.note_key {
            Some(k) => {
                w.int(1);
                w.int(k);
            }
            None => w.int(0),
        }
        w.int(m.items.len() as u64);
        let mut prev = 0;
        for &seq in &m.items {
            // Items are in transcript order, which is seq order; a wrap would still decode.
            w.int(seq.wrapping_sub(prev));
            prev = seq;
        }
        w.int(u64::from(m.ask));
    }
    w.int(plan.unplaced as u64);
}

/// Decodes a plan that fills all of `bytes`.
pub(crate) fn decode(bytes: &[u8]) -> Option<Plan> {
    let mut r = Reader { bytes, at: 0 };
    let n = r.len()?;
    let mut plan = Plan::default();
    for _ in 0..n {
        let handle = r.str()?;
        let note = r.str()?;
        let since = r.int()?;
        let until = r.int()?;
        let n_files = r.len()?;
        let mut files = Vec::with_capacity(n_files);
        for _ in 0..n_files {
            let path = r.str()?;
            let op = r.str()?;
            let hash = match r.int()? {
                0 => None,
                1 => Some(r.str()?),
                _ => return None,
            };
            files.push(FileTouch { path, op, hash });
        }
        let note_key = match r.int()? {
            0 => None,
            1 => Some(r.int()?),
            _ => return None,
        };
        let n_items = r.len()?;
        let mut items = Vec::with_capacity(n_items);
        let mut prev = 0u64;
        for _ in 0..n_items {
            prev = prev.wrapping_add(r.int()?);
            items.push(prev);
        }
        plan.threads.push(Thread {
            handle,
            note,
            since,
            until,
            files,
        });
        let ask = match r.int()? {
            0 => false,
            1 => true,
            _ => return None,
        };
        plan.members.push(Members {
            note_key,
            items,
            ask,
        });
    }
    plan.unplaced = usize::try_from(r.int()?).ok()?;
    (r.at == bytes.len()).then_some(plan)
}

struct Writer<'a>(&'a mut Vec<u8>);

impl Writer<'_> {
    fn int(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.0.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.0.push(v as u8);
    }

    fn str(&mut self, s: &str) {
        self.int(s.len() as u64);
        self.0.extend_from_slice(s.as_bytes());
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn int(&mut self) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = *self.bytes.get(self.at)?;
            self.at += 1;
            v |= u64::from(b & 0x7f).checked_shl(shift)?;
            if b < 0x80 {
                return Some(v);
            }
        }
        None
    }

    /// A count, which cannot exceed the bytes left (every element takes at least one).
    fn len(&mut self) -> Option<usize> {
        let n = usize::try_from(self.int()?).ok()?;
        (n <= self.bytes.len() - self.at).then_some(n)
    }

    fn str(&mut self) -> Option<String> {
        let n = self.len()?;
        let s = std::str::from_utf8(&self.bytes[self.at..self.at + n]).ok()?;
        self.at += n;
        Some(s.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_round_trips_and_garbage_is_refused() {
        let plan = Plan {
            threads: vec![Thread {
                handle: "b2e4".into(),
                note: "fixed it ✓".into(),
                since: 3,
                until: 300,
                files: vec![
                    FileTouch {
                        path: "a.rs".into(),
                        op: "read".into(),
                        hash: Some("00ff".into()),
                    },
                    FileTouch {
                        path: "b.rs".into(),
                        op: "delete".into(),
                        hash: None,
                    },
                ],
            }],
            members: vec![Members {
                note_key: Some(301),
                items: vec![3, 4, 5, 200, 300],
                ask: true,
            }],
            unplaced: 2,
        };
        let mut bytes = Vec::new();
        encode(&plan, &mut bytes);
        let back = decode(&bytes).unwrap();
        assert_eq!(back.threads, plan.threads);
        assert_eq!(back.members[0].items, plan.members[0].items);
        assert_eq!(back.members[0].note_key, Some(301));
        assert!(back.members[0].ask);
        assert_eq!(back.unplaced, 2);
        for cut in 0..bytes.len() {
            assert!(decode(&bytes[..cut]).is_none(), "cut at {cut}");
        }
        assert!(decode(&[0xff; 40]).is_none());
    }
}
