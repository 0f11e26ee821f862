//! Scripted replies: the JSON Lines script format, and the queue that picks the reply for
//! each request (by order, or by `match` on the last user message or tool result).

use std::collections::VecDeque;
use std::path::Path;

use bytes::Bytes;
use serde::Deserialize;

use crate::error::{FakeError, IoResultExt, Result};
use crate::fault::Fault;

/// Why a reply ends. Written in Anthropic's vocabulary; the OpenAI names are accepted too
/// and each dialect renders its own (`tool_calls`, `length`, `response.incomplete`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stop {
    /// A normal end (`end_turn` / `stop` / `completed`).
    #[serde(alias = "stop")]
    EndTurn,
    /// The reply asks for tools (`tool_use` / `tool_calls`).
    #[serde(alias = "tool_calls")]
    ToolUse,
    /// Cut by the output limit (`max_tokens` / `length` / `incomplete`); the last tool
    /// call's arguments are cut in half.
    #[serde(alias = "length")]
    MaxTokens,
    /// A stop sequence matched (Anthropic only; `stop` elsewhere).
    StopSequence,
    /// The model refused (`refusal` / `content_filter` / a refusal content part).
    #[serde(alias = "content_filter")]
    Refusal,
    /// A server tool paused the turn (Anthropic only; `stop` elsewhere).
    PauseTurn,
}

/// One tool call of a scripted reply.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolCall {
    /// Tool name.
    pub name: String,
    /// Tool input (an object).
    #[serde(default = "empty_object")]
    pub input: serde_json::Value,
}

fn empty_object() -> serde_json::Value {
    serde_json::Value::Object(serde_json::Map::new())
}

/// One scripted reply: one line of a script file.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reply {
    /// Serve this reply only to a request whose last user message or tool result contains
    /// this substring (instead of in order).
    #[serde(rename = "match", default)]
    pub matches: Option<String>,
    /// Keep this reply in the script after serving it (a standing rule).
    #[serde(default)]
    pub repeat: bool,
    /// Thinking text, streamed before the answer and signed.
    #[serde(default)]
    pub thinking: Option<String>,
    /// Answer text.
    #[serde(default)]
    pub text: Option<String>,
    /// Tool calls, in order (parallel calls when more than one).
    #[serde(default)]
    pub tools: Vec<ToolCall>,
    /// Stop reason; default `tool_use` when there are tools, else `end_turn`.
    #[serde(default)]
    pub stop: Option<Stop>,
    /// A fault to inject when serving this reply.
    #[serde(default)]
    pub fault: Option<Fault>,
}

impl Reply {
    /// A text-only reply.
    pub fn text(text: impl Into<String>) -> Reply {
        Reply {
            text: Some(text.into()),
            ..Reply::default()
        }
    }

    /// A reply that only fails with `fault`.
    pub fn fault(fault: Fault) -> Reply {
        Reply {
            fault: Some(fault),
            ..Reply::default()
        }
    }

    /// Adds a tool call.
    pub fn with_tool(mut self, name: impl Into<String>, input: serde_json::Value) -> Reply {
        self.tools.push(ToolCall {
            name: name.into(),
            input,
        });
        self
    }

    /// Adds thinking text.
    pub fn with_thinking(mut self, thinking: impl Into<String>) -> Reply {
        self.thinking = Some(thinking.into());
        self
    }

    /// Sets the stop reason.
    pub fn with_stop(mut self, stop: Stop) -> Reply {
        self.stop = Some(stop);
        self
    }

    /// Sets the fault.
    pub fn with_fault(mut self, fault: Fault) -> Reply {
        self.fault = Some(fault);
        self
    }

    /// Serves this reply only when the last user message or tool result contains `needle`.
    pub fn matching(mut self, needle: impl Into<String>) -> Reply {
        self.matches = Some(needle.into());
        self
    }

    /// Parses a script: one JSON reply per line. Blank lines and lines starting with `#`
    /// are skipped.
    pub fn parse_script(text: &str) -> Result<Vec<Reply>> {
        let mut replies = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let reply: Reply = serde_json::from_str(line).map_err(|e| FakeError::Script {
                line: i + 1,
                reason: e.to_string(),
            })?;
            if !reply.tools.iter().all(|t| t.input.is_object()) {
                return Err(FakeError::Script {
                    line: i + 1,
                    reason: "a tool input must be a JSON object".to_string(),
                });
            }
            replies.push(reply);
        }
        Ok(replies)
    }

    /// Reads and parses a script file.
    pub fn load_script(path: &Path) -> Result<Vec<Reply>> {
        let text = std::fs::read_to_string(path).at(path)?;
        Reply::parse_script(&text)
    }
}

/// One item of the server's queue: a scripted reply or one recorded response body.
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant)] // a short queue of entries; boxing would only cost callers
pub enum Entry {
    /// Rendered in the dialect of the request that receives it.
    Reply(Reply),
    /// Served byte for byte as an SSE body, whatever the request.
    Replay(Bytes),
}

impl Entry {
    fn matcher(&self) -> Option<&str> {
        match self {
            Entry::Reply(r) => r.matches.as_deref(),
            Entry::Replay(_) => None,
        }
    }

    fn repeats(&self) -> bool {
        matches!(self, Entry::Reply(r) if r.repeat)
    }
}

/// The queue of entries still to serve.
#[derive(Debug, Default)]
pub(crate) struct Script {
    entries: VecDeque<Entry>,
}

impl Script {
    pub(crate) fn new(entries: Vec<Entry>) -> Script {
        Script {
            entries: entries.into(),
        }
    }

    pub(crate) fn push(&mut self, entry: Entry) {
        self.entries.push_back(entry);
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// The entry for a request whose last user input is `last_input`: the first `match`
    /// entry whose needle occurs in it, else the first entry without `match`. With
    /// `consume`, a non-repeating entry is removed.
    pub(crate) fn pick(&mut self, last_input: &str, consume: bool) -> Option<Entry> {
        let index = self
            .entries
            .iter()
            .position(|e| e.matcher().is_some_and(|m| last_input.contains(m)))
            .or_else(|| self.entries.iter().position(|e| e.matcher().is_none()))?;
        let entry = self.entries.get(index)?.clone();
        if consume && !entry.repeats() {
            self.entries.remove(index);
        }
        Some(entry)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_field_and_aliases() {
        let script = r#"
# comment
{"text": "hi"}
{"text": "x", "tools": [{"name": "bash", "input": {"command": "ls"}}], "stop": "tool_calls"}
{"match": "error", "repeat": true, "thinking": "t", "fault": {"status": 429, "retry_after_ms": 1500}}
"#;
        let replies = Reply::parse_script(script).unwrap();
        assert_eq!(replies.len(), 3);
        assert_eq!(replies[1].stop, Some(Stop::ToolUse));
        assert_eq!(replies[2].fault.as_ref().unwrap().status, Some(429));
        let err = Reply::parse_script("{\"txt\": 1}").unwrap_err();
        assert!(err.to_string().starts_with("script line 1:"), "{err}");
    }

    #[test]
    fn match_wins_over_order_and_repeat_keeps_entries() {
        let mut s = Script::new(vec![
            Entry::Reply(Reply::text("first")),
            Entry::Reply(Reply::text("on error").matching("boom")),
            Entry::Reply(
                Reply::text("rule")
                    .matching("always")
                    .with_stop(Stop::EndTurn),
            ),
        ]);
        s.entries[2] = Entry::Reply(Reply {
            repeat: true,
            ..Reply::text("rule").matching("always")
        });
        let text = |e: Option<Entry>| match e {
            Some(Entry::Reply(r)) => r.text.unwrap_or_default(),
            _ => String::new(),
        };
        assert_eq!(text(s.pick("it went boom", true)), "on error");
        assert_eq!(text(s.pick("always", true)), "rule");
        assert_eq!(text(s.pick("always", true)), "rule");
        assert_eq!(text(s.pick("hello", false)), "first");
        assert_eq!(text(s.pick("hello", true)), "first");
        assert!(s.pick("hello", true).is_none());
    }
}
