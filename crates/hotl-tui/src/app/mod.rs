//! The terminal UI's state, with no terminal: agent events and keys go in; rows for the
//! scrollback, the viewport's contents and the commands for the agent come out. Everything a
//! test needs to drive the UI is here ([`App::event`], [`App::key`], [`App::paste`],
//! [`App::take_history`], [`App::take_effects`]). Events are taken in [`events`], keys in
//! [`input`], typed lines in [`submit`].

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use hotl_protocol::slash::{Foreign, Pick};
use hotl_protocol::{Command, CommandId, Dump, Status};
use ratatui::text::Line;

use crate::cells::{Entry, Tone, ToolCard};
use crate::composer::Composer;
use crate::stream;

mod events;
mod input;
mod submit;

pub use hotl_protocol::context_text;
pub use hotl_text::tokens;

/// A second Ctrl+C within this long exits.
const DOUBLE_PRESS: Duration = Duration::from_secs(2);

/// What the run loop must do for the app.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// Send this to the agent (the run loop tells the app its id: [`App::sent`]).
    Send(Command),
    /// Open a picker the host fills (sessions, messages, the tree, another agent's sessions).
    Pick(Pick),
    /// Resolve a session reference as the shell does, and switch to it.
    Resume(String),
    /// Open the resume picker with this typed: it searches every session's text for it.
    Search(String),
    /// Import another agent's session and switch to it.
    Import {
        /// Whose.
        agent: Foreign,
        /// Which: a file, an id or its prefix.
        query: String,
    },
    /// Write a dump's request body beside it (a private file) and say where.
    WriteDump(Box<Dump>),
    /// Open the transcript pager.
    Pager,
    /// Copy this text to the clipboard.
    Copy(String),
    /// Search the archive here (a read-only view has no agent to ask).
    Recall {
        /// What to look for.
        query: String,
        /// `ranked`, `exact` or `regex`.
        mode: Option<String>,
        /// At most this many hits.
        limit: usize,
    },
    /// Edit the composer's text in `$EDITOR`.
    Editor,
    /// `/export [PATH]`: the host writes the session out.
    Export(Option<String>),
    /// `/share`: the host seals and stores the session.
    Share,
    /// Leave.
    Exit,
}

/// A question the app is waiting on.
#[derive(Clone, Debug, PartialEq)]
pub enum Modal {
    /// A tool call waits for a yes.
    Approval {
        /// The question's id.
        id: u64,
        /// The tool.
        tool: String,
        /// The question.
        question: String,
        /// What the call would do, shown above the question.
        preview: Vec<hotl_protocol::PreviewLine>,
        /// After `n`: the reason being typed (Enter sends it with the no, Esc sends a plain no).
        reason: Option<String>,
    },
    /// A yes/no question of the app's own (dropping a session).
    Confirm {
        /// The question.
        question: String,
        /// What a yes does.
        then: Box<Effect>,
    },
    /// A list to pick from.
    Pick(crate::picker::Picker),
}

/// What runs in the agent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Busy {
    /// A turn.
    Turn,
    /// A move or session operation, by name.
    Command(&'static str),
}

/// What the app waits for: what runs, since when, and the command whose end ends it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Waiting {
    /// What runs.
    pub what: Busy,
    /// Since when.
    pub since: Instant,
    /// The command, once the run loop has sent it (its `Done` ends the wait).
    pub id: Option<CommandId>,
}

/// A child that is running.
#[derive(Clone, Debug, PartialEq)]
pub struct LiveChild {
    /// Its handle.
    pub handle: String,
    /// The agent it runs as (`fork`, or a spawned agent's name).
    pub agent: String,
    /// What it was asked.
    pub task: String,
    /// Its latest activity, one line.
    pub activity: String,
    /// Tool calls so far.
    pub tools: usize,
    /// What it did, for the pager.
    pub entries: Vec<Entry>,
    /// Its answer as it streams.
    pub text: String,
}

impl LiveChild {
    /// A child that has just started on `task`.
    pub fn new(handle: String, agent: String, task: String) -> LiveChild {
        LiveChild {
            handle,
            agent,
            task,
            activity: "starting".to_owned(),
            tools: 0,
            entries: Vec::new(),
            text: String::new(),
        }
    }
}

/// The UI's state.
pub struct App {
    width: u16,
    /// The session shown.
    pub session: String,
    /// Whether it is on disk.
    pub saved: bool,
    /// The model asked.
    pub model: String,
    /// The latest status.
    pub status: Option<Status>,
    /// The permission mode.
    pub mode: String,
    /// Everything shown so far, for the pager and `/copy`.
    pub transcript: Vec<Entry>,
    history: Vec<Line<'static>>,
    /// The transcript entry each row of `history` belongs to (none: an answer streaming).
    history_tags: Vec<Option<usize>>,
    stream: Option<stream::Stream>,
    /// Rows of the answer already committed (to keep a gap between its blocks).
    thinking: String,
    /// Calls running, in order.
    pub tools: Vec<ToolCard>,
    /// What the running calls printed so far (the end of it), by call id.
    pub printed: std::collections::HashMap<String, String>,
    /// Children running.
    pub children: Vec<LiveChild>,
    /// The composer.
    pub composer: Composer,
    /// Messages typed while a turn runs, sent in order after it.
    pub queued: VecDeque<String>,
    /// The question shown, if any.
    pub modal: Option<Modal>,
    /// Approval questions waiting behind the one shown (children running side by side may
    /// ask at once), each shown when the one before is answered.
    pub waiting_questions: VecDeque<Modal>,
    /// What runs, and since when.
    pub busy: Option<Waiting>,
    /// The popup's selected row.
    pub popup: usize,
    /// The popup's rows (a name and what it is): the slash commands a `/word` could be, or
    /// the files an `@word` could name.
    pub popup_rows: Vec<(String, String)>,
    /// Whether the popup lists files.
    pub popup_files: bool,
    files: crate::files::Files,
    /// Another process owns the session: nothing can be sent (the banner says who).
    pub read_only: Option<String>,
    /// What the last `/recall` looked for, for its list's title.
    last_recall: Option<String>,
    /// Which view of the session's spending was asked last: `stats` (the economy at a
    /// glance) or `cost` (the table).
    stats_view: &'static str,
    /// A hint shown above the composer for a while (`Ctrl+C again to exit`).
    pub hint: Option<(String, Instant)>,
    ctrl_c: Option<Instant>,
    esc: Option<Instant>,
    effects: Vec<Effect>,
    /// Something changed since the last frame.
    pub dirty: bool,
}

impl App {
    /// A UI `width` columns wide, with `history` for the composer's recall.
    pub fn new(width: u16, history: Vec<String>) -> App {
        App {
            width,
            session: String::new(),
            saved: false,
            model: String::new(),
            status: None,
            mode: "default".to_owned(),
            transcript: Vec::new(),
            history: Vec::new(),
            history_tags: Vec::new(),
            stream: None,
            thinking: String::new(),
            tools: Vec::new(),
            printed: std::collections::HashMap::new(),
            children: Vec::new(),
            composer: Composer::new(history),
            queued: VecDeque::new(),
            modal: None,
            waiting_questions: VecDeque::new(),
            busy: None,
            popup: 0,
            popup_rows: Vec::new(),
            popup_files: false,
            files: crate::files::Files::default(),
            read_only: None,
            last_recall: None,
            stats_view: "cost",
            hint: None,
            ctrl_c: None,
            esc: None,
            effects: Vec::new(),
            dirty: true,
        }
    }

    /// The width rows are made for.
    pub fn width(&self) -> u16 {
        self.width
    }

    /// The terminal's width changed: rows from now on are made for `width` (the scrollback
    /// keeps the rows it has).
    pub fn resize(&mut self, width: u16) {
        self.width = width.max(1);
        self.dirty = true;
    }

    /// Rows to put into the scrollback before the next frame.
    pub fn take_history(&mut self) -> Vec<Line<'static>> {
        self.history_tags.clear();
        std::mem::take(&mut self.history)
    }

    /// [`App::take_history`], each row with the transcript entry it belongs to (none for an
    /// answer still streaming): the fullscreen transcript expands entries in place.
    pub fn take_history_tagged(&mut self) -> Vec<(Line<'static>, Option<usize>)> {
        let tags = std::mem::take(&mut self.history_tags);
        std::mem::take(&mut self.history)
            .into_iter()
            .zip(tags)
            .collect()
    }

    /// The rows of the answer streaming now that are already committed, at the current
    /// width (the fullscreen transcript lays them out again after a resize).
    pub fn streamed_rows(&self) -> Vec<Line<'static>> {
        match &self.stream {
            Some(stream) if !stream.committed_text().is_empty() => {
                crate::markdown::render(stream.committed_text(), usize::from(self.width))
            }
            _ => Vec::new(),
        }
    }

    /// What the run loop must do.
    pub fn take_effects(&mut self) -> Vec<Effect> {
        std::mem::take(&mut self.effects)
    }

    /// The answer being streamed: its live tail, rendered.
    pub fn live_tail(&self) -> Vec<Line<'static>> {
        let width = usize::from(self.width);
        let mut rows = Vec::new();
        if !self.thinking.trim().is_empty() {
            let last = crate::wrap::visible(self.thinking.trim_end().lines().last().unwrap_or(""))
                .into_owned();
            rows.push(crate::wrap::truncate(
                &Line::from(ratatui::text::Span::styled(
                    format!("∴ {last}"),
                    crate::cells::style::dim().add_modifier(ratatui::style::Modifier::ITALIC),
                )),
                width,
            ));
        }
        if let Some(stream) = &self.stream {
            let (tail, fence) = stream.tail();
            if !tail.is_empty() {
                match fence {
                    Some(open) => {
                        let lang = open.trim_start_matches(['`', '~']).trim();
                        rows.extend(crate::highlight::code_rows(lang, tail, width));
                    }
                    None => rows.extend(crate::markdown::render(tail, width)),
                }
            }
        }
        rows
    }

    /// Shows what a recall for `query` found (`text`, as the recall tool renders hits): a
    /// ranked list of hits, or what the tool said when there are none.
    pub fn recalled(&mut self, query: &str, text: &str) {
        let hits = crate::cells::RecallHit::parse(text);
        if hits.is_empty() {
            self.say(text.trim_end().to_owned(), Tone::Output);
            return;
        }
        let spans = self.spans_of(&hits);
        self.commit(Entry::Recall {
            query: query.to_owned(),
            hits,
            spans,
        });
    }

    /// The archived entries of the hits' spans that this transcript holds (folds and
    /// compactions it shows), once per handle.
    fn spans_of(&self, hits: &[crate::cells::RecallHit]) -> Vec<(String, Vec<Entry>)> {
        let mut spans: Vec<(String, Vec<Entry>)> = Vec::new();
        for hit in hits {
            if spans.iter().any(|(h, _)| *h == hit.handle) {
                continue;
            }
            let archived = self.transcript.iter().find_map(|entry| match entry {
                Entry::Fold {
                    handle, archived, ..
                } if *handle == hit.handle => Some(archived.clone()),
                Entry::Compaction {
                    until, archived, ..
                } if hit.handle == format!("compaction@t{until}") => Some(archived.clone()),
                _ => None,
            });
            if let Some(archived) = archived.filter(|a| !a.is_empty()) {
                spans.push((hit.handle.clone(), archived));
            }
        }
        spans
    }

    /// The UI is closing: what streamed so far goes into the scrollback, and calls still
    /// running are shown as left behind.
    pub fn finish(&mut self) {
        self.end_stream();
        self.close_tools("left running when hotl closed; the turn is recorded cancelled");
        for child in std::mem::take(&mut self.children) {
            self.say(
                format!(
                    "fork {} was still running; it is recorded cancelled",
                    child.handle
                ),
                Tone::Info,
            );
        }
    }

    /// Puts an entry into the transcript and its rows into the scrollback.
    pub fn commit(&mut self, entry: Entry) {
        let rows = entry.rows(usize::from(self.width), false);
        let index = self.transcript.len();
        self.history_tags
            .extend(std::iter::repeat_n(Some(index), rows.len()));
        self.history.extend(rows);
        self.transcript.push(entry);
        self.dirty = true;
    }

    /// Says something in the transcript.
    pub fn say(&mut self, text: impl Into<String>, tone: Tone) {
        self.commit(Entry::Notice {
            text: text.into(),
            tone,
        });
    }

    /// Shows the end of a session's transcript (on resume or after a switch): the entries go
    /// into the scrollback, after those from `start` on are dropped from the pager's copy
    /// (the pager reads a saved session from its log).
    pub fn replay(&mut self, entries: Vec<Entry>, start: usize) {
        self.transcript.clear();
        for entry in entries.into_iter().skip(start) {
            self.commit(entry);
        }
    }

    /// The command `id` was sent for the last [`Effect::Send`] taken: a wait it started ends
    /// with that command's end.
    pub fn sent(&mut self, id: CommandId, command: &Command) {
        if command.is_immediate() {
            return;
        }
        if let Some(waiting) = self.busy.as_mut()
            && waiting.id.is_none()
        {
            waiting.id = Some(id);
        }
    }

    /// Whether something runs.
    pub fn is_busy(&self) -> bool {
        self.busy.is_some()
    }

    /// Starts waiting for `what` (its command is sent next).
    fn wait_for(&mut self, what: Busy) {
        self.busy = Some(Waiting {
            what,
            since: Instant::now(),
            id: None,
        });
    }
}
