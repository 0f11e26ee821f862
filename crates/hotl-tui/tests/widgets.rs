//! The viewport and the cells drawn into ratatui's test backend, snapshotted at three sizes.

use std::time::{Duration, Instant};

use hotl_protocol::{Event, PreviewKind, PreviewLine, Status};
use hotl_tui::cells::{Entry, ToolCard};
use hotl_tui::picker::{Kind, Picker, Row};
use hotl_tui::ui::{self, Strip};
use hotl_tui::{App, Modal};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::text::Line;

use crate::common::*;

const SIZES: [(u16, u16); 3] = [(80, 24), (40, 12), (120, 40)];

/// The viewport as the terminal would show it, at the bottom of a `w`×`h` screen.
fn viewport(app: &mut App, w: u16, h: u16, now: Instant) -> String {
    app.resize(w);
    let strip = Strip {
        compact_at: 85,
        ..Strip::default()
    };
    let frame = ui::frame(app, now, usize::from(h - 2), &strip);
    draw(&frame.rows, w, frame.rows.len() as u16)
}

fn draw(rows: &[Line<'static>], w: u16, h: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(w, h.max(1))).expect("test backend");
    terminal
        .draw(|f| {
            for (y, row) in rows.iter().enumerate() {
                f.buffer_mut().set_line(0, y as u16, row, w);
            }
        })
        .expect("draw");
    format!("{}", terminal.backend())
}

fn cells(entry: &Entry, expanded: bool) -> String {
    SIZES
        .iter()
        .map(|&(w, _)| {
            let rows = entry.rows(usize::from(w), expanded);
            format!("{w} columns:\n{}", draw(&rows, w, rows.len() as u16))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn at_sizes(mut app: App, now: Instant) -> String {
    SIZES
        .iter()
        .map(|&(w, h)| format!("{w}x{h}:\n{}", viewport(&mut app, w, h, now)))
        .collect::<Vec<_>>()
        .join("\n")
}

fn status(pct: u64) -> Event {
    Event::Status(Status {
        context_percent: pct,
        cost: 0.25,
        cache_hit: Some(0.9),
        mode: Some("default".into()),
        ..Status::default()
    })
}

fn app() -> App {
    let mut app = App::new(80, Vec::new());
    app.model = "claude-sonnet-4-5".into();
    app.saved = true;
    app
}

#[test]
fn an_idle_prompt() {
    let mut app = app();
    app.event(ev(status(10)));
    insta::assert_snapshot!(at_sizes(app, Instant::now()));
}

#[test]
fn the_strip_at_75_and_95_percent() {
    let strip = |pct| {
        let mut app = app();
        app.event(ev(status(pct)));
        let line = ui::strip(
            &app,
            Instant::now(),
            &Strip {
                compact_at: 85,
                ..Strip::default()
            },
            120,
        );
        line.spans
            .iter()
            .map(|s| format!("[{:?}]{}", s.style.fg, s.content))
            .collect::<String>()
    };
    insta::assert_snapshot!(format!("{}\n{}", strip(75), strip(95)));
}

#[test]
fn a_streaming_answer_mid_line_with_a_tool_running() {
    let mut app = app();
    let start = Instant::now();
    app.submit("explain the parser".into());
    app.event(delta("The parser has **two** passes.\nThe first one tok"));
    app.event(ev(Event::ToolUse {
        id: "c1".into(),
        name: "read".into(),
        input: hotl_log::ToolInput::from_json(r#"{"path":"src/parse.rs","offset":10,"limit":30}"#)
            .expect("json"),
    }));
    app.event(delta("enizes"));
    app.queued.push_back("and then run the tests".into());
    insta::assert_snapshot!(at_sizes(app, start + Duration::from_millis(3500)));
}

#[test]
fn the_approval_modal() {
    let mut app = app();
    let start = Instant::now();
    app.submit("clean up".into());
    app.event(ev(Event::Approval {
        id: 1,
        tool: "bash".into(),
        question: "bash runs commands: rm -rf build. Allow?".into(),
        preview: vec![
            PreviewLine::new(PreviewKind::Command, "rm -rf build"),
            PreviewLine::new(PreviewKind::Note, "in ~/project"),
        ],
    }));
    assert!(matches!(app.modal, Some(Modal::Approval { .. })));
    insta::assert_snapshot!(at_sizes(app, start));
}

#[test]
fn the_approval_of_an_edit_shows_its_change() {
    let mut app = app();
    let start = Instant::now();
    app.submit("rename it".into());
    app.event(ev(Event::Approval {
        id: 1,
        tool: "edit".into(),
        question: "edit changes files: edit src/lib.rs. Allow?".into(),
        preview: vec![
            PreviewLine::new(PreviewKind::Removed, "fn old_name() {"),
            PreviewLine::new(PreviewKind::Added, "fn new_name() {"),
        ],
    }));
    app.key(
        crossterm::event::KeyEvent::from(crossterm::event::KeyCode::Char('n')),
        start,
    );
    for c in "keep it".chars() {
        app.key(
            crossterm::event::KeyEvent::from(crossterm::event::KeyCode::Char(c)),
            start,
        );
    }
    insta::assert_snapshot!(at_sizes(app, start));
}

#[test]
fn the_revert_picker() {
    let mut app = app();
    let rows = (1..=4)
        .map(|i| Row {
            label: format!("t{}", i * 10),
            detail: format!("message number {i}"),
            value: format!("t{}", i * 10),
            near: true,
        })
        .collect();
    app.modal = Some(Modal::Pick(Picker::new(
        "revert to before",
        Kind::Revert(hotl_protocol::RevertScope::Both),
        rows,
    )));
    insta::assert_snapshot!(at_sizes(app, Instant::now()));
}

#[test]
fn the_read_only_banner() {
    let mut app = app();
    app.read_only = Some("another hotl (pid 4242) owns this session".into());
    insta::assert_snapshot!(at_sizes(app, Instant::now()));
}

#[test]
fn child_cards_while_they_run() {
    let mut app = app();
    let start = Instant::now();
    app.submit("split the work".into());
    for (h, task) in [("aa11", "read the docs"), ("bb22", "run the tests")] {
        app.event(ev(Event::ChildStarted {
            handle: h.into(),
            task: task.into(),
            agent: "fork".into(),
        }));
    }
    app.event(child(
        "bb22",
        Event::ToolUse {
            id: "x".into(),
            name: "bash".into(),
            input: hotl_log::ToolInput::from_json(r#"{"command":"cargo test"}"#).expect("json"),
        },
    ));
    insta::assert_snapshot!(at_sizes(app, start + Duration::from_millis(900)));
}

#[test]
fn cells_of_every_kind() {
    let output: String = (1..=40).map(|i| format!("output line {i}\n")).collect();
    let tool = Entry::Tool(ToolCard {
        id: "c1".into(),
        name: "bash".into(),
        input: r#"{"command":"cargo build --release"}"#.into(),
        output: Some(output),
        is_error: false,
    });
    let failed = Entry::Tool(ToolCard {
        id: "c2".into(),
        name: "read".into(),
        input: r#"{"path":"missing.rs"}"#.into(),
        output: Some("no such file: missing.rs".into()),
        is_error: true,
    });
    let diff = Entry::Tool(ToolCard {
        id: "c3".into(),
        name: "edit".into(),
        input: r#"{"path":"src/lib.rs","old":"fn a() {}\nfn b() {}","new":"fn a() -> u8 { 1 }"}"#
            .into(),
        output: Some("replaced 1 occurrence in src/lib.rs at line 3:".into()),
        is_error: false,
    });
    let fold = Entry::Fold {
        handle: "c0de".into(),
        since: 12,
        until: 48,
        items: 17,
        note: "changed: the parser keeps spans\nlearned: tokens are bytes\nopen: error recovery"
            .into(),
        files: vec![
            "src/parse.rs".into(),
            "src/span.rs".into(),
            "src/lex.rs".into(),
            "tests/parse.rs".into(),
        ],
        archived: vec![
            Entry::User {
                seq: Some(12),
                text: "make the parser keep spans".into(),
            },
            Entry::Answer {
                text: "Done: spans are `Range<usize>` now.".into(),
            },
        ],
    };
    let compaction = Entry::Compaction {
        until: 90,
        summary: "changed: everything up to the release".into(),
        archived: vec![Entry::Answer {
            text: "an old answer".into(),
        }],
    };
    let user = Entry::User {
        seq: Some(3),
        text: "a message\nover two lines with enough words to wrap at forty columns".into(),
    };
    let thinking = Entry::Thinking {
        text: "first I read the file\nthen I compare\nthen I decide".into(),
    };
    let mut out = String::new();
    for (name, entry) in [
        ("user", &user),
        ("thinking", &thinking),
        ("tool", &tool),
        ("failed tool", &failed),
        ("diff", &diff),
        ("fold", &fold),
        ("compaction", &compaction),
    ] {
        for expanded in [false, true] {
            out.push_str(&format!(
                "=== {name} {} ===\n{}\n",
                if expanded { "expanded" } else { "collapsed" },
                cells(entry, expanded)
            ));
        }
    }
    insta::assert_snapshot!(out);
}

#[test]
fn a_recall_list() {
    let entry = Entry::Recall {
        query: "linker".into(),
        hits: hotl_tui::cells::RecallHit::parse(
            "[c0de t14 tool] error: linker cannot find libfoo\n  stale: build.rs changed since\n[9f2a t31 note] learned: link statically against libfoo\n",
        ),
        spans: vec![(
            "c0de".into(),
            vec![Entry::Answer {
                text: "the loop tried three builds".into(),
            }],
        )],
    };
    insta::assert_snapshot!(format!("{}\n{}", cells(&entry, false), cells(&entry, true)));
}
