//! Fault injection: HTTP errors with retry headers, in-stream errors per dialect, dropped
//! connections, slow and re-chunked bodies.

use std::time::{Duration, Instant};

use hotl_fakellm::{Fault, Reply};
use serde_json::Value;

use crate::common::{
    TestResult, anthropic_user, chat_user, names, parse_sse, post, post_text, responses_user,
    scripted,
};

/// Reads a body chunk by chunk; returns the chunks and whether it ended in an error.
async fn chunks(resp: reqwest::Response) -> (Vec<Vec<u8>>, bool) {
    let mut resp = resp;
    let mut out = Vec::new();
    loop {
        match resp.chunk().await {
            Ok(Some(c)) => out.push(c.to_vec()),
            Ok(None) => return (out, false),
            Err(_) => return (out, true),
        }
    }
}

#[tokio::test]
async fn rate_limit_carries_retry_headers_and_consumes_no_reply() -> TestResult {
    let fake = scripted([Reply::text("after the retry")]).await;
    fake.push_fault(Fault::rate_limited(1500));
    let resp = post(&fake, "/v1/messages", &anthropic_user("hi", false)).await?;
    assert_eq!(resp.status(), 429);
    assert_eq!(resp.headers()["retry-after"], "2");
    assert_eq!(resp.headers()["retry-after-ms"], "1500");
    let err: Value = resp.json().await?;
    assert_eq!(err["type"], "error");
    assert_eq!(err["error"]["type"], "rate_limit_error");
    let (status, text) = post_text(&fake, "/v1/messages", &anthropic_user("hi", false)).await?;
    assert_eq!(status, 200);
    assert!(text.contains("after the retry"));
    fake.push_fault(Fault::rate_limited(1000));
    let resp = post(&fake, "/v1/chat/completions", &chat_user("hi", false)).await?;
    assert_eq!(resp.status(), 429);
    let err: Value = resp.json().await?;
    assert_eq!(err["error"]["code"], "rate_limit_exceeded");
    Ok(())
}

#[tokio::test]
async fn overloaded_and_server_errors() -> TestResult {
    let fake = scripted([
        Reply::fault(Fault::status(529)),
        Reply::fault(Fault {
            should_retry: Some(true),
            ..Fault::status(500)
        }),
        Reply::text("third line"),
    ])
    .await;
    let resp = post(&fake, "/v1/messages", &anthropic_user("hi", true)).await?;
    assert_eq!(resp.status(), 529);
    let err: Value = resp.json().await?;
    assert_eq!(err["error"]["type"], "overloaded_error");
    assert_eq!(err["error"]["message"], "Overloaded");
    let resp = post(&fake, "/v1/chat/completions", &chat_user("hi", false)).await?;
    assert_eq!(resp.status(), 500);
    assert_eq!(resp.headers()["x-should-retry"], "true");
    let err: Value = resp.json().await?;
    assert_eq!(err["error"]["type"], "server_error");
    let (status, text) = post_text(&fake, "/v1/responses", &responses_user("hi", false)).await?;
    assert_eq!((status, text.contains("third line")), (200, true));
    Ok(())
}

#[tokio::test]
async fn anthropic_error_event_after_k_events() -> TestResult {
    let fake = scripted([Reply::text("a long enough answer to stream")]).await;
    fake.push_fault(Fault::error_after(3));
    let text = post(&fake, "/v1/messages", &anthropic_user("hi", true))
        .await?
        .text()
        .await?;
    let events = parse_sse(&text);
    assert_eq!(
        names(&events),
        ["message_start", "content_block_start", "ping", "error"]
    );
    assert!(text.ends_with(
        "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n"
    ));
    assert_eq!(
        fake.remaining(),
        1,
        "a pushed stream fault does not consume the reply"
    );
    Ok(())
}

#[tokio::test]
async fn chat_error_chunk_after_k_events() -> TestResult {
    let fake =
        scripted([Reply::text("a long enough answer to stream").with_fault(Fault::error_after(2))])
            .await;
    let text = post(&fake, "/v1/chat/completions", &chat_user("hi", true))
        .await?
        .text()
        .await?;
    let events = parse_sse(&text);
    assert_eq!(events.len(), 3);
    let err = events[2].json();
    assert_eq!(err["error"]["type"], "server_error");
    assert!(!text.contains("[DONE]"));
    Ok(())
}

#[tokio::test]
async fn responses_error_then_failed_after_k_events() -> TestResult {
    let fake = scripted([Reply::text("streamed")]).await;
    fake.push_fault(Fault {
        error_type: Some("insufficient_quota".into()),
        ..Fault::error_after(4)
    });
    let text = post(&fake, "/v1/responses", &responses_user("hi", true))
        .await?
        .text()
        .await?;
    let events = parse_sse(&text);
    assert_eq!(events.len(), 6);
    let err = events[4].json();
    assert_eq!(
        (err["type"].as_str(), err["sequence_number"].as_u64()),
        (Some("error"), Some(4))
    );
    assert_eq!(err["code"], "insufficient_quota");
    let failed = events[5].json();
    assert_eq!(failed["type"], "response.failed");
    assert_eq!(failed["sequence_number"], 5);
    assert_eq!(failed["response"]["status"], "failed");
    assert_eq!(failed["response"]["error"]["code"], "insufficient_quota");
    Ok(())
}

#[tokio::test]
async fn dropped_connection_after_n_bytes() -> TestResult {
    let fake = scripted([Reply::text("this stream never finishes")]).await;
    fake.push_fault(Fault::drop_after(100));
    let resp = post(&fake, "/v1/messages", &anthropic_user("hi", true)).await?;
    assert_eq!(resp.status(), 200);
    let (chunks, failed) = chunks(resp).await;
    assert!(failed, "the body ends in an error, not a clean close");
    let got = chunks.concat();
    assert_eq!(got.len(), 100);
    assert!(got.starts_with(b"event: message_start\n"));
    Ok(())
}

#[tokio::test]
async fn rechunking_splits_inside_utf8_and_slow_chunks_wait() -> TestResult {
    let answer = "héllo wörld ✓";
    let fake = scripted([
        Reply::text(answer),
        Reply::text(answer),
        Reply::text(answer),
    ])
    .await;
    let reference = post(&fake, "/v1/chat/completions", &chat_user("hi", true))
        .await?
        .text()
        .await?;
    let bytes = reference.as_bytes();
    // Cut one byte into every multi-byte character.
    let cuts: Vec<usize> = reference
        .char_indices()
        .filter(|(_, c)| c.len_utf8() > 1)
        .map(|(i, _)| i + 1)
        .collect();
    assert!(cuts.len() >= 3);
    fake.push_fault(Fault::split_at(cuts.clone()).with_chunk_delay_ms(20));
    let started = Instant::now();
    let resp = post(&fake, "/v1/chat/completions", &chat_user("hi", true)).await?;
    let (got, failed) = chunks(resp).await;
    assert!(!failed);
    assert!(started.elapsed() >= Duration::from_millis(20 * cuts.len() as u64));
    let joined = got.concat();
    assert_eq!(joined.len(), bytes.len());
    assert!(
        got.iter().any(|c| std::str::from_utf8(c).is_err()),
        "a chunk ends inside a UTF-8 sequence"
    );
    let text = String::from_utf8(joined)?;
    let content = |t: &str| -> String {
        parse_sse(t)
            .iter()
            .filter(|e| e.data != "[DONE]")
            .filter_map(|e| {
                e.json()["choices"][0]["delta"]["content"]
                    .as_str()
                    .map(str::to_string)
            })
            .collect()
    };
    assert_eq!(content(&text), answer);
    fake.set_fault(Some(Fault::split_seeded(7, 5)));
    let text = post(&fake, "/v1/chat/completions", &chat_user("hi", true))
        .await?
        .text()
        .await?;
    assert_eq!(content(&text), answer);
    Ok(())
}
