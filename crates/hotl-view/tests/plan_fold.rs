//! Planning folds: where a span starts and ends, and when a fold is refused.

use hotl_log::Body;
use hotl_testkit::{FIXED_ID, LogBuilder};
use hotl_view::{ViewError, project};

use crate::common::records;

fn three_turns() -> (LogBuilder, Vec<u64>) {
    let mut log = LogBuilder::new(FIXED_ID, "/p");
    let users = vec![log.turn("one"), log.turn("two"), log.turn("three")];
    (log, users)
}

#[test]
fn from_the_shell_a_fold_runs_from_a_user_message_to_the_head() {
    let (log, users) = three_turns();
    let view = project(&records(&log), 0);
    let span = view.plan_fold(users[1], None).expect("foldable");
    assert_eq!(span.since, users[1]);
    assert_eq!(span.users, [users[1], users[2]]);
    assert_eq!(
        span.until,
        view.items.last().map(|i| i.last_seq()).unwrap_or(0)
    );
}

#[test]
fn a_tool_result_stamp_snaps_back_to_its_step() {
    let (log, users) = three_turns();
    let view = project(&records(&log), 0);
    // In LogBuilder::turn the tool result is two records after the user message.
    let result = users[1] + 2;
    let span = view.plan_fold(result, None).expect("foldable");
    assert_eq!(
        span.since,
        users[1] + 1,
        "snapped back to the assistant message"
    );
    assert!(span.users.is_empty() || span.users[0] > users[1]);
}

#[test]
fn a_tool_issued_fold_stops_before_the_issuing_step() {
    let (mut log, users) = three_turns();
    log.user("fold what we did");
    let (issuer, _) = log.tool_call("fold", serde_json::json!({"since": "t3"}));
    let view = project(&records(&log), 0);
    let span = view.plan_fold(users[0], Some(issuer)).expect("foldable");
    assert!(span.until < issuer);
    assert_eq!(span.users.len(), 4);
    let err = view
        .plan_fold(issuer, Some(issuer))
        .expect_err("holds the issuer");
    assert!(err.to_string().contains("issued the fold"), "{err}");
}

#[test]
fn refused_behind_an_earlier_fold_and_over_an_unanswered_call() {
    let (mut log, users) = three_turns();
    let until = users[1] - 2;
    log.fold(users[0], until, "aaaa", "changed: x");
    let view = project(&records(&log), 0);
    let err = view
        .plan_fold(users[0] + 1, None)
        .expect_err("behind the fold");
    assert!(err.to_string().contains("earlier fold aaaa"), "{err}");
    let inside = view.plan_fold(users[0], None).expect_err("inside the fold");
    assert!(
        inside
            .to_string()
            .contains(&format!("t{} is inside the earlier fold aaaa", users[0])),
        "{inside}"
    );
    assert!(view.plan_fold(users[1], None).is_ok());

    let mut log = LogBuilder::new(FIXED_ID, "/p");
    let first = log.user("go");
    log.tool_call("bash", serde_json::json!({"command": "ls"}));
    let view = project(&records(&log), 0);
    let err = view.plan_fold(first, None).expect_err("open call");
    assert!(matches!(err, ViewError::BadFold { .. }));
    assert!(
        err.to_string().contains("unanswered tool call call_1"),
        "{err}"
    );
}

#[test]
fn a_fold_record_for_a_planned_span_folds_exactly_that_span() {
    let (mut log, users) = three_turns();
    let view = project(&records(&log), 0);
    let span = view.plan_fold(users[1], None).expect("foldable");
    log.record(Body::Fold(Box::new(hotl_log::Fold {
        since: span.since,
        until: span.until,
        handle: "b2e4".into(),
        note: "changed: x".into(),
        files: vec![],
        diff_blob: None,
    })));
    let folded = project(&records(&log), 0);
    assert!(folded.anomalies.is_empty(), "{:?}", folded.anomalies);
    assert!(matches!(
        folded.items.last(),
        Some(hotl_view::Item::Folded { handle, .. }) if handle == "b2e4"
    ));
}

#[test]
fn a_span_that_would_hold_an_earlier_fold_is_refused() {
    let (mut log, users) = three_turns();
    log.fold(users[1], users[2] - 2, "aaaa", "changed: x");
    let view = project(&records(&log), 0);
    let err = view
        .plan_fold(users[0], None)
        .expect_err("the span holds fold aaaa");
    assert!(err.to_string().contains("earlier fold aaaa"), "{err}");
    assert!(
        view.plan_fold(users[2], None).is_ok(),
        "after the fold is fine"
    );
}

#[test]
fn refused_behind_a_clear() {
    let (mut log, users) = three_turns();
    let clear = log.record(Body::Clear);
    let after = log.turn("four");
    let view = project(&records(&log), 0);
    let err = view
        .plan_fold(users[2], None)
        .expect_err("behind the clear");
    assert!(
        err.to_string()
            .contains(&format!("reaches behind the clear at t{clear}")),
        "{err}"
    );
    let span = view.plan_fold(after, None).expect("after the clear");
    assert_eq!(span.users, [after]);
}

#[test]
fn a_call_whose_result_was_lost_mid_history_does_not_block_a_fold() {
    let mut log = LogBuilder::new(FIXED_ID, "/p");
    let first = log.user("go");
    log.tool_call("bash", serde_json::json!({"command": "ls"}));
    log.record(Body::Unknown {
        kind: "tool_resul#".into(),
    });
    log.assistant("done");
    log.turn("two");
    let view = project(&records(&log), 0);
    let span = view.plan_fold(first, None).expect("foldable");
    assert_eq!(span.since, first);
}

#[test]
fn a_turn_end_stamp_is_not_a_message_and_past_the_head_is_past_the_end() {
    let (log, _) = three_turns();
    let view = project(&records(&log), 0);
    let end = view.head_seq;
    let err = view.plan_fold(end, None).expect_err("a turn's end");
    assert!(
        err.to_string()
            .contains(&format!("t{end} is not a message")),
        "{err}"
    );
    let err = view.plan_fold(end + 5, None).expect_err("past the end");
    assert!(err.to_string().contains("past the end"), "{err}");
}

/// `/fold` and `hotl fold` without a stamp fold the current episode.
#[test]
fn the_episode_starts_after_the_latest_fold_or_clear() {
    use hotl_log::{Block, Fold, Record, SessionStart};
    let view = |bodies: &[Body]| {
        let records: Vec<Record> = bodies
            .iter()
            .cloned()
            .enumerate()
            .map(|(i, body)| Record::new(i as u64 + 1, hotl_testkit::FIXED_TS, body))
            .collect();
        project(&records, 0)
    };
    let answer = |text: &str| Body::Assistant {
        content: vec![Block::text(text)],
        model: None,
        stop: Some("end_turn".to_owned()),
        stop_raw: None,
        usage: None,
    };
    let fold = |since, until| {
        Body::Fold(Box::new(Fold {
            since,
            until,
            handle: "ab12".to_owned(),
            note: "changed: x".to_owned(),
            files: Vec::new(),
            diff_blob: None,
        }))
    };
    let session = Body::Session(Box::new(SessionStart::new("/p")));
    let u = Body::user_text;
    // 1 session, 2 user, 3 answer, 4 user, 5 answer.
    let mut bodies = vec![session.clone(), u("a"), answer("A"), u("b"), answer("B")];
    assert_eq!(view(&bodies).episode_start(), Some(2));
    bodies.push(fold(2, 3)); // 6
    assert_eq!(view(&bodies).episode_start(), Some(4));
    bodies.push(Body::Clear); // 7
    assert_eq!(view(&bodies).episode_start(), None);
    bodies.extend([u("c"), answer("C")]); // 8, 9
    assert_eq!(view(&bodies).episode_start(), Some(8));
    bodies.push(fold(8, 9)); // 10
    assert_eq!(view(&bodies).episode_start(), None);
    // Steps after a fold, with no new message, are an episode too.
    bodies.extend([
        Body::Assistant {
            content: vec![Block::ToolUse {
                id: "c1".into(),
                name: "bash".into(),
                input: serde_json::json!({"command": "ls"}).into(),
            }],
            model: None,
            stop: Some("tool_use".into()),
            stop_raw: None,
            usage: None,
        }, // 11
        Body::ToolResult {
            call: "c1".into(),
            content: vec![Block::text("out")],
            blob: None,
            is_error: false,
            files: Vec::new(),
        }, // 12
    ]);
    assert_eq!(view(&bodies).episode_start(), Some(12));
    assert_eq!(view(&[session]).episode_start(), None);
}
