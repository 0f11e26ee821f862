//! Cuts: `--keep`, `--keep-turns`, `t<seq>` and the head; off-boundary cuts name the nearest.

use hotl_log::{Block, Body, RunState};
use hotl_testkit::{FIXED_ID, LogBuilder};
use hotl_view::{Boundary, Cut, View, ViewError, project};

use crate::common::{session, view};

fn b(turns: usize, items: usize, seq: u64) -> Boundary {
    Boundary { turns, items, seq }
}

fn cut(boundary: Boundary, at_head: bool) -> Cut {
    Cut { boundary, at_head }
}

/// Turn one has 4 items (t2..=t7); turn two has 5 (a step with two parallel calls, t8..=t14).
fn two_turns() -> LogBuilder {
    let mut log = LogBuilder::new(FIXED_ID, "/p");
    log.turn("one");
    log.record(Body::Run {
        run: "r2".into(),
        state: RunState::Started,
    });
    log.user("two");
    log.record(Body::Assistant {
        content: ["a", "b"]
            .iter()
            .map(|id| Block::ToolUse {
                id: (*id).into(),
                name: "bash".into(),
                input: serde_json::json!({}).into(),
            })
            .collect(),
        model: None,
        stop: Some("tool_use".into()),
        stop_raw: None,
        usage: None,
    });
    log.tool_result("a", "A");
    log.tool_result("b", "B");
    log.assistant("both done");
    log.record(Body::Run {
        run: "r2".into(),
        state: RunState::Finished,
    });
    log
}

fn open_third(log: &mut LogBuilder) {
    log.record(Body::Run {
        run: "r3".into(),
        state: RunState::Started,
    });
    log.user("three");
}

fn err_text<T: std::fmt::Debug>(r: hotl_view::Result<T>) -> String {
    r.expect_err("the cut must be refused").to_string()
}

#[test]
fn the_fixture_has_the_boundaries_the_tests_assume() {
    assert_eq!(
        view(&two_turns()).boundaries,
        [b(0, 0, 1), b(1, 4, 7), b(2, 9, 14)]
    );
}

#[test]
fn keep_on_a_boundary_cuts_there() {
    let view = view(&two_turns());
    assert_eq!(view.cut_after_items(4), Ok(cut(b(1, 4, 7), false)));
    assert_eq!(view.cut_after_items(9), Ok(cut(b(2, 9, 14), true)));
}

#[test]
fn keep_off_a_boundary_names_the_nearest_valid_values() {
    let view = view(&two_turns());
    assert_eq!(
        err_text(view.cut_after_items(5)),
        "--keep 5 is not on a turn boundary; nearest valid: --keep 4 or --keep 9"
    );
    assert_eq!(
        view.cut_after_items(5),
        Err(ViewError::BadCut {
            requested: "--keep 5".into(),
            nearest: vec!["--keep 4".into(), "--keep 9".into()],
        })
    );
    assert_eq!(
        err_text(view.cut_after_items(0)),
        "--keep 0 is not on a turn boundary; nearest valid: --keep 4"
    );
    assert_eq!(
        err_text(view.cut_after_items(12)),
        "--keep 12 is not on a turn boundary; nearest valid: --keep 9"
    );
}

#[test]
fn keep_without_a_completed_turn_says_so() {
    let mut log = LogBuilder::new(FIXED_ID, "/p");
    log.user("unanswered");
    assert_eq!(
        err_text(view(&log).cut_after_items(1)),
        "--keep 1 is not on a turn boundary; nearest valid: none (the session has no completed turn)"
    );
}

#[test]
fn keep_counts_a_folded_span_as_its_items() {
    let mut log = two_turns();
    log.fold(3, 7, "b2e4", "first turn");
    let view = view(&log);
    assert_eq!(view.items.len(), 1 + 5);
    assert_eq!(view.cut_after_items(4), Ok(cut(b(1, 4, 7), false)));
    assert_eq!(
        view.cut_after_items(1).map_err(|e| e.to_string()),
        Err("--keep 1 is not on a turn boundary; nearest valid: --keep 4".into())
    );
}

#[test]
fn keep_turns_cuts_after_the_nth_completed_turn() {
    let view = view(&two_turns());
    assert_eq!(view.cut_after_turns(1), Ok(cut(b(1, 4, 7), false)));
    assert_eq!(view.cut_after_turns(2), Ok(cut(b(2, 9, 14), true)));
}

#[test]
fn keep_turns_out_of_range_is_refused() {
    let view = view(&two_turns());
    assert_eq!(
        view.cut_after_turns(0),
        Err(ViewError::TurnsOutOfRange {
            requested: 0,
            completed: 2
        })
    );
    assert_eq!(
        err_text(view.cut_after_turns(0)),
        "cannot keep 0 turns: the session has 2 completed turns"
    );
    assert_eq!(
        err_text(view.cut_after_turns(3)),
        "cannot keep 3 turns: the session has 2 completed turns"
    );

    let mut log = LogBuilder::new(FIXED_ID, "/p");
    log.turn("one");
    assert_eq!(
        err_text(crate::common::view(&log).cut_after_turns(2)),
        "cannot keep 2 turns: the session has 1 completed turn"
    );
    assert_eq!(
        err_text(project(&[session(1)], 0).cut_after_turns(1)),
        "cannot keep 1 turn: the session has 0 completed turns"
    );
}

#[test]
fn an_open_turn_is_not_completed_and_no_cut_but_the_head_is_at_head() {
    let mut log = two_turns();
    open_third(&mut log);
    let view = view(&log);
    assert!(view.open_turn);
    assert_eq!(view.cut_after_turns(2), Ok(cut(b(2, 9, 14), false)));
    assert_eq!(
        err_text(view.cut_after_turns(3)),
        "cannot keep 3 turns: the session has 2 completed turns"
    );
    assert_eq!(
        err_text(view.cut_after_items(10)),
        "--keep 10 is not on a turn boundary; nearest valid: --keep 9"
    );
    assert_eq!(view.cut_at_head(), Ok(cut(b(3, 10, 16), true)));
}

#[test]
fn a_seq_cut_must_be_a_boundary() {
    let view = view(&two_turns());
    assert_eq!(view.cut_at_seq(1), Ok(cut(b(0, 0, 1), false)));
    assert_eq!(view.cut_at_seq(7), Ok(cut(b(1, 4, 7), false)));
    assert_eq!(view.cut_at_seq(14), Ok(cut(b(2, 9, 14), true)));
    assert_eq!(
        err_text(view.cut_at_seq(9)),
        "t9 is not on a turn boundary; nearest valid: t7 or t14"
    );
    assert_eq!(
        view.cut_at_seq(8),
        Err(ViewError::BadCut {
            requested: "t8".into(),
            nearest: vec!["t7".into(), "t14".into()],
        }),
        "a run's start belongs to the turn it starts"
    );
    assert_eq!(
        err_text(view.cut_at_seq(40)),
        "t40 is not on a turn boundary; nearest valid: t14"
    );
}

#[test]
fn the_head_includes_trailing_state_records() {
    let mut log = two_turns();
    let todos = log.todos(&[("x", "pending")]);
    let view = view(&log);
    assert_eq!(view.cut_at_head(), Ok(cut(b(2, 9, todos), true)));
    assert_eq!(view.cut_after_turns(2), Ok(cut(b(2, 9, todos), true)));
}

#[test]
fn the_head_of_a_session_without_a_message_is_refused() {
    assert_eq!(
        project(&[session(1)], 0).cut_at_head(),
        Err(ViewError::TurnsOutOfRange {
            requested: 1,
            completed: 0
        })
    );
}

#[test]
fn cuts_follow_the_visible_branch_after_a_revert() {
    let mut log = two_turns();
    log.record(Body::Revert { to: 7 });
    let view: View = view(&log);
    // The turn the revert returned to keeps its end: its stamp does not move to the revert.
    assert_eq!(view.boundaries, [b(0, 0, 1), b(1, 4, 7)]);
    assert_eq!(view.cut_after_turns(1), Ok(cut(b(1, 4, 7), true)));
    assert_eq!(
        err_text(view.cut_after_items(9)),
        "--keep 9 is not on a turn boundary; nearest valid: --keep 4"
    );
}

/// A recovery restarts the run a dead process left (`interrupted`, then `started` again); when
/// its model call fails too, the run ends with no message, and what follows (a fold, a clear,
/// todos) still belongs to that turn: in the head's boundary and in the one before the next.
#[test]
fn a_recovery_that_ends_without_a_message_keeps_what_follows_in_its_turn() {
    let mut log = two_turns();
    open_third(&mut log);
    for state in [
        RunState::Interrupted,
        RunState::Started,
        RunState::Interrupted,
    ] {
        log.record(Body::Run {
            run: "r3".into(),
            state,
        });
    }
    let todos = log.todos(&[("x", "pending")]);
    let v = view(&log);
    assert!(!v.open_turn);
    assert_eq!(v.boundaries.last().map(|b| b.seq), Some(todos));
    log.record(Body::Run {
        run: "r4".into(),
        state: RunState::Started,
    });
    log.user("four");
    let next = view(&log);
    assert_eq!(
        next.boundaries.last().map(|b| b.seq),
        Some(todos),
        "{:?}",
        next.boundaries
    );
}
