//! The turn loop: submitting a message, the model and tool steps until the model stops,
//! finishing a turn a dead process left open, and cancelling.

use hotl_log::{Block, Body, RunState, Todo};
use hotl_view::model_view;
use hotl_wire::{Event, Reply};
use tokio::sync::watch;

use super::calls::Call;
use super::compact::Need;
use super::{Progress, Session, Settings, TurnOutcome, Ui};
use crate::error::{AgentError, Result};
use crate::provider::Provider;
use crate::tool::ToolOutput;

/// The answer a tool call gets when the process died while it ran.
pub const INTERRUPTED: &str = "interrupted: may have partly run";

/// How many compactions one turn makes with at most one step since the previous one before
/// it stops compacting ahead of the window (a provider's refusal is still compacted).
const MAX_THRASHING_COMPACTIONS: usize = 3;

impl Session {
    /// Whether the last turn was left open by a process that died (or was killed) mid-turn.
    pub fn has_open_turn(&self) -> bool {
        self.open_run().is_some()
    }

    fn open_run(&self) -> Option<String> {
        match &self.last_run {
            Some((run, RunState::Started)) => Some(run.clone()),
            _ => None,
        }
    }

    /// Finishes a turn a dead process left open: open tool calls are answered
    /// "interrupted: may have partly run", then the model is asked again. Does nothing when no
    /// turn is open.
    pub async fn recover(
        &mut self,
        provider: &Provider,
        settings: &Settings,
        ui: &mut dyn Ui,
        cancel: watch::Receiver<bool>,
    ) -> Result<Option<TurnOutcome>> {
        let Some(run) = self.open_run() else {
            return Ok(None);
        };
        ui.progress(Progress::Notice(
            "finishing the turn the last process left open",
        ));
        // The log says where the process died; the run goes on under the same id, started
        // again, so a recovery that dies too leaves it open for the next.
        self.append_all(vec![
            Body::Run {
                run: run.clone(),
                state: RunState::Interrupted,
            },
            Body::Run {
                run: run.clone(),
                state: RunState::Started,
            },
        ])?;
        self.resume_forks(provider, settings, ui, cancel.clone())
            .await?;
        self.answer_open_calls(INTERRUPTED)?;
        let outcome = self.steps(&run, provider, settings, ui, cancel).await?;
        Ok(Some(outcome))
    }

    /// Runs one turn: the user's message, then model calls and tools until the model stops.
    pub async fn submit(
        &mut self,
        prompt: &str,
        provider: &Provider,
        settings: &Settings,
        ui: &mut dyn Ui,
        cancel: watch::Receiver<bool>,
    ) -> Result<TurnOutcome> {
        if !self.cwd.is_dir() {
            return Err(AgentError::MissingCwd(self.cwd.display().to_string()));
        }
        // Calls left open (a fork of a session cut mid-turn, a crash nobody recovered) are
        // answered first, so the log stays valid for every provider. No model call is spent
        // finishing that old turn.
        self.answer_open_calls(INTERRUPTED)?;
        self.active_reminder = self.reminder.take();
        self.tree_is_current = false;
        self.snapshots.start(&self.cwd, &self.store.blobs());
        let run = hotl_log::new_session_id();
        let before = self.view.head_seq;
        self.window_full = false;
        self.append_all(vec![
            Body::Run {
                run: run.clone(),
                state: RunState::Started,
            },
            Body::user_text(prompt),
        ])?;
        let outcome = self.steps(&run, provider, settings, ui, cancel).await;
        if outcome.is_err() && self.window_full && !self.answered_since(before) {
            // The message itself does not fit beside what compaction keeps. Left in the
            // conversation, it would ride with every later message (they merge) and refuse
            // them all: the turn is taken back (the log keeps it).
            self.append(Body::Revert { to: before })?;
            ui.progress(Progress::Notice(
                "the message does not fit the model's context window even with the rest \
                 compacted; it is taken back from the conversation (the log keeps it): \
                 shorten it, or attach less",
            ));
        }
        outcome
    }

    /// Whether the model answered anything after seq `after`, compacted answers included.
    fn answered_since(&self, after: u64) -> bool {
        fn any(items: &[hotl_view::Item], after: u64) -> bool {
            items.iter().any(|i| match i {
                hotl_view::Item::Assistant { seq, .. } => *seq > after,
                hotl_view::Item::Folded { items, .. }
                | hotl_view::Item::Compacted { items, .. } => any(items, after),
                _ => false,
            })
        }
        any(&self.view.items, after)
    }

    pub(super) async fn steps(
        &mut self,
        run: &str,
        provider: &Provider,
        settings: &Settings,
        ui: &mut dyn Ui,
        mut cancel: watch::Receiver<bool>,
    ) -> Result<TurnOutcome> {
        let mut outcome = TurnOutcome::default();
        // One failed compaction is enough for a turn: the requests may still fit.
        let mut may_compact = true;
        // A request the provider refuses as too long is compacted once and sent again; again
        // only after an answer (the turn moved on).
        let mut may_shrink = true;
        // A turn that needs a compaction after every step has a window too small for its
        // work: compacting ahead of the window only costs notes then.
        let mut thrashing = 0;
        let mut steps_since_compaction: Option<usize> = None;
        loop {
            if outcome.steps >= settings.max_steps {
                self.close_run(run, RunState::Interrupted)?;
                return Err(AgentError::TooManySteps(settings.max_steps));
            }
            outcome.steps += 1;
            match self.needs_compaction(settings) {
                Need::Yes if may_compact => {
                    let Some(compacted) = self
                        .compact_unless_cancelled(
                            None,
                            provider,
                            settings,
                            ui,
                            &mut cancel,
                            &mut outcome,
                        )
                        .await
                    else {
                        return self.cancel_turn(run, outcome);
                    };
                    match compacted {
                        Ok(_) => {
                            if steps_since_compaction.is_some_and(|s| s <= 1) {
                                thrashing += 1;
                            }
                            steps_since_compaction = Some(0);
                            if thrashing >= MAX_THRASHING_COMPACTIONS {
                                may_compact = false;
                                ui.progress(Progress::Notice(
                                    "compacting after every step: the window is too small for \
                                     this work; from now on only a request the provider refuses \
                                     is compacted (fold finished episodes, or set \
                                     context_window)",
                                ));
                            }
                        }
                        Err(e) => {
                            may_compact = false;
                            ui.progress(Progress::Notice(&format!(
                                "{e}; going on without compacting"
                            )));
                        }
                    }
                }
                Need::Futile(floor) if may_compact => {
                    may_compact = false;
                    ui.progress(Progress::Notice(&format!(
                        "the context stays near the window even compacted (about {floor} \
                         tokens right after the last compaction: the system prompt, tools and \
                         the user's messages it keeps); fold, clear or fork with --keep-turns"
                    )));
                }
                _ => {}
            }
            let reply = tokio::select! {
                reply = self.ask_model(provider, settings, ui) => reply,
                _ = cancelled(&mut cancel) => return self.cancel_turn(run, outcome),
            };
            let reply = match reply {
                Ok(reply) => {
                    may_shrink = true;
                    steps_since_compaction = steps_since_compaction.map(|s| s + 1);
                    reply
                }
                Err(AgentError::Wire(e)) if may_shrink && e.context_overflow().is_some() => {
                    may_shrink = false;
                    let overflow = e.context_overflow().unwrap_or_default();
                    let Some(compacted) = self
                        .compact_unless_cancelled(
                            Some(overflow),
                            provider,
                            settings,
                            ui,
                            &mut cancel,
                            &mut outcome,
                        )
                        .await
                    else {
                        return self.cancel_turn(run, outcome);
                    };
                    match compacted {
                        Ok(_) => {
                            // The same step, asked again from the note.
                            steps_since_compaction = Some(0);
                            outcome.steps -= 1;
                            continue;
                        }
                        Err(why) => {
                            self.window_full = matches!(why, AgentError::WindowFull(_));
                            ui.progress(Progress::Notice(&format!("{why}")));
                            self.close_run(run, RunState::Interrupted)?;
                            return Err(AgentError::Wire(e));
                        }
                    }
                }
                Err(AgentError::Wire(hotl_wire::WireError::Interrupted { partial, cause })) => {
                    // Keep what was said; calls that never finished are not run.
                    let text: Vec<Block> = partial
                        .content
                        .into_iter()
                        .filter(|b| matches!(b, Block::Text { .. }))
                        .collect();
                    if !text.is_empty() {
                        self.append(Body::Assistant {
                            content: text,
                            model: partial.model,
                            stop: Some("interrupted".to_owned()),
                            usage: Some(partial.usage.to_log()),
                        })?;
                    }
                    self.close_run(run, RunState::Interrupted)?;
                    return Err(AgentError::Wire(*cause));
                }
                Err(e) => {
                    // Refused as too long again right after a compaction: what it keeps fills
                    // the window.
                    self.window_full =
                        matches!(&e, AgentError::Wire(w) if w.context_overflow().is_some());
                    self.close_run(run, RunState::Interrupted)?;
                    return Err(e);
                }
            };
            self.count(settings, &reply, &mut outcome);
            let stop = reply.stop;
            outcome.stop = stop;
            outcome.text = reply
                .content
                .iter()
                .filter_map(Block::as_text)
                .collect::<Vec<_>>()
                .join("");
            let calls: Vec<Call> = reply
                .tool_calls()
                .map(|(id, name, input)| Call {
                    id: id.to_owned(),
                    name: name.to_owned(),
                    input: input.clone(),
                })
                .collect();
            let bad: Vec<(String, String)> = reply
                .bad_calls
                .iter()
                .map(|b| (b.id.clone(), b.arguments.clone()))
                .collect();
            let answer = Body::Assistant {
                content: reply.content,
                model: reply.model.or_else(|| Some(settings.model.clone())),
                stop: reply.raw_stop,
                usage: Some(reply.usage.to_log()),
            };
            if calls.is_empty() {
                self.append_all(vec![
                    answer,
                    Body::Run {
                        run: run.to_owned(),
                        state: RunState::Finished,
                    },
                ])?;
                self.active_reminder = None;
                return Ok(outcome);
            }
            self.append(answer)?;
            // Forks start from the view with every other call of this step answered.
            let mut calls = calls;
            calls.sort_by_key(|call| call.name == "fork");
            let changes_files = calls.iter().any(|call| self.changes_files(&call.name));
            // The tree before this step's tools run (the one started with the turn, when there
            // is one), unless a snapshot this turn already shows it: the user may have changed
            // files since the last one.
            if changes_files && !self.tree_is_current {
                match self.snapshots.started() {
                    Some(tree) => self.record_tree(tree)?,
                    None => self.snapshot()?,
                }
            }
            // What tools spend on the model (a fork's child, an ask) counts in this turn.
            let spent_before = self.totals;
            for call in calls {
                let id = call.id.clone();
                let output = if let Some((_, args)) = bad.iter().find(|(b, _)| *b == id) {
                    ToolOutput::error(format!(
                        "the arguments of this call are not valid JSON, so it did not run: {args}"
                    ))
                } else if call.name == "fork" {
                    // A fork stops itself when cancelled (its own log closed cleanly), then
                    // this turn stops.
                    let fork_cancel = cancel.clone();
                    let output = self
                        .call_tool(&call, provider, settings, ui, &fork_cancel)
                        .await;
                    if *cancel.borrow() {
                        self.record_result(&id, output)?;
                        outcome.add_spent(&spent_before, &self.totals);
                        return self.cancel_turn(run, outcome);
                    }
                    output
                } else {
                    let quiet = cancel.clone();
                    tokio::select! {
                        output = self.call_tool(&call, provider, settings, ui, &quiet) => output,
                        _ = cancelled(&mut cancel) => {
                            outcome.add_spent(&spent_before, &self.totals);
                            return self.cancel_turn(run, outcome);
                        }
                    }
                };
                self.record_result(&id, output)?;
            }
            outcome.add_spent(&spent_before, &self.totals);
            if changes_files {
                self.snapshot()?;
            }
        }
    }

    /// Compacts (after the provider's refusal `overflow`, or ahead of the window), unless the
    /// user cancels first (`None`); what it spent counts in `outcome` either way.
    async fn compact_unless_cancelled(
        &mut self,
        overflow: Option<hotl_wire::Overflow>,
        provider: &Provider,
        settings: &Settings,
        ui: &mut dyn Ui,
        cancel: &mut watch::Receiver<bool>,
        outcome: &mut TurnOutcome,
    ) -> Option<Result<u64>> {
        let before = self.totals;
        let done = tokio::select! {
            done = async {
                match overflow {
                    Some(overflow) => {
                        self.compact_overflowed(overflow, provider, settings, ui).await
                    }
                    None => self.compact(provider, settings, ui).await,
                }
            } => Some(done),
            _ = cancelled(cancel) => None,
        };
        outcome.add_spent(&before, &self.totals);
        done
    }

    async fn ask_model(
        &mut self,
        provider: &Provider,
        settings: &Settings,
        ui: &mut dyn Ui,
    ) -> Result<Reply> {
        let view = &self.view;
        let mut request = self.base_request(model_view(view), settings);
        request.reuse_key = Some(format!(
            "{}/{}/{}",
            self.writer.id(),
            self.epoch,
            view.model_after
        ));
        if !view.state.todos.is_empty() {
            request.dynamic.push(todo_reminder(&view.state.todos));
        }
        if let Some(reminder) = &self.active_reminder {
            request.dynamic.push(reminder.clone());
        }
        let cue = self.cue.take();
        if let Some(cue) = &cue {
            request.dynamic.push(cue.clone());
        }
        let started = std::time::Instant::now();
        let (reply, encoding) = provider
            .send_timed(&request, &mut |e: &Event| ui.progress(Progress::Model(e)))
            .await;
        drop(request);
        let waited = started.elapsed().saturating_sub(encoding);
        self.totals.model_time += waited;
        if reply.is_err() {
            // Not delivered: the request that goes next carries it.
            self.cue = cue;
        }
        Ok(reply?)
    }

    fn cancel_turn(&mut self, run: &str, mut outcome: TurnOutcome) -> Result<TurnOutcome> {
        self.answer_open_calls("cancelled by the user before it finished; it may have partly run")?;
        self.close_run(run, RunState::Cancelled)?;
        outcome.cancelled = true;
        Ok(outcome)
    }

    fn close_run(&mut self, run: &str, state: RunState) -> Result<()> {
        self.append(Body::Run {
            run: run.to_owned(),
            state,
        })
    }
}

fn todo_reminder(todos: &[Todo]) -> String {
    let mut out = String::from("<todos>\n");
    for t in todos {
        out.push_str(&format!("[{}] {}\n", t.status, t.text));
    }
    out.push_str("</todos>");
    out
}

async fn cancelled(cancel: &mut watch::Receiver<bool>) {
    loop {
        if *cancel.borrow() {
            return;
        }
        if cancel.changed().await.is_err() {
            // Nobody can cancel any more.
            std::future::pending::<()>().await;
        }
    }
}
