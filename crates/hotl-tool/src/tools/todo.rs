//! `todo`: replaces the session's todo list.

use hotl_log::Todo;
use hotl_wire::ToolDef;
use serde_json::Value;

use crate::args::{Fail, wrong};
use crate::tool::{Invocation, Tool, ToolFuture, ToolKind, ToolOutput, definition};

/// The statuses an item may have.
pub(crate) const STATUSES: [&str; 3] = ["pending", "in_progress", "done"];

const DESCRIPTION: &str = "Replace the todo list, sent whole, for work of several steps.";

const SCHEMA: &str = r#"{"type":"object","properties":{"items":{"type":"array","items":{"type":"object","properties":{"text":{"type":"string"},"status":{"type":"string","enum":["pending","in_progress","done"]}},"required":["text","status"]}}},"required":["items"]}"#;

/// The `todo` tool.
pub(crate) struct TodoTool;

impl Tool for TodoTool {
    fn name(&self) -> &'static str {
        "todo"
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn definition(&self) -> ToolDef {
        definition(self.name(), DESCRIPTION, SCHEMA)
    }

    fn run<'a>(&'a self, invocation: Invocation<'a>) -> ToolFuture<'a> {
        let items =
            Ok::<_, Fail>(&invocation.args).and_then(|args| parse_items(args.array("items")?));
        let out = match items {
            Ok(items) => ToolOutput {
                todos: Some(items.clone()),
                ..ToolOutput::ok(render(&items))
            },
            Err(message) => ToolOutput::error(message),
        };
        Box::pin(async move { out })
    }
}

/// Checks every item; the error names the first bad one (`items[2].status`).
fn parse_items(values: &[Value]) -> Result<Vec<Todo>, Fail> {
    let mut items = Vec::with_capacity(values.len());
    for (i, v) in values.iter().enumerate() {
        let Some(obj) = v.as_object() else {
            return Err(wrong(
                &format!("items[{i}]"),
                "an object with `text` and `status`",
                v,
            ));
        };
        let field = |name: &str| -> Result<String, Fail> {
            let path = format!("items[{i}].{name}");
            match obj.get(name) {
                None => Err(format!("missing required field `{path}`")),
                Some(Value::String(s)) => Ok(s.clone()),
                Some(other) => Err(wrong(&path, "a string", other)),
            }
        };
        let text = field("text")?;
        if text.trim().is_empty() {
            return Err(format!("`items[{i}].text` is empty"));
        }
        let status = field("status")?;
        if !STATUSES.contains(&status.as_str()) {
            return Err(format!(
                "`items[{i}].status` must be one of pending, in_progress, done; got {status:?}"
            ));
        }
        items.push(Todo { text, status });
    }
    Ok(items)
}

/// `[x] done`, `[~] in progress`, `[ ] pending`, under a count line.
fn render(items: &[Todo]) -> String {
    if items.is_empty() {
        return "todo list cleared".to_owned();
    }
    let count = |s: &str| items.iter().filter(|t| t.status == s).count();
    let mut out = format!(
        "todo list updated: {} done, {} in progress, {} pending",
        count("done"),
        count("in_progress"),
        count("pending")
    );
    for item in items {
        let mark = match item.status.as_str() {
            "done" => "[x]",
            "in_progress" => "[~]",
            _ => "[ ]",
        };
        out.push_str(&format!("\n{mark} {}", item.text));
    }
    out
}
