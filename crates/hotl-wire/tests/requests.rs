//! Request bodies: pinned bytes per dialect, determinism, breakpoints, and prefix stability.

use hotl_log::{Block, Body, read_from};
use hotl_testkit::{FIXED_ID, LogBuilder};
use hotl_view::{View, model_view, project};
use hotl_wire::{
    CanonicalPrefix, Dialect, MAX_BREAKPOINTS, Request, ToolChoice, ToolDef, Ttl, encode, extends,
    place_breakpoints,
};
use serde_json::value::RawValue;

fn tools() -> Vec<ToolDef> {
    let schema = |s: &str| RawValue::from_string(s.to_owned()).expect("valid schema");
    vec![
        ToolDef {
            name: "bash".into(),
            description: "Run a shell command".into(),
            input_schema: schema(
                r#"{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}"#,
            ),
        },
        ToolDef {
            name: "read".into(),
            description: "Read a file".into(),
            input_schema: schema(
                r#"{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}"#,
            ),
        },
    ]
}

fn view_of(log: &LogBuilder) -> View {
    let records = read_from(&log.text()[..], Default::default())
        .expect("in memory")
        .records;
    project(&records, 0)
}

/// A session with `turns` finished turns (one tool step each) and an open question.
fn session(turns: usize) -> LogBuilder {
    let mut log = LogBuilder::new(FIXED_ID, "/p");
    for i in 0..turns {
        log.turn(&format!("question {i}"));
    }
    log.user("and now?");
    log
}

fn request<'a>(view: &'a View) -> Request<'a> {
    let mut r = Request::new("claude-sonnet-5", model_view(view));
    r.system = vec![
        "You are hotl.".into(),
        "Project instructions: be brief.".into(),
    ];
    r.tools = tools();
    r.dynamic = vec!["<todos>none</todos>".into()];
    r.cache.key = Some("01JDKEY".into());
    r
}

fn body(dialect: Dialect, view: &View) -> String {
    String::from_utf8(encode(dialect, &request(view))).expect("utf-8")
}

#[test]
fn anthropic_body_is_pinned() {
    let view = view_of(&session(1));
    insta::assert_snapshot!(body(Dialect::Anthropic, &view));
}

#[test]
fn openai_chat_body_is_pinned() {
    let view = view_of(&session(1));
    insta::assert_snapshot!(body(Dialect::OpenAiChat, &view));
}

#[test]
fn openai_responses_body_is_pinned() {
    let view = view_of(&session(1));
    insta::assert_snapshot!(body(Dialect::OpenAiResponses, &view));
}

#[test]
fn bodies_are_byte_identical_for_the_same_view() {
    let log = session(3);
    for dialect in [
        Dialect::Anthropic,
        Dialect::OpenAiChat,
        Dialect::OpenAiResponses,
    ] {
        let a = body(dialect, &view_of(&log));
        let b = body(dialect, &view_of(&log));
        assert_eq!(a, b, "{dialect:?}");
        serde_json::from_str::<serde_json::Value>(&a).expect("valid JSON");
    }
}

#[test]
fn tool_input_key_order_is_kept_as_received() {
    let mut log = LogBuilder::new(FIXED_ID, "/p");
    log.user("go");
    log.record(Body::Assistant {
        content: vec![Block::ToolUse {
            id: "c1".into(),
            name: "bash".into(),
            input: hotl_log::ToolInput::from_json(r#"{"z":1,"a":{"y":2,"b":3}}"#).expect("json"),
        }],
        model: None,
        stop: None,
        stop_raw: None,
        usage: None,
    });
    log.tool_result("c1", "ok");
    let view = view_of(&log);
    assert!(body(Dialect::Anthropic, &view).contains(r#""input":{"z":1,"a":{"y":2,"b":3}}"#));
    assert!(
        body(Dialect::OpenAiChat, &view).contains(r#"\"z\":1,\"a\":{\"y\":2,\"b\":3}"#),
        "arguments are the same text, as a JSON string"
    );
}

#[test]
fn never_more_than_four_breakpoints_and_never_on_dynamic_text() {
    for turns in [0, 1, 2, 5, 9, 20, 60] {
        let view = view_of(&session(turns));
        let mut r = request(&view);
        r.cache.episode_anchor = Some(1);
        let marks = place_breakpoints(&r);
        assert!(marks.len() <= MAX_BREAKPOINTS, "{turns} turns: {marks:?}");
        let text = String::from_utf8(encode(Dialect::Anthropic, &r)).expect("utf-8");
        assert_eq!(text.matches("cache_control").count(), marks.len());
        let last_mark = text.rfind("cache_control").expect("marked");
        let dynamic = text.find("<todos>").expect("dynamic text sent");
        assert!(
            dynamic > last_mark,
            "dynamic text rides after the last breakpoint"
        );
    }
}

#[test]
fn the_last_durable_block_and_the_system_end_are_marked() {
    let view = view_of(&session(2));
    let r = request(&view);
    let marks = place_breakpoints(&r);
    assert!(marks.prefix);
    let last_user = r
        .messages
        .iter()
        .rposition(|m| m.role == hotl_view::Role::User)
        .expect("a user message");
    let last_block = r.messages[last_user].content.len() - 1;
    assert!(marks.has(last_user, last_block), "{marks:?}");
}

#[test]
fn hour_long_ttl_is_written_on_every_marker() {
    let view = view_of(&session(2));
    let mut r = request(&view);
    r.cache.ttl = Ttl::OneHour;
    let text = String::from_utf8(encode(Dialect::Anthropic, &r)).expect("utf-8");
    let marks = text.matches("cache_control").count();
    assert_eq!(text.matches(r#""ttl":"1h""#).count(), marks);
}

#[test]
fn a_longer_conversation_extends_the_shorter_one() {
    let mut log = session(0);
    let mut previous: Option<CanonicalPrefix> = None;
    for i in 0..30 {
        log.turn(&format!("step {i}"));
        log.user("next?");
        let view = view_of(&log);
        let prefix = CanonicalPrefix::of(&request(&view));
        if let Some(earlier) = &previous {
            assert!(extends(&prefix, earlier), "request {i} breaks the prefix");
        }
        previous = Some(prefix);
    }
}

#[test]
fn a_changed_system_prompt_or_tool_choice_breaks_the_prefix() {
    let view = view_of(&session(3));
    let base = CanonicalPrefix::of(&request(&view));
    let mut other = request(&view);
    other.system[0] = "You are a different persona.".into();
    assert!(!extends(&CanonicalPrefix::of(&other), &base));
    let mut other = request(&view);
    other.tool_choice = ToolChoice::Any;
    let changed = CanonicalPrefix::of(&other);
    assert!(!extends(&changed, &base));
    // Tools and system still match: only the messages level is invalidated.
    assert_eq!(changed.common_len(&base), tools().len() + 2);
}

#[test]
fn reusing_message_bytes_gives_the_same_body_as_encoding_everything() {
    let mut log = session(0);
    let mut cache = hotl_wire::MessageCache::default();
    for i in 0..40 {
        log.turn(&format!("step {i}"));
        if i % 3 == 0 {
            log.user("a second message in a row, merged with the next");
        }
        log.user("next?");
        let view = view_of(&log);
        let mut r = request(&view);
        r.cache.episode_anchor = (i > 10).then_some(5);
        let full = encode(Dialect::Anthropic, &r);
        let reused = hotl_wire::encode_reusing(Dialect::Anthropic, &r, "k1", &mut cache);
        assert_eq!(
            String::from_utf8_lossy(&reused),
            String::from_utf8_lossy(&full),
            "step {i}"
        );
    }
}
