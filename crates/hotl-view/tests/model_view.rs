//! The model view: stamps, merged roles, clears, and how folded and compacted spans render.

use hotl_log::{Block, Body, RunState};
use hotl_testkit::{FIXED_ID, LogBuilder};
use hotl_view::{Message, QUOTE_CAP, Role, model_messages, project, stamp};

use crate::common::{model_text, rec, records, session, view};

fn log() -> LogBuilder {
    LogBuilder::new(FIXED_ID, "/p")
}

fn user(content: Vec<Block>) -> Message {
    Message {
        role: Role::User,
        content,
    }
}

fn assistant(content: Vec<Block>) -> Message {
    Message {
        role: Role::Assistant,
        content,
    }
}

fn tool_use(id: &str) -> Block {
    Block::ToolUse {
        id: id.into(),
        name: "bash".into(),
        input: serde_json::json!({"command": "ls"}).into(),
    }
}

fn tool_result(id: &str, text: &str) -> Block {
    Block::ToolResult {
        tool_use_id: id.into(),
        content: vec![Block::text(text)],
        is_error: false,
    }
}

fn three_turns() -> LogBuilder {
    let mut log = log();
    log.turn("one");
    log.turn("two");
    log.turn("three");
    log
}

fn started(log: &mut LogBuilder) {
    log.record(Body::Run {
        run: "r".into(),
        state: RunState::Started,
    });
}

fn ended(log: &mut LogBuilder, state: RunState) {
    log.record(Body::Run {
        run: "r".into(),
        state,
    });
}

#[test]
fn stamp_is_t_and_the_seq() {
    assert_eq!(stamp(42), "[t42]");
}

#[test]
fn stamps_lead_user_messages_and_tool_results() {
    let mut log = log();
    log.turn("one");
    assert_eq!(
        model_messages(&view(&log)),
        [
            user(vec![Block::text("[t3] one")]),
            assistant(vec![tool_use("call_1")]),
            user(vec![tool_result("call_1", "[t5] Cargo.toml\nsrc\n")]),
            assistant(vec![Block::text("done: one")]),
        ]
    );
}

#[test]
fn consecutive_messages_of_one_role_are_merged() {
    // A cancelled turn's message, then the next turn's message.
    let mut log = log();
    started(&mut log);
    log.user("a");
    ended(&mut log, RunState::Cancelled);
    log.turn("b");
    let messages = model_messages(&view(&log));
    assert_eq!(
        messages[0],
        user(vec![Block::text("[t3] a"), Block::text("[t6] b")])
    );

    // A tool result, the run interrupted, then a new message.
    let mut log = self::log();
    started(&mut log);
    log.user("a");
    let (_, call) = log.tool_call("bash", serde_json::json!({"command": "ls"}));
    log.tool_result(&call, "out");
    ended(&mut log, RunState::Interrupted);
    started(&mut log);
    log.user("b");
    assert_eq!(
        model_messages(&view(&log)),
        [
            user(vec![Block::text("[t3] a")]),
            assistant(vec![tool_use("call_1")]),
            user(vec![
                tool_result("call_1", "[t5] out"),
                Block::text("[t8] b")
            ]),
        ]
    );

    // Two assistant records in a row.
    let records = vec![
        session(1),
        rec(2, Body::user_text("q")),
        rec(
            3,
            Body::Assistant {
                content: vec![Block::text("let me look")],
                model: None,
                stop: None,
                stop_raw: None,
                usage: None,
            },
        ),
        rec(
            4,
            Body::Assistant {
                content: vec![Block::text("done")],
                model: None,
                stop: None,
                stop_raw: None,
                usage: None,
            },
        ),
    ];
    assert_eq!(
        model_messages(&project(&records, 0))[1],
        assistant(vec![Block::text("let me look"), Block::text("done")])
    );
}

#[test]
fn a_message_without_text_gets_a_stamp_block_and_unknown_blocks_are_dropped() {
    let image = Block::Image {
        media_type: "image/png".into(),
        data: None,
        blob: Some("ab".repeat(32)),
    };
    let unknown = Block::Unknown {
        kind: "hologram".into(),
    };
    let records = vec![
        session(1),
        rec(
            2,
            Body::User {
                content: vec![image.clone()],
            },
        ),
        rec(
            3,
            Body::Assistant {
                content: vec![unknown.clone(), tool_use("c1")],
                model: None,
                stop: None,
                stop_raw: None,
                usage: None,
            },
        ),
        rec(
            4,
            Body::ToolResult {
                call: "c1".into(),
                content: vec![],
                blob: None,
                is_error: true,
                files: vec![],
            },
        ),
        rec(
            5,
            Body::Assistant {
                content: vec![unknown.clone()],
                model: None,
                stop: None,
                stop_raw: None,
                usage: None,
            },
        ),
        rec(
            6,
            Body::User {
                content: vec![unknown, image.clone(), Block::text("and this")],
            },
        ),
    ];
    assert_eq!(
        model_messages(&project(&records, 0)),
        [
            user(vec![Block::text("[t2]"), image.clone()]),
            assistant(vec![tool_use("c1")]),
            user(vec![
                Block::ToolResult {
                    tool_use_id: "c1".into(),
                    content: vec![Block::text("[t4]")],
                    is_error: true,
                },
                // The assistant message made only of unknown blocks is left out entirely.
                image,
                Block::text("[t6] and this"),
            ]),
        ]
    );
}

#[test]
fn the_model_view_starts_after_the_latest_clear() {
    let mut log = log();
    log.turn("one"); // 2..=7
    log.record(Body::Clear); // 8
    log.turn("two"); // 9..=14
    let clear = log.record(Body::Clear); // 15
    log.turn("three"); // 16..=21
    let view = view(&log);
    assert_eq!(view.model_after, clear);
    let messages = model_messages(&view);
    assert_eq!(messages[0], user(vec![Block::text("[t17] three")]));
    let text = model_text(&messages);
    assert!(!text.contains("[t3]") && !text.contains("[t10]"), "{text}");
}

#[test]
fn a_clear_at_the_head_leaves_an_empty_model_view() {
    let mut log = log();
    log.turn("one");
    log.record(Body::Clear);
    assert!(model_messages(&view(&log)).is_empty());
}

#[test]
fn a_folded_span_renders_as_one_user_block_with_its_messages_quoted() {
    let mut log = three_turns();
    log.fold(9, 13, "b2e4", "built it");
    let messages = model_messages(&view(&log));
    let plain = model_messages(&view(&three_turns()));
    assert_eq!(messages[..3], plain[..3]);
    assert_eq!(
        messages[3..],
        [
            assistant(vec![Block::text("done: one")]),
            user(vec![
                Block::text("<folded handle=b2e4 span=t9..t13>\nbuilt it\n</folded>\n[t9] two"),
                Block::text("[t15] three"),
            ]),
            assistant(vec![tool_use("call_3")]),
            user(vec![tool_result("call_3", "[t17] Cargo.toml\nsrc\n")]),
            assistant(vec![Block::text("done: three")]),
        ]
    );
}

/// The model's fold call stays in the context after the folded span, note and all: the span
/// then says where the note is instead of carrying it a second time. A fold from the shell has
/// no call after it and keeps its note; a call with another note is not the issuer.
#[test]
fn a_note_the_fold_call_after_the_span_carries_is_sent_once() {
    let note = "changed: x\nlearned: y";
    let mut log = log();
    log.user("work"); // 2
    let (_, bash) = log.tool_call("bash", serde_json::json!({"command": "ls"})); // 3
    log.tool_result(&bash, "out"); // 4
    let (_, fold) = log.tool_call("fold", serde_json::json!({"since": "t2", "note": note})); // 5
    let folded = log.clone();
    log.fold(2, 4, "b2e4", note); // 6
    log.tool_result(&fold, "folded t2..t4 into handle b2e4"); // 7
    let messages = model_messages(&view(&log));
    let sent = serde_json::to_string(&messages).unwrap_or_default();
    assert_eq!(sent.matches("learned: y").count(), 1, "{sent}");
    assert_eq!(
        messages[0],
        user(vec![Block::text(
            "<folded handle=b2e4 span=t2..t4>\n(note: in your fold call below)\n</folded>\n[t2] work"
        )])
    );
    // The same fold with another note in the call (or none after it) keeps its own.
    let mut other = folded;
    other.fold(2, 4, "b2e4", "changed: z");
    let text = model_text(&model_messages(&view(&other)));
    assert!(
        text.contains("<folded handle=b2e4 span=t2..t4>\nchanged: z\n</folded>"),
        "{text}"
    );
}

#[test]
fn a_fold_quotes_every_user_message_of_its_span_in_order() {
    let mut log = three_turns();
    log.fold(3, 19, "beef", "all of it");
    assert_eq!(
        model_messages(&view(&log)),
        [user(vec![Block::text(
            "<folded handle=beef span=t3..t19>\nall of it\n</folded>\n[t3] one\n[t9] two\n[t15] three"
        )])]
    );
}

#[test]
fn long_quotes_are_capped_with_a_pointer_naming_the_handle() {
    let long = "é".repeat(QUOTE_CAP + 500);
    let exact = "x".repeat(QUOTE_CAP);
    let mut log = log();
    log.user(&long); // 2
    log.assistant("ok"); // 3
    log.user(&exact); // 4
    log.assistant("ok"); // 5
    log.fold(2, 5, "b2e4", "pastes");
    let messages = model_messages(&view(&log));
    let expected = format!(
        "<folded handle=b2e4 span=t2..t5>\npastes\n</folded>\n[t2] {} [… 500 more characters; recall handle=b2e4]\n[t4] {exact}",
        "é".repeat(QUOTE_CAP)
    );
    assert_eq!(messages, [user(vec![Block::text(expected)])]);
}

#[test]
fn unfolded_long_messages_are_sent_whole() {
    let long = "y".repeat(QUOTE_CAP * 2);
    let mut log = log();
    log.user(&long);
    let messages = model_messages(&view(&log));
    assert_eq!(messages, [user(vec![Block::text(format!("[t2] {long}"))])]);
}

#[test]
fn a_compaction_renders_its_summary_then_the_quoted_messages() {
    let mut log = three_turns();
    log.record(Body::Compaction {
        until: 13,
        summary: "did two things".into(),
    });
    let messages = model_messages(&view(&log));
    assert_eq!(
        messages[0],
        user(vec![
            Block::text("<compacted until=t13>\ndid two things\n</compacted>\n[t3] one\n[t9] two"),
            Block::text("[t15] three"),
        ])
    );
    assert_eq!(messages.len(), 4);
}

#[test]
fn a_compacted_long_quote_is_capped_and_points_to_recall_but_the_last_is_whole() {
    let long = "z".repeat(QUOTE_CAP + 1);
    let mut log = log();
    log.user(&long); // 2
    log.assistant("ok"); // 3
    log.user(&long); // 4: the message a turn in progress answers
    log.assistant("working"); // 5
    log.record(Body::Compaction {
        until: 5,
        summary: "s".into(),
    });
    let expected = format!(
        "<compacted until=t5>\ns\n</compacted>\n[t2] {} [… 1 more characters; recall finds the rest]\n[t4] {long}",
        "z".repeat(QUOTE_CAP)
    );
    assert_eq!(
        model_messages(&view(&log)),
        [user(vec![Block::text(expected)])]
    );
}

/// A compaction after a clear holds only what the model saw: the messages before the clear
/// stay out of the model view.
#[test]
fn a_compaction_after_a_clear_holds_only_what_follows_the_clear() {
    let mut log = log();
    log.user("SECRET-OLD-TASK"); // 2
    log.assistant("old"); // 3
    let clear = log.record(Body::Clear); // 4
    log.user("new task"); // 5
    log.assistant("new"); // 6
    log.record(Body::Compaction {
        until: 6,
        summary: "s".into(),
    });
    let view = view(&log);
    let sent = format!("{:?}", model_messages(&view));
    assert!(!sent.contains("SECRET-OLD-TASK"), "{sent}");
    assert!(
        sent.contains("<compacted until=t6>") && sent.contains("new task"),
        "{sent}"
    );
    // The transcript keeps both, the compaction after the clear.
    assert!(matches!(
        view.items[0],
        hotl_view::Item::User { seq: 2, .. }
    ));
    assert!(matches!(
        view.items.last(),
        Some(hotl_view::Item::Compacted { .. })
    ));
    assert_eq!(view.model_after, clear);
}

#[test]
fn a_fold_before_the_latest_clear_is_not_sent() {
    let mut log = three_turns();
    log.fold(3, 7, "aaaa", "first");
    let clear = log.record(Body::Clear);
    let four = log.turn("four");
    let view = view(&log);
    assert_eq!(view.model_after, clear);
    let text = model_text(&model_messages(&view));
    assert!(!text.contains("<folded"), "{text}");
    assert!(text.starts_with(&format!("[t{four}] four")), "{text}");
}

#[test]
fn the_same_records_give_the_same_bytes() -> hotl_testkit::TestResult {
    let mut log = three_turns();
    log.fold(9, 13, "b2e4", "n");
    log.record(Body::Clear);
    log.turn("four");
    let records = records(&log);
    let a = serde_json::to_vec(&model_messages(&project(&records, 0)))?;
    let b = serde_json::to_vec(&model_messages(&project(&records.clone(), 0)))?;
    assert_eq!(a, b);
    Ok(())
}

#[test]
fn a_call_whose_result_line_was_lost_is_answered_with_an_error_once_the_talk_moves_on() {
    let mut log = log();
    let go = log.user("go");
    let (_, call) = log.tool_call("bash", serde_json::json!({"command": "ls"}));
    // The result's line is unreadable (a newer record type, a bad byte).
    log.record(Body::Unknown {
        kind: "tool_resul#".into(),
    });
    log.assistant("done");
    let next = log.user("next");
    let messages = model_messages(&view(&log));
    assert_eq!(messages.len(), 5, "{messages:#?}");
    assert_eq!(messages[1], assistant(vec![tool_use(&call)]));
    assert_eq!(
        messages[2],
        user(vec![Block::ToolResult {
            tool_use_id: call.clone(),
            content: vec![Block::text(
                "result lost: the log line that held it could not be read"
            )],
            is_error: true,
        }])
    );
    assert_eq!(
        messages[0],
        user(vec![Block::text(format!("{} go", stamp(go)))])
    );
    assert_eq!(
        messages[4],
        user(vec![Block::text(format!("{} next", stamp(next)))])
    );

    // A call still running at the head stays open: the turn answers it.
    let mut running = self::log();
    running.user("go");
    running.tool_call("bash", serde_json::json!({"command": "ls"}));
    let messages = model_messages(&view(&running));
    assert_eq!(messages.len(), 2);
    assert_eq!(messages[1].role, Role::Assistant);
}

#[test]
fn a_result_whose_call_line_was_lost_reaches_the_model_as_text() {
    let mut log = log();
    log.user("go");
    log.record(Body::Unknown {
        kind: "assistant#".into(),
    });
    let result = log.tool_result("call_9", "file list");
    log.assistant("done");
    let messages = model_messages(&view(&log));
    assert_eq!(messages.len(), 2, "{messages:#?}");
    assert_eq!(
        messages[0].content[1..],
        [
            Block::text("(a tool result whose call could not be read from the log:)"),
            Block::text(format!("{} file list", stamp(result))),
        ]
    );
    assert!(
        !messages[0]
            .content
            .iter()
            .any(|b| matches!(b, Block::ToolResult { .. }))
    );
}

/// Two lines lost: a call's result, then the step whose result arrives as an orphan. The lost
/// result's answer leads the message, before the orphan's text (providers want tool results
/// first).
#[test]
fn a_lost_result_is_answered_before_an_orphan_result_s_text() {
    let mut log = log();
    log.user("go");
    let (_, call) = log.tool_call("bash", serde_json::json!({"command": "ls"}));
    log.record(Body::Unknown {
        kind: "tool_resul#".into(),
    });
    log.record(Body::Unknown {
        kind: "assistan#".into(),
    });
    log.tool_result("call_x", "file list");
    log.assistant("done");
    let messages = model_messages(&view(&log));
    assert_eq!(messages.len(), 4, "{messages:#?}");
    assert!(
        matches!(&messages[2].content[0], Block::ToolResult { tool_use_id, is_error: true, .. } if *tool_use_id == call),
        "{messages:#?}"
    );
    assert!(
        messages[2].content[1..]
            .iter()
            .all(|b| !matches!(b, Block::ToolResult { .. })),
        "{messages:#?}"
    );
}

#[test]
fn a_background_childs_report_reaches_the_model_without_a_turn_of_its_own() {
    let mut log = log();
    log.turn("start the work");
    let report = log.record(Body::ChildFinished {
        handle: "kid1".into(),
        child: "01JD0000000000000000000002".into(),
        state: "finished".into(),
        report: "the tests pass".into(),
        usage: None,
        cost: None,
        patch_blob: None,
    });
    log.user("what did it find?");
    let v = view(&log);
    assert_eq!(v.turns, 2, "the report starts no turn");
    let messages = model_messages(&v);
    let text = model_text(&messages);
    assert!(
        text.contains(&format!(
            "{} background child kid1 finished:\nthe tests pass",
            stamp(report)
        )),
        "{text}"
    );
    // It sits on the user's side, merged with the next message (roles alternate).
    let last = messages.last().expect("messages");
    assert_eq!(last.role, Role::User);
    assert!(model_text(std::slice::from_ref(last)).contains("the tests pass"));
    assert!(model_text(std::slice::from_ref(last)).contains("what did it find?"));
}
