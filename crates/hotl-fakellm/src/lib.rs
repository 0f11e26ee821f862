//! A local fake LLM provider that speaks the real wire protocols — Anthropic Messages,
//! OpenAI Chat Completions and OpenAI Responses — over real HTTP with real SSE, so every
//! test, demo and benchmark of hotl runs offline.
//!
//! It owns: the routes (`POST /v1/messages`, `/v1/messages/count_tokens`,
//! `/v1/chat/completions`, `/v1/responses`, `GET /v1/models`); each dialect's exact event
//! grammar and error bodies; request validation with the real 400 messages; scripted
//! replies ([`Reply`], [`Entry`]), replays of recorded streams ([`Recording`]) and a small
//! deterministic demo model; request capture ([`Captured`]); the Anthropic and OpenAI
//! prompt-cache simulators driven by a virtual [`Clock`]; token counting ([`Tokenizer`]);
//! fault injection ([`Fault`]); signed thinking blocks.
//!
//! It never: shares code with or depends on `hotl-wire` (a double that reused the client's
//! code would repeat its bugs) or `hotl-log`; touches the network beyond 127.0.0.1; reads
//! the wall clock for cache decisions.
//!
//! Main types: [`FakeLlm`] is the running server (start it with [`FakeLlm::spawn`] or
//! [`FakeLlm::start`], stop it by dropping it); [`Config`] says what it answers with. The
//! key choice: requests are parsed into an order-preserving JSON value, so the cache
//! simulator hashes blocks as sent and responses keep the real services' key order.
//!
//! ```no_run
//! # async fn demo() {
//! use hotl_fakellm::{Config, FakeLlm, Reply, Tokenizer};
//!
//! let config = Config::scripted([Reply::text("hello")]).with_tokenizer(Tokenizer::Bytes4);
//! let fake = FakeLlm::spawn(config).await;
//! let url = format!("{}/v1/messages", fake.base_url());
//! // ... POST to `url`, then inspect fake.captured() ...
//! # }
//! ```

#![deny(missing_docs)]

mod anthropic;
mod api_error;
mod capture;
mod clock;
mod config;
mod deliver;
mod demo;
mod error;
mod fault;
mod handlers;
mod json;
mod openai;
mod replay;
mod request;
mod script;
mod server;
mod signature;
mod state;
mod tokens;
mod turn;

pub use crate::capture::{Captured, Endpoint};
pub use crate::clock::{Clock, VIRTUAL_EPOCH_SECS};
pub use crate::config::{AnthropicCacheConfig, Config, Dialect, OpenAiCacheConfig, Tokenizer};
pub use crate::error::{FakeError, Result};
pub use crate::fault::{Fault, Gate};
pub use crate::replay::Recording;
pub use crate::script::{Entry, Reply, Stop, ToolCall};
pub use crate::server::FakeLlm;
