//! `todo`: validated items, a short rendering, and the new list handed back.

use hotl_log::Todo;
use hotl_testkit::TestResult;
use serde_json::json;

use crate::support::{Project, assert_error};

#[tokio::test]
async fn sets_the_list_and_renders_it() -> TestResult {
    let p = Project::new()?;
    let out = p
        .call(
            "todo",
            json!({"items": [
                {"text": "read the code", "status": "done"},
                {"text": "write tests", "status": "in_progress"},
                {"text": "ship", "status": "pending"}
            ]}),
        )
        .await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(
        out.content,
        "todo list updated: 1 done, 1 in progress, 1 pending\n[x] read the code\n[~] write tests\n[ ] ship"
    );
    let todo = |text: &str, status: &str| Todo {
        text: text.into(),
        status: status.into(),
    };
    assert_eq!(
        out.todos,
        Some(vec![
            todo("read the code", "done"),
            todo("write tests", "in_progress"),
            todo("ship", "pending"),
        ])
    );
    let cleared = p.call("todo", json!({"items": []})).await;
    assert_eq!(cleared.content, "todo list cleared");
    assert_eq!(cleared.todos, Some(vec![]));
    Ok(())
}

#[tokio::test]
async fn invalid_items_are_refused_by_position() -> TestResult {
    let p = Project::new()?;
    let cases = [
        (
            json!([{"text": "a", "status": "finished"}]),
            "`items[0].status` must be one of pending, in_progress, done; got \"finished\"",
        ),
        (
            json!([{"text": "a", "status": "done"}, {"status": "done"}]),
            "missing required field `items[1].text`",
        ),
        (
            json!([{"text": "a", "status": 1}]),
            "`items[0].status` must be a string, got the number 1",
        ),
        (
            json!(["a"]),
            "`items[0]` must be an object with `text` and `status`, got the string \"a\"",
        ),
        (
            json!([{"text": " ", "status": "done"}]),
            "`items[0].text` is empty",
        ),
    ];
    for (items, message) in cases {
        let out = p.call("todo", json!({ "items": items })).await;
        assert_error(&out, &[message]);
        assert_eq!(out.todos, None);
    }
    Ok(())
}
