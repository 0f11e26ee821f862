//! The Anthropic prompt-cache simulator, observed over HTTP through the usage fields.

use std::time::Duration;

use hotl_fakellm::{AnthropicCacheConfig, Config, FakeLlm, Reply, Tokenizer};
use serde_json::{Value, json};

use crate::common::{TestResult, names, parse_sse, post, post_json};

/// 4,800 bytes = 1,200 tokens under bytes4: above the 1,024 minimum on its own.
fn system(tag: &str) -> Value {
    json!([{"type": "text", "text": format!("{tag}{}", "You are a careful coding agent. ".repeat(150))}])
}

async fn fake() -> FakeLlm {
    let mut config = Config::default().with_tokenizer(Tokenizer::Bytes4);
    config.anthropic_cache = AnthropicCacheConfig::default().with_min_cacheable(1024);
    FakeLlm::spawn(config).await
}

fn request(system: &Value, messages: &[Value]) -> Value {
    json!({"model": "claude-sonnet-5", "max_tokens": 100, "system": system, "messages": messages})
}

/// `messages` with a 5-minute (or given) breakpoint on the last block.
fn with_breakpoint(messages: &[Value], ttl: Option<&str>) -> Vec<Value> {
    let mut out = messages.to_vec();
    if let Some(last) = out.last_mut() {
        let text = last["content"].as_str().unwrap_or_default().to_string();
        let mut cc = json!({"type": "ephemeral"});
        if let Some(t) = ttl {
            cc["ttl"] = json!(t);
        }
        last["content"] = json!([{"type": "text", "text": text, "cache_control": cc}]);
    }
    out
}

struct U {
    input: u64,
    read: u64,
    write: u64,
}

fn usage(u: &Value) -> U {
    U {
        input: u["input_tokens"].as_u64().unwrap_or(u64::MAX),
        read: u["cache_read_input_tokens"].as_u64().unwrap_or(u64::MAX),
        write: u["cache_creation_input_tokens"]
            .as_u64()
            .unwrap_or(u64::MAX),
    }
}

async fn send(fake: &FakeLlm, body: &Value) -> Result<Value, Box<dyn std::error::Error>> {
    let (status, m) = post_json(fake, "/v1/messages", body).await?;
    assert_eq!(status, 200, "{m}");
    Ok(m["usage"].clone())
}

#[tokio::test]
async fn growing_conversation_reads_the_previous_write_every_time() -> TestResult {
    let fake = fake().await;
    let sys = system("");
    let mut messages = vec![json!({"role": "user", "content": "turn 0: please start"})];
    let mut previous_total = 0;
    for turn in 0..30 {
        let mut body = request(&sys, &with_breakpoint(&messages, None));
        body["stream"] = json!(turn % 5 == 0);
        let u = if turn % 5 == 0 {
            let text = post(&fake, "/v1/messages", &body).await?.text().await?;
            let events = parse_sse(&text);
            assert_eq!(names(&events)[0], "message_start");
            let start = events[0].json()["message"]["usage"].clone();
            let delta = events
                .iter()
                .find(|e| e.event.as_deref() == Some("message_delta"))
                .map(|e| e.json()["usage"].clone())
                .unwrap_or_default();
            for key in [
                "input_tokens",
                "cache_read_input_tokens",
                "cache_creation_input_tokens",
            ] {
                assert_eq!(start[key], delta[key], "message_delta repeats {key}");
            }
            assert_eq!(
                start["cache_creation"]["ephemeral_5m_input_tokens"],
                start["cache_creation_input_tokens"]
            );
            start
        } else {
            send(&fake, &body).await?
        };
        let u = usage(&u);
        let total = u.input + u.read + u.write;
        assert_eq!(u.input, 0, "the breakpoint is on the last block");
        if turn == 0 {
            assert_eq!((u.read, u.write), (0, total));
        } else {
            assert!(u.read > 0, "turn {turn} reads the cache");
            assert_eq!(
                u.read, previous_total,
                "turn {turn} reads exactly the previous prefix"
            );
            assert_eq!(u.write, total - previous_total);
        }
        previous_total = total;
        messages.push(json!({"role": "assistant", "content": format!("answer {turn}")}));
        messages.push(json!({"role": "user", "content": format!("turn {}: go on", turn + 1)}));
    }
    Ok(())
}

#[tokio::test]
async fn a_changed_system_prompt_misses_entirely() -> TestResult {
    let fake = fake().await;
    let messages = with_breakpoint(&[json!({"role": "user", "content": "hello"})], None);
    send(&fake, &request(&system("A"), &messages)).await?;
    let u = usage(&send(&fake, &request(&system("A"), &messages)).await?);
    assert!(u.read > 0);
    let u = usage(&send(&fake, &request(&system("B"), &messages)).await?);
    assert_eq!(u.read, 0);
    assert!(u.write > 0);
    Ok(())
}

#[tokio::test]
async fn ttl_expires_on_the_virtual_clock_and_is_refreshed_by_hits() -> TestResult {
    let fake = fake().await;
    let clock = fake.clock();
    let body = request(
        &system(""),
        &with_breakpoint(&[json!({"role": "user", "content": "q"})], None),
    );
    assert_eq!(usage(&send(&fake, &body).await?).read, 0);
    clock.advance(Duration::from_secs(240));
    assert!(
        usage(&send(&fake, &body).await?).read > 0,
        "hit at 4 min refreshes the TTL"
    );
    clock.advance(Duration::from_secs(240));
    assert!(
        usage(&send(&fake, &body).await?).read > 0,
        "8 min after the write, 4 after the hit"
    );
    clock.advance(Duration::from_secs(301));
    let u = usage(&send(&fake, &body).await?);
    assert_eq!(u.read, 0, "expired 5 min after the last hit");
    assert!(u.write > 0);
    // A one-hour breakpoint survives half an hour.
    let body = request(
        &system("1h "),
        &with_breakpoint(&[json!({"role": "user", "content": "q"})], Some("1h")),
    );
    let first = send(&fake, &body).await?;
    assert_eq!(
        first["cache_creation"]["ephemeral_1h_input_tokens"],
        first["cache_creation_input_tokens"]
    );
    clock.advance(Duration::from_secs(1800));
    assert!(usage(&send(&fake, &body).await?).read > 0);
    Ok(())
}

#[tokio::test]
async fn more_than_four_breakpoints_are_rejected() -> TestResult {
    let fake = fake().await;
    let blocks: Vec<Value> = (0..5)
        .map(|i| json!({"type": "text", "text": format!("part {i}"), "cache_control": {"type": "ephemeral"}}))
        .collect();
    let body = request(&system(""), &[json!({"role": "user", "content": blocks})]);
    let (status, err) = post_json(&fake, "/v1/messages", &body).await?;
    assert_eq!(status, 400);
    assert_eq!(
        err["error"]["message"],
        "A maximum of 4 blocks with cache_control may be provided. Found 5."
    );
    Ok(())
}

#[tokio::test]
async fn below_the_minimum_nothing_is_cached() -> TestResult {
    let fake = fake().await;
    let body = request(
        &json!("short"),
        &with_breakpoint(&[json!({"role": "user", "content": "q"})], None),
    );
    for _ in 0..2 {
        let u = usage(&send(&fake, &body).await?);
        assert_eq!((u.read, u.write), (0, 0));
        assert!(u.input > 0);
    }
    Ok(())
}

#[tokio::test]
async fn lookback_is_twenty_blocks_and_an_anchor_fixes_it() -> TestResult {
    let fake = fake().await;
    let sys = system("");
    let first = vec![json!({"role": "user", "content": "start"})];
    send(&fake, &request(&sys, &with_breakpoint(&first, None))).await?;
    // One turn adds 25 blocks: a lone breakpoint at the end cannot see the old write.
    let mut grown = first.clone();
    let calls: Vec<Value> = (0..12).map(|i| json!({"type": "tool_use", "id": format!("toolu_{i}"), "name": "bash", "input": {"n": i}})).collect();
    let results: Vec<Value> = (0..12).map(|i| json!({"type": "tool_result", "tool_use_id": format!("toolu_{i}"), "content": "ok"})).collect();
    grown.push(json!({"role": "assistant", "content": calls}));
    grown.push(json!({"role": "user", "content": results}));
    grown.push(json!({"role": "assistant", "content": "done"}));
    grown.push(json!({"role": "user", "content": "next"}));
    let u = usage(&send(&fake, &request(&sys, &with_breakpoint(&grown, None))).await?);
    assert_eq!(u.read, 0);
    // With an anchor on the old last block the next request reads it.
    fake.clear_caches();
    send(&fake, &request(&sys, &with_breakpoint(&first, None))).await?;
    let mut anchored = with_breakpoint(&grown, None);
    anchored[0] = with_breakpoint(&first, None)[0].clone();
    let u = usage(&send(&fake, &request(&sys, &anchored)).await?);
    assert!(u.read > 0);
    Ok(())
}

#[tokio::test]
async fn caches_are_isolated_per_api_key() -> TestResult {
    let fake = fake().await;
    let body = request(
        &system(""),
        &with_breakpoint(&[json!({"role": "user", "content": "q"})], None),
    );
    send(&fake, &body).await?;
    let resp = crate::common::client()
        .post(format!("{}/v1/messages", fake.base_url()))
        .header("x-api-key", "another-workspace")
        .json(&body)
        .send()
        .await?;
    let m: Value = resp.json().await?;
    assert_eq!(m["usage"]["cache_read_input_tokens"], 0);
    fake.push_reply(Reply::text("still scripted"));
    Ok(())
}
