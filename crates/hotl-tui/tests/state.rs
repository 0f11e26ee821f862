//! The app with no terminal: events in; scrollback rows, the viewport and commands out.

use std::time::{Duration, Instant};

use crossterm::event::KeyCode;
use hotl_protocol::{Answer, Command, Event, MoveResult, Outcome, Status};
use hotl_tui::cells::Entry;
use hotl_tui::{App, Effect, Modal};

use crate::common::*;

fn sent(app: &mut App) -> Vec<Command> {
    app.take_effects()
        .into_iter()
        .filter_map(|e| match e {
            Effect::Send(c) => Some(c),
            _ => None,
        })
        .collect()
}

#[test]
fn a_message_is_sent_and_shown_once_and_the_answer_streams_into_the_scrollback() {
    let mut app = App::new(60, Vec::new());
    typed(&mut app, "fix the bug");
    app.key(key(KeyCode::Enter), Instant::now());
    assert_eq!(
        sent(&mut app),
        [Command::Submit {
            text: "fix the bug".into()
        }]
    );
    let rows = text(&app.take_history());
    assert_eq!(rows.iter().filter(|r| r.contains("fix the bug")).count(), 1);

    app.event(delta("First para"));
    app.event(delta("graph.\nstill the same block\n"));
    assert!(
        app.take_history().is_empty(),
        "a block is committed at its end"
    );
    assert_eq!(text(&app.live_tail())[0], "First paragraph.");
    app.event(delta("\nSecond"));
    let committed = text(&app.take_history());
    assert!(
        committed.contains(&"First paragraph.".to_owned()),
        "{committed:?}"
    );
    assert!(committed.contains(&"still the same block".to_owned()));
    app.event(ended());
    let rest = text(&app.take_history());
    assert!(rest.contains(&"Second".to_owned()), "{rest:?}");
    assert!(app.busy.is_none());
    assert!(matches!(app.transcript.last(), Some(Entry::Answer { .. })));
}

#[test]
fn messages_typed_during_a_turn_are_queued_and_sent_in_order_after_it() {
    let mut app = App::new(60, Vec::new());
    app.submit("one".into());
    app.submit("two".into());
    app.submit("three".into());
    assert_eq!(app.queued, ["two", "three"]);
    assert_eq!(sent(&mut app).len(), 1);
    app.event(ended());
    assert_eq!(sent(&mut app), [Command::Submit { text: "two".into() }]);
    assert_eq!(app.queued, ["three"]);
}

#[test]
fn esc_and_ctrl_c_interrupt_a_turn_and_ctrl_c_twice_exits_when_idle() {
    let mut app = App::new(60, Vec::new());
    let now = Instant::now();
    app.submit("go".into());
    sent(&mut app);
    app.key(key(KeyCode::Esc), now);
    assert_eq!(sent(&mut app), [Command::Cancel]);
    app.key(ctrl('c'), now);
    assert_eq!(sent(&mut app), [Command::Cancel]);
    app.event(ended());
    typed(&mut app, "draft");
    app.key(ctrl('c'), now);
    assert!(app.composer.is_empty(), "the first Ctrl+C clears the input");
    assert!(app.take_effects().is_empty());
    app.key(ctrl('c'), now);
    assert!(
        app.take_effects().is_empty(),
        "one Ctrl+C on an empty input only warns"
    );
    app.key(ctrl('c'), now + Duration::from_millis(300));
    assert_eq!(app.take_effects(), [Effect::Exit]);
}

#[test]
fn an_approval_is_a_modal_answered_by_y_n_or_a() {
    let approval = || {
        ev(Event::Approval {
            id: 7,
            tool: "bash".into(),
            question: "run rm?".into(),
            preview: Vec::new(),
        })
    };
    // After `n`, a reason may be typed: Enter sends it (or nothing), Esc sends a plain no.
    let cases: [(&[KeyCode], Answer, Option<&str>); 5] = [
        (&[KeyCode::Char('y')], Answer::Yes, None),
        (&[KeyCode::Char('a')], Answer::Always, None),
        (&[KeyCode::Char('n'), KeyCode::Enter], Answer::No, None),
        (&[KeyCode::Esc], Answer::No, None),
        (
            &[
                KeyCode::Char('n'),
                KeyCode::Char('u'),
                KeyCode::Char('s'),
                KeyCode::Char('x'),
                KeyCode::Backspace,
                KeyCode::Char('e'),
                KeyCode::Char(' '),
                KeyCode::Char('t'),
                KeyCode::Enter,
            ],
            Answer::No,
            Some("use t"),
        ),
    ];
    for (keys, answer, reason) in cases {
        let mut app = App::new(60, Vec::new());
        app.event(approval());
        assert!(matches!(app.modal, Some(Modal::Approval { .. })));
        app.key(key(KeyCode::Char('x')), Instant::now());
        assert!(app.modal.is_some(), "other keys leave it open");
        for code in keys {
            assert!(app.modal.is_some(), "{keys:?}");
            app.key(key(*code), Instant::now());
        }
        assert!(app.modal.is_none(), "{keys:?}");
        assert_eq!(
            sent(&mut app),
            [Command::Approve {
                id: 7,
                answer,
                reason: reason.map(str::to_owned),
            }]
        );
    }
}

#[test]
fn children_asking_at_once_are_asked_one_after_another() {
    let mut app = App::new(60, Vec::new());
    for (handle, id) in [("kid1", 1), ("kid2", 2)] {
        app.event(ev(Event::ChildStarted {
            handle: handle.into(),
            task: "work".into(),
            agent: "fork".into(),
        }));
        app.event(child(
            handle,
            Event::Approval {
                id,
                tool: "bash".into(),
                question: format!("run {handle}'s command?"),
                preview: Vec::new(),
            },
        ));
    }
    let shown = |app: &App| match &app.modal {
        Some(Modal::Approval { id, question, .. }) => Some((*id, question.clone())),
        _ => None,
    };
    assert_eq!(shown(&app), Some((1, "[kid1] run kid1's command?".into())));
    app.key(key(KeyCode::Char('y')), Instant::now());
    assert_eq!(
        sent(&mut app),
        [Command::Approve {
            id: 1,
            answer: Answer::Yes,
            reason: None,
        }]
    );
    assert_eq!(
        shown(&app),
        Some((2, "[kid2] run kid2's command?".into())),
        "the second question was kept, not replaced"
    );
    app.key(key(KeyCode::Char('n')), Instant::now());
    app.key(key(KeyCode::Enter), Instant::now());
    assert_eq!(
        sent(&mut app),
        [Command::Approve {
            id: 2,
            answer: Answer::No,
            reason: None,
        }]
    );
    assert!(app.modal.is_none());
}

#[test]
fn tool_calls_run_live_and_land_as_cards() {
    let mut app = App::new(60, Vec::new());
    app.submit("go".into());
    app.take_history();
    app.event(ev(Event::ToolUse {
        id: "c1".into(),
        name: "bash".into(),
        input: hotl_log::ToolInput::from_json(r#"{"command":"cargo test"}"#).expect("json"),
    }));
    assert_eq!(app.tools.len(), 1);
    let output: String = (0..500).map(|i| format!("line {i}\n")).collect();
    app.event(ev(Event::ToolResult {
        id: "c1".into(),
        name: "bash".into(),
        is_error: false,
        content: output,
    }));
    assert!(app.tools.is_empty());
    let rows = text(&app.take_history());
    assert_eq!(rows[0], "● bash $ cargo test");
    assert!(
        rows.iter().any(|r| r.contains("495 more lines")),
        "{rows:?}"
    );
    assert!(rows.len() < 10);
}

#[test]
fn a_fold_lands_as_a_card_with_its_handle() {
    let mut app = App::new(60, Vec::new());
    app.saved = true;
    app.submit("/fold".into());
    assert!(matches!(
        sent(&mut app)[..],
        [Command::Move(hotl_protocol::Move::Fold { since: None, .. })]
    ));
    assert_eq!(
        text(&app.take_history())[1],
        "› /fold",
        "the command is echoed"
    );
    app.event(done(Outcome::MoveEnded(MoveResult::Folded {
        since: 3,
        until: 9,
        handle: "a1b2".into(),
        note: "changed: x".into(),
        files: vec!["src/a.rs".into(), "src/b.rs".into()],
    })));
    let rows = text(&app.take_history());
    assert_eq!(
        rows[0], "▸ fold t3..t9 · a1b2 · src/a.rs, src/b.rs",
        "{rows:?}"
    );
}

#[test]
fn children_update_their_own_cards_and_land_when_they_end() {
    let mut app = App::new(80, Vec::new());
    app.submit("go".into());
    for (h, agent) in [("aa11", "fork"), ("bb22", "reviewer")] {
        app.event(ev(Event::ChildStarted {
            handle: h.into(),
            task: format!("task {h}"),
            agent: agent.into(),
        }));
    }
    app.event(child(
        "bb22",
        Event::ToolUse {
            id: "x".into(),
            name: "read".into(),
            input: hotl_log::ToolInput::from_json(r#"{"path":"a.rs"}"#).expect("json"),
        },
    ));
    app.event(child(
        "aa11",
        Event::Model {
            event: hotl_wire::Event::TextDelta {
                text: "looking at it".into(),
            },
        },
    ));
    assert_eq!(app.children[0].activity, "looking at it");
    assert_eq!(app.children[1].activity, "read a.rs");
    app.event(ev(Event::ChildEnded {
        handle: "bb22".into(),
        ok: true,
    }));
    assert_eq!(app.children.len(), 1);
    let rows = text(&app.take_history());
    assert!(
        rows.iter()
            .any(|r| r.starts_with("↳ reviewer bb22 · done · 1 tool call")),
        "{rows:?}"
    );
}

#[test]
fn slash_commands_run_or_say_why_not_and_never_reach_the_model() {
    let mut app = App::new(80, Vec::new());
    app.submit("/fold".into());
    assert!(sent(&mut app).is_empty(), "no session yet");
    app.submit("/nonsense".into());
    assert!(sent(&mut app).is_empty());
    app.submit("/help".into());
    let rows = text(&app.take_history());
    assert!(rows.iter().any(|r| r.starts_with("/revert")), "{rows:?}");
    app.submit("//etc".into());
    assert_eq!(
        sent(&mut app),
        [Command::Submit {
            text: "/etc".into()
        }]
    );
    app.submit("/clear".into());
    assert!(app.take_effects().is_empty(), "refused while a turn runs");
}

#[test]
fn the_slash_popup_lists_matching_commands_and_tab_completes() {
    let mut app = App::new(80, Vec::new());
    typed(&mut app, "/fo");
    let items = app.popup_items();
    let names: Vec<&str> = items.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["/fold", "/fork"]);
    app.key(key(KeyCode::Down), Instant::now());
    app.key(key(KeyCode::Tab), Instant::now());
    assert_eq!(app.composer.text(), "/fork ");
    assert!(app.popup_items().is_empty());
}

#[test]
fn shift_tab_cycles_the_permission_modes() {
    let mut app = App::new(80, Vec::new());
    app.key(key(KeyCode::BackTab), Instant::now());
    assert_eq!(
        sent(&mut app),
        [Command::SetMode {
            mode: hotl_protocol::Mode::AcceptEdits
        }]
    );
    app.event(done(Outcome::ModeChanged {
        mode: "accept-edits".into(),
    }));
    app.key(key(KeyCode::BackTab), Instant::now());
    assert_eq!(
        sent(&mut app),
        [Command::SetMode {
            mode: hotl_protocol::Mode::Plan
        }]
    );
}

#[test]
fn esc_esc_on_an_empty_composer_asks_for_a_revert_and_the_reverted_text_comes_back() {
    let mut app = App::new(80, Vec::new());
    let now = Instant::now();
    app.key(key(KeyCode::Esc), now);
    app.key(key(KeyCode::Esc), now + Duration::from_millis(200));
    assert_eq!(
        app.take_effects(),
        [Effect::Pick(hotl_protocol::slash::Pick::Message(
            hotl_protocol::slash::MessagePick::Revert(hotl_protocol::RevertScope::Both)
        ))]
    );
    app.event(done(Outcome::Reverted {
        before: 5,
        to: 4,
        text: "the old message".into(),
        scope: hotl_protocol::RevertScope::Both,
        files: Vec::new(),
    }));
    assert_eq!(app.composer.text(), "the old message");
}

#[test]
fn copy_takes_an_answer_as_written() {
    let mut app = App::new(20, Vec::new());
    app.submit("q".into());
    app.event(delta("a **long** answer that wraps at twenty columns"));
    app.event(ended());
    app.take_effects();
    app.submit("/copy".into());
    assert_eq!(
        app.take_effects(),
        [Effect::Copy(
            "a **long** answer that wraps at twenty columns".into()
        )]
    );
}

#[test]
fn the_status_event_feeds_the_strip() {
    let mut app = App::new(120, Vec::new());
    app.model = "demo".into();
    app.event(ev(Event::Status(Status {
        context_percent: 75,
        todos: 3,
        todos_done: 1,
        cost: 0.0123,
        cache_hit: Some(0.87),
        mode: Some("plan".into()),
        ..Status::default()
    })));
    let strip = hotl_tui::ui::strip(
        &app,
        Instant::now(),
        &hotl_tui::ui::Strip {
            compact_at: 85,
            ..Default::default()
        },
        120,
    );
    let text: String = strip.spans.iter().map(|s| s.content.as_ref()).collect();
    assert_eq!(
        text,
        "75% ctx ▰▰▰▰▰▰▰▰┊▱ · todos 1/3 · demo · plan · $0.0123 · cache 87% · new session"
    );
}

#[test]
fn at_opens_a_file_popup_and_tab_puts_the_path_in() {
    let dir = std::env::temp_dir().join(format!("hotl-tui-at-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src")).expect("dirs");
    std::fs::write(dir.join("src/parser.rs"), "x").expect("file");
    std::fs::write(dir.join("README.md"), "x").expect("file");
    let mut app = App::new(80, Vec::new());
    app.event(ev(Event::Init {
        session_id: "s".into(),
        saved: false,
        cwd: dir.to_string_lossy().into_owned(),
        model: "m".into(),
        tools: Vec::new(),
        mode: "default".into(),
    }));
    typed(&mut app, "look at @pars");
    assert!(app.popup_files);
    assert_eq!(app.popup_rows[0].0, "src/parser.rs");
    app.key(key(KeyCode::Tab), Instant::now());
    assert_eq!(app.composer.text(), "look at @src/parser.rs ");
    assert!(app.popup_rows.is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn context_asks_the_agent_and_shows_the_parts() {
    let mut app = App::new(80, Vec::new());
    app.saved = true;
    app.submit("/context".into());
    assert_eq!(sent(&mut app), [Command::Context]);
    app.take_history();
    app.event(done(Outcome::Context(hotl_protocol::ContextParts {
        system: 1200,
        tools: 3400,
        notes: 500,
        messages: 7000,
        saved: 48_000,
        folds: 2,
        compactions: 1,
    })));
    let rows = text(&app.take_history());
    assert!(
        rows[0].starts_with("context: about 12.1k tokens"),
        "{rows:?}"
    );
    assert!(
        rows.iter()
            .any(|r| r.contains("saved by folds") && r.contains("48.0k")),
        "{rows:?}"
    );
    assert!(
        rows.iter().any(|r| r.contains("(2 folds, 1 compaction)")),
        "{rows:?}"
    );
    assert!(app.busy.is_none());
}

#[test]
fn a_read_only_view_keeps_messages_back_and_recalls_without_an_agent() {
    let mut app = App::new(80, Vec::new());
    app.saved = true;
    app.read_only = Some("another process owns it".into());
    typed(&mut app, "hello");
    app.key(key(KeyCode::Enter), Instant::now());
    assert!(app.take_effects().is_empty(), "nothing is sent");
    assert_eq!(
        app.composer.text(),
        "hello",
        "the message stays in the composer"
    );
    app.composer.set_text("");
    app.submit("/recall parser".into());
    assert_eq!(
        app.take_effects(),
        [Effect::Recall {
            query: "parser".into(),
            mode: Some("ranked".into()),
            limit: hotl_tui::slash::RECALL_LIMIT
        }]
    );
    app.submit("/fold".into());
    assert!(app.take_effects().is_empty());
}

#[test]
fn recall_hits_are_a_list_whose_spans_the_transcript_holds() {
    let mut app = App::new(80, Vec::new());
    app.saved = true;
    app.event(done(Outcome::MoveEnded(MoveResult::Folded {
        since: 3,
        until: 9,
        handle: "ab12".into(),
        note: "changed: x".into(),
        files: Vec::new(),
    })));
    if let Some(Entry::Fold { archived, .. }) = app.transcript.last_mut() {
        archived.push(Entry::Answer {
            text: "the cache dir must be local".into(),
        });
    }
    app.submit("/recall cache".into());
    app.take_effects();
    app.take_history();
    app.event(done(Outcome::MoveEnded(MoveResult::Recalled {
        text: "[ab12 t5 answer] the cache dir must be local\n  stale: build.rs changed since\n[cd34 t20 note] open: caching\n".into(),
    })));
    let rows = text(&app.take_history());
    assert_eq!(
        rows[0],
        "▸ recall \"cache\" · 2 hits · Ctrl+T shows the spans"
    );
    assert_eq!(rows[1], "  1. ab12 t5 answer the cache dir must be local");
    assert_eq!(rows[2], "       stale: build.rs changed since");
    assert_eq!(rows[3], "  2. cd34 t20 note open: caching");
    let Some(entry @ Entry::Recall { spans, .. }) = app.transcript.last() else {
        panic!("a recall entry");
    };
    assert_eq!(spans.len(), 1, "only ab12's span is in this transcript");
    let expanded = text(&entry.rows(80, true));
    assert!(
        expanded.contains(&"┊ the cache dir must be local".to_owned()),
        "{expanded:?}"
    );
    app.event(done(Outcome::MoveEnded(MoveResult::Recalled {
        text: "no matches\n".into(),
    })));
    assert_eq!(text(&app.take_history()), ["no matches"]);
}

#[test]
fn control_sequences_from_tools_and_logs_are_drawn_not_sent() {
    let mut app = App::new(80, Vec::new());
    app.submit("go".into());
    app.take_history();
    app.event(ev(Event::ToolUse {
        id: "c1".into(),
        name: "bash".into(),
        input: hotl_log::ToolInput::from_json(r#"{"command":"printf '\u001b[2J'"}"#).expect("json"),
    }));
    app.event(ev(Event::ToolResult {
        id: "c1".into(),
        name: "bash".into(),
        is_error: false,
        content: "\u{1b}[2J\u{1b}]52;c;ZXZpbA==\u{7}cleared\tthe screen".into(),
    }));
    let rows = text(&app.take_history());
    let all = rows.concat();
    assert!(
        !all.contains('\u{1b}') && !all.contains('\u{7}') && !all.contains('\t'),
        "{rows:?}"
    );
    assert!(all.contains("␛[2J"), "{rows:?}");
}
