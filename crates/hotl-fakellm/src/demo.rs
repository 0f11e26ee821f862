//! The offline demo "model": a few deterministic rules that answer text and use tools, so
//! the harness can be tried end to end without a script or a network.
//!
//! Rules, first match wins:
//! 1. The last user turn carries tool results: summarise them (end_turn).
//! 2. The message says "run" or "list" and a `bash` tool is offered: call it with the
//!    text in backticks, else the words after "run", else `ls`.
//! 3. The message mentions a file path and a `read` tool is offered: call it.
//! 4. Otherwise: a short text answer that repeats the message.
//!
//! When the request enables thinking, a one-line plan comes first as thinking.

use crate::script::{Reply, Stop};
use crate::turn::{Convo, ToolInfo};

/// File extensions that make a bare word look like a path.
const EXTENSIONS: &[&str] = &[
    "rs", "md", "txt", "toml", "json", "jsonl", "py", "js", "ts", "go", "c", "h", "cpp", "java",
    "yaml", "yml", "sh", "lock", "cfg", "ini", "html", "css", "sql", "csv", "log",
];

/// The demo model's reply to `convo`.
pub(crate) fn reply(convo: &Convo) -> Reply {
    let input = convo.last_input.trim();
    let (plan, mut reply) = if convo.after_tool {
        ("summarise the tool output", summarise(input))
    } else if let Some(r) = run_or_list(input, &convo.tools) {
        ("run a shell command", r)
    } else if let Some(r) = read_path(input, &convo.tools) {
        ("read the file", r)
    } else {
        ("answer directly", chat(input))
    };
    if convo.thinking {
        reply.thinking = Some(format!(
            "The user wrote: \"{}\". I will {plan}.",
            hotl_text::clip(hotl_text::first_nonblank_line(input), 61)
        ));
    }
    reply
}

fn summarise(output: &str) -> Reply {
    let lines = output.lines().count();
    let first = hotl_text::clip(hotl_text::first_nonblank_line(output), 81);
    let text = if output.is_empty() {
        "The tool finished with no output.".to_string()
    } else {
        format!(
            "The tool returned {lines} line{} of output. It starts with: \"{first}\".",
            if lines == 1 { "" } else { "s" }
        )
    };
    Reply::text(text).with_stop(Stop::EndTurn)
}

fn run_or_list(input: &str, tools: &[ToolInfo]) -> Option<Reply> {
    let words: Vec<String> = input
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .collect();
    let run = words.iter().position(|w| w == "run");
    let list = words.iter().any(|w| w == "list");
    if run.is_none() && !list {
        return None;
    }
    let tool = find_tool(tools, &["bash", "shell"])?;
    let command = if let Some(quoted) = backticked(input) {
        quoted
    } else if let Some(i) = run.filter(|i| i + 1 < words.len()) {
        input
            .split_whitespace()
            .skip(i + 1)
            .collect::<Vec<_>>()
            .join(" ")
    } else {
        "ls".to_string()
    };
    let param = tool.param.clone().unwrap_or_else(|| "command".to_string());
    Some(
        Reply::text(format!("I'll run `{command}`."))
            .with_tool(tool.name.clone(), serde_json::json!({ param: command })),
    )
}

fn read_path(input: &str, tools: &[ToolInfo]) -> Option<Reply> {
    let path = input
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| "`'\"()[]{}<>,;:!?".contains(c)))
        .map(|w| w.strip_suffix('.').unwrap_or(w))
        .find(|w| looks_like_path(w))?;
    let tool = find_tool(tools, &["read", "read_file"])?;
    let param = tool.param.clone().unwrap_or_else(|| "path".to_string());
    Some(
        Reply::text(format!("Let me read {path}."))
            .with_tool(tool.name.clone(), serde_json::json!({ param: path })),
    )
}

fn chat(input: &str) -> Reply {
    let text = if input.is_empty() {
        "Hello! I'm hotl's offline demo model.".to_string()
    } else {
        format!(
            "I'm hotl's offline demo model. Mention a file path and I'll read it; say \"run \
             `command`\" and I'll run it. You said: \"{}\"",
            hotl_text::clip(hotl_text::first_nonblank_line(input), 121)
        )
    };
    Reply::text(text).with_stop(Stop::EndTurn)
}

fn looks_like_path(word: &str) -> bool {
    if word.len() < 3 || word.contains("://") {
        return false;
    }
    if word.contains('/') && word.chars().any(char::is_alphanumeric) {
        return true;
    }
    word.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty() && EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str())
    })
}

fn find_tool<'a>(tools: &'a [ToolInfo], names: &[&str]) -> Option<&'a ToolInfo> {
    names
        .iter()
        .find_map(|n| tools.iter().find(|t| t.name.eq_ignore_ascii_case(n)))
}

fn backticked(input: &str) -> Option<String> {
    let start = input.find('`')? + 1;
    let len = input.get(start..)?.find('`')?;
    let inner = input.get(start..start + len)?.trim();
    (!inner.is_empty()).then(|| inner.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tools() -> Vec<ToolInfo> {
        vec![
            ToolInfo {
                name: "read".into(),
                param: Some("path".into()),
            },
            ToolInfo {
                name: "bash".into(),
                param: Some("command".into()),
            },
        ]
    }

    fn convo(text: &str) -> Convo {
        Convo {
            last_input: text.into(),
            tools: tools(),
            ..Convo::default()
        }
    }

    #[test]
    fn rules() {
        let r = reply(&convo("please look at src/main.rs."));
        assert_eq!(r.tools[0].name, "read");
        assert_eq!(r.tools[0].input["path"], "src/main.rs");
        let r = reply(&convo("run `cargo test -q` now"));
        assert_eq!(r.tools[0].input["command"], "cargo test -q");
        let r = reply(&convo("list the files"));
        assert_eq!(r.tools[0].input["command"], "ls");
        let r = reply(&convo("hello there"));
        assert!(r.tools.is_empty());
        let mut c = convo("line one\nline two");
        c.after_tool = true;
        c.thinking = true;
        let r = reply(&c);
        assert!(r.text.unwrap().contains("2 lines"));
        assert!(r.thinking.is_some());
        let mut c = convo("read Cargo.toml");
        c.tools.clear();
        assert!(reply(&c).tools.is_empty());
    }
}
