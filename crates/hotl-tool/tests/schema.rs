//! Every tool's schema matches what it parses: a missing required field is named, unknown
//! fields are ignored.

use hotl_testkit::TestResult;
use hotl_tool::ToolSet;
use serde_json::{Value, json};

use crate::support::Project;

#[tokio::test]
async fn an_empty_call_names_the_first_required_field() -> TestResult {
    let p = Project::new()?;
    for tool in ToolSet::builtin().iter() {
        let schema: Value = serde_json::from_str(tool.definition().input_schema.get())?;
        let required: Vec<&str> = schema["required"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for field in &required {
            assert!(
                schema["properties"].get(field).is_some(),
                "{}: required `{field}` has no property",
                tool.name()
            );
        }
        let out = p.call(tool.name(), json!({"unknown": 1})).await;
        match required.first() {
            Some(first) => assert_eq!(
                (out.is_error, out.content.as_str()),
                (true, format!("missing required field `{first}`").as_str()),
                "{}",
                tool.name()
            ),
            None => assert!(!out.is_error, "{}: {}", tool.name(), out.content),
        }
    }
    Ok(())
}

#[tokio::test]
async fn wrong_types_are_errors_naming_the_field() -> TestResult {
    let p = Project::new()?;
    let cases = [
        ("read", json!({"path": 7})),
        ("read", json!({"path": "a", "offset": "2"})),
        ("write", json!({"path": "a", "content": ["x"]})),
        (
            "edit",
            json!({"path": "a", "old": "x", "new": "y", "all": "yes"}),
        ),
        ("bash", json!({"command": "true", "timeout": -5})),
        ("grep", json!({"pattern": "x", "glob": 3})),
        ("glob", json!({"pattern": false})),
        ("ls", json!({"path": {}})),
        ("todo", json!({"items": "write tests"})),
    ];
    let names = [
        "`path`",
        "`offset`",
        "`content`",
        "`all`",
        "`timeout`",
        "`glob`",
        "`pattern`",
        "`path`",
        "`items`",
    ];
    for ((tool, input), name) in cases.into_iter().zip(names) {
        let out = p.call(tool, input).await;
        assert!(out.is_error, "{tool}: {}", out.content);
        assert!(
            out.content.starts_with(&format!("{name} must be")),
            "{tool}: {}",
            out.content
        );
    }
    Ok(())
}

#[tokio::test]
async fn arguments_that_are_not_an_object_are_refused() -> TestResult {
    let p = Project::new()?;
    let out = p.call("ls", json!(["."])).await;
    assert!(out.is_error);
    assert_eq!(out.content, "arguments must be a JSON object, got an array");
    Ok(())
}
