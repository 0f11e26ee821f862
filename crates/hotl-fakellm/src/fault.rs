//! Fault descriptions: HTTP errors, in-stream errors, dropped connections, slow and
//! re-chunked bodies. What a fault *does* lives in `deliver` (bytes) and `api_error` (status).

use serde::Deserialize;

/// A fault to inject into one response (or every response, when set as the standing fault).
/// All fields are optional and combine: e.g. `split_seed` with `chunk_delay_ms` sends a
/// slow, randomly re-chunked stream.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fault {
    /// Answer with this HTTP status and the dialect's error body instead of a reply
    /// (429 `rate_limit_error`, 500 `api_error`, 529 `overloaded_error`, ...).
    #[serde(default)]
    pub status: Option<u16>,
    /// `retry-after` in seconds (also sent as `retry-after-ms`).
    #[serde(default)]
    pub retry_after: Option<u64>,
    /// `retry-after-ms` in milliseconds (also sent, rounded up, as `retry-after`).
    #[serde(default)]
    pub retry_after_ms: Option<u64>,
    /// Send `x-should-retry: true|false`.
    #[serde(default)]
    pub should_retry: Option<bool>,
    /// Replace the error message (HTTP or in-stream).
    #[serde(default)]
    pub message: Option<String>,
    /// Error type/code for the in-stream error (default `overloaded_error` for Anthropic,
    /// `server_error` for OpenAI).
    #[serde(default)]
    pub error_type: Option<String>,
    /// Streaming only: after this many SSE events, send the dialect's error event(s)
    /// (Anthropic `event: error`; Chat `data: {"error":..}`; Responses `error` then
    /// `response.failed`) and close.
    #[serde(default)]
    pub error_after: Option<usize>,
    /// Close the connection abruptly after this many body bytes.
    #[serde(default)]
    pub drop_after_bytes: Option<usize>,
    /// Wait this long between body chunks (real time).
    #[serde(default)]
    pub chunk_delay_ms: Option<u64>,
    /// Re-chunk the body at these byte offsets (may fall inside UTF-8 sequences).
    #[serde(default)]
    pub split_at: Option<Vec<usize>>,
    /// Re-chunk the body at seeded pseudo-random offsets.
    #[serde(default)]
    pub split_seed: Option<u64>,
    /// Largest chunk for `split_seed` (default 8 bytes).
    #[serde(default)]
    pub split_max: Option<usize>,
    /// Hold the body after its first chunk until this gate opens (a test releases it: the
    /// client waits on a stream that has begun, with no timing in the test).
    #[serde(skip)]
    pub hold: Option<Gate>,
}

/// A gate a held reply waits at until the test opens it. Clones share the gate; it works
/// across runtimes (the fake serves on its own).
#[derive(Clone, Debug)]
pub struct Gate(std::sync::Arc<tokio::sync::watch::Sender<bool>>);

impl Default for Gate {
    fn default() -> Gate {
        Gate::new()
    }
}

impl PartialEq for Gate {
    fn eq(&self, other: &Gate) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Gate {}

impl Gate {
    /// A closed gate.
    pub fn new() -> Gate {
        Gate(std::sync::Arc::new(tokio::sync::watch::channel(false).0))
    }

    /// Opens it: every reply held at it goes on, and later ones do not wait.
    pub fn release(&self) {
        self.0.send_replace(true);
    }

    /// Waits until it is open.
    pub(crate) async fn opened(&self) {
        let mut open = self.0.subscribe();
        // The sender lives in `self`: the channel is never closed while this waits.
        let _ = open.wait_for(|open| *open).await;
    }
}

impl Fault {
    /// A reply held after its first chunk until `gate` opens.
    pub fn held(gate: &Gate) -> Fault {
        Fault {
            hold: Some(gate.clone()),
            ..Fault::default()
        }
    }

    /// An HTTP error with this status.
    pub fn status(status: u16) -> Fault {
        Fault {
            status: Some(status),
            ..Fault::default()
        }
    }

    /// A 429 with `retry-after-ms: ms` (and `retry-after` in whole seconds).
    pub fn rate_limited(retry_after_ms: u64) -> Fault {
        Fault {
            retry_after_ms: Some(retry_after_ms),
            ..Fault::status(429)
        }
    }

    /// An in-stream error after `events` SSE events.
    pub fn error_after(events: usize) -> Fault {
        Fault {
            error_after: Some(events),
            ..Fault::default()
        }
    }

    /// A dropped connection after `bytes` body bytes.
    pub fn drop_after(bytes: usize) -> Fault {
        Fault {
            drop_after_bytes: Some(bytes),
            ..Fault::default()
        }
    }

    /// Re-chunking at the given byte offsets.
    pub fn split_at(offsets: impl IntoIterator<Item = usize>) -> Fault {
        Fault {
            split_at: Some(offsets.into_iter().collect()),
            ..Fault::default()
        }
    }

    /// Re-chunking at seeded random offsets, chunks of 1..=`max` bytes.
    pub fn split_seeded(seed: u64, max: usize) -> Fault {
        Fault {
            split_seed: Some(seed),
            split_max: Some(max),
            ..Fault::default()
        }
    }

    /// Adds a delay between chunks.
    pub fn with_chunk_delay_ms(mut self, ms: u64) -> Fault {
        self.chunk_delay_ms = Some(ms);
        self
    }

    /// The `retry-after-ms` value this fault sends, if any.
    pub(crate) fn retry_ms(&self) -> Option<u64> {
        self.retry_after_ms
            .or_else(|| self.retry_after.map(|s| s.saturating_mul(1000)))
    }
}
