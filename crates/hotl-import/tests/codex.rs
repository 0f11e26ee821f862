//! Codex rollouts: the 0.125 fixture (grouping by model call, usage, injected context),
//! rollbacks, compaction, legacy files and `.zst`.

use hotl_import::Source;
use hotl_log::{Body, Usage};
use serde_json::json;

use crate::common::*;

#[test]
fn one_assistant_record_per_model_call_with_cached_input_subtracted() -> TestResult {
    let home = Home::new()?;
    let out = home.import(Source::Codex, &fixture(CODEX))?;
    let records = home.records(&out.id)?;
    let raw = std::fs::read_to_string(fixture(CODEX))?;
    let model_calls = raw
        .lines()
        .filter(|l| l.contains("\"type\":\"token_count\"") && !l.contains("\"info\":null"))
        .count();
    let function_calls = raw
        .lines()
        .filter(|l| l.contains("\"type\":\"function_call\""))
        .count();
    assert_eq!(function_calls, 99);
    assert_eq!(count(&records, "assistant"), model_calls);
    let tool_uses = calls(&records);
    assert!(tool_uses.len() >= 99);
    assert_eq!(tool_uses, results(&records));
    assert_answered(&records);
    let usages: Vec<Usage> = records
        .iter()
        .filter_map(|r| match &r.body {
            Body::Assistant { usage, .. } => *usage,
            _ => None,
        })
        .collect();
    assert_eq!(
        usages[1],
        Usage {
            input: 607,
            cache_read: 18304,
            output: 37,
            ..Usage::default()
        }
    );
    let info = import_info(&records);
    assert_eq!(info.source, "codex");
    assert_eq!(info.source_version.as_deref(), Some("0.125.0"));
    assert_eq!(
        info.source_id.as_deref(),
        Some("019e1625-789d-76c0-80ab-3724b5ddb799")
    );
    Ok(())
}

#[test]
fn injected_context_is_not_a_user_message() -> TestResult {
    let home = Home::new()?;
    let out = home.import(Source::Codex, &fixture(CODEX))?;
    let records = home.records(&out.id)?;
    let users: Vec<String> = records
        .iter()
        .filter_map(|r| match &r.body {
            Body::User { content } => Some(hotl_log::plain_text(content)),
            _ => None,
        })
        .collect();
    assert_eq!(users.len(), 2, "{users:?}");
    assert_eq!(users[0], "show tools");
    let info = import_info(&records);
    assert_eq!(info.skipped.get("message/developer"), Some(&1));
    assert_eq!(info.skipped.get("message/injected"), Some(&1));
    Ok(())
}

fn line(ts: &str, kind: &str, payload: serde_json::Value) -> serde_json::Value {
    json!({"timestamp": ts, "type": kind, "payload": payload})
}

fn meta() -> serde_json::Value {
    line(
        "2026-05-11T08:00:00.000Z",
        "session_meta",
        json!({"id": "thread-1", "cwd": "/tmp", "cli_version": "0.130.0"}),
    )
}

fn prompt(ts: &str, text: &str) -> Vec<serde_json::Value> {
    vec![
        line(
            ts,
            "response_item",
            json!({"type": "message", "role": "user",
            "content": [{"type": "input_text", "text": text}]}),
        ),
        line(
            ts,
            "event_msg",
            json!({"type": "user_message", "message": text}),
        ),
    ]
}

fn answer(ts: &str, text: &str) -> serde_json::Value {
    line(
        ts,
        "response_item",
        json!({"type": "message", "role": "assistant",
        "content": [{"type": "output_text", "text": text}]}),
    )
}

#[test]
fn a_rollback_is_a_revert_keeping_the_dropped_turns() -> TestResult {
    let home = Home::new()?;
    let mut lines = vec![meta()];
    lines.extend(prompt("2026-05-11T08:00:01Z", "one"));
    lines.push(answer("2026-05-11T08:00:02Z", "a1"));
    lines.extend(prompt("2026-05-11T08:00:03Z", "two"));
    lines.push(answer("2026-05-11T08:00:04Z", "a2"));
    lines.push(line(
        "2026-05-11T08:00:05Z",
        "event_msg",
        json!({"type": "thread_rolled_back", "num_turns": 1}),
    ));
    lines.extend(prompt("2026-05-11T08:00:06Z", "three"));
    lines.push(answer("2026-05-11T08:00:07Z", "a3"));
    lines.push(line(
        "2026-05-11T08:00:08Z",
        "compacted",
        json!({"message": "we did one and three"}),
    ));
    lines.push(line(
        "2026-05-11T08:00:09Z",
        "event_msg",
        json!({"type": "thread_name_updated", "thread_name": "Numbers"}),
    ));
    let path = write_lines(
        home.dir.path(),
        "rollout-2026-05-11T08-00-00-thread-1.jsonl",
        &lines,
    )?;
    let out = home.import(Source::Codex, &path)?;
    let records = home.records(&out.id)?;
    assert_eq!(count(&records, "revert"), 1);
    assert_eq!(count(&records, "compaction"), 1);
    let texts: Vec<String> = hotl_log::visible_branch(&records)
        .into_iter()
        .filter_map(|i| match &records[i].body {
            Body::User { content } | Body::Assistant { content, .. } => {
                Some(hotl_log::plain_text(content))
            }
            _ => None,
        })
        .collect();
    assert_eq!(texts, ["one", "a1", "three", "a3"]);
    assert!(
        records
            .iter()
            .any(|r| matches!(&r.body, Body::Title { title, .. } if title == "Numbers"))
    );
    Ok(())
}

#[test]
fn a_zst_rollout_reads_like_the_plain_one() -> TestResult {
    let home = Home::new()?;
    let plain = std::fs::read(fixture(CODEX))?;
    let packed = ruzstd_compress(&plain);
    let zst = home
        .dir
        .path()
        .join("rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl.zst");
    std::fs::write(&zst, packed)?;
    let a = home.import(Source::Codex, &fixture(CODEX))?;
    let b = home.import(Source::Codex, &zst)?;
    let (ra, rb) = (home.records(&a.id)?, home.records(&b.id)?);
    assert_eq!(ra.len(), rb.len());
    assert_eq!(import_info(&ra).blake3, import_info(&rb).blake3);
    Ok(())
}

fn ruzstd_compress(bytes: &[u8]) -> Vec<u8> {
    hotl_import_test_zstd::compress(bytes)
}

mod hotl_import_test_zstd {
    /// A pure-Rust zstd frame of `bytes`.
    pub fn compress(bytes: &[u8]) -> Vec<u8> {
        ruzstd::encoding::compress_to_vec(bytes, ruzstd::encoding::CompressionLevel::Fastest)
    }
}

#[test]
fn a_legacy_rollout_without_envelopes_imports() -> TestResult {
    let home = Home::new()?;
    let lines = vec![
        json!({"id": "legacy-1", "timestamp": "2025-08-01T10:00:00.000Z", "instructions": "x", "cwd": "/tmp"}),
        json!({"record_type": "state"}),
        json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "<environment_context>x</environment_context>"}]}),
        json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hello"}]}),
        json!({"type": "function_call", "name": "shell", "arguments": "{\"command\":[\"ls\"]}", "call_id": "c1"}),
        json!({"type": "function_call_output", "call_id": "c1", "output": "a\nb"}),
        json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "two files"}]}),
    ];
    let path = write_lines(home.dir.path(), "rollout-legacy.jsonl", &lines)?;
    let out = home.import(Source::Codex, &path)?;
    let records = home.records(&out.id)?;
    assert_eq!(count(&records, "user"), 1);
    assert_eq!(calls(&records), ["c1"]);
    assert_eq!(results(&records), ["c1"]);
    assert_eq!(count(&records, "assistant"), 2);
    assert_eq!(import_info(&records).source_id.as_deref(), Some("legacy-1"));
    Ok(())
}

#[test]
fn a_spawned_subagent_rollout_alone_is_refused() -> TestResult {
    let home = Home::new()?;
    let lines = vec![line(
        "2026-05-11T08:00:00.000Z",
        "session_meta",
        json!({"id": "child", "cwd": "/tmp", "source": {"subagent": {"thread_spawn": {"parent_thread_id": "thread-9", "depth": 1}}}}),
    )];
    let path = write_lines(home.dir.path(), "rollout-x.jsonl", &lines)?;
    let err = home.import(Source::Codex, &path).expect_err("refused");
    assert!(
        err.to_string()
            .contains("sub-agent transcript of session thread-9"),
        "{err}"
    );
    Ok(())
}
