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

/// The crate's result.
pub type Result<T, E = WireError> = std::result::Result<T, E>;

/// At most `max` bytes of `text`, cut at a character boundary, with `…` when cut.
pub(crate) fn clip(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}
