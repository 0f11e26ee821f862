//! Fitting a note request into a window the conversation no longer fits: whole steps left out
//! from the oldest, then the longest texts (a huge tool result, most often the last step's)
//! shortened to their head and tail, with a pointer to where the whole text stays archived.
//! Only a note request is fitted this way: the model writes the note from what it can see,
//! and the compaction it makes replaces all of it.

use std::borrow::Cow;

use hotl_log::Block;
use hotl_view::{MessageRef, Part};

use super::requests::{leave_out_steps, message_bytes};

/// Texts shorter than this are never shortened: cutting them saves too little to matter.
const SHORTEST_CUT: usize = 2_048;

/// What a shortened text keeps at least, head and tail together.
const KEPT: usize = 1_024;

/// About what the pointer put in a shortened text's middle takes.
const POINTER: usize = 160;

/// What fitting did to a request's messages.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Fitted {
    /// Messages after the first left out (whole steps).
    pub(super) left_out: usize,
    /// Texts shortened to their head and tail.
    pub(super) shortened: usize,
    /// The bytes the messages take after fitting.
    pub(super) sent: usize,
}

/// Fits `messages` into `budget` bytes as far as it can: whole steps out from the oldest
/// (never the first message or the last step), then the longest texts shortened.
pub(super) fn fit(messages: &mut Vec<MessageRef<'_>>, budget: usize) -> Fitted {
    let left_out = leave_out_steps(messages, budget);
    messages.drain(1..(1 + left_out).min(messages.len()));
    let mut total = message_bytes(messages);
    let mut shortened = 0;
    while total > budget {
        let mut parts = text_parts(messages);
        let Some((part, len, seq)) = parts
            .iter_mut()
            .filter_map(|p| {
                text_of(p)
                    .map(|(text, seq)| (text.len(), seq))
                    .map(|l| (l, p))
            })
            .max_by_key(|((len, _), _)| *len)
            .map(|((len, seq), p)| (p, len, seq))
        else {
            break;
        };
        if len < SHORTEST_CUT {
            break;
        }
        let keep = len.saturating_sub(total - budget + POINTER).max(KEPT);
        let short = match text_of(part) {
            Some((text, _)) => head_and_tail(text, keep, seq),
            None => break,
        };
        if short.len() >= len {
            // Already as short as it gets.
            break;
        }
        **part = Part::Text(Cow::Owned(short));
        shortened += 1;
        total = message_bytes(messages);
    }
    Fitted {
        left_out,
        shortened,
        sent: total,
    }
}

/// Every part of `messages` that may be shortened: tool results and the model's own text.
/// The user's words are not: a compaction keeps them whole beside its note, so cutting them
/// here would not make the room the note is for.
fn text_parts<'m, 'a>(messages: &'m mut [MessageRef<'a>]) -> Vec<&'m mut Part<'a>> {
    let mut out = Vec::new();
    for message in messages {
        let by_model = message.role == hotl_view::Role::Assistant;
        for part in &mut message.content {
            match part {
                Part::ToolResult { content, .. } => out.extend(content.iter_mut()),
                other if by_model => out.push(other),
                _ => {}
            }
        }
    }
    out
}

/// A part's text, and the seq its stamp names.
fn text_of<'p>(part: &'p Part<'_>) -> Option<(&'p str, Option<u64>)> {
    match part {
        Part::Stamped { seq, text } => Some((text, Some(*seq))),
        Part::Text(text) => Some((text.as_ref(), None)),
        Part::Block(Block::Text { text }) => Some((text.as_str(), None)),
        _ => None,
    }
}

/// `text` cut to about `keep` bytes, its head and tail around a pointer to the archived whole.
fn head_and_tail(text: &str, keep: usize, seq: Option<u64>) -> String {
    let head = floor(text, keep / 2);
    let tail = ceil(text, text.len() - keep / 2);
    let cut = tail - head;
    let (stamp, at) = match seq {
        Some(seq) => (format!("[t{seq}] "), format!(" at t{seq}")),
        None => (String::new(), String::new()),
    };
    format!(
        "{stamp}{}\n[… {cut} bytes cut from the middle to fit this request; the whole text stays \
         archived{at} …]\n{}",
        &text[..head],
        &text[tail..]
    )
}

fn floor(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn ceil(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use hotl_view::Role;

    use super::*;

    fn user<'a>(parts: Vec<Part<'a>>) -> MessageRef<'a> {
        MessageRef {
            role: Role::User,
            content: parts,
        }
    }

    #[test]
    fn the_longest_text_is_shortened_to_its_head_and_tail() {
        let big = format!("HEAD{}TAIL", "é".repeat(20_000));
        let mut messages = vec![
            user(vec![Part::Text("the task".into())]),
            MessageRef {
                role: Role::Assistant,
                content: vec![Part::Text("calling".into())],
            },
            user(vec![Part::ToolResult {
                tool_use_id: "t1",
                content: vec![Part::Stamped {
                    seq: 41,
                    text: &big,
                }],
                is_error: false,
            }]),
        ];
        let fitted = fit(&mut messages, 6_000);
        assert_eq!((fitted.left_out, fitted.shortened), (0, 1));
        assert!(fitted.sent <= 6_000, "{fitted:?}");
        assert_eq!(fitted.sent, message_bytes(&messages));
        let text = serde_json::to_string(&messages).expect("json");
        assert!(
            text.contains("[t41] HEAD") && text.contains("TAIL"),
            "{text}"
        );
        assert!(text.contains("stays archived at t41"), "{text}");
    }

    #[test]
    fn short_texts_and_the_user_s_words_are_left_alone_even_when_nothing_fits() {
        let mut messages = vec![
            user(vec![Part::Text("x".repeat(50_000).into())]),
            MessageRef {
                role: Role::Assistant,
                content: vec![Part::Text("y".repeat(1_500).into())],
            },
        ];
        let fitted = fit(&mut messages, 10);
        assert_eq!(fitted.shortened, 0);
        assert!(fitted.sent > 51_500);
    }
}
