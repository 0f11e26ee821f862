//! The OpenAI automatic prefix-cache simulator, observed through `cached_tokens`.

use std::time::Duration;

use hotl_fakellm::{Config, FakeLlm, Tokenizer};
use serde_json::{Value, json};

use crate::common::{TestResult, post_json};

async fn fake() -> FakeLlm {
    FakeLlm::spawn(Config::default().with_tokenizer(Tokenizer::Bytes4)).await
}

/// ~1,500 tokens of instructions under bytes4.
fn long_system() -> String {
    "Follow the repository conventions carefully. ".repeat(135)
}

fn chat(key: &str, turns: usize) -> Value {
    let mut messages = vec![json!({"role": "system", "content": long_system()})];
    for i in 0..turns {
        messages.push(json!({"role": "user", "content": format!("question {i}")}));
        messages.push(json!({"role": "assistant", "content": format!("answer {i}")}));
    }
    messages.push(json!({"role": "user", "content": "and now?"}));
    json!({"model": "gpt-5.1", "prompt_cache_key": key, "messages": messages})
}

async fn cached_chat(
    fake: &FakeLlm,
    body: &Value,
) -> Result<(u64, u64), Box<dyn std::error::Error>> {
    let (status, c) = post_json(fake, "/v1/chat/completions", body).await?;
    assert_eq!(status, 200, "{c}");
    let u = &c["usage"];
    Ok((
        u["prompt_tokens_details"]["cached_tokens"]
            .as_u64()
            .ok_or("cached_tokens")?,
        u["prompt_tokens"].as_u64().ok_or("prompt_tokens")?,
    ))
}

#[tokio::test]
async fn chat_reads_the_longest_stored_prefix_in_128_token_steps() -> TestResult {
    let fake = fake().await;
    let (cached, prompt) = cached_chat(&fake, &chat("session-1", 0)).await?;
    assert_eq!(cached, 0);
    assert!(prompt >= 1024);
    for turns in 1..4 {
        let (cached, prompt) = cached_chat(&fake, &chat("session-1", turns)).await?;
        assert!(cached >= 1024, "turn {turns}: {cached}");
        assert_eq!((cached - 1024) % 128, 0);
        assert!(cached <= prompt);
    }
    let (cached, _) = cached_chat(&fake, &chat("session-2", 3)).await?;
    assert_eq!(cached, 0, "another prompt_cache_key routes elsewhere");
    fake.clock().advance(Duration::from_secs(11 * 60));
    let (cached, _) = cached_chat(&fake, &chat("session-1", 3)).await?;
    assert_eq!(cached, 0, "in-memory entries expire after 10 idle minutes");
    Ok(())
}

#[tokio::test]
async fn short_prompts_never_cache() -> TestResult {
    let fake = fake().await;
    let body = json!({"model": "gpt-5.1", "messages": [{"role": "user", "content": "short"}]});
    for _ in 0..2 {
        assert_eq!(cached_chat(&fake, &body).await?.0, 0);
    }
    Ok(())
}

#[tokio::test]
async fn responses_report_input_tokens_details() -> TestResult {
    let fake = fake().await;
    let body = |q: &str| {
        json!({"model": "gpt-5.1", "instructions": long_system(), "prompt_cache_key": "k",
               "prompt_cache_retention": "24h", "input": [{"role": "user", "content": q}]})
    };
    let (_, r) = post_json(&fake, "/v1/responses", &body("first")).await?;
    assert_eq!(r["usage"]["input_tokens_details"]["cached_tokens"], 0);
    assert_eq!(r["prompt_cache_retention"], "24h");
    fake.clock().advance(Duration::from_secs(3 * 60 * 60));
    let (_, r) = post_json(&fake, "/v1/responses", &body("second")).await?;
    let cached = r["usage"]["input_tokens_details"]["cached_tokens"]
        .as_u64()
        .unwrap_or(0);
    assert!(
        cached >= 1024,
        "24h retention survives three hours: {cached}"
    );
    assert!(r["usage"]["input_tokens"].as_u64() >= Some(cached));
    Ok(())
}
