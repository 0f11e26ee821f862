//! pi sessions: a hand-written v3 file (no public sample exists) with a tree branch, tool
//! calls, thinking with a signature, a compaction and a name.

use hotl_import::Source;
use hotl_log::{Block, Body};
use serde_json::json;

use crate::common::*;

fn entry(id: &str, parent: Option<&str>, message: serde_json::Value) -> serde_json::Value {
    json!({"type": "message", "id": id, "parentId": parent,
        "timestamp": "2026-02-01T10:00:00.000Z", "message": message})
}

fn pi_session() -> Vec<serde_json::Value> {
    vec![
        json!({"type": "session", "version": 3, "id": "0194-pi", "timestamp": "2026-02-01T10:00:00.000Z", "cwd": "/tmp"}),
        entry(
            "e1",
            None,
            json!({"role": "user", "content": "list files", "timestamp": 1}),
        ),
        entry(
            "e2",
            Some("e1"),
            json!({"role": "assistant", "model": "claude-x", "stopReason": "toolUse",
            "usage": {"input": 10, "output": 4, "cacheRead": 100, "cacheWrite": 0},
            "content": [{"type": "thinking", "thinking": "ls it", "thinkingSignature": "sig"},
                        {"type": "toolCall", "id": "tc1", "name": "bash", "arguments": {"command": "ls"}}]}),
        ),
        entry(
            "e3",
            Some("e2"),
            json!({"role": "toolResult", "toolCallId": "tc1", "toolName": "bash",
            "content": [{"type": "text", "text": "a b"}], "isError": false}),
        ),
        entry(
            "e4",
            Some("e3"),
            json!({"role": "assistant", "stopReason": "stop", "content": [{"type": "text", "text": "two files"}]}),
        ),
        json!({"type": "model_change", "id": "e5", "parentId": "e4", "timestamp": "2026-02-01T10:00:01.000Z", "provider": "x", "modelId": "y"}),
        entry(
            "e6",
            Some("e5"),
            json!({"role": "user", "content": [{"type": "text", "text": "old follow-up"}]}),
        ),
        entry(
            "e7",
            Some("e6"),
            json!({"role": "assistant", "stopReason": "stop", "content": [{"type": "text", "text": "old reply"}]}),
        ),
        // Back to e4: a branch.
        entry(
            "e8",
            Some("e4"),
            json!({"role": "user", "content": "new follow-up"}),
        ),
        entry(
            "e9",
            Some("e8"),
            json!({"role": "assistant", "stopReason": "stop", "content": [{"type": "text", "text": "new reply"}]}),
        ),
        json!({"type": "compaction", "id": "e10", "parentId": "e9", "timestamp": "2026-02-01T10:00:02.000Z",
            "summary": "listed files", "firstKeptEntryId": "e8", "tokensBefore": 900}),
        json!({"type": "session_info", "id": "e11", "parentId": "e10", "timestamp": "2026-02-01T10:00:03.000Z", "name": "Files"}),
    ]
}

#[test]
fn a_pi_tree_imports_with_its_branch_as_a_revert() -> TestResult {
    let home = Home::new()?;
    let path = write_lines(
        home.dir.path(),
        "2026-02-01T10-00-00-000Z_0194-pi.jsonl",
        &pi_session(),
    )?;
    let out = home.import(Source::Pi, &path)?;
    let records = home.records(&out.id)?;
    assert_eq!(calls(&records), ["tc1"]);
    assert_eq!(results(&records), ["tc1"]);
    assert_answered(&records);
    assert_eq!(count(&records, "revert"), 1);
    assert_eq!(count(&records, "compaction"), 1);
    let texts: Vec<String> = hotl_log::visible_branch(&records)
        .into_iter()
        .filter_map(|i| match &records[i].body {
            Body::User { content } => Some(hotl_log::plain_text(content)),
            _ => None,
        })
        .collect();
    assert_eq!(texts, ["list files", "new follow-up"]);
    let info = import_info(&records);
    assert_eq!(
        (info.source.as_str(), info.source_id.as_deref()),
        ("pi", Some("0194-pi"))
    );
    assert_eq!(info.skipped.get("model_change"), Some(&1));
    assert!(
        records
            .iter()
            .any(|r| matches!(&r.body, Body::Title { title, .. } if title == "Files"))
    );
    for r in &records {
        if let Body::Assistant { content, .. } = &r.body {
            for b in content {
                if let Block::Thinking { signature, .. } = b {
                    assert!(signature.is_none());
                }
            }
        }
    }
    Ok(())
}
