//! The console's live view of an agent's events: text as it streams, tool calls as they run,
//! notices and commands' ends in the protocol's words, a child's work under a bar labelled with
//! its handle (a whole line at a time, so children running side by side never mix within a
//! line), approval questions answered on stdin, and the status line (context gauge, todos,
//! model, mode, cost).

use std::collections::HashMap;

use std::io::{BufRead, Write};

use hotl_protocol::words::{self, Tone};
use hotl_protocol::{Agent, Answer, Command, CommandId, Done, Envelope, Event, Status};
use hotl_wire::Event as Stream;

/// What the console has seen of the agent, and where its output stands.
pub(super) struct Live {
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
    /// The last switch: why, and where the session switched to works.
    pub last_switch: Option<Switched>,
}

/// What the console keeps of a switch.
#[derive(Clone, Debug)]
pub(super) struct Switched {
    /// Why.
    pub reason: hotl_protocol::SwitchReason,
    /// The session's working directory.
    pub cwd: String,
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
            last_switch: None,
        }
    }

    /// Shows events until the agent's first (it is ready), taking the session it is on.
    pub async fn until_init(&mut self, agent: &mut Agent) -> std::io::Result<()> {
        while let Some(envelope) = agent.recv().await {
            self.show(&envelope.event);
            if matches!(envelope.event, Event::Init { .. }) {
                return Ok(());
            }
        }
        Err(std::io::Error::other("the agent stopped"))
    }

    /// Sends `command` and shows its events until it is done; approval questions are asked
    /// on the terminal and answered. Its end is returned, not shown.
    pub async fn run(&mut self, agent: &mut Agent, command: Command) -> std::io::Result<Done> {
        let id = agent.send(command);
        self.until(agent, id).await
    }

    /// Shows events until command `id` is done, and returns how it ended.
    pub async fn until(&mut self, agent: &mut Agent, id: CommandId) -> std::io::Result<Done> {
        while let Some(Envelope {
            event,
            child,
            command,
        }) = agent.recv().await
        {
            self.child = child;
            if let Event::Approval {
                id,
                question,
                preview,
                ..
            } = &event
            {
                for line in preview {
                    self.line(&format!("  {}{}", line.sign(), line.text));
                }
                let (answer, reason) = self.ask(question).await;
                agent.send(Command::Approve {
                    id: *id,
                    answer,
                    reason,
                });
                continue;
            }
            match event {
                Event::Done(done) if command == Some(id) => {
                    if let Ok(hotl_protocol::Outcome::Status(status)) = &done.result {
                        self.status = Some(status.clone());
                    }
                    return Ok(done);
                }
                event => self.show(&event),
            }
        }
        Err(std::io::Error::other("the agent stopped"))
    }

    /// Says how a command ended, in the protocol's words (`· ` before what happened; what the
    /// user asked to see as it is).
    pub fn tell(&mut self, done: &Done) {
        if let Some(said) = words::done_said(done, self.status.as_ref()) {
            self.said(&said);
        }
    }

    /// Prints a sentence as the console does.
    pub fn said(&mut self, said: &words::Said) {
        match said.tone {
            Tone::Output => self.line(&said.text),
            Tone::Info | Tone::Error => self.line(&format!("· {}", said.text)),
        }
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
            Event::Switch {
                to,
                saved,
                reason,
                cwd,
                ..
            } => {
                self.session.clone_from(to);
                self.saved = *saved;
                self.status = None;
                self.last_switch = Some(Switched {
                    reason: *reason,
                    cwd: cwd.clone(),
                });
                if let Some(said) = words::describe(event, None) {
                    self.said(&said);
                }
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
                self.line(&format!("→ {name} {}", hotl_text::clip(input.get(), 160)));
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
                    hotl_text::clip(first, 120),
                    if lines == 1 { "" } else { "s" }
                ));
            }
            Event::Notice { .. } | Event::ToolsAdded { .. } | Event::Done(_) => {
                if let Some(said) = words::describe(event, self.status.as_ref()) {
                    self.said(&said);
                }
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

    /// Asks `question` on the terminal; anything but yes declines. After an `n`, asks why
    /// (an empty line gives no reason): the model reads it with the refusal.
    async fn ask(&mut self, question: &str) -> (Answer, Option<String>) {
        let answer = self
            .read_answer(&format!("? {question} [y/N/a(lways)]"))
            .await;
        match answer.as_deref() {
            Some("y" | "Y" | "yes") => (Answer::Yes, None),
            Some("a" | "A" | "always") => (Answer::Always, None),
            Some("n" | "N" | "no") => {
                let why = self
                    .read_answer("  why not? (Enter to just say no)")
                    .await
                    .filter(|why| !why.is_empty());
                (Answer::No, why)
            }
            _ => (Answer::No, None),
        }
    }

    /// Prints `question` and reads one line from the terminal, trimmed; `None` when the
    /// terminal is gone.
    pub async fn read_answer(&mut self, question: &str) -> Option<String> {
        self.end_line();
        {
            let mut out = hotl_text::Plain::new(std::io::stdout().lock());
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
    /// [`hotl_protocol::COMPACT_AT_PERCENT`]).
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
            let _ = writeln!(hotl_text::Plain::new(std::io::stdout().lock()), "{line}");
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

    /// Ends the line the streamed answer left open.
    pub fn end_line(&mut self) {
        if !self.at_line_start {
            let _ = writeln!(std::io::stdout().lock());
            self.at_line_start = true;
        }
    }

    pub fn line(&mut self, text: &str) {
        self.end_line();
        let margin = self.margin();
        // What the model and tools say may hold control sequences: shown, never sent.
        let mut out = hotl_text::Plain::new(std::io::stdout().lock());
        for line in text.split('\n') {
            let _ = writeln!(out, "{margin}{line}");
        }
        let _ = out.flush();
    }

    /// Streams `text`, with the margin at the start of each line.
    fn stream(&mut self, text: &str) {
        let margin = self.margin();
        let mut out = hotl_text::Plain::new(std::io::stdout().lock());
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
