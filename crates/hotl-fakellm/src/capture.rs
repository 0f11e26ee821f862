//! Request capture: every request kept in arrival order (endpoint, headers, exact body
//! bytes), and optionally written to `DIR/NNNN-<endpoint>.json`.

use std::path::{Path, PathBuf};

use bytes::Bytes;

use crate::error::{IoResultExt, Result};

/// Which route a request hit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Endpoint {
    /// `POST /v1/messages`
    Messages,
    /// `POST /v1/messages/count_tokens`
    CountTokens,
    /// `POST /v1/chat/completions`
    ChatCompletions,
    /// `POST /v1/responses`
    Responses,
    /// `GET /v1/models`
    Models,
    /// Anything else (answered with 404).
    Other,
}

impl Endpoint {
    /// The name used in capture files: `messages`, `count-tokens`, `chat-completions`,
    /// `responses`, `models`, `other`.
    pub fn file_stem(self) -> &'static str {
        match self {
            Endpoint::Messages => "messages",
            Endpoint::CountTokens => "count-tokens",
            Endpoint::ChatCompletions => "chat-completions",
            Endpoint::Responses => "responses",
            Endpoint::Models => "models",
            Endpoint::Other => "other",
        }
    }
}

/// One request as received.
#[derive(Clone, Debug)]
pub struct Captured {
    /// 1-based arrival number (the `NNNN` of the capture file).
    pub seq: u64,
    /// The route.
    pub endpoint: Endpoint,
    /// HTTP method.
    pub method: String,
    /// Request path and query.
    pub path: String,
    /// Headers in arrival order, names lowercase.
    pub headers: Vec<(String, String)>,
    /// The body, byte for byte.
    pub body: Bytes,
}

impl Captured {
    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body parsed as JSON (`None` if it is not JSON).
    pub fn json(&self) -> Option<serde_json::Value> {
        serde_json::from_slice(&self.body).ok()
    }

    /// The body as text (lossy).
    pub fn body_text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The capture file name: `0001-messages.json`.
    pub fn file_name(&self) -> String {
        format!("{:04}-{}.json", self.seq, self.endpoint.file_stem())
    }

    /// Writes the body to `dir/<file_name>`, creating `dir` if needed; returns the path.
    pub(crate) fn write_to(&self, dir: &Path) -> Result<PathBuf> {
        std::fs::create_dir_all(dir).at(dir)?;
        let path = dir.join(self.file_name());
        std::fs::write(&path, &self.body).at(&path)?;
        Ok(path)
    }
}
