//! The composer: the text being typed (placeholder until the editor lands).

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::text::Line;

/// What a key did to the composer.
#[derive(Debug, PartialEq, Eq)]
pub enum Action {
    /// Nothing the app needs to know.
    None,
    /// The text changed (or the cursor moved): redraw.
    Changed,
    /// Enter: the message, with paste markers expanded; the composer is empty again.
    Submit(String),
    /// The key means nothing to the composer: the app may use it.
    Ignored,
}

/// The text being typed.
#[derive(Debug, Default)]
pub struct Composer {
    text: String,
}

impl Composer {
    /// An empty composer that recalls `history` (oldest first).
    pub fn new(_history: Vec<String>) -> Composer {
        Composer::default()
    }

    /// Handles one key.
    pub fn key(&mut self, key: KeyEvent) -> Action {
        match key.code {
            KeyCode::Enter => Action::Submit(std::mem::take(&mut self.text)),
            KeyCode::Char(c) => {
                self.text.push(c);
                Action::Changed
            }
            KeyCode::Backspace => {
                self.text.pop();
                Action::Changed
            }
            _ => Action::Ignored,
        }
    }

    /// Adds a sent message to the history Up and Ctrl+R recall.
    pub fn remember(&mut self, _text: &str) {}

    /// The history, oldest first.
    pub fn history(&self) -> &[String] {
        &[]
    }

    /// A bracketed paste: kept as one piece of the message.
    pub fn paste(&mut self, text: &str) {
        self.text.push_str(text);
    }

    /// The message as it would be sent.
    pub fn text(&self) -> String {
        self.text.clone()
    }

    /// Replaces the text (the cursor goes to its end).
    pub fn set_text(&mut self, text: &str) {
        self.text = text.to_owned();
    }

    /// Whether nothing is typed.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Rows to draw at `width` (the prompt included), and the cursor's (column, row) in them.
    pub fn render(&self, width: usize) -> (Vec<Line<'static>>, (u16, u16)) {
        let line = Line::from(format!("› {}", self.text));
        let rows = crate::wrap::wrap(&line, width, &[]);
        let last = rows.last().map_or(0, crate::wrap::line_width);
        let y = rows.len().saturating_sub(1);
        (rows, (last as u16, y as u16))
    }
}
