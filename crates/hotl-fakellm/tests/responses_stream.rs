//! Responses API streaming grammar: text, parallel function calls, reasoning items,
//! truncation.

use hotl_fakellm::{Reply, Stop};
use serde_json::{Value, json};

use crate::common::{Sse, TestResult, names, parse_sse, post, responses_user, scripted};

fn check_numbering(events: &[Sse]) {
    for (i, e) in events.iter().enumerate() {
        let j = e.json();
        assert_eq!(j["sequence_number"], i, "sequence_number counts from 0");
        assert_eq!(j["type"].as_str(), e.event.as_deref());
    }
}

#[tokio::test]
async fn text_stream_follows_the_item_lifecycle() -> TestResult {
    let fake = scripted([Reply::text("Hello from Responses.")]).await;
    let text = post(&fake, "/v1/responses", &responses_user("hi", true))
        .await?
        .text()
        .await?;
    assert!(!text.contains("[DONE]"));
    let events = parse_sse(&text);
    check_numbering(&events);
    let names = names(&events);
    assert_eq!(
        names[..5],
        [
            "response.created",
            "response.in_progress",
            "response.output_item.added",
            "response.content_part.added",
            "response.output_text.delta"
        ]
    );
    assert_eq!(
        names[names.len() - 4..],
        [
            "response.output_text.done",
            "response.content_part.done",
            "response.output_item.done",
            "response.completed"
        ]
    );
    assert_eq!(events[0].json()["response"]["status"], "in_progress");
    let delta: String = events
        .iter()
        .map(Sse::json)
        .filter(|j| j["type"] == "response.output_text.delta")
        .map(|j| j["delta"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(delta, "Hello from Responses.");
    let done = events.last().map(Sse::json).unwrap_or_default();
    assert_eq!(done["response"]["status"], "completed");
    assert_eq!(
        done["response"]["output"][0]["content"][0]["text"],
        "Hello from Responses."
    );
    let usage = &done["response"]["usage"];
    assert_eq!(usage["input_tokens_details"]["cached_tokens"], 0);
    assert_eq!(usage["output_tokens"], 6);
    assert_eq!(done["response"]["prompt_cache_retention"], "in_memory");
    Ok(())
}

#[tokio::test]
async fn parallel_function_calls_are_separate_items() -> TestResult {
    let reply = Reply::default()
        .with_tool("calculator", json!({"a": 12, "b": 7, "op": "add"}))
        .with_tool("get_weather", json!({"city": "Beijing"}));
    let fake = scripted([reply]).await;
    let text = post(&fake, "/v1/responses", &responses_user("go", true))
        .await?
        .text()
        .await?;
    let events = parse_sse(&text);
    check_numbering(&events);
    let added: Vec<Value> = events
        .iter()
        .map(Sse::json)
        .filter(|j| j["type"] == "response.output_item.added")
        .collect();
    assert_eq!(added.len(), 2);
    for (i, a) in added.iter().enumerate() {
        assert_eq!(a["output_index"], i);
        assert_eq!(a["item"]["type"], "function_call");
        assert_eq!(a["item"]["arguments"], "");
        assert!(
            a["item"]["id"]
                .as_str()
                .unwrap_or_default()
                .starts_with("fc_")
        );
        assert!(
            a["item"]["call_id"]
                .as_str()
                .unwrap_or_default()
                .starts_with("call_")
        );
        let item_id = a["item"]["id"].clone();
        let joined: String = events
            .iter()
            .map(Sse::json)
            .filter(|j| {
                j["type"] == "response.function_call_arguments.delta" && j["item_id"] == item_id
            })
            .map(|j| j["delta"].as_str().unwrap_or_default().to_string())
            .collect();
        let done = events
            .iter()
            .map(Sse::json)
            .find(|j| {
                j["type"] == "response.function_call_arguments.done" && j["item_id"] == item_id
            })
            .unwrap_or_default();
        assert_eq!(done["arguments"].as_str(), Some(joined.as_str()));
    }
    let last = events.last().map(Sse::json).unwrap_or_default();
    assert_eq!(last["response"]["output"].as_array().map(Vec::len), Some(2));
    Ok(())
}

#[tokio::test]
async fn reasoning_item_comes_first_and_is_sealed_on_request() -> TestResult {
    let fake = scripted([
        Reply::text("done").with_thinking("compute 12 + 7"),
        Reply::text("ok"),
    ])
    .await;
    let mut body = responses_user("add", true);
    body["include"] = json!(["reasoning.encrypted_content"]);
    body["reasoning"] = json!({"effort": "high", "summary": "detailed"});
    let text = post(&fake, "/v1/responses", &body).await?.text().await?;
    let events = parse_sse(&text);
    check_numbering(&events);
    assert_eq!(
        events[3].event.as_deref(),
        Some("response.reasoning_summary_part.added")
    );
    let item = events
        .iter()
        .map(Sse::json)
        .find(|j| j["type"] == "response.output_item.done")
        .unwrap_or_default()["item"]
        .clone();
    assert_eq!(item["type"], "reasoning");
    assert_eq!(item["summary"][0]["text"], "compute 12 + 7");
    let sealed = item["encrypted_content"]
        .as_str()
        .ok_or("no encrypted_content")?
        .to_string();
    let next = |enc: &str| {
        json!({"model": "gpt-5.1", "input": [
            {"role": "user", "content": "add"},
            {"type": "reasoning", "id": item["id"], "summary": item["summary"], "encrypted_content": enc},
            {"role": "user", "content": "again"}
        ]})
    };
    let tampered = sealed.replacen("fakeenc1.63", "fakeenc1.64", 1);
    let resp = post(&fake, "/v1/responses", &next(&tampered)).await?;
    assert_eq!(resp.status(), 400);
    let err: Value = resp.json().await?;
    assert_eq!(err["error"]["code"], "invalid_encrypted_content");
    assert_eq!(
        post(&fake, "/v1/responses", &next(&sealed)).await?.status(),
        200
    );
    Ok(())
}

#[tokio::test]
async fn max_tokens_ends_incomplete() -> TestResult {
    let fake = scripted([Reply::text("cut").with_stop(Stop::MaxTokens)]).await;
    let text = post(&fake, "/v1/responses", &responses_user("x", true))
        .await?
        .text()
        .await?;
    let last = parse_sse(&text).last().map(Sse::json).unwrap_or_default();
    assert_eq!(last["type"], "response.incomplete");
    assert_eq!(last["response"]["status"], "incomplete");
    assert_eq!(
        last["response"]["incomplete_details"],
        json!({"reason": "max_output_tokens"})
    );
    Ok(())
}
