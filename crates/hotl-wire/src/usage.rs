//! Usage normalised across dialects: uncached input, cache reads, cache writes, output, thinking.

use serde::{Deserialize, Serialize};

/// Tokens of one response, the same shape for every provider.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Input tokens neither read from nor written to the prompt cache.
    pub input: u64,
    /// Input tokens read from the prompt cache.
    pub cache_read: u64,
    /// Input tokens written to the cache with a 5-minute lifetime (or of unknown lifetime).
    pub cache_write_5m: u64,
    /// Input tokens written to the cache with a 1-hour lifetime.
    pub cache_write_1h: u64,
    /// Output tokens, thinking included.
    pub output: u64,
    /// Of `output`, tokens spent reasoning.
    pub thinking: u64,
}

impl Usage {
    /// All input tokens, however they were billed.
    pub fn total_input(&self) -> u64 {
        self.input + self.cache_read + self.cache_write_5m + self.cache_write_1h
    }

    /// Cache writes of any lifetime.
    pub fn cache_write(&self) -> u64 {
        self.cache_write_5m + self.cache_write_1h
    }

    /// The store's record of it.
    pub fn to_log(&self) -> hotl_log::Usage {
        hotl_log::Usage {
            input: self.input,
            cache_read: self.cache_read,
            cache_write: self.cache_write(),
            cache_write_1h: self.cache_write_1h,
            output: self.output,
            thinking: self.thinking,
        }
    }

    /// A usage from the store's record, its cache writes split by lifetime as recorded.
    pub fn from_log(usage: &hotl_log::Usage) -> Usage {
        let hour = usage.cache_write_1h.min(usage.cache_write);
        Usage {
            input: usage.input,
            cache_read: usage.cache_read,
            cache_write_5m: usage.cache_write - hour,
            cache_write_1h: hour,
            output: usage.output,
            thinking: usage.thinking,
        }
    }
}
