//! The agent's events, taken into the app: the answer as it streams, tool cards, children,
//! questions, and each command's end, said in the protocol's words
//! ([`describe`](hotl_protocol::words::describe)) or drawn as a card.

use hotl_protocol::words::{self, Said};
use hotl_protocol::{Done, Envelope, Event, MoveResult, Outcome};
use hotl_wire::Event as Stream;

use super::{App, Effect, LiveChild, Modal};
use crate::cells::{Entry, Tone, ToolCard};
use crate::stream::{self, Piece};

impl App {
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
                mode,
                ..
            } => {
                self.files = crate::files::Files::new(cwd.into());
                self.session = session_id;
                self.saved = saved;
                self.model = model;
                self.mode = mode;
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
            Event::ToolOutput { id, text } => self.printed_by(&id, &text),
            Event::ToolResult {
                id,
                name,
                is_error,
                content,
            } => {
                self.printed.remove(&id);
                self.tool_result(id, name, is_error, content)
            }
            Event::Approval {
                id,
                tool,
                question,
                preview,
            } => {
                self.ask(Modal::Approval {
                    id,
                    tool,
                    question,
                    preview,
                    reason: None,
                });
            }
            Event::Status(status) => self.take_status(status),
            Event::ChildStarted {
                handle,
                task,
                agent,
            } => {
                self.end_stream();
                self.children.push(LiveChild::new(handle, agent, task));
            }
            Event::ChildEnded { handle, ok } => self.child_ended(&handle, ok),
            switch @ Event::Switch { .. } => self.switched(switch),
            Event::Done(done) => self.done(envelope.command, done),
            other => self.tell(&other),
        }
    }

    /// The agent is on another session now.
    fn switched(&mut self, switch: Event) {
        if let Event::Switch {
            to, saved, mode, ..
        } = &switch
        {
            self.session.clone_from(to);
            self.saved = *saved;
            self.mode.clone_from(mode);
            self.status = None;
        }
        self.tell(&switch);
    }

    /// Says `event` in the protocol's words, if it has any.
    fn tell(&mut self, event: &Event) {
        if let Some(said) = words::describe(event, self.status.as_ref()) {
            self.end_stream();
            self.said(said);
        }
    }

    /// Shows a sentence with its tone.
    pub(super) fn said(&mut self, said: Said) {
        let tone = match said.tone {
            words::Tone::Info => Tone::Info,
            words::Tone::Error => Tone::Error,
            words::Tone::Output => Tone::Output,
        };
        self.say(said.text, tone);
    }

    fn take_status(&mut self, status: hotl_protocol::Status) {
        if let Some(mode) = &status.mode {
            self.mode.clone_from(mode);
        }
        if let Some(model) = &status.model {
            self.model.clone_from(model);
        }
        self.status = Some(status);
    }

    fn tool_result(&mut self, id: String, name: String, is_error: bool, content: String) {
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

    /// A command ended: what it gave is shown, and the wait it started ends.
    fn done(&mut self, id: Option<hotl_protocol::CommandId>, done: Done) {
        let ends_wait = match &self.busy {
            Some(waiting) => waiting.id.is_none() || waiting.id == id,
            None => false,
        };
        if matches!(done.result, Ok(Outcome::Accepted { .. })) {
            return;
        }
        self.end_stream();
        if done.result.is_err() {
            self.close_tools("not run");
            self.tell(&Event::Done(done));
        } else if let Ok(outcome) = done.result {
            self.outcome(outcome);
        }
        if ends_wait {
            self.idle();
        }
    }

    /// What a command that did what it was asked gave, drawn where a card says more than a
    /// sentence.
    fn outcome(&mut self, outcome: Outcome) {
        match outcome {
            Outcome::TurnEnded(turn) => {
                self.close_tools("cancelled");
                if turn.cancelled {
                    self.say("cancelled; the session is kept", Tone::Info);
                }
                if let Some(text) = words::turn_footer(&turn) {
                    self.commit(Entry::TurnEnd {
                        text: format!("  {text}"),
                    });
                }
            }
            Outcome::MoveEnded(result) => self.moved(result),
            Outcome::ModeChanged { mode } => {
                self.mode.clone_from(&mode);
                self.tell_outcome(Outcome::ModeChanged { mode });
            }
            Outcome::ModelChanged { from, to } => {
                self.model.clone_from(&to);
                self.tell_outcome(Outcome::ModelChanged { from, to });
            }
            Outcome::Reverted {
                before,
                to,
                text,
                scope,
                files,
            } => {
                if scope.conversation() {
                    self.composer.set_text(&text);
                    self.refresh_popup();
                }
                self.tell_outcome(Outcome::Reverted {
                    before,
                    to,
                    text: String::new(),
                    scope,
                    files,
                });
                if scope.conversation() {
                    self.say("its text is back in the composer", Tone::Info);
                }
            }
            Outcome::Models { models, current } if !models.is_empty() => {
                self.pick_model(models, &current);
            }
            Outcome::Dump(dump) => {
                self.effects.push(Effect::Copy(dump.text()));
                self.tell_outcome(Outcome::Dump(dump.clone()));
                self.effects.push(Effect::WriteDump(dump));
            }
            Outcome::Stats(stats) if self.stats_view == "stats" => {
                self.say(stats.economy(), Tone::Output);
            }
            Outcome::Stats(stats) => {
                let table = stats.table();
                let process = words::spent_line(self.status.as_ref());
                self.say(
                    format!("{}\nthis process: {process}", table.trim_end()),
                    Tone::Output,
                );
            }
            Outcome::Status(status) => self.take_status(status),
            other => self.tell_outcome(other),
        }
    }

    fn tell_outcome(&mut self, outcome: Outcome) {
        self.tell(&Event::Done(Done::ok(outcome)));
    }

    fn moved(&mut self, result: MoveResult) {
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
                summary: "the span stays archived: /recall finds it, /ask takes it".to_owned(),
                archived: Vec::new(),
            }),
            MoveResult::Recalled { text } => {
                let query = self.last_recall.take().unwrap_or_default();
                self.recalled(&query, &text);
            }
            MoveResult::Answered { text } => self.say(text.trim_end().to_owned(), Tone::Output),
        }
    }

    fn pick_model(&mut self, models: Vec<String>, current: &str) {
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
    pub(super) fn end_stream(&mut self) {
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

    pub(super) fn close_tools(&mut self, why: &str) {
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
            Event::Approval {
                id,
                tool,
                question,
                preview,
            } => {
                self.ask(Modal::Approval {
                    id,
                    tool,
                    question: format!("[{handle}] {question}"),
                    preview,
                    reason: None,
                });
            }
            Event::ChildEnded { handle, ok } => self.child_ended(&handle, ok),
            Event::ChildStarted {
                handle,
                task,
                agent,
            } => self.children.push(LiveChild::new(handle, agent, task)),
            _ => {}
        }
    }

    /// Keeps the end of what running call `id` printed, for its card while it runs.
    fn printed_by(&mut self, id: &str, text: &str) {
        const KEPT: usize = 4096;
        let kept = self.printed.entry(id.to_owned()).or_default();
        kept.push_str(text);
        hotl_text::keep_tail(kept, KEPT);
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
            agent: child.agent,
            task: child.task,
            ok,
            tools: child.tools,
            entries: child.entries,
        });
    }

    /// Nothing runs any more: the next queued message goes.
    pub(super) fn idle(&mut self) {
        self.busy = None;
        if self.read_only.is_none()
            && let Some(next) = self.queued.pop_front()
        {
            self.submit(next);
        }
    }
}
