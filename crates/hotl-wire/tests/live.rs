//! hotl-wire against hotl-fakellm over real HTTP, for every dialect: text, parallel tool calls,
//! thinking, every fault, and the prompt cache.

use std::sync::{Arc, Mutex};

use hotl_fakellm::{Config, FakeLlm, Fault, Reply as Script, Tokenizer};
use hotl_log::Block;
use hotl_wire::{Dialect, Event, HttpProvider, Reply, RetryPolicy, StopReason, WireError};

use crate::conversation::Conversation;

const DIALECTS: [Dialect; 3] = [
    Dialect::Anthropic,
    Dialect::OpenAiChat,
    Dialect::OpenAiResponses,
];

fn model(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Anthropic => "claude-sonnet-5",
        _ => "gpt-5.1",
    }
}

fn provider(fake: &FakeLlm, dialect: Dialect) -> HttpProvider {
    let mut p =
        HttpProvider::new(dialect, &fake.base_url(), Some("test-key".into())).expect("provider");
    p.retry = RetryPolicy {
        max_retries: 3,
        base: std::time::Duration::from_millis(10),
        max_wait: std::time::Duration::from_millis(200),
    };
    p
}

async fn ask(p: &HttpProvider, convo: &Conversation) -> (Result<Reply, WireError>, Vec<Event>) {
    let view = convo.view();
    let request = convo.request(&view);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let result = p
        .send(&request, &mut move |e: &Event| {
            sink.lock().expect("lock").push(e.clone())
        })
        .await;
    let events = seen.lock().expect("lock").clone();
    (result, events)
}

fn text(reply: &Reply) -> String {
    reply
        .content
        .iter()
        .filter_map(|b| b.as_text())
        .collect::<Vec<_>>()
        .join("")
}

#[tokio::test]
async fn text_replies_stream_in_every_dialect() {
    for dialect in DIALECTS {
        let fake = FakeLlm::spawn(Config::scripted([Script::text(
            "Hello from the fake, with ünïcödé ✓ and a long enough sentence to split.",
        )]))
        .await;
        let mut convo = Conversation::new(model(dialect));
        convo.user("hi");
        let (reply, events) = ask(&provider(&fake, dialect), &convo).await;
        let reply = reply.unwrap_or_else(|e| panic!("{dialect:?}: {e}"));
        assert_eq!(
            text(&reply),
            "Hello from the fake, with ünïcödé ✓ and a long enough sentence to split.",
            "{dialect:?}"
        );
        assert_eq!(reply.stop, Some(StopReason::Done), "{dialect:?}");
        assert!(
            reply.usage.total_input() > 0,
            "{dialect:?}: {:?}",
            reply.usage
        );
        assert!(
            events
                .iter()
                .filter(|e| matches!(e, Event::TextDelta { .. }))
                .count()
                > 1
        );
        let captured = fake.captured();
        assert_eq!(captured.len(), 1);
        let auth = match dialect {
            Dialect::Anthropic => captured[0].header("x-api-key"),
            _ => captured[0].header("authorization"),
        };
        assert!(auth.is_some_and(|v| v.contains("test-key")), "{dialect:?}");
    }
}

#[tokio::test]
async fn parallel_tool_calls_round_trip_in_every_dialect() {
    for dialect in DIALECTS {
        let fake = FakeLlm::spawn(Config::scripted([
            Script::text("Two things at once.")
                .with_tool("bash", serde_json::json!({"command": "ls -la"}))
                .with_tool("bash", serde_json::json!({"command": "cat \"a b\".txt"})),
            Script::text("Both done."),
        ]))
        .await;
        let p = provider(&fake, dialect);
        let mut convo = Conversation::new(model(dialect));
        convo.user("look around");
        let (reply, _) = ask(&p, &convo).await;
        let reply = reply.unwrap_or_else(|e| panic!("{dialect:?}: {e}"));
        let calls: Vec<(String, serde_json::Value)> = reply
            .tool_calls()
            .map(|(_, name, input)| (name.to_owned(), input.parse().expect("json")))
            .collect();
        assert_eq!(
            calls,
            [
                ("bash".to_owned(), serde_json::json!({"command": "ls -la"})),
                (
                    "bash".to_owned(),
                    serde_json::json!({"command": "cat \"a b\".txt"})
                ),
            ],
            "{dialect:?}"
        );
        assert_eq!(reply.stop, Some(StopReason::ToolUse), "{dialect:?}");
        // The results go back; the fake validates that every call is answered.
        convo.reply(&reply, "output");
        let (reply, _) = ask(&p, &convo).await;
        let reply = reply.unwrap_or_else(|e| panic!("{dialect:?} second turn: {e}"));
        assert_eq!(text(&reply), "Both done.", "{dialect:?}");
    }
}

#[tokio::test]
async fn anthropic_thinking_comes_back_signed_and_is_accepted_when_replayed() {
    let fake = FakeLlm::spawn(Config::scripted([
        Script::text("Let me check.")
            .with_thinking("The user wants a listing; bash is right.")
            .with_tool("bash", serde_json::json!({"command": "ls"})),
        Script::text("Done."),
    ]))
    .await;
    let p = provider(&fake, Dialect::Anthropic);
    let mut convo = Conversation::new("claude-sonnet-5");
    convo.user("list");
    let (reply, _) = ask(&p, &convo).await;
    let reply = reply.expect("first turn");
    let Some(Block::Thinking {
        thinking,
        signature,
    }) = reply.content.first()
    else {
        panic!("thinking first: {:?}", reply.content)
    };
    assert_eq!(thinking, "The user wants a listing; bash is right.");
    assert!(signature.as_deref().is_some_and(|s| !s.is_empty()));
    convo.reply(&reply, "a\nb");
    let (reply, _) = ask(&p, &convo).await;
    assert_eq!(
        text(&reply.expect("the signed thinking is accepted back")),
        "Done."
    );
}

#[tokio::test]
async fn overload_rate_limits_and_server_errors_before_output_are_retried() {
    for dialect in DIALECTS {
        for fault in [
            Fault::rate_limited(20),
            Fault::status(529),
            Fault::status(500),
            Fault::status(503),
        ] {
            let fake = FakeLlm::spawn(Config::scripted([Script::text("after the storm")])).await;
            fake.push_fault(fault.clone());
            let mut convo = Conversation::new(model(dialect));
            convo.user("hi");
            let (reply, _) = ask(&provider(&fake, dialect), &convo).await;
            let reply = reply.unwrap_or_else(|e| panic!("{dialect:?} {fault:?}: {e}"));
            assert_eq!(text(&reply), "after the storm");
            assert_eq!(fake.captured().len(), 2, "{dialect:?} {fault:?}: one retry");
        }
    }
}

#[tokio::test]
async fn a_client_error_is_not_retried() {
    let fake = FakeLlm::spawn(Config::scripted([Script::text("never")])).await;
    fake.push_fault(Fault::status(400));
    let mut convo = Conversation::new("claude-sonnet-5");
    convo.user("hi");
    let (reply, _) = ask(&provider(&fake, Dialect::Anthropic), &convo).await;
    let err = reply.expect_err("400 fails");
    assert!(
        matches!(
            err,
            WireError::Provider {
                status: Some(400),
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(fake.captured().len(), 1);
}

#[tokio::test]
async fn retries_give_up_after_the_policy_allows() {
    let fake = FakeLlm::spawn(Config::scripted((0..6).map(|_| Script::text("never")))).await;
    fake.set_fault(Some(Fault::status(529)));
    let mut convo = Conversation::new("claude-sonnet-5");
    convo.user("hi");
    let (reply, _) = ask(&provider(&fake, Dialect::Anthropic), &convo).await;
    let err = reply.expect_err("overloaded forever");
    assert!(err.to_string().contains("529"), "{err}");
    assert_eq!(fake.captured().len(), 4, "the first try and 3 retries");
}

#[tokio::test]
async fn a_stream_failing_after_output_began_is_interrupted_not_repeated() {
    for dialect in DIALECTS {
        for fault in [Fault::error_after(6), Fault::drop_after(700)] {
            let fake = FakeLlm::spawn(Config::scripted([Script::text(
                "This answer is long enough to be cut somewhere in the middle of its many words.",
            )]))
            .await;
            fake.push_fault(fault.clone());
            let mut convo = Conversation::new(model(dialect));
            convo.user("hi");
            let (reply, _) = ask(&provider(&fake, dialect), &convo).await;
            match reply {
                Err(WireError::Interrupted { partial, .. }) => {
                    assert!(
                        !text(&partial).is_empty(),
                        "{dialect:?} {fault:?}: partial kept"
                    );
                    assert_eq!(
                        fake.captured().len(),
                        1,
                        "{dialect:?} {fault:?}: not repeated"
                    );
                }
                // The cut came before any text: then a retry is right, and it succeeds.
                Ok(reply) => {
                    assert_eq!(fake.captured().len(), 2, "{dialect:?} {fault:?}");
                    assert!(text(&reply).starts_with("This answer"));
                }
                Err(e) => panic!("{dialect:?} {fault:?}: {e}"),
            }
        }
    }
}

/// The content with call ids blanked (the fake mints a fresh id per response).
fn without_ids(reply: &Reply) -> Vec<Block> {
    reply
        .content
        .iter()
        .map(|b| match b {
            Block::ToolUse { name, input, .. } => Block::ToolUse {
                id: String::new(),
                name: name.clone(),
                input: input.clone(),
            },
            other => other.clone(),
        })
        .collect()
}

#[tokio::test]
async fn any_chunking_of_the_stream_gives_the_same_reply() {
    for dialect in DIALECTS {
        let script = || {
            Script::text("Splitting ✓ ünïcödé across reads.")
                .with_tool("bash", serde_json::json!({"command": "echo ✓"}))
        };
        let fake = FakeLlm::spawn(Config::scripted([script(), script(), script()])).await;
        let p = provider(&fake, dialect);
        let mut convo = Conversation::new(model(dialect));
        convo.user("go");
        let (whole, _) = ask(&p, &convo).await;
        let whole = whole.expect("whole");
        for fault in [
            Fault::split_seeded(7, 3),
            Fault::split_at([1, 2, 3, 5, 8, 13, 21, 34]),
        ] {
            fake.push_fault(fault);
            let (split, _) = ask(&p, &convo).await;
            let split = split.expect("split");
            assert_eq!(without_ids(&split), without_ids(&whole), "{dialect:?}");
            assert_eq!(split.usage, whole.usage, "{dialect:?}");
        }
    }
}

#[tokio::test]
async fn a_thirty_request_loop_reads_the_cache_every_time_and_a_new_system_prompt_misses() {
    let replies = (0..31).map(|i| {
        Script::text(format!("step {i}")).with_tool(
            "bash",
            serde_json::json!({ "command": format!("echo {i}") }),
        )
    });
    let fake = FakeLlm::spawn(Config::scripted(replies).with_tokenizer(Tokenizer::Bytes4)).await;
    let p = provider(&fake, Dialect::Anthropic);
    let mut convo = Conversation::new("claude-sonnet-5");
    convo.system = vec!["You are hotl. ".repeat(400)];
    convo.user("work through the steps");
    for i in 0..30 {
        let (reply, _) = ask(&p, &convo).await;
        let reply = reply.unwrap_or_else(|e| panic!("request {i}: {e}"));
        if i == 0 {
            assert_eq!(reply.usage.cache_read, 0);
            assert!(reply.usage.cache_write() > 0, "{:?}", reply.usage);
        } else {
            assert!(
                reply.usage.cache_read > 0,
                "request {i} missed: {:?}",
                reply.usage
            );
        }
        convo.reply(&reply, &format!("output of step {i}\n").repeat(3));
    }
    convo.system = vec!["You are a different persona. ".repeat(200)];
    let (reply, _) = ask(&p, &convo).await;
    let reply = reply.expect("the last request");
    assert_eq!(
        reply.usage.cache_read, 0,
        "a new system prompt is a full miss: {:?}",
        reply.usage
    );
}

#[tokio::test]
async fn openai_caches_by_key_once_the_prompt_is_long_enough() {
    for dialect in [Dialect::OpenAiChat, Dialect::OpenAiResponses] {
        let replies = (0..4).map(|i| Script::text(format!("answer {i}")));
        let fake =
            FakeLlm::spawn(Config::scripted(replies).with_tokenizer(Tokenizer::Bytes4)).await;
        let p = provider(&fake, dialect);
        let mut convo = Conversation::new("gpt-5.1");
        convo.system = vec!["Long instructions. ".repeat(400)];
        convo.user("first");
        let (first, _) = ask(&p, &convo).await;
        let first = first.expect("first");
        assert_eq!(first.usage.cache_read, 0, "{dialect:?}");
        convo.reply(&first, "");
        convo.user("second");
        let (second, _) = ask(&p, &convo).await;
        let second = second.expect("second");
        assert!(
            second.usage.cache_read >= 1024,
            "{dialect:?}: {:?}",
            second.usage
        );
        let sent = fake.captured();
        let key = sent[1].json().expect("json")["prompt_cache_key"].clone();
        assert_eq!(key, "session-key", "{dialect:?}");
    }
}

#[tokio::test]
async fn responses_reasoning_comes_back_encrypted_and_is_accepted_when_replayed() {
    let fake = FakeLlm::spawn(Config::scripted([
        Script::text("Checking.")
            .with_thinking("A listing needs bash.")
            .with_tool("bash", serde_json::json!({"command": "ls"})),
        Script::text("Done."),
    ]))
    .await;
    let p = provider(&fake, Dialect::OpenAiResponses);
    let mut convo = Conversation::new("gpt-5.1");
    convo.user("list");
    let (reply, _) = ask(&p, &convo).await;
    let reply = reply.expect("first turn");
    let sealed = reply.content.iter().find_map(|b| match b {
        Block::Thinking { signature, .. } => signature.clone(),
        _ => None,
    });
    assert!(sealed.is_some_and(|s| !s.is_empty()), "{:?}", reply.content);
    convo.reply(&reply, "a\nb");
    let (reply, _) = ask(&p, &convo).await;
    assert_eq!(
        text(&reply.expect("the encrypted reasoning is accepted back")),
        "Done."
    );
    let sent = fake.captured()[1].body_text();
    assert!(sent.contains(r#""type":"reasoning""#), "{sent}");
}

#[tokio::test]
async fn a_request_over_the_model_s_window_is_an_overflow_in_every_dialect() {
    for dialect in DIALECTS {
        let fake =
            FakeLlm::spawn(Config::scripted([Script::text("never sent")]).with_context_window(5))
                .await;
        let mut convo = Conversation::new(model(dialect));
        convo.user("a question longer than five tokens, whatever the tokenizer");
        let (reply, _) = ask(&provider(&fake, dialect), &convo).await;
        let err = reply.expect_err("too long");
        let overflow = err
            .context_overflow()
            .unwrap_or_else(|| panic!("{dialect:?}: not an overflow: {err}"));
        assert_eq!(
            overflow.window.is_some(),
            dialect != Dialect::OpenAiResponses,
            "{dialect:?}: {err}"
        );
        assert!(overflow.tokens.unwrap_or(6) > 5, "{dialect:?}: {err}");
        assert!(err.retry_after().is_none(), "{dialect:?}: not retried");
        assert_eq!(fake.remaining(), 1, "{dialect:?}: no reply consumed");
    }
}
