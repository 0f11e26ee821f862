//! A turn: a user message (or a recovery), then steps until the model stops. Each step reads
//! as ask → record → run calls; what only lasts the turn (the compaction rules, the fold
//! reminder, the file-touch cue, whether the tree was just snapshotted) lives in [`Turn`] and
//! ends with it.

use hotl_log::{Block, Body, RunState, Todo};
use hotl_view::model_view;
use hotl_wire::{Overflow, Reply, StopReason, WireError};

use super::calls::Call;
use super::loops::{LoopGuard, Verdict, not_run, nudge};
use super::rules::{Ahead, Rules};
use super::{Session, TurnOutcome};
use crate::context::Context;
use crate::error::{AgentError, Result};
use hotl_protocol::Event;

/// The answer a tool call gets when the process died while it ran.
pub const INTERRUPTED: &str = "interrupted: may have partly run";

/// What a call cut short by the user is answered.
const CANCELLED: &str = "cancelled by the user before it finished; it may have partly run";

/// One turn in progress.
pub(crate) struct Turn<'c> {
    cx: &'c Context,
    /// The run id its `run` records carry.
    run: String,
    rules: Rules,
    /// The open items of the fold made before this turn, reminded in each of its requests.
    reminder: Option<String>,
    /// A one-line cue for the next request: a tool touched a file an archived thread touched.
    cue: Option<String>,
    /// The provider refused a request as too long and compacting could not make room
    /// (nothing left to compact, or what compaction keeps fills the window).
    window_full: bool,
    /// Whether a snapshot taken in this turn still shows the tree (no user edits since).
    tree_is_current: bool,
    /// The output limit the latest request asked.
    output_limit: u32,
    /// The run of identical calls the turn is in.
    loops: LoopGuard,
    /// The model repeated one call until the guard stopped the turn: the call and how often.
    looping: Option<(String, usize)>,
    /// The text of the answer being streamed: kept when the user cancels mid-answer.
    said: String,
    outcome: TurnOutcome,
}

/// How asking the model went.
enum Asked {
    Reply(Reply),
    /// Refused as too long and compacted: the same step is asked again.
    Again,
    Cancelled,
}

impl<'c> Turn<'c> {
    /// A turn of run `run`, reminding `reminder` in each request.
    pub(crate) fn new(run: String, cx: &'c Context, reminder: Option<String>) -> Turn<'c> {
        Turn {
            cx,
            run,
            rules: Rules::default(),
            reminder,
            cue: None,
            window_full: false,
            tree_is_current: false,
            output_limit: 0,
            loops: LoopGuard::default(),
            looping: None,
            said: String::new(),
            outcome: TurnOutcome::default(),
        }
    }

    /// Steps until the model stops, the turn is cancelled, or it fails (its run closed
    /// `interrupted`, an `error` record saying why, its log valid).
    pub(crate) async fn run(&mut self, s: &mut Session) -> Result<TurnOutcome> {
        let done = self.steps(s).await;
        if let Err(e) = &done {
            s.record_failure(e);
        }
        done
    }

    async fn steps(&mut self, s: &mut Session) -> Result<TurnOutcome> {
        let settings = &self.cx.settings;
        loop {
            if self.outcome.steps >= settings.max_steps {
                self.close(s, RunState::Interrupted)?;
                return Err(AgentError::TooManySteps(settings.max_steps));
            }
            self.outcome.steps += 1;
            // Background children that ended since the last step: their reports join the
            // request (a step boundary, so nothing is inserted).
            s.deliver_finished()?;
            if !self.compact_ahead(s).await? {
                return self.cancel(s);
            }
            let reply = match self.ask(s).await? {
                Asked::Reply(reply) => reply,
                Asked::Again => {
                    self.outcome.steps -= 1;
                    continue;
                }
                Asked::Cancelled => return self.cancel(s),
            };
            let calls = self.record(s, reply)?;
            if calls.is_empty() {
                let names: Vec<String> = s.tools.names().into_iter().map(str::to_owned).collect();
                if let Some(what) = super::unparsed::unparsed_call(&self.outcome.text, &names) {
                    self.cx.notice(format!(
                        "the answer looks like a tool call written as text ({what}): the \
                         server's chat template did not parse it as a call, so nothing ran; \
                         check the server's chat template (llama.cpp: --jinja with a template \
                         that has a tools section)"
                    ));
                }
                return Ok(std::mem::take(&mut self.outcome));
            }
            if !self.run_calls(s, calls).await? {
                return self.cancel(s);
            }
            if let Some((tool, times)) = self.looping.take() {
                self.close(s, RunState::Interrupted)?;
                return Err(AgentError::Looping { tool, times });
            }
            self.cx.events.send(Event::Status(s.status(settings)));
        }
    }

    /// Compacts ahead of the window when the rules say so; `false` when cancelled meanwhile.
    /// A request that compacting could not bring under twice the window is not sent: the
    /// provider must refuse it, so the turn ends naming what fills the window.
    async fn compact_ahead(&mut self, s: &mut Session) -> Result<bool> {
        match self
            .rules
            .before_request(s.needs_compaction(&self.cx.settings))
        {
            Ahead::Send => {}
            Ahead::Compact => match self.compact(s, None).await {
                None => return Ok(false),
                Some(Ok(_)) => {
                    if self.rules.compacted() {
                        self.cx.notice(
                            "compacting after every step: the window is too small for this \
                             work; from now on only a request the provider refuses is compacted \
                             (fold finished episodes, or set context_window)",
                        );
                    }
                }
                Some(Err(e)) => {
                    self.rules.failed();
                    let window = self.cx.settings.context_window;
                    let used = s.context_used();
                    if used >= 2 * window {
                        self.cx.notice(e.to_string());
                        self.close(s, RunState::Interrupted)?;
                        return Err(too_long(
                            s,
                            format!(
                                "the request would be ~{} tokens, about {}× the model's                                  {window}-token window, so it was not sent",
                                hotl_text::thousands(used),
                                used / window
                            ),
                        ));
                    }
                    self.cx.notice(format!("{e}; going on without compacting"));
                }
            },
            Ahead::Futile(floor) => self.cx.notice(format!(
                "the context stays near the window even compacted (about {floor} tokens right \
                 after the last compaction: the system prompt, tools and the user's messages it \
                 keeps); fold, clear or fork with --keep-turns"
            )),
        }
        Ok(true)
    }

    /// Asks the model for the next step. A refusal for length is compacted and asked again
    /// once; a stream cut after output began keeps what was said.
    async fn ask(&mut self, s: &mut Session) -> Result<Asked> {
        let cx = self.cx;
        let reply = tokio::select! {
            reply = self.request(s) => reply,
            () = cx.cancelled() => {
                self.keep_what_was_said(s)?;
                return Ok(Asked::Cancelled);
            }
        };
        let e = match reply {
            Ok(reply) => {
                self.rules.answered();
                return Ok(Asked::Reply(reply));
            }
            Err(e) => e,
        };
        if let AgentError::Wire(e) = &e
            && let Some(overflow) = e.context_overflow()
            && let Some(too_large) = s.prompt_too_large(overflow)
        {
            self.close(s, RunState::Interrupted)?;
            return Err(too_large);
        }
        match e {
            AgentError::Wire(e) if e.context_overflow().is_some() && self.rules.refused() => {
                let overflow = e.context_overflow().unwrap_or_default();
                match self.compact(s, Some(overflow)).await {
                    None => Ok(Asked::Cancelled),
                    Some(Ok(_)) => {
                        self.rules.compacted_after_refusal();
                        Ok(Asked::Again)
                    }
                    Some(Err(why)) => {
                        self.window_full = matches!(why, AgentError::WindowFull(_));
                        cx.notice(why.to_string());
                        self.close(s, RunState::Interrupted)?;
                        // A window too full to compact was named with its largest item in the
                        // notice; a compaction that failed otherwise (a refused note) is not.
                        if self.window_full {
                            Err(AgentError::Wire(e))
                        } else {
                            Err(too_long(s, e.to_string()))
                        }
                    }
                }
            }
            AgentError::Wire(WireError::Interrupted { partial, cause }) => {
                // Keep what was said; calls that never finished are not run.
                let text: Vec<Block> = partial
                    .content
                    .into_iter()
                    .filter(|b| matches!(b, Block::Text { .. }))
                    .collect();
                if !text.is_empty() {
                    s.append(Body::Assistant {
                        content: text,
                        model: partial.model,
                        stop: Some("interrupted".to_owned()),
                        stop_raw: partial.raw_stop,
                        usage: Some(partial.usage.to_log()),
                    })?;
                }
                self.close(s, RunState::Interrupted)?;
                Err(AgentError::BrokeMidAnswer(*cause))
            }
            e => {
                // Refused as too long again right after a compaction: what it keeps fills the
                // window.
                self.window_full =
                    matches!(&e, AgentError::Wire(w) if w.context_overflow().is_some());
                self.close(s, RunState::Interrupted)?;
                if self.window_full {
                    // Compacting did not make room (or could not run): what fills the window
                    // and the ways out, not the provider's words alone.
                    return Err(too_long(s, e.to_string()));
                }
                Err(e)
            }
        }
    }

    /// Records the text of an answer the user cancelled mid-stream, marked `cancelled`: what
    /// the user saw stays in the transcript, and the model sees it next time.
    fn keep_what_was_said(&mut self, s: &mut Session) -> Result<()> {
        let said = std::mem::take(&mut self.said);
        if said.trim().is_empty() {
            return Ok(());
        }
        s.append(Body::Assistant {
            content: vec![Block::text(said)],
            model: Some(self.cx.settings.model.clone()),
            stop: Some("cancelled".to_owned()),
            stop_raw: None,
            usage: None,
        })
    }

    /// One request from the view, with what rides after the last breakpoint (the todo list,
    /// the fold reminder, the file-touch cue), streamed to the front end.
    async fn request(&mut self, s: &mut Session) -> Result<Reply> {
        let (cx, view) = (self.cx, &s.view);
        let messages = model_view(view);
        if messages.is_empty() {
            // Providers answer an empty conversation with a 400 that says nothing useful.
            let why = if s.problems.is_empty() {
                "nothing since the latest clear".to_owned()
            } else {
                s.problems.join("; ")
            };
            return Err(AgentError::EmptyConversation(why));
        }
        let window = cx.settings.context_window;
        if window > 0 && s.fixed_tokens() > window {
            // Nothing could fit: say why rather than send what the server must refuse.
            return Err(AgentError::PromptTooLarge {
                tokens: s.fixed_tokens(),
                window,
            });
        }
        let mut request = s.conversation_request(messages, &cx.settings);
        self.output_limit = request.max_tokens;
        request.reuse_key = Some(format!("{}/{}/{}", s.id(), s.epoch, view.model_after));
        if let Some(reminder) = &self.reminder {
            request.dynamic.push(reminder.clone());
        }
        let cue = self.cue.take();
        if let Some(cue) = &cue {
            request.dynamic.push(cue.clone());
        }
        let started = std::time::Instant::now();
        self.said.clear();
        let said = &mut self.said;
        let (reply, encoding) = cx
            .provider
            .send_timed(&request, &mut |e| {
                if let hotl_wire::Event::TextDelta { text } = e {
                    said.push_str(text);
                }
                cx.events.send(Event::Model { event: e.clone() });
            })
            .await;
        drop(request);
        s.totals.model_time += started.elapsed().saturating_sub(encoding);
        if reply.is_err() {
            // Not delivered: the request that goes next carries it.
            self.cue = cue;
        }
        Ok(reply?)
    }

    /// Records the model's answer and returns its calls; with none, the turn is finished.
    fn record(&mut self, s: &mut Session, reply: Reply) -> Result<Vec<Call>> {
        let settings = &self.cx.settings;
        s.count(settings, &reply, &mut self.outcome);
        self.outcome.stop = reply.stop;
        // An answer that did not end as an answer should says so in every front end.
        let raw = reply.raw_stop.as_deref().unwrap_or("");
        match reply.stop {
            Some(StopReason::Refused) => self.cx.notice(format!(
                "the model refused to answer (stop reason {raw}); the refusal is recorded"
            )),
            Some(StopReason::Truncated) => self.cx.notice(format!(
                "the answer was cut off at the output limit ({} tokens, stop reason {raw}){}; \
                 ask to go on, or raise the limit (--max-tokens)",
                self.output_limit,
                if reply.bad_calls.is_empty() {
                    ""
                } else {
                    ": a tool call in it was cut off too and did not run"
                }
            )),
            _ => {}
        }
        self.outcome.text = reply
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
                bad_json: reply
                    .bad_calls
                    .iter()
                    .find(|b| b.id == id)
                    .map(|b| b.arguments.clone()),
                cut: reply.stop == Some(StopReason::Truncated),
            })
            .collect();
        let answer = Body::Assistant {
            content: reply.content,
            model: reply.model.or_else(|| Some(settings.model.clone())),
            stop: reply.stop.map(|s| s.name().to_owned()),
            stop_raw: reply.raw_stop,
            usage: Some(reply.usage.to_log()),
        };
        if calls.is_empty() {
            s.append_all(vec![
                answer,
                Body::Run {
                    run: self.run.clone(),
                    state: RunState::Finished,
                },
            ])?;
        } else {
            s.append(answer)?;
        }
        Ok(calls)
    }

    /// Runs a step's calls and records their results, with the working tree snapshotted
    /// around them when they may change files; `false` when the user cancelled.
    async fn run_calls(&mut self, s: &mut Session, calls: Vec<Call>) -> Result<bool> {
        let cx = self.cx;
        // Calls that delegate run last, side by side: each child starts from the view with
        // the step's other calls answered.
        let (alone, together): (Vec<Call>, Vec<Call>) = calls
            .into_iter()
            .partition(|call| !s.tool(&call.name).is_some_and(|t| t.delegates()));
        let changes_files = alone
            .iter()
            .chain(&together)
            .any(|call| s.changes_files(&call.name));
        // The tree before this step's tools run (the one started with the turn, when there is
        // one), unless a snapshot this turn already shows it: the user may have changed files
        // since the last one.
        if changes_files && !self.tree_is_current {
            self.tree_is_current = match s.tree.snapshots.started().await {
                Some(tree) => s.record_tree(tree)?,
                None => s.snapshot().await?,
            };
        }
        // What tools spend on the model (a fork's child, an ask) counts in this turn.
        let spent_before = s.totals;
        for group in alongside_groups(s, alone) {
            if let [call] = group.as_slice()
                && self.repeats_a_change(s, call)?
            {
                continue;
            }
            let outputs = tokio::select! {
                outputs = run_group(s, &group, cx) => outputs,
                () = cx.cancelled() => {
                    self.outcome.add_spent(&spent_before, &s.totals);
                    return Ok(false);
                }
            };
            for (call, output) in group.iter().zip(outputs) {
                self.note_result(s, call, output)?;
            }
        }
        if !together.is_empty() {
            // Each child stops itself when cancelled (closing its own log); then this turn
            // stops, their calls answered.
            let outputs = s.call_together(&together, cx).await;
            for (call, output) in together.iter().zip(outputs) {
                self.note_result(s, call, output)?;
            }
            if cx.is_cancelled() {
                self.outcome.add_spent(&spent_before, &s.totals);
                return Ok(false);
            }
        }
        self.outcome.add_spent(&spent_before, &s.totals);
        if changes_files {
            self.tree_is_current = s.snapshot().await?;
        }
        Ok(true)
    }

    /// Whether `call`, which may change something, repeats the run of identical calls far
    /// enough that it is answered without running (recorded here).
    fn repeats_a_change(&mut self, s: &mut Session, call: &Call) -> Result<bool> {
        let changes = s
            .tool(&call.name)
            .is_some_and(|t| !t.reads_only() && !t.delegates());
        if !changes || call.bad_json.is_some() {
            return Ok(false);
        }
        let Some(verdict) = self.loops.before(&call.name, call.input.get()) else {
            return Ok(false);
        };
        let output = match verdict {
            Verdict::Nudge { first, times } => {
                hotl_tool::ToolOutput::ok(not_run(&call.name, first, times, false))
            }
            Verdict::Stop { first, times } => {
                self.looping = Some((call.name.clone(), times));
                hotl_tool::ToolOutput::error(not_run(&call.name, first, times, true))
            }
            Verdict::Record => return Ok(false),
        };
        super::calls::told_use(call, self.cx);
        super::calls::told_result(call, &output, self.cx);
        s.record_output(&call.id, output)?;
        Ok(true)
    }

    /// Records a call's result, and the cue it earns; a call repeated with the same
    /// arguments and result is answered with where its result already is.
    fn note_result(
        &mut self,
        s: &mut Session,
        call: &Call,
        mut output: hotl_tool::ToolOutput,
    ) -> Result<()> {
        if let Some(cue) = s.cue_for(&output) {
            self.cue = Some(cue);
        }
        match self.loops.note(&call.name, call.input.get(), &output) {
            Verdict::Record => {}
            Verdict::Nudge { first, times } => {
                output = hotl_tool::ToolOutput::ok(nudge(&call.name, first, times, false));
            }
            Verdict::Stop { first, times } => {
                output = hotl_tool::ToolOutput::error(nudge(&call.name, first, times, true));
                self.looping = Some((call.name.clone(), times));
            }
        }
        // Never more than a share of what the window leaves (the rest in a blob).
        let output = s.fit_to_window(output, self.cx);
        // The front end is told what the model is given.
        super::calls::told_result(call, &output, self.cx);
        s.record_output(&call.id, output)?;
        self.loops.recorded_at(s.view.head_seq);
        Ok(())
    }

    /// Compacts (after the provider's refusal `overflow`, or ahead of the window), unless the
    /// user cancels first (`None`); what it spent counts in the turn either way.
    async fn compact(
        &mut self,
        s: &mut Session,
        overflow: Option<Overflow>,
    ) -> Option<Result<u64>> {
        let cx = self.cx;
        let before = s.totals;
        let done = tokio::select! {
            done = async {
                match overflow {
                    Some(overflow) => s.compact_overflowed(overflow, cx).await,
                    None => s.compact(cx).await,
                }
            } => Some(done),
            () = cx.cancelled() => None,
        };
        self.outcome.add_spent(&before, &s.totals);
        done
    }

    /// Ends the turn as the user cancelled it: open calls answered, the run closed.
    fn cancel(&mut self, s: &mut Session) -> Result<TurnOutcome> {
        s.answer_open_calls(CANCELLED, self.cx)?;
        self.close(s, RunState::Cancelled)?;
        let mut outcome = std::mem::take(&mut self.outcome);
        outcome.cancelled = true;
        Ok(outcome)
    }

    fn close(&self, s: &mut Session, state: RunState) -> Result<()> {
        s.append(Body::Run {
            run: self.run.clone(),
            state,
        })
    }
}

impl Session {
    /// The error for a refusal as too long that no compaction can help: the system prompt and
    /// tools alone are over the window (the request's count less the messages').
    fn prompt_too_large(&self, overflow: hotl_wire::Overflow) -> Option<AgentError> {
        let (tokens, window) = (overflow.tokens?, overflow.window?);
        let messages = super::requests::message_bytes(&model_view(&self.view)) as u64 / 4;
        let fixed = tokens.saturating_sub(messages).max(self.fixed_tokens());
        (fixed >= window).then_some(AgentError::PromptTooLarge {
            tokens: fixed,
            window,
        })
    }

    /// Records why a turn failed, so the log (and `sessions show`) says it. Best effort: a
    /// store that cannot take it (a full disk) is what failed in the first place.
    fn record_failure(&mut self, e: &AgentError) {
        let (error, message, status) = e.failure();
        let recorded = self.append(Body::Error {
            error,
            message,
            status,
        });
        if let Err(also) = recorded {
            tracing::warn!("why a turn failed is not recorded: {also}");
        }
    }

    /// Whether the last turn was left open by a process that died (or was killed) mid-turn.
    pub fn has_open_turn(&self) -> bool {
        self.open_run().is_some()
    }

    /// The run a dead process left open, if any.
    pub(super) fn open_run_id(&self) -> Option<String> {
        self.open_run()
    }

    fn open_run(&self) -> Option<String> {
        match &self.last_run {
            Some((run, RunState::Started)) => Some(run.clone()),
            _ => None,
        }
    }

    /// Finishes a turn a dead process left open: calls it left running are finished where
    /// their tool can (a fork resumes its child), the rest answered "interrupted: may have
    /// partly run", then the model is asked again. `None` when no turn is open.
    pub async fn recover(&mut self, cx: &Context) -> Result<Option<TurnOutcome>> {
        let Some(run) = self.open_run() else {
            return Ok(None);
        };
        cx.notice("finishing the turn the last process left open");
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
        self.resume_open_calls(cx).await?;
        self.answer_open_calls(INTERRUPTED, cx)?;
        self.turns_run += 1;
        let mut turn = Turn::new(run, cx, None);
        Ok(Some(turn.run(self).await?))
    }

    /// Runs one turn: the user's message, then model calls and tools until the model stops.
    pub async fn submit(&mut self, prompt: &str, cx: &Context) -> Result<TurnOutcome> {
        if !self.cwd.is_dir() {
            return Err(AgentError::MissingCwd(self.cwd.display().to_string()));
        }
        // Calls left open (a fork of a session cut mid-turn, a crash nobody recovered) are
        // answered first, so the log stays valid for every provider. No model call is spent
        // finishing that old turn.
        self.answer_open_calls(INTERRUPTED, cx)?;
        self.tree.snapshots.start(&self.cwd, &self.store.blobs());
        let run = hotl_log::new_session_id();
        let before = self.view.head_seq;
        self.append_all(vec![
            Body::Run {
                run: run.clone(),
                state: RunState::Started,
            },
            Body::user_text(prompt),
        ])?;
        self.turns_run += 1;
        let mut turn = Turn::new(run, cx, self.next_reminder.take());
        let mut outcome = turn.run(self).await;
        // A run that ends with its work (headless) waits for its background children, then
        // lets the model take one more step with their reports.
        if cx.settings.wait_background
            && outcome.as_ref().is_ok_and(|o| !o.cancelled)
            && (self.background().running() > 0 || self.background().has_done())
        {
            let waited = tokio::select! {
                n = self.wait_background() => Some(n),
                () = cx.cancelled() => None,
            };
            if let Some(n) = waited
                && n? > 0
            {
                let run = hotl_log::new_session_id();
                self.append(Body::Run {
                    run: run.clone(),
                    state: RunState::Started,
                })?;
                let mut more = Turn::new(run, cx, None);
                let then = more.run(self).await;
                outcome = match (outcome, then) {
                    (Ok(mut first), Ok(then)) => {
                        first.add(&then);
                        first.text = then.text;
                        Ok(first)
                    }
                    (_, Err(e)) | (Err(e), _) => Err(e),
                };
            }
        }
        if outcome.is_err() && turn.window_full && !self.answered_since(before) {
            // The message itself does not fit beside what compaction keeps. Left in the
            // conversation, it would ride with every later message (they merge) and refuse
            // them all: the turn is taken back (the log keeps it).
            self.append(Body::Revert { to: before })?;
            cx.notice(
                "the message does not fit the model's context window even with the rest \
                 compacted; it is taken back from the conversation (the log keeps it): \
                 shorten it, or attach less",
            );
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
}

/// A request too long for the window that compacting could not help: `why`, then the largest
/// item the model sees and the ways out.
fn too_long(s: &Session, why: String) -> AgentError {
    AgentError::WindowFull(match s.largest_item() {
        Some(largest) => format!("{why}; {largest}"),
        None => why,
    })
}

pub(super) fn todo_reminder(todos: &[Todo]) -> String {
    let mut out = String::from("<todos>\n");
    for t in todos {
        out.push_str(&format!("[{}] {}\n", t.status, t.text));
    }
    out.push_str("</todos>");
    out
}

/// The step's calls that do not delegate, in order, grouped: a run of calls whose tools run
/// alongside others (the reads) is one group, run side by side; any other call is a group of
/// its own.
fn alongside_groups(s: &Session, calls: Vec<Call>) -> Vec<Vec<Call>> {
    let mut groups: Vec<Vec<Call>> = Vec::new();
    let mut open = false;
    for call in calls {
        let alongside =
            call.bad_json.is_none() && s.tool(&call.name).is_some_and(|t| t.runs_alongside());
        match groups.last_mut() {
            Some(group) if alongside && open => group.push(call),
            _ => groups.push(vec![call]),
        }
        open = alongside;
    }
    groups
}

/// Runs one group of calls: side by side when it has several.
async fn run_group(s: &mut Session, group: &[Call], cx: &Context) -> Vec<hotl_tool::ToolOutput> {
    match group {
        [call] => vec![s.call(call, cx).await],
        calls => s.call_alongside(calls, cx).await,
    }
}
