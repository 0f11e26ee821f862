//! The console's live view of an agent's events: text as it streams, tool calls as they run,
//! notices, a child's work under a bar labelled with its handle (a whole line at a time, so
//! children running side by side never mix within a line), approval questions answered on
//! stdin, and the status line (context gauge, todos, model, mode, cost).

use std::collections::HashMap;

use std::io::{BufRead, Write};

use hotl_agent::{Agent, Answer, Command, Envelope, Event, Status};
use hotl_wire::Event as Stream;

use crate::error::CliError;
use crate::plain::Plain;

/// What the console has seen of the agent, and where its output stands.
pub struct Live {
    at_line_start: bool,
    /// The child whose events are being shown (its handle), or none for the session's own:
    /// a child's lines carry a bar and its handle, so they are not taken for the session's.
    child: Option<String>,
    /// What each child has said since its last whole line.
    partial: HashMap<String, String>,
    /// The latest status.
    pub status: Option<Status>,
    /// The session's id.
    pub session: String,
    /// Whether the session is on disk (it is written with its first message).
    pub saved: bool,
    /// The model asked.
    pub model: String,
}

impl Live {
    pub fn new() -> Live {
        Live {
            at_line_start: true,
            child: None,
            partial: HashMap::new(),
            status: None,
            session: String::new(),
            saved: false,
            model: String::new(),
        }
    }

    /// Shows events until one that `done` accepts (a command's end), and returns it. An
    /// approval question is asked on the terminal and answered.
    pub async fn until(
        &mut self,
        agent: &mut Agent,
        done: impl Fn(&Event) -> bool,
    ) -> Result<Event, CliError> {
        while let Some(Envelope { event, child }) = agent.recv().await {
            self.child = child;
            if let Event::Approval { id, question, .. } = &event {
                let answer = self.ask(question).await;
                agent.send(Command::Approve { id: *id, answer });
                continue;
            }
            self.show(&event);
            if done(&event) {
                return Ok(event);
            }
        }
        Err(CliError::Internal("the agent stopped".to_owned()))
    }

    /// Shows events until the end of a command: a turn's, a recovery's, a move's, or its
    /// failure.
    pub async fn until_done(&mut self, agent: &mut Agent) -> Result<Event, CliError> {
        self.until(agent, |e| {
            matches!(
                e,
                Event::TurnEnded(_)
                    | Event::Recovered { .. }
                    | Event::MoveEnded(_)
                    | Event::Failed { .. }
                    | Event::Cancelled { .. }
                    | Event::Renamed { .. }
                    | Event::ModeChanged { .. }
                    | Event::Switch { .. }
                    | Event::Cleared { .. }
                    | Event::Fresh { .. }
                    | Event::Reverted { .. }
            )
        })
        .await
    }

    fn show(&mut self, event: &Event) {
        // What a child said before it does something else is shown first.
        if let Some(child) = self.child.clone()
            && !matches!(event, Event::Model { .. })
            && let Some(rest) = self.partial.remove(&child)
            && !rest.trim().is_empty()
        {
            self.line(rest.trim_end());
        }
        match event {
            Event::Init {
                session_id,
                saved,
                model,
                ..
            } => {
                self.session.clone_from(session_id);
                self.saved = *saved;
                self.model.clone_from(model);
            }
            Event::Created { session_id } => {
                self.session.clone_from(session_id);
                self.saved = true;
            }
            Event::Dropped {
                session_id,
                kept_for,
            } => {
                if kept_for.is_empty() {
                    self.line(&format!("· dropped {session_id}"));
                } else {
                    self.line(&format!(
                        "· {session_id} is hidden and kept for the sessions that descend from it: {}",
                        kept_for.join(", ")
                    ));
                }
            }
            Event::Switch { to, saved, .. } => {
                self.session.clone_from(to);
                self.saved = *saved;
                self.status = None;
            }
            Event::Status(status) => self.status = Some(status.clone()),
            Event::Model { event } => match event {
                Stream::TextDelta { text } => match self.child.clone() {
                    Some(child) => self.child_text(child, text),
                    None => self.stream(text),
                },
                Stream::Error { message, .. } => self.line(&format!("· provider error: {message}")),
                _ => {}
            },
            Event::ToolUse { name, input, .. } => {
                self.line(&format!("→ {name} {}", clip(input.get(), 160)));
            }
            Event::ToolResult {
                name,
                is_error,
                content,
                ..
            } => {
                let lines = content.lines().count();
                let first = content.lines().next().unwrap_or("");
                let mark = if *is_error { "✗" } else { "←" };
                self.line(&format!(
                    "{mark} {name}: {} ({lines} line{})",
                    clip(first, 120),
                    if lines == 1 { "" } else { "s" }
                ));
            }
            Event::Notice { message } => self.line(&format!("· {message}")),
            Event::ToolsAdded { tools } => {
                self.line(&format!("· {}", hotl_agent::tools_added_line(tools)));
            }
            Event::ChildEnded { handle, .. } => {
                if let Some(rest) = self.partial.remove(handle)
                    && !rest.trim().is_empty()
                {
                    let shown = self.child.replace(handle.clone());
                    self.line(rest.trim_end());
                    self.child = shown;
                }
            }
            _ => {}
        }
    }

    /// Asks `question` on the terminal; anything but yes declines.
    async fn ask(&mut self, question: &str) -> Answer {
        match self
            .read_answer(&format!("? {question} [y/N/a(lways)]"))
            .await
        {
            Some(answer) => match answer.as_str() {
                "y" | "Y" | "yes" => Answer::Yes,
                "a" | "A" | "always" => Answer::Always,
                _ => Answer::No,
            },
            None => Answer::No,
        }
    }

    /// Prints `question` and reads one line from the terminal, trimmed; `None` when the
    /// terminal is gone.
    pub async fn read_answer(&mut self, question: &str) -> Option<String> {
        self.end_line();
        {
            let mut out = Plain::new(std::io::stdout().lock());
            let _ = write!(out, "{}{question} ", self.margin());
            let _ = out.flush();
        }
        let read = tokio::task::spawn_blocking(|| {
            let mut answer = String::new();
            std::io::stdin()
                .lock()
                .read_line(&mut answer)
                .map(|n| (n, answer))
        })
        .await;
        match read {
            Ok(Ok((n, answer))) if n > 0 => Some(answer.trim().to_owned()),
            _ => None,
        }
    }

    /// `── 12% ctx · todos 1/3 · claude-sonnet-4-5 · $0.0123 ──`: the context gauge measures
    /// what the last request held against the context window (a turn compacts at
    /// [`hotl_agent::COMPACT_AT_PERCENT`]).
    pub fn status_line(&self) -> Option<String> {
        let status = self.status.as_ref()?;
        let mut parts = vec![format!("{}% ctx", status.context_percent)];
        if status.todos > 0 {
            parts.push(format!("todos {}/{}", status.todos_done, status.todos));
        }
        if let Some(model) = &status.model {
            parts.push(model.clone());
        }
        if let Some(mode) = &status.mode {
            parts.push(format!("mode {mode}"));
        }
        parts.push(format!("${:.4}", status.cost));
        Some(format!("── {} ──", parts.join(" · ")))
    }

    /// Prints the status line, when there is one.
    pub fn print_status(&self) {
        if let Some(line) = self.status_line() {
            let _ = writeln!(Plain::new(std::io::stdout().lock()), "{line}");
        }
    }

    fn margin(&self) -> String {
        match &self.child {
            Some(handle) => format!("  │ {handle} "),
            None => String::new(),
        }
    }

    /// A child's streamed text: shown a whole line at a time under its handle.
    fn child_text(&mut self, child: String, text: &str) {
        let buffer = self.partial.entry(child).or_default();
        buffer.push_str(text);
        let Some(end) = buffer.rfind('\n') else {
            return;
        };
        let whole: String = buffer.drain(..=end).collect();
        for line in whole.lines().filter(|l| !l.trim().is_empty()) {
            self.line(line);
        }
    }

    fn end_line(&mut self) {
        if !self.at_line_start {
            let _ = writeln!(std::io::stdout().lock());
            self.at_line_start = true;
        }
    }

    fn line(&mut self, text: &str) {
        self.end_line();
        let margin = self.margin();
        // What the model and tools say may hold control sequences: shown, never sent.
        let mut out = Plain::new(std::io::stdout().lock());
        for line in text.split('\n') {
            let _ = writeln!(out, "{margin}{line}");
        }
        let _ = out.flush();
    }

    /// Streams `text`, with the margin at the start of each line.
    fn stream(&mut self, text: &str) {
        let margin = self.margin();
        let mut out = Plain::new(std::io::stdout().lock());
        for piece in text.split_inclusive('\n') {
            if self.at_line_start {
                let _ = write!(out, "{margin}");
            }
            let _ = write!(out, "{piece}");
            self.at_line_start = piece.ends_with('\n');
        }
        let _ = out.flush();
    }
}

fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max - 1).collect();
    out.push('…');
    out
}
