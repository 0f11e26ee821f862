//! Non-streaming JSON answers of each dialect, count_tokens, models and unknown routes.

use hotl_fakellm::{Reply, Stop};
use serde_json::{Value, json};

use crate::common::{
    TestResult, anthropic_user, chat_user, client, post, post_json, responses_user, scripted,
};

fn tool_reply() -> Reply {
    Reply::text("Reading.")
        .with_tool("read", json!({"path": "a.rs"}))
        .with_thinking("plan")
}

#[tokio::test]
async fn anthropic_message() -> TestResult {
    let fake = scripted([tool_reply()]).await;
    let (status, m) = post_json(&fake, "/v1/messages", &anthropic_user("hi", false)).await?;
    assert_eq!(status, 200);
    assert_eq!(m["type"], "message");
    assert_eq!(m["role"], "assistant");
    assert_eq!(m["model"], "claude-sonnet-5");
    assert_eq!(m["stop_reason"], "tool_use");
    let kinds: Vec<&str> = m["content"]
        .as_array()
        .ok_or("content")?
        .iter()
        .filter_map(|b| b["type"].as_str())
        .collect();
    assert_eq!(kinds, ["thinking", "text", "tool_use"]);
    assert_eq!(m["content"][2]["input"], json!({"path": "a.rs"}));
    assert!(
        m["content"][0]["signature"]
            .as_str()
            .is_some_and(|s| !s.is_empty())
    );
    assert_eq!(m["usage"]["cache_creation"]["ephemeral_5m_input_tokens"], 0);
    assert_eq!(m["usage"]["service_tier"], "standard");
    Ok(())
}

#[tokio::test]
async fn chat_completion() -> TestResult {
    let fake = scripted([tool_reply()]).await;
    let (status, c) = post_json(&fake, "/v1/chat/completions", &chat_user("hi", false)).await?;
    assert_eq!(status, 200);
    assert_eq!(c["object"], "chat.completion");
    let choice = &c["choices"][0];
    assert_eq!(choice["finish_reason"], "tool_calls");
    assert_eq!(choice["message"]["content"], "Reading.");
    assert_eq!(
        choice["message"]["tool_calls"][0]["function"]["arguments"],
        r#"{"path":"a.rs"}"#
    );
    assert!(c["usage"]["prompt_tokens_details"]["cached_tokens"].is_u64());
    Ok(())
}

#[tokio::test]
async fn responses_object() -> TestResult {
    let fake = scripted([tool_reply()]).await;
    let (status, r) = post_json(&fake, "/v1/responses", &responses_user("hi", false)).await?;
    assert_eq!(status, 200);
    assert_eq!(r["object"], "response");
    assert_eq!(r["status"], "completed");
    let kinds: Vec<&str> = r["output"]
        .as_array()
        .ok_or("output")?
        .iter()
        .filter_map(|i| i["type"].as_str())
        .collect();
    assert_eq!(kinds, ["reasoning", "message", "function_call"]);
    assert!(r["usage"]["input_tokens_details"]["cached_tokens"].is_u64());
    Ok(())
}

#[tokio::test]
async fn stop_reasons_map_per_dialect() -> TestResult {
    let fake = scripted([
        Reply::text("no").with_stop(Stop::Refusal),
        Reply::text("no").with_stop(Stop::Refusal),
        Reply::default()
            .with_tool("bash", json!({"command": "ls -la"}))
            .with_stop(Stop::MaxTokens),
    ])
    .await;
    let (_, m) = post_json(&fake, "/v1/messages", &anthropic_user("x", false)).await?;
    assert_eq!(m["stop_reason"], "refusal");
    let (_, c) = post_json(&fake, "/v1/chat/completions", &chat_user("x", false)).await?;
    assert_eq!(c["choices"][0]["finish_reason"], "content_filter");
    let (_, c) = post_json(&fake, "/v1/chat/completions", &chat_user("x", false)).await?;
    assert_eq!(c["choices"][0]["finish_reason"], "length");
    assert_eq!(
        c["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"],
        r#"{"command""#
    );
    Ok(())
}

#[tokio::test]
async fn prewarm_with_max_tokens_zero_answers_nothing_and_keeps_the_script() -> TestResult {
    let fake = scripted([Reply::text("kept")]).await;
    let mut body = anthropic_user("warm the cache", false);
    body["max_tokens"] = json!(0);
    let (_, m) = post_json(&fake, "/v1/messages", &body).await?;
    assert_eq!(m["content"], json!([]));
    assert_eq!(m["stop_reason"], "max_tokens");
    assert_eq!(fake.remaining(), 1);
    Ok(())
}

#[tokio::test]
async fn count_tokens_models_and_unknown_routes() -> TestResult {
    let fake = scripted([]).await;
    let body = json!({"model": "claude-sonnet-5", "system": "12345678", "messages": [{"role": "user", "content": "abcd"}]});
    let (status, n) = post_json(&fake, "/v1/messages/count_tokens", &body).await?;
    assert_eq!((status, n), (200, json!({"input_tokens": 3})));
    let url = format!("{}/v1/models", fake.base_url());
    let openai: Value = client()
        .get(&url)
        .bearer_auth("k")
        .send()
        .await?
        .json()
        .await?;
    assert_eq!(openai["object"], "list");
    assert_eq!(openai["data"][0]["object"], "model");
    let anthropic: Value = client()
        .get(&url)
        .header("x-api-key", "k")
        .header("anthropic-version", "2023-06-01")
        .send()
        .await?
        .json()
        .await?;
    assert_eq!(anthropic["data"][0]["type"], "model");
    assert_eq!(anthropic["has_more"], false);
    let resp = post(&fake, "/v1/completions", &json!({})).await?;
    assert_eq!(resp.status(), 404);
    let err: Value = resp.json().await?;
    assert_eq!(err["error"]["code"], "unknown_url");
    Ok(())
}
