//! Codex items and events read into hotl's shapes: text, tool calls and their outputs, usage,
//! and the cheap look at a rollout that discovery needs.

use std::path::Path;

use hotl_log::{Block, Body, ToolInput, Usage};
use serde_json::{Map, Value};

use crate::lines::str_of;

/// The text parts of a message's content (`input_text`, `output_text`), joined.
pub(crate) fn text_of(content: Option<&Value>) -> String {
    let Some(parts) = content.and_then(Value::as_array) else {
        return content
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
    };
    let texts: Vec<&str> = parts
        .iter()
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect();
    texts.join("\n")
}

/// A user message's text and images (`input_image` data URLs).
pub(crate) fn user_blocks(content: Option<&Value>) -> Vec<Block> {
    let Some(parts) = content.and_then(Value::as_array) else {
        let text = text_of(content);
        return if text.is_empty() {
            Vec::new()
        } else {
            vec![Block::text(text)]
        };
    };
    parts
        .iter()
        .filter_map(|p| match p.get("type").and_then(Value::as_str) {
            Some("input_text" | "output_text" | "text") => {
                Some(Block::text(p.get("text")?.as_str()?))
            }
            Some("input_image") => {
                let url = p.get("image_url")?.as_str()?;
                let (head, data) = url.strip_prefix("data:")?.split_once(";base64,")?;
                Some(Block::Image {
                    media_type: head.to_owned(),
                    data: Some(data.to_owned()),
                    blob: None,
                })
            }
            _ => None,
        })
        .collect()
}

/// Whether a user item is context Codex injected rather than the user's typing.
pub(crate) fn injected(text: &str) -> bool {
    let t = text.trim_start();
    [
        "# AGENTS.md instructions",
        "<environment_context>",
        "<user_instructions>",
        "<permissions instructions>",
        "<collaboration_mode>",
        "<turn_aborted>",
    ]
    .iter()
    .any(|p| t.starts_with(p))
}

/// A reasoning item's readable text (its summary, else its raw content); empty when it holds
/// only encrypted content.
pub(crate) fn reasoning_text(item: &Map<String, Value>) -> String {
    let mut parts = Vec::new();
    for key in ["summary", "content"] {
        if let Some(items) = item.get(key).and_then(Value::as_array) {
            parts.extend(
                items
                    .iter()
                    .filter_map(|s| s.get("text").and_then(Value::as_str)),
            );
        }
        if !parts.is_empty() {
            break;
        }
    }
    parts.join("\n\n")
}

/// A call item as a `tool_use`: `function_call` arguments are a JSON string (parsed; kept as
/// `{"input": raw}` when they do not parse), a custom tool's input is raw text.
pub(crate) fn tool_use(item: &Map<String, Value>, line: usize) -> Block {
    let id = str_of(item, "call_id")
        .or(str_of(item, "id"))
        .map_or_else(|| format!("call-{line}"), str::to_owned);
    let kind = str_of(item, "type").unwrap_or("");
    let name = match kind {
        "local_shell_call" => "local_shell".to_owned(),
        "tool_search_call" => "tool_search".to_owned(),
        _ => {
            let name = str_of(item, "name").unwrap_or("unknown");
            match str_of(item, "namespace") {
                Some(ns) => format!("{ns}/{name}"),
                None => name.to_owned(),
            }
        }
    };
    let input = match kind {
        "function_call" | "tool_search_call" => {
            let raw = item.get("arguments");
            match raw.and_then(Value::as_str) {
                Some(text) => ToolInput::from_json(text)
                    .unwrap_or_else(|_| serde_json::json!({ "input": text }).into()),
                None => raw.cloned().map(ToolInput::from).unwrap_or_default(),
            }
        }
        "custom_tool_call" => {
            serde_json::json!({ "input": item.get("input").cloned().unwrap_or(Value::Null) }).into()
        }
        _ => item
            .get("action")
            .cloned()
            .map(ToolInput::from)
            .unwrap_or_default(),
    };
    Block::ToolUse { id, name, input }
}

/// An output item's content and whether it failed: a JSON `{"output", "metadata":{"exit_code"}}`
/// string is unpacked, a non-zero exit code is an error.
pub(crate) fn output(item: &Map<String, Value>) -> (Vec<Block>, bool) {
    let raw = item.get("output");
    let text = match raw {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(_)) => text_of(raw),
        Some(other) => other
            .get("content")
            .and_then(Value::as_str)
            .map_or_else(|| other.to_string(), str::to_owned),
        None => String::new(),
    };
    if let Ok(Value::Object(packed)) = serde_json::from_str::<Value>(&text)
        && let Some(output) = packed.get("output").and_then(Value::as_str)
    {
        let failed = packed
            .get("metadata")
            .and_then(|m| m.get("exit_code"))
            .and_then(Value::as_i64)
            .is_some_and(|c| c != 0);
        return (vec![Block::text(output)], failed);
    }
    (vec![Block::text(text)], false)
}

/// A tool result record.
pub(crate) fn result(call: String, content: Vec<Block>, is_error: bool) -> Body {
    Body::ToolResult {
        call,
        content,
        blob: None,
        is_error,
        files: Vec::new(),
    }
}

/// `last_token_usage`: `input_tokens` includes the cached part, which hotl counts apart.
pub(crate) fn usage(last: &Value) -> Usage {
    let n = |k: &str| last.get(k).and_then(Value::as_u64).unwrap_or(0);
    let cached = n("cached_input_tokens");
    Usage {
        input: n("input_tokens").saturating_sub(cached),
        cache_read: cached,
        cache_write: 0,
        cache_write_1h: 0,
        output: n("output_tokens"),
        thinking: n("reasoning_output_tokens"),
    }
}

/// What discovery shows of a rollout: its id, cwd, title (the latest thread name, else the
/// first typed prompt) and line count.
pub(crate) fn peek(path: &Path) -> Option<crate::discover::Peek> {
    let bytes = crate::lines::read_bytes(path).ok()?;
    let mut peek = crate::discover::Peek::default();
    let mut prompt = None;
    for line in bytes.split(|&b| b == b'\n') {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        peek.records += 1;
        let wanted = peek.records == 1
            || memchr_any(line, b"thread_name_updated")
            || (prompt.is_none() && memchr_any(line, b"\"user_message\""));
        if !wanted {
            continue;
        }
        let Ok(v) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        let p = v.get("payload").unwrap_or(&v);
        if peek.records == 1 {
            peek.id = p.get("id").and_then(Value::as_str).map(str::to_owned);
            peek.cwd = p.get("cwd").and_then(Value::as_str).map(str::to_owned);
        }
        match p.get("type").and_then(Value::as_str) {
            Some("thread_name_updated") => {
                peek.title = p
                    .get("thread_name")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            }
            Some("user_message") if prompt.is_none() => {
                prompt = p.get("message").and_then(Value::as_str).map(str::to_owned)
            }
            _ => {}
        }
    }
    peek.title = peek.title.or(prompt);
    Some(peek)
}

fn memchr_any(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cached_input_is_taken_out_of_input() {
        let u = usage(&json!({"input_tokens": 18911, "cached_input_tokens": 18304,
            "output_tokens": 37, "reasoning_output_tokens": 0}));
        assert_eq!((u.input, u.cache_read, u.output), (607, 18304, 37));
    }

    #[test]
    fn arguments_strings_are_parsed_or_kept_raw() {
        let item = json!({"type": "function_call", "name": "exec_command",
            "arguments": "{\"cmd\":\"ls\"}", "call_id": "c1"});
        let Block::ToolUse { input, .. } = tool_use(item.as_object().expect("object"), 1) else {
            panic!()
        };
        assert_eq!(input.get(), "{\"cmd\":\"ls\"}");
        let item =
            json!({"type": "function_call", "name": "x", "arguments": "{oops", "call_id": "c"});
        let Block::ToolUse { input, .. } = tool_use(item.as_object().expect("object"), 1) else {
            panic!()
        };
        assert_eq!(input.parse::<Value>().ok(), Some(json!({"input": "{oops"})));
    }

    #[test]
    fn packed_outputs_are_unpacked_and_exit_codes_judged() {
        let item = json!({"output": "{\"output\":\"boom\",\"metadata\":{\"exit_code\":2}}"});
        let (content, failed) = output(item.as_object().expect("object"));
        assert_eq!((content, failed), (vec![Block::text("boom")], true));
    }
}
