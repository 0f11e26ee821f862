//! Incremental updates in the cases where appending can change what came before: each must
//! give exactly what indexing the whole log in memory gives.

use hotl_log::{Block, Body};
use hotl_recall::{Archive, Mode, open_index};
use hotl_testkit::{FIXED_ID, LogBuilder, TestResult};

use crate::common::{home_with, records, summary, turn_with, two_folds};

/// Indexes `b`, runs `more` on it, appends the result, and checks the updated index against an
/// in-memory archive of the whole log (and a fresh open against both).
fn check(mut b: LogBuilder, more: impl FnOnce(&mut LogBuilder)) -> TestResult<Archive> {
    let (home, id) = home_with(&b)?;
    open_index(&home.store, &id)?;
    more(&mut b);
    b.write(&home.store.layout().log(&id))?;
    let disk = open_index(&home.store, &id)?;
    let mem = Archive::from_records(&records(&b)?, 0);
    assert_eq!(disk.threads(), mem.threads());
    assert_eq!(disk.docs()?, mem.docs()?);
    for q in ["build", "zanzibar", "tail", "axolotl", "e"] {
        for mode in [Mode::Ranked, Mode::Exact] {
            assert_eq!(
                summary(&disk.search(q, mode, 50)?),
                summary(&mem.search(q, mode, 50)?),
                "{q} {mode:?}"
            );
        }
    }
    assert_eq!(open_index(&home.store, &id)?.threads(), mem.threads());
    Ok(disk)
}

#[test]
fn a_fold_starting_at_a_tool_result_whose_step_is_already_folded_is_refused_as_in_memory()
-> TestResult {
    let mut b = LogBuilder::new(FIXED_ID, "/p");
    let u = b.user("go");
    let (call_seq, call) = b.tool_call("bash", serde_json::json!({"command": "ls"}));
    // The fold ends at the tool call; its result stays live.
    b.fold(u, call_seq, "half", "the first half of a step");
    let result = b.tool_result(&call, "tail of the step, axolotl");
    b.assistant("done");
    let a = check(b, |b| {
        b.fold(
            result,
            result + 1,
            "late",
            "snaps back into the earlier fold",
        );
    })?;
    let handles: Vec<&str> = a.threads().iter().map(|t| t.handle.as_str()).collect();
    assert_eq!(handles, ["half"]);
    Ok(())
}

#[test]
fn an_overlapping_new_fold_is_ignored_as_in_memory() -> TestResult {
    check(two_folds(), |b| {
        b.fold(9, 27, "over", "reaches into a1");
    })?;
    Ok(())
}

#[test]
fn an_appended_compaction_swallows_folds_as_in_memory() -> TestResult {
    let a = check(two_folds(), |b| {
        b.record(Body::Compaction {
            until: 27,
            summary: "everything so far".into(),
        });
        turn_with(b, "after the compaction", "axolotl", vec![], "ok");
    })?;
    assert_eq!(a.threads()[0].handle, "compaction@t27");
    Ok(())
}

#[test]
fn a_fold_that_named_future_seqs_applies_once_they_exist() -> TestResult {
    let mut b = two_folds();
    // Names seqs 29..=33, which do not exist yet: the view ignores it for now.
    b.fold(29, 33, "early", "written before its span");
    let a = check(b, |b| {
        turn_with(b, "the span arrives", "axolotl", vec![], "ok");
    })?;
    assert!(a.threads().iter().any(|t| t.handle == "early"));
    Ok(())
}

#[test]
fn a_revert_of_new_records_keeps_them_out() -> TestResult {
    check(two_folds(), |b| {
        let (s, u) = turn_with(b, "try axolotl", "axolotl failed", vec![], "no");
        b.record(Body::Revert { to: s - 2 });
        b.record(Body::Assistant {
            content: vec![Block::text("after the revert")],
            model: None,
            stop: Some("end_turn".into()),
            stop_raw: None,
            usage: None,
        });
        b.fold(23, u + 3, "rv", "folded across a revert");
    })?;
    Ok(())
}

#[test]
fn records_without_text_only_move_the_watermark() -> TestResult {
    check(two_folds(), |b| {
        b.todos(&[("ship", "pending")]);
    })?;
    Ok(())
}
