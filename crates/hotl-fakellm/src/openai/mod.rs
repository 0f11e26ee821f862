//! The two OpenAI dialects (Chat Completions, Responses), their shared cache simulator and
//! helpers.

pub(crate) mod cache;
pub(crate) mod chat;
pub(crate) mod chat_render;
pub(crate) mod responses;
pub(crate) mod responses_render;

use crate::json::Json;

/// The text of a message `content`: a string, or the text of its parts (other parts as
/// their JSON, so they still count and hash).
pub(crate) fn content_text(content: Option<&Json>) -> String {
    match content {
        None | Some(Json::Null) => String::new(),
        Some(Json::Str(s)) => s.clone(),
        Some(Json::Arr(parts)) => parts
            .iter()
            .map(|p| match p.str_of("text").or_else(|| p.str_of("refusal")) {
                Some(t) => t.to_string(),
                None => p.to_compact(),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Some(other) => other.to_compact(),
    }
}

/// The retention asked for: `"24h"` is extended, anything else in memory.
pub(crate) fn extended_retention(req: &Json) -> bool {
    req.str_of("prompt_cache_retention") == Some("24h")
}
