//! Content blocks: the pieces of a message (text, image, thinking, tool use, tool result).
//!
//! Records carry them and `hotl-wire` reuses them, so they live here. On disk a block is a JSON
//! object tagged by `type`; an unknown type is kept as [`Block::Unknown`] rather than failing the
//! whole record.

use std::borrow::Cow;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

/// A tool call's arguments, kept as the JSON text they arrived as (key order and all), so a
/// call is always sent back the same, and loading a log builds no JSON trees. The one change:
/// line breaks become spaces. A record is one line of the log, and models (local ones above
/// all) write arguments across lines; in valid JSON a raw line break can only be whitespace
/// between tokens (inside a string it is escaped), so nothing else changes.
#[derive(Clone, Debug)]
pub struct ToolInput(Box<RawValue>);

impl ToolInput {
    /// Arguments from JSON text, on one line; fails when it is not valid JSON.
    pub fn from_json(text: impl Into<String>) -> serde_json::Result<Self> {
        let mut text = text.into();
        if text.contains(['\n', '\r']) {
            text = text.replace(['\n', '\r'], " ");
        }
        RawValue::from_string(text).map(ToolInput)
    }

    /// The JSON text.
    pub fn get(&self) -> &str {
        self.0.get()
    }

    /// Decodes the arguments.
    pub fn parse<T: serde::de::DeserializeOwned>(&self) -> serde_json::Result<T> {
        serde_json::from_str(self.get())
    }
}

impl Default for ToolInput {
    /// `{}`: no arguments.
    fn default() -> Self {
        ToolInput::from_json("{}").expect("{} is JSON")
    }
}

impl From<Value> for ToolInput {
    fn from(value: Value) -> Self {
        ToolInput::from_json(value.to_string()).expect("a Value prints as valid JSON")
    }
}

impl PartialEq for ToolInput {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

impl std::fmt::Display for ToolInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.get())
    }
}

impl Serialize for ToolInput {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ToolInput {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(deserializer)?;
        // From a log line it is one line already; from elsewhere (an imported file, a wire
        // body) it may not be.
        if raw.get().contains(['\n', '\r']) {
            return ToolInput::from_json(raw.get()).map_err(serde::de::Error::custom);
        }
        Ok(ToolInput(raw))
    }
}

/// One block of message content.
#[derive(Clone, Debug, PartialEq)]
pub enum Block {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// An image, inline (base64 `data`) or stored as a blob.
    Image {
        /// MIME type, e.g. `image/png`.
        media_type: String,
        /// Base64 bytes, when inline.
        data: Option<String>,
        /// Blob hash, when stored in the blob store.
        blob: Option<String>,
    },
    /// Model reasoning, with the provider's signature when it gave one.
    Thinking {
        /// The reasoning text (may be a summary).
        thinking: String,
        /// Opaque signature that must be sent back unchanged.
        signature: Option<String>,
    },
    /// Reasoning the provider returned encrypted.
    RedactedThinking {
        /// Opaque data that must be sent back unchanged.
        data: String,
    },
    /// A tool call made by the model.
    ToolUse {
        /// The call id the result must answer.
        id: String,
        /// The tool's name.
        name: String,
        /// The arguments, as the exact JSON text received.
        input: ToolInput,
    },
    /// A tool's answer, as the model view presents it.
    ToolResult {
        /// The call it answers.
        tool_use_id: String,
        /// Result content (text and images).
        content: Vec<Block>,
        /// Whether the tool failed.
        is_error: bool,
    },
    /// A block type this version does not know; skipped by the projection.
    Unknown {
        /// The `type` it had on disk.
        kind: String,
    },
}

impl Block {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Block::Text { text: text.into() }
    }

    /// The block's text, if it is a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Block::Text { text } => Some(text),
            _ => None,
        }
    }
}

/// Joins the text blocks of `content` with newlines (other blocks are left out).
pub fn plain_text(content: &[Block]) -> String {
    let mut out = String::new();
    for text in content.iter().filter_map(Block::as_text) {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(text);
    }
    out
}

/// The on-disk shape: one flat object, so decoding is a single pass (serde's internally tagged
/// enums buffer every field first, which doubles the cost on large outputs).
#[derive(Serialize, Deserialize)]
struct BlockWire<'a> {
    #[serde(rename = "type")]
    kind: Cow<'a, str>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    text: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    media_type: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    data: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    blob: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    thinking: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    signature: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    id: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    input: Option<Cow<'a, ToolInput>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tool_use_id: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    content: Option<Cow<'a, [Block]>>,
    #[serde(default, skip_serializing_if = "is_false")]
    is_error: bool,
}

fn is_false(b: &bool) -> bool {
    !b
}

impl Serialize for Block {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut w = BlockWire::empty(Cow::Borrowed(self.kind()));
        match self {
            Block::Text { text } => w.text = Some(Cow::Borrowed(text)),
            Block::Image {
                media_type,
                data,
                blob,
            } => {
                w.media_type = Some(Cow::Borrowed(media_type));
                w.data = data.as_deref().map(Cow::Borrowed);
                w.blob = blob.as_deref().map(Cow::Borrowed);
            }
            Block::Thinking {
                thinking,
                signature,
            } => {
                w.thinking = Some(Cow::Borrowed(thinking));
                w.signature = signature.as_deref().map(Cow::Borrowed);
            }
            Block::RedactedThinking { data } => w.data = Some(Cow::Borrowed(data)),
            Block::ToolUse { id, name, input } => {
                w.id = Some(Cow::Borrowed(id));
                w.name = Some(Cow::Borrowed(name));
                w.input = Some(Cow::Borrowed(input));
            }
            Block::ToolResult {
                tool_use_id,
                content,
                is_error,
            } => {
                w.tool_use_id = Some(Cow::Borrowed(tool_use_id));
                w.content = Some(Cow::Borrowed(content));
                w.is_error = *is_error;
            }
            Block::Unknown { .. } => {}
        }
        w.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Block {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let w = BlockWire::deserialize(deserializer)?;
        w.into_block().map_err(serde::de::Error::custom)
    }
}

impl Block {
    fn kind(&self) -> &str {
        match self {
            Block::Text { .. } => "text",
            Block::Image { .. } => "image",
            Block::Thinking { .. } => "thinking",
            Block::RedactedThinking { .. } => "redacted_thinking",
            Block::ToolUse { .. } => "tool_use",
            Block::ToolResult { .. } => "tool_result",
            Block::Unknown { kind } => kind,
        }
    }
}

impl<'a> BlockWire<'a> {
    fn empty(kind: Cow<'a, str>) -> Self {
        BlockWire {
            kind,
            text: None,
            media_type: None,
            data: None,
            blob: None,
            thinking: None,
            signature: None,
            id: None,
            name: None,
            input: None,
            tool_use_id: None,
            content: None,
            is_error: false,
        }
    }

    fn into_block(self) -> Result<Block, String> {
        fn need(v: Option<Cow<'_, str>>, kind: &str, field: &str) -> Result<String, String> {
            v.map(Cow::into_owned)
                .ok_or_else(|| format!("{kind} block without `{field}`"))
        }
        let own = |v: Option<Cow<'_, str>>| v.map(Cow::into_owned);
        let kind = self.kind.as_ref();
        Ok(match kind {
            "text" => Block::Text {
                text: need(self.text, kind, "text")?,
            },
            "image" => Block::Image {
                media_type: need(self.media_type, kind, "media_type")?,
                data: own(self.data),
                blob: own(self.blob),
            },
            "thinking" => Block::Thinking {
                thinking: need(self.thinking, kind, "thinking")?,
                signature: own(self.signature),
            },
            "redacted_thinking" => Block::RedactedThinking {
                data: need(self.data, kind, "data")?,
            },
            "tool_use" => Block::ToolUse {
                id: need(self.id, kind, "id")?,
                name: need(self.name, kind, "name")?,
                input: self.input.map(Cow::into_owned).unwrap_or_default(),
            },
            "tool_result" => Block::ToolResult {
                tool_use_id: need(self.tool_use_id, kind, "tool_use_id")?,
                content: self.content.map(Cow::into_owned).unwrap_or_default(),
                is_error: self.is_error,
            },
            _ => Block::Unknown {
                kind: self.kind.into_owned(),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_block_round_trips() {
        let blocks = vec![
            Block::text("hi"),
            Block::Image {
                media_type: "image/png".into(),
                data: None,
                blob: Some("ab".into()),
            },
            Block::Thinking {
                thinking: "hmm".into(),
                signature: Some("sig".into()),
            },
            Block::RedactedThinking { data: "xx".into() },
            Block::ToolUse {
                id: "c1".into(),
                name: "bash".into(),
                input: serde_json::json!({"command": "ls"}).into(),
            },
            Block::ToolResult {
                tool_use_id: "c1".into(),
                content: vec![Block::text("out")],
                is_error: true,
            },
        ];
        let json = serde_json::to_string(&blocks).unwrap();
        let back: Vec<Block> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, blocks);
    }

    #[test]
    fn tool_input_keeps_its_exact_text() {
        let text = r#"{"type":"tool_use","id":"c","name":"n","input":{"z": 1,  "a":[true]}}"#;
        let b: Block = serde_json::from_str(text).unwrap();
        let Block::ToolUse { input, .. } = &b else {
            panic!("{b:?}")
        };
        assert_eq!(input.get(), r#"{"z": 1,  "a":[true]}"#);
        let again = serde_json::to_string(&b).unwrap();
        assert!(
            again.contains(r#""input":{"z": 1,  "a":[true]}"#),
            "{again}"
        );
    }

    #[test]
    fn unknown_block_type_is_kept_by_name() {
        let b: Block = serde_json::from_str(r#"{"type":"hologram","depth":3}"#).unwrap();
        assert_eq!(
            b,
            Block::Unknown {
                kind: "hologram".into()
            }
        );
    }

    #[test]
    fn missing_required_field_is_an_error() {
        let err = serde_json::from_str::<Block>(r#"{"type":"text"}"#).unwrap_err();
        assert!(
            err.to_string().contains("text block without `text`"),
            "{err}"
        );
    }
}
