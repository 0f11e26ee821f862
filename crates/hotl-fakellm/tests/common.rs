//! Shared helpers: a plain reqwest client, request builders, a tiny SSE splitter and the
//! path of the shared wire fixtures.

use std::path::PathBuf;

use hotl_fakellm::{Config, FakeLlm, Reply, Tokenizer};
use serde_json::{Value, json};

pub type TestResult = Result<(), Box<dyn std::error::Error>>;

thread_local! {
    // One client per test thread: a client's pooled connections belong to its runtime.
    static CLIENT: reqwest::Client = {
        let _ = rustls::crypto::ring::default_provider().install_default();
        reqwest::Client::new()
    };
}

/// A reqwest client (ring provider installed; loopback http needs no TLS anyway).
pub fn client() -> reqwest::Client {
    CLIENT.with(Clone::clone)
}

/// A scripted server counting tokens as ceil(bytes / 4).
pub async fn scripted(replies: impl IntoIterator<Item = Reply>) -> FakeLlm {
    FakeLlm::spawn(Config::scripted(replies).with_tokenizer(Tokenizer::Bytes4)).await
}

/// Posts JSON with the headers of the dialect the path belongs to.
pub async fn post(fake: &FakeLlm, path: &str, body: &Value) -> reqwest::Result<reqwest::Response> {
    post_raw(fake, path, serde_json::to_vec(body).unwrap_or_default()).await
}

/// Posts raw bytes.
pub async fn post_raw(
    fake: &FakeLlm,
    path: &str,
    body: Vec<u8>,
) -> reqwest::Result<reqwest::Response> {
    let url = format!("{}{path}", fake.base_url());
    let mut req = client()
        .post(url)
        .header("content-type", "application/json")
        .body(body);
    req = if path.starts_with("/v1/messages") {
        req.header("x-api-key", "test-key")
            .header("anthropic-version", "2023-06-01")
    } else {
        req.header("authorization", "Bearer test-key")
    };
    req.send().await
}

/// Posts and returns (status, body text).
pub async fn post_text(
    fake: &FakeLlm,
    path: &str,
    body: &Value,
) -> Result<(u16, String), reqwest::Error> {
    let resp = post(fake, path, body).await?;
    let status = resp.status().as_u16();
    Ok((status, resp.text().await?))
}

/// Posts and parses a JSON answer.
pub async fn post_json(
    fake: &FakeLlm,
    path: &str,
    body: &Value,
) -> Result<(u16, Value), Box<dyn std::error::Error>> {
    let (status, text) = post_text(fake, path, body).await?;
    Ok((status, serde_json::from_str(&text)?))
}

/// One parsed SSE event.
#[derive(Debug, Clone)]
pub struct Sse {
    pub event: Option<String>,
    pub data: String,
}

impl Sse {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.data).unwrap_or(Value::Null)
    }
}

/// Splits an SSE body (LF line endings) into events; a trailing unterminated event counts.
pub fn parse_sse(text: &str) -> Vec<Sse> {
    text.split("\n\n")
        .filter(|block| !block.trim().is_empty())
        .map(|block| {
            let mut event = None;
            let mut data = Vec::new();
            for line in block.lines() {
                if let Some(v) = line.strip_prefix("event:") {
                    event = Some(v.trim_start().to_string());
                } else if let Some(v) = line.strip_prefix("data:") {
                    data.push(v.strip_prefix(' ').unwrap_or(v).to_string());
                }
            }
            Sse {
                event,
                data: data.join("\n"),
            }
        })
        .collect()
}

/// Event names in order.
pub fn names(events: &[Sse]) -> Vec<String> {
    events
        .iter()
        .map(|e| e.event.clone().unwrap_or_default())
        .collect()
}

/// A file of the recorded wire fixtures.
pub fn fixture(rel: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/wire/")).join(rel)
}

/// A minimal Anthropic request.
pub fn anthropic(messages: Value, stream: bool) -> Value {
    json!({"model": "claude-sonnet-5", "max_tokens": 1024, "stream": stream, "messages": messages})
}

/// A one-user-message Anthropic request.
pub fn anthropic_user(text: &str, stream: bool) -> Value {
    anthropic(json!([{"role": "user", "content": text}]), stream)
}

/// A one-user-message Chat request.
pub fn chat_user(text: &str, stream: bool) -> Value {
    json!({"model": "gpt-5.1", "stream": stream, "messages": [{"role": "user", "content": text}]})
}

/// A one-input Responses request.
pub fn responses_user(text: &str, stream: bool) -> Value {
    json!({"model": "gpt-5.1", "stream": stream, "input": text})
}
