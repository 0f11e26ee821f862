//! A list to pick from, filtered as you type: sessions to resume (this directory first, Tab
//! for all projects, then the remote store's when one is configured; below the names and
//! titles that match, the sessions whose text holds what was typed, searched beside the UI's
//! loop), another agent's sessions to import and resume, user messages to fork or revert at.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use crate::app::Effect;
use crate::cells::style;
use crate::wrap::truncate;
use hotl_protocol::slash::Foreign;
use hotl_protocol::{Command, ForkAt, SwitchTo};

/// What choosing a row does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Resume the session (the row's value is its id).
    Resume,
    /// Import the agent's session and resume it (the value is its file).
    Foreign(Foreign),
    /// Fork after the turn of the user message (the value is its seq), in a new worktree at
    /// the code of that point when `worktree`.
    Fork {
        /// `/fork pick --worktree`.
        worktree: bool,
    },
    /// Revert to just before the user message (the value is its seq), taking back what the
    /// scope says.
    Revert(hotl_protocol::RevertScope),
    /// Switch to a session of the tree (the value is its id).
    Tree,
    /// Answer with a model (the value is its id).
    Model,
}

/// One row.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// What is shown.
    pub label: String,
    /// Shown dimmed after the label.
    pub detail: String,
    /// What choosing it passes on.
    pub value: String,
    /// Whether it belongs to the narrow list (this directory); the wide list has all.
    pub near: bool,
}

/// Which of the resume picker's lists shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tab {
    /// The rows of this directory.
    Here,
    /// Every row.
    All,
    /// The remote store's sessions.
    Remote,
}

/// The remote store's sessions, for the resume picker's last tab: read beside the UI's loop.
#[derive(Clone, Debug, PartialEq)]
enum Remote {
    Reading,
    Read(Vec<Row>),
    Failed(String),
}

/// The shortest filter the resume picker searches session text for.
const CONTENT_MIN_CHARS: usize = 2;

/// What the resume picker found in the text of every session, for one filter.
#[derive(Clone, Debug, Default, PartialEq)]
struct Content {
    /// The filter its rows answer.
    query: Option<String>,
    /// One row per session whose text holds it, best first, this directory's first.
    rows: Vec<Row>,
    /// Why the search failed, if it did.
    failed: Option<String>,
    /// The filter being searched for now.
    searching: Option<String>,
}

/// The picker's state.
#[derive(Clone, Debug, PartialEq)]
pub struct Picker {
    /// Its title.
    pub title: String,
    kind: Kind,
    rows: Vec<Row>,
    filter: String,
    selected: usize,
    tab: Tab,
    /// The remote tab, when a remote store is configured.
    remote: Option<Remote>,
    /// The resume picker's content search.
    content: Content,
}

/// What a key did.
#[derive(Debug, PartialEq)]
pub enum Outcome {
    /// Still open.
    Open,
    /// Closed without a choice.
    Cancelled,
    /// Chosen.
    Chosen(Effect),
}

impl Picker {
    /// A picker over `rows`; the narrow list shows first when any row is near.
    pub fn new(title: impl Into<String>, kind: Kind, rows: Vec<Row>) -> Picker {
        let tab = if rows.iter().any(|r| r.near) {
            Tab::Here
        } else {
            Tab::All
        };
        Picker {
            title: title.into(),
            kind,
            rows,
            filter: String::new(),
            selected: 0,
            tab,
            remote: None,
            content: Content::default(),
        }
    }

    /// Starts with `filter` typed (`/search QUERY`).
    pub fn with_filter(mut self, filter: &str) -> Picker {
        self.filter = filter.to_owned();
        self
    }

    /// The filter to search session text for now, when the resume picker has one it has not
    /// searched and is not searching (the caller starts the search: [`Picker::searching`]).
    pub fn content_query(&self) -> Option<String> {
        let query = self.filter.trim();
        let wanted = self.kind == Kind::Resume
            && self.tab != Tab::Remote
            && query.chars().count() >= CONTENT_MIN_CHARS;
        let new = self.content.query.as_deref() != Some(query)
            && self.content.searching.as_deref() != Some(query);
        (wanted && new).then(|| query.to_owned())
    }

    /// A search of session text for `query` started.
    pub fn searching(&mut self, query: &str) {
        self.content.searching = Some(query.to_owned());
    }

    /// Whether a search of session text is running.
    pub fn is_searching(&self) -> bool {
        self.content.searching.is_some()
    }

    /// The sessions whose text holds `query` (one row each), or why they could not be found.
    pub fn content_found(&mut self, query: &str, found: Result<Vec<Row>, String>) {
        self.content.searching = None;
        self.content.query = Some(query.to_owned());
        match found {
            Ok(rows) => {
                self.content.rows = rows;
                self.content.failed = None;
            }
            Err(why) => {
                self.content.rows.clear();
                self.content.failed = Some(why);
            }
        }
    }

    /// The resume picker gets a tab of the remote store's sessions, being read.
    pub fn reading_remote(&mut self) {
        if self.kind == Kind::Resume {
            self.remote = Some(Remote::Reading);
        }
    }

    /// The remote store's sessions, read (those this home holds are in the other tabs), or
    /// why they could not be.
    pub fn remote_read(&mut self, read: Result<Vec<Row>, String>) {
        if self.remote.is_none() {
            return;
        }
        self.remote = Some(match read {
            Ok(rows) => Remote::Read(
                rows.into_iter()
                    .filter(|r| !self.rows.iter().any(|l| l.value == r.value))
                    .collect(),
            ),
            Err(e) => Remote::Failed(e),
        });
    }

    /// The rows the filter keeps.
    pub fn visible(&self) -> Vec<&Row> {
        let words: Vec<String> = self
            .filter
            .to_lowercase()
            .split_whitespace()
            .map(str::to_owned)
            .collect();
        let rows: &[Row] = match (self.tab, &self.remote) {
            (Tab::Remote, Some(Remote::Read(rows))) => rows,
            (Tab::Remote, _) => &[],
            _ => &self.rows,
        };
        let mut shown: Vec<&Row> = rows
            .iter()
            .filter(|r| self.tab != Tab::Here || r.near)
            .filter(|r| {
                let hay = format!("{} {} {}", r.label, r.detail, r.value).to_lowercase();
                words.iter().all(|w| hay.contains(w.as_str()))
            })
            .collect();
        // Then what was said, over every project (this directory's first, as the host orders
        // them), for sessions the names and titles did not already show.
        if self.tab != Tab::Remote && self.content.query.as_deref() == Some(self.filter.trim()) {
            for row in &self.content.rows {
                if !shown.iter().any(|r| r.value == row.value) {
                    shown.push(row);
                }
            }
        }
        shown
    }

    /// Takes a key.
    pub fn key(&mut self, key: KeyEvent) -> Outcome {
        let count = self.visible().len();
        match key.code {
            KeyCode::Esc => return Outcome::Cancelled,
            KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                return Outcome::Cancelled;
            }
            KeyCode::Up => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down => self.selected = (self.selected + 1).min(count.saturating_sub(1)),
            KeyCode::PageUp => self.selected = self.selected.saturating_sub(10),
            KeyCode::PageDown => self.selected = (self.selected + 10).min(count.saturating_sub(1)),
            KeyCode::Tab if self.kind == Kind::Resume => {
                self.tab = match self.tab {
                    Tab::Here => Tab::All,
                    Tab::All if self.remote.is_some() => Tab::Remote,
                    Tab::All | Tab::Remote => Tab::Here,
                };
                self.selected = 0;
            }
            KeyCode::Backspace => {
                self.filter.pop();
                self.selected = 0;
            }
            KeyCode::Char(c) => {
                self.filter.push(c);
                self.selected = 0;
            }
            KeyCode::Enter => {
                let Some(row) = self.visible().get(self.selected).copied() else {
                    return Outcome::Open;
                };
                let value = row.value.clone();
                let seq = || value.trim_start_matches('t').parse::<u64>().ok();
                return Outcome::Chosen(match self.kind {
                    Kind::Resume | Kind::Tree => Effect::Resume(value.clone()),
                    Kind::Foreign(agent) => Effect::Import {
                        agent,
                        query: value.clone(),
                    },
                    Kind::Fork { worktree } => match seq() {
                        Some(seq) => Effect::Send(Command::Switch(SwitchTo::Fork {
                            at: ForkAt::Message(seq),
                            worktree,
                        })),
                        None => return Outcome::Cancelled,
                    },
                    Kind::Revert(scope) => match seq() {
                        Some(before) => Effect::Send(Command::Revert { before, scope }),
                        None => return Outcome::Cancelled,
                    },
                    Kind::Model => Effect::Send(Command::SetModel { model: value }),
                });
            }
            _ => {}
        }
        Outcome::Open
    }

    /// Its rows at `width`, at most `height` of them.
    pub fn render(&self, width: usize, height: usize) -> Vec<Line<'static>> {
        let visible = self.visible();
        let mut out = vec![truncate(
            &Line::from(vec![
                Span::styled(
                    match self.tab {
                        Tab::Remote => format!("{} from the remote store", self.title),
                        _ => self.title.clone(),
                    },
                    Style::new().add_modifier(Modifier::BOLD),
                ),
                Span::styled(
                    format!(
                        "  {}{}  ↑↓ Enter · Esc{}",
                        if self.filter.is_empty() {
                            "type to filter"
                        } else {
                            "filter: "
                        },
                        self.filter,
                        match (self.kind, self.tab, self.remote.is_some()) {
                            (Kind::Resume, Tab::Here, _) => " · Tab: all projects",
                            (Kind::Resume, Tab::All, true) => " · Tab: the remote store",
                            (Kind::Resume, _, _) => " · Tab: this directory",
                            _ => "",
                        }
                    ),
                    style::dim(),
                ),
            ]),
            width,
        )];
        let room = height.saturating_sub(1).max(1);
        let start = self.selected.saturating_sub(room.saturating_sub(1));
        for (i, row) in visible.iter().enumerate().skip(start).take(room) {
            let selected = i == self.selected;
            let mark = if selected { "› " } else { "  " };
            let label_style = if selected {
                Style::new().add_modifier(Modifier::REVERSED)
            } else {
                Style::new()
            };
            out.push(truncate(
                &Line::from(vec![
                    Span::raw(mark),
                    // Titles and messages come from logs: drawn, never sent.
                    Span::styled(crate::wrap::visible(&row.label).into_owned(), label_style),
                    Span::styled(
                        format!("  {}", crate::wrap::visible(&row.detail)),
                        style::dim(),
                    ),
                ]),
                width,
            ));
        }
        if self.tab != Tab::Remote && out.len() < height {
            let note = if self.content.searching.is_some() {
                Some("  searching what was said in every session…".to_owned())
            } else {
                (self.content.failed.as_ref())
                    .map(|why| format!("  the search of what was said failed: {why}"))
            };
            if let Some(note) = note.filter(|_| !visible.is_empty()) {
                out.push(Line::from(Span::styled(note, style::dim())));
            }
        }
        if visible.is_empty() {
            let empty = match (self.tab, &self.remote) {
                (Tab::Remote, Some(Remote::Reading)) => "  reading the remote store…".to_owned(),
                (Tab::Remote, Some(Remote::Failed(e))) => format!("  the remote store: {e}"),
                (Tab::Remote, Some(Remote::Read(rows))) if rows.is_empty() => {
                    "  the remote store holds no other session".to_owned()
                }
                _ if self.content.searching.is_some() => {
                    "  searching what was said in every session…".to_owned()
                }
                _ => match &self.content.failed {
                    Some(why) => {
                        format!("  nothing matches; the search of what was said failed: {why}")
                    }
                    None => "  nothing matches".to_owned(),
                },
            };
            out.push(Line::from(Span::styled(empty, style::dim())));
        }
        out
    }
}

/// A picker drawn in the alternate screen, where the list gets the whole screen; leaving it
/// gives the inline screen back as it was.
pub struct PickScreen {
    terminal: ratatui::Terminal<ratatui::backend::CrosstermBackend<std::io::Stdout>>,
}

impl PickScreen {
    /// Enters the alternate screen.
    pub fn open() -> std::io::Result<PickScreen> {
        crossterm::execute!(std::io::stdout(), crossterm::terminal::EnterAlternateScreen)?;
        let terminal =
            ratatui::Terminal::new(ratatui::backend::CrosstermBackend::new(std::io::stdout()))?;
        Ok(PickScreen { terminal })
    }

    /// Draws `picker` over the whole screen, as one synchronized update.
    pub fn draw(&mut self, picker: &Picker) -> std::io::Result<()> {
        use std::io::Write as _;
        crossterm::execute!(
            std::io::stdout(),
            crossterm::terminal::BeginSynchronizedUpdate
        )?;
        self.terminal.draw(|frame| {
            let area = frame.area();
            let rows = picker.render(usize::from(area.width), usize::from(area.height));
            let buffer = frame.buffer_mut();
            for (y, row) in rows.iter().enumerate() {
                buffer.set_line(0, y as u16, row, area.width);
            }
            if crate::ui::is_monochrome() {
                crate::ui::monochrome(buffer);
            }
        })?;
        crossterm::execute!(
            std::io::stdout(),
            crossterm::terminal::EndSynchronizedUpdate
        )?;
        std::io::stdout().flush()
    }

    /// Leaves the alternate screen.
    pub fn close(self) -> std::io::Result<()> {
        crossterm::execute!(std::io::stdout(), crossterm::terminal::LeaveAlternateScreen)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn rows() -> Vec<Row> {
        vec![
            Row {
                label: "fix the parser".into(),
                detail: "2h ago".into(),
                value: "01AAA".into(),
                near: true,
            },
            Row {
                label: "write docs".into(),
                detail: "1d ago".into(),
                value: "01BBB".into(),
                near: false,
            },
        ]
    }

    #[test]
    fn filters_as_you_type_and_tab_widens_to_all_projects() {
        let mut picker = Picker::new("resume", Kind::Resume, rows());
        assert_eq!(picker.visible().len(), 1, "this directory first");
        picker.key(key(KeyCode::Tab));
        assert_eq!(picker.visible().len(), 2);
        for c in "docs".chars() {
            picker.key(key(KeyCode::Char(c)));
        }
        assert_eq!(picker.visible().len(), 1);
        assert_eq!(
            picker.key(key(KeyCode::Enter)),
            Outcome::Chosen(Effect::Resume("01BBB".into()))
        );
    }

    /// With a remote store, Tab goes on to its sessions (read beside the loop); one this
    /// home holds is not listed twice, and choosing one resumes it as any reference would.
    #[test]
    fn the_remote_store_is_the_last_tab() {
        let mut picker = Picker::new("resume", Kind::Resume, rows());
        picker.reading_remote();
        picker.key(key(KeyCode::Tab));
        picker.key(key(KeyCode::Tab));
        assert!(picker.visible().is_empty());
        let shown = |p: &Picker| {
            p.render(80, 10)
                .iter()
                .map(|l| l.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert!(
            shown(&picker).contains("reading the remote store"),
            "{}",
            shown(&picker)
        );
        let far = Row {
            label: "on the build box".into(),
            detail: "box".into(),
            value: "01CCC".into(),
            near: false,
        };
        picker.remote_read(Ok(vec![rows()[0].clone(), far]));
        assert_eq!(
            picker.visible().len(),
            1,
            "what this home holds is not listed twice"
        );
        assert!(shown(&picker).contains("from the remote store"));
        assert_eq!(
            picker.key(key(KeyCode::Enter)),
            Outcome::Chosen(Effect::Resume("01CCC".into()))
        );
        picker.key(key(KeyCode::Tab));
        assert_eq!(picker.visible().len(), 1, "back to this directory");
        picker.remote_read(Err("cannot be reached".into()));
        picker.key(key(KeyCode::Tab));
        picker.key(key(KeyCode::Tab));
        assert!(shown(&picker).contains("the remote store: cannot be reached"));
    }

    /// Below the names and titles that match, the sessions whose text holds the filter, as
    /// the host found them for that filter (not an older one); a session already shown is not
    /// shown twice.
    #[test]
    fn the_resume_picker_searches_what_was_said() {
        let mut picker = Picker::new("resume", Kind::Resume, rows());
        assert_eq!(picker.content_query(), None, "nothing typed");
        picker.key(key(KeyCode::Char('d')));
        assert_eq!(picker.content_query(), None, "one character is too few");
        for c in "ocs".chars() {
            picker.key(key(KeyCode::Char(c)));
        }
        assert_eq!(picker.content_query().as_deref(), Some("docs"));
        picker.searching("docs");
        assert_eq!(picker.content_query(), None, "already being searched");
        let said = Row {
            label: "the login bug".into(),
            detail: "“the docs say 30s” · t12".into(),
            value: "01DDD".into(),
            near: false,
        };
        let twice = Row {
            value: "01BBB".into(),
            ..said.clone()
        };
        picker.content_found("docs", Ok(vec![said.clone(), twice]));
        picker.key(key(KeyCode::Tab));
        let shown: Vec<&str> = picker.visible().iter().map(|r| r.value.as_str()).collect();
        assert_eq!(
            shown,
            ["01BBB", "01DDD"],
            "titles first, then what was said, once"
        );
        // Typing on: the old rows answer another filter and are not shown.
        picker.key(key(KeyCode::Char('x')));
        assert_eq!(picker.visible().len(), 0);
        assert_eq!(picker.content_query().as_deref(), Some("docsx"));
        picker.searching("docsx");
        let text = picker
            .render(80, 10)
            .iter()
            .map(|l| l.to_string())
            .collect::<Vec<_>>()
            .join("\n");
        assert!(text.contains("searching what was said"), "{text}");
        picker.content_found("docsx", Err("index unreadable".into()));
        let text = picker
            .render(80, 10)
            .iter()
            .map(|l| l.to_string())
            .collect::<Vec<_>>()
            .join("\n");
        assert!(text.contains("failed: index unreadable"), "{text}");
        // Other pickers never search.
        let mut other = Picker::new("fork", Kind::Fork { worktree: false }, rows());
        for c in "docs".chars() {
            other.key(key(KeyCode::Char(c)));
        }
        assert_eq!(other.content_query(), None);
    }

    #[test]
    fn a_foreign_row_imports_its_file() {
        let row = Row {
            label: "fix the parser".into(),
            detail: "Claude Code · 8f1c2a3b · 2h ago · 12 records".into(),
            value: "/home/me/.claude/projects/-app/8f1c.jsonl".into(),
            near: true,
        };
        let mut picker = Picker::new("resume", Kind::Foreign(Foreign::Claude), vec![row]);
        for c in "claude".chars() {
            picker.key(key(KeyCode::Char(c)));
        }
        assert_eq!(picker.visible().len(), 1, "the agent's name filters too");
        assert_eq!(
            picker.key(key(KeyCode::Enter)),
            Outcome::Chosen(Effect::Import {
                agent: Foreign::Claude,
                query: "/home/me/.claude/projects/-app/8f1c.jsonl".into(),
            })
        );
    }
}
