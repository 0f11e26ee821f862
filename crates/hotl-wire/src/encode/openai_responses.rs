//! OpenAI Responses request bodies (stateless: `store: false`, the whole input every time).
//!
//! The system prompt becomes `instructions`; messages become input items: user text and images
//! as `message` items, tool calls as `function_call`, tool results as `function_call_output`,
//! reasoning with its encrypted content as `reasoning` items.

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use hotl_log::Block;
use hotl_view::Part;

use crate::encode::openai_parts::{ChoiceOut, ExplicitMode, Flavor, Piece, UserContent, pieces};
use crate::encode::{joined_text, part_text};
use crate::request::{Reasoning, Request, ToolDef};

/// The body of `POST /v1/responses`.
pub fn body(request: &Request<'_>) -> Vec<u8> {
    serde_json::to_vec(&Body(request)).expect("request bodies serialise")
}

struct Body<'r, 'a>(&'r Request<'a>);

impl Serialize for Body<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let r = self.0;
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("model", &r.model)?;
        map.serialize_entry("max_output_tokens", &r.max_tokens)?;
        map.serialize_entry("store", &false)?;
        if r.stream {
            map.serialize_entry("stream", &true)?;
        }
        if let Some(key) = &r.cache.key {
            map.serialize_entry("prompt_cache_key", key)?;
        }
        if r.cache.explicit_breakpoints {
            map.serialize_entry("prompt_cache_options", &ExplicitMode)?;
        }
        if let Some(Reasoning::Effort(effort)) = &r.reasoning {
            map.serialize_entry(
                "reasoning",
                &super::Fields([("effort", effort.as_str()), ("summary", "auto")]),
            )?;
        }
        // Stateless (`store: false`): reasoning can only be replayed from its encrypted form.
        map.serialize_entry("include", &["reasoning.encrypted_content"])?;
        if !r.system.is_empty() {
            map.serialize_entry("instructions", &r.system.join("\n\n"))?;
        }
        if !r.tools.is_empty() {
            let tools: Vec<ToolOut<'_>> = r.tools.iter().map(ToolOut).collect();
            map.serialize_entry("tools", &tools)?;
            map.serialize_entry("tool_choice", &ChoiceOut(&r.tool_choice, Flavor::Responses))?;
        }
        map.serialize_entry("input", &Input(r))?;
        map.end()
    }
}

struct ToolOut<'a>(&'a ToolDef);

impl Serialize for ToolOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(4))?;
        map.serialize_entry("type", "function")?;
        map.serialize_entry("name", &self.0.name)?;
        map.serialize_entry("description", &self.0.description)?;
        map.serialize_entry("parameters", &self.0.input_schema)?;
        map.end()
    }
}

/// One input item, borrowed from the request.
enum Item<'r, 'a> {
    User {
        content: UserContent<'r, 'a>,
        mark: bool,
    },
    AssistantText(String),
    Call(&'r Block),
    Reasoning {
        summary: &'r str,
        encrypted: &'r str,
    },
    Output {
        id: &'a str,
        content: &'r [Part<'a>],
    },
}

struct Input<'r, 'a>(&'r Request<'a>);

impl Serialize for Input<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let r = self.0;
        let mark = r.cache.explicit_breakpoints;
        let mut items: Vec<Item<'_, '_>> = Vec::new();
        for piece in pieces(r) {
            match piece {
                Piece::Assistant(parts) => {
                    let mut text = String::new();
                    for part in parts {
                        match part {
                            Part::Block(call @ Block::ToolUse { .. }) => {
                                if !text.is_empty() {
                                    items.push(Item::AssistantText(std::mem::take(&mut text)));
                                }
                                items.push(Item::Call(call));
                            }
                            Part::Block(Block::Thinking {
                                thinking,
                                signature: Some(encrypted),
                            }) => items.push(Item::Reasoning {
                                summary: thinking,
                                encrypted,
                            }),
                            Part::Block(
                                Block::Thinking { .. } | Block::RedactedThinking { .. },
                            ) => {}
                            other => part_text(other, &mut text),
                        }
                    }
                    if !text.is_empty() {
                        items.push(Item::AssistantText(text));
                    }
                }
                Piece::ToolResult { id, content } => items.push(Item::Output { id, content }),
                Piece::User(content) => items.push(Item::User { content, mark }),
            }
        }
        items.serialize(s)
    }
}

impl Serialize for Item<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        match self {
            Item::User { content, mark } => {
                map.serialize_entry("type", "message")?;
                map.serialize_entry("role", "user")?;
                map.serialize_entry("content", &content.shaped(*mark, Flavor::Responses))?;
            }
            Item::AssistantText(text) => {
                map.serialize_entry("type", "message")?;
                map.serialize_entry("role", "assistant")?;
                map.serialize_entry(
                    "content",
                    &[super::Fields([
                        ("text", text.as_str()),
                        ("type", "output_text"),
                    ])],
                )?;
            }
            Item::Call(Block::ToolUse { id, name, input }) => {
                map.serialize_entry("type", "function_call")?;
                map.serialize_entry("call_id", id)?;
                map.serialize_entry("name", name)?;
                map.serialize_entry("arguments", input.get())?;
            }
            Item::Call(_) => {}
            Item::Reasoning { summary, encrypted } => {
                map.serialize_entry("type", "reasoning")?;
                let summary: Vec<super::Fields<'_, 2>> = if summary.is_empty() {
                    Vec::new()
                } else {
                    vec![super::Fields([("text", summary), ("type", "summary_text")])]
                };
                map.serialize_entry("summary", &summary)?;
                map.serialize_entry("encrypted_content", encrypted)?;
            }
            Item::Output { id, content } => {
                map.serialize_entry("type", "function_call_output")?;
                map.serialize_entry("call_id", id)?;
                let text = joined_text(content);
                map.serialize_entry("output", &text)?;
            }
        }
        map.end()
    }
}
