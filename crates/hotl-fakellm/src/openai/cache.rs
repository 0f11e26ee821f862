//! The OpenAI automatic prompt-cache simulator: per model + `prompt_cache_key`, prefixes of
//! 1024 tokens and more are stored in 128-token steps; a later request reads the longest
//! stored prefix it starts with. Entries live `in_memory` (10 min idle) or `24h`.

use std::collections::HashMap;
use std::time::Duration;

use crate::config::OpenAiCacheConfig;

/// A request's rendered prompt as token units, with its routing scope and retention.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    pub scope: [u8; 32],
    pub units: Vec<u64>,
    pub extended: bool,
}

impl Plan {
    pub(crate) fn total(&self) -> u64 {
        self.units.len() as u64
    }
}

/// Live prefix entries: hash of (scope, first k tokens) -> expiry.
#[derive(Debug, Default)]
pub(crate) struct Store {
    entries: HashMap<[u8; 32], Duration>,
}

impl Store {
    /// Reads the longest live stored prefix, then stores (or refreshes) every prefix
    /// boundary of this prompt. Returns the cached token count.
    pub(crate) fn apply(&mut self, plan: &Plan, cfg: &OpenAiCacheConfig, now: Duration) -> u64 {
        let n = plan.total();
        if n < cfg.min_tokens.max(1) {
            return 0;
        }
        if self.entries.len() > 4096 {
            self.entries.retain(|_, exp| *exp > now);
        }
        let step = cfg.step.max(1);
        let ttl = if plan.extended {
            cfg.ttl_extended
        } else {
            cfg.ttl_in_memory
        };
        let mut h = blake3::Hasher::new();
        h.update(&plan.scope);
        let mut cached = 0;
        let mut boundaries = Vec::new();
        for (i, unit) in plan.units.iter().enumerate() {
            h.update(&unit.to_le_bytes());
            let k = i as u64 + 1;
            if k >= cfg.min_tokens && (k - cfg.min_tokens).is_multiple_of(step) {
                let key = *h.finalize().as_bytes();
                if self.entries.get(&key).is_some_and(|exp| *exp > now) {
                    cached = k;
                }
                boundaries.push(key);
            }
        }
        for key in boundaries {
            self.entries.insert(key, now + ttl);
        }
        cached
    }

    /// Forgets every entry.
    pub(crate) fn clear(&mut self) {
        self.entries.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_in_steps() {
        let cfg = OpenAiCacheConfig::default();
        let mut s = Store::default();
        let p = |n: u64, key: u8| Plan {
            scope: [key; 32],
            units: (0..n).collect(),
            extended: false,
        };
        assert_eq!(s.apply(&p(1500, 1), &cfg, Duration::ZERO), 0);
        assert_eq!(s.apply(&p(1700, 1), &cfg, Duration::ZERO), 1408);
        assert_eq!(s.apply(&p(1700, 2), &cfg, Duration::ZERO), 0);
        assert_eq!(s.apply(&p(1000, 1), &cfg, Duration::ZERO), 0);
        let later = Duration::from_secs(11 * 60);
        assert_eq!(s.apply(&p(1700, 1), &cfg, later), 0);
    }
}
