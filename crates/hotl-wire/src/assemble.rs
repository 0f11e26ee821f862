//! Assembling a streamed response into the assistant message a log records: content blocks in
//! order, the stop reason and the usage ("later usage wins").

use std::collections::HashMap;

use hotl_log::{Block, ToolInput};

use crate::event::{CallKey, Event, StopReason};
use crate::usage::Usage;

/// A tool call whose arguments were not valid JSON: kept so the caller can answer it with an
/// error the model can read (every call must be answered).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadCall {
    /// The call id.
    pub id: String,
    /// The tool name.
    pub name: String,
    /// The arguments as received.
    pub arguments: String,
}

/// A whole response.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reply {
    /// Provider response id.
    pub id: Option<String>,
    /// The model that answered.
    pub model: Option<String>,
    /// Text, thinking and tool_use blocks, in the order they streamed. A call with broken
    /// arguments appears as a tool_use with `{}` input, and in `bad_calls`.
    pub content: Vec<Block>,
    /// Why it ended (`None` if the stream never said).
    pub stop: Option<StopReason>,
    /// The provider's word for the stop.
    pub raw_stop: Option<String>,
    /// Final usage.
    pub usage: Usage,
    /// Calls whose arguments did not parse.
    pub bad_calls: Vec<BadCall>,
}

impl Reply {
    /// The tool calls of the reply, in order.
    pub fn tool_calls(&self) -> impl Iterator<Item = (&str, &str, &ToolInput)> {
        self.content.iter().filter_map(|b| match b {
            Block::ToolUse { id, name, input } => Some((id.as_str(), name.as_str(), input)),
            _ => None,
        })
    }
}

/// Folds events into a [`Reply`].
#[derive(Debug, Default)]
pub struct Assembler {
    reply: Reply,
    calls: HashMap<CallKey, (usize, String)>,
    text_open: bool,
    thinking_open: bool,
}

impl Assembler {
    /// An empty assembler.
    pub fn new() -> Self {
        Assembler::default()
    }

    /// Takes one event.
    pub fn push(&mut self, event: &Event) {
        let reply = &mut self.reply;
        match event {
            Event::Start { id, model } => {
                reply.id.clone_from(id);
                reply.model.clone_from(model);
            }
            Event::TextDelta { text } => {
                self.thinking_open = false;
                match reply.content.last_mut() {
                    Some(Block::Text { text: open }) if self.text_open => open.push_str(text),
                    _ => {
                        reply.content.push(Block::text(text.clone()));
                        self.text_open = true;
                    }
                }
            }
            Event::ThinkingDelta { text } => {
                self.text_open = false;
                match reply.content.last_mut() {
                    Some(Block::Thinking { thinking, .. }) if self.thinking_open => {
                        thinking.push_str(text)
                    }
                    _ => {
                        reply.content.push(Block::Thinking {
                            thinking: text.clone(),
                            signature: None,
                        });
                        self.thinking_open = true;
                    }
                }
            }
            Event::ThinkingDone {
                signature,
                encrypted,
            } => {
                self.text_open = false;
                let sealed = signature.clone().or_else(|| encrypted.clone());
                match reply.content.last_mut() {
                    Some(Block::Thinking { signature: s, .. }) if self.thinking_open => {
                        *s = sealed;
                    }
                    _ => match (signature, encrypted) {
                        (None, Some(data)) => reply
                            .content
                            .push(Block::RedactedThinking { data: data.clone() }),
                        _ => reply.content.push(Block::Thinking {
                            thinking: String::new(),
                            signature: sealed,
                        }),
                    },
                }
                self.thinking_open = false;
            }
            Event::ToolCallStart { key, id, name } => {
                self.text_open = false;
                self.thinking_open = false;
                reply.content.push(Block::ToolUse {
                    id: id.clone(),
                    name: name.clone(),
                    input: ToolInput::default(),
                });
                self.calls
                    .insert(key.clone(), (reply.content.len() - 1, String::new()));
            }
            Event::ToolCallArgs { key, fragment } => {
                if let Some((_, args)) = self.calls.get_mut(key) {
                    args.push_str(fragment);
                }
            }
            Event::ToolCallEnd { key } => self.close_call(key),
            Event::Usage(usage) => reply.usage = *usage,
            Event::Stop { reason, raw } => {
                reply.stop = Some(*reason);
                reply.raw_stop.clone_from(raw);
            }
            Event::Error { .. } => {}
        }
    }

    fn close_call(&mut self, key: &str) {
        let Some((index, args)) = self.calls.remove(key) else {
            return;
        };
        let Some(Block::ToolUse { id, name, input }) = self.reply.content.get_mut(index) else {
            return;
        };
        let text = if args.trim().is_empty() {
            "{}"
        } else {
            args.as_str()
        };
        match ToolInput::from_json(text) {
            Ok(parsed) => *input = parsed,
            Err(_) => self.reply.bad_calls.push(BadCall {
                id: id.clone(),
                name: name.clone(),
                arguments: args,
            }),
        }
    }

    /// The reply; calls still open (no end event) are closed with what arrived.
    pub fn finish(mut self) -> Reply {
        let open: Vec<CallKey> = self.calls.keys().cloned().collect();
        for key in open {
            self.close_call(&key);
        }
        self.reply
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_thinking_and_calls_assemble_in_order() {
        let mut a = Assembler::new();
        let events = [
            Event::ThinkingDelta { text: "hm".into() },
            Event::ThinkingDelta { text: "m".into() },
            Event::ThinkingDone {
                signature: Some("sig".into()),
                encrypted: None,
            },
            Event::TextDelta {
                text: "Let ".into(),
            },
            Event::TextDelta { text: "me.".into() },
            Event::ToolCallStart {
                key: "1".into(),
                id: "c1".into(),
                name: "bash".into(),
            },
            Event::ToolCallArgs {
                key: "1".into(),
                fragment: "".into(),
            },
            Event::ToolCallArgs {
                key: "1".into(),
                fragment: r#"{"command":"#.into(),
            },
            Event::ToolCallArgs {
                key: "1".into(),
                fragment: r#""ls"}"#.into(),
            },
            Event::ToolCallEnd { key: "1".into() },
            Event::ToolCallStart {
                key: "2".into(),
                id: "c2".into(),
                name: "read".into(),
            },
            Event::ToolCallArgs {
                key: "2".into(),
                fragment: r#"{"path": "#.into(),
            },
            Event::Stop {
                reason: StopReason::Truncated,
                raw: Some("max_tokens".into()),
            },
        ];
        for e in &events {
            a.push(e);
        }
        let reply = a.finish();
        assert_eq!(reply.content.len(), 4);
        assert_eq!(
            reply.content[0],
            Block::Thinking {
                thinking: "hmm".into(),
                signature: Some("sig".into())
            }
        );
        assert_eq!(reply.content[1], Block::text("Let me."));
        let calls: Vec<_> = reply
            .tool_calls()
            .map(|(id, _, input)| (id, input.get()))
            .collect();
        assert_eq!(calls, [("c1", r#"{"command":"ls"}"#), ("c2", "{}")]);
        assert_eq!(reply.bad_calls.len(), 1);
        assert_eq!(reply.bad_calls[0].arguments, r#"{"path": "#);
        assert_eq!(reply.stop, Some(StopReason::Truncated));
    }
}
