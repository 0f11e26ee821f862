//! OpenAI Chat Completions chunks, with the llama-server and Ollama variations.

use serde::Deserialize;

use crate::decode::{DialectDecoder, OpenAiError, parse};
use crate::error::Result;
use crate::event::{Event, StopReason};
use crate::sse::SseEvent;
use crate::usage::Usage;

const DIALECT: &str = "openai-chat";

/// Decodes Chat Completions chunks (`data:` only, ending in `data: [DONE]`). Tool calls are keyed
/// by `tool_calls[].index` and all end at `finish_reason`; reasoning comes from llama-server's
/// `reasoning_content` or Ollama's `reasoning`; usage from the `include_usage` chunk, with
/// llama-server's `timings` filling in what it lacks. Only choice 0 is read.
#[derive(Debug, Default)]
pub struct ChatDecoder {
    started: bool,
    thinking: bool,
    /// Open calls: (`index`, call id, key).
    calls: Vec<(u64, String, String)>,
    any_call: bool,
    /// Every `index` a call has used.
    used: Vec<u64>,
    refused: bool,
    finish_reason: Option<String>,
    usage_seen: bool,
    timings: Option<Timings>,
    done: bool,
}

impl DialectDecoder for ChatDecoder {
    fn name(&self) -> &'static str {
        DIALECT
    }

    fn terminal(&self) -> &'static str {
        "[DONE]"
    }

    fn named_events(&self) -> bool {
        false
    }

    fn is_done(&self) -> bool {
        self.done
    }

    fn reset(&mut self) {
        *self = Self::default();
    }

    fn event(&mut self, event: &SseEvent<'_>, out: &mut Vec<Event>) -> Result<()> {
        if event.data.trim_ascii() == "[DONE]" {
            self.end_parts(out);
            if !self.usage_seen
                && let Some(t) = self.timings.take()
            {
                out.push(Event::Usage(Usage {
                    input: t.prompt_n.unwrap_or(0),
                    cache_read: t.cache_n.unwrap_or(0),
                    output: t.predicted_n.unwrap_or(0),
                    ..Usage::default()
                }));
            }
            let raw = self.finish_reason.take();
            let reason = match raw.as_deref() {
                Some("tool_calls" | "function_call") => StopReason::ToolUse,
                Some("length") => StopReason::Truncated,
                Some("content_filter") => StopReason::Refused,
                _ if self.refused => StopReason::Refused,
                _ if self.any_call => StopReason::ToolUse,
                _ => StopReason::Done,
            };
            out.push(Event::Stop { reason, raw });
            self.done = true;
            return Ok(());
        }
        let chunk: Chunk = parse(DIALECT, event)?;
        if let Some(error) = chunk.error.filter(truthy) {
            let error: OpenAiError =
                serde_json::from_value(error).unwrap_or(OpenAiError::Text(String::new()));
            out.push(error.into_event());
            return Ok(());
        }
        if !self.started {
            self.started = true;
            out.push(Event::Start {
                id: chunk.id,
                model: chunk.model,
            });
        }
        if let Some(t) = chunk.timings {
            self.timings = Some(t);
        }
        let choices = chunk.choices.unwrap_or_default();
        if let Some(choice) = choices.into_iter().find(|c| c.index.unwrap_or(0) == 0) {
            self.choice(choice, out);
        }
        if let Some(u) = chunk.usage {
            self.usage_seen = true;
            let details = u.prompt_tokens_details.unwrap_or_default();
            let cache_read = details
                .cached_tokens
                .or_else(|| self.timings.as_ref().and_then(|t| t.cache_n))
                .unwrap_or(0);
            let cache_write = details.cache_write_tokens.unwrap_or(0);
            out.push(Event::Usage(Usage {
                input: u.prompt_tokens.saturating_sub(cache_read + cache_write),
                cache_read,
                cache_write_5m: cache_write,
                cache_write_1h: 0,
                output: u.completion_tokens,
                thinking: u
                    .completion_tokens_details
                    .and_then(|d| d.reasoning_tokens)
                    .unwrap_or(0),
            }));
        }
        Ok(())
    }
}

impl ChatDecoder {
    fn choice(&mut self, choice: Choice, out: &mut Vec<Event>) {
        let delta = choice.delta.unwrap_or_default();
        if let Some(text) = delta
            .reasoning_content
            .or(delta.reasoning)
            .filter(|t| !t.is_empty())
        {
            self.thinking = true;
            out.push(Event::ThinkingDelta { text });
        }
        if let Some(text) = delta.content.filter(|t| !t.is_empty()) {
            self.end_thinking(out);
            out.push(Event::TextDelta { text });
        }
        if let Some(text) = delta.refusal.filter(|t| !t.is_empty()) {
            self.refused = true;
            self.end_thinking(out);
            out.push(Event::TextDelta { text });
        }
        for call in delta.tool_calls.unwrap_or_default() {
            self.end_thinking(out);
            self.tool_call(call, out);
        }
        if let Some(reason) = choice.finish_reason {
            self.finish_reason = Some(reason);
            self.end_parts(out);
        }
    }

    fn tool_call(&mut self, call: ToolCallDelta, out: &mut Vec<Event>) {
        let index = call.index.unwrap_or(0);
        let function = call.function.unwrap_or_default();
        let open = self.calls.iter().position(|(i, _, _)| *i == index);
        let key = match (open, call.id.filter(|id| !id.is_empty())) {
            (Some(at), Some(id)) if self.calls[at].1 != id => {
                // The same index with a new id: a server that numbers every whole call 0.
                let (_, _, key) = self.calls.remove(at);
                out.push(Event::ToolCallEnd { key });
                self.start_call(index, id, function.name, out)
            }
            (Some(at), _) => self.calls[at].2.clone(),
            (None, id) => self.start_call(index, id.unwrap_or_default(), function.name, out),
        };
        if let Some(fragment) = function.arguments.filter(|a| !a.is_empty()) {
            out.push(Event::ToolCallArgs { key, fragment });
        }
    }

    fn start_call(
        &mut self,
        index: u64,
        id: String,
        name: Option<String>,
        out: &mut Vec<Event>,
    ) -> String {
        let key = match self.used.contains(&index) {
            true => format!("{index}.{id}"),
            false => index.to_string(),
        };
        self.any_call = true;
        out.push(Event::ToolCallStart {
            key: key.clone(),
            id: id.clone(),
            name: name.unwrap_or_default(),
        });
        self.calls.push((index, id, key.clone()));
        self.used.push(index);
        key
    }

    fn end_thinking(&mut self, out: &mut Vec<Event>) {
        if std::mem::take(&mut self.thinking) {
            out.push(Event::ThinkingDone {
                signature: None,
                encrypted: None,
            });
        }
    }

    /// Closes reasoning and every open call, in the order they started.
    fn end_parts(&mut self, out: &mut Vec<Event>) {
        self.end_thinking(out);
        for (_, _, key) in self.calls.drain(..) {
            out.push(Event::ToolCallEnd { key });
        }
    }
}

/// As the Python SDK reads an `error` key: present and not null, false, empty or zero.
fn truthy(v: &serde_json::Value) -> bool {
    use serde_json::Value;
    match v {
        Value::Null | Value::Bool(false) => false,
        Value::String(s) => !s.is_empty(),
        Value::Object(o) => !o.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Number(n) => n.as_f64() != Some(0.0),
        Value::Bool(true) => true,
    }
}

#[derive(Deserialize)]
struct Chunk {
    id: Option<String>,
    model: Option<String>,
    choices: Option<Vec<Choice>>,
    usage: Option<ChatUsage>,
    timings: Option<Timings>,
    error: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct Choice {
    index: Option<u64>,
    delta: Option<Delta>,
    finish_reason: Option<String>,
}

#[derive(Default, Deserialize)]
struct Delta {
    content: Option<String>,
    refusal: Option<String>,
    reasoning_content: Option<String>,
    reasoning: Option<String>,
    tool_calls: Option<Vec<ToolCallDelta>>,
}

#[derive(Deserialize)]
struct ToolCallDelta {
    index: Option<u64>,
    id: Option<String>,
    function: Option<FunctionDelta>,
}

#[derive(Default, Deserialize)]
struct FunctionDelta {
    name: Option<String>,
    arguments: Option<String>,
}

#[derive(Deserialize)]
struct ChatUsage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
    prompt_tokens_details: Option<PromptDetails>,
    completion_tokens_details: Option<CompletionDetails>,
}

#[derive(Default, Deserialize)]
struct PromptDetails {
    cached_tokens: Option<u64>,
    cache_write_tokens: Option<u64>,
}

#[derive(Deserialize)]
struct CompletionDetails {
    reasoning_tokens: Option<u64>,
}

/// llama-server's per-response counters.
#[derive(Debug, Deserialize)]
struct Timings {
    cache_n: Option<u64>,
    prompt_n: Option<u64>,
    predicted_n: Option<u64>,
}
