//! Scripted replies over HTTP: order, `match`, runtime pushes, exhaustion, script files.

use hotl_fakellm::{Config, FakeLlm, Reply, Tokenizer};
use serde_json::json;

use crate::common::{
    TestResult, anthropic, anthropic_user, chat_user, post, post_json, post_text, scripted,
};

#[tokio::test]
async fn replies_are_served_in_order_across_dialects() -> TestResult {
    let fake = scripted([Reply::text("one"), Reply::text("two"), Reply::text("three")]).await;
    let (_, m) = post_json(&fake, "/v1/messages", &anthropic_user("x", false)).await?;
    assert_eq!(m["content"][0]["text"], "one");
    let (_, c) = post_json(&fake, "/v1/chat/completions", &chat_user("x", false)).await?;
    assert_eq!(c["choices"][0]["message"]["content"], "two");
    let (_, r) = post_json(&fake, "/v1/responses", &json!({"model": "m", "input": "x"})).await?;
    assert_eq!(r["output"][0]["content"][0]["text"], "three");
    let resp = post(&fake, "/v1/messages", &anthropic_user("x", false)).await?;
    assert_eq!(resp.status(), 500);
    assert_eq!(resp.headers()["x-should-retry"], "false");
    let (_, body) = post_text(&fake, "/v1/messages", &anthropic_user("x", false)).await?;
    assert!(body.contains("script exhausted after 3 replies"), "{body}");
    Ok(())
}

#[tokio::test]
async fn match_picks_by_the_last_user_message_or_tool_result() -> TestResult {
    let script = r#"
{"text": "in order"}
{"match": "FAILED", "text": "the tests failed"}
{"match": "weather", "repeat": true, "text": "sunny"}
"#;
    let fake = scripted(Reply::parse_script(script)?).await;
    let ask = |text: &str| anthropic_user(text, false);
    let (_, m) = post_json(&fake, "/v1/messages", &ask("what's the weather?")).await?;
    assert_eq!(m["content"][0]["text"], "sunny");
    let (_, m) = post_json(&fake, "/v1/messages", &ask("weather again")).await?;
    assert_eq!(m["content"][0]["text"], "sunny");
    let with_result = anthropic(
        json!([
            {"role": "user", "content": "run the tests"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "bash", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "3 FAILED"}]}
        ]),
        false,
    );
    let (_, m) = post_json(&fake, "/v1/messages", &with_result).await?;
    assert_eq!(m["content"][0]["text"], "the tests failed");
    let (_, m) = post_json(&fake, "/v1/messages", &ask("hello")).await?;
    assert_eq!(m["content"][0]["text"], "in order");
    assert_eq!(fake.remaining(), 1, "only the repeating rule is left");
    Ok(())
}

#[tokio::test]
async fn replies_can_be_pushed_at_runtime() -> TestResult {
    let fake = FakeLlm::spawn(Config::scripted([]).with_tokenizer(Tokenizer::Bytes4)).await;
    fake.push_replies([Reply::text("pushed"), Reply::text("later")]);
    assert_eq!(fake.remaining(), 2);
    let (_, m) = post_json(&fake, "/v1/messages", &anthropic_user("x", false)).await?;
    assert_eq!(m["content"][0]["text"], "pushed");
    Ok(())
}

#[tokio::test]
async fn script_files_load_and_report_bad_lines() -> TestResult {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("script.jsonl");
    std::fs::write(
        &path,
        "{\"text\": \"ok\", \"tools\": [{\"name\": \"bash\", \"input\": {\"command\": \"ls\"}}]}\n",
    )?;
    let replies = Reply::load_script(&path)?;
    assert_eq!(replies[0].tools[0].input, json!({"command": "ls"}));
    std::fs::write(
        &path,
        "{\"text\": \"ok\"}\n{\"tools\": [{\"name\": \"bash\", \"input\": [1]}]}\n",
    )?;
    let err = Reply::load_script(&path)
        .err()
        .ok_or("a bad line is refused")?;
    assert!(err.to_string().starts_with("script line 2:"), "{err}");
    Ok(())
}
