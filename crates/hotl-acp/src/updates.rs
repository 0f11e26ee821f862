//! What hotl's tool calls look like to an editor: a kind, a one-line title (`$ cmd`,
//! `read path:10-40`, `edit path`), the files they touch, an edit as a diff, and the todo list
//! as a plan.

use agent_client_protocol::v1::schema as s;
use serde_json::Value;

/// A tool call about to run, as the editor shows it.
pub(crate) fn tool_call(id: &str, name: &str, input: &Value) -> s::ToolCall {
    let path = input["path"].as_str();
    let mut call = s::ToolCall::new(id.to_owned(), title(name, input))
        .kind(kind(name))
        .status(s::ToolCallStatus::InProgress)
        .raw_input(input.clone());
    if let Some(path) = path {
        call = call.locations(vec![s::ToolCallLocation::new(path.to_owned())]);
    }
    if let Some(diff) = diff(name, input) {
        call = call.content(vec![diff.into()]);
    }
    call
}

/// A call's result: its status and what the model was told.
pub(crate) fn tool_result(id: &str, is_error: bool, content: &str) -> s::ToolCallUpdate {
    let status = if is_error {
        s::ToolCallStatus::Failed
    } else {
        s::ToolCallStatus::Completed
    };
    s::ToolCallUpdate::new(
        id.to_owned(),
        s::ToolCallUpdateFields::new()
            .status(status)
            .content(vec![content.to_owned().into()]),
    )
}

/// A running call's output so far: its status in progress, its content the output.
pub(crate) fn tool_running(id: &str, printed: &str) -> s::ToolCallUpdate {
    s::ToolCallUpdate::new(
        id.to_owned(),
        s::ToolCallUpdateFields::new()
            .status(s::ToolCallStatus::InProgress)
            .content(vec![printed.to_owned().into()]),
    )
}

/// The `todo` tool's list as a plan, when `input` holds one.
pub(crate) fn plan(input: &Value) -> Option<s::Plan> {
    let items = input["items"].as_array()?;
    Some(s::Plan::new(
        items
            .iter()
            .map(|item| {
                let status = match item["status"].as_str() {
                    Some("done") => s::PlanEntryStatus::Completed,
                    Some("in_progress") => s::PlanEntryStatus::InProgress,
                    _ => s::PlanEntryStatus::Pending,
                };
                s::PlanEntry::new(
                    item["text"].as_str().unwrap_or_default().to_owned(),
                    s::PlanEntryPriority::Medium,
                    status,
                )
            })
            .collect(),
    ))
}

fn kind(name: &str) -> s::ToolKind {
    match name {
        "read" => s::ToolKind::Read,
        "write" | "edit" => s::ToolKind::Edit,
        "bash" => s::ToolKind::Execute,
        "grep" | "glob" | "ls" | "recall" => s::ToolKind::Search,
        "todo" => s::ToolKind::Think,
        _ => s::ToolKind::Other,
    }
}

/// One line saying what the call does.
pub(crate) fn title(name: &str, input: &Value) -> String {
    let text = |key: &str| input[key].as_str().unwrap_or_default();
    match name {
        "bash" => format!("$ {}", one_line(text("command"))),
        "read" => {
            let mut title = format!("read {}", text("path"));
            if let Some(offset) = input["offset"].as_u64() {
                let end = input["limit"]
                    .as_u64()
                    .map(|l| offset + l.saturating_sub(1));
                title.push_str(&match end {
                    Some(end) => format!(":{offset}-{end}"),
                    None => format!(":{offset}-"),
                });
            }
            title
        }
        "write" | "edit" | "ls" => format!("{name} {}", text("path")).trim_end().to_owned(),
        "grep" | "glob" => format!("{name} {}", text("pattern")),
        "recall" => format!("recall {}", text("query")),
        "ask" => format!("ask {}: {}", text("handle"), one_line(text("question"))),
        "fold" => format!("fold since {}", text("since")),
        "fork" => format!("fork: {}", one_line(text("task"))),
        "todo" => "update the todo list".to_owned(),
        other => other.to_owned(),
    }
}

/// The first line of `text`, at most 80 characters.
fn one_line(text: &str) -> String {
    hotl_text::clip(hotl_text::first_line(text), 80)
}

/// An edit or a write as a diff.
fn diff(name: &str, input: &Value) -> Option<s::Diff> {
    let path = input["path"].as_str()?.to_owned();
    match name {
        "edit" => Some(
            s::Diff::new(path, input["new"].as_str()?.to_owned())
                .old_text(input["old"].as_str()?.to_owned()),
        ),
        "write" => Some(s::Diff::new(path, input["content"].as_str()?.to_owned())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn titles_say_what_a_call_does_in_one_line() {
        assert_eq!(
            title("bash", &json!({"command": "cargo test\n--all"})),
            "$ cargo test"
        );
        assert_eq!(
            title(
                "read",
                &json!({"path": "src/main.rs", "offset": 10, "limit": 31})
            ),
            "read src/main.rs:10-40"
        );
        assert_eq!(title("edit", &json!({"path": "a.rs"})), "edit a.rs");
        assert_eq!(title("ls", &json!({})), "ls");
        assert_eq!(title("mcp__x__y", &json!({})), "mcp__x__y");
    }

    #[test]
    fn an_edit_is_a_diff_and_the_todo_list_a_plan() {
        let call = tool_call(
            "c1",
            "edit",
            &json!({"path": "a.rs", "old": "x", "new": "y"}),
        );
        let json = serde_json::to_value(&call).expect("json");
        assert_eq!(json["kind"], "edit");
        assert_eq!(json["content"][0]["type"], "diff");
        assert_eq!(json["content"][0]["oldText"], "x");
        assert_eq!(json["content"][0]["newText"], "y");
        assert_eq!(json["locations"][0]["path"], "a.rs");
        let plan = plan(&json!({"items": [{"text": "a", "status": "done"}, {"text": "b", "status": "pending"}]}))
            .expect("a plan");
        let json = serde_json::to_value(&plan).expect("json");
        assert_eq!(json["entries"][0]["status"], "completed");
        assert_eq!(json["entries"][1]["content"], "b");
    }
}
