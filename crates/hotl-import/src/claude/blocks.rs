//! Claude Code content blocks into hotl blocks. Thinking keeps its text; its signature, bound
//! to the account and model that made it, is returned apart so it lands in `src`, never in
//! the replayable `signature`.

use hotl_log::{Block, ToolInput};
use serde_json::Value;

use crate::report::Report;

/// An assistant message's blocks, and the thinking signatures taken out of them.
pub(crate) fn assistant_blocks(
    content: &Value,
    report: &mut Report,
    signatures: &mut Vec<String>,
) -> Vec<Block> {
    let Some(items) = content.as_array() else {
        return match content.as_str() {
            Some(text) => vec![Block::text(text)],
            None => Vec::new(),
        };
    };
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let kind = item.get("type").and_then(Value::as_str).unwrap_or("");
        match kind {
            "text" => out.push(Block::text(text_of(item, "text"))),
            "thinking" => {
                if let Some(sig) = item.get("signature").and_then(Value::as_str)
                    && !sig.is_empty()
                {
                    signatures.push(sig.to_owned());
                }
                out.push(Block::Thinking {
                    thinking: text_of(item, "thinking"),
                    signature: None,
                });
            }
            "redacted_thinking" => report.skip_part("block/redacted_thinking"),
            "tool_use" => out.push(Block::ToolUse {
                id: text_of(item, "id"),
                name: text_of(item, "name"),
                input: item
                    .get("input")
                    .cloned()
                    .map(ToolInput::from)
                    .unwrap_or_default(),
            }),
            other => {
                report.skip_part(&format!("block/{other}"));
                out.push(Block::Unknown {
                    kind: other.to_owned(),
                });
            }
        }
    }
    out
}

/// A user message's or tool result's content: text and images. The `<system-reminder>`
/// blocks Claude Code adds to them (its own instructions to its model, not the user's words
/// or the tool's output) are left out and counted.
pub(crate) fn user_blocks(content: &Value, report: &mut Report) -> Vec<Block> {
    match content {
        Value::String(text) => user_text(text, report).into_iter().collect(),
        Value::Array(items) => items
            .iter()
            .filter_map(|item| {
                let kind = item.get("type").and_then(Value::as_str).unwrap_or("");
                match kind {
                    "text" => user_text(&text_of(item, "text"), report),
                    "image" => image(item).or_else(|| {
                        report.skip_part("block/image");
                        None
                    }),
                    other => {
                        report.skip_part(&format!("block/{other}"));
                        None
                    }
                }
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// `text` without its system reminders, as a block; `None` when nothing else was in it.
fn user_text(text: &str, report: &mut Report) -> Option<Block> {
    let (kept, removed) = without_reminders(text);
    for _ in 0..removed {
        report.skip_part("system-reminder");
    }
    (removed == 0 || !kept.trim().is_empty()).then(|| Block::text(kept))
}

const REMINDER_OPEN: &str = "<system-reminder>";
const REMINDER_CLOSE: &str = "</system-reminder>";

/// `text` with every closed `<system-reminder>…</system-reminder>` span taken out (with the
/// blank lines around it), and how many there were. An unclosed one is left as it is.
pub(crate) fn without_reminders(text: &str) -> (String, usize) {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut removed = 0;
    while let Some(open) = rest.find(REMINDER_OPEN) {
        let Some(close) = rest[open..].find(REMINDER_CLOSE) else {
            break;
        };
        out.push_str(rest[..open].trim_end_matches(['\n', ' ']));
        rest = rest[open + close + REMINDER_CLOSE.len()..].trim_start_matches(['\n', ' ']);
        if !out.is_empty() && !rest.is_empty() {
            out.push('\n');
        }
        removed += 1;
    }
    if removed == 0 {
        return (text.to_owned(), 0);
    }
    out.push_str(rest);
    (out, removed)
}

/// `{type:"image", source:{type:"base64", media_type, data}}`.
fn image(item: &Value) -> Option<Block> {
    let source = item.get("source")?;
    Some(Block::Image {
        media_type: source.get("media_type")?.as_str()?.to_owned(),
        data: Some(source.get("data")?.as_str()?.to_owned()),
        blob: None,
    })
}

fn text_of(item: &Value, key: &str) -> String {
    item.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn signatures_leave_the_thinking_block() {
        let mut report = Report::default();
        let mut sigs = Vec::new();
        let blocks = assistant_blocks(
            &json!([
                {"type": "thinking", "thinking": "hm", "signature": "EqQB"},
                {"type": "redacted_thinking", "data": "xx"},
                {"type": "tool_use", "id": "t1", "name": "Bash", "input": "raw"},
                {"type": "server_tool_use", "id": "s"}
            ]),
            &mut report,
            &mut sigs,
        );
        assert_eq!(sigs, ["EqQB"]);
        assert_eq!(
            blocks[0],
            Block::Thinking {
                thinking: "hm".into(),
                signature: None
            }
        );
        assert!(matches!(&blocks[1], Block::ToolUse { input, .. } if input.get() == "\"raw\""));
        assert_eq!(report.skipped["block/redacted_thinking"], 1);
        assert_eq!(report.skipped["block/server_tool_use"], 1);
    }

    #[test]
    fn system_reminders_are_taken_out_and_counted() {
        let text = "line 1\nline 2\n\n<system-reminder>\nWhenever you read a file, consider malware.\n</system-reminder>\n";
        assert_eq!(without_reminders(text), ("line 1\nline 2".to_owned(), 1));
        let two = "<system-reminder>a</system-reminder>\nfix the bug\n<system-reminder>b</system-reminder>";
        assert_eq!(without_reminders(two), ("fix the bug".to_owned(), 2));
        let open = "talk about <system-reminder> tags";
        assert_eq!(without_reminders(open), (open.to_owned(), 0));
        let mut report = Report::default();
        assert!(user_text("<system-reminder>only</system-reminder>", &mut report).is_none());
        assert_eq!(report.skipped.get("system-reminder"), Some(&1));
    }
}
