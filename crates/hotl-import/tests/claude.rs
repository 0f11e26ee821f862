//! Claude Code transcripts: the real fixtures (2.1.7 with `subagents/`, 2.0.64 flat), chunk
//! merging, pairing, wrappers, compaction and rewinds.

use hotl_import::{ImportError, Source};
use hotl_log::{Block, Body};
use serde_json::json;

use crate::common::*;

#[test]
fn cc_217_thirty_chunks_become_eleven_replies_with_usage_counted_once() -> TestResult {
    let home = Home::new()?;
    let out = home.import(Source::Claude, &fixture(CC_217))?;
    let records = home.records(&out.id)?;
    assert_eq!(count(&records, "assistant"), 11);
    // Usage is the response's (each chunk repeats it), not the sum over its chunks.
    let usages: Vec<_> = records
        .iter()
        .filter_map(|r| match &r.body {
            Body::Assistant { usage, .. } => *usage,
            _ => None,
        })
        .collect();
    assert_eq!(usages.len(), 11);
    let info = import_info(&records);
    assert_eq!(info.source, "claude-code");
    assert_eq!(info.source_version.as_deref(), Some("2.1.7"));
    assert_eq!(
        info.source_id.as_deref(),
        Some("e9fb405b-169f-40eb-9396-7e75076f045d")
    );
    assert_eq!(info.records_total, 50);
    assert_eq!(info.skipped.get("file-history-snapshot"), Some(&2));
    assert_eq!(info.skipped.get("system/stop_hook_summary"), Some(&1));
    assert_eq!(info.skipped.get("system/turn_duration"), Some(&1));
    assert_eq!(info.until, records.last().map(|r| r.seq).unwrap_or(0));
    // The summary record is the title.
    assert_eq!(count(&records, "title"), 1);
    // Seqs dense from 1.
    for (i, r) in records.iter().enumerate() {
        assert_eq!(r.seq, i as u64 + 1);
    }
    Ok(())
}

#[test]
fn every_call_is_answered_once_in_call_order() -> TestResult {
    let home = Home::new()?;
    for fx in [CC_217, CC_2064] {
        let out = home.import(Source::Claude, &fixture(fx))?;
        let records = home.records(&out.id)?;
        let calls = calls(&records);
        let results = results(&records);
        assert_eq!(calls, results, "{fx}");
        assert_answered(&records);
        assert!(!calls.is_empty());
    }
    Ok(())
}

#[test]
fn signatures_stay_out_of_the_replayable_field() -> TestResult {
    let home = Home::new()?;
    let out = home.import(Source::Claude, &fixture(CC_217))?;
    let records = home.records(&out.id)?;
    let mut thinking = 0;
    for r in &records {
        if let Body::Assistant { content, .. } = &r.body {
            for b in content {
                if let Block::Thinking { signature, .. } = b {
                    thinking += 1;
                    assert!(signature.is_none());
                }
            }
        }
    }
    assert!(thinking > 0);
    let raw = home.raw(&out.id)?;
    assert!(raw.iter().any(|l| {
        l["src"]["signatures"]
            .as_array()
            .is_some_and(|s| !s.is_empty())
    }));
    Ok(())
}

#[test]
fn the_subagent_is_a_clean_child_linked_to_its_task_call() -> TestResult {
    let home = Home::new()?;
    let out = home.import(Source::Claude, &fixture(CC_217))?;
    assert_eq!(out.children.len(), 1);
    let visible = home.store.visible_delegated(&out.id)?;
    assert_eq!(visible.len(), 1);
    let child = &visible[0];
    assert_eq!(child.id, out.children[0]);
    let records = home.records(&out.id)?;
    let task_call = records
        .iter()
        .find_map(|r| match &r.body {
            Body::Assistant { content, .. } => content.iter().find_map(|b| match b {
                Block::ToolUse { id, name, .. } if name == "Task" => Some((r.seq, id.clone())),
                _ => None,
            }),
            _ => None,
        })
        .ok_or("no Task call")?;
    assert_eq!(child.delegation.call.as_deref(), Some(task_call.1.as_str()));
    assert_eq!(child.delegation.at, Some(task_call.0));
    assert_eq!(
        (child.pinned_in.as_str(), child.pinned_at),
        (out.id.as_str(), task_call.0)
    );
    assert_eq!(
        child.delegation.agent.as_deref(),
        Some("solution-architect")
    );
    let start = home.store.read_start(&child.id)?;
    assert!(start.parent.is_none(), "a clean child inherits nothing");
    let child_records = home.records(&child.id)?;
    assert!(matches!(&child_records[2].body, Body::User { .. }));
    assert_eq!(calls(&child_records), results(&child_records));
    Ok(())
}

#[test]
fn a_subagent_file_alone_is_refused_naming_its_session() -> TestResult {
    let home = Home::new()?;
    let agent = fixture(
        "claude-code/cc-2.1.7-subagent/e9fb405b-169f-40eb-9396-7e75076f045d/subagents/agent-a485154.jsonl",
    );
    let err = home.import(Source::Claude, &agent).expect_err("refused");
    let msg = err.to_string();
    assert!(
        msg.contains("sub-agent transcript of session e9fb405b-169f-40eb-9396-7e75076f045d"),
        "{msg}"
    );
    assert!(
        msg.contains("e9fb405b-169f-40eb-9396-7e75076f045d.jsonl"),
        "{msg}"
    );
    let flat = fixture("claude-code/cc-2.0.64-flat/-tmp-private/agent-50243ee8.jsonl");
    let err = home.import(Source::Claude, &flat).expect_err("refused");
    assert!(
        err.to_string()
            .contains("4c2ddfdc-b619-4525-8d03-1950fb1b0257"),
        "{err}"
    );
    Ok(())
}

#[test]
fn the_flat_2064_layout_imports_its_warmup_agent_unplaced() -> TestResult {
    let home = Home::new()?;
    let out = home.import(Source::Claude, &fixture(CC_2064))?;
    assert_eq!(out.children.len(), 1);
    assert!(home.store.visible_delegated(&out.id)?.is_empty());
    let records = home.records(&out.id)?;
    assert!(
        import_info(&records)
            .notes
            .iter()
            .any(|n| n.contains("50243ee8"))
    );
    assert!(count(&records, "todos") <= 1);
    Ok(())
}

fn user(
    uuid: &str,
    parent: Option<&str>,
    ts: &str,
    content: serde_json::Value,
) -> serde_json::Value {
    json!({"type": "user", "uuid": uuid, "parentUuid": parent, "sessionId": "s1",
        "cwd": "/tmp", "version": "2.1.7", "timestamp": ts,
        "message": {"role": "user", "content": content}})
}

fn assistant(
    uuid: &str,
    parent: &str,
    ts: &str,
    msg: &str,
    content: serde_json::Value,
) -> serde_json::Value {
    json!({"type": "assistant", "uuid": uuid, "parentUuid": parent, "sessionId": "s1",
        "timestamp": ts, "requestId": format!("req_{msg}"),
        "message": {"id": msg, "model": "claude-x", "role": "assistant", "content": content,
            "stop_reason": null, "usage": {"input_tokens": 10, "output_tokens": 5}}})
}

fn tool_use(id: &str) -> serde_json::Value {
    json!([{"type": "tool_use", "id": id, "name": "Bash", "input": {"command": "ls"}}])
}

fn tool_result(id: &str) -> serde_json::Value {
    json!([{"type": "tool_result", "tool_use_id": id, "content": format!("out {id}")}])
}

#[test]
fn shuffled_sibling_results_are_paired_by_id() -> TestResult {
    let home = Home::new()?;
    let lines = vec![
        user("u1", None, "2026-01-01T00:00:00Z", json!("go")),
        assistant("a1", "u1", "2026-01-01T00:00:01Z", "m1", tool_use("t1")),
        assistant("a2", "a1", "2026-01-01T00:00:01Z", "m1", tool_use("t2")),
        assistant("a3", "a2", "2026-01-01T00:00:01Z", "m1", tool_use("t3")),
        // Results written in another order, each hanging off its own call's chunk.
        user("r3", Some("a3"), "2026-01-01T00:00:02Z", tool_result("t3")),
        user("r1", Some("a1"), "2026-01-01T00:00:02Z", tool_result("t1")),
        user("r2", Some("a2"), "2026-01-01T00:00:02Z", tool_result("t2")),
        assistant(
            "a4",
            "r2",
            "2026-01-01T00:00:03Z",
            "m2",
            json!([{"type": "text", "text": "done"}]),
        ),
    ];
    let path = write_lines(home.dir.path(), "s1.jsonl", &lines)?;
    let out = home.import(Source::Claude, &path)?;
    let records = home.records(&out.id)?;
    assert_eq!(calls(&records), ["t1", "t2", "t3"]);
    assert_eq!(results(&records), ["t1", "t2", "t3"]);
    assert_eq!(count(&records, "revert"), 0, "siblings are not branches");
    assert_eq!(count(&records, "assistant"), 2);
    Ok(())
}

#[test]
fn injected_context_is_skipped_and_counted() -> TestResult {
    let home = Home::new()?;
    let mut meta = user(
        "m0",
        None,
        "2026-01-01T00:00:00Z",
        json!("Caveat: The messages below were generated by the user"),
    );
    meta["isMeta"] = json!(true);
    let lines = vec![
        meta,
        user(
            "c1",
            Some("m0"),
            "2026-01-01T00:00:00Z",
            json!("<command-name>/model</command-name>"),
        ),
        user(
            "u1",
            Some("c1"),
            "2026-01-01T00:00:01Z",
            json!("real prompt"),
        ),
        assistant(
            "a1",
            "u1",
            "2026-01-01T00:00:02Z",
            "m1",
            json!([{"type": "text", "text": "hi"}]),
        ),
    ];
    let path = write_lines(home.dir.path(), "s1.jsonl", &lines)?;
    let out = home.import(Source::Claude, &path)?;
    let records = home.records(&out.id)?;
    assert_eq!(count(&records, "user"), 1);
    let info = import_info(&records);
    assert_eq!(info.skipped.get("user/meta"), Some(&1));
    assert_eq!(info.skipped.get("user/command"), Some(&1));
    assert_eq!(
        out.report.lines.iter().map(|l| l.line).collect::<Vec<_>>(),
        [1, 2]
    );
    Ok(())
}

#[test]
fn a_compaction_boundary_and_summary_become_one_compaction() -> TestResult {
    let home = Home::new()?;
    let mut boundary = json!({"type": "system", "subtype": "compact_boundary", "uuid": "b1",
        "parentUuid": null, "logicalParentUuid": "a1", "sessionId": "s1",
        "timestamp": "2026-01-01T00:01:00Z", "content": "Conversation compacted",
        "compactMetadata": {"trigger": "manual", "preTokens": 12345}});
    boundary["isSidechain"] = json!(false);
    let mut summary = user(
        "sum",
        Some("b1"),
        "2026-01-01T00:01:01Z",
        json!("This session is being continued from a previous conversation. Summary: we said hi."),
    );
    summary["isCompactSummary"] = json!(true);
    let lines = vec![
        user("u1", None, "2026-01-01T00:00:00Z", json!("hello")),
        assistant(
            "a1",
            "u1",
            "2026-01-01T00:00:01Z",
            "m1",
            json!([{"type": "text", "text": "hi"}]),
        ),
        boundary,
        summary,
        user("u2", Some("sum"), "2026-01-01T00:02:00Z", json!("next")),
        assistant(
            "a2",
            "u2",
            "2026-01-01T00:02:01Z",
            "m2",
            json!([{"type": "text", "text": "ok"}]),
        ),
    ];
    let path = write_lines(home.dir.path(), "s1.jsonl", &lines)?;
    let out = home.import(Source::Claude, &path)?;
    let records = home.records(&out.id)?;
    assert_eq!(count(&records, "compaction"), 1);
    assert_eq!(
        count(&records, "user"),
        2,
        "the summary is not a user message"
    );
    assert_eq!(count(&records, "revert"), 0);
    let Some(Body::Compaction { until, summary }) = records
        .iter()
        .map(|r| &r.body)
        .find(|b| matches!(b, Body::Compaction { .. }))
    else {
        panic!("no compaction");
    };
    assert_eq!(*until, 4, "covers through the reply before the boundary");
    assert!(summary.contains("we said hi"));
    let raw = home.raw(&out.id)?;
    assert!(raw.iter().any(|l| l["src"]["pre_tokens"] == 12345));
    Ok(())
}

#[test]
fn an_edited_prompt_is_a_revert_with_the_newer_branch_visible() -> TestResult {
    let home = Home::new()?;
    let lines = vec![
        user("u1", None, "2026-01-01T00:00:00Z", json!("first")),
        assistant(
            "a1",
            "u1",
            "2026-01-01T00:00:01Z",
            "m1",
            json!([{"type": "text", "text": "one"}]),
        ),
        user(
            "u2",
            Some("a1"),
            "2026-01-01T00:00:02Z",
            json!("old question"),
        ),
        assistant(
            "a2",
            "u2",
            "2026-01-01T00:00:03Z",
            "m2",
            json!([{"type": "text", "text": "old answer"}]),
        ),
        // Edited: the same parent as the old question, typed later.
        user(
            "u3",
            Some("a1"),
            "2026-01-01T00:05:00Z",
            json!("new question"),
        ),
        assistant(
            "a3",
            "u3",
            "2026-01-01T00:05:01Z",
            "m3",
            json!([{"type": "text", "text": "new answer"}]),
        ),
    ];
    let path = write_lines(home.dir.path(), "s1.jsonl", &lines)?;
    let out = home.import(Source::Claude, &path)?;
    let records = home.records(&out.id)?;
    assert_eq!(count(&records, "revert"), 1);
    let texts: Vec<String> = hotl_log::visible_branch(&records)
        .into_iter()
        .filter_map(|i| match &records[i].body {
            Body::User { content } | Body::Assistant { content, .. } => {
                Some(hotl_log::plain_text(content))
            }
            _ => None,
        })
        .collect();
    assert_eq!(texts, ["first", "one", "new question", "new answer"]);
    // The older branch stays in the log.
    assert!(records.iter().any(|r| matches!(&r.body, Body::User { content } if hotl_log::plain_text(content) == "old question")));
    Ok(())
}

#[test]
fn a_missing_file_is_a_read_error() -> TestResult {
    let home = Home::new()?;
    let err = home
        .import(Source::Claude, &home.dir.path().join("nope.jsonl"))
        .expect_err("missing");
    assert!(matches!(
        err.downcast_ref::<ImportError>(),
        Some(ImportError::Read { .. })
    ));
    Ok(())
}
