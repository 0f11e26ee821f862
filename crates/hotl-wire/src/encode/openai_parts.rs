//! What both OpenAI dialects share: the walk that splits the view's messages into pieces (tool
//! results out of user messages, per-request text on the last one), and user content parts and
//! the tool choice in the same shape with Chat's names (`text`, `image_url: {url}`) or
//! Responses' (`input_text`, `input_image`), with the explicit prompt-cache marker when asked.

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use hotl_log::Block;
use hotl_view::{Part, Role};

use crate::encode::{StampedText, part_text};
use crate::request::{Request, ToolChoice};

/// One piece of the conversation as both OpenAI dialects send it; each maps it to its own item.
pub(crate) enum Piece<'r, 'a> {
    /// An assistant message's parts, as the view has them.
    Assistant(&'r [Part<'a>]),
    /// A tool result, taken out of the user message it sits in.
    ToolResult {
        id: &'a str,
        content: &'r [Part<'a>],
    },
    /// The rest of a user message.
    User(UserContent<'r, 'a>),
}

/// What is left of a user message once its tool results are out: the view's parts (unknown
/// blocks dropped), then the per-request text if it is the last user message. Never empty.
pub(crate) struct UserContent<'r, 'a> {
    parts: Vec<&'r Part<'a>>,
    dynamic: &'r [String],
}

/// The request's messages in order, as pieces: a user message gives its tool results, in order,
/// then the rest of it (left out when there is none).
pub(crate) fn pieces<'r, 'a>(r: &'r Request<'a>) -> Vec<Piece<'r, 'a>> {
    let last_user = r.messages.iter().rposition(|m| m.role == Role::User);
    let mut pieces = Vec::new();
    for (i, message) in r.messages.iter().enumerate() {
        match message.role {
            Role::Assistant => pieces.push(Piece::Assistant(&message.content)),
            Role::User => {
                let mut rest = Vec::new();
                for part in &message.content {
                    match part {
                        Part::ToolResult {
                            tool_use_id,
                            content,
                            ..
                        } => pieces.push(Piece::ToolResult {
                            id: tool_use_id,
                            content,
                        }),
                        Part::Block(Block::Unknown { .. }) => {}
                        other => rest.push(other),
                    }
                }
                let dynamic: &[String] = if Some(i) == last_user {
                    &r.dynamic
                } else {
                    &[]
                };
                if !rest.is_empty() || !dynamic.is_empty() {
                    pieces.push(Piece::User(UserContent {
                        parts: rest,
                        dynamic,
                    }));
                }
            }
        }
    }
    pieces
}

/// Which OpenAI dialect the parts and the tool choice are for.
#[derive(Clone, Copy)]
pub(crate) enum Flavor {
    Chat,
    Responses,
}

impl Flavor {
    fn text_type(self) -> &'static str {
        match self {
            Flavor::Chat => "text",
            Flavor::Responses => "input_text",
        }
    }
}

/// One part of a user message: a part of the view (with whether it carries the marker), or
/// per-request text.
pub(crate) enum UserPart<'p, 'a> {
    Part(&'p Part<'a>, bool),
    Dynamic(&'p str),
}

/// A [`UserPart`] in a dialect's shape.
pub(crate) struct UserPartOut<'p, 'a> {
    pub part: UserPart<'p, 'a>,
    pub flavor: Flavor,
}

/// `{"mode":"explicit"}`: the explicit prompt-cache marker and mode.
pub(crate) struct ExplicitMode;

impl Serialize for ExplicitMode {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(1))?;
        map.serialize_entry("mode", "explicit")?;
        map.end()
    }
}

/// A tool choice in a dialect's shape: `auto`, `required`, `none`, or one named function.
pub(crate) struct ChoiceOut<'a>(pub &'a ToolChoice, pub Flavor);

impl Serialize for ChoiceOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            ToolChoice::Auto => s.serialize_str("auto"),
            ToolChoice::Any => s.serialize_str("required"),
            ToolChoice::None => s.serialize_str("none"),
            ToolChoice::Tool(name) => {
                let mut map = s.serialize_map(Some(2))?;
                map.serialize_entry("type", "function")?;
                match self.1 {
                    Flavor::Chat => {
                        map.serialize_entry("function", &serde_json::json!({ "name": name }))?
                    }
                    Flavor::Responses => map.serialize_entry("name", name)?,
                }
                map.end()
            }
        }
    }
}

impl Serialize for UserPartOut<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let text_type = self.flavor.text_type();
        let mut map = s.serialize_map(None)?;
        let mark = match &self.part {
            UserPart::Dynamic(text) => {
                map.serialize_entry("type", text_type)?;
                map.serialize_entry("text", text)?;
                false
            }
            UserPart::Part(part, mark) => {
                match part {
                    Part::Stamped { seq, text } => {
                        map.serialize_entry("type", text_type)?;
                        map.serialize_entry("text", &StampedText(*seq, text))?;
                    }
                    Part::Block(Block::Image {
                        media_type,
                        data: Some(data),
                        ..
                    }) => {
                        let url = format!("data:{media_type};base64,{data}");
                        match self.flavor {
                            Flavor::Chat => {
                                map.serialize_entry("type", "image_url")?;
                                map.serialize_entry(
                                    "image_url",
                                    &serde_json::json!({ "url": url }),
                                )?;
                            }
                            Flavor::Responses => {
                                map.serialize_entry("type", "input_image")?;
                                map.serialize_entry("image_url", &url)?;
                            }
                        }
                    }
                    other => {
                        let mut text = String::new();
                        part_text(other, &mut text);
                        map.serialize_entry("type", text_type)?;
                        map.serialize_entry("text", &text)?;
                    }
                }
                *mark
            }
        };
        if mark {
            map.serialize_entry("prompt_cache_breakpoint", &ExplicitMode)?;
        }
        map.end()
    }
}

impl<'r, 'a> UserContent<'r, 'a> {
    /// The parts in `flavor`'s shape: the last view part marked when `mark`, then the
    /// per-request text.
    pub(crate) fn shaped(&self, mark: bool, flavor: Flavor) -> Vec<UserPartOut<'r, 'a>> {
        let last = self.parts.len().checked_sub(1);
        self.parts
            .iter()
            .enumerate()
            .map(|(i, p)| UserPart::Part(p, mark && Some(i) == last))
            .chain(self.dynamic.iter().map(|t| UserPart::Dynamic(t)))
            .map(|part| UserPartOut { part, flavor })
            .collect()
    }
}
