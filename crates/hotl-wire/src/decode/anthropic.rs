//! Anthropic Messages stream: `message_start`, content blocks, `message_delta`, `message_stop`.

use std::borrow::Cow;

use serde::Deserialize;

use crate::decode::{DialectDecoder, event_type, parse, retryable};
use crate::error::{Result, WireError};
use crate::event::{Event, StopReason};
use crate::sse::SseEvent;
use crate::usage::Usage;

const DIALECT: &str = "anthropic";

/// Decodes Anthropic Messages events. Tool calls are keyed by block `index`; usage starts from
/// `message_start` and every field a `message_delta` repeats replaces the earlier value.
#[derive(Debug, Default)]
pub struct AnthropicDecoder {
    blocks: Vec<(u64, Block)>,
    usage: UsageFields,
    stop_reason: Option<String>,
    done: bool,
}

#[derive(Debug)]
enum Block {
    Text,
    Thinking {
        signature: String,
    },
    Redacted {
        data: String,
    },
    Tool,
    /// Block types newer than this code: their deltas are not ours to act on.
    Other,
}

/// Whether a block belongs to a tool the provider runs itself (web search, code execution,
/// an MCP connector). hotl enables none; a reply holding one could not be sent back without
/// its server-side state, so the response is refused rather than dropped in part.
fn server_tool_block(kind: &str) -> bool {
    matches!(
        kind,
        "server_tool_use" | "mcp_tool_use" | "container_upload"
    ) || kind.ends_with("_tool_result")
}

impl DialectDecoder for AnthropicDecoder {
    fn name(&self) -> &'static str {
        DIALECT
    }

    fn terminal(&self) -> &'static str {
        "message_stop"
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

    /// `message_delta` said why the response stopped and every block was closed: only the
    /// closing `message_stop` was lost, and the providers' own SDKs report the stop.
    fn settled_stop(&mut self, out: &mut Vec<Event>) -> bool {
        if !self.blocks.is_empty() || self.stop_reason.is_none() {
            return false;
        }
        self.done = true;
        out.push(Event::Stop {
            reason: stop_reason(self.stop_reason.as_deref()),
            raw: self.stop_reason.take(),
        });
        true
    }

    fn event(&mut self, event: &SseEvent<'_>, out: &mut Vec<Event>) -> Result<()> {
        let kind = event_type(DIALECT, event)?;
        let bad = |reason: String| WireError::BadEvent {
            dialect: DIALECT,
            event: kind.to_string(),
            reason,
        };
        match &*kind {
            "message_start" => {
                let MessageStart { message } = parse(DIALECT, event)?;
                if message.container.is_some() {
                    return Err(bad(
                        "names a code-execution `container`, whose state hotl cannot keep; \
                         hotl enables no server tools, so this response is refused"
                            .into(),
                    ));
                }
                out.push(Event::Start {
                    id: message.id,
                    model: message.model,
                });
                if let Some(usage) = &message.usage {
                    self.usage.merge(usage);
                    out.push(Event::Usage(self.usage.usage()));
                }
            }
            "content_block_start" => {
                let BlockStart {
                    index,
                    content_block: block,
                } = parse(DIALECT, event)?;
                let state = match block.kind.as_str() {
                    "text" => {
                        push_text(out, block.text, |text| Event::TextDelta { text });
                        Block::Text
                    }
                    "thinking" => {
                        push_text(out, block.thinking, |text| Event::ThinkingDelta { text });
                        Block::Thinking {
                            signature: block.signature.unwrap_or_default(),
                        }
                    }
                    "redacted_thinking" => Block::Redacted {
                        data: block.data.unwrap_or_default(),
                    },
                    "tool_use" => {
                        let id = block
                            .id
                            .ok_or_else(|| bad("starts a `tool_use` without `id`".into()))?;
                        out.push(Event::ToolCallStart {
                            key: index.to_string(),
                            id,
                            name: block.name.unwrap_or_default(),
                        });
                        Block::Tool
                    }
                    kind if server_tool_block(kind) => {
                        return Err(bad(format!(
                            "holds a `{kind}` block, from a tool the provider runs itself; hotl \
                             enables none and cannot send such a reply back, so it is refused \
                             rather than kept in part"
                        )));
                    }
                    _ => Block::Other,
                };
                self.blocks.retain(|(i, _)| *i != index);
                self.blocks.push((index, state));
            }
            "content_block_delta" => {
                let BlockDelta { index, delta } = parse(DIALECT, event)?;
                let Some(block) = self.block(index) else {
                    return Err(bad(format!("for block {index}, which never started")));
                };
                match (&*delta.kind, block) {
                    ("text_delta", _) => {
                        push_text(out, delta.text, |text| Event::TextDelta { text })
                    }
                    ("thinking_delta", _) => {
                        push_text(out, delta.thinking, |text| Event::ThinkingDelta { text })
                    }
                    ("signature_delta", Block::Thinking { signature }) => {
                        signature.push_str(delta.signature.as_deref().unwrap_or_default())
                    }
                    ("input_json_delta", Block::Tool) => {
                        if let Some(fragment) = delta.partial_json.filter(|f| !f.is_empty()) {
                            out.push(Event::ToolCallArgs {
                                key: index.to_string(),
                                fragment,
                            });
                        }
                    }
                    _ => {} // `citations_delta`, deltas of server-tool blocks, newer kinds
                }
            }
            "content_block_stop" => {
                let BlockStop { index } = parse(DIALECT, event)?;
                let Some(at) = self.blocks.iter().position(|(i, _)| *i == index) else {
                    return Err(bad(format!("for block {index}, which never started")));
                };
                match self.blocks.swap_remove(at).1 {
                    Block::Thinking { signature } => out.push(Event::ThinkingDone {
                        signature: Some(signature).filter(|s| !s.is_empty()),
                        encrypted: None,
                    }),
                    Block::Redacted { data } => out.push(Event::ThinkingDone {
                        signature: None,
                        encrypted: Some(data),
                    }),
                    Block::Tool => out.push(Event::ToolCallEnd {
                        key: index.to_string(),
                    }),
                    Block::Text | Block::Other => {}
                }
            }
            "message_delta" => {
                let MessageDelta { delta, usage } = parse(DIALECT, event)?;
                if delta.as_ref().is_some_and(|d| d.container.is_some()) {
                    return Err(bad(
                        "names a code-execution `container`, whose state hotl cannot keep; \
                         hotl enables no server tools, so this response is refused"
                            .into(),
                    ));
                }
                if let Some(reason) = delta.and_then(|d| d.stop_reason) {
                    self.stop_reason = Some(reason);
                }
                if let Some(usage) = &usage {
                    self.usage.merge(usage);
                    out.push(Event::Usage(self.usage.usage()));
                }
            }
            "message_stop" => {
                self.done = true;
                out.push(Event::Stop {
                    reason: stop_reason(self.stop_reason.as_deref()),
                    raw: self.stop_reason.take(),
                });
            }
            "error" => {
                let ErrorEvent { error } = parse(DIALECT, event)?;
                let error = error.unwrap_or_default();
                let kind = error.kind.unwrap_or_else(|| "error".to_owned());
                out.push(Event::Error {
                    retryable: retryable(&kind),
                    kind,
                    message: error.message.unwrap_or_default(),
                });
            }
            _ => {} // `ping`, and event types newer than this code
        }
        Ok(())
    }
}

impl AnthropicDecoder {
    fn block(&mut self, index: u64) -> Option<&mut Block> {
        self.blocks
            .iter_mut()
            .find(|(i, _)| *i == index)
            .map(|(_, b)| b)
    }
}

/// Pushes `text` as an event unless it is missing or empty.
fn push_text(out: &mut Vec<Event>, text: Option<String>, event: impl FnOnce(String) -> Event) {
    if let Some(text) = text.filter(|t| !t.is_empty()) {
        out.push(event(text));
    }
}

/// `stop_reason` in hotl's terms; unknown reasons count as a finished answer.
fn stop_reason(raw: Option<&str>) -> StopReason {
    match raw {
        Some("tool_use") => StopReason::ToolUse,
        Some("max_tokens" | "model_context_window_exceeded") => StopReason::Truncated,
        Some("pause_turn") => StopReason::Continue,
        Some("refusal") => StopReason::Refused,
        _ => StopReason::Done,
    }
}

/// Usage as last reported, field by field.
#[derive(Debug, Default)]
struct UsageFields {
    input: u64,
    cache_read: u64,
    creation: Option<u64>,
    creation_5m: Option<u64>,
    creation_1h: Option<u64>,
    output: u64,
    thinking: u64,
}

impl UsageFields {
    fn merge(&mut self, u: &RawUsage) {
        let set = |field: &mut u64, value: Option<u64>| *field = value.unwrap_or(*field);
        set(&mut self.input, u.input_tokens);
        set(&mut self.cache_read, u.cache_read_input_tokens);
        set(&mut self.output, u.output_tokens);
        set(
            &mut self.thinking,
            u.output_tokens_details
                .as_ref()
                .and_then(|d| d.thinking_tokens),
        );
        self.creation = u.cache_creation_input_tokens.or(self.creation);
        if let Some(c) = &u.cache_creation {
            self.creation_5m = c.ephemeral_5m_input_tokens.or(self.creation_5m);
            self.creation_1h = c.ephemeral_1h_input_tokens.or(self.creation_1h);
        }
    }

    /// The neutral form. Cache writes: the 1-hour part of the breakdown (never more than the
    /// total), the rest as 5-minute; all of `cache_creation_input_tokens` as 5-minute when there
    /// is no breakdown.
    fn usage(&self) -> Usage {
        let (m5, h1) = (self.creation_5m.unwrap_or(0), self.creation_1h.unwrap_or(0));
        let total = self.creation.unwrap_or(m5 + h1);
        let h1 = h1.min(total);
        Usage {
            input: self.input,
            cache_read: self.cache_read,
            cache_write_5m: total - h1,
            cache_write_1h: h1,
            output: self.output,
            thinking: self.thinking,
        }
    }
}

#[derive(Deserialize)]
struct MessageStart {
    message: StartedMessage,
}

#[derive(Deserialize)]
struct StartedMessage {
    id: Option<String>,
    model: Option<String>,
    usage: Option<RawUsage>,
    container: Option<serde::de::IgnoredAny>,
}

#[derive(Deserialize)]
struct BlockStart {
    index: u64,
    content_block: StartedBlock,
}

#[derive(Deserialize)]
struct StartedBlock {
    #[serde(rename = "type")]
    kind: String,
    id: Option<String>,
    name: Option<String>,
    text: Option<String>,
    thinking: Option<String>,
    signature: Option<String>,
    data: Option<String>,
}

#[derive(Deserialize)]
struct BlockDelta<'a> {
    index: u64,
    #[serde(borrow)]
    delta: Delta<'a>,
}

#[derive(Deserialize)]
struct Delta<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    text: Option<String>,
    thinking: Option<String>,
    #[serde(borrow)]
    signature: Option<Cow<'a, str>>,
    partial_json: Option<String>,
}

#[derive(Deserialize)]
struct BlockStop {
    index: u64,
}

#[derive(Deserialize)]
struct MessageDelta {
    delta: Option<StopDelta>,
    usage: Option<RawUsage>,
}

#[derive(Deserialize)]
struct StopDelta {
    stop_reason: Option<String>,
    container: Option<serde::de::IgnoredAny>,
}

#[derive(Deserialize)]
struct ErrorEvent {
    error: Option<ErrorBody>,
}

#[derive(Deserialize)]
struct RawUsage {
    input_tokens: Option<u64>,
    cache_creation_input_tokens: Option<u64>,
    cache_read_input_tokens: Option<u64>,
    cache_creation: Option<CacheCreation>,
    output_tokens: Option<u64>,
    output_tokens_details: Option<OutputDetails>,
}

#[derive(Deserialize)]
struct CacheCreation {
    ephemeral_5m_input_tokens: Option<u64>,
    ephemeral_1h_input_tokens: Option<u64>,
}

#[derive(Deserialize)]
struct OutputDetails {
    thinking_tokens: Option<u64>,
}

#[derive(Default, Deserialize)]
struct ErrorBody {
    #[serde(rename = "type")]
    kind: Option<String>,
    message: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_writes_follow_the_breakdown_else_count_as_5m() {
        let mut f = UsageFields {
            creation: Some(300),
            ..UsageFields::default()
        };
        assert_eq!(
            (f.usage().cache_write_5m, f.usage().cache_write_1h),
            (300, 0)
        );
        f.creation_5m = Some(200);
        f.creation_1h = Some(100);
        assert_eq!(
            (f.usage().cache_write_5m, f.usage().cache_write_1h),
            (200, 100)
        );
        f.creation = Some(50); // a later total without a breakdown
        assert_eq!(
            (f.usage().cache_write_5m, f.usage().cache_write_1h),
            (0, 50)
        );
        f.creation = None;
        assert_eq!(f.usage().cache_write(), 300);
    }
}
