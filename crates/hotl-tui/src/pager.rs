//! The transcript pager (Ctrl+T): the whole session in the alternate screen, every entry
//! expanded (tool outputs, thinking, the items archived inside folds and compactions,
//! children's work), with search and the handles in reach: Tab moves between them, Enter
//! puts `/ask <handle> ` in the composer, `r` puts `/recall `, `y` copies the handle.
//! Leaving it returns to the inline screen exactly as it was.

use std::io::{self, Stdout, Write};

use crossterm::event::{Event as Input, KeyCode, KeyEventKind, KeyModifiers};
use crossterm::execute;
use crossterm::terminal::{
    BeginSynchronizedUpdate, EndSynchronizedUpdate, EnterAlternateScreen, LeaveAlternateScreen,
};
use ratatui::backend::CrosstermBackend;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use crate::cells::Entry;
use crate::cells::style;

/// What a key did.
pub enum Outcome {
    /// Still open.
    Open,
    /// Closed, maybe with text for the composer.
    Closed(Option<String>),
    /// Copy this.
    Copy(String),
}

/// The pager's state.
pub struct Pager {
    terminal: ratatui::Terminal<CrosstermBackend<Stdout>>,
    rows: Vec<Line<'static>>,
    /// Rows holding a handle, with it.
    handles: Vec<(usize, String)>,
    focus: Option<usize>,
    top: usize,
    search: Option<String>,
    query: String,
    /// Something changed since the last frame.
    pub dirty: bool,
}

impl Pager {
    /// Opens the pager over `entries` at `width`.
    pub fn open(entries: &[Entry], width: u16) -> Pager {
        let width = usize::from(width.max(10));
        let rows = transcript_rows(entries, width);
        let handles = rows
            .iter()
            .enumerate()
            .filter_map(|(i, row)| {
                row.spans
                    .iter()
                    .find(|s| s.style == style::handle())
                    .map(|s| (i, s.content.to_string()))
            })
            .collect();
        let _ = execute!(io::stdout(), EnterAlternateScreen);
        let terminal = ratatui::Terminal::new(CrosstermBackend::new(io::stdout()))
            .expect("a crossterm terminal on stdout can always be made");
        let mut pager = Pager {
            terminal,
            top: 0,
            rows,
            handles,
            focus: None,
            search: None,
            query: String::new(),
            dirty: true,
        };
        pager.top = pager.max_top();
        pager
    }

    /// Leaves the alternate screen.
    pub fn close(self) -> io::Result<()> {
        execute!(io::stdout(), LeaveAlternateScreen)
    }

    fn height(&self) -> usize {
        self.terminal
            .size()
            .map_or(24, |s| usize::from(s.height))
            .saturating_sub(1)
            .max(1)
    }

    fn max_top(&self) -> usize {
        self.rows.len().saturating_sub(self.height())
    }

    /// Takes an input event.
    pub fn input(&mut self, event: &Input) -> Outcome {
        self.dirty = true;
        let Input::Key(key) = event else {
            return Outcome::Open;
        };
        if key.kind == KeyEventKind::Release {
            return Outcome::Open;
        }
        if let Some(query) = &mut self.search {
            match key.code {
                KeyCode::Enter => {
                    self.query = std::mem::take(query);
                    self.search = None;
                    self.find_next(true);
                }
                KeyCode::Esc => self.search = None,
                KeyCode::Backspace => {
                    query.pop();
                }
                KeyCode::Char(c) => query.push(c),
                _ => {}
            }
            return Outcome::Open;
        }
        let page = self.height();
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Esc | KeyCode::Char('q') => return Outcome::Closed(None),
            KeyCode::Char('t' | 'c') if ctrl => return Outcome::Closed(None),
            KeyCode::Up | KeyCode::Char('k') => self.top = self.top.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') => self.top = (self.top + 1).min(self.max_top()),
            KeyCode::PageUp | KeyCode::Char('b') => self.top = self.top.saturating_sub(page),
            KeyCode::PageDown | KeyCode::Char(' ') => {
                self.top = (self.top + page).min(self.max_top())
            }
            KeyCode::Home | KeyCode::Char('g') => self.top = 0,
            KeyCode::End | KeyCode::Char('G') => self.top = self.max_top(),
            KeyCode::Char('/') => self.search = Some(String::new()),
            KeyCode::Char('n') => self.find_next(true),
            KeyCode::Char('N') => self.find_next(false),
            KeyCode::Tab | KeyCode::BackTab if !self.handles.is_empty() => {
                let n = self.handles.len();
                let next = match (self.focus, key.code == KeyCode::BackTab) {
                    (None, false) => self
                        .handles
                        .iter()
                        .position(|(row, _)| *row >= self.top)
                        .unwrap_or(0),
                    (None, true) => n - 1,
                    (Some(i), false) => (i + 1) % n,
                    (Some(i), true) => (i + n - 1) % n,
                };
                self.focus = Some(next);
                let row = self.handles[next].0;
                if row < self.top || row >= self.top + page {
                    self.top = row.saturating_sub(page / 2).min(self.max_top());
                }
            }
            KeyCode::Enter if self.focus.is_some() => {
                if let Some(handle) = self.focused() {
                    return Outcome::Closed(Some(format!("/ask {handle} ")));
                }
            }
            KeyCode::Char('r') if self.focus.is_some() => {
                return Outcome::Closed(Some("/recall ".to_owned()));
            }
            KeyCode::Char('y') if self.focus.is_some() => {
                if let Some(handle) = self.focused() {
                    return Outcome::Copy(handle);
                }
            }
            _ => {}
        }
        Outcome::Open
    }

    fn focused(&self) -> Option<String> {
        self.focus
            .and_then(|i| self.handles.get(i))
            .map(|(_, h)| h.clone())
    }

    fn find_next(&mut self, forward: bool) {
        if self.query.is_empty() {
            return;
        }
        let query = self.query.to_lowercase();
        let matches = |row: &Line<'_>| {
            row.spans
                .iter()
                .map(|s| s.content.as_ref())
                .collect::<String>()
                .to_lowercase()
                .contains(&query)
        };
        let found = if forward {
            (self.top + 1..self.rows.len()).find(|&i| matches(&self.rows[i]))
        } else {
            (0..self.top).rev().find(|&i| matches(&self.rows[i]))
        };
        if let Some(i) = found {
            self.top = i.min(self.max_top());
        }
    }

    /// Draws the visible rows and the footer, as one synchronized update.
    pub fn draw(&mut self) -> io::Result<()> {
        self.dirty = false;
        let height = self.height();
        let top = self.top;
        let focus_row = self
            .focus
            .and_then(|i| self.handles.get(i))
            .map(|(r, _)| *r);
        let footer = match &self.search {
            Some(q) => format!("/{q}"),
            None => format!(
                "transcript · rows {}-{} of {} · ↑↓ PgUp PgDn g G · / search · Tab handles{} · q back",
                top + 1,
                (top + height).min(self.rows.len()),
                self.rows.len(),
                if self.focus.is_some() {
                    " · Enter ask · r recall · y copy"
                } else {
                    ""
                }
            ),
        };
        let rows = &self.rows;
        execute!(io::stdout(), BeginSynchronizedUpdate)?;
        self.terminal.draw(|frame| {
            let area = frame.area();
            let buffer = frame.buffer_mut();
            for (y, row) in rows.iter().skip(top).take(height).enumerate() {
                let mut line = row.clone();
                if Some(top + y) == focus_row {
                    line = line.style(Style::new().add_modifier(Modifier::REVERSED));
                }
                buffer.set_line(0, y as u16, &line, area.width);
            }
            let footer = Line::from(Span::styled(
                footer.clone(),
                Style::new().fg(Color::Black).bg(Color::Gray),
            ));
            buffer.set_line(0, area.height.saturating_sub(1), &footer, area.width);
        })?;
        execute!(io::stdout(), EndSynchronizedUpdate)?;
        io::stdout().flush()
    }
}

/// Every entry, expanded.
pub fn transcript_rows(entries: &[Entry], width: usize) -> Vec<Line<'static>> {
    let mut rows = Vec::new();
    for entry in entries {
        rows.extend(entry.rows(width, true));
    }
    rows
}
