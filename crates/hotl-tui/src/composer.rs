//! The composer: the multi-line text box where the user types a message.
//!
//! It owns the text being typed and everything that edits it: a cursor that only ever sits
//! between grapheme clusters, emacs-style line editing with a kill buffer, recall of earlier
//! messages (Up/Down and a Ctrl+R reverse search), and bracketed pastes, of which a large one
//! becomes a single placeholder (`[paste #1 +120 lines]`) that [`Composer::text`] expands. It
//! also lays itself out: [`Composer::render`] wraps the text to a width and says where the
//! terminal's cursor goes. What a sent message means is the app's business; the composer only
//! hands it over, and leaves the keys it does not use ([`Action::Ignored`]) to the app.
//!
//! Costs: a keystroke is O(length of the shown text), where a placeholder counts as its label,
//! so a 5,000-line paste costs nothing once it is in. Rendering is one pass over the text that
//! copies it once per span; runs of ASCII and common characters skip grapheme segmentation.

use std::borrow::Cow;
use std::cell::Cell;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use unicode_segmentation::{GraphemeCursor, UnicodeSegmentation};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// The first row's mark.
const PROMPT: &str = "› ";
/// What the rows after the first start with, as wide as the prompt.
const INDENT: &str = "  ";
/// The columns the prompt (and the indent) take.
const PROMPT_WIDTH: usize = 2;
/// Shown after the prompt while nothing is typed.
const HINT: &str = "Ask anything · / for commands · Shift+Enter newline";
/// The columns a tab takes on screen (the text keeps the tab).
const TAB_WIDTH: usize = 4;
/// A paste with more lines than this becomes a placeholder.
const PASTE_MAX_LINES: usize = 5;
/// A paste with more characters than this becomes a placeholder.
const PASTE_MAX_CHARS: usize = 1_000;

const PROMPT_STYLE: Style = Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD);
const DIM: Style = Style::new().add_modifier(Modifier::DIM);
const PLACEHOLDER_STYLE: Style = Style::new().fg(Color::Magenta);
const MATCH_STYLE: Style = Style::new()
    .add_modifier(Modifier::BOLD)
    .add_modifier(Modifier::UNDERLINED);

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

/// The text being typed, with its history, kill buffer and search.
#[derive(Debug, Default)]
pub struct Composer {
    buf: Buffer,
    /// Sent messages, oldest first, as sent (placeholders expanded).
    history: Vec<String>,
    /// History entries sent this session with placeholders in them, by index, so that
    /// recalling one shows its placeholders again rather than thousands of pasted lines.
    with_pastes: HashMap<usize, Buffer>,
    /// The last message submitted with placeholders, until [`Composer::remember`] files it.
    sent: Option<Buffer>,
    /// Set while Up/Down show a history entry.
    browse: Option<Browse>,
    /// Set while Ctrl+R searches.
    search: Option<Search>,
    /// What the last search looked for: Ctrl+R on an empty query looks for it again.
    last_query: String,
    /// The last killed text: what Ctrl+Y puts back.
    kill: Piece,
    /// Whether the previous key killed: a kill right after another adds to the kill buffer.
    kill_chain: bool,
    /// The column Up/Down aim for, kept across a run of them so a short row does not lose it.
    goal: Option<usize>,
    /// The width of the last render, so Up/Down can move by screen row (0 before any).
    width: Cell<usize>,
}

/// Up/Down through the history.
#[derive(Debug)]
struct Browse {
    /// The entry shown.
    index: usize,
    /// What was being typed before browsing: Down past the newest entry brings it back.
    draft: Buffer,
}

/// A Ctrl+R reverse search; the buffer (the draft) is left alone until a match is accepted.
#[derive(Debug, Default)]
struct Search {
    query: String,
    /// The history entry matching, if any.
    found: Option<usize>,
}

impl Composer {
    /// An empty composer that recalls `history` (oldest first).
    pub fn new(history: Vec<String>) -> Composer {
        Composer {
            history,
            ..Composer::default()
        }
    }

    /// The word the cursor ends: from the last whitespace before the cursor (an `@path`
    /// being typed, say). Empty inside or right after a placeholder.
    pub fn word_before_cursor(&self) -> &str {
        let before = &self.buf.text[..self.buf.cursor];
        let start = before
            .char_indices()
            .rev()
            .find(|(_, c)| c.is_whitespace())
            .map_or(0, |(i, c)| i + c.len_utf8());
        if self
            .buf
            .atoms
            .iter()
            .any(|a| a.end > start && a.start < self.buf.cursor)
        {
            return "";
        }
        &before[start..]
    }

    /// Replaces [`Composer::word_before_cursor`] with `text`.
    pub fn replace_word_before_cursor(&mut self, text: &str) {
        let end = self.buf.cursor;
        let start = end - self.word_before_cursor().len();
        self.delete(Some(start..end));
        self.insert_str(text);
    }

    /// Handles one key.
    pub fn key(&mut self, key: KeyEvent) -> Action {
        if key.kind == KeyEventKind::Release {
            return Action::None;
        }
        if self.search.is_some() {
            return self.search_key(key);
        }
        let chained = std::mem::take(&mut self.kill_chain);
        if !matches!(key.code, KeyCode::Up | KeyCode::Down) {
            self.goal = None;
        }
        self.edit_key(key, chained)
    }

    /// Adds a sent message to the history Up and Ctrl+R recall (not twice in a row).
    pub fn remember(&mut self, text: &str) {
        if text.trim().is_empty() {
            return;
        }
        if self.history.last().map(String::as_str) != Some(text) {
            self.history.push(text.to_owned());
        }
        let index = self.history.len() - 1;
        // The app may trim what it sends; the placeholders still stand for the same message.
        if let Some(sent) = self.sent.take()
            && sent.expand().trim_end() == text.trim_end()
        {
            self.with_pastes.insert(index, sent);
        }
    }

    /// The history, oldest first, for saving.
    pub fn history(&self) -> &[String] {
        &self.history
    }

    /// A bracketed paste: inserted as text, or as one placeholder when it is large.
    pub fn paste(&mut self, text: &str) {
        let text = normalize_newlines(text);
        if self.search.is_some() {
            self.extend_query(&text.replace('\n', " "));
            return;
        }
        self.goal = None;
        self.kill_chain = false;
        if text.is_empty() {
            return;
        }
        let lines =
            text.bytes().filter(|&b| b == b'\n').count() + usize::from(!text.ends_with('\n'));
        let chars = text.chars().count();
        if lines > PASTE_MAX_LINES || chars > PASTE_MAX_CHARS {
            self.buf.insert_placeholder(&text, lines, chars);
        } else {
            self.buf.insert_str(&text);
        }
    }

    /// The message as it would be sent: placeholders expanded.
    pub fn text(&self) -> String {
        self.buf.expand()
    }

    /// The text as shown, placeholders as their labels: cheap, for a look at what was typed
    /// (a slash command, say) that [`Composer::text`] would pay a large paste's size for.
    pub fn shown(&self) -> &str {
        &self.buf.text
    }

    /// Replaces the text (the cursor goes to its end); ends any history browsing or search.
    pub fn set_text(&mut self, text: &str) {
        self.buf = Buffer::from_text(text);
        self.search = None;
        self.browse = None;
        self.goal = None;
        self.kill_chain = false;
    }

    /// Whether nothing is typed.
    pub fn is_empty(&self) -> bool {
        self.buf.text.is_empty()
    }

    /// Whether a Ctrl+R search is open: Esc and Ctrl+G then belong to the composer.
    pub fn is_searching(&self) -> bool {
        self.search.is_some()
    }

    /// Rows to draw at `width` (the prompt included), and the cursor's (column, row) in them.
    pub fn render(&self, width: usize) -> (Vec<Line<'static>>, (u16, u16)) {
        self.width.set(width);
        if let Some(search) = &self.search {
            return self.render_search(search, width);
        }
        if self.buf.text.is_empty() {
            let mut hint = Fit::new(text_width(width));
            hint.push(HINT, DIM);
            let mut spans = vec![Span::styled(PROMPT, PROMPT_STYLE)];
            spans.extend(hint.finish());
            return (vec![Line::from(spans)], (to_u16(PROMPT_WIDTH), 0));
        }
        self.render_text(width)
    }

    /// The text wrapped by grapheme to `width`, and where the cursor is.
    fn render_text(&self, width: usize) -> (Vec<Line<'static>>, (u16, u16)) {
        let mut painter = Painter {
            cursor_at: self.buf.cursor,
            avail: text_width(width),
            rows: Vec::new(),
            cursor: Spot::default(),
            atoms: &self.buf.atoms,
            in_placeholder: false,
            edge: 0,
        };
        let mut base = 0;
        for line in self.buf.text.split('\n') {
            painter.line(line, base);
            base += line.len() + 1;
        }
        let Painter { rows, cursor, .. } = painter;
        (
            rows,
            (to_u16(PROMPT_WIDTH + cursor.col), to_u16(cursor.row)),
        )
    }

    /// The search as one row: `(search) 'query': the matching entry`.
    fn render_search(&self, search: &Search, width: usize) -> (Vec<Line<'static>>, (u16, u16)) {
        let mut row = Fit::new(width);
        row.push("(search) '", DIM);
        row.push(&search.query, Style::new());
        let x = row.used;
        row.push("': ", DIM);
        let entry = search.found.and_then(|i| self.history.get(i));
        match entry.and_then(|e| find_match(e, &search.query).map(|m| (e, m))) {
            Some((entry, found)) => {
                let (line, found) = excerpt(entry, found, row.room() / 3);
                row.push(&line[..found.start], Style::new());
                row.push(&line[found.clone()], MATCH_STYLE);
                row.push(&line[found.end..], Style::new());
            }
            None if !search.query.is_empty() => row.push("no match", DIM),
            None => {}
        }
        let x = x.min(width.saturating_sub(1));
        (vec![Line::from(row.finish())], (to_u16(x), 0))
    }

    /// A key while editing (no search open).
    fn edit_key(&mut self, key: KeyEvent, chained: bool) -> Action {
        let mods = key.modifiers;
        let ctrl = mods.contains(KeyModifiers::CONTROL);
        let alt = mods.contains(KeyModifiers::ALT);
        let by_word = ctrl || alt;
        let cursor = self.buf.cursor;
        match key.code {
            KeyCode::Enter if ctrl => Action::Ignored,
            KeyCode::Enter if mods.intersects(KeyModifiers::SHIFT | KeyModifiers::ALT) => {
                self.insert_str("\n")
            }
            KeyCode::Enter => self.enter(),
            // AltGr arrives as Ctrl+Alt on some terminals: it types `@`, `{`, `€`…
            KeyCode::Char(c) if ctrl && alt && !c.is_ascii_alphabetic() => self.insert_char(c),
            KeyCode::Char(c) if ctrl => self.control(c.to_ascii_lowercase(), chained),
            KeyCode::Char(c) if alt => self.meta(c.to_ascii_lowercase(), chained),
            KeyCode::Char(c) if mods.difference(KeyModifiers::SHIFT).is_empty() => {
                self.insert_char(c)
            }
            KeyCode::Backspace if by_word => {
                self.kill(self.buf.word_left(cursor)..cursor, true, chained)
            }
            KeyCode::Backspace => self.delete(self.buf.prev_stop(cursor).map(|p| p..cursor)),
            KeyCode::Delete if by_word => {
                self.kill(cursor..self.buf.word_right(cursor), false, chained)
            }
            KeyCode::Delete => self.delete(self.buf.next_stop(cursor).map(|p| cursor..p)),
            KeyCode::Left if by_word => self.move_to(self.buf.word_left(cursor)),
            KeyCode::Left => self.move_to(self.buf.prev_stop(cursor).unwrap_or(cursor)),
            KeyCode::Right if by_word => self.move_to(self.buf.word_right(cursor)),
            KeyCode::Right => self.move_to(self.buf.next_stop(cursor).unwrap_or(cursor)),
            KeyCode::Home if ctrl => self.move_to(0),
            KeyCode::Home => self.move_to(self.buf.line_start(cursor)),
            KeyCode::End if ctrl => self.move_to(self.buf.text.len()),
            KeyCode::End => self.move_to(self.buf.line_end(cursor)),
            KeyCode::Up if !by_word => self.up(),
            KeyCode::Down if !by_word => self.down(),
            _ => Action::Ignored,
        }
    }

    /// Ctrl+`c` (lowercase): the emacs keys; the rest are the app's.
    fn control(&mut self, c: char, chained: bool) -> Action {
        let cursor = self.buf.cursor;
        match c {
            'a' => self.move_to(self.buf.line_start(cursor)),
            'e' => self.move_to(self.buf.line_end(cursor)),
            'b' => self.move_to(self.buf.prev_stop(cursor).unwrap_or(cursor)),
            'f' => self.move_to(self.buf.next_stop(cursor).unwrap_or(cursor)),
            // Terminals without keyboard enhancement send Ctrl+J for Shift+Enter's newline.
            'j' => self.insert_str("\n"),
            'h' => self.delete(self.buf.prev_stop(cursor).map(|p| p..cursor)),
            'w' => self.kill(self.buf.word_left(cursor)..cursor, true, chained),
            'u' => {
                let start = self.buf.line_start(cursor);
                // At a line's start there is nothing left of it: take the newline instead.
                let start = if start == cursor {
                    cursor.saturating_sub(1)
                } else {
                    start
                };
                self.kill(start..cursor, true, chained)
            }
            'k' => {
                let end = self.buf.line_end(cursor);
                let end = if end == cursor {
                    (cursor + 1).min(self.buf.text.len())
                } else {
                    end
                };
                self.kill(cursor..end, false, chained)
            }
            'y' => self.yank(),
            'r' => {
                self.search = Some(Search::default());
                Action::Changed
            }
            _ => Action::Ignored,
        }
    }

    /// Alt+`c` (lowercase): word moves and kills.
    fn meta(&mut self, c: char, chained: bool) -> Action {
        let cursor = self.buf.cursor;
        match c {
            'b' => self.move_to(self.buf.word_left(cursor)),
            'f' => self.move_to(self.buf.word_right(cursor)),
            'd' => self.kill(cursor..self.buf.word_right(cursor), false, chained),
            _ => Action::Ignored,
        }
    }

    /// Enter: a newline after a backslash, else the message goes.
    fn enter(&mut self) -> Action {
        let cursor = self.buf.cursor;
        if self.buf.text[..cursor].ends_with('\\') {
            // Same length, so no placeholder moves.
            self.buf.text.replace_range(cursor - 1..cursor, "\n");
            return Action::Changed;
        }
        let text = self.buf.expand();
        if text.trim().is_empty() {
            return Action::None;
        }
        let sent = std::mem::take(&mut self.buf);
        self.sent = (!sent.atoms.is_empty()).then_some(sent);
        self.browse = None;
        Action::Submit(text)
    }

    fn insert_char(&mut self, c: char) -> Action {
        if c.is_control() {
            return Action::Ignored;
        }
        self.insert_str(c.encode_utf8(&mut [0; 4]))
    }

    fn insert_str(&mut self, text: &str) -> Action {
        self.buf.insert_str(text);
        Action::Changed
    }

    fn move_to(&mut self, position: usize) -> Action {
        if position == self.buf.cursor {
            return Action::None;
        }
        self.buf.cursor = position;
        Action::Changed
    }

    /// Deletes `range` (a grapheme or a placeholder) without keeping it.
    fn delete(&mut self, range: Option<Range<usize>>) -> Action {
        match range {
            Some(range) if !range.is_empty() => {
                self.buf.remove(range);
                Action::Changed
            }
            _ => Action::None,
        }
    }

    /// Deletes `range` into the kill buffer; a kill right after a kill adds to what it holds.
    fn kill(&mut self, range: Range<usize>, backward: bool, chained: bool) -> Action {
        self.kill_chain = true;
        if range.is_empty() {
            return Action::None;
        }
        let piece = self.buf.remove(range);
        match (chained, backward) {
            (false, _) => self.kill = piece,
            (true, true) => self.kill = piece.followed_by(std::mem::take(&mut self.kill)),
            (true, false) => self.kill = std::mem::take(&mut self.kill).followed_by(piece),
        }
        Action::Changed
    }

    fn yank(&mut self) -> Action {
        if self.kill.text.is_empty() {
            return Action::None;
        }
        self.buf.insert(&self.kill);
        Action::Changed
    }

    /// Up: a row up, or from the first row the previous history entry.
    fn up(&mut self) -> Action {
        match self.vertical(false) {
            Some(position) => self.move_to(position),
            None => self.recall_older(),
        }
    }

    /// Down: a row down, or from the last row the next history entry (then the draft).
    fn down(&mut self) -> Action {
        match self.vertical(true) {
            Some(position) => self.move_to(position),
            None => self.recall_newer(),
        }
    }

    /// Where Up (or Down) takes the cursor by screen row, or `None` at the first (last) row.
    fn vertical(&mut self, down: bool) -> Option<usize> {
        let avail = match self.width.get() {
            // Before any render the rows are the lines.
            0 => usize::MAX / 4,
            width => text_width(width),
        };
        let buf = &self.buf;
        let start = buf.line_start(buf.cursor);
        let end = buf.line_end(buf.cursor);
        let (spot, last) = locate(&buf.text[start..end], avail, buf.cursor - start);
        let goal = *self.goal.get_or_insert(spot.col);
        let (line, row) = if down {
            if spot.row < last.row {
                (start, spot.row + 1)
            } else if end < buf.text.len() {
                (end + 1, 0)
            } else {
                return None;
            }
        } else if spot.row > 0 {
            (start, spot.row - 1)
        } else if start > 0 {
            let prev = buf.line_start(start - 1);
            let (_, last) = locate(&buf.text[prev..start - 1], avail, 0);
            (prev, last.row)
        } else {
            return None;
        };
        Some(buf.position_on_row(line, avail, row, goal))
    }

    /// Shows the entry before the one shown (or the newest), keeping the draft.
    fn recall_older(&mut self) -> Action {
        let index = match &self.browse {
            Some(browse) => browse.index.checked_sub(1),
            None => self.history.len().checked_sub(1),
        };
        let Some(index) = index else {
            return Action::None;
        };
        let entry = self.entry(index);
        let shown = std::mem::replace(&mut self.buf, entry);
        match &mut self.browse {
            Some(browse) => browse.index = index,
            None => {
                self.browse = Some(Browse {
                    index,
                    draft: shown,
                })
            }
        }
        // On the first row, so that Up again goes on to older entries.
        self.buf.cursor = self.buf.line_end(0);
        self.goal = None;
        Action::Changed
    }

    /// Shows the entry after the one shown, or past the newest the draft.
    fn recall_newer(&mut self) -> Action {
        let Some(browse) = &mut self.browse else {
            return Action::None;
        };
        let index = browse.index + 1;
        if index < self.history.len() {
            browse.index = index;
            self.buf = self.entry(index);
        } else if let Some(browse) = self.browse.take() {
            self.buf = browse.draft;
        }
        self.goal = None;
        Action::Changed
    }

    /// History entry `index` as a buffer (with its placeholders if it had any), cursor at the end.
    fn entry(&self, index: usize) -> Buffer {
        let mut buf = match self.with_pastes.get(&index) {
            Some(buf) => buf.clone(),
            None => Buffer::from_text(self.history.get(index).map_or("", String::as_str)),
        };
        buf.cursor = buf.text.len();
        buf
    }

    /// A key while searching.
    fn search_key(&mut self, key: KeyEvent) -> Action {
        let mods = key.modifiers;
        let ctrl = mods.contains(KeyModifiers::CONTROL);
        let plain = mods.difference(KeyModifiers::SHIFT).is_empty();
        match key.code {
            KeyCode::Char('r' | 'R') if ctrl => self.search_older(),
            KeyCode::Char('g' | 'G') if ctrl => self.end_search(false),
            KeyCode::Esc => self.end_search(false),
            KeyCode::Enter | KeyCode::Left | KeyCode::Right | KeyCode::End | KeyCode::Home => {
                self.end_search(true)
            }
            KeyCode::Backspace if plain => {
                if let Some(search) = &mut self.search {
                    search.query.pop();
                    search.found = None;
                }
                self.research();
                Action::Changed
            }
            KeyCode::Char(c) if plain && !c.is_control() => {
                self.extend_query(c.encode_utf8(&mut [0; 4]));
                Action::Changed
            }
            // Anything else takes the match and then does what it does (readline's way).
            _ => {
                self.end_search(true);
                self.key(key)
            }
        }
    }

    /// Adds to the query; the match shown stays if it still matches, else an older one.
    fn extend_query(&mut self, more: &str) {
        if let Some(search) = &mut self.search {
            search.query.push_str(more);
        }
        self.research();
    }

    /// Looks for the query from the match shown (or the newest entry) back.
    fn research(&mut self) {
        let Some(search) = &self.search else { return };
        let below = search.found.map_or(self.history.len(), |i| i + 1);
        let found = self.find(&search.query, below, None);
        if let Some(search) = &mut self.search {
            search.found = found;
        }
    }

    /// Ctrl+R while searching: the next older match (or, on an empty query, the last query).
    fn search_older(&mut self) -> Action {
        let Some(search) = &self.search else {
            return Action::None;
        };
        if search.query.is_empty() {
            let query = self.last_query.clone();
            let found = self.find(&query, self.history.len(), None);
            self.search = Some(Search { query, found });
            return Action::Changed;
        }
        let Some(current) = search.found else {
            return Action::None;
        };
        let shown = self.history.get(current).map(String::as_str);
        if let Some(older) = self.find(&search.query, current, shown)
            && let Some(search) = &mut self.search
        {
            search.found = Some(older);
        }
        Action::Changed
    }

    /// The newest entry before `below` that matches `query`, skipping copies of `skip`.
    fn find(&self, query: &str, below: usize, skip: Option<&str>) -> Option<usize> {
        if query.is_empty() {
            return None;
        }
        self.history[..below.min(self.history.len())]
            .iter()
            .rposition(|e| Some(e.as_str()) != skip && find_match(e, query).is_some())
    }

    /// Closes the search: with `accept` the match becomes the text to edit, else the draft stays.
    fn end_search(&mut self, accept: bool) -> Action {
        let Some(search) = self.search.take() else {
            return Action::None;
        };
        if !search.query.is_empty() {
            self.last_query = search.query;
        }
        if let (true, Some(index)) = (accept, search.found) {
            let entry = self.entry(index);
            let shown = std::mem::replace(&mut self.buf, entry);
            // Down from the accepted entry walks on to newer ones and then the draft.
            let draft = self.browse.take().map_or(shown, |b| b.draft);
            self.browse = Some(Browse { index, draft });
        }
        self.goal = None;
        Action::Changed
    }
}

/// Text with a cursor; placeholders are runs of `text` (their labels) that stand for a paste.
#[derive(Clone, Debug, Default)]
struct Buffer {
    text: String,
    /// Sorted and disjoint; the cursor is never strictly inside one.
    atoms: Vec<Atom>,
    /// A byte offset on a grapheme boundary (or a placeholder's edge).
    cursor: usize,
}

/// A placeholder: `text[start..end]` is its label, `paste` what it stands for.
#[derive(Clone, Debug)]
struct Atom {
    start: usize,
    end: usize,
    /// The `N` of `[paste #N …]`.
    id: usize,
    paste: Arc<str>,
}

impl Atom {
    fn shifted(mut self, by: usize) -> Atom {
        self.start += by;
        self.end += by;
        self
    }
}

/// Text cut out of a buffer or about to go into one, with placeholders at offsets within it.
#[derive(Clone, Debug, Default)]
struct Piece {
    text: String,
    atoms: Vec<Atom>,
}

impl Piece {
    /// This piece with `next` after it.
    fn followed_by(mut self, next: Piece) -> Piece {
        let by = self.text.len();
        self.text.push_str(&next.text);
        self.atoms
            .extend(next.atoms.into_iter().map(|a| a.shifted(by)));
        self
    }
}

impl Buffer {
    /// `text` with `\r\n` and `\r` made `\n`, the cursor at its end.
    fn from_text(text: &str) -> Buffer {
        let text = normalize_newlines(text).into_owned();
        Buffer {
            cursor: text.len(),
            text,
            atoms: Vec::new(),
        }
    }

    /// The text with every placeholder replaced by its paste.
    fn expand(&self) -> String {
        let pasted: usize = self.atoms.iter().map(|a| a.paste.len()).sum();
        let mut out = String::with_capacity(self.text.len() + pasted);
        let mut at = 0;
        for atom in &self.atoms {
            out.push_str(&self.text[at..atom.start]);
            out.push_str(&atom.paste);
            at = atom.end;
        }
        out.push_str(&self.text[at..]);
        out
    }

    /// Inserts `text` at the cursor and moves the cursor past it.
    fn insert_str(&mut self, text: &str) {
        let at = self.cursor;
        self.text.insert_str(at, text);
        let index = self.atoms.partition_point(|a| a.start < at);
        for atom in &mut self.atoms[index..] {
            atom.start += text.len();
            atom.end += text.len();
        }
        self.cursor = at + text.len();
        self.snap();
    }

    /// Inserts `piece`, placeholders and all, at the cursor.
    fn insert(&mut self, piece: &Piece) {
        let at = self.cursor;
        self.insert_str(&piece.text);
        let index = self.atoms.partition_point(|a| a.start < at);
        let atoms = piece.atoms.iter().map(|a| a.clone().shifted(at));
        self.atoms.splice(index..index, atoms);
        self.cursor = at + piece.text.len();
        self.snap();
    }

    /// Inserts a placeholder for `paste` (`lines` lines, `chars` characters).
    fn insert_placeholder(&mut self, paste: &str, lines: usize, chars: usize) {
        let id = self.atoms.iter().map(|a| a.id).max().map_or(1, |n| n + 1);
        let label = if lines > 1 {
            format!("[paste #{id} +{lines} lines]")
        } else {
            format!("[paste #{id} {chars} chars]")
        };
        let atom = Atom {
            start: 0,
            end: label.len(),
            id,
            paste: Arc::from(paste),
        };
        self.insert(&Piece {
            text: label,
            atoms: vec![atom],
        });
    }

    /// Removes `range` (widened to whole placeholders) and returns it.
    fn remove(&mut self, range: Range<usize>) -> Piece {
        if range.is_empty() {
            return Piece::default();
        }
        let first = self.atoms.partition_point(|a| a.end <= range.start);
        let last = self.atoms.partition_point(|a| a.start < range.end);
        let cut = self.atoms.get(first..last).unwrap_or_default();
        let start = cut
            .first()
            .map_or(range.start, |a| a.start.min(range.start));
        let end = cut.last().map_or(range.end, |a| a.end.max(range.end));
        let len = end - start;
        let text = self.text[start..end].to_owned();
        self.text.replace_range(start..end, "");
        let atoms = self
            .atoms
            .drain(first..last)
            .map(|mut a| {
                a.start -= start;
                a.end -= start;
                a
            })
            .collect();
        for atom in &mut self.atoms[first..] {
            atom.start -= len;
            atom.end -= len;
        }
        if self.cursor >= end {
            self.cursor -= len;
        } else if self.cursor > start {
            self.cursor = start;
        }
        self.snap();
        Piece { text, atoms }
    }

    /// Moves the cursor out of a placeholder or a grapheme cluster an edit put it in (a
    /// combining mark typed before an accent's letter, say).
    fn snap(&mut self) {
        let at = self.cursor;
        if let Some(atom) = self.atom_around(at) {
            self.cursor = atom.end;
        } else if self.atom_starting_at(at).is_none()
            && self.atom_ending_at(at).is_none()
            && !is_grapheme_boundary(&self.text, at)
        {
            self.cursor = self.next_stop(at).unwrap_or(self.text.len());
        }
    }

    /// The placeholder `at` is strictly inside of.
    fn atom_around(&self, at: usize) -> Option<&Atom> {
        let index = self.atoms.partition_point(|a| a.end <= at);
        self.atoms.get(index).filter(|a| a.start < at)
    }

    fn atom_starting_at(&self, at: usize) -> Option<&Atom> {
        let index = self.atoms.partition_point(|a| a.start < at);
        self.atoms.get(index).filter(|a| a.start == at)
    }

    fn atom_ending_at(&self, at: usize) -> Option<&Atom> {
        let index = self.atoms.partition_point(|a| a.end < at);
        self.atoms.get(index).filter(|a| a.end == at)
    }

    /// The next place the cursor can stop after `at`: a grapheme on, or over a placeholder.
    fn next_stop(&self, at: usize) -> Option<usize> {
        if at >= self.text.len() {
            return None;
        }
        if let Some(atom) = self.atom_starting_at(at) {
            return Some(atom.end);
        }
        let next = next_grapheme_boundary(&self.text, at);
        // A cluster running into a label stops at the label.
        let index = self.atoms.partition_point(|a| a.start <= at);
        match self.atoms.get(index) {
            Some(atom) if atom.start < next => Some(atom.start),
            _ => Some(next),
        }
    }

    /// The previous place the cursor can stop before `at`.
    fn prev_stop(&self, at: usize) -> Option<usize> {
        if at == 0 {
            return None;
        }
        if let Some(atom) = self.atom_ending_at(at) {
            return Some(atom.start);
        }
        let prev = prev_grapheme_boundary(&self.text, at);
        let index = self.atoms.partition_point(|a| a.end < at);
        match index.checked_sub(1).and_then(|i| self.atoms.get(i)) {
            Some(atom) if atom.end > prev => Some(atom.end),
            _ => Some(prev),
        }
    }

    /// Where the line holding `at` starts.
    fn line_start(&self, at: usize) -> usize {
        self.text[..at].rfind('\n').map_or(0, |i| i + 1)
    }

    /// Where the line holding `at` ends (its newline, or the text's end).
    fn line_end(&self, at: usize) -> usize {
        self.text[at..]
            .find('\n')
            .map_or(self.text.len(), |i| at + i)
    }

    /// What kind of thing sits between stops `from` and `to`.
    fn class(&self, from: usize, to: usize) -> Class {
        if self.atom_starting_at(from).is_some_and(|a| a.end == to) {
            return Class::Placeholder;
        }
        match self.text[from..to].chars().next() {
            Some(c) if c.is_whitespace() => Class::Space,
            Some(c) if c.is_alphanumeric() || c == '_' => Class::Word,
            _ => Class::Punctuation,
        }
    }

    /// The start of the word before `at`.
    fn word_left(&self, at: usize) -> usize {
        self.word_edge(at, false)
    }

    /// The end of the word after `at`.
    fn word_right(&self, at: usize) -> usize {
        self.word_edge(at, true)
    }

    /// From `at`, past any spaces and then one word: a run of one class of grapheme, or a
    /// single placeholder.
    fn word_edge(&self, mut at: usize, forward: bool) -> usize {
        let mut word = None;
        loop {
            let step = if forward {
                self.next_stop(at)
            } else {
                self.prev_stop(at)
            };
            let Some(next) = step else { break };
            let here = self.class(at.min(next), at.max(next));
            match word {
                None if here == Class::Space => {}
                None => word = Some(here),
                Some(Class::Placeholder) => break,
                Some(kind) if kind != here => break,
                Some(_) => {}
            }
            at = next;
        }
        at
    }

    /// The stop on screen row `row` of the line starting at `start` nearest column `goal`
    /// (at or left of it), for Up/Down.
    fn position_on_row(&self, start: usize, avail: usize, row: usize, goal: usize) -> usize {
        let end = self.line_end(start);
        let mut best = None;
        let mut placer = Placer::new(&self.text[start..end], avail);
        for (at, spot) in placer.by_ref().flat_map(Glyph::stops) {
            let position = start + at;
            if spot.row < row || self.atom_around(position).is_some() {
                continue;
            }
            if spot.row > row || (spot.col > goal && best.is_some()) {
                // Past the row: a row that is all inside a placeholder gives its end.
                return best.unwrap_or(position);
            }
            best = Some(position);
        }
        let last = placer.end();
        match best {
            Some(best) if last.row > row || last.col > goal => best,
            _ => end,
        }
    }
}

/// Word moves stop where the kind of grapheme changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Space,
    Word,
    Punctuation,
    Placeholder,
}

/// A place on screen, relative to where a line's rows start.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Spot {
    row: usize,
    col: usize,
}

impl Spot {
    /// This spot in a line whose first row is row `top`.
    fn below(self, top: usize) -> Spot {
        Spot {
            row: self.row + top,
            col: self.col,
        }
    }
}

/// A piece of a line (byte range within it) and where it starts on screen: one grapheme, or
/// a run of printable ASCII on one row (one column a byte), which saves segmenting most text.
#[derive(Clone, Copy, Debug)]
struct Glyph {
    start: usize,
    end: usize,
    /// The columns it takes, before any clamping to a row.
    width: usize,
    spot: Spot,
    /// Whether this is an ASCII run rather than one grapheme.
    run: bool,
}

impl Glyph {
    /// Where `at` (in this piece) shows: inside a run each byte has its column; a cursor inside
    /// a grapheme shows at its start.
    fn spot_of(&self, at: usize) -> Spot {
        let col = if self.run { at - self.start } else { 0 };
        Spot {
            row: self.spot.row,
            col: self.spot.col + col,
        }
    }

    /// The places the cursor can be in this piece, with where each shows.
    fn stops(self) -> impl Iterator<Item = (usize, Spot)> {
        let count = if self.run { self.width } else { 1 };
        (self.start..self.start + count).map(move |at| (at, self.spot_of(at)))
    }
}

/// Lays one line (no newline in it) out on rows `avail` columns wide. A grapheme that does not
/// fit goes to the next row whole; one wider than a row counts as a row's width so nothing
/// ever lands past the edge.
struct Placer<'a> {
    line: &'a str,
    /// The byte offset of the next piece.
    next: usize,
    avail: usize,
    at: Spot,
    /// Kept from grapheme to grapheme: it caches what it looked up.
    graphemes: GraphemeCursor,
}

impl<'a> Placer<'a> {
    fn new(line: &'a str, avail: usize) -> Placer<'a> {
        Placer {
            line,
            next: 0,
            avail: avail.max(1),
            at: Spot::default(),
            graphemes: GraphemeCursor::new(0, line.len(), true),
        }
    }

    fn place(&mut self, width: usize) -> Spot {
        // A zero-width grapheme still needs a column for the cursor in front of it.
        if self.at.col > 0 && self.at.col + width.max(1) > self.avail {
            self.at = Spot {
                row: self.at.row + 1,
                col: 0,
            };
        }
        let spot = self.at;
        self.at.col += width;
        spot
    }

    /// Where the line's end goes: like a one-column grapheme, so that a full row puts it (and
    /// the cursor there) at the start of the next row.
    fn end(mut self) -> Spot {
        self.place(1)
    }

    /// How many bytes from `start` (at most what fits in a row) are printable ASCII that no
    /// following accent or joiner extends: each is a grapheme one column wide.
    fn ascii_run(&self, start: usize) -> usize {
        let room = if self.at.col < self.avail {
            self.avail - self.at.col
        } else {
            self.avail
        };
        let bytes = &self.line.as_bytes()[start..];
        let look = &bytes[..bytes.len().min(room + 1)];
        let printable = look
            .iter()
            .take_while(|b| (0x20..0x7f).contains(*b))
            .count();
        match bytes.get(printable) {
            // The last printable byte may start a cluster with what follows.
            Some(b) if !b.is_ascii() => printable.saturating_sub(1),
            _ => printable.min(room),
        }
    }

    /// The end and width of the grapheme at `start` (a boundary).
    fn grapheme(&mut self, start: usize) -> (usize, usize) {
        let mut chars = self.line[start..].chars();
        if let Some(c) = chars.next()
            && standalone(c)
            && chars.next().is_none_or(|n| n.is_ascii() || standalone(n))
        {
            return (
                start + c.len_utf8(),
                UnicodeWidthChar::width(c).unwrap_or(1),
            );
        }
        if self.graphemes.cur_cursor() != start {
            self.graphemes.set_cursor(start);
        }
        let end =
            (self.graphemes.next_boundary(self.line, 0).ok().flatten()).unwrap_or(self.line.len());
        (end, glyph_width(&self.line[start..end]))
    }
}

/// Whether `c`, at a grapheme boundary, is a grapheme of its own when what follows is ASCII
/// or such a character too: common letters, punctuation, symbols and CJK, with no marks,
/// joiners, prepends, jamo, emoji modifiers or flags among them, so nothing joins them. A
/// shortcut past segmentation for most non-ASCII text; a test checks it against segmentation.
fn standalone(c: char) -> bool {
    matches!(
        u32::from(c),
        0x00A0..=0x02FF
            | 0x0370..=0x0482
            | 0x048A..=0x052F
            | 0x2010..=0x2027
            | 0x2030..=0x205E
            | 0x2190..=0x23FF
            | 0x2500..=0x27BF
            | 0x3000..=0x3029
            | 0x3030..=0x303F
            | 0x3041..=0x3096
            | 0x30A0..=0x30FF
            | 0x3400..=0x4DBF
            | 0x4E00..=0x9FFF
            | 0xAC00..=0xD7A3
            | 0xFF01..=0xFF60
    )
}

impl Iterator for Placer<'_> {
    type Item = Glyph;

    fn next(&mut self) -> Option<Glyph> {
        let start = self.next;
        if start >= self.line.len() {
            return None;
        }
        let run = self.ascii_run(start);
        let (end, width) = if run > 0 {
            (start + run, run)
        } else {
            self.grapheme(start)
        };
        self.next = end;
        // A grapheme wider than a row takes a row (and is drawn as a replacement).
        let spot = self.place(width.min(self.avail));
        Some(Glyph {
            start,
            end,
            width,
            spot,
            run: run > 0,
        })
    }
}

/// The cursor's spot in `line` for byte offset `at`, and the spot of the line's end.
fn locate(line: &str, avail: usize, at: usize) -> (Spot, Spot) {
    let mut placer = Placer::new(line, avail);
    let mut found = None;
    for glyph in &mut placer {
        if found.is_none() && (glyph.start..glyph.end).contains(&at) {
            found = Some(glyph.spot_of(at));
        }
    }
    let end = placer.end();
    (found.unwrap_or(end), end)
}

/// The columns a grapheme takes: a tab a few, another control character one (it shows as �).
fn glyph_width(grapheme: &str) -> usize {
    match grapheme.chars().next() {
        Some('\t') => TAB_WIDTH,
        Some(c) if c.is_control() => 1,
        _ => UnicodeWidthStr::width(grapheme),
    }
}

/// What goes on screen instead of a grapheme `width` columns wide on rows `avail` wide, if
/// not the grapheme itself: a tab's spaces; for a control character, which would move the
/// terminal's cursor, or a freak cluster wider than a row, a replacement character.
fn substitute(grapheme: &str, width: usize, avail: usize) -> Option<String> {
    match grapheme.chars().next() {
        Some('\t') => Some(" ".repeat(width.min(avail))),
        Some(c) if c.is_control() => Some("\u{FFFD}".to_owned()),
        _ if width > avail => Some("\u{FFFD}".to_owned()),
        _ => None,
    }
}

/// Draws the buffer's lines, one after the other, into rows.
struct Painter<'a> {
    /// The cursor's byte offset in the whole text.
    cursor_at: usize,
    avail: usize,
    rows: Vec<Line<'static>>,
    /// Where the cursor is drawn, once its line has been.
    cursor: Spot,
    /// The placeholders not yet passed.
    atoms: &'a [Atom],
    /// Whether the text being drawn is a placeholder's, and the offset where that changes.
    in_placeholder: bool,
    edge: usize,
}

impl Painter<'_> {
    /// Draws `line`, which starts at byte `base` of the text.
    fn line(&mut self, line: &str, base: usize) {
        let top = self.rows.len();
        let cursor = (self.cursor_at.checked_sub(base)).filter(|&at| at <= line.len());
        let mut row = Row::new(line, top == 0);
        let mut at_row = 0;
        let mut placer = Placer::new(line, self.avail);
        for glyph in &mut placer {
            if glyph.spot.row != at_row {
                self.rows
                    .push(std::mem::replace(&mut row, Row::new(line, false)).finish());
                at_row = glyph.spot.row;
            }
            if let Some(at) = cursor
                && (glyph.start..glyph.end).contains(&at)
            {
                self.cursor = glyph.spot_of(at).below(top);
            }
            // A run can hold a placeholder's edge: it is drawn in pieces of one style.
            let mut from = glyph.start;
            while from < glyph.end {
                if base + from >= self.edge {
                    self.pass(base + from);
                }
                let to = if glyph.run {
                    glyph.end.min(self.edge - base)
                } else {
                    glyph.end
                };
                // Runs are printable ASCII: nothing in them is drawn otherwise.
                let shown = (!glyph.run)
                    .then(|| substitute(&line[from..to], glyph.width, self.avail))
                    .flatten();
                match shown {
                    Some(shown) => row.push_instead(from..to, shown, self.in_placeholder),
                    None => row.push(from..to, self.in_placeholder),
                }
                from = to;
            }
        }
        let end = placer.end();
        if cursor == Some(line.len()) {
            self.cursor = end.below(top);
        }
        if end.row != at_row {
            // The line filled its last row exactly: its end sits on a row of its own.
            self.rows
                .push(std::mem::replace(&mut row, Row::new(line, false)).finish());
        }
        self.rows.push(row.finish());
    }

    /// Brings the placeholder state up to offset `at`.
    fn pass(&mut self, at: usize) {
        while let Some((first, rest)) = self.atoms.split_first()
            && first.end <= at
        {
            self.atoms = rest;
        }
        (self.in_placeholder, self.edge) = match self.atoms.first() {
            Some(atom) if atom.start <= at => (true, atom.end),
            Some(atom) => (false, atom.start),
            None => (false, usize::MAX),
        };
    }
}

/// One screen row being built from a line: the prompt or indent, then spans of the line, a
/// placeholder's in their own style. Text is copied once per span, not per grapheme.
struct Row<'a> {
    line: &'a str,
    spans: Vec<Span<'static>>,
    /// The part of `line` not yet in a span.
    pending: Range<usize>,
    placeholder: bool,
}

impl<'a> Row<'a> {
    fn new(line: &'a str, first: bool) -> Row<'a> {
        let mark = if first {
            Span::styled(PROMPT, PROMPT_STYLE)
        } else {
            Span::raw(INDENT)
        };
        let mut spans = Vec::with_capacity(3);
        spans.push(mark);
        Row {
            line,
            spans,
            pending: 0..0,
            placeholder: false,
        }
    }

    /// Adds `line[range]`.
    fn push(&mut self, range: Range<usize>, placeholder: bool) {
        if placeholder != self.placeholder || range.start != self.pending.end {
            self.flush();
            self.placeholder = placeholder;
            self.pending = range.start..range.start;
        }
        self.pending.end = range.end;
    }

    /// Adds `shown` in place of `line[range]`.
    fn push_instead(&mut self, range: Range<usize>, shown: String, placeholder: bool) {
        self.flush();
        self.placeholder = placeholder;
        self.spans.push(Span::styled(shown, self.style()));
        self.pending = range.end..range.end;
    }

    fn style(&self) -> Style {
        if self.placeholder {
            PLACEHOLDER_STYLE
        } else {
            Style::new()
        }
    }

    fn flush(&mut self) {
        if !self.pending.is_empty() {
            let text = self.line[self.pending.clone()].to_owned();
            self.spans.push(Span::styled(text, self.style()));
            self.pending.start = self.pending.end;
        }
    }

    fn finish(mut self) -> Line<'static> {
        self.flush();
        Line::from(self.spans)
    }
}

/// Spans cut to a width, with `…` where something was cut.
struct Fit {
    width: usize,
    used: usize,
    cut: bool,
    spans: Vec<Span<'static>>,
}

impl Fit {
    fn new(width: usize) -> Fit {
        Fit {
            width,
            used: 0,
            cut: false,
            spans: Vec::new(),
        }
    }

    /// The columns left, keeping one for the `…`.
    fn room(&self) -> usize {
        self.width.saturating_sub(self.used + 1)
    }

    fn push(&mut self, text: &str, style: Style) {
        if self.cut || text.is_empty() {
            return;
        }
        let mut run = String::new();
        for grapheme in text.graphemes(true) {
            let width = glyph_width(grapheme);
            if width > self.room() {
                self.cut = true;
                break;
            }
            self.used += width;
            match substitute(grapheme, width, self.width) {
                Some(shown) => run.push_str(&shown),
                None => run.push_str(grapheme),
            }
        }
        if !run.is_empty() {
            self.spans.push(Span::styled(run, style));
        }
    }

    fn finish(mut self) -> Vec<Span<'static>> {
        if self.cut {
            self.spans.push(Span::styled("…", DIM));
        }
        self.spans
    }
}

/// The line of `entry` holding `found`, started a little before the match when the match is
/// far along it (with `…` in front), and the match's range in what is returned.
fn excerpt(entry: &str, found: Range<usize>, context: usize) -> (Cow<'_, str>, Range<usize>) {
    let start = entry[..found.start].rfind('\n').map_or(0, |i| i + 1);
    let end = entry[found.end..]
        .find('\n')
        .map_or(entry.len(), |i| found.end + i);
    let mut from = found.start;
    let mut width = 0;
    for (i, grapheme) in entry[start..found.start].grapheme_indices(true).rev() {
        width += glyph_width(grapheme);
        if width > context {
            break;
        }
        from = start + i;
    }
    if from == start {
        let line = &entry[start..end];
        return (Cow::Borrowed(line), found.start - start..found.end - start);
    }
    let line = format!("…{}", &entry[from..end]);
    let shift = '…'.len_utf8();
    let found = found.start - from + shift..found.end - from + shift;
    (Cow::Owned(line), found)
}

/// Where `query` first occurs in `entry`: smart case (ignoring case unless the query has a
/// capital).
fn find_match(entry: &str, query: &str) -> Option<Range<usize>> {
    if query.is_empty() {
        return None;
    }
    if query.chars().any(char::is_uppercase) {
        return entry.find(query).map(|i| i..i + query.len());
    }
    if query.is_ascii() {
        // ASCII bytes never match inside a multi-byte character, so any hit is a char boundary.
        let needle = query.as_bytes();
        return entry
            .as_bytes()
            .windows(needle.len())
            .position(|w| w.eq_ignore_ascii_case(needle))
            .map(|i| i..i + needle.len());
    }
    entry
        .char_indices()
        .find_map(|(i, _)| prefix_ignoring_case(&entry[i..], query).map(|len| i..i + len))
}

/// The length of `text`'s prefix that equals `query` ignoring case, if it does.
fn prefix_ignoring_case(text: &str, query: &str) -> Option<usize> {
    let fold = |c: char| c.to_lowercase().next().unwrap_or(c);
    let mut chars = text.char_indices();
    for q in query.chars() {
        let (_, c) = chars.next()?;
        if fold(c) != fold(q) {
            return None;
        }
    }
    Some(chars.next().map_or(text.len(), |(i, _)| i))
}

fn next_grapheme_boundary(text: &str, at: usize) -> usize {
    // The whole text is one chunk, so the cursor never asks for more context.
    GraphemeCursor::new(at, text.len(), true)
        .next_boundary(text, 0)
        .ok()
        .flatten()
        .unwrap_or(text.len())
}

fn prev_grapheme_boundary(text: &str, at: usize) -> usize {
    GraphemeCursor::new(at, text.len(), true)
        .prev_boundary(text, 0)
        .ok()
        .flatten()
        .unwrap_or(0)
}

fn is_grapheme_boundary(text: &str, at: usize) -> bool {
    GraphemeCursor::new(at, text.len(), true)
        .is_boundary(text, 0)
        .unwrap_or(true)
}

/// `\r\n` and lone `\r` as `\n`, as terminals and clipboards mix them.
fn normalize_newlines(text: &str) -> Cow<'_, str> {
    if text.contains('\r') {
        Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"))
    } else {
        Cow::Borrowed(text)
    }
}

/// The columns text gets at `width`, after the prompt (at least one, so narrow widths work).
fn text_width(width: usize) -> usize {
    width.saturating_sub(PROMPT_WIDTH).max(1)
}

fn to_u16(n: usize) -> u16 {
    u16::try_from(n).unwrap_or(u16::MAX)
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use proptest::prelude::*;

    use super::*;

    const NONE: KeyModifiers = KeyModifiers::NONE;
    const SHIFT: KeyModifiers = KeyModifiers::SHIFT;
    const CTRL: KeyModifiers = KeyModifiers::CONTROL;
    const ALT: KeyModifiers = KeyModifiers::ALT;

    fn with(c: &mut Composer, code: KeyCode, mods: KeyModifiers) -> Action {
        c.key(KeyEvent::new(code, mods))
    }

    fn press(c: &mut Composer, code: KeyCode) -> Action {
        with(c, code, NONE)
    }

    fn ctrl(c: &mut Composer, ch: char) -> Action {
        with(c, KeyCode::Char(ch), CTRL)
    }

    fn type_str(c: &mut Composer, text: &str) {
        for ch in text.chars() {
            match ch {
                '\n' => with(c, KeyCode::Enter, SHIFT),
                ch => press(c, KeyCode::Char(ch)),
            };
        }
    }

    fn typed(text: &str) -> Composer {
        let mut c = Composer::new(Vec::new());
        type_str(&mut c, text);
        c
    }

    /// The shown text with `|` at the cursor.
    fn at(c: &Composer) -> String {
        let mut text = c.buf.text.clone();
        text.insert(c.buf.cursor, '|');
        text
    }

    fn screen(c: &Composer, width: usize) -> (Vec<String>, (u16, u16)) {
        let (rows, cursor) = c.render(width);
        let rows = rows
            .iter()
            .map(|r| r.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect();
        (rows, cursor)
    }

    fn lines(n: usize) -> String {
        (0..n).map(|i| format!("line {i}\n")).collect()
    }

    #[test]
    fn typing_inserts_at_the_cursor() {
        let mut c = typed("helo");
        press(&mut c, KeyCode::Left);
        assert_eq!(press(&mut c, KeyCode::Char('l')), Action::Changed);
        with(&mut c, KeyCode::Char('!'), SHIFT);
        assert_eq!(at(&c), "hell!|o");
        with(&mut c, KeyCode::Home, NONE);
        with(&mut c, KeyCode::Char('H'), SHIFT);
        assert_eq!(at(&c), "H|hell!o");
    }

    #[test]
    fn enter_submits_and_empties() {
        let mut c = typed("hi there");
        assert_eq!(
            press(&mut c, KeyCode::Enter),
            Action::Submit("hi there".into())
        );
        assert!(c.is_empty());
        assert_eq!(c.text(), "");
    }

    #[test]
    fn enter_on_blank_text_does_nothing() {
        let mut c = typed("");
        assert_eq!(press(&mut c, KeyCode::Enter), Action::None);
        let mut c = typed("  \n ");
        assert_eq!(press(&mut c, KeyCode::Enter), Action::None);
        assert_eq!(c.text(), "  \n ");
    }

    #[test]
    fn backslash_enter_is_a_newline() {
        let mut c = typed("one\\");
        assert_eq!(press(&mut c, KeyCode::Enter), Action::Changed);
        assert_eq!(at(&c), "one\n|");
        type_str(&mut c, "two");
        assert_eq!(
            press(&mut c, KeyCode::Enter),
            Action::Submit("one\ntwo".into())
        );
    }

    #[test]
    fn shift_enter_alt_enter_and_ctrl_j_insert_newlines() {
        let mut c = typed("a");
        assert_eq!(with(&mut c, KeyCode::Enter, SHIFT), Action::Changed);
        type_str(&mut c, "b");
        assert_eq!(with(&mut c, KeyCode::Enter, ALT), Action::Changed);
        type_str(&mut c, "c");
        assert_eq!(ctrl(&mut c, 'j'), Action::Changed);
        type_str(&mut c, "d");
        assert_eq!(c.text(), "a\nb\nc\nd");
    }

    #[test]
    fn the_cursor_moves_and_deletes_by_grapheme() {
        let mut c = Composer::new(Vec::new());
        let family = "👨\u{200d}👩\u{200d}👧";
        c.set_text(&format!("ae\u{301}{family}b"));
        press(&mut c, KeyCode::Left);
        assert_eq!(at(&c), format!("ae\u{301}{family}|b"));
        press(&mut c, KeyCode::Left);
        assert_eq!(at(&c), format!("ae\u{301}|{family}b"));
        press(&mut c, KeyCode::Left);
        assert_eq!(at(&c), format!("a|e\u{301}{family}b"));
        press(&mut c, KeyCode::Delete);
        assert_eq!(at(&c), format!("a|{family}b"));
        press(&mut c, KeyCode::Right);
        press(&mut c, KeyCode::Backspace);
        assert_eq!(at(&c), "a|b");
        ctrl(&mut c, 'f');
        ctrl(&mut c, 'b');
        ctrl(&mut c, 'b');
        assert_eq!(at(&c), "|ab");
        assert_eq!(press(&mut c, KeyCode::Left), Action::None);
    }

    #[test]
    fn home_end_and_ctrl_a_ctrl_e_stay_on_the_line() {
        let mut c = typed("one\ntwo\nthree");
        press(&mut c, KeyCode::Up);
        assert_eq!(at(&c), "one\ntwo|\nthree");
        press(&mut c, KeyCode::Home);
        assert_eq!(at(&c), "one\n|two\nthree");
        press(&mut c, KeyCode::End);
        assert_eq!(at(&c), "one\ntwo|\nthree");
        ctrl(&mut c, 'a');
        assert_eq!(at(&c), "one\n|two\nthree");
        ctrl(&mut c, 'e');
        assert_eq!(at(&c), "one\ntwo|\nthree");
        with(&mut c, KeyCode::Home, CTRL);
        assert_eq!(at(&c), "|one\ntwo\nthree");
        with(&mut c, KeyCode::End, CTRL);
        assert_eq!(at(&c), "one\ntwo\nthree|");
    }

    #[test]
    fn word_moves_stop_at_word_edges() {
        let mut c = typed("foo bar.baz  qux");
        with(&mut c, KeyCode::Char('b'), ALT);
        assert_eq!(at(&c), "foo bar.baz  |qux");
        with(&mut c, KeyCode::Left, CTRL);
        assert_eq!(at(&c), "foo bar.|baz  qux");
        with(&mut c, KeyCode::Left, ALT);
        assert_eq!(at(&c), "foo bar|.baz  qux");
        with(&mut c, KeyCode::Left, ALT);
        assert_eq!(at(&c), "foo |bar.baz  qux");
        with(&mut c, KeyCode::Char('f'), ALT);
        assert_eq!(at(&c), "foo bar|.baz  qux");
        with(&mut c, KeyCode::Right, CTRL);
        assert_eq!(at(&c), "foo bar.|baz  qux");
        with(&mut c, KeyCode::Right, ALT);
        assert_eq!(at(&c), "foo bar.baz|  qux");
    }

    #[test]
    fn kills_go_to_the_kill_buffer_and_yank_brings_them_back() {
        let mut c = typed("one two three");
        ctrl(&mut c, 'w');
        assert_eq!(at(&c), "one two |");
        // A second kill in a row adds to the first.
        ctrl(&mut c, 'w');
        assert_eq!(at(&c), "one |");
        ctrl(&mut c, 'y');
        assert_eq!(at(&c), "one two three|");
        with(&mut c, KeyCode::Backspace, ALT);
        assert_eq!(at(&c), "one two |");
        ctrl(&mut c, 'a');
        ctrl(&mut c, 'k');
        assert_eq!(at(&c), "|");
        ctrl(&mut c, 'y');
        assert_eq!(at(&c), "one two |");
        ctrl(&mut c, 'u');
        assert_eq!(at(&c), "|");
        assert_eq!(c.kill.text, "one two ");
        assert_eq!(ctrl(&mut c, 'y'), Action::Changed);
        assert_eq!(at(&c), "one two |");
    }

    #[test]
    fn ctrl_u_and_ctrl_k_at_a_line_edge_take_the_newline() {
        let mut c = typed("ab\ncd");
        ctrl(&mut c, 'a');
        ctrl(&mut c, 'u');
        assert_eq!(at(&c), "ab|cd");
        ctrl(&mut c, 'k');
        assert_eq!(at(&c), "ab|");
        with(&mut c, KeyCode::Enter, SHIFT);
        type_str(&mut c, "x");
        press(&mut c, KeyCode::Up);
        ctrl(&mut c, 'e');
        ctrl(&mut c, 'k');
        assert_eq!(at(&c), "ab|x");
    }

    #[test]
    fn keys_the_app_owns_are_ignored() {
        let mut c = typed("text");
        for (code, mods) in [
            (KeyCode::Tab, NONE),
            (KeyCode::BackTab, SHIFT),
            (KeyCode::Esc, NONE),
            (KeyCode::Char('c'), CTRL),
            (KeyCode::Char('d'), CTRL),
            (KeyCode::Char('t'), CTRL),
            (KeyCode::Char('g'), CTRL),
            (KeyCode::Char('l'), CTRL),
            (KeyCode::F(2), NONE),
        ] {
            assert_eq!(with(&mut c, code, mods), Action::Ignored, "{code:?}");
        }
        assert_eq!(at(&c), "text|");
    }

    #[test]
    fn key_releases_do_nothing() {
        let mut c = typed("");
        let mut release = KeyEvent::new(KeyCode::Char('x'), NONE);
        release.kind = KeyEventKind::Release;
        assert_eq!(c.key(release), Action::None);
        assert!(c.is_empty());
    }

    #[test]
    fn up_and_down_move_between_lines_keeping_the_column() {
        let mut c = typed("abc\nde\nfghij");
        press(&mut c, KeyCode::Up);
        assert_eq!(at(&c), "abc\nde|\nfghij");
        press(&mut c, KeyCode::Up);
        assert_eq!(at(&c), "abc|\nde\nfghij");
        press(&mut c, KeyCode::Down);
        press(&mut c, KeyCode::Down);
        assert_eq!(at(&c), "abc\nde\nfghij|");
    }

    #[test]
    fn up_and_down_move_by_screen_row_when_a_line_wraps() {
        let mut c = typed("abcdefghij");
        // Five columns of text: the full second row puts the end on a third.
        assert_eq!(screen(&c, 7).0, ["› abcde", "  fghij", "  "]);
        press(&mut c, KeyCode::Left);
        press(&mut c, KeyCode::Left);
        assert_eq!(at(&c), "abcdefgh|ij");
        press(&mut c, KeyCode::Up);
        assert_eq!(at(&c), "abc|defghij");
        assert_eq!(press(&mut c, KeyCode::Up), Action::None);
        press(&mut c, KeyCode::Down);
        assert_eq!(at(&c), "abcdefgh|ij");
        press(&mut c, KeyCode::Down);
        assert_eq!(at(&c), "abcdefghij|");
    }

    #[test]
    fn history_up_and_down_keep_the_draft() {
        let mut c = Composer::new(vec!["first".into(), "second\nline".into()]);
        type_str(&mut c, "draft");
        assert_eq!(press(&mut c, KeyCode::Up), Action::Changed);
        // On the entry's first row, so Up goes on to the older one.
        assert_eq!(at(&c), "second|\nline");
        press(&mut c, KeyCode::Up);
        assert_eq!(at(&c), "first|");
        assert_eq!(press(&mut c, KeyCode::Up), Action::None);
        press(&mut c, KeyCode::Down);
        assert_eq!(at(&c), "second\nline|");
        press(&mut c, KeyCode::Down);
        assert_eq!(at(&c), "draft|");
        assert_eq!(press(&mut c, KeyCode::Down), Action::None);
    }

    #[test]
    fn submitting_a_recalled_entry_ends_browsing() {
        let mut c = Composer::new(vec!["first".into()]);
        type_str(&mut c, "draft");
        press(&mut c, KeyCode::Up);
        assert_eq!(
            press(&mut c, KeyCode::Enter),
            Action::Submit("first".into())
        );
        assert_eq!(press(&mut c, KeyCode::Down), Action::None);
        assert!(c.is_empty());
    }

    #[test]
    fn remember_skips_consecutive_duplicates() {
        let mut c = Composer::new(vec!["a".into()]);
        for text in ["a", "b", "b", " ", "a"] {
            c.remember(text);
        }
        assert_eq!(c.history(), ["a", "b", "a"]);
    }

    fn searchable() -> Composer {
        let mut c = Composer::new(vec![
            "cargo build".into(),
            "git status".into(),
            "cargo test".into(),
            "ls".into(),
        ]);
        type_str(&mut c, "draft");
        c
    }

    #[test]
    fn ctrl_r_finds_and_accepts_a_match_for_editing() {
        let mut c = searchable();
        ctrl(&mut c, 'r');
        assert!(c.is_searching());
        type_str(&mut c, "CAR");
        assert_eq!(screen(&c, 80).0, ["(search) 'CAR': no match"]);
        for _ in 0..3 {
            press(&mut c, KeyCode::Backspace);
        }
        type_str(&mut c, "car");
        let (rows, cursor) = screen(&c, 80);
        assert_eq!(rows, ["(search) 'car': cargo test"]);
        assert_eq!(cursor, (13, 0));
        assert_eq!(press(&mut c, KeyCode::Enter), Action::Changed);
        assert!(!c.is_searching());
        assert_eq!(at(&c), "cargo test|");
        // The draft is still there past the newest entry.
        press(&mut c, KeyCode::Down);
        press(&mut c, KeyCode::Down);
        assert_eq!(at(&c), "draft|");
    }

    #[test]
    fn ctrl_r_again_finds_an_older_match() {
        let mut c = searchable();
        ctrl(&mut c, 'r');
        type_str(&mut c, "cargo");
        assert_eq!(c.search.as_ref().and_then(|s| s.found), Some(2));
        ctrl(&mut c, 'r');
        assert_eq!(c.search.as_ref().and_then(|s| s.found), Some(0));
        // No older match: the last one stays.
        ctrl(&mut c, 'r');
        assert_eq!(screen(&c, 80).0, ["(search) 'cargo': cargo build"]);
        press(&mut c, KeyCode::Right);
        assert_eq!(c.text(), "cargo build");
        // Ctrl+R on an empty query looks for the last one again.
        c.set_text("");
        ctrl(&mut c, 'r');
        ctrl(&mut c, 'r');
        assert_eq!(screen(&c, 80).0, ["(search) 'cargo': cargo test"]);
    }

    #[test]
    fn esc_and_ctrl_g_cancel_the_search_and_keep_the_draft() {
        for (code, mods) in [(KeyCode::Esc, NONE), (KeyCode::Char('g'), CTRL)] {
            let mut c = searchable();
            ctrl(&mut c, 'r');
            type_str(&mut c, "git");
            assert_eq!(with(&mut c, code, mods), Action::Changed);
            assert!(!c.is_searching());
            assert_eq!(at(&c), "draft|");
        }
    }

    #[test]
    fn other_keys_take_the_match_and_act() {
        let mut c = searchable();
        ctrl(&mut c, 'r');
        type_str(&mut c, "status");
        ctrl(&mut c, 'a');
        assert_eq!(at(&c), "|git status");
    }

    #[test]
    fn a_long_search_match_is_shown_around_the_match() {
        let mut c = Composer::new(vec![format!("{} needle tail", "x".repeat(100))]);
        ctrl(&mut c, 'r');
        type_str(&mut c, "needle");
        let (rows, (x, _)) = screen(&c, 40);
        assert!(rows[0].contains("…xxx"), "{rows:?}");
        assert!(rows[0].contains("needle"), "{rows:?}");
        assert!(wrap_width(&rows[0]) <= 40);
        assert_eq!(x, 16);
    }

    #[test]
    fn a_small_paste_is_text_with_newlines_normalised() {
        let mut c = typed("a");
        c.paste("1\r\n2\r3\n");
        assert_eq!(at(&c), "a1\n2\n3\n|");
        assert_eq!(c.text(), "a1\n2\n3\n");
    }

    #[test]
    fn a_large_paste_is_a_placeholder_the_text_expands() {
        let mut c = typed("see ");
        c.paste(&lines(6));
        type_str(&mut c, " and");
        assert_eq!(at(&c), "see [paste #1 +6 lines] and|");
        assert_eq!(c.text(), format!("see {} and", lines(6)));
        c.paste(&"y".repeat(1500));
        assert_eq!(
            c.shown(),
            "see [paste #1 +6 lines] and[paste #2 1500 chars]"
        );
        assert_eq!(
            press(&mut c, KeyCode::Enter),
            Action::Submit(format!("see {} and{}", lines(6), "y".repeat(1500)))
        );
    }

    #[test]
    fn a_placeholder_is_deleted_whole() {
        let mut c = typed("a");
        c.paste(&lines(8));
        type_str(&mut c, "b");
        press(&mut c, KeyCode::Left);
        assert_eq!(press(&mut c, KeyCode::Backspace), Action::Changed);
        assert_eq!(at(&c), "a|b");
        assert!(c.buf.atoms.is_empty());
        c.paste(&lines(8));
        press(&mut c, KeyCode::Left);
        press(&mut c, KeyCode::Delete);
        assert_eq!(at(&c), "a|b");
        assert_eq!(c.text(), "ab");
    }

    #[test]
    fn the_cursor_jumps_over_a_placeholder() {
        let mut c = typed("a ");
        c.paste(&lines(8));
        type_str(&mut c, " b");
        press(&mut c, KeyCode::Left);
        press(&mut c, KeyCode::Left);
        assert_eq!(at(&c), "a [paste #1 +8 lines]| b");
        press(&mut c, KeyCode::Left);
        assert_eq!(at(&c), "a |[paste #1 +8 lines] b");
        press(&mut c, KeyCode::Right);
        assert_eq!(at(&c), "a [paste #1 +8 lines]| b");
        with(&mut c, KeyCode::Char('b'), ALT);
        assert_eq!(at(&c), "a |[paste #1 +8 lines] b");
        with(&mut c, KeyCode::Char('f'), ALT);
        assert_eq!(at(&c), "a [paste #1 +8 lines]| b");
    }

    #[test]
    fn a_killed_placeholder_yanks_back_whole() {
        let mut c = typed("x ");
        c.paste(&lines(8));
        ctrl(&mut c, 'w');
        assert_eq!(at(&c), "x |");
        ctrl(&mut c, 'y');
        ctrl(&mut c, 'y');
        assert_eq!(c.text(), format!("x {}{}", lines(8), lines(8)));
    }

    #[test]
    fn a_placeholder_is_drawn_in_its_own_style() {
        let mut c = typed("a");
        c.paste(&lines(8));
        let (rows, _) = c.render(80);
        let label = rows[0]
            .spans
            .iter()
            .find(|s| s.content == "[paste #1 +8 lines]")
            .expect("the label is one span");
        assert_eq!(label.style, PLACEHOLDER_STYLE);
        assert_eq!(rows[0].spans[0].style, PROMPT_STYLE);
    }

    #[test]
    fn a_recalled_message_keeps_its_placeholder() {
        let mut c = typed("look: ");
        c.paste(&lines(8));
        let Action::Submit(sent) = press(&mut c, KeyCode::Enter) else {
            panic!("Enter sends");
        };
        c.remember(sent.trim_end());
        press(&mut c, KeyCode::Up);
        assert_eq!(c.shown(), "look: [paste #1 +8 lines]");
        assert_eq!(c.text(), sent);
    }

    #[test]
    fn a_huge_paste_costs_nothing_afterwards() {
        let mut c = Composer::new(Vec::new());
        let huge = lines(5_000);
        let start = Instant::now();
        c.paste(&huge);
        // Keys and rendering work on the shown text: the label, not the 5,000 lines.
        assert_eq!(c.shown(), "[paste #1 +5000 lines]");
        for _ in 0..200 {
            press(&mut c, KeyCode::Char('x'));
            press(&mut c, KeyCode::Left);
            press(&mut c, KeyCode::Right);
            press(&mut c, KeyCode::Home);
            press(&mut c, KeyCode::End);
            let (rows, _) = c.render(80);
            assert!(rows.len() <= 4);
        }
        assert!(
            start.elapsed() < Duration::from_secs(1),
            "{:?}",
            start.elapsed()
        );
        assert_eq!(c.text().len(), huge.len() + 200);
    }

    #[test]
    fn the_empty_composer_shows_a_hint() {
        let c = Composer::new(Vec::new());
        let (rows, cursor) = c.render(80);
        assert_eq!(cursor, (2, 0));
        assert_eq!(rows[0].spans[1].content, HINT);
        assert_eq!(rows[0].spans[1].style, DIM);
        let (rows, _) = screen(&c, 20);
        assert_eq!(rows, ["› Ask anything · / …"]);
    }

    #[test]
    fn wide_graphemes_wrap_whole() {
        let c = typed("ab中文😀x");
        let (rows, cursor) = screen(&c, 7);
        assert_eq!(rows, ["› ab中", "  文😀x", "  "]);
        assert_eq!(cursor, (2, 2));
        let mut c = typed("ab\u{200d}中");
        press(&mut c, KeyCode::Left);
        let (rows, cursor) = screen(&c, 5);
        assert_eq!(rows, ["› ab\u{200d}", "  中"]);
        assert_eq!(cursor, (2, 1));
    }

    #[test]
    fn a_full_row_puts_the_cursor_on_the_next_row() {
        let mut c = typed("abcd");
        assert_eq!(screen(&c, 6), (vec!["› abcd".into(), "  ".into()], (2, 1)));
        press(&mut c, KeyCode::Left);
        assert_eq!(screen(&c, 6).1, (5, 0));
        let c = typed("ab\ncd");
        assert_eq!(screen(&c, 6), (vec!["› ab".into(), "  cd".into()], (4, 1)));
    }

    #[test]
    fn tabs_and_control_characters_are_drawn_harmlessly() {
        let mut c = Composer::new(Vec::new());
        c.paste("a\tb\u{1b}c");
        assert_eq!(screen(&c, 80).0, ["› a    b\u{FFFD}c"]);
        assert_eq!(c.text(), "a\tb\u{1b}c");
    }

    #[test]
    fn a_grapheme_wider_than_a_row_is_replaced() {
        let freak = "😀\u{301}\u{200d}😀";
        let c = typed(&format!("a{freak}b"));
        let (rows, cursor) = screen(&c, 4);
        assert_eq!(rows, ["› a", "  \u{FFFD}", "  b"]);
        assert_eq!(cursor, (3, 2));
        assert_eq!(screen(&c, 80).0, [format!("› a{freak}b")]);
    }

    #[test]
    fn narrow_widths_do_not_panic() {
        let mut c = typed("ab中😀\ncd");
        c.paste(&lines(9));
        for width in 0..8 {
            let (rows, (x, y)) = c.render(width);
            assert!(usize::from(y) < rows.len());
            if width >= 4 {
                assert!(usize::from(x) < width);
            }
        }
    }

    #[test]
    fn a_long_text_renders_quickly() {
        let text: String = (0..300)
            .map(|i| {
                format!(
                    "{i:>4} the quick brown fox jumps over the lazy dog, 中文 ✓ {}\n",
                    "z".repeat(i % 40)
                )
            })
            .collect();
        let mut c = Composer::new(Vec::new());
        c.set_text(&text);
        let start = Instant::now();
        for _ in 0..10 {
            let (rows, _) = c.render(60);
            assert!(rows.len() > 300);
        }
        // Catches a layout gone quadratic even in an unoptimised build on a busy machine (a
        // release build takes about 0.2 ms a render).
        assert!(
            start.elapsed() < Duration::from_secs(1),
            "{:?}",
            start.elapsed()
        );
    }

    fn wrap_width(row: &str) -> usize {
        UnicodeWidthStr::width(row)
    }

    #[derive(Clone, Debug)]
    enum Op {
        Key(KeyCode, KeyModifiers),
        Paste(String),
        Remember(String),
    }

    fn op() -> impl Strategy<Value = Op> {
        let chars = prop::sample::select(vec![
            'a',
            'Z',
            ' ',
            '\\',
            '.',
            'e',
            '\u{301}',
            '中',
            '😀',
            '\u{200d}',
            'é',
            '\u{1F1EB}',
        ]);
        let codes = prop_oneof![
            chars.prop_map(KeyCode::Char),
            prop::char::range('a', 'z').prop_map(KeyCode::Char),
            prop::sample::select(vec![
                KeyCode::Enter,
                KeyCode::Backspace,
                KeyCode::Delete,
                KeyCode::Left,
                KeyCode::Right,
                KeyCode::Up,
                KeyCode::Down,
                KeyCode::Home,
                KeyCode::End,
                KeyCode::Tab,
                KeyCode::Esc,
            ]),
        ];
        let mods = prop::sample::select(vec![NONE, SHIFT, CTRL, ALT]);
        prop_oneof![
            8 => (codes, mods).prop_map(|(code, mods)| Op::Key(code, mods)),
            1 => "[ab \n\r\t中😀\u{301}]{0,12}".prop_map(Op::Paste),
            1 => (1usize..9).prop_map(|n| Op::Paste(lines(n))),
            1 => "[ab \n]{0,8}".prop_map(Op::Remember),
        ]
    }

    /// Characters at the edges of the shortcuts' ranges, and the ones that join clusters.
    fn tricky_char() -> impl Strategy<Value = char> {
        prop::sample::select(vec![
            'a',
            ' ',
            '~',
            '\t',
            '\u{1b}',
            '\u{7f}',
            '\u{85}',
            '\u{9f}',
            '\u{a0}',
            '\u{ad}',
            'é',
            '\u{2ff}',
            '\u{300}',
            '\u{301}',
            '\u{36f}',
            '\u{370}',
            'ж',
            '\u{482}',
            '\u{483}',
            '\u{489}',
            '\u{48a}',
            '\u{52f}',
            '\u{600}',
            '\u{93f}',
            '\u{94d}',
            'क',
            '\u{e33}',
            '\u{200b}',
            '\u{200c}',
            '\u{200d}',
            '\u{2010}',
            '…',
            '\u{2027}',
            '\u{2028}',
            '\u{2030}',
            '\u{205e}',
            '\u{2060}',
            '→',
            '⌚',
            '\u{23ff}',
            '─',
            '✓',
            '\u{27bf}',
            '\u{3000}',
            '\u{3029}',
            '\u{302a}',
            '\u{302f}',
            '\u{3030}',
            'ぁ',
            '\u{3096}',
            '\u{3099}',
            '\u{309a}',
            'ア',
            '\u{30ff}',
            '中',
            '\u{9fff}',
            '\u{1100}',
            '\u{1161}',
            '\u{11a8}',
            '가',
            '\u{d7a3}',
            '\u{ff01}',
            '\u{ff60}',
            '\u{ff9e}',
            '\u{fe0f}',
            '😀',
            '👍',
            '\u{1f3fb}',
            '\u{1F1EB}',
            '\u{1F1F7}',
            '\u{e0061}',
        ])
    }

    proptest! {
        #[test]
        fn the_layout_shortcuts_agree_with_segmentation(
            chars in proptest::collection::vec(tricky_char(), 0..40),
            avail in 1usize..12,
        ) {
            let line: String = chars.into_iter().collect();
            let mut placer = Placer::new(&line, avail);
            let mut got = Vec::new();
            for glyph in &mut placer {
                if glyph.run {
                    got.extend((glyph.start..glyph.end).map(|i| (i, 1)));
                } else {
                    got.push((glyph.start, glyph.width));
                }
            }
            let want: Vec<(usize, usize)> = line
                .grapheme_indices(true)
                .map(|(i, g)| (i, glyph_width(g)))
                .collect();
            prop_assert_eq!(got, want);
        }

        #[test]
        fn random_editing_never_panics_and_the_cursor_stays_on_screen(
            ops in proptest::collection::vec(op(), 0..80),
            width in 4usize..30,
        ) {
            let mut c = Composer::new(vec!["hello".into(), "a\nb中".into()]);
            for op in ops {
                match op {
                    Op::Key(code, mods) => {
                        with(&mut c, code, mods);
                    }
                    Op::Paste(text) => c.paste(&text),
                    Op::Remember(text) => c.remember(&text),
                }
                let buf = &c.buf;
                prop_assert!(buf.text.is_char_boundary(buf.cursor));
                prop_assert!(buf.atom_around(buf.cursor).is_none());
                for pair in buf.atoms.windows(2) {
                    prop_assert!(pair[0].end <= pair[1].start);
                }
                for atom in &buf.atoms {
                    prop_assert!(buf.text[atom.start..atom.end].starts_with("[paste #"));
                }
                let (rows, (x, y)) = c.render(width);
                prop_assert!(usize::from(y) < rows.len());
                prop_assert!(usize::from(x) < width);
                for row in &rows {
                    let row: String = row.spans.iter().map(|s| s.content.as_ref()).collect();
                    prop_assert!(wrap_width(&row) <= width, "{row:?}");
                }
            }
        }
    }
}
