//! The screen's bytes read back through a terminal emulator with scrollback (vt100): what a
//! person would see, including what scrolled off the top.

use std::num::NonZeroU16;
use std::time::Instant;

use hotl_tui::App;
use hotl_tui::screen::Screen;
use hotl_tui::ui::{self, Strip};

use crate::common::*;

struct Term {
    screen: Screen<Vec<u8>>,
    parser: vt100::Parser,
    frames: Vec<Vec<u8>>,
}

impl Term {
    fn new(cols: u16, rows: u16) -> Term {
        Term {
            screen: Screen::new(Vec::new(), (cols, rows), 0),
            parser: vt100::Parser::new(
                NonZeroU16::new(rows).expect("rows"),
                NonZeroU16::new(cols).expect("cols"),
                100_000,
            ),
            frames: Vec::new(),
        }
    }

    fn frame(&mut self, app: &mut App) {
        let history = app.take_history();
        let strip = Strip::default();
        let frame = ui::frame(
            app,
            Instant::now(),
            usize::from(self.screen.max_height()),
            &strip,
        );
        let width = self.screen.cols();
        self.screen
            .draw(&history, frame.rows.len() as u16, frame.cursor, |b| {
                for (y, row) in frame.rows.iter().enumerate() {
                    b.set_line(0, y as u16, row, width);
                }
            })
            .expect("draw");
        let bytes = std::mem::take(self.screen.writer());
        self.parser.process(&bytes);
        self.frames.push(bytes);
    }

    fn resize(&mut self, app: &mut App, cols: u16, rows: u16) {
        self.screen.resize((cols, rows)).expect("resize");
        app.resize(cols);
        let old_rows = self.parser.screen().size().0.get();
        if rows < old_rows {
            // A terminal that gets shorter keeps its bottom rows (where the cursor is): the
            // top ones go to the scrollback. vt100 would cut the bottom ones instead.
            let scroll = format!(
                "\x1b[{old_rows};1H{}",
                "\n".repeat(usize::from(old_rows - rows))
            );
            self.parser.process(scroll.as_bytes());
        }
        self.parser.screen_mut().set_size(
            NonZeroU16::new(rows).expect("rows"),
            NonZeroU16::new(cols).expect("cols"),
        );
        let bytes = std::mem::take(self.screen.writer());
        self.parser.process(&bytes);
        self.frames.push(bytes);
    }

    /// Every row: the scrollback's, then the screen's.
    fn all_rows(&mut self) -> Vec<String> {
        let cols = self.screen.cols();
        let len = self.parser.screen().scrollback_len();
        let mut out = Vec::new();
        for offset in (1..=len).rev() {
            self.parser.screen_mut().set_scrollback(offset);
            let row = self
                .parser
                .screen()
                .rows(0, cols)
                .next()
                .unwrap_or_default();
            out.push(row.trim_end().to_owned());
        }
        self.parser.screen_mut().set_scrollback(0);
        out.extend(
            self.parser
                .screen()
                .rows(0, cols)
                .map(|r| r.trim_end().to_owned()),
        );
        out
    }
}

fn stream_answer(term: &mut Term, app: &mut App, text: &str, chunk: usize) {
    app.submit("go".into());
    app.take_effects();
    term.frame(app);
    let chars: Vec<char> = text.chars().collect();
    for piece in chars.chunks(chunk) {
        app.event(delta(&piece.iter().collect::<String>()));
        term.frame(app);
    }
    app.event(ended());
    term.frame(app);
}

fn count(rows: &[String], line: &str) -> usize {
    rows.iter().filter(|r| r.as_str() == line).count()
}

#[test]
fn each_line_of_a_500_line_answer_is_in_the_scrollback_exactly_once() {
    let mut term = Term::new(80, 24);
    let mut app = App::new(80, Vec::new());
    let text: String = (1..=500).map(|i| format!("answer line {i}\n")).collect();
    stream_answer(&mut term, &mut app, &text, 7);
    let rows = term.all_rows();
    for i in 1..=500 {
        assert_eq!(
            count(&rows, &format!("answer line {i}")),
            1,
            "line {i}: {rows:?}"
        );
    }
    assert_eq!(count(&rows, "› go"), 1);
}

#[test]
fn frames_are_synchronized_and_never_clear_the_screen_or_the_scrollback() {
    let mut term = Term::new(60, 20);
    let mut app = App::new(60, Vec::new());
    let text: String = (1..=120)
        .map(|i| format!("row {i} with some words\n\n"))
        .collect();
    stream_answer(&mut term, &mut app, &text, 13);
    for frame in &term.frames {
        let bytes = String::from_utf8_lossy(frame);
        if frame.is_empty() {
            continue;
        }
        assert!(bytes.starts_with("\x1b[?2026h"), "{bytes:?}");
        assert!(bytes.ends_with("\x1b[?2026l"), "{bytes:?}");
        assert!(!bytes.contains("\x1b[2J") && !bytes.contains("\x1b[3J"));
    }
}

#[test]
fn wide_characters_wrap_without_splitting() {
    let mut term = Term::new(20, 10);
    let mut app = App::new(20, Vec::new());
    stream_answer(
        &mut term,
        &mut app,
        "日本語のテキストと絵文字🙂🙂🙂がある行\n\nend\n",
        3,
    );
    let rows = term.all_rows();
    let joined: String = rows.concat();
    assert!(joined.contains("日本語のテキストと絵"), "{rows:?}");
    assert!(joined.contains("🙂🙂🙂"), "{rows:?}");
    assert_eq!(count(&rows, "end"), 1);
}

#[test]
fn a_resize_mid_stream_loses_and_duplicates_nothing() {
    let mut term = Term::new(80, 24);
    let mut app = App::new(80, Vec::new());
    app.submit("go".into());
    app.take_effects();
    for i in 1..=200 {
        app.event(delta(&format!("item {i}\n\n")));
        term.frame(&mut app);
        if i == 80 {
            term.resize(&mut app, 50, 16);
        }
        if i == 150 {
            term.resize(&mut app, 100, 30);
        }
    }
    app.event(ended());
    term.frame(&mut app);
    let rows = term.all_rows();
    for i in 1..=200 {
        assert_eq!(count(&rows, &format!("item {i}")), 1, "item {i}: {rows:?}");
    }
}

#[test]
fn the_composer_row_stays_put_while_an_answer_streams() {
    let mut term = Term::new(80, 24);
    let mut app = App::new(80, Vec::new());
    app.submit("go".into());
    app.take_effects();
    let mut rows_seen = std::collections::BTreeSet::new();
    for i in 1..=100 {
        app.event(delta(&format!("para {i}\n\n")));
        term.frame(&mut app);
        if i > 30 {
            rows_seen.insert(term.screen.viewport());
        }
    }
    assert_eq!(rows_seen.len(), 1, "the viewport moved: {rows_seen:?}");
}

#[test]
fn long_blocks_arriving_in_big_pieces_lose_no_row() {
    for chunk in [50, 333, 2000] {
        let mut term = Term::new(100, 30);
        let mut app = App::new(100, Vec::new());
        let text: String = (1..=500).map(|i| format!("answer line {i}\n")).collect();
        stream_answer(&mut term, &mut app, &text, chunk);
        let rows = term.all_rows();
        for i in 1..=500 {
            assert_eq!(
                count(&rows, &format!("answer line {i}")),
                1,
                "chunk {chunk} line {i}: {rows:?}"
            );
        }
    }
}
