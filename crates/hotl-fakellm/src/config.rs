//! Server configuration: tokenizer, script, cache parameters, capture, signing key.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use crate::error::FakeError;
use crate::fault::Fault;
use crate::script::{Entry, Reply};

/// How the server counts tokens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Tokenizer {
    /// tiktoken `o200k_base` (GPT-4o and later). Exact for OpenAI models, an approximation
    /// for Anthropic models, whose tokenizer is not public.
    #[default]
    O200k,
    /// tiktoken `cl100k_base` (GPT-4 / GPT-3.5 era).
    Cl100k,
    /// `ceil(UTF-8 bytes / 4)`: deterministic and easy to compute by hand, for exact cache
    /// arithmetic in tests.
    Bytes4,
}

impl FromStr for Tokenizer {
    type Err = FakeError;

    fn from_str(s: &str) -> Result<Tokenizer, FakeError> {
        match s {
            "o200k" | "o200k_base" => Ok(Tokenizer::O200k),
            "cl100k" | "cl100k_base" => Ok(Tokenizer::Cl100k),
            "bytes4" => Ok(Tokenizer::Bytes4),
            _ => Err(FakeError::BadValue {
                what: "tokenizer",
                value: s.to_string(),
                expected: "o200k, cl100k, bytes4",
            }),
        }
    }
}

impl fmt::Display for Tokenizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Tokenizer::O200k => "o200k",
            Tokenizer::Cl100k => "cl100k",
            Tokenizer::Bytes4 => "bytes4",
        })
    }
}

/// One of the three wire protocols the server speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// Anthropic Messages (`POST /v1/messages`).
    Anthropic,
    /// OpenAI Chat Completions (`POST /v1/chat/completions`).
    OpenAiChat,
    /// OpenAI Responses (`POST /v1/responses`).
    OpenAiResponses,
}

impl FromStr for Dialect {
    type Err = FakeError;

    fn from_str(s: &str) -> Result<Dialect, FakeError> {
        match s {
            "anthropic" => Ok(Dialect::Anthropic),
            "openai-chat" => Ok(Dialect::OpenAiChat),
            "openai-responses" => Ok(Dialect::OpenAiResponses),
            _ => Err(FakeError::BadValue {
                what: "dialect",
                value: s.to_string(),
                expected: "anthropic, openai-chat, openai-responses",
            }),
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Dialect::Anthropic => "anthropic",
            Dialect::OpenAiChat => "openai-chat",
            Dialect::OpenAiResponses => "openai-responses",
        })
    }
}

/// Parameters of the Anthropic prompt-cache simulator (wire.md §2.5, §8).
#[derive(Clone, Debug)]
pub struct AnthropicCacheConfig {
    /// Minimum cacheable prefix by model: the first entry whose pattern occurs in the model
    /// name wins, so list specific patterns before general ones.
    pub min_cacheable: Vec<(String, u64)>,
    /// Minimum for models no pattern matches.
    pub default_min_cacheable: u64,
    /// How many positions a breakpoint looks back for an earlier write (itself included).
    pub lookback: usize,
    /// The most `cache_control` markers a request may carry.
    pub max_breakpoints: usize,
    /// Fixed tokens added per block and per tool definition on top of the tokenizer's count.
    pub block_overhead: u64,
    /// Tokens charged for an image block.
    pub image_tokens: u64,
}

impl Default for AnthropicCacheConfig {
    fn default() -> AnthropicCacheConfig {
        // VOLATILE (wire.md §2.5): the newest stored doc's table. Specific names first.
        let table: [(&str, u64); 15] = [
            ("fable-5", 512),
            ("mythos-5", 512),
            ("mythos-preview", 2048),
            ("opus-4-8", 1024),
            ("opus-4-7", 2048),
            ("opus-4-6", 4096),
            ("opus-4-5", 4096),
            ("opus-4-1", 1024),
            ("opus-4", 1024),
            ("sonnet-5", 1024),
            ("sonnet-4-6", 1024),
            ("sonnet-4-5", 1024),
            ("sonnet-4", 1024),
            ("haiku-4-5", 4096),
            ("haiku-3-5", 2048),
        ];
        AnthropicCacheConfig {
            min_cacheable: table.iter().map(|(p, n)| (p.to_string(), *n)).collect(),
            default_min_cacheable: 1024,
            lookback: 20,
            max_breakpoints: 4,
            block_overhead: 0,
            image_tokens: 1600,
        }
    }
}

impl AnthropicCacheConfig {
    /// The minimum cacheable prefix for `model`.
    pub fn min_for(&self, model: &str) -> u64 {
        self.min_cacheable
            .iter()
            .find(|(pattern, _)| model.contains(pattern.as_str()))
            .map_or(self.default_min_cacheable, |(_, n)| *n)
    }

    /// Sets the same minimum for every model (0 caches anything).
    pub fn with_min_cacheable(mut self, min: u64) -> AnthropicCacheConfig {
        self.min_cacheable.clear();
        self.default_min_cacheable = min;
        self
    }
}

/// Parameters of the OpenAI automatic prefix-cache simulator (wire.md §4, §8).
#[derive(Clone, Debug)]
pub struct OpenAiCacheConfig {
    /// Prompts shorter than this are never cached.
    pub min_tokens: u64,
    /// Cached prefixes grow in steps of this many tokens past `min_tokens` (1 = exact).
    pub step: u64,
    /// Idle lifetime of an entry under `prompt_cache_retention: "in_memory"` (the default).
    pub ttl_in_memory: Duration,
    /// Lifetime under `prompt_cache_retention: "24h"`.
    pub ttl_extended: Duration,
}

impl Default for OpenAiCacheConfig {
    fn default() -> OpenAiCacheConfig {
        OpenAiCacheConfig {
            min_tokens: 1024,
            step: 128,
            ttl_in_memory: Duration::from_secs(10 * 60),
            ttl_extended: Duration::from_secs(24 * 60 * 60),
        }
    }
}

/// Everything the server needs to start. Build it with [`Config::default`] (demo model) or
/// [`Config::scripted`], then adjust the public fields.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Config {
    /// Port on 127.0.0.1; 0 picks a free one.
    pub port: u16,
    /// How tokens are counted.
    pub tokenizer: Tokenizer,
    /// Replies and recordings served in order (see [`Entry`]).
    pub script: Vec<Entry>,
    /// When the script has nothing left: answer with the demo model (`true`) or with a
    /// "script exhausted" 500 carrying `x-should-retry: false` (`false`).
    pub demo: bool,
    /// When set, every request is also written to `DIR/NNNN-<endpoint>.json`.
    pub capture_dir: Option<PathBuf>,
    /// Characters per streamed text/thinking/argument fragment.
    pub fragment_chars: usize,
    /// Anthropic cache simulator parameters.
    pub anthropic_cache: AnthropicCacheConfig,
    /// OpenAI cache simulator parameters.
    pub openai_cache: OpenAiCacheConfig,
    /// Key of the blake3 keyed hash that signs thinking blocks and reasoning items.
    pub signing_key: [u8; 32],
    /// A fault applied to every response until changed (see `FakeLlm::set_fault`).
    pub fault: Option<Fault>,
    /// Model ids listed by `GET /v1/models`.
    pub models: Vec<String>,
    /// Anthropic models (name patterns) that accept `{"role": "system"}` entries inside
    /// `messages` (VOLATILE, wire.md §2.2); other models refuse them with a 400.
    pub system_message_models: Vec<String>,
    /// The model's context window in prompt tokens: a longer request is refused with the
    /// dialect's own "too long" error (`None`: no limit).
    pub context_window: Option<u64>,
    /// `/props` says the chat template has no tools section (`chat_template_caps.supports_tools:
    /// false`), as llama.cpp does for a model whose own template ignores tools.
    pub template_ignores_tools: bool,
    /// Mixed into the ids of messages and tool calls: servers started one after another for
    /// one conversation (a benchmark restarting its fake per run) give unique ids, as a real
    /// provider does. 0 keeps the ids every test knows.
    pub id_seed: u64,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            port: 0,
            tokenizer: Tokenizer::default(),
            script: Vec::new(),
            demo: true,
            capture_dir: None,
            fragment_chars: 16,
            anthropic_cache: AnthropicCacheConfig::default(),
            openai_cache: OpenAiCacheConfig::default(),
            signing_key: *blake3::hash(b"hotl-fakellm thinking signatures v1").as_bytes(),
            fault: None,
            models: [
                "claude-sonnet-5",
                "claude-opus-4-8",
                "claude-haiku-4-5",
                "gpt-5.1",
                "gpt-4o",
            ]
            .iter()
            .map(|m| m.to_string())
            .collect(),
            system_message_models: ["fable-5", "mythos-5", "opus-4-8"]
                .iter()
                .map(|m| m.to_string())
                .collect(),
            context_window: None,
            template_ignores_tools: false,
            id_seed: 0,
        }
    }
}

impl Config {
    /// Scripted mode: these replies in order, then "script exhausted" errors (no demo).
    pub fn scripted(replies: impl IntoIterator<Item = Reply>) -> Config {
        Config {
            script: replies.into_iter().map(Entry::Reply).collect(),
            demo: false,
            ..Config::default()
        }
    }

    /// Sets the tokenizer.
    pub fn with_tokenizer(mut self, tokenizer: Tokenizer) -> Config {
        self.tokenizer = tokenizer;
        self
    }

    /// Refuses requests of more than `tokens` prompt tokens, as a real model's window does.
    pub fn with_context_window(mut self, tokens: u64) -> Config {
        self.context_window = Some(tokens);
        self
    }

    /// Writes every request to `dir` as well.
    pub fn with_capture_dir(mut self, dir: impl Into<PathBuf>) -> Config {
        self.capture_dir = Some(dir.into());
        self
    }
}
