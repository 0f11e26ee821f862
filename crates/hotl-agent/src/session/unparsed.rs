//! Answers that are tool calls the server did not parse as calls. A local model trained on one
//! call format, behind a server whose chat template expects another, writes its call as text
//! (`<tool_call>{…}</tool_call>`, a bare `{"name", "arguments"}` object, the same in a fenced
//! block); the server passes it on as an answer and the turn would end as if the model had
//! answered. Such an answer is told for what it is.

use serde_json::Value;

/// What in `text` looks like a call of one of `tools` written as text, for the notice.
pub(super) fn unparsed_call(text: &str, tools: &[String]) -> Option<&'static str> {
    let trimmed = text.trim();
    if trimmed.is_empty() || tools.is_empty() {
        return None;
    }
    for tag in [
        "<tool_call>",
        "<function_call>",
        "<|tool_call|>",
        "<function=",
    ] {
        if trimmed.contains(tag) {
            return Some("a <tool_call> tag");
        }
    }
    let names_a_call = |json: &str| {
        serde_json::from_str::<Value>(json.trim()).is_ok_and(|v| {
            let name = v.get("name").and_then(Value::as_str);
            let args = v.get("arguments").or_else(|| v.get("parameters"));
            name.is_some() && args.is_some_and(|a| a.is_object() || a.is_string())
        })
    };
    if names_a_call(trimmed) {
        return Some("a {\"name\", \"arguments\"} object");
    }
    // A fenced block holding such an object, as the whole answer or most of it.
    let body = trimmed
        .strip_prefix("```")
        .and_then(|rest| rest.split_once('\n'))
        .and_then(|(_, rest)| rest.trim_end().strip_suffix("```"));
    if body.is_some_and(names_a_call) {
        return Some("a fenced {\"name\", \"arguments\"} object");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_written_as_text_are_recognised_and_prose_is_not() {
        let tools = vec!["read".to_owned()];
        assert!(
            unparsed_call(
                "<tool_call>\n{\"name\": \"python\", \"arguments\": {\"file_path\": \"calc.py\"}}\n</tool_call>",
                &tools
            )
            .is_some()
        );
        assert!(unparsed_call(r#"{"name": "read", "arguments": {"path": "a"}}"#, &tools).is_some());
        assert!(
            unparsed_call(
                "```json\n{\"name\": \"read\", \"arguments\": {\"path\": \"a\"}}\n```",
                &tools
            )
            .is_some()
        );
        assert!(unparsed_call("The capital of France is Paris.", &tools).is_none());
        assert!(unparsed_call("```bash\ngit status\n```", &tools).is_none());
        assert!(unparsed_call(r#"{"name": "Ada", "age": 3}"#, &tools).is_none());
        assert!(unparsed_call("<tool_call>{}</tool_call>", &[]).is_none());
    }
}
