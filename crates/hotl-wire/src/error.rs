//! The crate's error: what can go wrong between the provider's bytes and hotl's events.

/// An error talking to a provider. Decode errors name the dialect and the event that failed;
/// more kinds (HTTP status, transport) will join them, so matches need a wildcard arm.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WireError {
    /// A `data:` payload is not the JSON its dialect promises.
    #[error("malformed {dialect} stream: bad JSON in a `{event}` event: {source} (data: {data})")]
    BadJson {
        /// `anthropic`, `openai-chat` or `openai-responses`.
        dialect: &'static str,
        /// The event's `type` (or SSE event name).
        event: String,
        /// The start of the payload, for the message.
        data: String,
        /// What serde found.
        source: serde_json::Error,
    },
    /// A known event is missing something it cannot do without (a delta without its index).
    #[error("malformed {dialect} stream: `{event}` event {reason}")]
    BadEvent {
        /// The dialect.
        dialect: &'static str,
        /// The event's `type`.
        event: String,
        /// What is wrong, worded to follow the event name.
        reason: String,
    },
    /// The body is not a server-sent event stream: an HTML error page, a JSON error body, a
    /// proxy's banner.
    #[error("response is not an event stream; it starts with {head:?}")]
    NotSse {
        /// The first line that is not SSE, cut to 200 bytes.
        head: String,
    },
    /// The stream ended before its terminal event: the connection dropped or the server gave up.
    /// Everything decoded before the end was delivered first.
    #[error(
        "{dialect} stream ended before its final `{expected}` event{}",
        match dropped {
            Some(d) => format!("; its last event ({d}) was cut off before the blank line that ends it"),
            None => " (connection dropped?)".to_owned(),
        }
    )]
    Incomplete {
        /// The dialect.
        dialect: &'static str,
        /// The terminal event that never came (`message_stop`, `[DONE]`, `response.completed`).
        expected: &'static str,
        /// An event the body ended in the middle of (no blank line after it): its name, or the
        /// start of its data when it has no name. Per the SSE rules it is not dispatched.
        dropped: Option<String>,
    },
    /// The provider answered with an error: an HTTP status, or an error event in the stream.
    #[error("provider error{}: {kind}: {message}", status.map(|s| format!(" (HTTP {s})")).unwrap_or_default())]
    Provider {
        /// The HTTP status, for an error response (none for an in-stream error).
        status: Option<u16>,
        /// The provider's error type (`overloaded_error`, `rate_limit_error`, ...).
        kind: String,
        /// Its message.
        message: String,
        /// Whether asking again may succeed.
        retryable: bool,
        /// How long the server asked to wait (`retry-after`, `retry-after-ms`).
        wait: Option<std::time::Duration>,
    },
    /// The connection failed or dropped.
    #[error("cannot reach the provider: {message}")]
    Transport {
        /// What failed, with its causes.
        message: String,
        /// Whether asking again may succeed.
        retryable: bool,
    },
    /// The stream failed after output began; what arrived is kept. Never retried silently.
    #[error("the response was interrupted after output began: {cause}")]
    Interrupted {
        /// What arrived before the failure.
        partial: Box<crate::assemble::Reply>,
        /// The failure.
        cause: Box<WireError>,
    },
    /// The provider is misconfigured (a bad base URL, ...).
    #[error("{0}")]
    Config(String),
}

impl WireError {
    /// The HTTP status a provider answered with, when it answered with one.
    pub fn status(&self) -> Option<u16> {
        match self {
            WireError::Provider { status, .. } => *status,
            _ => None,
        }
    }

    /// Whether the stream was cut short (as opposed to malformed): asking again may succeed.
    pub fn is_interrupted(&self) -> bool {
        matches!(
            self,
            WireError::Incomplete { .. } | WireError::Interrupted { .. }
        )
    }

    /// `Some(wait)` when asking again may succeed (with the wait the server asked for, if any);
    /// `None` when it will not.
    pub fn retry_after(&self) -> Option<Option<std::time::Duration>> {
        match self {
            WireError::Provider {
                retryable: true,
                wait,
                ..
            } => Some(*wait),
            WireError::Transport {
                retryable: true, ..
            }
            | WireError::Incomplete { .. } => Some(None),
            _ => None,
        }
    }
}

/// A request the provider refused as longer than the model's context window, with the counts
/// its message gave, when it gave them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Overflow {
    /// The request's size in tokens, as the provider counted it.
    pub tokens: Option<u64>,
    /// The window, in tokens.
    pub window: Option<u64>,
}

impl Overflow {
    /// The share of the request that fits the window, when the counts are known.
    pub fn fitting_share(&self) -> Option<f64> {
        match (self.tokens, self.window) {
            (Some(tokens), Some(window)) if tokens > window => Some(window as f64 / tokens as f64),
            _ => None,
        }
    }
}

/// Error codes and types providers and local servers use for a request longer than the
/// window (`request_too_large` is Anthropic's 413 for a body over its byte limit: shrinking
/// the conversation helps there too).
const OVERFLOW_KINDS: [&str; 4] = [
    "context_length_exceeded",
    "exceed_context_size_error",
    "model_context_window_exceeded",
    "request_too_large",
];

/// How their messages say it, lowercased.
const OVERFLOW_PHRASES: [&str; 8] = [
    "prompt is too long",
    "exceed context limit",
    "maximum context length",
    "exceeds the context window",
    "exceeds the available context size",
    "context_length_exceeded",
    "input is too long",
    "too many input tokens",
];

impl WireError {
    /// `Some` when the provider refused the request as too long for the model's window
    /// (compacting the conversation may let it through); the counts come from the message.
    pub fn context_overflow(&self) -> Option<Overflow> {
        let WireError::Provider { kind, message, .. } = self else {
            return None;
        };
        let lower = message.to_ascii_lowercase();
        let said = OVERFLOW_KINDS.contains(&kind.as_str())
            || OVERFLOW_PHRASES.iter().any(|p| lower.contains(p));
        said.then(|| overflow_counts(&lower))
    }
}

/// The token counts an overflow message names, when it names them as the providers do: two
/// (the larger is the request's: "prompt is too long: 215103 tokens > 200000 maximum", "maximum
/// context length is 128000 tokens. However, your messages resulted in 130512 tokens", "request
/// (9010 tokens) exceeds the available context size (8192 tokens)"), or Anthropic's three
/// ("input length and `max_tokens` exceed context limit: 199759 + 8192 > 200000": what is
/// left for the input is the limit less `max_tokens`).
fn overflow_counts(message: &str) -> Overflow {
    let numbers: Vec<u64> = message
        .split(|c: char| !c.is_ascii_digit() && c != ',')
        .filter_map(|n| n.replace(',', "").parse().ok())
        .collect();
    match numbers[..] {
        [a, b] if a != b => Overflow {
            tokens: Some(a.max(b)),
            window: Some(a.min(b)),
        },
        [input, output, limit] if message.contains("max_tokens") && output < limit => Overflow {
            tokens: Some(input),
            window: Some(limit - output),
        },
        _ => Overflow::default(),
    }
}

/// The crate's result.
pub type Result<T, E = WireError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    fn provider(status: u16, kind: &str, message: &str) -> WireError {
        WireError::Provider {
            status: Some(status),
            kind: kind.to_owned(),
            message: message.to_owned(),
            retryable: false,
            wait: None,
        }
    }

    fn counts(tokens: u64, window: u64) -> Option<Overflow> {
        Some(Overflow {
            tokens: Some(tokens),
            window: Some(window),
        })
    }

    #[test]
    fn each_provider_s_too_long_error_is_an_overflow_with_its_counts() {
        let anthropic = provider(
            400,
            "invalid_request_error",
            "prompt is too long: 215103 tokens > 200000 maximum",
        );
        assert_eq!(anthropic.context_overflow(), counts(215_103, 200_000));
        let chat = provider(
            400,
            "context_length_exceeded",
            "This model's maximum context length is 128000 tokens. However, your messages \
             resulted in 130512 tokens. Please reduce the length of the messages.",
        );
        assert_eq!(chat.context_overflow(), counts(130_512, 128_000));
        let responses = provider(
            400,
            "context_length_exceeded",
            "Your input exceeds the context window of this model. Please adjust your input and \
             try again.",
        );
        assert_eq!(responses.context_overflow(), Some(Overflow::default()));
        let llama = provider(
            400,
            "exceed_context_size_error",
            "request (9010 tokens) exceeds the available context size (8192 tokens), try \
             increasing it",
        );
        assert_eq!(llama.context_overflow(), counts(9_010, 8_192));
        let with_output = provider(
            400,
            "invalid_request_error",
            "input length and `max_tokens` exceed context limit: 199759 + 8192 > 200000, \
             decrease input length or `max_tokens` and try again",
        );
        assert_eq!(with_output.context_overflow(), counts(199_759, 191_808));
        let groq = provider(
            400,
            "context_length_exceeded",
            "Please reduce the length of the messages or completion.",
        );
        assert_eq!(groq.context_overflow(), Some(Overflow::default()));
        assert_eq!(
            llama.context_overflow().and_then(|o| o.fitting_share()),
            Some(8_192.0 / 9_010.0)
        );
    }

    #[test]
    fn other_errors_are_not_overflows() {
        for e in [
            provider(
                400,
                "invalid_request_error",
                "messages: roles must alternate",
            ),
            provider(429, "rate_limit_error", "Too many tokens per minute: 40000"),
            WireError::Config("prompt is too long".to_owned()),
        ] {
            assert_eq!(e.context_overflow(), None, "{e}");
        }
    }
}
