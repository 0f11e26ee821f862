//! Anthropic Messages streaming grammar: text, parallel tool use, thinking.

use hotl_fakellm::Reply;
use serde_json::{Value, json};

use crate::common::{Sse, TestResult, anthropic, anthropic_user, names, parse_sse, post, scripted};

#[tokio::test]
async fn text_stream_has_the_exact_grammar() -> TestResult {
    let fake = scripted([Reply::text("Hello there, wörld!")]).await;
    let resp = post(&fake, "/v1/messages", &anthropic_user("hi", true)).await?;
    assert_eq!(resp.status(), 200);
    let ct = resp.headers()["content-type"].to_str()?.to_string();
    assert!(ct.starts_with("text/event-stream"), "{ct}");
    assert!(resp.headers()["request-id"].to_str()?.starts_with("req_"));
    let text = resp.text().await?;
    assert!(text.starts_with(
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_01"
    ));
    assert!(text.contains("\n\nevent: ping\ndata: {\"type\": \"ping\"}\n\n"));
    assert!(text.ends_with("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"));
    assert!(!text.contains("[DONE]"));
    let events = parse_sse(&text);
    assert_eq!(
        names(&events),
        [
            "message_start",
            "content_block_start",
            "ping",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop"
        ]
    );
    for e in &events {
        assert_eq!(
            e.json()["type"].as_str(),
            e.event.as_deref(),
            "type = event name"
        );
    }
    assert_eq!(
        events[1].data,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#
    );
    let joined: String = events
        .iter()
        .filter(|e| e.event.as_deref() == Some("content_block_delta"))
        .map(|e| {
            e.json()["delta"]["text"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    assert_eq!(joined, "Hello there, wörld!");
    let start = events[0].json();
    assert_eq!(start["message"]["stop_reason"], Value::Null);
    assert_eq!(start["message"]["usage"]["output_tokens"], 1);
    assert_eq!(start["message"]["usage"]["input_tokens"], 1); // "hi" = ceil(2/4)
    assert_eq!(
        start["message"]["usage"]["cache_creation"],
        json!({"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0})
    );
    let delta = events[6].json();
    assert_eq!(
        delta["delta"],
        json!({"stop_reason": "end_turn", "stop_sequence": null})
    );
    assert_eq!(
        delta["usage"],
        json!({"input_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 5})
    );
    Ok(())
}

#[tokio::test]
async fn parallel_tool_uses_have_indices_and_a_leading_empty_fragment() -> TestResult {
    let reply = Reply::text("Checking both.")
        .with_tool("bash", json!({"command": "ls -la"}))
        .with_tool("read", json!({"path": "src/lib.rs"}));
    let fake = scripted([reply]).await;
    let text = post(&fake, "/v1/messages", &anthropic_user("go", true))
        .await?
        .text()
        .await?;
    let events = parse_sse(&text);
    let starts: Vec<Value> = events
        .iter()
        .filter(|e| e.event.as_deref() == Some("content_block_start"))
        .map(Sse::json)
        .collect();
    assert_eq!(starts.len(), 3);
    for (i, s) in starts.iter().enumerate() {
        assert_eq!(s["index"], i);
    }
    assert_eq!(starts[1]["content_block"]["type"], "tool_use");
    assert_eq!(starts[1]["content_block"]["input"], json!({}));
    assert!(
        starts[1]["content_block"]["id"]
            .as_str()
            .unwrap_or_default()
            .starts_with("toolu_")
    );
    assert_ne!(
        starts[1]["content_block"]["id"],
        starts[2]["content_block"]["id"]
    );
    for (index, expected) in [
        (1, json!({"command": "ls -la"})),
        (2, json!({"path": "src/lib.rs"})),
    ] {
        let fragments: Vec<String> = events
            .iter()
            .map(Sse::json)
            .filter(|j| j["type"] == "content_block_delta" && j["index"] == index)
            .map(|j| {
                j["delta"]["partial_json"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string()
            })
            .collect();
        assert_eq!(fragments[0], "", "the first input_json_delta is empty");
        assert!(fragments.len() > 2);
        let input: Value = serde_json::from_str(&fragments.concat())?;
        assert_eq!(input, expected);
    }
    let delta = events
        .iter()
        .find(|e| e.event.as_deref() == Some("message_delta"))
        .map(Sse::json);
    assert_eq!(
        delta.unwrap_or_default()["delta"]["stop_reason"],
        "tool_use"
    );
    Ok(())
}

#[tokio::test]
async fn thinking_streams_deltas_then_one_signature_and_replays_verbatim() -> TestResult {
    let fake = scripted([
        Reply::text("It is 12231.").with_thinking("27 * 453 = 12231, let me double-check."),
        Reply::text("ok"),
        Reply::text("never served"),
    ])
    .await;
    let text = post(&fake, "/v1/messages", &anthropic_user("27 * 453?", true))
        .await?
        .text()
        .await?;
    let events = parse_sse(&text);
    let block0: Vec<Value> = events
        .iter()
        .map(Sse::json)
        .filter(|j| j["index"] == 0)
        .collect();
    assert_eq!(
        block0[0]["content_block"],
        json!({"type": "thinking", "thinking": "", "signature": ""})
    );
    let deltas: Vec<&Value> = block0
        .iter()
        .filter(|j| j["type"] == "content_block_delta")
        .collect();
    let last = deltas.last().copied().cloned().unwrap_or_default();
    assert_eq!(last["delta"]["type"], "signature_delta");
    assert_eq!(
        block0.last().cloned().unwrap_or_default()["type"],
        "content_block_stop"
    );
    let thinking: String = deltas
        .iter()
        .filter(|d| d["delta"]["type"] == "thinking_delta")
        .map(|d| d["delta"]["thinking"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(thinking, "27 * 453 = 12231, let me double-check.");
    let signature = last["delta"]["signature"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let delta = events
        .iter()
        .find(|e| e.event.as_deref() == Some("message_delta"))
        .map(Sse::json);
    assert!(
        delta.unwrap_or_default()["usage"]["output_tokens_details"]["thinking_tokens"].as_u64()
            > Some(0)
    );

    let turn = |thinking: &str| {
        anthropic(
            json!([
                {"role": "user", "content": "27 * 453?"},
                {"role": "assistant", "content": [
                    {"type": "thinking", "thinking": thinking, "signature": signature},
                    {"type": "text", "text": "It is 12231."}
                ]},
                {"role": "user", "content": "thanks"}
            ]),
            false,
        )
    };
    let ok = post(
        &fake,
        "/v1/messages",
        &turn("27 * 453 = 12231, let me double-check."),
    )
    .await?;
    assert_eq!(ok.status(), 200);
    let bad = post(
        &fake,
        "/v1/messages",
        &turn("27 * 453 = 12232, let me double-check."),
    )
    .await?;
    assert_eq!(bad.status(), 400);
    let body: Value = bad.json().await?;
    assert_eq!(
        body["error"]["message"],
        "messages.1.content.0: Invalid `signature` in `thinking` block"
    );
    assert_eq!(fake.remaining(), 1, "a refused request consumes no reply");
    Ok(())
}
