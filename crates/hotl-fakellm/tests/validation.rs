//! Validation like the real services, with their error bodies.

use hotl_fakellm::Reply;
use serde_json::{Value, json};

use crate::common::{TestResult, anthropic, post, post_raw, scripted};

async fn anthropic_error(body: &Value) -> Result<String, Box<dyn std::error::Error>> {
    let fake = scripted([Reply::text("unused")]).await;
    let resp = post(&fake, "/v1/messages", body).await?;
    assert_eq!(resp.status(), 400);
    let rid = resp.headers()["request-id"].to_str()?.to_string();
    let err: Value = resp.json().await?;
    assert_eq!(err["type"], "error");
    assert_eq!(err["error"]["type"], "invalid_request_error");
    assert_eq!(err["request_id"], rid.as_str());
    assert_eq!(err.as_object().map(|o| o.len()), Some(3));
    assert_eq!(fake.remaining(), 1, "a refused request consumes no reply");
    Ok(err["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_string())
}

async fn openai_error(path: &str, body: &Value) -> Result<Value, Box<dyn std::error::Error>> {
    let fake = scripted([Reply::text("unused")]).await;
    let resp = post(&fake, path, body).await?;
    assert_eq!(resp.status(), 400);
    let err: Value = resp.json().await?;
    let inner = err["error"].as_object().ok_or("error object")?;
    let mut keys: Vec<&String> = inner.keys().collect();
    keys.sort();
    assert_eq!(keys, ["code", "message", "param", "type"]);
    assert_eq!(err["error"]["type"], "invalid_request_error");
    Ok(err["error"].clone())
}

fn cached(text: &str, ttl: Option<&str>) -> Value {
    let mut cc = json!({"type": "ephemeral"});
    if let Some(t) = ttl {
        cc["ttl"] = json!(t);
    }
    json!({"type": "text", "text": text, "cache_control": cc})
}

#[tokio::test]
async fn anthropic_more_than_four_breakpoints() -> TestResult {
    let blocks: Vec<Value> = (0..5)
        .map(|i| cached(&format!("block {i}"), None))
        .collect();
    let body = anthropic(json!([{"role": "user", "content": blocks}]), false);
    assert_eq!(
        anthropic_error(&body).await?,
        "A maximum of 4 blocks with cache_control may be provided. Found 5."
    );
    // The automatic (top-level) marker takes a slot too.
    let blocks: Vec<Value> = (0..4)
        .map(|i| cached(&format!("block {i}"), None))
        .collect();
    let mut body = anthropic(
        json!([{"role": "user", "content": blocks}, {"role": "assistant", "content": "a"}, {"role": "user", "content": [{"type": "text", "text": "last"}]}]),
        false,
    );
    body["cache_control"] = json!({"type": "ephemeral"});
    assert_eq!(
        anthropic_error(&body).await?,
        "A maximum of 4 blocks with cache_control may be provided. Found 5."
    );
    Ok(())
}

#[tokio::test]
async fn anthropic_one_hour_after_five_minutes() -> TestResult {
    let mut body = anthropic(
        json!([{"role": "user", "content": [cached("b", Some("1h"))]}]),
        false,
    );
    body["system"] = json!([cached("a", None)]);
    assert_eq!(
        anthropic_error(&body).await?,
        "messages.0.content.0.cache_control.ttl: a ttl='1h' cache_control block must not come \
         after a ttl='5m' cache_control block. Note that blocks are processed in the following \
         order: `tools`, `system`, `messages`."
    );
    Ok(())
}

#[tokio::test]
async fn anthropic_tool_pairing_and_emptiness() -> TestResult {
    let orphan = anthropic(
        json!([{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_x", "content": "out"}]}]),
        false,
    );
    assert_eq!(
        anthropic_error(&orphan).await?,
        "messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_x. \
         Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
    );
    let unanswered = anthropic(
        json!([
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_a", "name": "bash", "input": {}}]},
            {"role": "user", "content": "never mind"}
        ]),
        false,
    );
    assert_eq!(
        anthropic_error(&unanswered).await?,
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: \
         toolu_a. Each `tool_use` block must have a corresponding `tool_result` block in the next message."
    );
    let text_first = anthropic(
        json!([
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_a", "name": "bash", "input": {}}]},
            {"role": "user", "content": [{"type": "text", "text": "here"}, {"type": "tool_result", "tool_use_id": "toolu_a", "content": "x"}]}
        ]),
        false,
    );
    assert!(
        anthropic_error(&text_first)
            .await?
            .contains("`tool_result` blocks must come first")
    );
    let empty = anthropic(json!([]), false);
    assert_eq!(
        anthropic_error(&empty).await?,
        "messages: at least one message is required"
    );
    let mut no_max = anthropic(json!([{"role": "user", "content": "x"}]), false);
    no_max.as_object_mut().ok_or("obj")?.remove("max_tokens");
    assert_eq!(
        anthropic_error(&no_max).await?,
        "max_tokens: Field required"
    );
    let thinking_cached = anthropic(
        json!([
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "t", "signature": "s", "cache_control": {"type": "ephemeral"}}]},
            {"role": "user", "content": "q2"}
        ]),
        false,
    );
    assert!(
        anthropic_error(&thinking_cached)
            .await?
            .starts_with("messages.1.content.0")
    );
    Ok(())
}

#[tokio::test]
async fn anthropic_invalid_json() -> TestResult {
    let fake = scripted([]).await;
    let resp = post_raw(&fake, "/v1/messages", b"{not json".to_vec()).await?;
    assert_eq!(resp.status(), 400);
    let err: Value = resp.json().await?;
    assert_eq!(err["error"]["type"], "invalid_request_error");
    Ok(())
}

#[tokio::test]
async fn chat_rules() -> TestResult {
    let err = openai_error(
        "/v1/chat/completions",
        &json!({"model": "gpt-5.1", "messages": []}),
    )
    .await?;
    assert_eq!(
        (err["param"].as_str(), err["code"].as_str()),
        (Some("messages"), Some("empty_array"))
    );
    assert!(
        err["message"]
            .as_str()
            .unwrap_or_default()
            .starts_with("Invalid 'messages': empty array.")
    );
    let unanswered = json!({"model": "gpt-5.1", "messages": [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_a", "type": "function", "function": {"name": "bash", "arguments": "{}"}},
            {"id": "call_b", "type": "function", "function": {"name": "bash", "arguments": "{}"}}
        ]},
        {"role": "tool", "tool_call_id": "call_a", "content": "ok"},
        {"role": "user", "content": "next"}
    ]});
    let err = openai_error("/v1/chat/completions", &unanswered).await?;
    assert_eq!(
        err["message"],
        "An assistant message with 'tool_calls' must be followed by tool messages responding to \
         each 'tool_call_id'. The following tool_call_ids did not have response messages: call_b"
    );
    assert_eq!(err["code"], Value::Null);
    let orphan = json!({"model": "gpt-5.1", "messages": [
        {"role": "user", "content": "go"},
        {"role": "tool", "tool_call_id": "call_z", "content": "ok"}
    ]});
    let err = openai_error("/v1/chat/completions", &orphan).await?;
    assert_eq!(err["param"], "messages.[1].role");
    Ok(())
}

#[tokio::test]
async fn responses_rules() -> TestResult {
    let orphan = json!({"model": "gpt-5.1", "input": [
        {"role": "user", "content": "go"},
        {"type": "function_call_output", "call_id": "call_q", "output": "ok"}
    ]});
    let err = openai_error("/v1/responses", &orphan).await?;
    assert_eq!(
        err["message"],
        "No tool call found for function call output with call_id call_q."
    );
    assert_eq!(err["param"], "input");
    let unanswered = json!({"model": "gpt-5.1", "input": [
        {"role": "user", "content": "go"},
        {"type": "function_call", "call_id": "call_r", "name": "bash", "arguments": "{}"}
    ]});
    let err = openai_error("/v1/responses", &unanswered).await?;
    assert_eq!(
        err["message"],
        "No tool output found for function call call_r."
    );
    let err = openai_error("/v1/responses", &json!({"model": "gpt-5.1", "input": []})).await?;
    assert_eq!(err["code"], "empty_array");
    Ok(())
}

#[tokio::test]
async fn anthropic_system_entries_depend_on_the_model() -> TestResult {
    let fake = scripted([Reply::text("ok")]).await;
    let mut body = anthropic(
        json!([
            {"role": "user", "content": "hi"},
            {"role": "system", "content": "Context: the build is green."}
        ]),
        false,
    );
    let resp = post(&fake, "/v1/messages", &body).await?;
    assert_eq!(resp.status(), 400, "claude-sonnet-5 refuses system entries");
    body["model"] = json!("claude-opus-4-8");
    let resp = post(&fake, "/v1/messages", &body).await?;
    assert_eq!(resp.status(), 200);
    Ok(())
}
