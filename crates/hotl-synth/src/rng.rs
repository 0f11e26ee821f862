//! A tiny deterministic PRNG (SplitMix64): the same seed gives the same sessions.

/// SplitMix64: fast, good enough for synthetic data, and dependency-free.
#[derive(Clone, Debug)]
pub(crate) struct Rng(u64);

impl Rng {
    /// An independent stream derived from this seed and `salt` (one per session, so a session's
    /// content does not depend on how many numbers earlier sessions drew).
    pub(crate) fn derive(seed: u64, salt: u64) -> Self {
        let mut r = Rng(seed ^ salt.wrapping_mul(0xA076_1D64_78BD_642F));
        r.next_u64();
        r
    }

    /// The next 64 random bits.
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform number in `lo..=hi`.
    pub(crate) fn range(&mut self, lo: u64, hi: u64) -> u64 {
        debug_assert!(lo <= hi);
        lo + self.next_u64() % (hi - lo + 1)
    }

    /// A uniform `usize` in `lo..=hi`.
    pub(crate) fn urange(&mut self, lo: usize, hi: usize) -> usize {
        self.range(lo as u64, hi as u64) as usize
    }

    /// A uniform float in `[0, 1)`.
    pub(crate) fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// True with probability `p`.
    pub(crate) fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// One element of a non-empty slice.
    pub(crate) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.urange(0, items.len() - 1)]
    }

    /// `n` lowercase hex digits.
    pub(crate) fn hex(&mut self, n: usize) -> String {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut out = String::with_capacity(n);
        let mut bits = 0u64;
        for i in 0..n {
            if i % 16 == 0 {
                bits = self.next_u64();
            }
            out.push(char::from(DIGITS[(bits & 15) as usize]));
            bits >>= 4;
        }
        out
    }

    /// `n` base62 characters (tool-call ids, signatures).
    pub(crate) fn base62(&mut self, n: usize) -> String {
        const DIGITS: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
        (0..n)
            .map(|_| char::from(DIGITS[(self.next_u64() % 62) as usize]))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream() {
        let (mut a, mut b) = (Rng::derive(7, 0), Rng::derive(7, 0));
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
        assert_ne!(Rng::derive(7, 1).next_u64(), Rng::derive(7, 2).next_u64());
    }

    #[test]
    fn ranges_stay_in_bounds() {
        let mut r = Rng::derive(1, 0);
        for _ in 0..1000 {
            let v = r.range(3, 5);
            assert!((3..=5).contains(&v));
            assert!(r.unit() < 1.0);
        }
        assert_eq!(r.hex(20).len(), 20);
    }
}
