//! A loaded session's visible transcript as updates, so the editor shows the conversation it
//! goes on from: the user's messages, the model's text and thinking, each tool call with its
//! result, and a fold or compaction as the note that stands in for its span.

use agent_client_protocol::v1::schema as s;
use hotl_log::Block;
use hotl_view::{Item, View};

/// The updates that show `view`'s visible items, in order.
pub(crate) fn updates(view: &View) -> Vec<s::SessionUpdate> {
    let mut out = Vec::new();
    for item in &view.items {
        push(item, &mut out);
    }
    out
}

fn push(item: &Item, out: &mut Vec<s::SessionUpdate>) {
    let chunk = |text: String| s::ContentChunk::new(text.into());
    match item {
        Item::User { content, .. } => {
            let text = hotl_log::plain_text(content);
            if !text.is_empty() {
                out.push(s::SessionUpdate::UserMessageChunk(chunk(text)));
            }
        }
        Item::Assistant { content, .. } => {
            for block in content {
                match block {
                    Block::Text { text } if !text.is_empty() => {
                        out.push(s::SessionUpdate::AgentMessageChunk(chunk(text.clone())));
                    }
                    Block::Thinking { thinking, .. } if !thinking.is_empty() => {
                        out.push(s::SessionUpdate::AgentThoughtChunk(chunk(thinking.clone())));
                    }
                    Block::ToolUse { id, name, input } => {
                        let input = input.parse().unwrap_or(serde_json::Value::Null);
                        out.push(s::SessionUpdate::ToolCall(crate::updates::tool_call(
                            id, name, &input,
                        )));
                    }
                    _ => {}
                }
            }
        }
        Item::ToolResult {
            call,
            content,
            is_error,
            ..
        } => out.push(s::SessionUpdate::ToolCallUpdate(
            crate::updates::tool_result(call, *is_error, &hotl_log::plain_text(content)),
        )),
        Item::Folded {
            handle,
            note,
            since,
            until,
            ..
        } => out.push(s::SessionUpdate::AgentMessageChunk(chunk(format!(
            "\n[folded t{since}..t{until} as {handle}]\n{note}\n"
        )))),
        Item::Compacted { until, summary, .. } => out.push(s::SessionUpdate::AgentMessageChunk(
            chunk(format!("\n[compacted through t{until}]\n{summary}\n")),
        )),
        Item::ChildReport {
            handle,
            state,
            report,
            ..
        } => out.push(s::SessionUpdate::AgentMessageChunk(chunk(format!(
            "\n[background child {handle} {state}]\n{report}\n"
        )))),
        // Only inside a span, which replays as its note.
        Item::Elided { .. } => {}
    }
}
