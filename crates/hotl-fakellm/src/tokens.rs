//! Token counting: tiktoken tables (shipped inside tiktoken-rs, so offline) or `bytes4`.

use tiktoken_rs::CoreBPE;

use crate::config::Tokenizer;

/// Counts tokens with the configured tokenizer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Counter {
    kind: Tokenizer,
}

impl Counter {
    pub(crate) fn new(kind: Tokenizer) -> Counter {
        Counter { kind }
    }

    fn bpe(&self) -> Option<&'static CoreBPE> {
        // The singletons build from tables compiled into tiktoken-rs: no I/O, no network.
        match self.kind {
            Tokenizer::O200k => Some(tiktoken_rs::o200k_base_singleton()),
            Tokenizer::Cl100k => Some(tiktoken_rs::cl100k_base_singleton()),
            Tokenizer::Bytes4 => None,
        }
    }

    /// Tokens in `text`.
    pub(crate) fn count(&self, text: &str) -> u64 {
        match self.bpe() {
            Some(bpe) => bpe.encode_ordinary(text).len() as u64,
            None => text.len().div_ceil(4) as u64,
        }
    }

    /// The token sequence of `text`, each token as a number (for prefix hashing). Under
    /// `bytes4` a token is four bytes packed with their length.
    pub(crate) fn units(&self, text: &str) -> Vec<u64> {
        match self.bpe() {
            Some(bpe) => bpe
                .encode_ordinary(text)
                .into_iter()
                .map(u64::from)
                .collect(),
            None => text
                .as_bytes()
                .chunks(4)
                .map(|c| {
                    let mut v = c.len() as u64;
                    for b in c {
                        v = (v << 8) | u64::from(*b);
                    }
                    v
                })
                .collect(),
        }
    }

    /// Warms the tokenizer tables so the first request is not slow.
    pub(crate) fn warm(&self) {
        let _ = self.bpe();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes4_is_ceil_of_bytes_over_four() {
        let c = Counter::new(Tokenizer::Bytes4);
        assert_eq!(c.count(""), 0);
        assert_eq!(c.count("abcd"), 1);
        assert_eq!(c.count("abcde"), 2);
        assert_eq!(c.count("é"), 1);
        assert_eq!(c.units("abcdefgh").len(), 2);
    }
}
