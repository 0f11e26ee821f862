//! The Anthropic prompt-cache simulator, following wire.md §8 literally: writes only at
//! breakpoints, reads by looking back up to 20 positions per breakpoint for an earlier
//! write, TTL refreshed on a hit, nothing written below the model's minimum.

use std::collections::HashMap;
use std::time::Duration;

use crate::anthropic::blocks::{Ttl, Unit};

/// What one request would read and write, computed before the cache is touched.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    pub hashes: Vec<[u8; 32]>,
    pub cum: Vec<u64>,
    pub marks: Vec<(usize, Ttl)>,
    pub min: u64,
    pub lookback: usize,
}

impl Plan {
    pub(crate) fn new(units: &[Unit], marks: Vec<(usize, Ttl)>, min: u64, lookback: usize) -> Plan {
        Plan {
            hashes: units.iter().map(|u| u.hash).collect(),
            cum: units.iter().map(|u| u.cum).collect(),
            marks,
            min,
            lookback: lookback.max(1),
        }
    }

    /// Every prompt token.
    pub(crate) fn total(&self) -> u64 {
        self.cum.last().copied().unwrap_or(0)
    }
}

/// Tokens read, and written with a 5-minute and a 1-hour lifetime.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Outcome {
    pub read: u64,
    pub write_5m: u64,
    pub write_1h: u64,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    expires: Duration,
    ttl: Duration,
}

/// Live cache entries, keyed by prefix hash (which already includes key and model).
#[derive(Debug, Default)]
pub(crate) struct Store {
    entries: HashMap<[u8; 32], Entry>,
}

impl Store {
    fn live(&self, hash: &[u8; 32], now: Duration) -> bool {
        self.entries.get(hash).is_some_and(|e| e.expires > now)
    }

    /// Applies `plan` at virtual time `now`: finds the hit, refreshes it, stores writes.
    pub(crate) fn apply(&mut self, plan: &Plan, now: Duration) -> Outcome {
        if self.entries.len() > 4096 {
            self.entries.retain(|_, e| e.expires > now);
        }
        let tok = |i: usize| plan.cum[i];
        // A = the furthest position any breakpoint's lookback window finds a live write at.
        let mut hit: Option<usize> = None;
        for &(m, _) in &plan.marks {
            let lowest = m.saturating_sub(plan.lookback - 1);
            if let Some(j) = (lowest..=m)
                .rev()
                .find(|&j| self.live(&plan.hashes[j], now))
            {
                hit = Some(hit.map_or(j, |a| a.max(j)));
            }
        }
        if let Some(a) = hit
            && let Some(e) = self.entries.get_mut(&plan.hashes[a])
        {
            e.expires = now + e.ttl;
        }
        let read = hit.map_or(0, tok);
        let Some(&(last, _)) = plan.marks.last() else {
            return Outcome {
                read,
                ..Outcome::default()
            };
        };
        if tok(last) < plan.min {
            return Outcome {
                read,
                ..Outcome::default()
            };
        }
        let after_hit = |m: usize| hit.is_none_or(|a| m > a);
        for &(m, ttl) in &plan.marks {
            if after_hit(m) && tok(m) >= plan.min {
                let ttl = Duration::from_secs(ttl.secs());
                self.entries.insert(
                    plan.hashes[m],
                    Entry {
                        expires: now + ttl,
                        ttl,
                    },
                );
            }
        }
        let b = plan
            .marks
            .iter()
            .filter(|&&(m, t)| t == Ttl::OneHour && after_hit(m))
            .map(|&(m, _)| tok(m))
            .next_back()
            .unwrap_or(read);
        Outcome {
            read,
            write_1h: b.saturating_sub(read),
            write_5m: tok(last).saturating_sub(b),
        }
    }

    /// Forgets every entry.
    pub(crate) fn clear(&mut self) {
        self.entries.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(n: usize, per: u64, marks: &[(usize, Ttl)], min: u64) -> Plan {
        Plan {
            hashes: (0..n)
                .map(|i| *blake3::hash(&i.to_le_bytes()).as_bytes())
                .collect(),
            cum: (1..=n as u64).map(|i| i * per).collect(),
            marks: marks.to_vec(),
            min,
            lookback: 20,
        }
    }

    #[test]
    fn the_docs_worked_example() {
        // Turn 1 writes at block 10; turn 2 (breakpoint at 15) hits at 10; turn 3 with its
        // breakpoint at 35 checks 35..16 and misses the entry at 15.
        let mut s = Store::default();
        let now = Duration::ZERO;
        let t1 = s.apply(&plan(11, 100, &[(10, Ttl::FiveMinutes)], 0), now);
        assert_eq!(
            t1,
            Outcome {
                read: 0,
                write_5m: 1100,
                write_1h: 0
            }
        );
        let t2 = s.apply(&plan(16, 100, &[(15, Ttl::FiveMinutes)], 0), now);
        assert_eq!(
            t2,
            Outcome {
                read: 1100,
                write_5m: 500,
                write_1h: 0
            }
        );
        let t3 = s.apply(&plan(36, 100, &[(35, Ttl::FiveMinutes)], 0), now);
        assert_eq!(t3.read, 0);
    }

    #[test]
    fn mixed_ttls_minimum_and_expiry() {
        let mut s = Store::default();
        let marks = [(3, Ttl::OneHour), (7, Ttl::FiveMinutes)];
        let o = s.apply(&plan(10, 10, &marks, 0), Duration::ZERO);
        assert_eq!(
            o,
            Outcome {
                read: 0,
                write_1h: 40,
                write_5m: 40
            }
        );
        let o = s.apply(&plan(10, 10, &marks, 0), Duration::from_secs(400));
        assert_eq!(
            o,
            Outcome {
                read: 40,
                write_1h: 0,
                write_5m: 40
            }
        );
        let mut s = Store::default();
        let o = s.apply(
            &plan(10, 10, &[(9, Ttl::FiveMinutes)], 1000),
            Duration::ZERO,
        );
        assert_eq!(o, Outcome::default());
    }
}
