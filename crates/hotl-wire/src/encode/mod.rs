//! Request bodies, one module per dialect. Deterministic: the same request gives the same
//! bytes (fixed key order, tool inputs and schemas as their exact frozen text).

pub mod anthropic;
pub mod openai_chat;
mod openai_parts;
pub mod openai_responses;

use hotl_view::Role;
use serde::{Serialize, Serializer};

/// A provider protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// Anthropic Messages (`/v1/messages`).
    Anthropic,
    /// OpenAI Chat Completions (`/v1/chat/completions`), also llama.cpp, Ollama and vLLM.
    OpenAiChat,
    /// OpenAI Responses (`/v1/responses`).
    OpenAiResponses,
}

impl Dialect {
    /// The path a request is posted to, under the base URL's `/v1`.
    pub fn path(self) -> &'static str {
        match self {
            Dialect::Anthropic => "messages",
            Dialect::OpenAiChat => "chat/completions",
            Dialect::OpenAiResponses => "responses",
        }
    }

    /// The dialect's name as users type it.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Anthropic => "anthropic",
            Dialect::OpenAiChat => "openai-chat",
            Dialect::OpenAiResponses => "openai-responses",
        }
    }

    /// Parses a name as users type it.
    pub fn from_name(name: &str) -> Option<Dialect> {
        match name {
            "anthropic" => Some(Dialect::Anthropic),
            "openai-chat" | "chat" => Some(Dialect::OpenAiChat),
            "openai-responses" | "openai" | "responses" => Some(Dialect::OpenAiResponses),
            _ => None,
        }
    }
}

/// The JSON body of `request` in `dialect`.
pub fn encode(dialect: Dialect, request: &crate::Request<'_>) -> Vec<u8> {
    match dialect {
        Dialect::Anthropic => anthropic::body(request),
        Dialect::OpenAiChat => openai_chat::body(request),
        Dialect::OpenAiResponses => openai_responses::body(request),
    }
}

/// [`encode`], reusing unchanged messages' bytes from `cache` under `key` where the dialect
/// allows (Anthropic); other dialects encode in full. The caller promises that under one key,
/// messages only grow at the end: earlier parts never change.
pub fn encode_reusing(
    dialect: Dialect,
    request: &crate::Request<'_>,
    key: &str,
    cache: &mut anthropic::MessageCache,
) -> Vec<u8> {
    match dialect {
        Dialect::Anthropic => {
            cache.prepare(key);
            anthropic::body_reusing(request, cache)
        }
        _ => encode(dialect, request),
    }
}

/// `[t<seq>] <text>` written straight into the output.
pub(crate) struct StampedText<'a>(pub u64, pub &'a str);

impl Serialize for StampedText<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&format_args!("[t{}] {}", self.0, self.1))
    }
}

/// A JSON object of string fields written in the order given. Request bodies never go
/// through `serde_json::Value` objects: their key order follows serde_json's features (sorted,
/// or insertion order when some crate in the build enables `preserve_order`), and a request's
/// bytes must not depend on what else is linked (the prompt cache keys on them). The orders
/// used are the ones hotl has always sent.
pub(crate) struct Fields<'a, const N: usize>(pub [(&'a str, &'a str); N]);

impl<const N: usize> serde::Serialize for Fields<'_, N> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(N))?;
        for (key, value) in &self.0 {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

pub(crate) fn role_name(role: Role) -> &'static str {
    match role {
        Role::User => "user",
        Role::Assistant => "assistant",
    }
}

/// The text of several parts, one per line, for dialects whose fields are plain strings.
pub(crate) fn joined_text(parts: &[hotl_view::Part<'_>]) -> String {
    let mut out = String::new();
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        part_text(p, &mut out);
    }
    out
}

/// The text a part carries, for dialects whose fields are plain strings.
pub(crate) fn part_text(part: &hotl_view::Part<'_>, out: &mut String) {
    use hotl_log::Block;
    use hotl_view::Part;
    match part {
        Part::Stamped { seq, text } => {
            out.push_str(&format!("[t{seq}] "));
            out.push_str(text);
        }
        Part::Text(text) => out.push_str(text),
        Part::Block(Block::Text { text }) => out.push_str(text),
        Part::Block(Block::Image { media_type, .. }) => {
            out.push_str(&format!("[image {media_type}]"));
        }
        Part::ToolResult { content, .. } => out.push_str(&joined_text(content)),
        Part::Block(_) => {}
    }
}
