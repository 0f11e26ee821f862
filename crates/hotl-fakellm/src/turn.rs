//! The dialect-neutral model of one exchange: what the request says (`Convo`), what the
//! server answers (`Output`), the token usage, ids, and the context renderers need.

use crate::json::Json;
use crate::script::{Reply, Stop};
use crate::tokens::Counter;

/// What a request says, reduced to what the demo model and `match` need.
#[derive(Clone, Debug, Default)]
pub(crate) struct Convo {
    /// Text of the last user message, or the contents of the tool results it carries.
    pub last_input: String,
    /// The last user turn carries tool results.
    pub after_tool: bool,
    /// Tools the request offers.
    pub tools: Vec<ToolInfo>,
    /// The request enables thinking / reasoning.
    pub thinking: bool,
    /// Anthropic `max_tokens: 0`: read the prompt, write the cache, answer nothing.
    pub prewarm: bool,
}

/// A tool the request offers: its name and the parameter the demo model fills.
#[derive(Clone, Debug)]
pub(crate) struct ToolInfo {
    pub name: String,
    pub param: Option<String>,
}

impl ToolInfo {
    /// Reads a JSON schema: the first required property, else the first property.
    pub(crate) fn from_schema(name: &str, schema: Option<&Json>) -> ToolInfo {
        let required = schema
            .and_then(|s| s.arr_of("required"))
            .and_then(|r| r.first())
            .and_then(Json::as_str);
        let first = match schema.and_then(|s| s.get("properties")) {
            Some(Json::Obj(fields)) => fields.first().map(|(k, _)| k.as_str()),
            _ => None,
        };
        ToolInfo {
            name: name.to_string(),
            param: required.or(first).map(str::to_string),
        }
    }
}

/// One tool call to send.
#[derive(Clone, Debug)]
pub(crate) struct OutTool {
    pub name: String,
    /// The arguments as compact JSON text (cut in half when the reply stops at max_tokens).
    pub args: String,
}

/// What the server answers, before any dialect renders it.
#[derive(Clone, Debug)]
pub(crate) struct Output {
    pub thinking: Option<String>,
    pub text: String,
    pub tools: Vec<OutTool>,
    pub stop: Stop,
}

impl Output {
    pub(crate) fn from_reply(reply: &Reply) -> Output {
        let mut tools: Vec<OutTool> = reply
            .tools
            .iter()
            .map(|t| OutTool {
                name: t.name.clone(),
                args: Json::from_value(&t.input).to_compact(),
            })
            .collect();
        let stop = reply.stop.unwrap_or(if tools.is_empty() {
            Stop::EndTurn
        } else {
            Stop::ToolUse
        });
        if stop == Stop::MaxTokens
            && let Some(last) = tools.last_mut()
        {
            let keep = last.args.chars().count() / 2;
            last.args = last.args.chars().take(keep).collect();
        }
        Output {
            thinking: reply.thinking.clone(),
            text: reply.text.clone().unwrap_or_default(),
            tools,
            stop,
        }
    }

    /// No content at all (Anthropic pre-warming with `max_tokens: 0`).
    pub(crate) fn empty(stop: Stop) -> Output {
        Output {
            thinking: None,
            text: String::new(),
            tools: Vec::new(),
            stop,
        }
    }

    /// Output tokens in total, and how many of them are thinking.
    pub(crate) fn tokens(&self, counter: &Counter) -> (u64, u64) {
        let thinking = self.thinking.as_deref().map_or(0, |t| counter.count(t));
        let tools: u64 = self
            .tools
            .iter()
            .map(|t| counter.count(&t.name) + counter.count(&t.args))
            .sum();
        (thinking + counter.count(&self.text) + tools, thinking)
    }
}

/// Token usage of one request, in neutral terms; each dialect reports it its own way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Usage {
    /// Every prompt token (cached or not).
    pub prompt: u64,
    pub cache_read: u64,
    pub cache_write_5m: u64,
    pub cache_write_1h: u64,
    pub output: u64,
    pub thinking: u64,
}

impl Usage {
    /// Anthropic `input_tokens`: what was neither read nor written.
    pub(crate) fn uncached(&self) -> u64 {
        self.prompt
            .saturating_sub(self.cache_read + self.cache_write_5m + self.cache_write_1h)
    }
}

/// Deterministic ids derived from the request's sequence number.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ids {
    pub seq: u64,
    /// [`Config::id_seed`](crate::Config::id_seed): another server's ids differ.
    pub seed: u64,
}

impl Ids {
    /// `prefix` followed by 24 base-62 characters hashed from (kind, seq, index).
    pub(crate) fn make(&self, prefix: &str, kind: &str, index: usize) -> String {
        const ALPHABET: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
        let mut h = blake3::Hasher::new();
        h.update(kind.as_bytes());
        h.update(&self.seq.to_le_bytes());
        h.update(&(index as u64).to_le_bytes());
        if self.seed != 0 {
            h.update(&self.seed.to_le_bytes());
        }
        let digest = h.finalize();
        let tail: String = digest.as_bytes()[..24]
            .iter()
            .map(|b| char::from(ALPHABET[usize::from(*b) % ALPHABET.len()]))
            .collect();
        format!("{prefix}{tail}")
    }
}

/// Everything a renderer needs besides the output.
#[derive(Clone, Debug)]
pub(crate) struct RenderCtx {
    pub model: String,
    pub ids: Ids,
    pub created: u64,
    pub fragment: usize,
    pub key: [u8; 32],
    pub usage: Usage,
    /// Chat: `stream_options.include_usage`.
    pub include_usage: bool,
    /// Responses: `include` asks for `reasoning.encrypted_content`.
    pub seal_reasoning: bool,
    /// Responses: request fields echoed in the response object.
    pub echo: Vec<(String, Json)>,
}

/// Splits `s` into pieces of at most `n` characters (never inside a character).
pub(crate) fn fragments(s: &str, n: usize) -> Vec<String> {
    let n = n.max(1);
    let chars: Vec<char> = s.chars().collect();
    chars.chunks(n).map(|c| c.iter().collect()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_tokens_cuts_the_last_tool_arguments() {
        let reply = Reply::text("")
            .with_tool("bash", serde_json::json!({"command": "ls -la"}))
            .with_stop(Stop::MaxTokens);
        let out = Output::from_reply(&reply);
        assert_eq!(out.tools[0].args, r#"{"command""#);
    }

    #[test]
    fn fragments_respect_characters() {
        assert_eq!(fragments("héllo", 2), vec!["hé", "ll", "o"]);
        assert!(fragments("", 4).is_empty());
        let ids = Ids { seq: 1, seed: 0 };
        assert_eq!(ids.make("msg_", "m", 0), ids.make("msg_", "m", 0));
        assert_eq!(ids.make("msg_", "m", 0).len(), 28);
    }
}
