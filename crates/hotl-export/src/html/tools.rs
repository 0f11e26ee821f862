//! Tool calls as people read them: a one-line summary per tool (`$ cmd`, `read path:10-40`,
//! `edit path`), the input shown the way the tool uses it (an edit as a diff), and output
//! clipped with the rest a click away.

use std::cell::RefCell;

use hotl_log::ToolInput;

use crate::html::escape;

/// Output lines shown before "N more lines".
pub const SHOWN_LINES: usize = 10;

/// The one-line summary of a call.
pub fn summary(name: &str, input: &ToolInput) -> String {
    let args: serde_json::Value = input.parse().unwrap_or(serde_json::Value::Null);
    let s = |key: &str| args.get(key).and_then(|v| v.as_str()).unwrap_or("");
    let n = |key: &str| args.get(key).and_then(serde_json::Value::as_u64);
    let line = match name {
        "bash" => format!("$ {}", hotl_text::first_line(s("command"))),
        "read" => {
            let mut line = format!("read {}", s("path"));
            match (n("offset"), n("limit")) {
                (Some(from), Some(limit)) => {
                    line.push_str(&format!(":{from}-{}", from + limit.saturating_sub(1)))
                }
                (Some(from), None) => line.push_str(&format!(":{from}-")),
                (None, Some(limit)) => line.push_str(&format!(":1-{limit}")),
                (None, None) => {}
            }
            line
        }
        "ls" if s("path").is_empty() => "ls .".to_owned(),
        "edit" | "write" | "ls" => format!("{name} {}", s("path")),
        "grep" | "glob" => {
            let path = s("path");
            if path.is_empty() {
                format!("{name} {}", s("pattern"))
            } else {
                format!("{name} {} in {path}", s("pattern"))
            }
        }
        "recall" => format!("recall \"{}\"", s("query")),
        "ask" => format!(
            "ask {}: {}",
            s("handle"),
            hotl_text::first_line(s("question"))
        ),
        "fork" => format!("fork: {}", hotl_text::first_line(s("task"))),
        "fold" => match (n("since"), n("until")) {
            (Some(a), Some(b)) => format!("fold t{a}..t{b}"),
            _ => "fold".to_owned(),
        },
        _ => {
            let compact = input.get().trim();
            format!("{name} {}", hotl_text::clip(compact, 121))
        }
    };
    hotl_text::clip(&line, 201)
}

/// The call's input as HTML: a diff for an edit, the command for bash, the JSON otherwise.
pub fn input_html(name: &str, input: &ToolInput) -> String {
    let args: serde_json::Value = input.parse().unwrap_or(serde_json::Value::Null);
    let s = |key: &str| args.get(key).and_then(|v| v.as_str());
    let mut out = String::new();
    match (name, s("old"), s("new"), s("command"), s("content")) {
        ("edit", Some(old), Some(new), _, _) => push_diff(&mut out, &edit_diff(old, new)),
        ("bash", _, _, Some(command), _) => {
            out.push_str("<pre class=\"cmd\">$ ");
            escape::push(&mut out, command);
            out.push_str("</pre>");
        }
        ("write", _, _, _, Some(content)) => push_clipped(&mut out, content, "in"),
        // Their summary line says all they were given.
        ("read" | "ls" | "glob" | "grep", ..) if is_summarized(&args) => {}
        _ => {
            let pretty =
                serde_json::to_string_pretty(&args).unwrap_or_else(|_| input.get().to_owned());
            push_clipped(&mut out, &pretty, "in");
        }
    }
    out
}

/// Whether a call's arguments are all in its summary line (a path, a pattern, line numbers).
fn is_summarized(args: &serde_json::Value) -> bool {
    args.as_object().is_some_and(|map| {
        map.keys()
            .all(|k| matches!(k.as_str(), "path" | "pattern" | "offset" | "limit"))
    })
}

/// A unified diff of an edit's old and new text.
fn edit_diff(old: &str, new: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header("old", "new")
        .to_string()
}

/// A patch with its added, removed and hunk lines classed.
pub fn push_diff(out: &mut String, patch: &str) {
    out.push_str("<pre class=\"diff\">");
    for line in patch.lines() {
        let class = if line.starts_with("+++") || line.starts_with("---") {
            "dh"
        } else if line.starts_with('+') {
            "da"
        } else if line.starts_with('-') {
            "dd"
        } else if line.starts_with("@@") {
            "dk"
        } else {
            ""
        };
        if class.is_empty() {
            escape::push(out, line);
        } else {
            out.push_str("<span class=\"");
            out.push_str(class);
            out.push_str("\">");
            escape::push(out, line);
            out.push_str("</span>");
        }
        out.push('\n');
    }
    out.push_str("</pre>");
}

/// Rests longer than this leave the markup for the page's document (see [`collect_rests`]).
pub const LAZY_REST: usize = 256;

thread_local! {
    static RESTS: RefCell<Option<Vec<String>>> = const { RefCell::new(None) };
}

/// Runs `f` (a page's rendering) collecting the long rests of clipped outputs instead of
/// writing them into the markup: a page parses its markup before it shows anything, and
/// megabytes of tool output nobody has opened yet made that seconds. Each rest is shown, on
/// expand, from the page's embedded document (`rest[i]`), and searched from there.
pub fn collect_rests<T>(f: impl FnOnce() -> T) -> (T, Vec<String>) {
    let before = RESTS.with(|r| r.replace(Some(Vec::new())));
    let out = f();
    let rests = RESTS.with(|r| r.replace(before)).unwrap_or_default();
    (out, rests)
}

/// Takes a long rest for the document when rests are being collected: its index.
fn lazy(rest: &str) -> Option<usize> {
    if rest.len() < LAZY_REST {
        return None;
    }
    RESTS.with(|r| {
        r.borrow_mut().as_mut().map(|rests| {
            rests.push(rest.to_owned());
            rests.len() - 1
        })
    })
}

/// Text shown to its first lines, the rest behind "N more lines".
pub fn push_clipped(out: &mut String, text: &str, class: &str) {
    let mut lines = text.split_inclusive('\n');
    let head: String = lines.by_ref().take(SHOWN_LINES).collect();
    let rest: String = lines.collect();
    out.push_str("<pre class=\"");
    out.push_str(class);
    out.push_str("\">");
    escape::push(out, head.strip_suffix('\n').unwrap_or(&head));
    out.push_str("</pre>");
    if !rest.is_empty() {
        let more = rest.lines().count();
        let rest = rest.strip_suffix('\n').unwrap_or(&rest);
        if let Some(index) = lazy(rest) {
            out.push_str(&format!(
                "<details class=\"more\" data-rest=\"{index}\" data-class=\"{class}\"><summary>{more} more line{}</summary></details>",
                if more == 1 { "" } else { "s" }
            ));
            return;
        }
        out.push_str(&format!(
            "<details class=\"more\"><summary>{more} more line{}</summary><pre class=\"{class}\">",
            if more == 1 { "" } else { "s" }
        ));
        escape::push(out, rest);
        out.push_str("</pre></details>");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(json: &str) -> ToolInput {
        ToolInput::from_json(json).expect("test input is JSON")
    }

    #[test]
    fn summaries_say_what_each_tool_did() {
        assert_eq!(
            summary("bash", &input(r#"{"command":"ls -la\necho"}"#)),
            "$ ls -la"
        );
        assert_eq!(
            summary(
                "read",
                &input(r#"{"path":"src/a.rs","offset":10,"limit":31}"#)
            ),
            "read src/a.rs:10-40"
        );
        assert_eq!(
            summary("edit", &input(r#"{"path":"a","old":"x","new":"y"}"#)),
            "edit a"
        );
        assert_eq!(
            summary("mcp__x__y", &input(r#"{"a":1}"#)),
            r#"mcp__x__y {"a":1}"#
        );
    }

    #[test]
    fn an_edit_is_a_diff() {
        let html = input_html(
            "edit",
            &input(r#"{"path":"a","old":"one\ntwo\n","new":"one\n2\n"}"#),
        );
        assert!(html.contains("<span class=\"dd\">-two</span>"), "{html}");
        assert!(html.contains("<span class=\"da\">+2</span>"), "{html}");
    }

    #[test]
    fn long_output_is_clipped_with_the_rest_behind_a_click() {
        let text: String = (1..=25).map(|i| format!("line {i}\n")).collect();
        let mut out = String::new();
        push_clipped(&mut out, &text, "out");
        assert!(out.contains("15 more lines"), "{out}");
        assert!(out.contains("line 25"), "{out}");
    }
}
