//! The transcript: which records become items, and how revert, clear, fold and compaction
//! reshape it.

use hotl_log::{Block, Body, RunState};
use hotl_testkit::{FIXED_ID, LogBuilder, TestResult};
use hotl_view::{Boundary, Item, model_messages, project, stamp};

use crate::common::{model_text, originals, rec, records, session, user_seqs, view};

fn log() -> LogBuilder {
    LogBuilder::new(FIXED_ID, "/p")
}

fn b(turns: usize, items: usize, seq: u64) -> Boundary {
    Boundary { turns, items, seq }
}

/// Three standard turns: users at t3, t9, t15; each turn spans six seqs (2..=7, 8..=13, 14..=19).
fn three_turns() -> LogBuilder {
    let mut log = log();
    assert_eq!(log.turn("one"), 3);
    assert_eq!(log.turn("two"), 9);
    assert_eq!(log.turn("three"), 15);
    log
}

#[test]
fn a_turn_becomes_its_messages_and_tool_results() {
    let mut log = log();
    log.turn("one");
    let view = view(&log);
    assert_eq!(
        view.items,
        [
            Item::User {
                seq: 3,
                content: vec![Block::text("one")],
            },
            Item::Assistant {
                seq: 4,
                content: vec![Block::ToolUse {
                    id: "call_1".into(),
                    name: "bash".into(),
                    input: serde_json::json!({"command": "ls"}).into(),
                }],
                model: Some("demo".into()),
                stop: Some("tool_use".into()),
                usage: None,
            },
            Item::ToolResult {
                seq: 5,
                call: "call_1".into(),
                content: vec![Block::text("Cargo.toml\nsrc\n")],
                is_error: false,
                blob: None,
            },
            Item::Assistant {
                seq: 6,
                content: vec![Block::text("done: one")],
                model: Some("demo".into()),
                stop: Some("done".into()),
                usage: None,
            },
        ]
    );
    assert_eq!(view.turns, 1);
    assert!(!view.open_turn);
    assert_eq!(view.boundaries, [b(0, 0, 1), b(1, 4, 7)]);
    assert_eq!(view.head_seq, 7);
    assert_eq!(view.model_after, 0);
    assert!(view.anomalies.is_empty());
}

#[test]
fn state_and_unknown_records_are_not_items() {
    let mut log = log();
    log.turn("one");
    log.todos(&[("write tests", "in_progress")]);
    log.record(Body::Name {
        name: Some("alpha".into()),
    });
    log.record(Body::Unknown {
        kind: "hologram".into(),
    });
    log.raw(
        br#"{"seq":11,"ts":"T","type":"hologram","depth":{"deep":[1]}}"#,
        false,
    );
    let view = view(&log);
    assert_eq!(view.item_count(), 4);
    assert_eq!(view.head_seq, 11);
    // State records between turns belong to the boundary after the turn.
    assert_eq!(view.boundaries, [b(0, 0, 1), b(1, 4, 11)]);
    assert_eq!(view.state.name.as_deref(), Some("alpha"));
    assert_eq!(view.state.todos[0].text, "write tests");
    assert!(view.anomalies.is_empty());
}

#[test]
fn a_boundary_excludes_the_next_runs_start_and_keeps_state_records_before_it() {
    let mut log = three_turns();
    // todos between turn 3 and turn 4: the boundary before turn 4 keeps it.
    let todos = log.todos(&[("x", "pending")]);
    log.turn("four");
    let view = view(&log);
    assert_eq!(
        view.boundaries,
        [
            b(0, 0, 1),
            b(1, 4, 7),
            b(2, 8, 13),
            b(3, 12, todos),
            b(4, 16, log.seq()),
        ]
    );
}

#[test]
fn revert_hides_the_records_after_its_target() {
    let mut log = log();
    log.turn("one");
    log.turn("two");
    let revert = log.record(Body::Revert { to: 7 });
    let view = crate::common::view(&log);
    assert_eq!(user_seqs(&view.items), [3]);
    assert_eq!(view.item_count(), 4);
    assert_eq!(view.turns, 1);
    assert_eq!(view.head_seq, revert);
    // The turn it returned to keeps its end: the revert does not move its stamp.
    assert_eq!(view.boundaries, [b(0, 0, 1), b(1, 4, 7)]);

    // A new branch grows after the revert.
    let three = log.turn("three");
    let view = crate::common::view(&log);
    assert_eq!(user_seqs(&view.items), [3, three]);
    assert_eq!(
        view.boundaries,
        [b(0, 0, 1), b(1, 4, 7), b(2, 8, log.seq())]
    );
    assert_eq!(view.state.turns, 2, "the summary counts visible turns too");
}

#[test]
fn reverts_nest() {
    let mut log = log();
    log.turn("one"); // 2..=7
    log.turn("two"); // 8..=13
    let first = log.record(Body::Revert { to: 7 }); // hides two
    let three = log.turn("three");
    let end_three = log.seq();
    log.turn("four");
    log.record(Body::Revert { to: end_three }); // hides four, keeps the first revert
    assert_eq!(user_seqs(&view(&log).items), [3, three]);
    assert!(first < three);

    log.record(Body::Revert { to: 1 }); // back to before any turn
    let view0 = view(&log);
    assert!(view0.items.is_empty());
    assert_eq!(view0.turns, 0);
    assert_eq!(view0.boundaries, [b(0, 0, 1)], "where it returned to");

    let five = log.turn("five");
    assert_eq!(user_seqs(&view(&log).items), [five]);
}

#[test]
fn revert_hides_a_fold_and_a_clear_written_after_its_target() {
    let mut log = three_turns();
    log.record(Body::Clear);
    log.fold(9, 13, "b2e4", "built it");
    log.record(Body::Revert { to: 13 });
    let view = view(&log);
    assert_eq!(view.model_after, 0);
    assert_eq!(view.items.len(), 8);
    assert!(view.items.iter().all(|i| !matches!(i, Item::Folded { .. })));
    assert_eq!(user_seqs(&view.items), [3, 9]);
}

#[test]
fn clear_restarts_the_model_view_and_the_transcript_keeps_everything() {
    let mut log = log();
    log.turn("one");
    let clear = log.record(Body::Clear);
    log.turn("two");
    let second = log.record(Body::Clear);
    let three = log.turn("three");
    let view = view(&log);
    assert_eq!(view.model_after, second);
    assert!(clear < second);
    assert_eq!(user_seqs(&view.items), [3, 10, three]);
    assert_eq!(view.item_count(), 12);
}

#[test]
fn a_reverted_clear_no_longer_counts() {
    let mut log = log();
    log.turn("one"); // 2..=7
    log.turn("two"); // 8..=13
    log.record(Body::Clear); // 14
    log.turn("three"); // 15..=20
    log.record(Body::Revert { to: 7 });
    let view = view(&log);
    assert_eq!(view.model_after, 0);
    assert_eq!(user_seqs(&view.items), [3]);
}

#[test]
fn fold_replaces_its_span_with_one_folded_item() {
    let mut log = three_turns();
    log.fold(9, 13, "b2e4", "built it");
    let plain = crate::common::view(&three_turns());
    let view = crate::common::view(&log);
    assert!(view.anomalies.is_empty(), "{:?}", view.anomalies);
    assert_eq!(view.items.len(), 4 + 1 + 4);
    assert_eq!(view.items[..4], plain.items[..4]);
    assert_eq!(
        view.items[4],
        Item::Folded {
            handle: "b2e4".into(),
            note: "built it".into(),
            since: 9,
            until: 13,
            items: plain.items[4..8].to_vec(),
        }
    );
    assert_eq!(view.items[5..], plain.items[8..]);
    // A folded span counts as its original items; boundaries count originals too (the fold
    // record itself joins the final one).
    assert_eq!(view.item_count(), 12);
    assert_eq!(view.boundaries[..3], plain.boundaries[..3]);
    assert_eq!(view.boundaries[3], b(3, 12, 20));
    assert_eq!(originals(&view.items), plain.items);
}

#[test]
fn fold_may_start_at_a_step_inside_a_turn() {
    let mut log = three_turns();
    // From the assistant message of turn two's tool step (t10) to the end of turn three.
    log.fold(10, 19, "c0de", "steps");
    let view = view(&log);
    assert!(view.anomalies.is_empty(), "{:?}", view.anomalies);
    assert_eq!(view.items.len(), 4 + 1 + 1);
    assert!(matches!(view.items[4], Item::User { seq: 9, .. }));
    let Item::Folded { items, .. } = &view.items[5] else {
        panic!("expected a folded span, got {:?}", view.items[5]);
    };
    assert_eq!(items.len(), 3 + 4);
    assert_eq!(user_seqs(&view.items), [3, 9, 15]);
}

#[test]
fn later_folds_after_an_earlier_one_apply() {
    let mut log = three_turns();
    log.fold(3, 7, "aaaa", "first");
    log.fold(9, 19, "bbbb", "rest");
    let view = view(&log);
    assert!(view.anomalies.is_empty(), "{:?}", view.anomalies);
    assert_eq!(view.items.len(), 2);
    assert_eq!(user_seqs(&view.items), [3, 9, 15]);
}

#[test]
fn a_fold_reaching_behind_an_earlier_fold_is_ignored_and_reported() {
    let mut log = three_turns();
    log.fold(9, 13, "aaaa", "middle");
    let behind = log.fold(3, 19, "bbbb", "everything");
    let view = view(&log);
    assert_eq!(
        view.anomalies,
        [format!(
            "t{behind}: fold bbbb reaches behind an earlier fold; ignored"
        )]
    );
    let handles: Vec<&str> = view
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Folded { handle, .. } => Some(handle.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(handles, ["aaaa"]);
    assert_eq!(view.item_count(), 12);
}

#[test]
fn a_fold_reaching_behind_a_clear_is_ignored_and_reported() {
    // Written by hand or by an older hotl: the span holds a clear recorded before the fold.
    let mut log = three_turns();
    let clear = log.record(Body::Clear);
    let four = log.turn("four");
    let until = log.seq();
    let behind = log.fold(9, until, "cccc", "over the clear");
    let view = view(&log);
    assert_eq!(
        view.anomalies,
        [format!(
            "t{behind}: fold cccc reaches behind the clear at t{clear}; ignored"
        )]
    );
    let text = model_text(&model_messages(&view));
    assert!(!text.contains("[t9]"), "before the clear:\n{text}");
    assert!(text.contains(&stamp(four)), "{text}");
}

#[test]
fn a_fold_starting_inside_an_earlier_fold_is_ignored_and_reported() {
    let mut log = three_turns();
    log.fold(3, 13, "aaaa", "first two");
    let behind = log.fold(9, 19, "bbbb", "overlaps");
    let view = view(&log);
    assert_eq!(view.anomalies.len(), 1, "{:?}", view.anomalies);
    assert!(
        view.anomalies[0].starts_with(&format!("t{behind}: fold bbbb")),
        "{:?}",
        view.anomalies
    );
    assert_eq!(view.items.len(), 1 + 4, "{:#?}", view.items);
}

#[test]
fn a_fold_starting_inside_a_compaction_is_ignored_and_reported() {
    let mut log = three_turns();
    log.record(Body::Compaction {
        until: 13,
        summary: "s".into(),
    });
    let behind = log.fold(9, 19, "bbbb", "overlaps");
    let view = view(&log);
    assert_eq!(view.anomalies.len(), 1, "{:?}", view.anomalies);
    assert!(
        view.anomalies[0].starts_with(&format!("t{behind}: fold bbbb")),
        "{:?}",
        view.anomalies
    );
}

#[test]
fn a_fold_covering_nothing_visible_is_reported() {
    let mut log = three_turns();
    let fold = log.fold(100, 200, "dead", "nothing");
    let view = view(&log);
    assert_eq!(
        view.anomalies,
        [format!(
            "t{fold}: fold dead covers no visible item; ignored"
        )]
    );
    assert_eq!(view.items.len(), 12);
}

#[test]
fn compaction_replaces_everything_up_to_until() {
    let mut log = three_turns();
    log.record(Body::Compaction {
        until: 13,
        summary: "did two things".into(),
    });
    let plain = crate::common::view(&three_turns());
    let view = crate::common::view(&log);
    assert_eq!(
        view.items[0],
        Item::Compacted {
            until: 13,
            summary: "did two things".into(),
            items: plain.items[..8].to_vec(),
        }
    );
    assert_eq!(view.items[1..], plain.items[8..]);
    assert_eq!(view.item_count(), 12);
    assert_eq!(user_seqs(&view.items), [3, 9, 15]);
}

#[test]
fn compaction_takes_earlier_folds_with_it() {
    let mut log = three_turns();
    log.fold(9, 13, "b2e4", "middle");
    log.record(Body::Compaction {
        until: 19,
        summary: "all".into(),
    });
    let view = view(&log);
    assert_eq!(view.items.len(), 1);
    let Item::Compacted { items, .. } = &view.items[0] else {
        panic!("expected a compaction, got {:?}", view.items[0]);
    };
    assert!(matches!(items[4], Item::Folded { .. }));
    assert_eq!(user_seqs(&view.items), [3, 9, 15]);
}

#[test]
fn a_started_run_without_a_finish_leaves_the_turn_open() {
    let mut log = log();
    log.turn("one");
    log.record(Body::Run {
        run: "r2".into(),
        state: RunState::Started,
    });
    log.user("two");
    let view = view(&log);
    assert!(view.open_turn);
    assert_eq!(view.turns, 2);
    assert_eq!(
        view.boundaries,
        [b(0, 0, 1), b(1, 4, 7)],
        "no final boundary"
    );
}

#[test]
fn an_unanswered_tool_call_leaves_the_turn_open() {
    // With run records.
    let mut log = log();
    log.turn("one");
    log.record(Body::Run {
        run: "r2".into(),
        state: RunState::Started,
    });
    log.user("two");
    log.tool_call("bash", serde_json::json!({"command": "make"}));
    let view = crate::common::view(&log);
    assert!(view.open_turn);
    assert_eq!(view.boundaries.last(), Some(&b(1, 4, 7)));

    // Without run records (an imported log).
    let mut log = self::log();
    log.user("one");
    log.assistant("hi");
    log.user("two");
    log.tool_call("bash", serde_json::json!({"command": "make"}));
    let view = crate::common::view(&log);
    assert!(view.open_turn);
    assert_eq!(view.boundaries, [b(0, 0, 1), b(1, 2, 3)]);
}

#[test]
fn without_run_records_a_final_answer_closes_the_turn() {
    let mut log = log();
    log.user("one");
    let view = crate::common::view(&log);
    assert!(view.open_turn, "an unanswered message is an open turn");
    assert_eq!(view.boundaries, [b(0, 0, 1)]);

    log.assistant("hi");
    let view = crate::common::view(&log);
    assert!(!view.open_turn);
    assert_eq!(view.boundaries, [b(0, 0, 1), b(1, 2, 3)]);
}

#[test]
fn cancelled_and_interrupted_runs_close_their_turn() {
    for state in [RunState::Cancelled, RunState::Interrupted] {
        let mut log = log();
        log.record(Body::Run {
            run: "r1".into(),
            state: RunState::Started,
        });
        log.user("one");
        log.record(Body::Run {
            run: "r1".into(),
            state: state.clone(),
        });
        let view = view(&log);
        assert!(!view.open_turn, "{state:?}");
        assert_eq!(view.boundaries, [b(0, 0, 1), b(1, 1, 4)], "{state:?}");
    }
}

#[test]
fn an_empty_session_has_one_boundary_and_no_turn() {
    let view = project(&[session(1)], 0);
    assert!(view.items.is_empty());
    assert_eq!(view.turns, 0);
    assert!(!view.open_turn);
    assert_eq!(view.boundaries, [b(0, 0, 1)]);
    assert_eq!(view.head_seq, 1);
}

#[test]
fn own_start_limits_session_state_to_the_own_records() {
    // A fork's lineage: the parent's records, then the fork's own from its `session` record.
    let records = vec![
        session(1),
        rec(
            2,
            Body::Name {
                name: Some("parent".into()),
            },
        ),
        rec(3, Body::user_text("one")),
        session(4),
        rec(5, Body::user_text("fork's own")),
    ];
    let view = project(&records, 3);
    assert_eq!(view.state.name, None);
    assert_eq!(user_seqs(&view.items), [3, 5]);
    assert_eq!(
        project(&records[..3], 0).state.name.as_deref(),
        Some("parent")
    );
}

#[test]
fn reading_back_a_built_log_gives_the_same_view() -> TestResult {
    let mut log = three_turns();
    log.fold(9, 13, "b2e4", "n");
    let home = hotl_testkit::TestHome::new();
    let file = home.scratch().join("log.jsonl");
    log.write(&file)?;
    let read = hotl_log::read_log(&file, hotl_log::ReadOptions::default())?;
    let from_file: Vec<_> = read.records;
    assert_eq!(from_file, records(&log));
    assert_eq!(
        serde_json::to_string(&project(&from_file, 0))?,
        serde_json::to_string(&view(&log))?
    );
    Ok(())
}
