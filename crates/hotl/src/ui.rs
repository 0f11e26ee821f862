//! Showing a run: headless output (text, JSON, stream-JSON) and the console's live view.

use std::io::{BufRead, Write};
use std::process::ExitCode;

use hotl_agent::{AgentError, Progress, Session, TurnOutcome, Ui};
use hotl_wire::Event;
use serde_json::json;

use crate::error::CliError;

/// What `hotl -p` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputFormat {
    /// The final answer.
    Text,
    /// One JSON object at the end.
    Json,
    /// One JSON object per event, then the result.
    StreamJson,
}

/// The headless side: prints per the format; nobody to ask, so permission questions refuse.
pub struct PrintUi {
    format: OutputFormat,
}

impl PrintUi {
    pub fn new(format: OutputFormat) -> Self {
        PrintUi { format }
    }

    fn emit(&self, value: serde_json::Value) {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{value}");
        let _ = out.flush();
    }

    /// Prints the outcome and picks the exit status: 0 done, 1 failed, 130 cancelled.
    pub fn finish(
        &mut self,
        session: &Session,
        outcome: &Result<TurnOutcome, AgentError>,
    ) -> Result<ExitCode, CliError> {
        let outcome = match outcome {
            Ok(o) => o,
            Err(e) => {
                if self.format != OutputFormat::Text {
                    self.emit(json!({
                        "type": "result",
                        "session_id": session.id(),
                        "is_error": true,
                        "error": e.to_string(),
                    }));
                }
                return Err(CliError::user(e.to_string())
                    .hint(format!("the session is kept: hotl -r {}", session.id())));
            }
        };
        let result = json!({
            "type": "result",
            "session_id": session.id(),
            "is_error": false,
            "result": outcome.text,
            "stop": outcome.stop,
            "cancelled": outcome.cancelled,
            "steps": outcome.steps,
            "usage": outcome.usage,
            "cost_usd": outcome.cost,
        });
        match self.format {
            OutputFormat::Text => {
                let mut out = std::io::stdout().lock();
                writeln!(out, "{}", outcome.text)?;
                out.flush()?;
            }
            OutputFormat::Json | OutputFormat::StreamJson => self.emit(result),
        }
        Ok(if outcome.cancelled {
            ExitCode::from(130)
        } else {
            ExitCode::SUCCESS
        })
    }
}

impl Ui for PrintUi {
    fn progress(&mut self, progress: Progress<'_>) {
        match (self.format, progress) {
            (OutputFormat::StreamJson, Progress::Model(event)) => {
                self.emit(json!({ "type": "model", "event": event }));
            }
            (OutputFormat::StreamJson, Progress::ToolStart { id, name, input }) => {
                let input: serde_json::Value =
                    serde_json::from_str(input).unwrap_or(serde_json::Value::Null);
                self.emit(json!({ "type": "tool_use", "id": id, "name": name, "input": input }));
            }
            (OutputFormat::StreamJson, Progress::ToolDone { id, name, output }) => {
                self.emit(json!({
                    "type": "tool_result",
                    "id": id,
                    "name": name,
                    "is_error": output.is_error,
                    "content": output.content,
                }));
            }
            (OutputFormat::StreamJson, Progress::Notice(text)) => {
                self.emit(json!({ "type": "notice", "message": text }));
            }
            (_, Progress::Notice(text)) => eprintln!("hotl: {text}"),
            _ => {}
        }
    }
}

/// The console's live view: text as it streams, tool calls as they run, questions answered
/// on stdin.
pub struct ConsoleUi {
    at_line_start: bool,
    /// How many forks deep the progress shown is: a fork's child's lines are indented with a
    /// bar per level, so they are not taken for the session's own.
    depth: usize,
}

impl ConsoleUi {
    pub fn new() -> Self {
        ConsoleUi {
            at_line_start: true,
            depth: 0,
        }
    }

    fn margin(&self) -> String {
        "  │ ".repeat(self.depth)
    }

    fn line(&mut self, text: &str) {
        let mut out = std::io::stdout().lock();
        if !self.at_line_start {
            let _ = writeln!(out);
        }
        let margin = self.margin();
        for line in text.split('\n') {
            let _ = writeln!(out, "{margin}{line}");
        }
        let _ = out.flush();
        self.at_line_start = true;
    }

    /// Streams `text`, with the margin at the start of each line.
    fn stream(&mut self, text: &str) {
        let margin = self.margin();
        let mut out = std::io::stdout().lock();
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

impl Ui for ConsoleUi {
    fn progress(&mut self, progress: Progress<'_>) {
        match progress {
            Progress::Model(Event::TextDelta { text }) => self.stream(text),
            Progress::Model(Event::ThinkingDelta { .. }) => {}
            Progress::Model(Event::Error { message, .. }) => {
                self.line(&format!("· provider error: {message}"));
            }
            Progress::Model(_) => {}
            Progress::ToolStart { name, input, .. } => {
                self.line(&format!("→ {name} {}", clip(input, 160)));
            }
            Progress::ToolDone { name, output, .. } => {
                let lines = output.content.lines().count();
                let first = output.content.lines().next().unwrap_or("");
                let mark = if output.is_error { "✗" } else { "←" };
                self.line(&format!(
                    "{mark} {name}: {} ({lines} line{})",
                    clip(first, 120),
                    if lines == 1 { "" } else { "s" }
                ));
            }
            Progress::Notice(text) => self.line(&format!("· {text}")),
        }
    }

    fn fork_started(&mut self, _handle: &str) {
        if !self.at_line_start {
            let _ = writeln!(std::io::stdout().lock());
            self.at_line_start = true;
        }
        self.depth += 1;
    }

    fn fork_done(&mut self, _handle: &str) {
        if !self.at_line_start {
            let _ = writeln!(std::io::stdout().lock());
            self.at_line_start = true;
        }
        self.depth = self.depth.saturating_sub(1);
    }

    fn confirm(&mut self, question: &str) -> bool {
        self.line(&format!("? {question} [y/N] "));
        let mut answer = String::new();
        if std::io::stdin().lock().read_line(&mut answer).is_err() {
            return false;
        }
        matches!(answer.trim(), "y" | "Y" | "yes")
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
