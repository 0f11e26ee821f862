//! The terminal UI's state, with no terminal: agent events and keys go in; rows for the
//! scrollback, the viewport's contents and the commands for the agent come out. Everything a
//! test needs to drive the UI is here ([`App::event`], [`App::key`], [`App::paste`],
//! [`App::take_history`], [`App::take_effects`]).

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use hotl_agent::{Answer, Command, Envelope, Event, MoveResult, Status};
use hotl_wire::Event as Stream;
use ratatui::text::Line;

use crate::cells::{Entry, Tone, ToolCard};
use crate::composer::{self, Composer};
use crate::slash::{self, Slash};
use crate::stream::{self, Piece};

/// A second Ctrl+C within this long exits.
const DOUBLE_PRESS: Duration = Duration::from_secs(2);

/// What the run loop must do for the app.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// Send this to the agent.
    Send(Command),
    /// A session operation the host resolves first (a reference, a picker, a question).
    Session(slash::SessionOp),
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

/// A child that is running.
#[derive(Clone, Debug, PartialEq)]
pub struct LiveChild {
    /// Its handle.
    pub handle: String,
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
    pub fn new(handle: String, task: String) -> LiveChild {
        LiveChild {
            handle,
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
    pub busy: Option<(Busy, Instant)>,
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

    /// Takes an agent event.
    pub fn event(&mut self, envelope: Envelope) {
        self.dirty = true;
        if let Some(handle) = envelope.child {
            self.child_event(&handle, envelope.event);
            return;
        }
        match envelope.event {
            Event::Init {
                session_id,
                saved,
                model,
                cwd,
                ..
            } => {
                self.files = crate::files::Files::new(cwd.into());
                self.session = session_id;
                self.saved = saved;
                self.model = model;
            }
            Event::Created { session_id } => {
                self.session = session_id;
                self.saved = true;
            }
            Event::Model { event } => self.model_event(event),
            Event::ToolUse { id, name, input } => {
                self.end_stream();
                self.tools.push(ToolCard {
                    id,
                    name,
                    input: input.get().to_owned(),
                    output: None,
                    is_error: false,
                });
            }
            Event::ToolResult {
                id,
                name,
                is_error,
                content,
            } => {
                let mut card = match self.tools.iter().position(|t| t.id == id) {
                    Some(i) => self.tools.remove(i),
                    None => ToolCard {
                        id,
                        name,
                        input: String::new(),
                        output: None,
                        is_error,
                    },
                };
                card.output = Some(content);
                card.is_error = is_error;
                self.commit(Entry::Tool(card));
            }
            Event::Notice { message } => {
                self.end_stream();
                self.say(message, Tone::Info);
            }
            Event::ToolsAdded { tools } => {
                self.end_stream();
                self.say(hotl_agent::tools_added_line(&tools), Tone::Info);
            }
            Event::Approval { id, tool, question } => {
                self.ask(Modal::Approval { id, tool, question });
            }
            Event::Status(status) => {
                if let Some(mode) = &status.mode {
                    self.mode.clone_from(mode);
                }
                if let Some(model) = &status.model {
                    self.model.clone_from(model);
                }
                self.status = Some(status);
            }
            Event::ChildStarted { handle, task } => {
                self.end_stream();
                self.children.push(LiveChild::new(handle, task));
            }
            Event::ChildEnded { handle, ok } => self.child_ended(&handle, ok),
            Event::TurnEnded(outcome) => {
                self.end_stream();
                self.close_tools("cancelled");
                let mut parts = Vec::new();
                if outcome.cancelled {
                    parts.push("cancelled; the session is kept".to_owned());
                }
                let u = &outcome.usage;
                let input = u.input + u.cache_read + u.cache_write_5m + u.cache_write_1h;
                if input + u.output > 0 {
                    parts.push(format!("{} in · {} out", tokens(input), tokens(u.output)));
                    if let Some(share) = (u.cache_read * 100).checked_div(input) {
                        parts.push(format!("{share}% cached"));
                    }
                }
                if let Some(cost) = outcome.cost {
                    parts.push(format!("${cost:.4}"));
                }
                if !parts.is_empty() {
                    self.commit(Entry::TurnEnd {
                        text: format!("  ↳ {}", parts.join(" · ")),
                    });
                }
                self.idle();
            }
            Event::Recovered { outcome } => {
                self.end_stream();
                if outcome.is_some() {
                    self.say("finished the turn a stopped process left open", Tone::Info);
                }
                self.idle();
            }
            Event::MoveEnded(result) => {
                self.end_stream();
                match result {
                    MoveResult::Folded {
                        since,
                        until,
                        handle,
                        note,
                        files,
                    } => self.commit(Entry::Fold {
                        handle,
                        since,
                        until,
                        items: 0,
                        note,
                        files,
                        archived: Vec::new(),
                    }),
                    MoveResult::Compacted { until, handle: _ } => self.commit(Entry::Compaction {
                        until,
                        summary: "the span stays archived: /recall finds it, /ask takes it"
                            .to_owned(),
                        archived: Vec::new(),
                    }),
                    MoveResult::Recalled { text } => {
                        let query = self.last_recall.take().unwrap_or_default();
                        self.recalled(&query, &text);
                    }
                    MoveResult::Answered { text } => {
                        self.say(text.trim_end().to_owned(), Tone::Output)
                    }
                }
                self.idle();
            }
            Event::Renamed { name } => {
                self.say(format!("named {name}"), Tone::Info);
                self.idle();
            }
            Event::ModeChanged { mode } => {
                self.say(format!("mode: {mode}"), Tone::Info);
                self.mode = mode;
                self.idle();
            }
            Event::BeforeSwitch { .. } => {}
            Event::Switch {
                reason,
                to,
                saved,
                title,
                turns,
                mode,
                ..
            } => {
                self.session = to.clone();
                self.saved = saved;
                self.mode = mode;
                self.status = None;
                let what = match reason {
                    hotl_agent::SwitchReason::New => "new session".to_owned(),
                    hotl_agent::SwitchReason::Fork => {
                        format!("forked into {}", crate::cells::short_id(&to))
                    }
                    hotl_agent::SwitchReason::Resume => format!(
                        "resumed {}{} · {turns} turn{}",
                        crate::cells::short_id(&to),
                        title.map(|t| format!(" · {t}")).unwrap_or_default(),
                        if turns == 1 { "" } else { "s" }
                    ),
                };
                self.say(what, Tone::Info);
                self.idle();
            }
            Event::Reverted { before, to, text } => {
                self.say(
                    format!(
                        "reverted to t{to}: t{before} and later turns are hidden (the log keeps them); its text is back in the composer"
                    ),
                    Tone::Info,
                );
                self.composer.set_text(&text);
                self.refresh_popup();
                self.idle();
            }
            Event::Models { models, current } => {
                self.idle();
                if models.is_empty() {
                    self.say(
                        "the provider lists no models; /model NAME switches by name",
                        Tone::Error,
                    );
                } else {
                    let rows = models
                        .into_iter()
                        .map(|m| crate::picker::Row {
                            detail: if m == current {
                                "current".to_owned()
                            } else {
                                String::new()
                            },
                            label: m.clone(),
                            value: m,
                            near: true,
                        })
                        .collect();
                    self.modal = Some(Modal::Pick(crate::picker::Picker::new(
                        "answer with",
                        crate::picker::Kind::Model,
                        rows,
                    )));
                }
            }
            Event::EffortChanged { effort } => {
                self.say(
                    format!("effort: {effort} from the next request on (recorded: resumes and forks keep it)"),
                    Tone::Info,
                );
                self.idle();
            }
            Event::ModelChanged { from, to } => {
                self.model.clone_from(&to);
                self.say(
                    format!("model: {to} from the next request on (was {from}); its prompt cache starts cold"),
                    Tone::Info,
                );
                self.idle();
            }
            Event::Dump(dump) => {
                let text = dump.text();
                let lines = text.lines().count();
                self.effects.push(Effect::Copy(text));
                let mut said = format!(
                    "copied the session as the model sees it ({lines} lines: prompt, tools, messages)"
                );
                match dump.write_body() {
                    Ok(Some(path)) => said.push_str(&format!(
                        "\nrequest body: {} (it can hold secrets)",
                        path.display()
                    )),
                    Ok(None) => {}
                    Err(e) => {
                        said.push_str(&format!("\nthe request body could not be written: {e}"))
                    }
                }
                self.say(said, Tone::Info);
                self.idle();
            }
            Event::Stats(stats) => {
                let mut text = stats.table();
                text.push_str(&format!("\nthis process: {}", self.cost_text()));
                self.say(text, Tone::Output);
                self.idle();
            }
            Event::Context(parts) => {
                let text = context_text(&parts, self.status.as_ref());
                self.say(text, Tone::Output);
                self.idle();
            }
            Event::Cleared { seq } => {
                self.say(
                    format!("cleared: the model sees nothing before t{seq} (the log keeps it)"),
                    Tone::Info,
                );
                self.idle();
            }
            Event::Fresh {
                cache_key,
                routed,
                forgotten,
            } => {
                let what = if routed {
                    format!(
                        "fresh: new prompt-cache key {cache_key}; {forgotten} kept encodings dropped"
                    )
                } else {
                    format!(
                        "fresh: only local provider state was dropped ({forgotten} kept encodings); this provider caches by prefix and has no key"
                    )
                };
                self.say(what, Tone::Info);
                self.idle();
            }
            Event::Dropped {
                session_id,
                kept_for,
            } => {
                if kept_for.is_empty() {
                    self.say(format!("dropped {session_id}"), Tone::Info);
                } else {
                    self.say(
                        format!(
                            "{session_id} is hidden and kept for the sessions that descend from it: {}",
                            kept_for.join(", ")
                        ),
                        Tone::Info,
                    );
                }
            }
            Event::Cancelled { command } => {
                self.say(
                    format!("{command} cancelled; nothing was recorded"),
                    Tone::Info,
                );
                self.idle();
            }
            Event::Failed { command, error, .. } => {
                self.end_stream();
                self.close_tools("not run");
                let what = match command.as_str() {
                    "submit" => "the turn failed".to_owned(),
                    "switch" => "could not switch".to_owned(),
                    other => format!("{other} failed"),
                };
                self.say(format!("{what}: {error}"), Tone::Error);
                self.idle();
            }
            _ => {}
        }
    }

    fn model_event(&mut self, event: Stream) {
        match event {
            Stream::TextDelta { text } => {
                if !self.thinking.is_empty() {
                    self.end_thinking();
                }
                let stream = self.stream.get_or_insert_with(stream::Stream::new);
                let pieces = stream.push(&text);
                self.commit_pieces(&pieces);
            }
            Stream::ThinkingDelta { text } => self.thinking.push_str(&text),
            Stream::Error { message, .. } => {
                self.end_stream();
                self.say(format!("provider error: {message}"), Tone::Error);
            }
            _ => {}
        }
    }

    fn commit_pieces(&mut self, pieces: &[Piece]) {
        if pieces.is_empty() {
            return;
        }
        let rows = stream::render(pieces, usize::from(self.width));
        self.history_tags
            .extend(std::iter::repeat_n(None, rows.len()));
        self.history.extend(rows);
    }

    /// The answer stream ended (a tool call, a notice, the turn's end): its rest is committed.
    fn end_stream(&mut self) {
        self.end_thinking();
        if let Some(mut stream) = self.stream.take() {
            let pieces = stream.finish();
            self.commit_pieces(&pieces);
            let text = stream.text().trim_end().to_owned();
            if !text.is_empty() {
                self.transcript.push(Entry::Answer { text });
            }
        }
    }

    fn end_thinking(&mut self) {
        let text = std::mem::take(&mut self.thinking);
        if !text.trim().is_empty() {
            self.commit(Entry::Thinking { text });
        }
    }

    fn close_tools(&mut self, why: &str) {
        for mut card in std::mem::take(&mut self.tools) {
            card.output = Some(why.to_owned());
            card.is_error = true;
            self.commit(Entry::Tool(card));
        }
    }

    fn child_event(&mut self, handle: &str, event: Event) {
        let Some(child) = self.children.iter_mut().find(|c| c.handle == handle) else {
            return;
        };
        match event {
            Event::Model {
                event: Stream::TextDelta { text },
            } => {
                child.text.push_str(&text);
                if let Some(line) = child.text.lines().rev().find(|l| !l.trim().is_empty()) {
                    child.activity = line.trim().to_owned();
                }
            }
            Event::ToolUse { id, name, input } => {
                child.tools += 1;
                let card = ToolCard {
                    id,
                    name,
                    input: input.get().to_owned(),
                    output: None,
                    is_error: false,
                };
                child.activity = format!("{} {}", card.name, card.summary());
                if !child.text.trim().is_empty() {
                    child.entries.push(Entry::Answer {
                        text: std::mem::take(&mut child.text),
                    });
                }
                child.entries.push(Entry::Tool(card));
            }
            Event::ToolResult {
                id,
                is_error,
                content,
                ..
            } => {
                for entry in child.entries.iter_mut().rev() {
                    if let Entry::Tool(card) = entry
                        && card.id == id
                    {
                        card.output = Some(content);
                        card.is_error = is_error;
                        break;
                    }
                }
            }
            Event::Notice { message } => child.activity = message,
            Event::Approval { id, tool, question } => {
                self.ask(Modal::Approval {
                    id,
                    tool,
                    question: format!("[{handle}] {question}"),
                });
            }
            Event::ChildEnded { handle, ok } => self.child_ended(&handle, ok),
            Event::ChildStarted { handle, task } => {
                self.children.push(LiveChild::new(handle, task))
            }
            _ => {}
        }
    }

    fn child_ended(&mut self, handle: &str, ok: bool) {
        let Some(i) = self.children.iter().position(|c| c.handle == handle) else {
            return;
        };
        let mut child = self.children.remove(i);
        if !child.text.trim().is_empty() {
            child.entries.push(Entry::Answer {
                text: std::mem::take(&mut child.text),
            });
        }
        self.commit(Entry::Child {
            handle: child.handle,
            task: child.task,
            ok,
            tools: child.tools,
            entries: child.entries,
        });
    }

    fn idle(&mut self) {
        self.busy = None;
        if self.read_only.is_none()
            && let Some(next) = self.queued.pop_front()
        {
            self.submit(next);
        }
    }

    /// A bracketed paste.
    pub fn paste(&mut self, text: &str) {
        if self.read_only.is_some() || self.modal.is_some() {
            return;
        }
        self.composer.paste(text);
        self.refresh_popup();
        self.dirty = true;
    }

    /// Takes a key.
    pub fn key(&mut self, key: KeyEvent, now: Instant) {
        self.dirty = true;
        if let Some(modal) = self.modal.take() {
            self.modal_key(modal, key);
            if self.modal.is_none() {
                self.modal = self.waiting_questions.pop_front();
            }
            return;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if self.composer.is_searching() {
            // Esc and Ctrl+G end a history search, not a turn.
            if let composer::Action::Submit(text) = self.composer.key(key) {
                self.submit(text);
            }
            return;
        }
        match key.code {
            KeyCode::Char('c') if ctrl => {
                if self.busy.is_some() {
                    self.effects.push(Effect::Send(Command::Cancel));
                } else if !self.composer.is_empty() {
                    self.composer.set_text("");
                } else if self
                    .ctrl_c
                    .is_some_and(|t| now.duration_since(t) < DOUBLE_PRESS)
                {
                    self.effects.push(Effect::Exit);
                } else {
                    self.ctrl_c = Some(now);
                    self.hint = Some(("Ctrl+C again to exit".to_owned(), now));
                }
                return;
            }
            KeyCode::Char('d') if ctrl && self.composer.is_empty() => {
                self.effects.push(Effect::Exit);
                return;
            }
            KeyCode::Char('t') if ctrl => {
                self.effects.push(Effect::Pager);
                return;
            }
            KeyCode::Char('g') if ctrl => {
                self.effects.push(Effect::Editor);
                return;
            }
            KeyCode::Esc => {
                if self.busy.is_some() {
                    self.effects.push(Effect::Send(Command::Cancel));
                } else if self.composer.is_empty()
                    && self
                        .esc
                        .is_some_and(|t| now.duration_since(t) < DOUBLE_PRESS)
                {
                    self.esc = None;
                    self.effects
                        .push(Effect::Session(slash::SessionOp::Revert(None)));
                } else if self.composer.is_empty() {
                    self.esc = Some(now);
                    self.hint = Some(("Esc again to revert to an earlier message".to_owned(), now));
                }
                return;
            }
            KeyCode::BackTab => {
                let next = match self.mode.as_str() {
                    "default" => hotl_agent::Mode::AcceptEdits,
                    "accept-edits" => hotl_agent::Mode::Plan,
                    _ => hotl_agent::Mode::Default,
                };
                if self.read_only.is_none() {
                    self.run(Command::SetMode { mode: next }, "mode");
                }
                return;
            }
            _ => {}
        }
        if !self.popup_rows.is_empty() {
            let n = self.popup_rows.len();
            let chosen = self.popup_rows[self.popup.min(n - 1)].0.clone();
            match key.code {
                KeyCode::Up => {
                    self.popup = self.popup.checked_sub(1).unwrap_or(n - 1);
                    return;
                }
                KeyCode::Down => {
                    self.popup = (self.popup + 1) % n;
                    return;
                }
                KeyCode::Tab | KeyCode::Enter if self.popup_files => {
                    self.composer
                        .replace_word_before_cursor(&format!("@{chosen} "));
                    self.refresh_popup();
                    return;
                }
                KeyCode::Tab => {
                    self.composer.set_text(&format!("{chosen} "));
                    self.refresh_popup();
                    return;
                }
                KeyCode::Enter if chosen != self.composer.shown().trim() => {
                    self.composer.set_text(&chosen);
                }
                _ => {}
            }
        }
        match self.composer.key(key) {
            composer::Action::Submit(text) => {
                self.refresh_popup();
                self.submit(text);
            }
            composer::Action::Changed => {
                self.popup = 0;
                self.refresh_popup();
            }
            _ => {}
        }
    }

    /// Works out the popup for what the composer holds now.
    fn refresh_popup(&mut self) {
        let word = self.composer.word_before_cursor().to_owned();
        if let Some(query) = word.strip_prefix('@') {
            self.popup_files = true;
            self.popup_rows = self
                .files
                .matching(query)
                .into_iter()
                .map(|p| (p, String::new()))
                .collect();
        } else {
            self.popup_files = false;
            self.popup_rows = self
                .popup_items()
                .into_iter()
                .map(|(name, help)| (name.to_owned(), help.to_owned()))
                .collect();
        }
        self.popup = self.popup.min(self.popup_rows.len().saturating_sub(1));
    }

    /// Shows an approval question, or queues it behind the question shown.
    fn ask(&mut self, question: Modal) {
        if self.modal.is_some() {
            self.waiting_questions.push_back(question);
        } else {
            self.modal = Some(question);
        }
    }

    fn modal_key(&mut self, modal: Modal, key: KeyEvent) {
        match modal {
            Modal::Approval { id, tool, question } => {
                let answer = match key.code {
                    KeyCode::Char('y' | 'Y') | KeyCode::Enter => Answer::Yes,
                    KeyCode::Char('n' | 'N') | KeyCode::Esc => Answer::No,
                    KeyCode::Char('a' | 'A') => Answer::Always,
                    KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                        Answer::No
                    }
                    _ => {
                        self.modal = Some(Modal::Approval { id, tool, question });
                        return;
                    }
                };
                let said = match answer {
                    Answer::Yes => "yes",
                    Answer::No => "no",
                    Answer::Always => "always",
                };
                self.say(format!("{question} {said}"), Tone::Info);
                self.effects
                    .push(Effect::Send(Command::Approve { id, answer }));
            }
            Modal::Confirm { question, then } => match key.code {
                KeyCode::Char('y' | 'Y') => self.effects.push(*then),
                KeyCode::Char('n' | 'N') | KeyCode::Esc | KeyCode::Enter => {
                    self.say(format!("{question} no"), Tone::Info);
                }
                _ => self.modal = Some(Modal::Confirm { question, then }),
            },
            Modal::Pick(mut picker) => match picker.key(key) {
                crate::picker::Outcome::Open => self.modal = Some(Modal::Pick(picker)),
                crate::picker::Outcome::Cancelled => {}
                crate::picker::Outcome::Chosen(effect) => self.effects.push(effect),
            },
        }
    }

    /// Sends a typed line: a message, or a slash command.
    pub fn submit(&mut self, text: String) {
        let text = text.trim_end().to_owned();
        if text.trim().is_empty() {
            return;
        }
        self.composer.remember(&text);
        let parsed = slash::parse(&text);
        if !matches!(parsed, Slash::Message(_)) {
            // What was typed stays in the scrollback above what it did.
            self.end_stream();
            self.commit(Entry::User {
                seq: None,
                text: text.clone(),
            });
        }
        match parsed {
            Slash::Message(_) if self.read_only.is_some() => {
                self.hint = Some((
                    "read-only: another process owns this session; /recall, /copy, /raw and Ctrl+T work".to_owned(),
                    Instant::now(),
                ));
                self.composer.set_text(&text);
            }
            Slash::Message(message) => {
                if self.busy.is_some() {
                    self.queued.push_back(message);
                    return;
                }
                self.end_stream();
                self.commit(Entry::User {
                    seq: None,
                    text: message.clone(),
                });
                self.busy = Some((Busy::Turn, Instant::now()));
                self.effects
                    .push(Effect::Send(Command::Submit { text: message }));
            }
            Slash::Exit => self.effects.push(Effect::Exit),
            Slash::Help => self.say(slash::help().trim_end().to_owned(), Tone::Output),
            Slash::Unknown(word) => self.say(
                format!("unknown command {word}; /help lists them"),
                Tone::Error,
            ),
            Slash::Usage(why) => self.say(why, Tone::Error),
            Slash::Session(op) => {
                if self.busy.is_some() && op.needs_idle() {
                    self.say(
                        format!("{} waits for the turn to end (Esc stops it)", op.name()),
                        Tone::Error,
                    );
                    return;
                }
                self.effects.push(Effect::Session(op));
            }
            Slash::Copy(n) => self.copy(n),
            Slash::Raw(n) => {
                let answer = self
                    .transcript
                    .iter()
                    .rev()
                    .filter_map(Entry::answer_text)
                    .nth(n.unwrap_or(1).max(1) - 1)
                    .map(str::to_owned);
                match answer {
                    Some(text) => self.say(text, Tone::Output),
                    None => self.say("no answer to show yet", Tone::Error),
                }
            }
            Slash::Dump if self.saved && self.read_only.is_none() => {
                self.run(Command::Dump, "dump");
            }
            Slash::Dump => self.say("No messages to dump yet.", Tone::Info),
            Slash::Export(path) if self.saved => self.effects.push(Effect::Export(path)),
            Slash::Share if self.saved => {
                self.say("sealing and uploading…", Tone::Info);
                self.effects.push(Effect::Share);
            }
            Slash::Export(_) | Slash::Share => {
                self.say("no session yet: send a message first", Tone::Info)
            }
            Slash::Cost if self.saved && self.read_only.is_none() => {
                self.run(Command::Stats, "stats");
            }
            Slash::Cost => self.say(self.cost_text(), Tone::Output),
            Slash::Model(Some(model)) => self.run(Command::SetModel { model }, "model"),
            Slash::Effort(Some(effort)) => self.run(Command::SetEffort { effort }, "effort"),
            Slash::Effort(None) => {
                let level = self.status.as_ref().and_then(|s| s.effort.clone());
                self.say(
                    match level {
                        Some(level) => format!("effort: {level} (recorded in this session; /effort low|medium|high changes it)"),
                        None => "effort: the model's default (/effort low|medium|high sets one)".to_owned(),
                    },
                    Tone::Info,
                );
            }
            Slash::Model(None) => self.run(Command::Models, "models"),
            Slash::Context if !self.saved => {
                self.say("no context yet: send a message first", Tone::Error)
            }
            Slash::Context => self.run(Command::Context, "context"),
            command => match command.as_move() {
                Some(hotl_agent::Move::Recall { query, mode, limit }) if self.read_only.is_some() => {
                    // No agent here: the archive is searched directly (no model call).
                    self.effects.push(Effect::Recall { query, mode, limit });
                }
                Some(_) if self.read_only.is_some() => self.say(
                    "read-only: another process owns this session; /recall, /copy, /raw and Ctrl+T work",
                    Tone::Error,
                ),
                Some(_) if !self.saved => {
                    self.say("no session yet: send a message first", Tone::Error)
                }
                Some(_) if self.busy.is_some() => self.say(
                    "a move waits for the turn to end (Esc stops it)",
                    Tone::Error,
                ),
                Some(step) => {
                    if let hotl_agent::Move::Recall { query, .. } = &step {
                        self.last_recall = Some(query.clone());
                    }
                    let name = step.name();
                    self.run(Command::Move(step), name);
                }
                None => {}
            },
        }
    }

    /// Sends a command that keeps the agent busy until it ends.
    pub fn run(&mut self, command: Command, name: &'static str) {
        self.busy = Some((Busy::Command(name), Instant::now()));
        self.effects.push(Effect::Send(command));
    }

    fn copy(&mut self, n: Option<usize>) {
        let answers: Vec<&str> = self
            .transcript
            .iter()
            .rev()
            .filter_map(Entry::answer_text)
            .collect();
        let index = n.unwrap_or(1).max(1) - 1;
        match answers.get(index) {
            Some(text) => {
                let text = (*text).to_owned();
                let lines = text.lines().count();
                self.effects.push(Effect::Copy(text));
                self.say(format!("copied an answer ({lines} lines)"), Tone::Info);
            }
            None => self.say("no answer to copy yet", Tone::Error),
        }
    }

    fn cost_text(&self) -> String {
        let Some(s) = &self.status else {
            return "nothing spent yet".to_owned();
        };
        let u = &s.usage;
        format!(
            "${:.4} in {} request{} · input {} · cache read {} · cache write {} · output {}{}",
            s.cost,
            s.requests,
            if s.requests == 1 { "" } else { "s" },
            tokens(u.input),
            tokens(u.cache_read),
            tokens(u.cache_write_5m + u.cache_write_1h),
            tokens(u.output),
            s.cache_hit
                .map(|h| format!(" · last request {:.0}% cached", h * 100.0))
                .unwrap_or_default()
        )
    }

    /// The slash commands the typed `/word` could be, with their help.
    pub fn popup_items(&self) -> Vec<(&'static str, &'static str)> {
        let text = self.composer.shown();
        if !text.starts_with('/') || text.starts_with("//") || text.contains(char::is_whitespace) {
            return Vec::new();
        }
        slash::commands()
            .filter(|(name, _)| name.starts_with(text))
            .collect()
    }
}

/// `/context`'s report: the parts, the window, and what the provider measured last.
pub fn context_text(parts: &hotl_agent::ContextParts, status: Option<&Status>) -> String {
    let total = parts.system + parts.tools + parts.notes + parts.messages;
    let mut out = match status.filter(|s| s.context_window > 0) {
        Some(s) => format!(
            "context: about {} of {} tokens ({}%); a turn compacts at {}%",
            tokens(total),
            tokens(s.context_window),
            total * 100 / s.context_window,
            hotl_agent::COMPACT_AT_PERCENT
        ),
        None => format!("context: about {} tokens", tokens(total)),
    };
    let row = |name: &str, n: u64| format!("\n  {name:<16}{:>8}", tokens(n));
    out.push_str(&row("system prompt", parts.system));
    out.push_str(&row("tools", parts.tools));
    out.push_str(&row("fold notes", parts.notes));
    if parts.folds + parts.compactions > 0 {
        out.push_str(&format!(
            "   ({} fold{}, {} compaction{})",
            parts.folds,
            if parts.folds == 1 { "" } else { "s" },
            parts.compactions,
            if parts.compactions == 1 { "" } else { "s" }
        ));
    }
    out.push_str(&row("live messages", parts.messages));
    out.push_str(&row("saved by folds", parts.saved));
    if let Some(s) = status.filter(|s| s.context_used > 0) {
        out.push_str(&format!(
            "\n  (estimated at 4 bytes a token; the provider counted {} for the last request)",
            tokens(s.context_used)
        ));
    }
    out
}

/// `12.3k`, `1.2M`.
pub fn tokens(n: u64) -> String {
    match n {
        0..1_000 => n.to_string(),
        1_000..1_000_000 => format!("{:.1}k", n as f64 / 1e3),
        _ => format!("{:.1}M", n as f64 / 1e6),
    }
}
