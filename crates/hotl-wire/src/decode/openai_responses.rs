//! OpenAI Responses events: output items, text and argument deltas, reasoning, terminal events.

use serde::Deserialize;

use crate::decode::{DialectDecoder, event_type, parse, retryable};
use crate::error::Result;
use crate::event::{Event, StopReason};
use crate::sse::SseEvent;
use crate::usage::Usage;

const DIALECT: &str = "openai-responses";

/// Decodes Responses events. Tool calls are keyed by the item id (`fc_…`); the id they carry is
/// the `call_id` a result must quote. Reasoning summaries become thinking text (parts of one item
/// joined by a blank line) and a reasoning item's `encrypted_content`, as of
/// `output_item.done`, rides on its [`Event::ThinkingDone`].
#[derive(Debug, Default)]
pub struct ResponsesDecoder {
    started: bool,
    /// Open function calls: item id, and whether any argument text was passed on.
    calls: Vec<(String, bool)>,
    any_call: bool,
    /// The reasoning summary part being streamed: item id, `summary_index`.
    summary: Option<(String, u64)>,
    refused: bool,
    error_seen: bool,
    done: bool,
}

impl DialectDecoder for ResponsesDecoder {
    fn name(&self) -> &'static str {
        DIALECT
    }

    fn terminal(&self) -> &'static str {
        "response.completed"
    }

    fn named_events(&self) -> bool {
        true
    }

    fn is_done(&self) -> bool {
        self.done
    }

    fn reset(&mut self) {
        *self = Self::default();
    }

    fn event(&mut self, event: &SseEvent<'_>, out: &mut Vec<Event>) -> Result<()> {
        let kind = event_type(DIALECT, event)?;
        match &*kind {
            "response.created" | "response.in_progress" | "response.queued" if !self.started => {
                self.started = true;
                let ResponseEvent { response } = parse(DIALECT, event)?;
                out.push(Event::Start {
                    id: response.id,
                    model: response.model,
                });
            }
            "response.output_item.added" => {
                let ItemEvent { item } = parse(DIALECT, event)?;
                if item.kind == "function_call" {
                    let key = item.id.unwrap_or_default();
                    self.any_call = true;
                    out.push(Event::ToolCallStart {
                        key: key.clone(),
                        id: item.call_id.unwrap_or_default(),
                        name: item.name.unwrap_or_default(),
                    });
                    self.calls.push((key, false));
                }
            }
            "response.output_text.delta" | "response.refusal.delta" => {
                let Delta { delta, .. } = parse(DIALECT, event)?;
                if kind.starts_with("response.refusal") {
                    self.refused = true;
                }
                if !delta.is_empty() {
                    out.push(Event::TextDelta { text: delta });
                }
            }
            "response.function_call_arguments.delta" => {
                let Delta { item_id, delta, .. } = parse(DIALECT, event)?;
                self.arguments(&item_id, delta, out);
            }
            "response.function_call_arguments.done" => {
                let ArgumentsDone { item_id, arguments } = parse(DIALECT, event)?;
                if self.calls.iter().any(|(k, sent)| *k == item_id && !sent) {
                    self.arguments(&item_id, arguments.unwrap_or_default(), out);
                }
            }
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                let Delta {
                    item_id,
                    delta,
                    summary_index,
                } = parse(DIALECT, event)?;
                let part = (item_id, summary_index.unwrap_or(0));
                if let Some(last) = &self.summary
                    && last.0 == part.0
                    && last.1 != part.1
                {
                    out.push(Event::ThinkingDelta {
                        text: "\n\n".to_owned(),
                    });
                }
                self.summary = Some(part);
                if !delta.is_empty() {
                    out.push(Event::ThinkingDelta { text: delta });
                }
            }
            "response.output_item.done" => {
                let ItemEvent { item } = parse(DIALECT, event)?;
                match item.kind.as_str() {
                    "reasoning" => out.push(Event::ThinkingDone {
                        signature: None,
                        encrypted: item.encrypted_content,
                    }),
                    "function_call" => {
                        let key = item.id.unwrap_or_default();
                        if self.calls.iter().any(|(k, sent)| *k == key && !sent) {
                            self.arguments(&key, item.arguments.unwrap_or_default(), out);
                        }
                        if let Some(at) = self.calls.iter().position(|(k, _)| *k == key) {
                            self.calls.remove(at);
                            out.push(Event::ToolCallEnd { key });
                        }
                    }
                    _ => {}
                }
            }
            "response.completed" | "response.incomplete" | "response.failed" => {
                let ResponseEvent { response } = parse(DIALECT, event)?;
                for (key, _) in self.calls.drain(..) {
                    out.push(Event::ToolCallEnd { key });
                }
                if let Some(u) = response.usage {
                    let details = u.input_tokens_details.unwrap_or_default();
                    let (read, write) = (
                        details.cached_tokens.unwrap_or(0),
                        details.cache_write_tokens.unwrap_or(0),
                    );
                    out.push(Event::Usage(Usage {
                        input: u.input_tokens.saturating_sub(read + write),
                        cache_read: read,
                        cache_write_5m: write,
                        cache_write_1h: 0,
                        output: u.output_tokens,
                        thinking: u
                            .output_tokens_details
                            .and_then(|d| d.reasoning_tokens)
                            .unwrap_or(0),
                    }));
                }
                let (reason, raw) = match &*kind {
                    "response.completed" if self.refused => (StopReason::Refused, "completed"),
                    "response.completed" if self.any_call => (StopReason::ToolUse, "completed"),
                    "response.completed" => (StopReason::Done, "completed"),
                    "response.incomplete" => {
                        let why = response.incomplete_details.and_then(|d| d.reason);
                        let reason = match why.as_deref() {
                            Some("content_filter") => StopReason::Refused,
                            _ => StopReason::Truncated,
                        };
                        out.push(Event::Stop {
                            reason,
                            raw: Some(why.unwrap_or_else(|| "incomplete".to_owned())),
                        });
                        self.done = true;
                        return Ok(());
                    }
                    _ => {
                        if let Some(error) = response.error.filter(|_| !self.error_seen) {
                            out.push(error.into_event());
                        }
                        (StopReason::Error, "failed")
                    }
                };
                out.push(Event::Stop {
                    reason,
                    raw: Some(raw.to_owned()),
                });
                self.done = true;
            }
            "error" => {
                let error: ErrorBody = parse(DIALECT, event)?;
                self.error_seen = true;
                out.push(error.into_event());
            }
            _ => {} // part and summary bookkeeping, annotations, server tools, newer events
        }
        Ok(())
    }
}

impl ResponsesDecoder {
    /// Passes on argument text for an open call (ignores calls that never started).
    fn arguments(&mut self, key: &str, fragment: String, out: &mut Vec<Event>) {
        let Some((_, sent)) = self.calls.iter_mut().find(|(k, _)| k == key) else {
            return;
        };
        if !fragment.is_empty() {
            *sent = true;
            out.push(Event::ToolCallArgs {
                key: key.to_owned(),
                fragment,
            });
        }
    }
}

#[derive(Deserialize)]
struct ResponseEvent {
    response: Response,
}

#[derive(Deserialize)]
struct Response {
    id: Option<String>,
    model: Option<String>,
    usage: Option<ResponsesUsage>,
    incomplete_details: Option<IncompleteDetails>,
    error: Option<ErrorBody>,
}

#[derive(Deserialize)]
struct IncompleteDetails {
    reason: Option<String>,
}

#[derive(Deserialize)]
struct ItemEvent {
    item: Item,
}

#[derive(Deserialize)]
struct Item {
    #[serde(rename = "type")]
    kind: String,
    id: Option<String>,
    call_id: Option<String>,
    name: Option<String>,
    arguments: Option<String>,
    encrypted_content: Option<String>,
}

#[derive(Deserialize)]
struct Delta {
    #[serde(default)]
    item_id: String,
    #[serde(default)]
    delta: String,
    summary_index: Option<u64>,
}

#[derive(Deserialize)]
struct ArgumentsDone {
    #[serde(default)]
    item_id: String,
    arguments: Option<String>,
}

#[derive(Deserialize)]
struct ResponsesUsage {
    #[serde(default)]
    input_tokens: u64,
    #[serde(default)]
    output_tokens: u64,
    input_tokens_details: Option<InputDetails>,
    output_tokens_details: Option<OutputDetails>,
}

#[derive(Default, Deserialize)]
struct InputDetails {
    cached_tokens: Option<u64>,
    cache_write_tokens: Option<u64>,
}

#[derive(Deserialize)]
struct OutputDetails {
    reasoning_tokens: Option<u64>,
}

/// The `error` event (`code`, `message` at the top level, or under `error`) and
/// `response.error`.
#[derive(Deserialize)]
struct ErrorBody {
    code: Option<String>,
    message: Option<String>,
    error: Option<Box<ErrorBody>>,
}

impl ErrorBody {
    fn into_event(self) -> Event {
        if self.code.is_none()
            && self.message.is_none()
            && let Some(inner) = self.error
        {
            return inner.into_event();
        }
        let kind = self.code.unwrap_or_else(|| "error".to_owned());
        Event::Error {
            retryable: retryable(&kind),
            kind,
            message: self.message.unwrap_or_default(),
        }
    }
}
