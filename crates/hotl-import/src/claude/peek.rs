//! The cheap look at a Claude Code transcript that discovery needs: its session id, cwd, title
//! (custom > ai-generated > summary, else the first typed prompt) and line count. Only lines
//! that can say one of those are parsed.

use std::path::Path;

use serde_json::Value;

use crate::discover::Peek;

/// Looks at `path`.
pub(crate) fn peek(path: &Path) -> Option<Peek> {
    let bytes = std::fs::read(path).ok()?;
    let mut peek = Peek::default();
    let mut titles: [Option<String>; 3] = [None, None, None];
    let mut prompt = None;
    for line in bytes.split(|&b| b == b'\n') {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        peek.records += 1;
        let wanted = (peek.cwd.is_none() && contains(line, b"\"cwd\""))
            || contains(line, b"\"custom-title\"")
            || contains(line, b"\"ai-title\"")
            || contains(line, b"\"type\":\"summary\"")
            || (prompt.is_none() && contains(line, b"\"type\":\"user\""));
        if !wanted {
            continue;
        }
        let Ok(v) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
        if peek.cwd.is_none() {
            peek.cwd = s("cwd");
        }
        if peek.id.is_none() {
            peek.id = s("sessionId");
        }
        match v.get("type").and_then(Value::as_str) {
            Some("custom-title") => titles[0] = s("customTitle"),
            Some("ai-title") => titles[1] = s("aiTitle"),
            Some("summary") => titles[2] = s("summary"),
            Some("user") if prompt.is_none() => {
                let meta = v.get("isMeta").and_then(Value::as_bool) == Some(true);
                let text = v
                    .get("message")
                    .and_then(|m| m.get("content"))
                    .and_then(Value::as_str);
                if let Some(text) = text.filter(|t| !meta && !t.trim_start().starts_with('<')) {
                    prompt = Some(text.to_owned());
                }
            }
            _ => {}
        }
    }
    let [custom, ai, summary] = titles;
    peek.title = custom.or(ai).or(summary).or(prompt);
    Some(peek)
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}
