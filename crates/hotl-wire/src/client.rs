//! Talking to a provider over HTTP: one request, streamed, with retries.
//!
//! A failure before any output (429, 529, 5xx, `overloaded_error`, a connection reset, an
//! in-band error before the first token) is retried with backoff, honouring `retry-after`. A
//! stream that fails after output began is returned as [`WireError::Interrupted`] with what
//! arrived: never silently repeated, since the model may already have said something.

use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;
use reqwest::header::{HeaderMap, HeaderValue};

use crate::assemble::{Assembler, Reply};
use crate::decode::{StreamDecoder, StreamSink};
use crate::encode::anthropic::MessageCache;
use crate::encode::{Dialect, encode, encode_reusing};
use crate::error::{Result, WireError};
use crate::event::Event;
use crate::request::Request;
use crate::retry::{RetryPolicy, jitter, retryable_status, server_wait};
use crate::sse::Flow;

/// The Anthropic API version hotl speaks.
const ANTHROPIC_VERSION: &str = "2023-06-01";

/// A provider reached over HTTP.
#[derive(Clone, Debug)]
pub struct HttpProvider {
    client: reqwest::Client,
    messages: std::sync::Arc<std::sync::Mutex<MessageCache>>,
    dialect: Dialect,
    base: String,
    api_key: Option<String>,
    /// When and how often to retry.
    pub retry: RetryPolicy,
}

/// Chooses ring as the process's TLS provider, as every HTTP client of hotl needs once
/// (installing twice is harmless).
pub fn install_tls() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

impl HttpProvider {
    /// A provider speaking `dialect` at `base_url` (a server root like `http://host:8080` or a
    /// URL ending in `/v1`).
    pub fn new(dialect: Dialect, base_url: &str, api_key: Option<String>) -> Result<Self> {
        // reqwest needs a TLS provider chosen once per process; installing twice is harmless.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let base = normalize_base(base_url)?;
        let mut builder = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(30))
            .read_timeout(Duration::from_secs(300));
        if base.starts_with("http://") {
            // Plain HTTP (a local server, the fake): no certificate is ever checked, so the
            // system's trust store (a file per certificate) is not read at start.
            builder = builder.tls_certs_only(std::iter::empty());
        }
        let client = builder
            .build()
            .map_err(|e| WireError::Config(format!("cannot build an HTTP client: {e}")))?;
        Ok(HttpProvider {
            client,
            messages: Default::default(),
            dialect,
            base,
            api_key,
            retry: RetryPolicy::default(),
        })
    }

    /// The dialect spoken.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// Drops what this client keeps between requests (the encoded messages it reuses);
    /// returns how many messages it held. The next request is encoded whole.
    pub fn forget(&self) -> usize {
        self.messages
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear()
    }

    /// The models the server lists (`GET /v1/models`; Anthropic's and OpenAI's lists both
    /// carry `data[].id`), in the order given.
    pub async fn models(&self) -> Result<Vec<String>> {
        let url = format!("{}/models", self.base);
        let response = self
            .client
            .get(&url)
            .headers(self.auth_headers())
            .timeout(Duration::from_secs(15))
            .send()
            .await
            .map_err(|e| WireError::Config(format!("cannot list the models at {url}: {e}")))?;
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let text = response
            .text()
            .await
            .map_err(|e| WireError::Config(format!("cannot list the models at {url}: {e}")))?;
        if !(200..300).contains(&status) {
            return Err(api_error(status, &headers, &text));
        }
        let list: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| WireError::Config(format!("the model list at {url} is not JSON: {e}")))?;
        Ok(list
            .get("data")
            .and_then(|d| d.as_array())
            .map(|models| {
                models
                    .iter()
                    .filter_map(|m| m.get("id").and_then(|i| i.as_str()).map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default())
    }

    /// The URL requests go to.
    pub fn url(&self) -> String {
        format!("{}/{}", self.base, self.dialect.path())
    }

    /// Sends `request` (it must stream) and returns the whole reply. `on_event` sees every
    /// event as it arrives, for display.
    pub async fn send(
        &self,
        request: &Request<'_>,
        on_event: &mut (dyn FnMut(&Event) + Send),
    ) -> Result<Reply> {
        let body = self.body(request)?;
        self.send_body(body, on_event).await
    }

    /// The bytes `request` is sent as (for callers that time or inspect them).
    pub fn body(&self, request: &Request<'_>) -> Result<Bytes> {
        if !request.stream {
            return Err(WireError::Config(
                "the HTTP provider only sends streaming requests".to_owned(),
            ));
        }
        let bytes = match &request.reuse_key {
            Some(key) => {
                let mut cache = self.messages.lock().unwrap_or_else(|e| e.into_inner());
                encode_reusing(self.dialect, request, key, &mut cache)
            }
            None => encode(self.dialect, request),
        };
        Ok(Bytes::from(bytes))
    }

    /// Sends a body made by [`HttpProvider::body`], with retries, and returns the whole reply.
    pub async fn send_body(
        &self,
        body: Bytes,
        on_event: &mut (dyn FnMut(&Event) + Send),
    ) -> Result<Reply> {
        let mut attempt = 0;
        loop {
            let mut sink = Sink {
                assembler: Assembler::new(),
                began: false,
                error: None,
                on_event: &mut *on_event,
            };
            let result = self.attempt(body.clone(), &mut sink).await;
            let result = match (result, sink.error.take()) {
                (Ok(()), Some(e)) => Err(e),
                (result, _) => result,
            };
            let err = match result {
                Ok(()) => return Ok(sink.assembler.finish()),
                Err(err) => err,
            };
            if sink.began {
                return Err(WireError::Interrupted {
                    partial: Box::new(sink.assembler.finish()),
                    cause: Box::new(err),
                });
            }
            match err.retry_after() {
                Some(asked) if attempt < self.retry.max_retries => {
                    let wait = self.retry.wait(attempt, asked, jitter());
                    // The error's kind only: its message may quote what was sent.
                    tracing::info!(
                        attempt = attempt + 1,
                        wait_ms = wait.as_millis() as u64,
                        status = err.status(),
                        "retrying the request"
                    );
                    tokio::time::sleep(wait).await;
                    attempt += 1;
                }
                _ => {
                    tracing::warn!(
                        status = err.status(),
                        attempts = attempt + 1,
                        "the request failed"
                    );
                    return Err(err);
                }
            }
        }
    }

    async fn attempt(&self, body: Bytes, sink: &mut Sink<'_>) -> Result<()> {
        let response = self
            .client
            .post(self.url())
            .headers(self.headers())
            .body(body)
            .send()
            .await
            .map_err(transport)?;
        let status = response.status().as_u16();
        if !(200..300).contains(&status) {
            let headers = response.headers().clone();
            let text = response.text().await.unwrap_or_default();
            return Err(api_error(status, &headers, &text));
        }
        let mut decoder = match self.dialect {
            Dialect::Anthropic => StreamDecoder::anthropic(),
            Dialect::OpenAiChat => StreamDecoder::openai_chat(),
            Dialect::OpenAiResponses => StreamDecoder::openai_responses(),
        };
        let mut stream = response.bytes_stream();
        while let Some(chunk) = stream.next().await {
            // A body cut off is worth another try (if no output reached the caller yet).
            let chunk = chunk.map_err(|e| WireError::Transport {
                message: error_chain(&e),
                retryable: true,
            })?;
            if decoder.feed(&chunk, sink)? == Flow::Stop {
                return Ok(());
            }
        }
        decoder.finish(sink)
    }

    fn headers(&self) -> HeaderMap {
        let mut headers = self.auth_headers();
        headers.insert("content-type", HeaderValue::from_static("application/json"));
        headers.insert("accept", HeaderValue::from_static("text/event-stream"));
        headers
    }

    /// The client requests go through.
    pub(crate) fn client(&self) -> &reqwest::Client {
        &self.client
    }

    /// The base URL, ending in `/v1`.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// What identifies the caller to the provider: its key, in the dialect's header.
    pub(crate) fn auth_headers(&self) -> HeaderMap {
        let mut headers = HeaderMap::new();
        let key = self
            .api_key
            .as_deref()
            .and_then(|k| HeaderValue::from_str(k).ok());
        match self.dialect {
            Dialect::Anthropic => {
                headers.insert(
                    "anthropic-version",
                    HeaderValue::from_static(ANTHROPIC_VERSION),
                );
                if let Some(key) = key {
                    headers.insert("x-api-key", key);
                }
            }
            Dialect::OpenAiChat | Dialect::OpenAiResponses => {
                if let Some(key) = self.api_key.as_deref()
                    && let Ok(value) = HeaderValue::from_str(&format!("Bearer {key}"))
                {
                    headers.insert("authorization", value);
                }
            }
        }
        headers
    }
}

/// Folds events into the reply, remembers an in-band error, and notes when output began.
struct Sink<'a> {
    assembler: Assembler,
    began: bool,
    error: Option<WireError>,
    on_event: &'a mut (dyn FnMut(&Event) + Send),
}

impl StreamSink for Sink<'_> {
    type Error = WireError;

    fn event(&mut self, event: Event) -> Result<Flow> {
        if let Event::Error {
            kind,
            message,
            retryable,
        } = &event
        {
            self.error = Some(WireError::Provider {
                status: None,
                kind: kind.clone(),
                message: message.clone(),
                retryable: *retryable,
                wait: None,
            });
        }
        self.began |= matches!(
            event,
            Event::TextDelta { .. }
                | Event::ThinkingDelta { .. }
                | Event::ThinkingDone { .. }
                | Event::ToolCallStart { .. }
        );
        (self.on_event)(&event);
        self.assembler.push(&event);
        Ok(Flow::Continue)
    }
}

/// `http://host:8080`, `http://host:8080/` and `http://host:8080/v1/` all mean
/// `http://host:8080/v1`.
pub fn normalize_base(base_url: &str) -> Result<String> {
    let trimmed = base_url.trim().trim_end_matches('/');
    if !(trimmed.starts_with("http://") || trimmed.starts_with("https://")) {
        return Err(WireError::Config(format!(
            "base URL {base_url:?} must start with http:// or https://"
        )));
    }
    Ok(if trimmed.ends_with("/v1") {
        trimmed.to_owned()
    } else {
        format!("{trimmed}/v1")
    })
}

fn transport(e: reqwest::Error) -> WireError {
    WireError::Transport {
        message: error_chain(&e),
        retryable: e.is_connect() || e.is_timeout() || e.is_request() || e.is_body(),
    }
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        out.push_str(": ");
        out.push_str(&s.to_string());
        source = s.source();
    }
    out
}

/// The error a non-2xx response stands for, with its body's kind and message when it has the
/// Anthropic (`{"type":"error","error":{...}}`) or OpenAI (`{"error":{...}}`) shape. The kind
/// is the error's `code` when that is a string (`context_length_exceeded` says more than its
/// type `invalid_request_error`), else its `type`, as for errors inside a stream.
fn api_error(status: u16, headers: &HeaderMap, body: &str) -> WireError {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let parsed: Option<serde_json::Value> = serde_json::from_str(body).ok();
    let error = parsed.as_ref().and_then(|v| v.get("error"));
    let kind = error
        .and_then(|e| {
            e.get("code")
                .filter(|c| c.is_string())
                .or_else(|| e.get("type"))
        })
        .and_then(|t| t.as_str())
        .unwrap_or("http_error")
        .to_owned();
    let message = error
        .and_then(|e| e.get("message"))
        .and_then(|m| m.as_str())
        .map(str::to_owned)
        .unwrap_or_else(|| hotl_text::clip_bytes(body.trim(), 300));
    let retryable = match header("x-should-retry") {
        Some("true") => true,
        Some("false") => false,
        _ => retryable_status(status) || kind == "overloaded_error",
    };
    WireError::Provider {
        status: Some(status),
        kind,
        message,
        retryable,
        wait: server_wait(header("retry-after-ms"), header("retry-after")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls_normalise_to_v1() {
        for url in [
            "http://127.0.0.1:8080",
            "http://127.0.0.1:8080/",
            "http://127.0.0.1:8080/v1",
            "http://127.0.0.1:8080/v1/",
        ] {
            assert_eq!(normalize_base(url).unwrap(), "http://127.0.0.1:8080/v1");
        }
        assert!(normalize_base("localhost:8080").is_err());
    }

    #[test]
    fn api_errors_read_both_shapes_and_honour_retry_headers() {
        let mut headers = HeaderMap::new();
        headers.insert("retry-after", HeaderValue::from_static("3"));
        let e = api_error(
            529,
            &headers,
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        );
        assert_eq!(e.retry_after(), Some(Some(Duration::from_secs(3))));
        assert!(e.to_string().contains("Overloaded"), "{e}");
        let e = api_error(
            400,
            &HeaderMap::new(),
            r#"{"error":{"message":"bad","type":"invalid_request_error","param":null,"code":null}}"#,
        );
        assert_eq!(e.retry_after(), None);
        assert!(e.to_string().contains("invalid_request_error"), "{e}");
        // A string code names the error better than its type.
        let e = api_error(
            400,
            &HeaderMap::new(),
            r#"{"error":{"message":"Please reduce the length of the messages or completion.","type":"invalid_request_error","code":"context_length_exceeded"}}"#,
        );
        assert!(e.context_overflow().is_some(), "{e}");
        let mut headers = HeaderMap::new();
        headers.insert("x-should-retry", HeaderValue::from_static("false"));
        assert_eq!(api_error(503, &headers, "down").retry_after(), None);
    }
}
