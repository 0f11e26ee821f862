//! The transcript pager (Ctrl+T): the whole session in the alternate screen, every entry
//! expanded (tool outputs, thinking, the items archived inside folds and compactions,
//! children's work), with search and the handles in reach: Tab moves between them, Enter
//! puts `/ask <handle> ` in the composer, `r` puts `/recall `, `y` copies the handle.
//! Leaving it returns to the inline screen exactly as it was.
//!
//! Entries are rendered only when they come into view (and kept while they are near it), so
//! opening the pager on a session of 100,000 records costs what one screen costs; the
//! position is an entry and a row inside it, not a row of the whole transcript.

use std::collections::HashMap;
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

/// Rendered entries kept at most; more are dropped and rendered again when seen again.
const CACHED: usize = 512;

/// What a key did.
pub enum Outcome {
    /// Still open.
    Open,
    /// Closed, maybe with text for the composer.
    Closed(Option<String>),
    /// Copy this.
    Copy(String),
}

/// The entries, rendered lazily, and where the screen starts in them.
pub struct Pages {
    entries: Vec<Entry>,
    width: usize,
    cache: HashMap<usize, Vec<Line<'static>>>,
    /// The first row shown: an entry and a row inside it.
    top: (usize, usize),
}

impl Pages {
    /// `entries` at `width`, shown from the end.
    pub fn new(entries: Vec<Entry>, width: usize, height: usize) -> Pages {
        let mut pages = Pages {
            entries,
            width: width.max(10),
            cache: HashMap::new(),
            top: (0, 0),
        };
        pages.end(height);
        pages
    }

    /// How many entries there are.
    pub fn count(&self) -> usize {
        self.entries.len()
    }

    /// The entry at the top of the screen.
    pub fn top_entry(&self) -> usize {
        self.top.0
    }

    fn rows(&mut self, entry: usize) -> &[Line<'static>] {
        if self.cache.len() > CACHED && !self.cache.contains_key(&entry) {
            let near = self.top.0;
            self.cache.retain(|i, _| i.abs_diff(near) < CACHED / 4);
        }
        let width = self.width;
        let entries = &self.entries;
        self.cache.entry(entry).or_insert_with(|| {
            entries
                .get(entry)
                .map_or_else(Vec::new, |e| e.rows(width, true))
        })
    }

    /// The rows a screen of `height` shows, each with its entry.
    pub fn visible(&mut self, height: usize) -> Vec<(Line<'static>, usize)> {
        let mut out = Vec::with_capacity(height);
        let (mut entry, mut row) = self.top;
        while out.len() < height && entry < self.entries.len() {
            let rows = self.rows(entry);
            for line in rows.iter().skip(row) {
                if out.len() == height {
                    break;
                }
                out.push((line.clone(), entry));
            }
            entry += 1;
            row = 0;
        }
        out
    }

    /// Moves down `n` rows, stopping where the last screen starts.
    pub fn down(&mut self, n: usize, height: usize) {
        let limit = self.last_top(height);
        for _ in 0..n {
            if self.top >= limit {
                self.top = limit;
                return;
            }
            let (entry, row) = self.top;
            let len = self.rows(entry).len();
            self.top = if row + 1 < len {
                (entry, row + 1)
            } else {
                (entry + 1, 0)
            };
        }
    }

    /// Moves up `n` rows.
    pub fn up(&mut self, n: usize) {
        for _ in 0..n {
            let (entry, row) = self.top;
            if row > 0 {
                self.top = (entry, row - 1);
            } else if entry > 0 {
                let len = self.rows(entry - 1).len();
                self.top = (entry - 1, len.saturating_sub(1));
            } else {
                return;
            }
        }
    }

    /// The first row of the last screen.
    fn last_top(&mut self, height: usize) -> (usize, usize) {
        let mut need = height;
        let mut entry = self.entries.len();
        while entry > 0 {
            entry -= 1;
            let len = self.rows(entry).len();
            if len >= need {
                return (entry, len - need);
            }
            need -= len;
        }
        (0, 0)
    }

    /// Shows the end.
    pub fn end(&mut self, height: usize) {
        self.top = self.last_top(height);
    }

    /// Shows the start.
    pub fn home(&mut self) {
        self.top = (0, 0);
    }

    /// Shows entry `entry` from its first row (or the last screen, near the end).
    pub fn show(&mut self, entry: usize, height: usize) {
        self.top = (entry, 0).min(self.last_top(height));
    }

    /// The next entry after `from` (before it, going back) whose text holds `query`.
    pub fn find(&self, query: &str, from: usize, forward: bool) -> Option<usize> {
        let query = query.to_lowercase();
        let hit = |i: &usize| {
            self.entries[*i]
                .search_text()
                .to_lowercase()
                .contains(&query)
        };
        if forward {
            (from + 1..self.entries.len()).find(hit)
        } else {
            (0..from.min(self.entries.len())).rev().find(hit)
        }
    }

    /// The next entry after `from` (before it, going back) that has a handle, with it.
    pub fn next_handle(&self, from: Option<usize>, forward: bool) -> Option<(usize, String)> {
        let n = self.entries.len();
        let order: Box<dyn Iterator<Item = usize>> = match (from, forward) {
            (None, true) => Box::new(self.top.0..n),
            (Some(i), true) => Box::new(i + 1..n),
            (None, false) => Box::new((0..=self.top.0.min(n.saturating_sub(1))).rev()),
            (Some(i), false) => Box::new((0..i).rev()),
        };
        for i in order {
            if let Some(handle) = self.entries[i].handle() {
                return Some((i, handle));
            }
        }
        None
    }
}

/// The pager: its pages and its terminal.
pub struct Pager {
    terminal: ratatui::Terminal<CrosstermBackend<Stdout>>,
    pages: Pages,
    /// The entry whose handle has the focus, with the handle.
    focus: Option<(usize, String)>,
    search: Option<String>,
    query: String,
    /// Something changed since the last frame.
    pub dirty: bool,
}

impl Pager {
    /// Opens the pager over `entries` at `width`.
    pub fn open(entries: Vec<Entry>, width: u16) -> Pager {
        let _ = execute!(io::stdout(), EnterAlternateScreen);
        let terminal = ratatui::Terminal::new(CrosstermBackend::new(io::stdout()))
            .expect("a crossterm terminal on stdout can always be made");
        let height = terminal
            .size()
            .map_or(24, |s| usize::from(s.height))
            .saturating_sub(1)
            .max(1);
        Pager {
            terminal,
            pages: Pages::new(entries, usize::from(width), height),
            focus: None,
            search: None,
            query: String::new(),
            dirty: true,
        }
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

    /// Takes an input event.
    pub fn input(&mut self, event: &Input) -> Outcome {
        self.dirty = true;
        let Input::Key(key) = event else {
            return Outcome::Open;
        };
        if key.kind == KeyEventKind::Release {
            return Outcome::Open;
        }
        let height = self.height();
        if let Some(query) = &mut self.search {
            match key.code {
                KeyCode::Enter => {
                    self.query = std::mem::take(query);
                    self.search = None;
                    self.find(true);
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
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Esc | KeyCode::Char('q') => return Outcome::Closed(None),
            KeyCode::Char('t' | 'c') if ctrl => return Outcome::Closed(None),
            KeyCode::Up | KeyCode::Char('k') => self.pages.up(1),
            KeyCode::Down | KeyCode::Char('j') => self.pages.down(1, height),
            KeyCode::PageUp | KeyCode::Char('b') => self.pages.up(height.saturating_sub(1)),
            KeyCode::PageDown | KeyCode::Char(' ') => {
                self.pages.down(height.saturating_sub(1), height)
            }
            KeyCode::Home | KeyCode::Char('g') => self.pages.home(),
            KeyCode::End | KeyCode::Char('G') => self.pages.end(height),
            KeyCode::Char('/') => self.search = Some(String::new()),
            KeyCode::Char('n') => self.find(true),
            KeyCode::Char('N') => self.find(false),
            KeyCode::Tab | KeyCode::BackTab => {
                let from = self.focus.as_ref().map(|(i, _)| *i);
                let forward = key.code == KeyCode::Tab;
                if let Some((entry, handle)) = self.pages.next_handle(from, forward) {
                    self.pages.show(entry, height);
                    self.focus = Some((entry, handle));
                }
            }
            KeyCode::Enter if self.focus.is_some() => {
                if let Some((_, handle)) = &self.focus {
                    return Outcome::Closed(Some(format!("/ask {handle} ")));
                }
            }
            KeyCode::Char('r') if self.focus.is_some() => {
                return Outcome::Closed(Some("/recall ".to_owned()));
            }
            KeyCode::Char('y') if self.focus.is_some() => {
                if let Some((_, handle)) = &self.focus {
                    return Outcome::Copy(handle.clone());
                }
            }
            _ => {}
        }
        Outcome::Open
    }

    fn find(&mut self, forward: bool) {
        if self.query.is_empty() {
            return;
        }
        let height = self.height();
        if let Some(entry) = self
            .pages
            .find(&self.query, self.pages.top_entry(), forward)
        {
            self.pages.show(entry, height);
        }
    }

    /// Draws the visible rows and the footer, as one synchronized update.
    pub fn draw(&mut self) -> io::Result<()> {
        self.dirty = false;
        let height = self.height();
        let rows = self.pages.visible(height);
        let focus = self.focus.as_ref().map(|(i, _)| *i);
        let footer = match &self.search {
            Some(q) => format!("/{q}"),
            None => format!(
                "transcript · entry {} of {} · ↑↓ PgUp PgDn g G · / search · Tab handles{} · q back",
                (self.pages.top_entry() + 1).min(self.pages.count()),
                self.pages.count(),
                match &self.focus {
                    Some((_, h)) => format!(" · {h}: Enter ask · r recall · y copy"),
                    None => String::new(),
                }
            ),
        };
        execute!(io::stdout(), BeginSynchronizedUpdate)?;
        self.terminal.draw(|frame| {
            let area = frame.area();
            let buffer = frame.buffer_mut();
            let mut seen_focus = false;
            for (y, (row, entry)) in rows.iter().enumerate() {
                let mut line = row.clone();
                if Some(*entry) == focus && !seen_focus {
                    seen_focus = true;
                    line = line.style(Style::new().add_modifier(Modifier::REVERSED));
                }
                buffer.set_line(0, y as u16, &line, area.width);
            }
            let footer = Line::from(Span::styled(
                footer.clone(),
                Style::new().fg(Color::Black).bg(Color::Gray),
            ));
            buffer.set_line(0, area.height.saturating_sub(1), &footer, area.width);
            if crate::ui::is_monochrome() {
                crate::ui::monochrome(buffer);
            }
        })?;
        execute!(io::stdout(), EndSynchronizedUpdate)?;
        io::stdout().flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(n: usize) -> Vec<Entry> {
        (0..n)
            .map(|i| Entry::Answer {
                text: format!("answer {i}\nsecond row of {i}"),
            })
            .collect()
    }

    fn text(rows: &[(Line<'static>, usize)]) -> Vec<String> {
        rows.iter()
            .map(|(l, _)| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    #[test]
    fn opens_at_the_end_and_renders_only_what_it_shows() {
        let mut pages = Pages::new(entries(100_000), 80, 5);
        let shown = text(&pages.visible(5));
        assert_eq!(
            shown.last().map(String::as_str),
            Some("second row of 99999")
        );
        assert!(pages.cache.len() < 10, "rendered {}", pages.cache.len());
        pages.home();
        assert_eq!(text(&pages.visible(2)), ["answer 0", "second row of 0"]);
    }

    #[test]
    fn scrolls_across_entries_both_ways() {
        let mut pages = Pages::new(entries(10), 80, 3);
        pages.home();
        pages.down(3, 3);
        assert_eq!(text(&pages.visible(1)), ["second row of 1"]);
        pages.up(2);
        assert_eq!(text(&pages.visible(1)), ["second row of 0"]);
        pages.down(1_000, 3);
        assert_eq!(
            text(&pages.visible(3))[2],
            "second row of 9",
            "stops at the last screen"
        );
    }

    #[test]
    fn finds_text_and_handles_without_rendering_everything() {
        let mut list = entries(1_000);
        list.insert(
            500,
            Entry::Fold {
                handle: "c0de".into(),
                since: 1,
                until: 2,
                items: 1,
                note: "changed: the needle".into(),
                files: Vec::new(),
                archived: Vec::new(),
            },
        );
        let pages = Pages::new(list, 80, 10);
        assert_eq!(pages.find("needle", 0, true), Some(500));
        assert_eq!(pages.find("needle", 900, false), Some(500));
        assert_eq!(
            pages.next_handle(Some(0), true),
            Some((500, "c0de".to_owned()))
        );
        assert_eq!(
            pages.next_handle(Some(900), false),
            Some((500, "c0de".to_owned()))
        );
    }
}
