//! User content parts as both OpenAI dialects write them: the same shape, with Chat's names
//! (`text`, `image_url: {url}`) or Responses' (`input_text`, `input_image`), and the explicit
//! prompt-cache marker when asked.

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use hotl_log::Block;
use hotl_view::Part;

use crate::encode::{StampedText, part_text};

/// Which OpenAI dialect the parts are for.
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

/// A user message's parts in `flavor`'s shape: the last view part marked when `mark`, then the
/// per-request text.
pub(crate) fn user_parts<'p, 'a>(
    parts: &[&'p Part<'a>],
    dynamic: &'p [String],
    mark: bool,
    flavor: Flavor,
) -> Vec<UserPartOut<'p, 'a>> {
    let last = parts.len().checked_sub(1);
    parts
        .iter()
        .enumerate()
        .map(|(i, p)| UserPart::Part(p, mark && Some(i) == last))
        .chain(dynamic.iter().map(|t| UserPart::Dynamic(t)))
        .map(|part| UserPartOut { part, flavor })
        .collect()
}
