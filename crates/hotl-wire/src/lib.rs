//! hotl's provider protocols: the bytes of a request and the events of a streamed response,
//! for Anthropic Messages, OpenAI Chat Completions (and compatible servers) and OpenAI
//! Responses.
//!
//! It owns request serialisation per dialect (deterministic: the same request gives the same
//! bytes), prompt-cache breakpoints, SSE decoding into neutral [`Event`]s, usage normalisation,
//! pricing, and retries over real HTTP. It never reads logs and never decides what to send:
//! callers hand it a request built from a view.

#![deny(missing_docs)]

mod assemble;
mod breakpoints;
mod client;
mod decode;
mod demo;
mod encode;
mod error;
mod event;
mod prefix;
mod pricing;
mod request;
mod retry;
mod sse;
mod usage;
mod window;

pub use crate::assemble::{Assembler, BadCall, Reply};
pub use crate::breakpoints::{
    ANCHOR_STRIDE, Breakpoints, MAX_BREAKPOINTS, place as place_breakpoints,
};
pub use crate::client::{HttpProvider, install_tls, normalize_base};
pub use crate::decode::{
    AnthropicDecoder, ChatDecoder, DialectDecoder, ResponsesDecoder, StreamDecoder, StreamSink,
};
pub use crate::demo::{DEMO_MODEL, respond as demo_respond};
pub use crate::encode::anthropic::MessageCache;
pub use crate::encode::{Dialect, encode, encode_reusing};
pub use crate::error::{Overflow, Result, WireError};
pub use crate::event::{CallKey, Event, StopReason};
pub use crate::prefix::{CanonicalPrefix, extends};
pub use crate::pricing::{ModelPrice, Pricing};
pub use crate::request::{CacheConfig, Reasoning, Request, ToolChoice, ToolDef, Ttl};
pub use crate::retry::{RetryPolicy, jitter, retryable_status, server_wait};
pub use crate::sse::{End, Flow, PartialEvent, SseDecoder, SseEvent};
pub use crate::usage::Usage;
pub use crate::window::{Served, is_local};
