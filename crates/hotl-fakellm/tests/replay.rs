//! Replaying every recorded fixture in fixtures/wire: raw SSE byte for byte, JSON
//! Lines re-framed per the fixtures README.

use hotl_fakellm::{Config, Dialect, FakeLlm, Fault, Recording, Tokenizer};
use serde_json::Value;

use crate::common::{
    TestResult, anthropic_user, chat_user, fixture, names, parse_sse, post, responses_user,
};

async fn replayer(recording: &Recording) -> FakeLlm {
    let fake = FakeLlm::spawn(Config::scripted([]).with_tokenizer(Tokenizer::Bytes4)).await;
    fake.push_replay(recording);
    fake
}

/// Re-frames JSON Lines the way the fixtures README says, independently of the crate.
fn reframe(text: &str, chat: bool) -> String {
    let mut out = String::new();
    for line in text.split('\n').filter(|l| !l.trim().is_empty()) {
        if !chat {
            let v: Value = serde_json::from_str(line).unwrap_or_default();
            out.push_str(&format!(
                "event: {}\n",
                v["type"].as_str().unwrap_or_default()
            ));
        }
        out.push_str(&format!("data: {line}\n\n"));
    }
    out
}

#[tokio::test]
async fn anthropic_raw_sse_files_are_served_byte_for_byte() -> TestResult {
    for name in ["basic_response.txt", "tool_use_response.txt"] {
        let path = fixture(&format!("anthropic/{name}"));
        let raw = std::fs::read(&path)?;
        let fake = replayer(&Recording::load(&path, Dialect::Anthropic)?).await;
        let resp = post(&fake, "/v1/messages", &anthropic_user("hi", true)).await?;
        assert!(
            resp.headers()["content-type"]
                .to_str()?
                .starts_with("text/event-stream")
        );
        let body = resp.bytes().await?;
        assert_eq!(body.as_ref(), raw.as_slice(), "{name}");
        // Served as recorded: the last event has no terminating blank line.
        assert!(!body.ends_with(b"\n\n"));
    }
    Ok(())
}

#[tokio::test]
async fn anthropic_jsonl_is_reframed_keeping_whitespace() -> TestResult {
    let path = fixture("anthropic/anthropic-claude-sonnet-5-reasoning-summarized.chunks.txt");
    let text = std::fs::read_to_string(&path)?;
    let fake = replayer(&Recording::load(&path, Dialect::Anthropic)?).await;
    let body = post(&fake, "/v1/messages", &anthropic_user("hi", true))
        .await?
        .text()
        .await?;
    assert_eq!(body, reframe(&text, false));
    assert!(
        body.contains("}  }\n\n"),
        "whitespace inside payloads is kept"
    );
    let events = parse_sse(&body);
    assert_eq!(
        names(&events).first().map(String::as_str),
        Some("message_start")
    );
    assert_eq!(
        names(&events).last().map(String::as_str),
        Some("message_stop")
    );
    Ok(())
}

#[tokio::test]
async fn chat_recordings_are_served_byte_for_byte() -> TestResult {
    for name in [
        "f82268f2fefd5cfbc7eeb59c297688be2f6ca0849a6e4f17851b517310841d9b.bin",
        "4cc50a6135d254573a502310e6af1246f55edb6ad95fa24059f160996b68866d.bin",
        "e2aad469b71d1d4894ff833ea147020a9d875eb7ce644a0ff355581690a4cbfd.bin",
    ] {
        let path = fixture(&format!("openai-chat/{name}"));
        let raw = std::fs::read(&path)?;
        let fake = replayer(&Recording::load(&path, Dialect::OpenAiChat)?).await;
        let body = post(&fake, "/v1/chat/completions", &chat_user("hi", true))
            .await?
            .bytes()
            .await?;
        assert_eq!(body.as_ref(), raw.as_slice(), "{name}");
        assert!(body.ends_with(b"data: [DONE]\n\n"));
    }
    Ok(())
}

#[tokio::test]
async fn responses_tool_call_recording() -> TestResult {
    let path = fixture("openai-responses/issue-19493-gpt-5.1-tool-call.chunks.txt");
    let text = std::fs::read_to_string(&path)?;
    let recording = Recording::load(&path, Dialect::OpenAiResponses)?;
    assert_eq!(recording.bodies().len(), 1);
    let fake = replayer(&recording).await;
    let body = post(&fake, "/v1/responses", &responses_user("hi", true))
        .await?
        .text()
        .await?;
    assert_eq!(body, reframe(&text, false));
    let seqs: Vec<u64> = parse_sse(&body)
        .iter()
        .filter_map(|e| e.json()["sequence_number"].as_u64())
        .collect();
    assert_eq!(seqs, (0..12).collect::<Vec<u64>>());
    Ok(())
}

#[tokio::test]
async fn multi_stream_recording_serves_one_response_per_request() -> TestResult {
    let path = fixture("openai-responses/openai-reasoning-encrypted-content.1.chunks.txt");
    let recording = Recording::load(&path, Dialect::OpenAiResponses)?;
    assert_eq!(recording.bodies().len(), 4);
    let fake = replayer(&recording).await;
    for _ in 0..4 {
        let body = post(&fake, "/v1/responses", &responses_user("hi", true))
            .await?
            .text()
            .await?;
        let events = parse_sse(&body);
        assert_eq!(events[0].json()["sequence_number"], 0);
        assert_eq!(
            names(&events).first().map(String::as_str),
            Some("response.created")
        );
        assert_eq!(
            names(&events).last().map(String::as_str),
            Some("response.completed")
        );
    }
    let resp = post(&fake, "/v1/responses", &responses_user("hi", true)).await?;
    assert_eq!(resp.status(), 500, "the script is exhausted");
    assert_eq!(resp.headers()["x-should-retry"], "false");
    Ok(())
}

#[tokio::test]
async fn replays_can_be_rechunked_and_cut() -> TestResult {
    let path = fixture("anthropic/tool_use_response.txt");
    let raw = std::fs::read(&path)?;
    let recording = Recording::load(&path, Dialect::Anthropic)?;
    let fake = replayer(&recording).await;
    fake.push_replay(&recording);
    fake.set_fault(Some(Fault::split_seeded(42, 7)));
    let body = post(&fake, "/v1/messages", &anthropic_user("hi", true))
        .await?
        .bytes()
        .await?;
    assert_eq!(body.as_ref(), raw.as_slice());
    fake.set_fault(Some(Fault::error_after(2)));
    let body = post(&fake, "/v1/messages", &anthropic_user("hi", true))
        .await?
        .text()
        .await?;
    assert_eq!(
        names(&parse_sse(&body)),
        ["message_start", "content_block_start", "error"]
    );
    Ok(())
}
