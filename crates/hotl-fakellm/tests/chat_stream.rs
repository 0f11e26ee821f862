//! Chat Completions streaming grammar: text, include_usage, parallel tool calls, reasoning.

use hotl_fakellm::Reply;
use serde_json::{Value, json};

use crate::common::{TestResult, chat_user, parse_sse, post, scripted};

fn chunks(text: &str) -> Vec<Value> {
    parse_sse(text)
        .iter()
        .filter(|e| e.data != "[DONE]")
        .map(|e| e.json())
        .collect()
}

#[tokio::test]
async fn text_stream_ends_with_finish_chunk_and_done() -> TestResult {
    let fake = scripted([Reply::text("Hello from the fake model.")]).await;
    let resp = post(&fake, "/v1/chat/completions", &chat_user("hi", true)).await?;
    assert!(resp.headers()["x-request-id"].to_str()?.starts_with("req_"));
    let text = resp.text().await?;
    assert!(text.starts_with("data: {\"id\":\"chatcmpl-"));
    assert!(text.ends_with("\n\ndata: [DONE]\n\n"));
    assert!(!text.contains("event:"), "chat chunks carry no event names");
    let chunks = chunks(&text);
    let first = &chunks[0]["choices"][0];
    assert_eq!(
        first["delta"],
        json!({"role": "assistant", "content": "", "refusal": null})
    );
    assert_eq!(first["finish_reason"], Value::Null);
    let id = chunks[0]["id"].clone();
    assert!(
        chunks
            .iter()
            .all(|c| c["id"] == id && c["object"] == "chat.completion.chunk")
    );
    assert!(
        chunks.iter().all(|c| c.get("usage").is_none()),
        "no usage key without include_usage"
    );
    let content: String = chunks
        .iter()
        .filter_map(|c| {
            c["choices"][0]["delta"]["content"]
                .as_str()
                .map(str::to_string)
        })
        .collect();
    assert_eq!(content, "Hello from the fake model.");
    let last = chunks.last().cloned().unwrap_or_default();
    assert_eq!(last["choices"][0]["delta"], json!({}));
    assert_eq!(last["choices"][0]["finish_reason"], "stop");
    Ok(())
}

#[tokio::test]
async fn include_usage_adds_a_final_chunk_with_empty_choices() -> TestResult {
    let fake = scripted([Reply::text("abcdefgh")]).await;
    let mut body = chat_user("12345678", true);
    body["stream_options"] = json!({"include_usage": true});
    let text = post(&fake, "/v1/chat/completions", &body)
        .await?
        .text()
        .await?;
    let chunks = chunks(&text);
    let (usage_chunk, rest) = chunks.split_last().ok_or("no chunks")?;
    assert!(
        rest.iter()
            .all(|c| c["usage"] == Value::Null && c.get("usage").is_some())
    );
    assert_eq!(usage_chunk["choices"], json!([]));
    let u = &usage_chunk["usage"];
    assert_eq!(u["completion_tokens"], 2);
    assert_eq!(u["prompt_tokens_details"]["cached_tokens"], 0);
    assert_eq!(
        u["total_tokens"],
        u["prompt_tokens"].as_u64().unwrap_or(0) + 2
    );
    Ok(())
}

#[tokio::test]
async fn parallel_tool_calls_fragment_by_index() -> TestResult {
    let reply = Reply::default()
        .with_tool(
            "GetWeatherArgs",
            json!({"city": "Edinburgh", "country": "UK"}),
        )
        .with_tool("get_stock_price", json!({"ticker": "AAPL"}));
    let fake = scripted([reply]).await;
    let text = post(&fake, "/v1/chat/completions", &chat_user("go", true))
        .await?
        .text()
        .await?;
    let chunks = chunks(&text);
    assert_eq!(
        chunks[0]["choices"][0]["delta"],
        json!({"role": "assistant", "content": null, "refusal": null})
    );
    let calls: Vec<Value> = chunks
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["tool_calls"].get(0).cloned())
        .collect();
    let mut args = [String::new(), String::new()];
    let mut seen = [false, false];
    for call in &calls {
        let i = call["index"].as_u64().ok_or("index")? as usize;
        if seen[i] {
            assert!(call.get("id").is_none() && call["function"].get("name").is_none());
        } else {
            assert!(call["id"].as_str().unwrap_or_default().starts_with("call_"));
            assert_eq!(call["type"], "function");
            assert_eq!(call["function"]["arguments"], "");
            seen[i] = true;
        }
        args[i].push_str(call["function"]["arguments"].as_str().unwrap_or_default());
    }
    assert_eq!(
        serde_json::from_str::<Value>(&args[0])?,
        json!({"city": "Edinburgh", "country": "UK"})
    );
    assert_eq!(
        serde_json::from_str::<Value>(&args[1])?,
        json!({"ticker": "AAPL"})
    );
    let last = chunks.last().cloned().unwrap_or_default();
    assert_eq!(last["choices"][0]["finish_reason"], "tool_calls");
    Ok(())
}

#[tokio::test]
async fn thinking_goes_out_as_reasoning_content() -> TestResult {
    let fake = scripted([Reply::text("42").with_thinking("six times seven")]).await;
    let text = post(&fake, "/v1/chat/completions", &chat_user("?", true))
        .await?
        .text()
        .await?;
    let reasoning: String = chunks(&text)
        .iter()
        .filter_map(|c| {
            c["choices"][0]["delta"]["reasoning_content"]
                .as_str()
                .map(str::to_string)
        })
        .collect();
    assert_eq!(reasoning, "six times seven");
    Ok(())
}
