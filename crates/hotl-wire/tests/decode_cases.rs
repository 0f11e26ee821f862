//! Each dialect's grammar beyond the recordings: robustness (pings, comments, CRLF, unknown
//! events and fields), in-band errors, cut streams, bodies that are not SSE, and the quirks of
//! llama-server and Ollama.

use hotl_testkit::TestResult;
use hotl_wire::{Event, StreamDecoder, WireError};

use crate::fixtures::{Decoded, decode, decode_bytewise};

/// Named events, framed as Anthropic and Responses servers frame them.
fn named(events: &[(&str, &str)]) -> Vec<u8> {
    let mut body = String::new();
    for (name, data) in events {
        body.push_str(&format!("event: {name}\ndata: {data}\n\n"));
    }
    body.into_bytes()
}

/// Chat chunks: `data:` only.
fn chat(chunks: &[&str]) -> Vec<u8> {
    chunks
        .iter()
        .map(|c| format!("data: {c}\n\n"))
        .collect::<String>()
        .into_bytes()
}

/// Decodes whole and byte by byte (they must agree) and renders each event as compact JSON.
fn lines(dialect: &str, body: &[u8]) -> (Vec<String>, String) {
    let whole = decode(dialect, body);
    assert_eq!(
        decode_bytewise(dialect, body),
        whole,
        "chunking changed the result"
    );
    let Decoded { events, outcome } = whole;
    let events = events
        .iter()
        .map(|e| serde_json::to_string(e).expect("events serialize"))
        .collect();
    (events, outcome)
}

const MSG_START: &str = r#"{"type":"message_start","message":{"id":"msg_1","model":"m","usage":{"input_tokens":10,"output_tokens":1}}}"#;
const TEXT_START: &str =
    r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#;
const STOP0: &str = r#"{"type":"content_block_stop","index":0}"#;
const MSG_STOP: &str = r#"{"type":"message_stop"}"#;

fn text(i: u32, t: &str) -> String {
    format!(
        r#"{{"type":"content_block_delta","index":{i},"delta":{{"type":"text_delta","text":"{t}"}}}}"#
    )
}

#[test]
fn anthropic_tolerates_pings_comments_crlf_spaces_and_unknowns() -> TestResult {
    let body = concat!(
        ": hello\r\n",
        "event: message_start\r\n",
        r#"data:{"type":"message_start","new_field":[1,2],"message":{"id":"msg_1","model":"m","usage":{"input_tokens":10,"output_tokens":1,"brand_new":{"x":1}}}}   "#,
        "\r\n\r\n",
        "event: ping\r\ndata: {\"type\": \"ping\"}\r\n\r\n",
        "event: content_block_start\r\n",
        r#"data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":"","citations":null}}"#,
        "\r\n\r\n",
        ": keep-alive\r\n\r\n",
        "event: some_future_event\r\ndata: {\"type\":\"some_future_event\",\"message\":7,\"index\":\"x\"}\r\n\r\n",
        "event: content_block_delta\r\n",
        r#"data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"} }  "#,
        "\r\n\r\n",
        "event: content_block_delta\r\n",
        r#"data: {"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{}}}"#,
        "\r\n\r\n",
        "event: content_block_stop\r\ndata: {\"type\":\"content_block_stop\",\"index\":0 }  \r\n\r\n",
        "event: message_delta\r\n",
        r#"data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null,"stop_details":null},"usage":{"output_tokens":5}}"#,
        "\r\n\r\n",
        "event: message_stop\r\ndata: {\"type\":\"message_stop\"}\r\n\r\n",
    );
    let (events, outcome) = lines("anthropic", body.as_bytes());
    assert_eq!(
        events,
        [
            r#"{"event":"start","id":"msg_1","model":"m"}"#,
            r#"{"event":"usage","input":10,"cache_read":0,"cache_write_5m":0,"cache_write_1h":0,"output":1,"thinking":0}"#,
            r#"{"event":"text_delta","text":"Hi"}"#,
            r#"{"event":"usage","input":10,"cache_read":0,"cache_write_5m":0,"cache_write_1h":0,"output":5,"thinking":0}"#,
            r#"{"event":"stop","reason":"done","raw":"end_turn"}"#,
        ]
    );
    assert_eq!(outcome, "complete");
    Ok(())
}

#[test]
fn anthropic_error_event_mid_stream_is_an_event_and_ends_the_stream() -> TestResult {
    let body = named(&[
        ("message_start", MSG_START),
        ("content_block_start", TEXT_START),
        ("content_block_delta", &text(0, "Hel")),
        (
            "error",
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        ),
    ]);
    let (events, outcome) = lines("anthropic", &body);
    assert_eq!(
        events[3..],
        [r#"{"event":"error","kind":"overloaded_error","message":"Overloaded","retryable":true}"#]
    );
    assert_eq!(outcome, "complete");
    let body = named(&[(
        "error",
        r#"{"type":"error","error":{"type":"invalid_request_error","message":"bad"}}"#,
    )]);
    assert!(lines("anthropic", &body).0[0].contains(r#""retryable":false"#));
    Ok(())
}

#[test]
fn anthropic_stream_cut_mid_way_delivers_what_came_then_fails_as_interrupted() -> TestResult {
    let complete_events = named(&[
        ("message_start", MSG_START),
        ("content_block_start", TEXT_START),
        ("content_block_delta", &text(0, "Hel")),
    ]);
    let mut body = complete_events.clone();
    body.extend_from_slice(b"event: content_block_delta\ndata: {\"type\":\"content_block_de");
    let (events, outcome) = lines("anthropic", &body);
    assert_eq!(events.len(), 3);
    assert_eq!(
        outcome,
        "error: anthropic stream ended before its final `message_stop` event; its last event \
         (`content_block_delta`) was cut off before the blank line that ends it"
    );
    let (_, outcome) = lines("anthropic", &complete_events);
    assert_eq!(
        outcome,
        "error: anthropic stream ended before its final `message_stop` event (connection dropped?)"
    );
    let (mut events, error) = StreamDecoder::anthropic().decode(&body);
    assert!(error.is_some_and(|e| e.is_interrupted()));
    assert!(matches!(events.pop(), Some(Event::TextDelta { .. })));
    Ok(())
}

/// Only the closing `message_stop` lost (no blank line after it): `message_delta` already said
/// why the response stopped, so the stop is kept, as the providers' SDKs keep it. A tool call
/// whose block never closed is cut, and the stream still fails.
#[test]
fn anthropic_stream_missing_only_its_message_stop_keeps_the_stop_reason() -> TestResult {
    let delta = r#"{"type":"message_delta","delta":{"stop_reason":"max_tokens","stop_sequence":null},"usage":{"output_tokens":9}}"#;
    let mut body = named(&[
        ("message_start", MSG_START),
        ("content_block_start", TEXT_START),
        ("content_block_delta", &text(0, "Hel")),
        (
            "content_block_stop",
            r#"{"type":"content_block_stop","index":0}"#,
        ),
        ("message_delta", delta),
    ]);
    body.extend_from_slice(b"event: message_stop\ndata: {\"type\":\"message_stop\"}");
    let (events, outcome) = lines("anthropic", &body);
    assert_eq!(outcome, "complete", "{events:?}");
    assert_eq!(
        events.last().map(String::as_str),
        Some(r#"{"event":"stop","reason":"truncated","raw":"max_tokens"}"#)
    );
    // The same, with a tool call still open when the body ended: no stop is made up.
    let mut cut = named(&[
        ("message_start", MSG_START),
        (
            "content_block_start",
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"bash","input":{}}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"command\": \"rm"}}"#,
        ),
        ("message_delta", delta),
    ]);
    cut.extend_from_slice(b"event: message_stop\ndata: {\"type\":\"message_stop\"}");
    let (events, outcome) = lines("anthropic", &cut);
    assert!(
        outcome.starts_with("error: anthropic stream ended"),
        "{outcome}"
    );
    assert!(
        !events.iter().any(|e| e.contains(r#""event":"stop""#)),
        "{events:?}"
    );
    Ok(())
}

#[test]
fn a_body_that_is_not_sse_is_a_clear_error() -> TestResult {
    let html = b"<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head>\n<body>nginx</body></html>\n";
    for dialect in ["anthropic", "openai-chat", "openai-responses"] {
        let (events, outcome) = lines(dialect, html);
        assert!(events.is_empty());
        assert_eq!(
            outcome,
            "error: response is not an event stream; it starts with \"<!DOCTYPE html>\""
        );
    }
    // A JSON error body served as if it were a stream, without a final newline.
    let json = br#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
    let (_, outcome) = lines("anthropic", json);
    assert!(outcome.starts_with("error: response is not an event stream; it starts with \"{"));
    let (_, error) = StreamDecoder::anthropic().decode(json);
    assert!(matches!(error, Some(WireError::NotSse { .. })));
    Ok(())
}

#[test]
fn an_empty_body_is_incomplete() {
    let (events, outcome) = lines("openai-responses", b"");
    assert!(events.is_empty());
    assert_eq!(
        outcome,
        "error: openai-responses stream ended before its final `response.completed` event \
         (connection dropped?)"
    );
}

#[test]
fn malformed_json_names_the_event_and_keeps_what_came_before() -> TestResult {
    let body = named(&[
        ("message_start", MSG_START),
        ("content_block_start", TEXT_START),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":0,"delta":{"#,
        ),
        ("content_block_stop", STOP0),
    ]);
    let (events, error) = StreamDecoder::anthropic().decode(&body);
    assert_eq!(events.len(), 2);
    let error = error.ok_or("expected an error")?;
    assert!(matches!(error, WireError::BadJson { .. }));
    assert!(
        error.to_string().starts_with(
            "malformed anthropic stream: bad JSON in a `content_block_delta` event: EOF"
        ),
        "{error}"
    );
    Ok(())
}

#[test]
fn anthropic_later_usage_wins_field_by_field() -> TestResult {
    let body = named(&[
        (
            "message_start",
            r#"{"type":"message_start","message":{"id":"msg_1","model":"m","usage":{"input_tokens":5,"cache_creation_input_tokens":3068,"cache_read_input_tokens":0,"cache_creation":{"ephemeral_5m_input_tokens":3068,"ephemeral_1h_input_tokens":0},"output_tokens":69}}}"#,
        ),
        (
            "message_delta",
            r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"input_tokens":7,"cache_creation_input_tokens":3337,"cache_read_input_tokens":6289,"output_tokens":400,"output_tokens_details":{"thinking_tokens":50}}}"#,
        ),
        ("message_stop", MSG_STOP),
    ]);
    let (events, _) = lines("anthropic", &body);
    assert_eq!(
        events[1],
        r#"{"event":"usage","input":5,"cache_read":0,"cache_write_5m":3068,"cache_write_1h":0,"output":69,"thinking":0}"#
    );
    assert_eq!(
        events[2],
        r#"{"event":"usage","input":7,"cache_read":6289,"cache_write_5m":3337,"cache_write_1h":0,"output":400,"thinking":50}"#
    );
    // A 1-hour breakdown is kept apart; without one everything counts as 5 minutes.
    let body = named(&[
        (
            "message_start",
            r#"{"type":"message_start","message":{"usage":{"input_tokens":2048,"cache_read_input_tokens":1800,"cache_creation_input_tokens":248,"cache_creation":{"ephemeral_5m_input_tokens":148,"ephemeral_1h_input_tokens":100},"output_tokens":503}}}"#,
        ),
        ("message_stop", MSG_STOP),
    ]);
    let (events, _) = lines("anthropic", &body);
    assert_eq!(
        events[1],
        r#"{"event":"usage","input":2048,"cache_read":1800,"cache_write_5m":148,"cache_write_1h":100,"output":503,"thinking":0}"#
    );
    Ok(())
}

#[test]
fn anthropic_blocks_thinking_redacted_and_tools() -> TestResult {
    let body = named(&[
        ("message_start", MSG_START),
        (
            "content_block_start",
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"27 * 453"}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":""}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"c2ln"}}"#,
        ),
        ("content_block_stop", STOP0),
        (
            "content_block_start",
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"b3BhcXVl"}}"#,
        ),
        (
            "content_block_stop",
            r#"{"type":"content_block_stop","index":1}"#,
        ),
        (
            "content_block_start",
            r#"{"type":"content_block_start","index":4,"content_block":{"type":"tool_use","id":"toolu_1","name":"now","input":{}}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":4,"delta":{"type":"input_json_delta","partial_json":""}}"#,
        ),
        (
            "content_block_stop",
            r#"{"type":"content_block_stop","index":4}"#,
        ),
        (
            "message_delta",
            r#"{"type":"message_delta","delta":{"stop_reason":"pause_turn"},"usage":{"output_tokens":9}}"#,
        ),
        ("message_stop", MSG_STOP),
    ]);
    let (events, outcome) = lines("anthropic", &body);
    assert_eq!(
        events[2..],
        [
            r#"{"event":"thinking_delta","text":"27 * 453"}"#,
            r#"{"event":"thinking_done","signature":"c2ln","encrypted":null}"#,
            r#"{"event":"thinking_done","signature":null,"encrypted":"b3BhcXVl"}"#,
            r#"{"event":"tool_call_start","key":"4","id":"toolu_1","name":"now"}"#,
            r#"{"event":"tool_call_end","key":"4"}"#,
            r#"{"event":"usage","input":10,"cache_read":0,"cache_write_5m":0,"cache_write_1h":0,"output":9,"thinking":0}"#,
            r#"{"event":"stop","reason":"continue","raw":"pause_turn"}"#,
        ]
    );
    assert_eq!(outcome, "complete");
    Ok(())
}

/// A tool the provider runs itself (web search, code execution) leaves blocks hotl cannot
/// send back: the response is refused with a clear error, never kept in part.
#[test]
fn anthropic_server_tool_blocks_and_containers_are_refused_not_dropped() -> TestResult {
    for block in [
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{}}}"#,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[]}}"#,
    ] {
        let body = named(&[("message_start", MSG_START), ("content_block_start", block)]);
        let (_, outcome) = lines("anthropic", &body);
        assert!(
            outcome.contains("from a tool the provider runs itself"),
            "{outcome}"
        );
        assert!(
            outcome.contains("refused rather than kept in part"),
            "{outcome}"
        );
    }
    let with_container = r#"{"type":"message_start","message":{"id":"msg_1","model":"m","container":{"id":"container_1","expires_at":"2026-12-02T00:00:00Z"},"usage":{"input_tokens":10,"output_tokens":1}}}"#;
    let (_, outcome) = lines("anthropic", &named(&[("message_start", with_container)]));
    assert!(outcome.contains("code-execution `container`"), "{outcome}");
    // `container: null` is no container.
    let null = r#"{"type":"message_start","message":{"id":"msg_1","model":"m","container":null,"usage":{"input_tokens":10,"output_tokens":1}}}"#;
    let (_, outcome) = lines(
        "anthropic",
        &named(&[("message_start", null), ("message_stop", MSG_STOP)]),
    );
    assert_eq!(outcome, "complete");
    Ok(())
}

#[test]
fn anthropic_stop_reasons() -> TestResult {
    for (raw, reason) in [
        ("end_turn", "done"),
        ("stop_sequence", "done"),
        ("tool_use", "tool_use"),
        ("max_tokens", "truncated"),
        ("model_context_window_exceeded", "truncated"),
        ("pause_turn", "continue"),
        ("refusal", "refused"),
        ("something_new", "done"),
    ] {
        let delta = format!(r#"{{"type":"message_delta","delta":{{"stop_reason":"{raw}"}}}}"#);
        let body = named(&[("message_delta", &delta), ("message_stop", MSG_STOP)]);
        let (events, _) = lines("anthropic", &body);
        assert_eq!(
            events,
            [format!(
                r#"{{"event":"stop","reason":"{reason}","raw":"{raw}"}}"#
            )]
        );
    }
    Ok(())
}

#[test]
fn anthropic_delta_for_a_block_that_never_started_is_malformed() {
    let body = named(&[("content_block_delta", &text(3, "x"))]);
    let (_, outcome) = lines("anthropic", &body);
    assert_eq!(
        outcome,
        "error: malformed anthropic stream: `content_block_delta` event for block 3, which never started"
    );
}

const CHUNK_HEAD: &str = r#""id":"c1","object":"chat.completion.chunk","model":"m""#;

fn chunk(rest: &str) -> String {
    format!("{{{CHUNK_HEAD},{rest}}}")
}

#[test]
fn chat_done_without_a_space_and_an_error_chunk_mid_stream() -> TestResult {
    let body = format!(
        "data: {}\n\ndata:{}\n\ndata:[DONE]\n\n",
        chunk(
            r#""choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"},"finish_reason":null}]"#
        ),
        chunk(r#""choices":[{"index":0,"delta":{},"finish_reason":"stop"}]"#),
    );
    let (events, outcome) = lines("openai-chat", body.as_bytes());
    assert_eq!(
        events,
        [
            r#"{"event":"start","id":"c1","model":"m"}"#,
            r#"{"event":"text_delta","text":"Hi"}"#,
            r#"{"event":"stop","reason":"done","raw":"stop"}"#,
        ]
    );
    assert_eq!(outcome, "complete");

    let body = chat(&[
        &chunk(r#""choices":[{"index":0,"delta":{"content":"Hel"}}]"#),
        r#"{"error":{"message":"The server had an error","type":"server_error","param":null,"code":null}}"#,
    ]);
    let (events, outcome) = lines("openai-chat", &body);
    assert_eq!(
        events[2],
        r#"{"event":"error","kind":"server_error","message":"The server had an error","retryable":true}"#
    );
    assert_eq!(outcome, "complete", "an in-band error ends the stream");
    let body = chat(&[
        r#"{"error":{"message":"quota","type":"insufficient_quota","code":"insufficient_quota"}}"#,
    ]);
    assert!(lines("openai-chat", &body).0[0].contains(r#""retryable":false"#));
    Ok(())
}

#[test]
fn chat_without_done_is_interrupted() {
    let body = chat(&[&chunk(
        r#""choices":[{"index":0,"delta":{},"finish_reason":"stop"}]"#,
    )]);
    let (events, outcome) = lines("openai-chat", &body);
    assert_eq!(events.len(), 1, "the stop waits for [DONE]");
    assert_eq!(
        outcome,
        "error: openai-chat stream ended before its final `[DONE]` event (connection dropped?)"
    );
    let mut cut = body.clone();
    cut.extend_from_slice(b"data: [DONE]\n");
    let (_, outcome) = lines("openai-chat", &cut);
    assert!(
        outcome
            .ends_with("its last event (`[DONE]`) was cut off before the blank line that ends it")
    );
}

#[test]
fn llama_server_reasoning_content_timings_and_comment_pings() -> TestResult {
    let body = [
        ": ping\n\n".to_owned(),
        format!("data: {}\n\n", chunk(r#""choices":[{"index":0,"delta":{"role":"assistant","content":null,"reasoning_content":"Let me think"}}]"#)),
        format!("data: {}\n\n", chunk(r#""choices":[{"index":0,"delta":{"reasoning_content":"."}}]"#)),
        format!("data: {}\n\n", chunk(r#""choices":[{"index":0,"delta":{"content":"42"}}]"#)),
        format!("data: {}\n\n", chunk(r#""choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"timings":{"cache_n":100,"prompt_n":20,"prompt_ms":5.1,"predicted_n":7,"predicted_ms":30.2}"#)),
        "data: [DONE]\n\n".to_owned(),
    ]
    .concat();
    let (events, outcome) = lines("openai-chat", body.as_bytes());
    assert_eq!(
        events[1..],
        [
            r#"{"event":"thinking_delta","text":"Let me think"}"#,
            r#"{"event":"thinking_delta","text":"."}"#,
            r#"{"event":"thinking_done","signature":null,"encrypted":null}"#,
            r#"{"event":"text_delta","text":"42"}"#,
            r#"{"event":"usage","input":20,"cache_read":100,"cache_write_5m":0,"cache_write_1h":0,"output":7,"thinking":0}"#,
            r#"{"event":"stop","reason":"done","raw":"stop"}"#,
        ]
    );
    assert_eq!(outcome, "complete");
    // With a usage chunk, usage wins; timings only fill in the cache count it lacks.
    let body = chat(&[
        &chunk(
            r#""choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"timings":{"cache_n":100,"prompt_n":20,"predicted_n":7}"#,
        ),
        &chunk(
            r#""choices":[],"usage":{"prompt_tokens":120,"completion_tokens":7,"total_tokens":127}"#,
        ),
        "[DONE]",
    ]);
    let (events, _) = lines("openai-chat", &body);
    assert_eq!(
        events[1],
        r#"{"event":"usage","input":20,"cache_read":100,"cache_write_5m":0,"cache_write_1h":0,"output":7,"thinking":0}"#
    );
    Ok(())
}

#[test]
fn chat_cached_and_written_tokens_come_out_of_the_prompt_count() {
    let body = chat(&[
        &chunk(
            r#""choices":[],"usage":{"prompt_tokens":5000,"completion_tokens":300,"prompt_tokens_details":{"cached_tokens":3072,"cache_write_tokens":1024},"completion_tokens_details":{"reasoning_tokens":200}}"#,
        ),
        "[DONE]",
    ]);
    let (events, _) = lines("openai-chat", &body);
    assert_eq!(
        events[1],
        r#"{"event":"usage","input":904,"cache_read":3072,"cache_write_5m":1024,"cache_write_1h":0,"output":300,"thinking":200}"#
    );
}

#[test]
fn ollama_whole_tool_calls_and_reasoning_field() -> TestResult {
    let body = chat(&[
        &chunk(
            r#""choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning":"ls first"},"finish_reason":null}]"#,
        ),
        &chunk(
            r#""choices":[{"index":0,"delta":{"role":"assistant","content":"","tool_calls":[{"id":"call_a","index":0,"type":"function","function":{"name":"run","arguments":"{\"command\":\"ls\"}"}}]},"finish_reason":null}]"#,
        ),
        &chunk(
            r#""choices":[{"index":0,"delta":{"role":"assistant","content":"","tool_calls":[{"id":"call_b","index":1,"type":"function","function":{"name":"run","arguments":"{\"command\":\"ls -l\"}"}}]},"finish_reason":null}]"#,
        ),
        &chunk(
            r#""choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":"tool_calls"}]"#,
        ),
        &chunk(
            r#""choices":[],"usage":{"prompt_tokens":50,"completion_tokens":20,"total_tokens":70}"#,
        ),
        "[DONE]",
    ]);
    let (events, outcome) = lines("openai-chat", &body);
    assert_eq!(
        events[1..],
        [
            r#"{"event":"thinking_delta","text":"ls first"}"#,
            r#"{"event":"thinking_done","signature":null,"encrypted":null}"#,
            r#"{"event":"tool_call_start","key":"0","id":"call_a","name":"run"}"#,
            r#"{"event":"tool_call_args","key":"0","fragment":"{\"command\":\"ls\"}"}"#,
            r#"{"event":"tool_call_start","key":"1","id":"call_b","name":"run"}"#,
            r#"{"event":"tool_call_args","key":"1","fragment":"{\"command\":\"ls -l\"}"}"#,
            r#"{"event":"tool_call_end","key":"0"}"#,
            r#"{"event":"tool_call_end","key":"1"}"#,
            r#"{"event":"usage","input":50,"cache_read":0,"cache_write_5m":0,"cache_write_1h":0,"output":20,"thinking":0}"#,
            r#"{"event":"stop","reason":"tool_use","raw":"tool_calls"}"#,
        ]
    );
    assert_eq!(outcome, "complete");
    Ok(())
}

#[test]
fn chat_calls_that_reuse_an_index_get_their_own_keys() {
    let call = |id: &str| {
        chunk(&format!(
            r#""choices":[{{"index":0,"delta":{{"tool_calls":[{{"id":"{id}","index":0,"function":{{"name":"f","arguments":"{{}}"}}}}]}}}}]"#
        ))
    };
    let body = chat(&[&call("call_a"), &call("call_b"), "[DONE]"]);
    let (events, _) = lines("openai-chat", &body);
    assert_eq!(
        events[1..],
        [
            r#"{"event":"tool_call_start","key":"0","id":"call_a","name":"f"}"#,
            r#"{"event":"tool_call_args","key":"0","fragment":"{}"}"#,
            r#"{"event":"tool_call_end","key":"0"}"#,
            r#"{"event":"tool_call_start","key":"0.call_b","id":"call_b","name":"f"}"#,
            r#"{"event":"tool_call_args","key":"0.call_b","fragment":"{}"}"#,
            r#"{"event":"tool_call_end","key":"0.call_b"}"#,
            r#"{"event":"stop","reason":"tool_use","raw":null}"#,
        ]
    );
}

#[test]
fn chat_stop_reasons() {
    for (raw, reason) in [
        ("stop", "done"),
        ("tool_calls", "tool_use"),
        ("function_call", "tool_use"),
        ("length", "truncated"),
        ("content_filter", "refused"),
    ] {
        let finish = chunk(&format!(
            r#""choices":[{{"index":0,"delta":{{}},"finish_reason":"{raw}"}}]"#
        ));
        let (events, _) = lines("openai-chat", &chat(&[&finish, "[DONE]"]));
        assert_eq!(
            events[1],
            format!(r#"{{"event":"stop","reason":"{reason}","raw":"{raw}"}}"#)
        );
    }
    let refusal = chunk(
        r#""choices":[{"index":0,"delta":{"refusal":"I can't help with that."},"finish_reason":"stop"}]"#,
    );
    let (events, _) = lines("openai-chat", &chat(&[&refusal, "[DONE]"]));
    assert_eq!(
        events[1..],
        [
            r#"{"event":"text_delta","text":"I can't help with that."}"#,
            r#"{"event":"stop","reason":"refused","raw":"stop"}"#,
        ]
    );
}

const CREATED: &str = r#"{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","model":"gpt","status":"in_progress","output":[],"usage":null}}"#;

#[test]
fn responses_error_then_failed_reports_the_error_once() -> TestResult {
    let body = named(&[
        (
            "error",
            r#"{"type":"error","sequence_number":0,"code":"insufficient_quota","message":"You exceeded your current quota","param":null}"#,
        ),
        (
            "response.failed",
            r#"{"type":"response.failed","sequence_number":1,"response":{"id":"resp_1","status":"failed","error":{"code":"insufficient_quota","message":"You exceeded your current quota"},"usage":null}}"#,
        ),
    ]);
    let (events, outcome) = lines("openai-responses", &body);
    assert_eq!(
        events,
        [
            r#"{"event":"error","kind":"insufficient_quota","message":"You exceeded your current quota","retryable":false}"#,
            r#"{"event":"stop","reason":"error","raw":"failed"}"#,
        ]
    );
    assert_eq!(outcome, "complete");
    let body = named(&[
        ("response.created", CREATED),
        (
            "response.failed",
            r#"{"type":"response.failed","response":{"status":"failed","error":{"code":"server_error","message":"boom"}}}"#,
        ),
    ]);
    let (events, _) = lines("openai-responses", &body);
    assert_eq!(
        events[1..],
        [
            r#"{"event":"error","kind":"server_error","message":"boom","retryable":true}"#,
            r#"{"event":"stop","reason":"error","raw":"failed"}"#,
        ]
    );
    Ok(())
}

#[test]
fn responses_incomplete_inside_tool_arguments_is_truncated() -> TestResult {
    let body = named(&[
        ("response.created", CREATED),
        (
            "response.output_item.added",
            r#"{"type":"response.output_item.added","output_index":0,"item":{"id":"fc_1","type":"function_call","status":"in_progress","arguments":"","call_id":"call_1","name":"bash"}}"#,
        ),
        (
            "response.function_call_arguments.delta",
            r#"{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":0,"delta":"{\"comm"}"#,
        ),
        (
            "response.incomplete",
            r#"{"type":"response.incomplete","response":{"id":"resp_1","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"usage":{"input_tokens":10,"output_tokens":16,"input_tokens_details":{"cached_tokens":0},"output_tokens_details":{"reasoning_tokens":12}}}}"#,
        ),
    ]);
    let (events, outcome) = lines("openai-responses", &body);
    assert_eq!(
        events[1..],
        [
            r#"{"event":"tool_call_start","key":"fc_1","id":"call_1","name":"bash"}"#,
            r#"{"event":"tool_call_args","key":"fc_1","fragment":"{\"comm"}"#,
            r#"{"event":"tool_call_end","key":"fc_1"}"#,
            r#"{"event":"usage","input":10,"cache_read":0,"cache_write_5m":0,"cache_write_1h":0,"output":16,"thinking":12}"#,
            r#"{"event":"stop","reason":"truncated","raw":"max_output_tokens"}"#,
        ]
    );
    assert_eq!(outcome, "complete");
    Ok(())
}

#[test]
fn responses_arguments_only_in_done_events_reasoning_parts_and_unknowns() -> TestResult {
    let body = named(&[
        ("response.created", CREATED),
        (
            "response.in_progress",
            r#"{"type":"response.in_progress","response":{"id":"resp_1"}}"#,
        ),
        (
            "response.output_item.added",
            r#"{"type":"response.output_item.added","item":{"id":"rs_1","type":"reasoning","summary":[]}}"#,
        ),
        (
            "response.reasoning_summary_text.delta",
            r#"{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","summary_index":0,"delta":"First."}"#,
        ),
        (
            "response.reasoning_summary_text.delta",
            r#"{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","summary_index":1,"delta":"Second."}"#,
        ),
        (
            "response.output_item.done",
            r#"{"type":"response.output_item.done","item":{"id":"rs_1","type":"reasoning","summary":[],"encrypted_content":"ENC"}}"#,
        ),
        (
            "response.web_search_call.searching",
            r#"{"type":"response.web_search_call.searching","item_id":7}"#,
        ),
        (
            "response.output_item.added",
            r#"{"type":"response.output_item.added","item":{"id":"fc_1","type":"function_call","arguments":"","call_id":"call_1","name":"read"}}"#,
        ),
        (
            "response.function_call_arguments.done",
            r#"{"type":"response.function_call_arguments.done","item_id":"fc_1","arguments":"{\"path\":\"a\"}"}"#,
        ),
        (
            "response.output_item.done",
            r#"{"type":"response.output_item.done","item":{"id":"fc_1","type":"function_call","arguments":"{\"path\":\"a\"}","call_id":"call_1","name":"read"}}"#,
        ),
        (
            "response.completed",
            r#"{"type":"response.completed","response":{"id":"resp_1","status":"completed","usage":{"input_tokens":2000,"input_tokens_details":{"cached_tokens":1024,"cache_write_tokens":512},"output_tokens":30,"output_tokens_details":{"reasoning_tokens":20}}}}"#,
        ),
    ]);
    let (events, outcome) = lines("openai-responses", &body);
    assert_eq!(
        events,
        [
            r#"{"event":"start","id":"resp_1","model":"gpt"}"#,
            r#"{"event":"thinking_delta","text":"First."}"#,
            r#"{"event":"thinking_delta","text":"\n\n"}"#,
            r#"{"event":"thinking_delta","text":"Second."}"#,
            r#"{"event":"thinking_done","signature":null,"encrypted":"ENC"}"#,
            r#"{"event":"tool_call_start","key":"fc_1","id":"call_1","name":"read"}"#,
            r#"{"event":"tool_call_args","key":"fc_1","fragment":"{\"path\":\"a\"}"}"#,
            r#"{"event":"tool_call_end","key":"fc_1"}"#,
            r#"{"event":"usage","input":464,"cache_read":1024,"cache_write_5m":512,"cache_write_1h":0,"output":30,"thinking":20}"#,
            r#"{"event":"stop","reason":"tool_use","raw":"completed"}"#,
        ]
    );
    assert_eq!(outcome, "complete");
    Ok(())
}

#[test]
fn responses_events_without_event_names_dispatch_on_type() -> TestResult {
    let body = chat(&[
        CREATED,
        r#"{"type":"response.output_text.delta","item_id":"msg_1","delta":"ok"}"#,
        r#"{"type":"response.completed","response":{"id":"resp_1"}}"#,
    ]);
    let (events, outcome) = lines("openai-responses", &body);
    assert_eq!(events[1], r#"{"event":"text_delta","text":"ok"}"#);
    assert_eq!(
        events[2],
        r#"{"event":"stop","reason":"done","raw":"completed"}"#
    );
    assert_eq!(outcome, "complete");
    Ok(())
}

#[test]
fn events_after_the_terminal_event_are_ignored() -> TestResult {
    let mut body = named(&[("message_stop", MSG_STOP)]);
    body.extend_from_slice(b"event: message_start\ndata: not even json\n\n");
    let (events, outcome) = lines("anthropic", &body);
    assert_eq!(events.len(), 1);
    assert_eq!(outcome, "complete");
    Ok(())
}

#[test]
fn recordings_in_json_lines_are_framed_per_dialect() -> TestResult {
    let jsonl = b"\n{\"type\":\"message_stop\"}\n\n";
    let body = StreamDecoder::anthropic().sse_body(jsonl)?;
    assert_eq!(
        &*body,
        b"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
    );
    let body = StreamDecoder::openai_chat().sse_body(b"{\"choices\":[]}")?;
    assert_eq!(&*body, b"data: {\"choices\":[]}\n\ndata: [DONE]\n\n");
    let raw = b"data: {}\n\n";
    assert_eq!(&*StreamDecoder::openai_chat().sse_body(raw)?, raw);
    assert!(
        StreamDecoder::anthropic()
            .sse_body(b"{\"no_type\":1}")
            .is_err()
    );
    Ok(())
}
