//! `hotl -p`: a front end on the agent's events that runs one turn and prints it as text (the
//! final answer), JSON (one result object) or stream-JSON (every event as a line, then the
//! result). Nobody can be asked, so the policy refuses what would need a yes.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use hotl_agent::{Agent, Command, CommandId, Done, Envelope, Event, Failure, Outcome, TurnOutcome};
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

/// Runs `prompt` as one turn (after finishing a turn a dead process left open, when
/// `recover`), printing as `format` says; 0 done, 1 failed, 130 cancelled.
pub async fn run(
    mut agent: Agent,
    prompt: &str,
    format: OutputFormat,
    recover: bool,
) -> Result<ExitCode, CliError> {
    let mut printer = Printer {
        format,
        session: String::new(),
        saved: false,
    };
    match printer.turn(&mut agent, prompt, recover).await {
        Ok(outcome) => {
            agent.join().await;
            printer.finish(&outcome)
        }
        Err(e) => {
            // A closed stdout, say: what runs stops cleanly before the process ends.
            agent.shutdown().await;
            Err(e)
        }
    }
}

impl Printer {
    /// The recovery (when asked) and the turn, their events printed as they come; what they
    /// spent together.
    async fn turn(
        &mut self,
        agent: &mut Agent,
        prompt: &str,
        recover: bool,
    ) -> Result<TurnOutcome, CliError> {
        let mut spent = TurnOutcome::default();
        if recover {
            let id = agent.send(Command::Recover);
            match self.until_done(agent, id).await?.result {
                Ok(Outcome::Recovered {
                    outcome: Some(outcome),
                }) => spent.add(&outcome),
                Err(failure) => return Err(self.failed(&failure)),
                Ok(_) => {}
            }
        }
        let id = agent.send(Command::Submit {
            text: prompt.to_owned(),
        });
        agent.close();
        let mut outcome = match self.until_done(agent, id).await?.result {
            Ok(Outcome::TurnEnded(outcome)) => outcome,
            Err(failure) => return Err(self.failed(&failure)),
            Ok(other) => return Err(CliError::Internal(format!("the turn ended with {other:?}"))),
        };
        // The json result counts every request this process made, the recovery's included.
        outcome.add(&spent);
        Ok(outcome)
    }
}

struct Printer {
    format: OutputFormat,
    /// The session's id, from the agent's first event.
    session: String,
    /// Whether its log exists (opened, or written since): only then is it kept.
    saved: bool,
}

impl Printer {
    /// Prints events until command `id` is done (its end printed too), and returns how it
    /// ended.
    async fn until_done(&mut self, agent: &mut Agent, id: CommandId) -> Result<Done, CliError> {
        while let Some(envelope) = agent.recv().await {
            self.show(&envelope)?;
            match envelope.event {
                Event::Init {
                    session_id, saved, ..
                } => {
                    self.session = session_id;
                    self.saved = saved;
                }
                Event::Created { session_id } => {
                    self.session = session_id;
                    self.saved = true;
                }
                Event::Done(done) if envelope.command == Some(id) => return Ok(done),
                _ => {}
            }
        }
        Err(CliError::Internal(
            "the agent stopped before the turn ended".to_owned(),
        ))
    }

    fn show(&self, envelope: &Envelope) -> Result<(), CliError> {
        match (self.format, &envelope.event) {
            // Serialized straight from the event, so `type` leads each line.
            // Tool arguments are one line (`ToolInput`), so each event is.
            (OutputFormat::StreamJson, _) => emit(&serde_json::to_string(envelope)?),
            (_, Event::Notice { message }) => {
                eprintln!("hotl: {}", hotl_text::printable(message));
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// The error a failed command exits with (its result line first, in the JSON formats,
    /// with what it had spent: the model may have answered part of the turn).
    fn failed(&self, failure: &Failure) -> CliError {
        if self.format != OutputFormat::Text {
            // A closed stdout is reported by the error that follows.
            let _ = emit(&result(json!({
                "session_id": self.session,
                "is_error": true,
                "error": failure.message,
                "kind": failure.kind,
                "usage": failure.usage.as_deref().copied().unwrap_or_default(),
                "cost_usd": failure.cost,
            })));
        }
        let error = CliError::user(&failure.message);
        // A session never written (a home that cannot be written, say) is not kept.
        if self.saved {
            error.hint(format!("the session is kept: hotl -r {}", self.session))
        } else {
            error
        }
    }

    /// Prints the outcome and picks the exit status.
    fn finish(&self, outcome: &TurnOutcome) -> Result<ExitCode, CliError> {
        match self.format {
            OutputFormat::Text => {
                let out = std::io::stdout().lock();
                // To a terminal, control sequences in the answer are shown, not sent; a pipe
                // gets the answer as it is.
                let mut out: Box<dyn Write> = if out.is_terminal() {
                    Box::new(hotl_text::Plain::new(out))
                } else {
                    Box::new(out)
                };
                writeln!(out, "{}", outcome.text)?;
                out.flush()?;
            }
            OutputFormat::Json | OutputFormat::StreamJson => emit(&result(json!({
                "session_id": self.session,
                "is_error": false,
                "result": outcome.text,
                "stop": outcome.stop,
                "cancelled": outcome.cancelled,
                "steps": outcome.steps,
                "usage": outcome.usage,
                "cost_usd": outcome.cost,
            })))?,
        }
        Ok(if outcome.cancelled {
            ExitCode::from(130)
        } else {
            ExitCode::SUCCESS
        })
    }
}

/// The `result` line: `{"type": "result", ...fields}`, `type` first as on every other line.
fn result(fields: serde_json::Value) -> String {
    let body = fields.to_string();
    match body.strip_prefix('{') {
        Some(rest) if rest != "}" => format!("{{\"type\":\"result\",{rest}"),
        _ => r#"{"type":"result"}"#.to_owned(),
    }
}

/// One JSON line on stdout, flushed (a reader may be waiting for it).
fn emit(line: &str) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{line}")?;
    out.flush()?;
    Ok(())
}
