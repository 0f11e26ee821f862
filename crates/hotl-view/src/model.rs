//! The model view: the messages a provider is sent, rendered deterministically from the view.
//!
//! Stamps (`[t<seq>]`) lead every user message and tool result. Folded and compacted spans
//! become one user-role text block: the note with its handle, then the span's user messages
//! quoted with their stamps, long ones capped. Same view, same messages, byte for byte.

use hotl_log::Block;
use serde::Serialize;

use crate::item::Item;
use crate::project::View;

/// A quoted user message inside a folded span is cut after this many characters.
pub const QUOTE_CAP: usize = 2000;

/// Who speaks a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user (and tool results).
    User,
    /// The model.
    Assistant,
}

/// One message of the model view.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Message {
    /// Who speaks.
    pub role: Role,
    /// What is said.
    pub content: Vec<Block>,
}

/// The stamp the model sees for `seq`.
pub fn stamp(seq: u64) -> String {
    format!("[t{seq}]")
}

/// The messages the model is sent for `view`: items after the latest `clear`, consecutive
/// messages of one role merged (providers want roles to alternate).
pub fn model_messages(view: &View) -> Vec<Message> {
    let mut out: Vec<Message> = Vec::new();
    for item in view
        .items
        .iter()
        .filter(|i| i.last_seq() > view.model_after)
    {
        let (role, content) = render(item);
        if content.is_empty() {
            continue;
        }
        match out.last_mut() {
            Some(last) if last.role == role => last.content.extend(content),
            _ => out.push(Message { role, content }),
        }
    }
    out
}

fn render(item: &Item) -> (Role, Vec<Block>) {
    match item {
        Item::User { seq, content } => (Role::User, stamped(*seq, content)),
        Item::Assistant { content, .. } => (
            Role::Assistant,
            content
                .iter()
                .filter(|b| !matches!(b, Block::Unknown { .. }))
                .cloned()
                .collect(),
        ),
        Item::ToolResult {
            seq,
            call,
            content,
            is_error,
            ..
        } => (
            Role::User,
            vec![Block::ToolResult {
                tool_use_id: call.clone(),
                content: stamped(*seq, content),
                is_error: *is_error,
            }],
        ),
        Item::Folded {
            handle,
            note,
            since,
            until,
            items,
        } => {
            let open = format!("<folded handle={handle} span=t{since}..t{until}>");
            (
                Role::User,
                vec![Block::text(collapsed_text(
                    &open,
                    "</folded>",
                    note,
                    items,
                    handle,
                ))],
            )
        }
        Item::Compacted {
            until,
            summary,
            items,
        } => {
            let open = format!("<compacted until=t{until}>");
            (
                Role::User,
                vec![Block::text(collapsed_text(
                    &open,
                    "</compacted>",
                    summary,
                    items,
                    "",
                ))],
            )
        }
    }
}

/// Prefixes the stamp to the first text block (or adds one), keeping other blocks as they are.
fn stamped(seq: u64, content: &[Block]) -> Vec<Block> {
    let mut out = Vec::with_capacity(content.len() + 1);
    let mut done = false;
    for block in content {
        match block {
            Block::Text { text } if !done => {
                out.push(Block::text(format!("{} {text}", stamp(seq))));
                done = true;
            }
            Block::Unknown { .. } => {}
            other => out.push(other.clone()),
        }
    }
    if !done {
        out.insert(0, Block::text(stamp(seq)));
    }
    out
}

fn collapsed_text(open: &str, close: &str, note: &str, items: &[Item], handle: &str) -> String {
    let mut text = format!("{open}\n{note}\n{close}");
    for item in items {
        item.for_each_user(&mut |seq, content| {
            let message = hotl_log::plain_text(content);
            text.push_str(&format!("\n{} {}", stamp(seq), cap(&message, handle)));
        });
    }
    text
}

fn cap(message: &str, handle: &str) -> String {
    let total = message.chars().count();
    if total <= QUOTE_CAP {
        return message.to_owned();
    }
    let kept: String = message.chars().take(QUOTE_CAP).collect();
    let pointer = if handle.is_empty() {
        String::new()
    } else {
        format!("; recall handle={handle}")
    };
    format!("{kept} [… {} more characters{pointer}]", total - QUOTE_CAP)
}
