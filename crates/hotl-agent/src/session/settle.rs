//! Children a dead process left: a child whose run is still `started` in its log while the
//! process that ran it is gone is closed `interrupted` (its open calls answered so, its own
//! children likewise, its worktree's patch taken), and the call that made it or continued it
//! is answered with its handle, so a `continue` takes it on. Forks are resumed instead (see
//! [`Session::resume_fork`]).

use hotl_log::{Body, Delegated, RunState};

use super::Session;
use super::delegate::Started;
use super::turn::INTERRUPTED;
use crate::context::Context;
use crate::error::Result;
use crate::events::Events;
use crate::snapshot::Worktree;
use hotl_tool::ToolOutput;

/// How deep settling goes in a tree of children (a tree is never deeper; damaged logs that
/// loop must not recurse forever).
const MAX_DEPTH: usize = 64;

/// What settling a child came to, for the answer to its parent.
pub(crate) struct Settled {
    /// Its handle.
    pub handle: String,
    /// `interrupted`, or `finished` when its run had ended before the process died.
    pub state: &'static str,
    /// What its parent is told: where its work is, how to take it on, what it last said,
    /// where its worktree's changes are.
    pub report: String,
    /// The patch of its worktree's changes.
    pub patch_blob: Option<String>,
}

impl Session {
    /// This session's own child (in this tree) made by the call `call`.
    pub(super) fn child_of_call(&self, call: &str) -> Option<Delegated> {
        let id = self.writer.id();
        let children = self
            .store
            .visible_delegated(id)
            .inspect_err(|e| tracing::warn!("the children to settle cannot be listed: {e}"))
            .ok()?;
        children.into_iter().find(|c| {
            c.delegation.by == id
                && self.store.root_of(&c.id) == self.writer.root()
                && c.delegation
                    .call
                    .clone()
                    .or_else(|| super::fork::first_result(&self.store, &c.id))
                    .as_deref()
                    == Some(call)
        })
    }

    /// This session's own child (in this tree) known by `handle`.
    fn child_by_handle(&self, handle: &str) -> Option<Delegated> {
        let id = self.writer.id();
        let children = self.store.visible_delegated(id).ok()?;
        children.into_iter().find(|c| {
            c.delegation.by == id
                && self.store.root_of(&c.id) == self.writer.root()
                && c.delegation.handle.as_deref() == Some(handle)
        })
    }

    /// The `spawn` call `call` a dead process left open: a fork is resumed; another agent's
    /// child is closed `interrupted` and the call answered with its handle and worktree.
    /// `None` when the call made no child (it is answered "interrupted").
    pub(crate) fn resume_spawn(&mut self, call: &str, cx: &Context) -> Option<Started> {
        let child = self.child_of_call(call)?;
        let forked = self
            .store
            .read_start(&child.id)
            .is_ok_and(|start| start.parent.is_some());
        if forked {
            return self.resume_fork(call, cx);
        }
        Some(answer(self.settle_child(&child, &cx.events)).into())
    }

    /// The `continue` of `handle` a dead process left open: the child is closed `interrupted`
    /// and the call answered with its handle. `None` when there is no such child.
    pub(crate) fn resume_continue(&mut self, handle: &str, cx: &Context) -> Option<Started> {
        let child = self.child_by_handle(handle)?;
        Some(answer(self.settle_child(&child, &cx.events)).into())
    }

    /// Settles `child`, which a dead process left: see the module's doc. Never fails: what
    /// cannot be written is said in the report.
    pub(crate) fn settle_child(&mut self, child: &Delegated, events: &Events) -> Settled {
        let d = &child.delegation;
        let handle = d.handle.clone().unwrap_or_else(|| child.id[..8].to_owned());
        let agent = d.agent.as_deref().unwrap_or("fork");
        let (state, mut report) = match self.close_child(&child.id, events, 0) {
            Ok((was_open, last_words)) => {
                let said = if last_words.is_empty() {
                    String::new()
                } else {
                    format!(" It last said:\n{last_words}")
                };
                if was_open {
                    (
                        "interrupted",
                        format!(
                            "{agent} {handle} (session {}) was interrupted: the process running it ended before it did; what it did is in its log (continue {handle} takes it on).{said}",
                            child.id
                        ),
                    )
                } else {
                    (
                        "finished",
                        format!(
                            "{agent} {handle} (session {}) finished before the process ended.{said}",
                            child.id
                        ),
                    )
                }
            }
            Err(e) => (
                "interrupted",
                format!(
                    "{agent} {handle} (session {}) was interrupted and its log cannot be closed: {e}; its work so far is archived under {handle}",
                    child.id
                ),
            ),
        };
        let mut patch_blob = None;
        let cwd = self.store.read_start(&child.id).map(|s| s.cwd);
        if let Ok(cwd) = cwd
            && let Some(worktree) = Worktree::of_child(self.store.home(), cwd.as_ref())
        {
            let settled = worktree.settle(&self.store.blobs());
            report.push('\n');
            report.push_str(&settled.note);
            patch_blob = settled.patch_blob;
        }
        events.notice(format!("{agent} {handle} {state}"));
        Settled {
            handle,
            state,
            report,
            patch_blob,
        }
    }

    /// Closes the child `id`'s open run (its open calls answered "interrupted" and its own
    /// children left open closed first); whether a run was open, and its last words.
    fn close_child(&self, id: &str, events: &Events, depth: usize) -> Result<(bool, String)> {
        let writer = self.writer.open_delegated(id)?;
        let mut child = Session::from_writer(&self.store, writer, self.tools.clone())?;
        let open = child.open_run_id();
        if let Some(run) = &open {
            if depth < MAX_DEPTH {
                child.close_left_children(events, depth + 1);
            }
            child.answer_open_calls_to(INTERRUPTED, events)?;
            child.append(Body::Run {
                run: run.clone(),
                state: RunState::Interrupted,
            })?;
        }
        Ok((open.is_some(), child.last_answer()))
    }

    /// Closes this session's own children whose run is still open (nested delegation under a
    /// child that is itself being closed).
    fn close_left_children(&self, events: &Events, depth: usize) {
        let id = self.writer.id();
        let Ok(children) = self.store.visible_delegated(id) else {
            return;
        };
        for child in children
            .iter()
            .filter(|c| c.delegation.by == id && self.store.root_of(&c.id) == self.writer.root())
        {
            if let Err(e) = self.close_child(&child.id, events, depth) {
                tracing::warn!(child = child.id, "a child left open cannot be closed: {e}");
            }
        }
    }
}

/// The answer to the call that made or continued a settled child.
fn answer(settled: Settled) -> ToolOutput {
    if settled.state == "finished" {
        ToolOutput::ok(settled.report)
    } else {
        ToolOutput::error(settled.report)
    }
}
