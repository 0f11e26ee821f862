//! Properties of the projection over random valid logs (see `hotl_testkit::arb`).

use hotl_log::{Body, LineageProblem, Record, RunState};
use hotl_testkit::TestHome;
use hotl_testkit::arb::{self, CWD, Script};
use hotl_view::{Boundary, View, model_messages, project, stamp};
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::TestCaseError;

use crate::common::{item_of, model_text, originals, user_seqs};

/// Cases for the pure properties and for the ones that write files.
const PURE: u32 = 64;
const FILES: u32 = 16;

fn fail(e: impl std::fmt::Display) -> TestCaseError {
    TestCaseError::fail(e.to_string())
}

/// A couple of closed turns for a fork or an append to add.
fn more_turns(n: u8, tag: &str) -> Vec<Body> {
    let mut out = Vec::new();
    for i in 0..n {
        let run = format!("{tag}-run-{i}");
        out.push(Body::Run {
            run: run.clone(),
            state: RunState::Started,
        });
        out.push(Body::user_text(format!("{tag} message {i}")));
        out.push(Body::Assistant {
            content: vec![hotl_log::Block::text(format!("{tag} answer {i}"))],
            model: None,
            stop: Some("end_turn".into()),
            stop_raw: None,
            usage: None,
        });
        out.push(Body::Run {
            run,
            state: RunState::Finished,
        });
    }
    out
}

/// The parts of a view that projection decides, as comparable text.
fn fingerprint(view: &View) -> String {
    format!(
        "{}|{:?}|{}|{}|{}|{}|{:?}|{:?}|{:?}|{}",
        serde_json::to_string(&view.items).expect("items serialise"),
        view.boundaries,
        view.turns,
        view.open_turn,
        view.model_after,
        view.head_seq,
        view.state.todos,
        view.state.name,
        view.state.title,
        view.state.turns,
    )
}

proptest! {
    #![proptest_config(arb::config(PURE))]

    /// Pushing records one at a time onto a view (re-projecting only where a record says it
    /// must) gives exactly the view projecting them all at once gives.
    #[test]
    fn pushing_records_equals_projecting_them(script in arb::script(), at in any::<Index>()) {
        let records = script.records();
        let k = at.index(records.len()).max(1);
        let mut view = project(&records[..k], 0);
        for i in k..records.len() {
            if view.push(records[i].clone()).is_err() {
                view = project(&records[..=i], 0);
            }
        }
        prop_assert_eq!(fingerprint(&view), fingerprint(&project(&records, 0)), "log:\n{}", script.jsonl());
    }

    /// (a) The transcript loses no user message except on a reverted branch.
    #[test]
    fn the_transcript_keeps_every_visible_user_message(script in arb::script()) {
        let view = project(&script.records(), 0);
        prop_assert_eq!(
            user_seqs(&view.items),
            script.model.visible_users(),
            "log:\n{}", script.jsonl()
        );
    }

    /// (b) Folds and compactions never remove a user message from the model view: every
    /// visible message after the latest clear is there, by its stamp, in order.
    #[test]
    fn the_model_view_keeps_every_user_message_after_the_latest_clear(
        script in arb::script(),
    ) {
        let view = project(&script.records(), 0);
        prop_assert_eq!(view.model_after, script.model.model_after());
        let text = model_text(&model_messages(&view));
        let mut from = 0;
        for seq in script.model.model_users() {
            let found = text[from..].find(&stamp(seq));
            prop_assert!(
                found.is_some(),
                "{} missing (or out of order) in the model view:\n{}\nlog:\n{}",
                stamp(seq), text, script.jsonl()
            );
            from += found.unwrap_or(0) + 1;
        }
        // And nothing from before it comes back, a compaction after the clear included.
        for seq in script.model.visible_users() {
            if seq <= view.model_after {
                prop_assert!(
                    !text.contains(&stamp(seq)),
                    "{} is before the clear at t{} yet in the model view:\n{}\nlog:\n{}",
                    stamp(seq), view.model_after, text, script.jsonl()
                );
            }
        }
    }

    /// Valid logs project with the model's turns and boundaries, and without anomalies.
    #[test]
    fn boundaries_are_where_the_model_puts_them(script in arb::script()) {
        let view = project(&script.records(), 0);
        let expected: Vec<Boundary> = script
            .model
            .boundaries()
            .into_iter()
            .map(|b| Boundary { turns: b.turns, items: b.items, seq: b.seq })
            .collect();
        prop_assert_eq!(&view.boundaries, &expected, "log:\n{}", script.jsonl());
        prop_assert_eq!(view.turns, script.model.turns());
        prop_assert_eq!(view.open_turn, script.model.open());
        prop_assert_eq!(view.head_seq, script.model.head());
        prop_assert!(view.anomalies.is_empty(), "{:?}", view.anomalies);
        for b in &view.boundaries {
            if b.turns > 0 {
                prop_assert_eq!(view.cut_after_items(b.items).map(|c| c.boundary), Ok(*b));
                prop_assert_eq!(view.cut_after_turns(b.turns).map(|c| c.boundary), Ok(*b));
            }
            prop_assert_eq!(view.cut_at_seq(b.seq).map(|c| c.boundary), Ok(*b));
        }
    }

    /// With any one or two records lost (unreadable lines), the model view is still a
    /// conversation providers accept: roles alternate, tool results lead their message and
    /// each answers a call of the message just before it, and every call is answered in the
    /// message just after it, except the last step's (still running: the turn answers its
    /// calls).
    #[test]
    fn a_lost_line_still_leaves_a_valid_conversation(
        script in arb::script(),
        lost in any::<Index>(),
        also in any::<Option<Index>>(),
    ) {
        let mut records = script.records();
        for lost in std::iter::once(lost).chain(also) {
            if records.len() > 1 {
                records.remove(1 + lost.index(records.len() - 1));
            }
        }
        let messages = model_messages(&project(&records, 0));
        let calls = |m: &hotl_view::Message| -> Vec<String> {
            m.content.iter().filter_map(|b| match b {
                hotl_log::Block::ToolUse { id, .. } => Some(id.clone()),
                _ => None,
            }).collect()
        };
        let results = |m: &hotl_view::Message| -> Vec<String> {
            m.content.iter().filter_map(|b| match b {
                hotl_log::Block::ToolResult { tool_use_id, .. } => Some(tool_use_id.clone()),
                _ => None,
            }).collect()
        };
        for (i, m) in messages.iter().enumerate() {
            if i > 0 {
                prop_assert_ne!(messages[i - 1].role, m.role, "roles alternate at {}", i);
            }
            let before = if i > 0 { calls(&messages[i - 1]) } else { Vec::new() };
            for r in results(m) {
                prop_assert!(before.contains(&r), "result {} at {} answers no call before it:\n{:#?}", r, i, messages);
            }
            let leading = m.content.iter().take_while(|b| matches!(b, hotl_log::Block::ToolResult { .. })).count();
            prop_assert_eq!(leading, results(m).len(), "tool results lead message {}:\n{:#?}", i, messages);
            // The last step may still be running: its calls answered in part, or not yet.
            let running = i + 1 == messages.len()
                || (i + 2 == messages.len() && messages[i + 1].content.iter().all(|b| matches!(b, hotl_log::Block::ToolResult { .. })));
            if !running {
                let after = results(&messages[i + 1]);
                for c in calls(m) {
                    prop_assert!(after.contains(&c), "call {} at {} is never answered:\n{:#?}", c, i, messages);
                }
            }
        }
    }

    /// (e) Projection is deterministic: the same records give byte-identical model messages.
    #[test]
    fn projection_is_deterministic(script in arb::script()) {
        let records = script.records();
        let first = serde_json::to_vec(&model_messages(&project(&records, 0))).map_err(fail)?;
        let again = serde_json::to_vec(&model_messages(&project(&records, 0))).map_err(fail)?;
        prop_assert!(first == again);
        let first = serde_json::to_vec(&project(&records, 0)).map_err(fail)?;
        let again = serde_json::to_vec(&project(&script.records(), 0)).map_err(fail)?;
        prop_assert!(first == again);
    }
}

/// Lineage problems other than an ancestor's report of unknown record types (which generated
/// logs contain on purpose, and which `hotl-log` reports as `DamagedAncestor`).
fn real_problems(problems: &[LineageProblem]) -> Vec<&LineageProblem> {
    problems
        .iter()
        .filter(|p| {
            !matches!(p, LineageProblem::DamagedAncestor { summary, .. }
                if summary.ends_with("of unknown type"))
        })
        .collect()
}

/// Writes `script` to a fresh home; returns the home and the session id.
fn imported(script: &Script) -> Result<(TestHome, String), TestCaseError> {
    let home = TestHome::new();
    let id = home.import(&script.builder()).map_err(fail)?;
    Ok((home, id))
}

proptest! {
    #![proptest_config(arb::config(FILES))]

    /// (c) A fork's items are the parent's items at the cut followed by its own.
    #[test]
    fn a_fork_is_the_parent_at_the_cut_then_its_own(
        script in arb::script(),
        pick in any::<Index>(),
        own in 0u8..3,
    ) {
        let (home, parent) = imported(&script)?;
        let store = &home.store;
        let lineage = store.lineage(&parent).map_err(fail)?;
        let parent_view = View::of(&lineage);
        let boundary = *pick.get(&parent_view.boundaries);
        let pin = store
            .pin(&parent, boundary.seq, lineage.offset_for(boundary.seq))
            .map_err(fail)?;
        let mut writer = store.fork(pin, CWD, vec![], None).map_err(fail)?;
        let mut appended: Vec<Record> = Vec::new();
        for body in more_turns(own, "fork") {
            appended.push(writer.append(body).map_err(fail)?);
        }
        let child = writer.id().to_owned();
        drop(writer);

        let child_lineage = store.lineage(&child).map_err(fail)?;
        let problems = real_problems(&child_lineage.problems);
        prop_assert!(problems.is_empty(), "{:?}", problems);
        let view = View::of(&child_lineage);
        let parent_items = originals(&parent_view.items);
        let items = originals(&view.items);
        let own_items: Vec<_> = appended.iter().filter_map(item_of).collect();
        prop_assert_eq!(
            &items[..boundary.items.min(items.len())],
            &parent_items[..boundary.items],
            "fork at {:?}; log:\n{}", boundary, script.jsonl()
        );
        prop_assert_eq!(&items[boundary.items..], &own_items[..]);
    }

    /// (d) Appending never changes the view of an earlier seq: a fork pinned at the old head
    /// projects exactly what the log projected before the append.
    #[test]
    fn appending_never_changes_the_view_at_an_earlier_seq(
        script in arb::script(),
        more in arb::raw_ops(24),
    ) {
        let (home, id) = imported(&script)?;
        let store = &home.store;
        let before = store.lineage(&id).map_err(fail)?;
        let old_view = View::of(&before);
        let old_head = before.own().last().map_or(1, |r| r.seq);
        let old_end = before.own_complete_end;

        let mut grown = script.clone();
        let mut added = grown.extend(&more);
        if added.is_empty() {
            // Nothing is generated after an open turn (or `more` was empty): add plain turns.
            added = more_turns(1, "after").into_iter().enumerate()
                .map(|(i, b)| (old_head + 1 + i as u64, b))
                .collect();
        }
        {
            let mut writer = store.writer(&id).map_err(fail)?;
            for (seq, body) in added {
                let record = writer.append(body).map_err(fail)?;
                prop_assert_eq!(record.seq, seq);
            }
        }
        let pin = store.pin(&id, old_head, old_end).map_err(fail)?;
        let child = store.fork(pin, CWD, vec![], None).map_err(fail)?.id().to_owned();
        let child_lineage = store.lineage(&child).map_err(fail)?;
        let problems = real_problems(&child_lineage.problems);
        prop_assert!(problems.is_empty(), "{:?}", problems);
        let view = View::of(&child_lineage);
        prop_assert_eq!(&view.items, &old_view.items, "log:\n{}", script.jsonl());
        prop_assert_eq!(model_messages(&view), model_messages(&old_view));
    }
}

proptest! {
    #![proptest_config(arb::config(PURE))]

    /// A view thinned (archived answers and tool results left out), written as JSON and read
    /// back, then given the rest of the records, sends the model exactly what projecting them
    /// all sends, with the same boundaries, item counts and state: what a checkpoint keeps is
    /// enough to resume from.
    #[test]
    fn a_thin_view_read_back_and_pushed_on_equals_projecting(
        script in arb::script(),
        at in any::<Index>(),
    ) {
        let records = script.records();
        let k = at.index(records.len()).max(1);
        let written = serde_json::to_string(&project(&records[..k], 0).thin()).map_err(fail)?;
        let read: hotl_view::ThinView = serde_json::from_str(&written).map_err(fail)?;
        let mut view = View::from_thin(read);
        for i in k..records.len() {
            if view.push(records[i].clone()).is_err() {
                view = project(&records[..=i], 0);
            }
        }
        let full = project(&records, 0);
        let sent = |v: &View| serde_json::to_string(&model_messages(v)).expect("serialises");
        prop_assert_eq!(sent(&view), sent(&full), "log:\n{}", script.jsonl());
        prop_assert_eq!(&view.boundaries, &full.boundaries);
        prop_assert_eq!(view.item_count(), full.item_count());
        prop_assert_eq!(
            (view.turns, view.open_turn, view.model_after, view.head_seq),
            (full.turns, full.open_turn, full.model_after, full.head_seq)
        );
        prop_assert_eq!(&view.state, &full.state);
    }
}
