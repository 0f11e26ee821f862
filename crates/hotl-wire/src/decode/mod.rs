//! Streamed responses into neutral [`Event`]s: one decoder per dialect behind [`DialectDecoder`],
//! driven by [`StreamDecoder`] over the SSE layer and pushed into a [`StreamSink`].
//!
//! Every stream ends in exactly one of: a [`Event::Stop`] (the terminal event came), an
//! [`Event::Error`] the provider sent in-band (maybe followed by a `Stop`), or a
//! [`WireError::Incomplete`] from [`StreamDecoder::finish`] after everything decoded before the
//! cut was delivered. Unknown event types and unknown fields are ignored. Empty text and
//! argument fragments are dropped: a tool call with no `ToolCallArgs` between its
//! `ToolCallStart` and `ToolCallEnd` has empty input (`{}`).
//!
//! ```
//! use hotl_wire::{Event, Flow, StopReason, StreamDecoder};
//!
//! let mut decoder = StreamDecoder::openai_chat();
//! let mut events: Vec<Event> = Vec::new();
//! let body: [&[u8]; 2] = [
//!     b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_",
//!     b"reason\":\"stop\"}]}\n\ndata: [DONE]\n\n",
//! ];
//! for chunk in body {
//!     if decoder.feed(chunk, &mut events)? == Flow::Stop {
//!         break;
//!     }
//! }
//! decoder.finish(&mut events)?;
//! assert!(events.contains(&Event::TextDelta { text: "Hi".into() }));
//! assert!(matches!(events.last(), Some(Event::Stop { reason: StopReason::Done, .. })));
//! # Ok::<(), hotl_wire::WireError>(())
//! ```

mod anthropic;
mod openai_chat;
mod openai_responses;

use std::borrow::Cow;

use serde::Deserialize;

use crate::error::{Result, WireError};
use crate::event::Event;
use crate::sse::{End, Flow, SseDecoder, SseEvent};

pub use self::anthropic::AnthropicDecoder;
pub use self::openai_chat::ChatDecoder;
pub use self::openai_responses::ResponsesDecoder;

/// Where decoded events go. The decoder pushes; the sink says whether to go on.
pub trait StreamSink {
    /// The sink's own error; decode errors convert into it.
    type Error: From<WireError>;

    /// Takes one event (by value, unlike STYLE rule 7's `&Event`: the sink usually keeps it).
    /// `Ok(Flow::Stop)` cancels the stream.
    fn event(&mut self, event: Event) -> Result<Flow, Self::Error>;
}

/// Collects every event.
impl StreamSink for Vec<Event> {
    type Error = WireError;

    fn event(&mut self, event: Event) -> Result<Flow> {
        self.push(event);
        Ok(Flow::Continue)
    }
}

/// One dialect's event grammar: turns its SSE events into neutral events.
pub trait DialectDecoder {
    /// The dialect's name as `hotl debug decode --dialect` spells it.
    fn name(&self) -> &'static str;

    /// The event that ends a complete stream (`message_stop`, `[DONE]`, `response.completed`),
    /// for the error when it never comes.
    fn terminal(&self) -> &'static str;

    /// Whether events carry an `event:` name (Anthropic, Responses) or only `data:` (Chat).
    fn named_events(&self) -> bool;

    /// Decodes one SSE event, appending what it means to `out` (often nothing).
    fn event(&mut self, event: &SseEvent<'_>, out: &mut Vec<Event>) -> Result<()>;

    /// Whether the terminal event has been decoded.
    fn is_done(&self) -> bool;

    /// The body ended before the terminal event: pushes the [`Event::Stop`] the stream had
    /// already settled, when it had (Anthropic's `message_delta` carries the stop reason
    /// before the closing `message_stop`), and says whether it did. Nothing is settled while
    /// a block is still open: a tool call whose arguments were cut never runs. No by default.
    fn settled_stop(&mut self, _out: &mut Vec<Event>) -> bool {
        false
    }

    /// Forgets everything, ready for another response.
    fn reset(&mut self);
}

/// Decodes one streamed response body of one dialect: bytes in, neutral events out.
///
/// Feed it the body's chunks as they arrive ([`Self::feed`]), then call [`Self::finish`]. Output
/// never depends on how the body was chunked.
pub struct StreamDecoder {
    sse: SseDecoder,
    dialect: Box<dyn DialectDecoder + Send>,
    out: Vec<Event>,
    failed: bool,
    concatenated: bool,
}

impl std::fmt::Debug for StreamDecoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamDecoder")
            .field("dialect", &self.dialect.name())
            .field("done", &self.dialect.is_done())
            .finish_non_exhaustive()
    }
}

impl StreamDecoder {
    /// A decoder for `dialect`.
    pub fn new(dialect: impl DialectDecoder + Send + 'static) -> Self {
        let mut sse = SseDecoder::new();
        sse.reject_foreign_start(true);
        StreamDecoder {
            sse,
            dialect: Box::new(dialect),
            out: Vec::new(),
            failed: false,
            concatenated: false,
        }
    }

    /// Anthropic Messages.
    pub fn anthropic() -> Self {
        Self::new(AnthropicDecoder::default())
    }

    /// OpenAI Chat Completions, and llama-server, Ollama and other compatible servers.
    pub fn openai_chat() -> Self {
        Self::new(ChatDecoder::default())
    }

    /// OpenAI Responses.
    pub fn openai_responses() -> Self {
        Self::new(ResponsesDecoder::default())
    }

    /// The decoder for a dialect named `anthropic`, `openai-chat` or `openai-responses`.
    pub fn for_dialect(name: &str) -> Option<Self> {
        match name {
            "anthropic" => Some(Self::anthropic()),
            "openai-chat" => Some(Self::openai_chat()),
            "openai-responses" => Some(Self::openai_responses()),
            _ => None,
        }
    }

    /// The dialect's name.
    pub fn dialect(&self) -> &'static str {
        self.dialect.name()
    }

    /// Accept several responses back to back (a recording of an agent's steps): after a
    /// terminal event, a further event starts the next response instead of being ignored, and
    /// [`Self::feed`] no longer stops at the terminal event. Off by default.
    pub fn accept_concatenated(&mut self, yes: bool) -> &mut Self {
        self.concatenated = yes;
        self
    }

    /// Decodes a chunk of the body, pushing events to `sink`. Returns [`Flow::Stop`] once the
    /// terminal event has been decoded (the rest of the body is ignored; the caller may close
    /// the connection) or the sink asked to stop.
    ///
    /// # Errors
    ///
    /// A malformed event, a body that is not SSE, or the sink's error. Events decoded before
    /// the failure have been pushed.
    pub fn feed<S: StreamSink>(&mut self, bytes: &[u8], sink: &mut S) -> Result<Flow, S::Error> {
        let StreamDecoder {
            sse,
            dialect,
            out,
            failed,
            concatenated,
        } = self;
        if dialect.is_done() && !*concatenated {
            return Ok(Flow::Stop);
        }
        let flow = sse.feed(bytes, &mut |ev: &SseEvent<'_>| -> Result<Flow, S::Error> {
            if dialect.is_done() {
                if !*concatenated {
                    return Ok(Flow::Stop);
                }
                dialect.reset();
                *failed = false;
            }
            out.clear();
            dialect.event(ev, out)?;
            for event in out.drain(..) {
                *failed |= matches!(event, Event::Error { .. });
                if sink.event(event)? == Flow::Stop {
                    return Ok(Flow::Stop);
                }
            }
            Ok(match dialect.is_done() && !*concatenated {
                true => Flow::Stop,
                false => Flow::Continue,
            })
        })?;
        if let Some(head) = self.sse.foreign_start() {
            return Err(WireError::NotSse {
                head: head.to_owned(),
            }
            .into());
        }
        Ok(flow)
    }

    /// Ends the body. The decoder is then ready for another. When the terminal event never
    /// came but the stream had already said how it ended (see
    /// [`DialectDecoder::settled_stop`]), that `Stop` is pushed to `sink`.
    ///
    /// # Errors
    ///
    /// [`WireError::Incomplete`] when the terminal event never came, nothing settled how the
    /// stream ended and no in-band error was reported (an event cut off by the end of the body
    /// is named in it); [`WireError::NotSse`] when the body was something else.
    pub fn finish<S: StreamSink>(&mut self, sink: &mut S) -> Result<(), S::Error> {
        let end = self.sse.finish();
        let mut ended = self.dialect.is_done() || self.failed;
        if !ended && !matches!(end, End::Foreign(_)) {
            self.out.clear();
            if self.dialect.settled_stop(&mut self.out) {
                ended = true;
                for event in self.out.drain(..) {
                    sink.event(event)?;
                }
            }
        }
        self.dialect.reset();
        self.failed = false;
        self.out.clear();
        let dropped = match end {
            End::Foreign(head) => return Err(WireError::NotSse { head }.into()),
            _ if ended => return Ok(()),
            End::Clean => None,
            End::Partial(p) if p.event.is_empty() => {
                Some(format!("`{}`", hotl_text::clip_bytes(&p.data, 60)))
            }
            End::Partial(p) => Some(format!("`{}`", p.event)),
        };
        Err(WireError::Incomplete {
            dialect: self.dialect.name(),
            expected: self.dialect.terminal(),
            dropped,
        }
        .into())
    }

    /// Decodes a whole body: the events, and what went wrong if the stream was not complete
    /// (the events decoded before it are kept).
    pub fn decode(mut self, body: &[u8]) -> (Vec<Event>, Option<WireError>) {
        let mut events = Vec::new();
        let result = self
            .feed(body, &mut events)
            .and_then(|_| self.finish(&mut events));
        (events, result.err())
    }

    /// A recorded stream as an SSE body. Raw SSE comes back unchanged; JSON Lines of payloads
    /// (the first non-blank line starts with `{`) are framed as this dialect's server would:
    /// `event: <type>\ndata: <line>\n\n`, or `data: <line>\n\n` plus `data: [DONE]\n\n` for
    /// Chat. Blank lines are skipped; each payload's bytes are kept.
    ///
    /// # Errors
    ///
    /// [`WireError::BadJson`] for a JSON line without a string `type` in a named dialect.
    pub fn sse_body<'a>(&self, recording: &'a [u8]) -> Result<Cow<'a, [u8]>> {
        let blank = |line: &[u8]| line.iter().all(u8::is_ascii_whitespace);
        let first = recording.split(|&b| b == b'\n').find(|l| !blank(l));
        if first.is_none_or(|l| l.trim_ascii_start().first() != Some(&b'{')) {
            return Ok(Cow::Borrowed(recording));
        }
        let mut body = Vec::with_capacity(recording.len() + recording.len() / 4);
        for line in recording.split(|&b| b == b'\n').filter(|l| !blank(l)) {
            if self.dialect.named_events() {
                #[derive(Deserialize)]
                struct Typed<'a> {
                    #[serde(rename = "type", borrow)]
                    kind: Cow<'a, str>,
                }
                let typed: Typed<'_> =
                    serde_json::from_slice(line).map_err(|source| WireError::BadJson {
                        dialect: self.dialect.name(),
                        event: "(recorded line)".to_owned(),
                        data: hotl_text::clip_bytes(&String::from_utf8_lossy(line), 120),
                        source,
                    })?;
                body.extend_from_slice(b"event: ");
                body.extend_from_slice(typed.kind.as_bytes());
                body.push(b'\n');
            }
            body.extend_from_slice(b"data: ");
            body.extend_from_slice(line);
            body.extend_from_slice(b"\n\n");
        }
        if !self.dialect.named_events() {
            body.extend_from_slice(b"data: [DONE]\n\n");
        }
        Ok(Cow::Owned(body))
    }
}

/// Parses an event's JSON payload, naming the dialect and event on failure.
pub(crate) fn parse<'a, T: Deserialize<'a>>(
    dialect: &'static str,
    event: &SseEvent<'a>,
) -> Result<T> {
    serde_json::from_str(event.data).map_err(|source| WireError::BadJson {
        dialect,
        event: event.event.to_owned(),
        data: hotl_text::clip_bytes(event.data, 120),
        source,
    })
}

/// The event's type: its SSE `event:` name, which Anthropic and Responses servers set to the
/// payload's `type`; the payload's `type` when the name is missing.
pub(crate) fn event_type<'a>(dialect: &'static str, event: &SseEvent<'a>) -> Result<Cow<'a, str>> {
    if event.event != "message" {
        return Ok(Cow::Borrowed(event.event));
    }
    #[derive(Deserialize)]
    struct Typed<'a> {
        #[serde(rename = "type", borrow)]
        kind: Option<Cow<'a, str>>,
    }
    let typed: Typed<'a> = parse(dialect, event)?;
    Ok(typed.kind.unwrap_or(Cow::Borrowed("message")))
}

/// Whether a provider error of this type or code may go away when asked again.
pub(crate) fn retryable(kind: &str) -> bool {
    matches!(
        kind,
        "overloaded_error"
            | "api_error"
            | "timeout_error"
            | "rate_limit_error"
            | "rate_limit_exceeded"
            | "server_error"
            | "server_is_overloaded"
            | "slow_down"
            | "internal_error"
    )
}

/// An error object as OpenAI dialects send it: `{message, type, code, param}`, or a bare string.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(crate) enum OpenAiError {
    /// The usual object.
    Object {
        #[serde(default)]
        message: Option<String>,
        #[serde(rename = "type", default)]
        kind: Option<String>,
        #[serde(default)]
        code: Option<serde_json::Value>,
    },
    /// `"error": "some text"` (some compatible servers).
    Text(String),
}

impl OpenAiError {
    /// The neutral event: the code when it is a string (`rate_limit_exceeded` says more than
    /// its type `requests`), else the type.
    pub(crate) fn into_event(self) -> Event {
        match self {
            OpenAiError::Object {
                message,
                kind,
                code,
            } => {
                let kind = code
                    .and_then(|c| c.as_str().map(str::to_owned))
                    .or(kind)
                    .unwrap_or_else(|| "error".to_owned());
                Event::Error {
                    retryable: retryable(&kind),
                    kind,
                    message: message.unwrap_or_default(),
                }
            }
            OpenAiError::Text(message) => Event::Error {
                kind: "error".to_owned(),
                message,
                retryable: false,
            },
        }
    }
}
