//! Anthropic Messages request bodies.

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

use hotl_log::Block;
use hotl_view::{Part, Role};

use crate::breakpoints::{Breakpoints, place};
use crate::encode::{StampedText, role_name};
use crate::request::{Reasoning, Request, ToolChoice, ToolDef, Ttl};

/// The body of `POST /v1/messages`.
pub fn body(request: &Request<'_>) -> Vec<u8> {
    let marks = place(request);
    let body = Body {
        request,
        marks: &marks,
        messages: true,
    };
    serde_json::to_vec(&body).expect("request bodies serialise")
}

/// The same bytes as [`body`], reusing each unchanged message's bytes from `cache`: a message
/// with no marker and no dynamic text serialises the same as last time when it has as many
/// parts (under one cache key, messages only grow at the end).
pub fn body_reusing(request: &Request<'_>, cache: &mut MessageCache) -> Vec<u8> {
    let marks = place(request);
    let head = Body {
        request,
        marks: &marks,
        messages: false,
    };
    let mut out = serde_json::to_vec(&head).expect("request bodies serialise");
    out.pop(); // the closing brace; the messages follow
    out.extend_from_slice(b",\"messages\":[");
    let messages = &request.messages;
    let last_user = messages.iter().rposition(|m| m.role == Role::User);
    let ttl = Some(request.cache.ttl);
    for (m, message) in messages.iter().enumerate() {
        if m > 0 {
            out.push(b',');
        }
        let is_last_user = Some(m) == last_user;
        let message_out = MessageOut {
            role: message.role,
            parts: &message.content,
            index: m,
            marks: &marks,
            ttl,
            dynamic: if is_last_user { &request.dynamic } else { &[] },
        };
        let fresh = is_last_user || marks.blocks.iter().any(|&(i, _)| i == m);
        if fresh {
            serde_json::to_writer(&mut out, &message_out).expect("messages serialise");
            continue;
        }
        match cache.get(m, message.role, message.content.len()) {
            Some(bytes) => out.extend_from_slice(bytes),
            None => {
                let bytes = to_vec(&message_out);
                out.extend_from_slice(&bytes);
                cache.put(m, message.role, message.content.len(), bytes);
            }
        }
    }
    out.extend_from_slice(b"]}");
    out
}

/// Serialised messages kept between requests, under a key the caller changes whenever earlier
/// messages may have changed (a fold, a revert, a clear).
#[derive(Debug, Default)]
pub struct MessageCache {
    key: Option<String>,
    entries: Vec<Option<(Role, usize, Vec<u8>)>>,
}

impl MessageCache {
    /// Starts a request under `key`: a different key than last time forgets everything.
    pub fn prepare(&mut self, key: &str) {
        if self.key.as_deref() != Some(key) {
            self.key = Some(key.to_owned());
            self.entries.clear();
        }
    }

    /// Forgets every kept message; returns how many there were.
    pub fn clear(&mut self) -> usize {
        let kept = self.entries.iter().flatten().count();
        self.key = None;
        self.entries.clear();
        kept
    }

    fn get(&self, index: usize, role: Role, parts: usize) -> Option<&[u8]> {
        match self.entries.get(index)? {
            Some((r, n, bytes)) if *r == role && *n == parts => Some(bytes),
            _ => None,
        }
    }

    fn put(&mut self, index: usize, role: Role, parts: usize, bytes: Vec<u8>) {
        if self.entries.len() <= index {
            self.entries.resize_with(index + 1, || None);
        }
        self.entries[index] = Some((role, parts, bytes));
    }
}

/// One cache unit of the canonical prefix, serialised without its marker: each tool, each
/// system block, the request-level settings, then each message block with its role. The
/// second value is the index of the last unit carrying a marker.
pub fn units(request: &Request<'_>) -> (Vec<Vec<u8>>, Option<usize>) {
    let marks = place(request);
    let mut out = Vec::new();
    let mut last_mark = None;
    for tool in &request.tools {
        out.push(to_vec(&ToolOut { tool, mark: None }));
    }
    if marks.prefix && request.system.is_empty() {
        last_mark = out.len().checked_sub(1);
    }
    for text in &request.system {
        out.push(to_vec(&TextOut { text, mark: None }));
    }
    if marks.prefix && !request.system.is_empty() {
        last_mark = Some(out.len() - 1);
    }
    out.push(to_vec(&Settings(request)));
    for (m, message) in request.messages.iter().enumerate() {
        for (b, part) in message.content.iter().enumerate() {
            let unit = (role_name(message.role), PartOut { part, mark: None });
            out.push(to_vec(&unit));
            if marks.has(m, b) {
                last_mark = Some(out.len() - 1);
            }
        }
    }
    (out, last_mark)
}

fn to_vec(value: &impl Serialize) -> Vec<u8> {
    serde_json::to_vec(value).expect("request units serialise")
}

struct Body<'r, 'a> {
    request: &'r Request<'a>,
    marks: &'r Breakpoints,
    messages: bool,
}

impl Serialize for Body<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let r = self.request;
        let ttl = Some(r.cache.ttl);
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("model", &r.model)?;
        map.serialize_entry("max_tokens", &r.max_tokens)?;
        if r.stream {
            map.serialize_entry("stream", &true)?;
        }
        if !r.system.is_empty() {
            let last = r.system.len() - 1;
            let system: Vec<TextOut<'_>> = r
                .system
                .iter()
                .enumerate()
                .map(|(i, text)| TextOut {
                    text,
                    mark: (self.marks.prefix && i == last).then_some(r.cache.ttl),
                })
                .collect();
            map.serialize_entry("system", &system)?;
        }
        if !r.tools.is_empty() {
            let last = r.tools.len() - 1;
            let mark_tools = self.marks.prefix && r.system.is_empty();
            let tools: Vec<ToolOut<'_>> = r
                .tools
                .iter()
                .enumerate()
                .map(|(i, tool)| ToolOut {
                    tool,
                    mark: (mark_tools && i == last).then_some(r.cache.ttl),
                })
                .collect();
            map.serialize_entry("tools", &tools)?;
        }
        if r.tool_choice != ToolChoice::Auto {
            map.serialize_entry("tool_choice", &ChoiceOut(&r.tool_choice))?;
        }
        if let Some(Reasoning::Budget(budget)) = &r.reasoning {
            map.serialize_entry("thinking", &ThinkingOut(*budget))?;
        }
        if self.messages {
            map.serialize_entry(
                "messages",
                &Messages {
                    request: r,
                    marks: self.marks,
                    ttl,
                },
            )?;
        }
        map.end()
    }
}

/// The request-level settings that salt the cache, as one canonical unit.
struct Settings<'r, 'a>(&'r Request<'a>);

impl Serialize for Settings<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("tool_choice", &ChoiceOut(&self.0.tool_choice))?;
        if let Some(Reasoning::Budget(budget)) = &self.0.reasoning {
            map.serialize_entry("thinking", &ThinkingOut(*budget))?;
        }
        map.end()
    }
}

struct Messages<'r, 'a> {
    request: &'r Request<'a>,
    marks: &'r Breakpoints,
    ttl: Option<Ttl>,
}

impl Serialize for Messages<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let messages = &self.request.messages;
        let mut seq = s.serialize_seq(Some(messages.len()))?;
        let last_user = messages.iter().rposition(|m| m.role == Role::User);
        for (m, message) in messages.iter().enumerate() {
            seq.serialize_element(&MessageOut {
                role: message.role,
                parts: &message.content,
                index: m,
                marks: self.marks,
                ttl: self.ttl,
                dynamic: if Some(m) == last_user {
                    &self.request.dynamic
                } else {
                    &[]
                },
            })?;
        }
        seq.end()
    }
}

struct MessageOut<'r, 'a> {
    role: Role,
    parts: &'r [Part<'a>],
    index: usize,
    marks: &'r Breakpoints,
    ttl: Option<Ttl>,
    dynamic: &'r [String],
}

impl Serialize for MessageOut<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(2))?;
        map.serialize_entry("role", role_name(self.role))?;
        map.serialize_entry("content", &Content(self))?;
        map.end()
    }
}

struct Content<'m, 'r, 'a>(&'m MessageOut<'r, 'a>);

impl Serialize for Content<'_, '_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let m = self.0;
        let mut seq = s.serialize_seq(None)?;
        for (b, part) in m.parts.iter().enumerate() {
            if matches!(part, Part::Block(Block::Unknown { .. })) {
                continue;
            }
            let mark = m.marks.has(m.index, b).then_some(m.ttl).flatten();
            seq.serialize_element(&PartOut { part, mark })?;
        }
        for text in m.dynamic {
            seq.serialize_element(&TextOut { text, mark: None })?;
        }
        seq.end()
    }
}

/// `{"type":"ephemeral"}`, with `"ttl":"1h"` for hour-long entries.
struct Mark(Ttl);

impl Serialize for Mark {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("type", "ephemeral")?;
        if self.0 == Ttl::OneHour {
            map.serialize_entry("ttl", "1h")?;
        }
        map.end()
    }
}

struct TextOut<'a> {
    text: &'a str,
    mark: Option<Ttl>,
}

impl Serialize for TextOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("type", "text")?;
        map.serialize_entry("text", self.text)?;
        if let Some(ttl) = self.mark {
            map.serialize_entry("cache_control", &Mark(ttl))?;
        }
        map.end()
    }
}

struct ToolOut<'a> {
    tool: &'a ToolDef,
    mark: Option<Ttl>,
}

impl Serialize for ToolOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("name", &self.tool.name)?;
        map.serialize_entry("description", &self.tool.description)?;
        map.serialize_entry("input_schema", &self.tool.input_schema)?;
        if let Some(ttl) = self.mark {
            map.serialize_entry("cache_control", &Mark(ttl))?;
        }
        map.end()
    }
}

struct ChoiceOut<'a>(&'a ToolChoice);

impl Serialize for ChoiceOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        match self.0 {
            ToolChoice::Auto => map.serialize_entry("type", "auto")?,
            ToolChoice::Any => map.serialize_entry("type", "any")?,
            ToolChoice::None => map.serialize_entry("type", "none")?,
            ToolChoice::Tool(name) => {
                map.serialize_entry("type", "tool")?;
                map.serialize_entry("name", name)?;
            }
        }
        map.end()
    }
}

struct ThinkingOut(u32);

impl Serialize for ThinkingOut {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("type", "enabled")?;
        map.serialize_entry("budget_tokens", &self.0)?;
        map.end()
    }
}

struct PartOut<'p, 'a> {
    part: &'p Part<'a>,
    mark: Option<Ttl>,
}

impl Serialize for PartOut<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        match self.part {
            Part::Stamped { seq, text } => {
                map.serialize_entry("type", "text")?;
                map.serialize_entry("text", &StampedText(*seq, text))?;
            }
            Part::Text(text) => {
                map.serialize_entry("type", "text")?;
                map.serialize_entry("text", text)?;
            }
            Part::ToolResult {
                tool_use_id,
                content,
                is_error,
            } => {
                map.serialize_entry("type", "tool_result")?;
                map.serialize_entry("tool_use_id", tool_use_id)?;
                let inner: Vec<PartOut<'_, '_>> = content
                    .iter()
                    .filter(|p| !matches!(p, Part::Block(Block::Unknown { .. })))
                    .map(|part| PartOut { part, mark: None })
                    .collect();
                map.serialize_entry("content", &inner)?;
                if *is_error {
                    map.serialize_entry("is_error", &true)?;
                }
            }
            Part::Block(block) => block_entries(&mut map, block)?,
        }
        if let Some(ttl) = self.mark {
            map.serialize_entry("cache_control", &Mark(ttl))?;
        }
        map.end()
    }
}

fn block_entries<M: SerializeMap>(map: &mut M, block: &Block) -> Result<(), M::Error> {
    match block {
        Block::Text { text } => {
            map.serialize_entry("type", "text")?;
            map.serialize_entry("text", text)
        }
        Block::Image {
            media_type, data, ..
        } => match data {
            Some(data) => {
                map.serialize_entry("type", "image")?;
                map.serialize_entry("source", &ImageSource { media_type, data })
            }
            None => {
                map.serialize_entry("type", "text")?;
                map.serialize_entry("text", "[image not available]")
            }
        },
        Block::Thinking {
            thinking,
            signature,
        } => {
            map.serialize_entry("type", "thinking")?;
            map.serialize_entry("thinking", thinking)?;
            map.serialize_entry("signature", signature.as_deref().unwrap_or(""))
        }
        Block::RedactedThinking { data } => {
            map.serialize_entry("type", "redacted_thinking")?;
            map.serialize_entry("data", data)
        }
        Block::ToolUse { id, name, input } => {
            map.serialize_entry("type", "tool_use")?;
            map.serialize_entry("id", id)?;
            map.serialize_entry("name", name)?;
            map.serialize_entry("input", input)
        }
        Block::ToolResult {
            tool_use_id,
            content,
            is_error,
        } => {
            map.serialize_entry("type", "tool_result")?;
            map.serialize_entry("tool_use_id", tool_use_id)?;
            let inner: Vec<Part<'_>> = content.iter().map(Part::Block).collect();
            let inner: Vec<PartOut<'_, '_>> = inner
                .iter()
                .map(|part| PartOut { part, mark: None })
                .collect();
            map.serialize_entry("content", &inner)?;
            if *is_error {
                map.serialize_entry("is_error", &true)?;
            }
            Ok(())
        }
        Block::Unknown { .. } => Ok(()),
    }
}

struct ImageSource<'a> {
    media_type: &'a str,
    data: &'a str,
}

impl Serialize for ImageSource<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(3))?;
        map.serialize_entry("type", "base64")?;
        map.serialize_entry("media_type", self.media_type)?;
        map.serialize_entry("data", self.data)?;
        map.end()
    }
}
