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
}

impl WireError {
    /// Whether the stream was cut short (as opposed to malformed): asking again may succeed.
    pub fn is_interrupted(&self) -> bool {
        matches!(self, WireError::Incomplete { .. })
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
