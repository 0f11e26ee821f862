//! The offline demo model over HTTP: reads mentioned files, runs commands, summarises
//! tool output; deterministic.

use hotl_fakellm::{Config, FakeLlm};
use serde_json::{Value, json};

use crate::common::{TestResult, post_json};

fn tools() -> Value {
    json!([
        {"name": "read", "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}},
        {"name": "bash", "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}}
    ])
}

#[tokio::test]
async fn demo_reads_runs_and_summarises() -> TestResult {
    let fake = FakeLlm::spawn(Config::default()).await;
    let ask = |messages: Value| json!({"model": "claude-sonnet-5", "max_tokens": 200, "tools": tools(), "messages": messages});
    let (_, m) = post_json(
        &fake,
        "/v1/messages",
        &ask(json!([{"role": "user", "content": "What is in Cargo.toml?"}])),
    )
    .await?;
    assert_eq!(m["stop_reason"], "tool_use");
    assert_eq!(m["content"][1]["name"], "read");
    assert_eq!(m["content"][1]["input"], json!({"path": "Cargo.toml"}));
    let (_, again) = post_json(
        &fake,
        "/v1/messages",
        &ask(json!([{"role": "user", "content": "What is in Cargo.toml?"}])),
    )
    .await?;
    assert_eq!(again["content"][0], m["content"][0], "deterministic");
    let (_, m) = post_json(
        &fake,
        "/v1/messages",
        &ask(json!([{"role": "user", "content": "please run `cargo test`"}])),
    )
    .await?;
    assert_eq!(m["content"][1]["input"], json!({"command": "cargo test"}));
    let id = m["content"][1]["id"].clone();
    let (_, m) = post_json(&fake, "/v1/messages", &ask(json!([
        {"role": "user", "content": "please run `cargo test`"},
        {"role": "assistant", "content": m["content"]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": "test result: ok\n3 passed"}]}
    ]))).await?;
    assert_eq!(m["stop_reason"], "end_turn");
    assert!(
        m["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .contains("2 lines")
    );
    let (_, c) = post_json(
        &fake,
        "/v1/chat/completions",
        &json!({"model": "gpt-5.1", "messages": [{"role": "user", "content": "hello"}]}),
    )
    .await?;
    assert!(
        c["choices"][0]["message"]["content"]
            .as_str()
            .unwrap_or_default()
            .contains("demo model")
    );
    Ok(())
}
