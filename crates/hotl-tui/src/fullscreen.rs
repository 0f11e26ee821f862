//! The opt-in fullscreen mode (`--fullscreen`, `[tui] fullscreen = true`): the transcript is
//! the app's own, in the alternate screen, scrolled with the wheel or PageUp/PageDown, and a
//! click works on it: a fold, compaction, tool or child card expands in place (and folds back),
//! a handle goes into the composer as `/ask <handle> `. Below it, the same live rows, composer
//! and strip as the inline screen. The terminal's scrollback is left alone; leaving restores it.

use std::collections::HashSet;
use std::io::{self, Stdout, Write};

use crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use crossterm::execute;
use crossterm::terminal::{
    BeginSynchronizedUpdate, EndSynchronizedUpdate, EnterAlternateScreen, LeaveAlternateScreen,
};
use ratatui::backend::CrosstermBackend;
use ratatui::layout::Position;
use ratatui::text::Line;

use crate::app::App;
use crate::cells::{Entry, style};
use crate::screen::Drawn;
use crate::ui::Frame;

/// The first handle a row shows.
fn handle_in(row: &Line<'static>) -> Option<String> {
    row.spans
        .iter()
        .find(|s| s.style == style::handle())
        .map(|s| s.content.trim().to_owned())
}

/// Rows one wheel step scrolls.
const WHEEL: usize = 3;

/// What a click hit.
#[derive(Debug, PartialEq, Eq)]
pub enum Click {
    /// A handle: it goes into the composer.
    Handle(String),
    /// A card was expanded or folded back.
    Toggled,
    /// Nothing to act on.
    Nothing,
}

/// The fullscreen transcript and its terminal.
pub struct FullScreen {
    terminal: ratatui::Terminal<CrosstermBackend<Stdout>>,
    /// What it shows.
    pub view: Transcript,
}

/// The transcript's rows, where they came from, what is expanded and where it is scrolled:
/// everything but the terminal, so tests drive it directly.
#[derive(Debug, Default)]
pub struct Transcript {
    rows: Vec<Line<'static>>,
    /// The transcript entry each row belongs to (none for an answer still streaming).
    tags: Vec<Option<usize>>,
    expanded: HashSet<usize>,
    /// The first row shown, when not following the end.
    top: usize,
    follow: bool,
    width: u16,
    /// Rows the transcript had on screen at the last frame.
    shown: usize,
    /// The row whose handle has the focus (Tab), with the handle.
    focus: Option<(usize, String)>,
}

impl Transcript {
    /// An empty transcript `width` columns wide.
    pub fn new(width: u16) -> Transcript {
        Transcript {
            width,
            follow: true,
            ..Transcript::default()
        }
    }

    /// Its rows.
    pub fn rows(&self) -> &[Line<'static>] {
        &self.rows
    }

    /// The handle that has the focus, if any.
    pub fn focused(&self) -> Option<&str> {
        self.focus.as_ref().map(|(_, h)| h.as_str())
    }

    /// Drops the focus.
    pub fn unfocus(&mut self) {
        self.focus = None;
    }

    /// Moves the focus to the next handle (the previous one, going back), from the focused
    /// row or the screen's edge, and scrolls it into view; false when there is none.
    pub fn focus_next(&mut self, forward: bool) -> bool {
        let first = self.first_shown();
        let found = if forward {
            let from = self.focus.as_ref().map_or(first, |(r, _)| r + 1);
            (from..self.rows.len()).find_map(|r| handle_in(&self.rows[r]).map(|h| (r, h)))
        } else {
            let from = self
                .focus
                .as_ref()
                .map_or(first + self.shown, |(r, _)| *r)
                .min(self.rows.len());
            (0..from)
                .rev()
                .find_map(|r| handle_in(&self.rows[r]).map(|h| (r, h)))
        };
        let Some((row, handle)) = found else {
            return false;
        };
        if row < first || row >= first + self.shown {
            let max = self.rows.len().saturating_sub(self.shown);
            self.top = row.saturating_sub(self.shown / 2).min(max);
            self.follow = self.top >= max;
        }
        self.focus = Some((row, handle));
        true
    }

    /// Adds rows at the end (what the inline screen would put into the scrollback).
    pub fn push(&mut self, tagged: Vec<(Line<'static>, Option<usize>)>) {
        for (row, tag) in tagged {
            self.rows.push(row);
            self.tags.push(tag);
        }
    }

    /// Lays the transcript out again at its width: every entry from `app`, expanded where
    /// it was, then the answer still streaming.
    pub fn reflow(&mut self, app: &mut App) {
        // Rows waiting for the next frame are laid out again below, from the transcript.
        app.take_history_tagged();
        self.focus = None;
        self.rows.clear();
        self.tags.clear();
        let width = usize::from(self.width);
        for (i, entry) in app.transcript.iter().enumerate() {
            for row in entry.rows(width, self.expanded.contains(&i)) {
                self.rows.push(row);
                self.tags.push(Some(i));
            }
        }
        for row in app.streamed_rows() {
            self.rows.push(row);
            self.tags.push(None);
        }
    }

    /// Scrolls by `delta` rows (negative: up); reaching the end follows it again.
    pub fn scroll(&mut self, delta: isize) {
        let max = self.rows.len().saturating_sub(self.shown);
        let top = if self.follow { max } else { self.top };
        let top = top.saturating_add_signed(delta).min(max);
        self.top = top;
        self.follow = top >= max;
    }

    /// A page, for PageUp and PageDown.
    pub fn page(&self) -> isize {
        self.shown.max(1) as isize - 1
    }

    /// One wheel step.
    pub fn wheel(&self) -> isize {
        WHEEL as isize
    }

    /// A left click at (`column`, `row`) of the screen.
    pub fn click(&mut self, column: u16, row: u16, app: &App) -> Click {
        let row = usize::from(row);
        if row >= self.shown {
            return Click::Nothing;
        }
        let index = self.first_shown() + row;
        let Some(line) = self.rows.get(index) else {
            return Click::Nothing;
        };
        let mut x = 0;
        for span in &line.spans {
            let w = crate::wrap::width(&span.content);
            if usize::from(column) >= x
                && usize::from(column) < x + w
                && span.style == style::handle()
            {
                return Click::Handle(span.content.trim().to_owned());
            }
            x += w;
        }
        let Some(Some(entry)) = self.tags.get(index).copied() else {
            return Click::Nothing;
        };
        if !matches!(
            app.transcript.get(entry),
            Some(
                Entry::Fold { .. }
                    | Entry::Compaction { .. }
                    | Entry::Tool(_)
                    | Entry::Thinking { .. }
                    | Entry::Child { .. }
                    | Entry::User { .. }
                    | Entry::Recall { .. }
            )
        ) {
            return Click::Nothing;
        }
        self.toggle(entry, app);
        Click::Toggled
    }

    /// Expands entry `entry` in place, or folds it back.
    fn toggle(&mut self, entry: usize, app: &App) {
        let Some(start) = self.tags.iter().position(|t| *t == Some(entry)) else {
            return;
        };
        let end = start
            + self.tags[start..]
                .iter()
                .take_while(|t| **t == Some(entry))
                .count();
        self.focus = None;
        let expanded = !self.expanded.remove(&entry);
        if expanded {
            self.expanded.insert(entry);
        }
        let Some(item) = app.transcript.get(entry) else {
            return;
        };
        let rows = item.rows(usize::from(self.width), expanded);
        let n = rows.len();
        self.rows.splice(start..end, rows);
        self.tags
            .splice(start..end, std::iter::repeat_n(Some(entry), n));
    }

    fn first_shown(&self) -> usize {
        if self.follow {
            self.rows.len().saturating_sub(self.shown)
        } else {
            self.top
        }
    }
}

impl FullScreen {
    /// Takes over the screen: the alternate screen, with the mouse reported.
    pub fn enter() -> io::Result<FullScreen> {
        execute!(io::stdout(), EnterAlternateScreen, EnableMouseCapture)?;
        let terminal = ratatui::Terminal::new(CrosstermBackend::new(io::stdout()))?;
        let width = terminal.size()?.width;
        Ok(FullScreen {
            terminal,
            view: Transcript::new(width),
        })
    }

    /// Takes the screen again after a program or the pager had it.
    pub fn reenter(&mut self) -> io::Result<()> {
        execute!(io::stdout(), EnterAlternateScreen, EnableMouseCapture)?;
        self.terminal.clear()
    }

    /// Gives the screen back as it was.
    pub fn leave(&mut self) -> io::Result<()> {
        execute!(io::stdout(), DisableMouseCapture, LeaveAlternateScreen)
    }

    /// The terminal's size.
    pub fn size(&self) -> (u16, u16) {
        self.terminal
            .size()
            .map_or((80, 24), |s| (s.width, s.height))
    }

    /// Adds rows at the end (what the inline screen would put into the scrollback).
    pub fn push(&mut self, tagged: Vec<(Line<'static>, Option<usize>)>) {
        self.view.push(tagged);
    }

    /// Lays the transcript out again at the terminal's width (after a resize or a switch).
    pub fn reflow(&mut self, app: &mut App) {
        self.view.width = self.size().0;
        self.view.reflow(app);
    }

    /// Draws the transcript above the viewport's rows, as one synchronized update.
    pub fn draw(&mut self, bottom: &Frame) -> io::Result<Drawn> {
        let (width, height) = self.size();
        let below = bottom.rows.len().min(usize::from(height));
        self.view.shown = usize::from(height) - below;
        let first = self.view.first_shown();
        let shown = self.view.shown;
        let rows = &self.view.rows;
        let focus = self.view.focus.as_ref().map(|(r, _)| *r);
        let mut cells = 0;
        execute!(io::stdout(), BeginSynchronizedUpdate)?;
        self.terminal.draw(|frame| {
            let buffer = frame.buffer_mut();
            for (y, row) in rows.iter().skip(first).take(shown).enumerate() {
                if Some(first + y) == focus {
                    let row = row.clone().style(
                        ratatui::style::Style::new()
                            .add_modifier(ratatui::style::Modifier::REVERSED),
                    );
                    buffer.set_line(0, y as u16, &row, width);
                } else {
                    buffer.set_line(0, y as u16, row, width);
                }
            }
            for (y, row) in bottom.rows.iter().rev().take(below).rev().enumerate() {
                buffer.set_line(0, (shown + y) as u16, row, width);
            }
            if crate::ui::is_monochrome() {
                crate::ui::monochrome(buffer);
            }
            cells = usize::from(width) * usize::from(height);
            if let Some((x, y)) = bottom.cursor {
                let offset = bottom.rows.len() - below;
                if usize::from(y) >= offset {
                    frame.set_cursor_position(Position::new(
                        x,
                        (shown + usize::from(y) - offset) as u16,
                    ));
                }
            }
        })?;
        execute!(io::stdout(), EndSynchronizedUpdate)?;
        io::stdout().flush()?;
        Ok(Drawn {
            bytes: 0,
            cells,
            history: 0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cells::Entry;

    fn text(rows: &[Line<'static>]) -> Vec<String> {
        rows.iter().map(crate::wrap::plain).collect()
    }

    fn app_with_a_fold() -> App {
        let mut app = App::new(60, Vec::new());
        app.commit(Entry::Answer {
            text: "before".into(),
        });
        app.commit(Entry::Fold {
            handle: "ab12".into(),
            since: 3,
            until: 9,
            items: 2,
            note: "changed: x".into(),
            files: Vec::new(),
            archived: vec![Entry::Answer {
                text: "archived answer".into(),
            }],
        });
        app.commit(Entry::Answer {
            text: "after".into(),
        });
        app
    }

    #[test]
    fn a_click_on_a_card_expands_it_in_place_and_folds_it_back() {
        let mut app = app_with_a_fold();
        let mut view = Transcript::new(60);
        view.push(app.take_history_tagged());
        view.shown = 20;
        let before = text(view.rows());
        assert_eq!(
            before,
            [
                "before",
                "▸ fold t3..t9 · ab12 · 2 items",
                "  changed: x",
                "after"
            ]
        );
        assert_eq!(view.click(0, 2, &app), Click::Toggled);
        let expanded = text(view.rows());
        assert_eq!(expanded[1], "▾ fold t3..t9 · ab12 · 2 items");
        assert!(
            expanded.contains(&"┊ archived answer".to_owned()),
            "{expanded:?}"
        );
        assert_eq!(expanded.last().map(String::as_str), Some("after"));
        assert_eq!(view.click(0, 1, &app), Click::Toggled);
        assert_eq!(text(view.rows()), before);
        assert_eq!(
            view.click(0, 0, &app),
            Click::Nothing,
            "an answer does not fold"
        );
    }

    #[test]
    fn a_click_on_a_handle_takes_it() {
        let mut app = app_with_a_fold();
        let mut view = Transcript::new(60);
        view.push(app.take_history_tagged());
        view.shown = 20;
        // `▸ fold t3..t9 · ` is 16 columns wide; the handle follows.
        assert_eq!(view.click(17, 1, &app), Click::Handle("ab12".into()));
    }

    #[test]
    fn scrolling_leaves_the_end_and_coming_back_follows_it_again() {
        let mut app = App::new(60, Vec::new());
        for i in 0..50 {
            app.commit(Entry::Answer {
                text: format!("row {i}"),
            });
        }
        let mut view = Transcript::new(60);
        view.push(app.take_history_tagged());
        view.shown = 10;
        assert_eq!(view.first_shown(), 40);
        view.scroll(-view.page());
        assert_eq!(view.first_shown(), 31);
        app.commit(Entry::Answer { text: "new".into() });
        view.push(app.take_history_tagged());
        assert_eq!(
            view.first_shown(),
            31,
            "new rows do not move a scrolled view"
        );
        view.scroll(100);
        assert_eq!(view.first_shown(), 41, "back at the end, it follows");
    }

    #[test]
    fn a_reflow_lays_out_every_entry_at_the_new_width_keeping_what_is_expanded() {
        let mut app = app_with_a_fold();
        let mut view = Transcript::new(60);
        view.push(app.take_history_tagged());
        view.shown = 20;
        view.click(0, 1, &app);
        view.width = 30;
        view.reflow(&mut app);
        let rows = text(view.rows());
        assert!(rows.iter().all(|r| crate::wrap::width(r) <= 30), "{rows:?}");
        assert!(
            rows.contains(&"┊ archived answer".to_owned()),
            "still expanded: {rows:?}"
        );
    }

    #[test]
    fn tab_walks_the_handles_and_scrolls_them_into_view() {
        let mut app = App::new(60, Vec::new());
        for i in 0..30 {
            app.commit(Entry::Answer {
                text: format!("row {i}"),
            });
        }
        app.commit(Entry::Fold {
            handle: "ab12".into(),
            since: 1,
            until: 2,
            items: 1,
            note: "changed: x".into(),
            files: Vec::new(),
            archived: Vec::new(),
        });
        for i in 0..30 {
            app.commit(Entry::Answer {
                text: format!("later {i}"),
            });
        }
        let mut view = Transcript::new(60);
        view.push(app.take_history_tagged());
        view.shown = 10;
        assert!(
            view.focus_next(false),
            "going back from the end finds the fold"
        );
        assert_eq!(view.focused(), Some("ab12"));
        let first = view.first_shown();
        assert!(
            (first..first + 10).contains(&30),
            "the fold's row is on screen"
        );
        assert!(!view.focus_next(true) || view.focused() == Some("ab12"));
        view.unfocus();
        assert_eq!(view.focused(), None);
    }
}
