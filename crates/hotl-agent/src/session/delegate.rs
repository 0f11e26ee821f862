//! A child run in the foreground, the same way for `fork`, `spawn` and `continue`: the call
//! starts it (quickly, holding the parent: its log is written then), it runs on its own (the
//! parent is not borrowed, so the step's other delegations run beside it, within the slots),
//! and the parent takes its end: what it spent, the files it touched, the report its call is
//! answered with.

use hotl_log::{Body, RunState};

use tokio::sync::watch;

use super::background::{Background, Finished};
use super::turn::Turn;
use super::{Session, TurnOutcome};
use crate::context::Context;
use crate::error::Result;
use crate::snapshot::Worktree;
use hotl_protocol::Event;
use hotl_tool::ToolOutput;

/// What a call that delegates came to when it started: answered at once (refused, or started
/// in the background), or a child to run.
pub enum Started {
    /// The call's answer.
    Answered(ToolOutput),
    /// A child started in the foreground, whose end answers the call.
    Child(Box<ChildRun>),
}

impl From<ToolOutput> for Started {
    fn from(output: ToolOutput) -> Started {
        Started::Answered(output)
    }
}

/// A child started in the foreground, with what its run is and how its report reads.
pub struct ChildRun {
    child: Session,
    /// The child's context: its events carry its handle; its settings are its definition's.
    cx: Context,
    work: Work,
    handle: String,
    /// Its agent's name (`fork` for a fork made by the `fork` tool).
    agent: String,
    kind: Kind,
    /// The worktree it writes in, apart from the parent's files.
    worktree: Option<Worktree>,
}

/// What the child runs.
enum Work {
    /// The turn its log was created with (the run already `started` there).
    Turn(String),
    /// A new message, a new turn (`continue`).
    Message(String),
    /// The turn a dead process left open in its log, finished.
    Recover,
}

/// What the child is, for what its end does beside the report (its final message, then what
/// it spent).
#[derive(Clone, PartialEq)]
enum Kind {
    /// A fork of the parent working `task`: the files it touched join the file-touch cue.
    Fork { task: String },
    /// Another agent: a failure says where its work so far is archived.
    Agent,
    /// A child given one more turn by `continue`.
    Continued,
}

/// A child whose run ended.
pub(crate) struct Ran {
    run: ChildRun,
    outcome: Result<TurnOutcome>,
}

impl ChildRun {
    /// Another agent (`agent`, known by `handle`) running the turn `run` its log starts with.
    pub(super) fn new(
        child: Session,
        cx: Context,
        run: String,
        handle: &str,
        agent: &str,
    ) -> ChildRun {
        ChildRun {
            child,
            cx,
            work: Work::Turn(run),
            handle: handle.to_owned(),
            agent: agent.to_owned(),
            kind: Kind::Agent,
            worktree: None,
        }
    }

    /// The same child as a fork working `task` (its files join the file-touch cue).
    pub(super) fn forking(mut self, task: &str) -> ChildRun {
        self.kind = Kind::Fork {
            task: task.to_owned(),
        };
        self
    }

    /// The same child writing in `worktree`, apart from the parent's files.
    pub(super) fn in_worktree(mut self, worktree: Option<Worktree>) -> ChildRun {
        self.worktree = worktree;
        self
    }

    /// A child given `message`, a turn of its own.
    pub(super) fn continued(
        child: Session,
        cx: Context,
        message: &str,
        handle: &str,
        agent: &str,
    ) -> ChildRun {
        ChildRun {
            work: Work::Message(message.to_owned()),
            kind: Kind::Continued,
            ..ChildRun::new(child, cx, String::new(), handle, agent)
        }
    }

    /// A fork a dead process left running, reopened to finish its open turn.
    pub(super) fn recovering(child: Session, cx: Context, handle: &str, agent: &str) -> ChildRun {
        ChildRun {
            work: Work::Recover,
            ..ChildRun::new(child, cx, String::new(), handle, agent)
        }
    }

    /// Its handle.
    pub(super) fn handle(&self) -> &str {
        &self.handle
    }

    /// The same child stopped by `stop` (its own, which `cancel` and the parent's
    /// cancellation pull) rather than by the parent's turn.
    pub(super) fn stopped_by(mut self, stop: watch::Receiver<bool>) -> ChildRun {
        self.cx = self.cx.with_cancel(stop);
        self
    }

    /// Runs it in one of the tree's slots (`max` in all, shared with the background children
    /// of `slots`'s session): beyond them it waits, and cancelled meanwhile it never runs (its
    /// run closed `cancelled`).
    pub(crate) async fn run(mut self, slots: Background, max: usize) -> Ran {
        if slots.all_taken(max) {
            self.cx.notice(format!(
                "{} {} waits for a slot (all {max} are taken, [agents] max_concurrent)",
                self.agent, self.handle
            ));
        }
        let slot = tokio::select! {
            slot = slots.slot(max) => slot,
            () = self.cx.cancelled() => None,
        };
        let outcome = if slot.is_none() && self.cx.is_cancelled() {
            self.never_ran()
        } else if let Err(why) = self.make_worktree().await {
            self.never_made(why)
        } else {
            let cx = self.cx.clone();
            match std::mem::replace(&mut self.work, Work::Message(String::new())) {
                Work::Turn(run) => {
                    let mut turn = Turn::new(run, &cx, None);
                    Box::pin(turn.run(&mut self.child)).await
                }
                Work::Message(message) => Box::pin(self.child.submit(&message, &cx)).await,
                // A turn already closed has its last answer to report.
                Work::Recover => match Box::pin(self.child.recover(&cx)).await {
                    Ok(Some(outcome)) => Ok(outcome),
                    Ok(None) => Ok(TurnOutcome {
                        text: self.child.last_answer(),
                        ..TurnOutcome::default()
                    }),
                    Err(e) => Err(e),
                },
            }
        };
        drop(slot);
        Ran { run: self, outcome }
    }

    /// Makes the worktree the child works in, when it is still only planned (its log names it
    /// already, so no `gc` takes it for an orphan meanwhile).
    async fn make_worktree(&mut self) -> std::result::Result<(), String> {
        let Some(mut worktree) = self.worktree.take().filter(Worktree::is_planned) else {
            return Ok(());
        };
        let made = tokio::task::spawn_blocking(move || {
            let made = worktree.make();
            (worktree, made)
        })
        .await;
        match made {
            Ok((worktree, made)) => {
                self.worktree = Some(worktree);
                made
            }
            Err(e) => Err(e.to_string()),
        }
    }

    /// Closes the run of a child whose worktree could not be made: it never ran.
    fn never_made(&mut self, why: String) -> Result<TurnOutcome> {
        if let Work::Turn(run) = &self.work {
            self.child.append(Body::Run {
                run: run.clone(),
                state: RunState::Interrupted,
            })?;
        }
        Err(crate::error::AgentError::Refused(format!(
            "its worktree cannot be made: {why}"
        )))
    }

    /// Closes the run a child cancelled before it began (a turn already `started` in its log).
    fn never_ran(&mut self) -> Result<TurnOutcome> {
        if let Work::Turn(run) = &self.work {
            self.child.append(Body::Run {
                run: run.clone(),
                state: RunState::Cancelled,
            })?;
        }
        Ok(TurnOutcome {
            cancelled: true,
            text: "cancelled before it started".to_owned(),
            ..TurnOutcome::default()
        })
    }
}

impl Ran {
    /// Whether the run ended without an error.
    pub(super) fn is_ok(&self) -> bool {
        self.outcome.is_ok()
    }

    /// How a child in the background ended, for its `child_finished` record: its report (with
    /// its worktree's patch taken, when it had one) and what it spent.
    pub(super) fn into_finished(self, blobs: &hotl_log::Blobs) -> Finished {
        let Ran { run, outcome } = self;
        let (state, mut report) = match outcome {
            Ok(outcome) if outcome.cancelled => ("cancelled", outcome.text),
            Ok(outcome) => ("finished", outcome.text),
            Err(e) => ("failed", e.to_string()),
        };
        // Its changes stay in its worktree: the report says where, and how to take them.
        let patch_blob = run.worktree.and_then(|worktree| {
            let settled = worktree.settle(blobs);
            report.push('\n');
            report.push_str(&settled.note);
            settled.patch_blob
        });
        Finished {
            handle: run.handle,
            child: run.child.id().to_owned(),
            state,
            report,
            totals: run.child.totals,
            patch_blob,
        }
    }
}

impl Session {
    /// Hands a started child on: to a task of its own in the background (the call answered at
    /// once, with its handle), or back to the turn to run in the foreground.
    pub(super) fn hand_off(&self, child: ChildRun, background: bool, cx: &Context) -> Started {
        if !background {
            return Started::Child(Box::new(child));
        }
        let (agent, handle, id) = (
            child.agent.clone(),
            child.handle.clone(),
            child.child.id().to_owned(),
        );
        let queued = self.run_in_background(child, cx);
        ToolOutput::ok(format!(
            "{agent} {handle} (session {id}) started in the background{queued}; its report comes as a message when it ends (cancel {handle} stops it)"
        ))
        .into()
    }

    /// Runs `child` to its end here (a step's only delegation) and returns its call's answer.
    pub(crate) async fn run_child_here(
        &mut self,
        child: Box<ChildRun>,
        cx: &Context,
    ) -> ToolOutput {
        let ran = child
            .run(self.background().clone(), cx.settings.max_concurrent)
            .await;
        self.take_end(ran, cx)
    }

    /// Takes the end of a child this session ran in the foreground: what it spent counts here
    /// however it ended, a fork's files join the file-touch cue, and the report answers its
    /// call.
    pub(crate) fn take_end(&mut self, ran: Ran, cx: &Context) -> ToolOutput {
        let Ran { run, outcome } = ran;
        let (handle, agent, child) = (&run.handle, &run.agent, &run.child);
        self.in_flight.retain(|h| h != handle);
        cx.events.send(Event::ChildEnded {
            handle: handle.clone(),
            ok: outcome.is_ok(),
        });
        cx.notice(format!(
            "{agent} {handle} {}",
            match &outcome {
                Ok(o) if o.cancelled => "cancelled",
                Ok(_) => "finished",
                Err(_) => "failed",
            }
        ));
        self.totals.add(&child.totals);
        let id = child.id();
        let mut output = match (&run.kind, outcome) {
            (Kind::Fork { task }, Ok(outcome)) => {
                super::fork::note_fork_files(
                    &self.store,
                    id,
                    handle,
                    task,
                    &mut self.archived_files,
                );
                report_spent(agent, handle, id, &outcome, &child.totals)
            }
            (Kind::Fork { .. }, Err(e)) => ToolOutput::error(format!(
                "the fork failed: {e}; its work so far is archived under {handle}"
            )),
            (Kind::Agent | Kind::Continued, Ok(outcome)) => {
                report_spent(agent, handle, id, &outcome, &child.totals)
            }
            (kind, Err(e)) => ToolOutput::error(format!(
                "{agent} {handle} (session {id}) failed: {e}{}",
                if *kind == Kind::Agent {
                    format!("; its work so far is archived under {handle}")
                } else {
                    String::new()
                }
            )),
        };
        // Its changes stay in its worktree: the report says where, and how to take them.
        if let Some(worktree) = &run.worktree {
            let settled = worktree.settle(&self.store.blobs());
            output.content.push('\n');
            output.content.push_str(&settled.note);
        }
        output
    }

    /// Marks `handle` as running in the foreground (a second `continue` of it in the same
    /// step is refused); `false` when it already runs, here or in the background.
    pub(crate) fn claim_child(&mut self, handle: &str) -> bool {
        if self.in_flight.iter().any(|h| h == handle)
            || self
                .background()
                .running_handles()
                .iter()
                .any(|h| h == handle)
        {
            return false;
        }
        self.in_flight.push(handle.to_owned());
        true
    }
}

/// The call's answer: the child's final message, then what it spent.
pub(super) fn report_spent(
    agent: &str,
    handle: &str,
    id: &str,
    outcome: &TurnOutcome,
    t: &super::Totals,
) -> ToolOutput {
    if outcome.cancelled {
        return ToolOutput::error(format!(
            "{agent} {handle} (session {id}) was cancelled by the user before it finished; its work so far is archived under {handle}"
        ));
    }
    ToolOutput::ok(format!(
        "{agent} {handle} (session {id}) finished:\n{}\n[spent: {} input, {} cache read, {} output tokens, ${:.4}]",
        outcome.text,
        t.usage.input + t.usage.cache_write_5m + t.usage.cache_write_1h,
        t.usage.cache_read,
        t.usage.output,
        t.cost
    ))
}
