//! One command, run: each kind is a function that returns what it gave ([`Outcome`]) or why it
//! failed, and [`Worker::run`] sends the one [`Done`] that ends it.

use std::sync::Arc;

use hotl_protocol::{
    Command, CommandId, Done, Event, Failure, FailureKind, Move, MoveResult, Outcome, Totals,
    TurnOutcome,
};

use super::worker::{Readiness, Worker};
use crate::context::Context;
use crate::error::{AgentError, Result};

impl Worker {
    /// Runs command `id` and sends its [`Done`].
    pub(super) async fn run(&mut self, id: CommandId, command: Command) {
        self.cx.events = self.cx.events.for_command(Some(id));
        self.take_title_if_ready();
        let name = command.name();
        let fenced = self.fenced();
        let done = match self.ready_for(&command).await {
            _ if let Some(why) = fenced.filter(|_| writes(&command)) => {
                Done::failed(failure(name, &AgentError::Refused(why), None))
            }
            Err(Readiness::Cancelled) => Done::failed(Failure::cancelled(name)),
            Err(Readiness::Failed(e)) => Done::failed(failure(name, &e, None)),
            Ok(()) => match command {
                Command::Submit { text } => self.submit(&text).await,
                Command::Recover => self.recover().await,
                command => match self.execute(command).await {
                    Ok(outcome) => Done::ok(outcome),
                    Err(failure) => Done::failed(failure),
                },
            },
        };
        self.events().send(Event::Done(done));
        self.written();
    }

    /// A turn on `text`: its `stop` hooks, the status, and the title asked after a first
    /// answer.
    async fn submit(&mut self, text: &str) -> Done {
        let cx = self.cx.clone();
        let mut before = None;
        let done = match self.session() {
            Ok(session) => {
                before = Some(session.totals);
                session.submit(text, &cx).await
            }
            Err(e) => Err(e),
        };
        self.stop_hooks(&done).await;
        self.send_status();
        match done {
            Ok(outcome) => {
                self.ask_title();
                Done::ok(Outcome::TurnEnded(outcome))
            }
            Err(e) => Done::failed(self.spent_failure("submit", &e, before)),
        }
    }

    /// Finishes a turn a dead process left open.
    async fn recover(&mut self) -> Done {
        let cx = self.cx.clone();
        let before = self.session.as_ref().map(|s| s.totals);
        let done = match self.session.as_mut() {
            Some(session) => session.recover(&cx).await,
            None => Ok(None),
        };
        match done {
            Ok(outcome) => {
                if outcome.is_some() {
                    self.send_status();
                }
                Done::ok(Outcome::Recovered { outcome })
            }
            Err(e) => {
                self.send_status();
                Done::failed(self.spent_failure("recover", &e, before))
            }
        }
    }

    /// Every other command.
    async fn execute(&mut self, command: Command) -> Result<Outcome, Failure> {
        let name = command.name();
        let fail = |e: AgentError| failure(name, &e, None);
        match command {
            Command::Move(step) => self.moved(step).await,
            Command::Rename { name } => self.rename(name).map_err(fail),
            Command::SetMode { mode } => self.set_mode(mode).map_err(fail),
            Command::Status => Ok(Outcome::Status(self.status())),
            Command::Switch(to) => self.switch(to).await.map_err(fail),
            Command::Clear => self.clear().map_err(fail),
            Command::SetEffort { effort } => self.set_effort(&effort).map_err(fail),
            Command::Models => match self.cx.provider.models().await {
                Ok(models) => Ok(Outcome::Models {
                    models,
                    current: self.cx.settings.model.clone(),
                }),
                Err(e) => Err(fail(e.into())),
            },
            Command::SetModel { model } => self.set_model(&model).map_err(fail),
            Command::Dump => {
                let (provider, settings) =
                    (self.cx.provider.clone(), Arc::clone(&self.cx.settings));
                let session = self.saved("dump").map_err(fail)?;
                Ok(Outcome::Dump(Box::new(session.dump(&provider, &settings))))
            }
            Command::Stats => {
                let settings = Arc::clone(&self.cx.settings);
                let session = self.saved("count").map_err(fail)?;
                crate::stats::session_stats(session.store(), session.id(), &settings.pricing)
                    .map(|stats| Outcome::Stats(Box::new(stats)))
                    .map_err(|e| fail(e.into()))
            }
            Command::Context => {
                let session = self.saved("measure").map_err(fail)?;
                Ok(Outcome::Context(session.context_parts()))
            }
            Command::Revert { before, scope } => {
                let session = self.saved("revert").map_err(&fail)?;
                let (to, text, files) = session.revert(before, scope).await.map_err(fail)?;
                self.send_status();
                Ok(Outcome::Reverted {
                    before,
                    to,
                    text,
                    scope,
                    files,
                })
            }
            Command::UndoRestore => {
                let session = self.saved("undo").map_err(&fail)?;
                let files = session.undo_restore().await.map_err(fail)?;
                self.send_status();
                Ok(Outcome::Undone { files })
            }
            Command::Fresh => self.fresh().map_err(fail),
            Command::Drop => self.drop_session().await.map_err(fail),
            // Submit and Recover run before this; Cancel and Approve in the control loop.
            _ => Err(Failure::new(
                name,
                FailureKind::Other,
                "this command is not run here",
            )),
        }
    }

    /// A move; dropped when cancelled (nothing is recorded until a move is done).
    async fn moved(&mut self, step: Move) -> Result<Outcome, Failure> {
        let name = step.name();
        let cx = self.cx.clone();
        let done = tokio::select! {
            done = self.run_move(step, &cx) => done,
            () = cx.cancelled() => return Err(Failure::cancelled(name)),
        };
        let result = done.map_err(|e| failure(name, &e, None))?;
        if !matches!(result, MoveResult::Recalled { .. }) {
            self.send_status();
        }
        Ok(Outcome::MoveEnded(result))
    }

    fn rename(&mut self, name: String) -> Result<Outcome> {
        match (self.session.as_mut(), self.pending.take()) {
            (Some(session), _) => session.set_name(&name)?,
            (None, Some(new)) => match new.clone().with_name(Some(&name)) {
                Ok(named) => self.pending = Some(named),
                Err(e) => {
                    self.pending = Some(new);
                    return Err(e);
                }
            },
            (None, None) => return Err(AgentError::NoSession),
        }
        Ok(Outcome::Renamed { name })
    }

    fn set_mode(&mut self, mode: hotl_protocol::Mode) -> Result<Outcome> {
        match (self.session.as_mut(), self.pending.take()) {
            (Some(session), _) => session.set_mode(mode)?,
            (None, pending) => self.pending = pending.map(|new| new.with_mode(mode)),
        }
        Arc::make_mut(&mut self.cx.settings).policy.mode = mode;
        Ok(Outcome::ModeChanged {
            mode: mode.name().to_owned(),
        })
    }

    fn set_effort(&mut self, effort: &str) -> Result<Outcome> {
        let effort = effort.trim().to_ascii_lowercase();
        if !matches!(effort.as_str(), "low" | "medium" | "high") {
            return Err(AgentError::Refused(format!(
                "unknown effort {effort:?}; use low, medium or high"
            )));
        }
        match (self.session.as_mut(), self.pending.take()) {
            (Some(session), _) => session.set_effort(&effort)?,
            (None, pending) => {
                self.pending = pending.map(|new| new.with_effort(Some(effort.clone())));
            }
        }
        let reasoning = self.cx.provider.reasoning_for(&effort);
        let settings = Arc::make_mut(&mut self.cx.settings);
        settings.reasoning = Some(reasoning);
        settings.effort = Some(effort.clone());
        self.send_status();
        Ok(Outcome::EffortChanged { effort })
    }

    fn set_model(&mut self, model: &str) -> Result<Outcome> {
        let model = model.trim().to_owned();
        if model.is_empty() {
            return Err(AgentError::Refused("which model?".to_owned()));
        }
        // Kept in the session, so a resume on the same provider answers with it too.
        let provider = self.cx.provider.identity();
        match (self.session.as_mut(), self.pending.take()) {
            (Some(session), _) => session.set_model(&model, &provider)?,
            (None, pending) => {
                self.pending = pending.map(|new| new.with_model(Some((model.clone(), provider))));
            }
        }
        let settings = Arc::make_mut(&mut self.cx.settings);
        let from = std::mem::replace(&mut settings.model, model.clone());
        if let Some(window) = crate::known_context_window(&model) {
            settings.context_window = window;
        }
        self.send_status();
        Ok(Outcome::ModelChanged { from, to: model })
    }

    /// The `stop` hooks after a turn: how it ended; a failure is told.
    async fn stop_hooks(&self, done: &Result<TurnOutcome>) {
        let Some(session) = &self.session else {
            return;
        };
        let event = match done {
            Ok(outcome) => serde_json::json!({
                "stop": outcome.stop.map(|s| s.name()),
                "cancelled": outcome.cancelled,
                "text": outcome.text,
            }),
            Err(e) => serde_json::json!({ "error": e.to_string() }),
        };
        let fired = crate::hooks::fire(
            &self.cx.settings,
            crate::hooks::HookPoint::Stop,
            None,
            session.id(),
            session.cwd(),
            event,
        )
        .await;
        if let Err(why) = fired {
            self.events().notice(format!("a stop hook failed: {why}"));
        }
    }

    /// A failed command's failure, with what it had spent since `before` (the session's
    /// totals when it started).
    fn spent_failure(&self, command: &str, error: &AgentError, before: Option<Totals>) -> Failure {
        let mut spent = TurnOutcome::default();
        if let (Some(before), Some(session)) = (before, &self.session) {
            spent.add_spent(&before, &session.totals);
        }
        failure(command, error, Some(spent))
    }

    async fn run_move(&mut self, step: Move, cx: &Context) -> Result<MoveResult> {
        let session = self.session.as_mut().ok_or(AgentError::NoSession)?;
        match step {
            Move::Fold { since, note } => {
                let since = since
                    .or_else(|| session.view().episode_start())
                    .ok_or_else(|| {
                        AgentError::Fold(
                            "nothing to fold: nothing since the last fold, compaction or clear; \
                         name the stamp it starts at"
                                .to_owned(),
                        )
                    })?;
                let note = match note {
                    Some(note) => {
                        crate::moves::check_note(&note).map_err(|why| {
                            AgentError::Fold(format!("the note was refused: {why}"))
                        })?;
                        note
                    }
                    None => session.write_note(since, cx).await?,
                };
                let fold = session.fold(since, None, &note).await?;
                Ok(MoveResult::Folded {
                    since: fold.since,
                    until: fold.until,
                    handle: fold.handle,
                    note: fold.note,
                    files: fold.files.into_iter().map(|f| f.path).collect(),
                })
            }
            Move::Compact { note } => {
                let until = match note {
                    Some(note) => session.record_compaction(note)?,
                    None => session.compact(cx).await?,
                };
                Ok(MoveResult::Compacted {
                    until,
                    handle: hotl_recall::compaction_handle(until),
                })
            }
            Move::Recall { query, mode, limit } => {
                let text = session
                    .recall(&query, mode.as_deref(), limit)
                    .await
                    .map_err(AgentError::Recall)?;
                Ok(MoveResult::Recalled { text })
            }
            Move::Ask { handle, question } => {
                let text = session.ask(&handle, &question, cx).await?;
                Ok(MoveResult::Answered { text })
            }
        }
    }
}

/// `error` as command `command`'s failure, with what it spent (`spent`: a turn's, when any).
fn failure(command: &str, error: &AgentError, spent: Option<TurnOutcome>) -> Failure {
    let (_, _, status) = error.failure();
    let mut failure = Failure::new(command, error.kind(), error.to_string());
    failure.status = status;
    if let Some(spent) = spent
        && spent.usage != hotl_wire::Usage::default()
    {
        failure.usage = Some(Box::new(spent.usage));
        failure.cost = spent.cost;
    }
    failure
}

/// Whether `command` writes the session (refused once another process took the tree over).
fn writes(command: &Command) -> bool {
    !matches!(
        command,
        Command::Cancel
            | Command::Approve { .. }
            | Command::Status
            | Command::Context
            | Command::Stats
            | Command::Dump
            | Command::Models
            | Command::Switch(_)
    )
}
