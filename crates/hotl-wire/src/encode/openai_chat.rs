//! OpenAI Chat Completions request bodies (and llama.cpp, Ollama, vLLM through a base URL).
//!
//! Tool results leave the user message they sit in: each becomes a `tool` message right after
//! the assistant message that called it, and the rest of the user message follows as a `user`
//! message. Thinking blocks are not replayed (the dialect has no field for them).

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use hotl_log::Block;
use hotl_view::Part;

use crate::encode::openai_parts::{ChoiceOut, ExplicitMode, Flavor, Piece, UserContent, pieces};
use crate::encode::{joined_text, part_text};
use crate::request::{Reasoning, Request};

/// The body of `POST /v1/chat/completions`.
pub fn body(request: &Request<'_>) -> Vec<u8> {
    serde_json::to_vec(&Body(request)).expect("request bodies serialise")
}

struct Body<'r, 'a>(&'r Request<'a>);

impl Serialize for Body<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let r = self.0;
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("model", &r.model)?;
        map.serialize_entry("max_completion_tokens", &r.max_tokens)?;
        if r.stream {
            map.serialize_entry("stream", &true)?;
            map.serialize_entry("stream_options", &IncludeUsage)?;
        }
        if let Some(key) = &r.cache.key {
            map.serialize_entry("prompt_cache_key", key)?;
        }
        if r.cache.explicit_breakpoints {
            map.serialize_entry("prompt_cache_options", &ExplicitMode)?;
        }
        if let Some(Reasoning::Effort(effort)) = &r.reasoning {
            map.serialize_entry("reasoning_effort", effort)?;
        }
        if !r.tools.is_empty() {
            let tools: Vec<ToolOut<'_>> = r.tools.iter().map(ToolOut).collect();
            map.serialize_entry("tools", &tools)?;
            map.serialize_entry("tool_choice", &ChoiceOut(&r.tool_choice, Flavor::Chat))?;
        }
        map.serialize_entry("messages", &Messages(r))?;
        map.end()
    }
}

struct IncludeUsage;

impl Serialize for IncludeUsage {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(1))?;
        map.serialize_entry("include_usage", &true)?;
        map.end()
    }
}

struct ToolOut<'a>(&'a crate::request::ToolDef);

impl Serialize for ToolOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        struct Function<'a>(&'a crate::request::ToolDef);
        impl Serialize for Function<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut map = s.serialize_map(Some(3))?;
                map.serialize_entry("name", &self.0.name)?;
                map.serialize_entry("description", &self.0.description)?;
                map.serialize_entry("parameters", &self.0.input_schema)?;
                map.end()
            }
        }
        let mut map = s.serialize_map(Some(2))?;
        map.serialize_entry("type", "function")?;
        map.serialize_entry("function", &Function(self.0))?;
        map.end()
    }
}

/// One Chat message, borrowed from the request.
enum Out<'r, 'a> {
    System(&'r [String]),
    User {
        content: UserContent<'r, 'a>,
        mark: bool,
    },
    Assistant(&'r [Part<'a>]),
    Tool {
        id: &'a str,
        content: &'r [Part<'a>],
        mark: bool,
    },
}

struct Messages<'r, 'a>(&'r Request<'a>);

impl Serialize for Messages<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let r = self.0;
        let mark = r.cache.explicit_breakpoints;
        let mut out: Vec<Out<'_, '_>> = Vec::new();
        if !r.system.is_empty() {
            out.push(Out::System(&r.system));
        }
        out.extend(pieces(r).into_iter().map(|piece| match piece {
            Piece::Assistant(parts) => Out::Assistant(parts),
            Piece::ToolResult { id, content } => Out::Tool { id, content, mark },
            Piece::User(content) => Out::User { content, mark },
        }));
        out.serialize(s)
    }
}

impl Serialize for Out<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        match self {
            Out::System(blocks) => {
                map.serialize_entry("role", "system")?;
                map.serialize_entry("content", &blocks.join("\n\n"))?;
            }
            Out::User { content, mark } => {
                map.serialize_entry("role", "user")?;
                map.serialize_entry("content", &content.shaped(*mark, Flavor::Chat))?;
            }
            Out::Assistant(parts) => {
                map.serialize_entry("role", "assistant")?;
                let mut text = String::new();
                let mut calls = Vec::new();
                for part in parts.iter() {
                    match part {
                        Part::Block(Block::ToolUse { id, name, input }) => {
                            calls.push(CallOut {
                                id,
                                name,
                                arguments: input.get(),
                            });
                        }
                        Part::Block(Block::Thinking { .. } | Block::RedactedThinking { .. }) => {}
                        other => part_text(other, &mut text),
                    }
                }
                if text.is_empty() {
                    map.serialize_entry("content", &())?;
                } else {
                    map.serialize_entry("content", &text)?;
                }
                if !calls.is_empty() {
                    map.serialize_entry("tool_calls", &calls)?;
                }
            }
            Out::Tool { id, content, mark } => {
                map.serialize_entry("role", "tool")?;
                map.serialize_entry("tool_call_id", id)?;
                let text = joined_text(content);
                if *mark {
                    map.serialize_entry("content", &[MarkedText(&text)])?;
                } else {
                    map.serialize_entry("content", &text)?;
                }
            }
        }
        map.end()
    }
}

struct MarkedText<'a>(&'a str);

impl Serialize for MarkedText<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(3))?;
        map.serialize_entry("type", "text")?;
        map.serialize_entry("text", self.0)?;
        map.serialize_entry("prompt_cache_breakpoint", &ExplicitMode)?;
        map.end()
    }
}

struct CallOut<'a> {
    id: &'a str,
    name: &'a str,
    arguments: &'a str,
}

impl Serialize for CallOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(3))?;
        map.serialize_entry("id", self.id)?;
        map.serialize_entry("type", "function")?;
        map.serialize_entry(
            "function",
            &super::Fields([("arguments", self.arguments), ("name", self.name)]),
        )?;
        map.end()
    }
}
