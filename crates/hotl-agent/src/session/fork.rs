//! The fork move: a child session that works a task to the end and answers with its final
//! message, resumed after a crash, and the files its work touched.

use hotl_log::{Block, Body, RunState, Store};
use hotl_view::Item;

use super::delegate::{ChildRun, Started};
use super::{ArchivedFile, Session};
use crate::agents::AgentDef;
use crate::context::Context;
use crate::error::{AgentError, Result};
use crate::snapshot::Worktree;
use hotl_protocol::Event;
use hotl_tool::ToolOutput;

impl Session {
    /// The `fork` tool: a child session pinned at this session's end (the assistant message that
    /// called `fork`, the step's other delegations left open), whose first records answer the
    /// other open calls with one placeholder and the fork call with the task, so its first
    /// request extends this session's last one, and forks of one step share that prefix. It
    /// runs to completion with the same tools; its final message comes back as the result.
    pub(crate) fn fork_call(
        &mut self,
        call: &str,
        task: &str,
        background: bool,
        cx: &Context,
    ) -> Started {
        self.fork_call_as(call, task, None, background, None, cx)
    }

    /// [`Session::fork_call`] for the agent `def` (`spawn` of a definition whose shape is a
    /// true fork): the child records the definition (its name, and its bytes as they are now),
    /// and works in `worktree` when it has one.
    pub(crate) fn fork_call_as(
        &mut self,
        call: &str,
        task: &str,
        def: Option<&AgentDef>,
        background: bool,
        worktree: Option<Worktree>,
        cx: &Context,
    ) -> Started {
        if let Some(refused) = self.too_deep(cx) {
            return refused.into();
        }
        match self.start_fork(call, task, def, background, worktree, cx) {
            Ok(started) => started,
            Err(e) => ToolOutput::error(format!("the fork failed: {e}")).into(),
        }
    }

    fn start_fork(
        &mut self,
        call: &str,
        task: &str,
        def: Option<&AgentDef>,
        background: bool,
        worktree: Option<Worktree>,
        cx: &Context,
    ) -> Result<Started> {
        let agent = def.map_or("fork", |d| d.name.as_str());
        let agent_blob = def.map(|d| self.store.blobs().put(&d.bytes)).transpose()?;
        let id = self.writer.id().to_owned();
        let pin = self.writer.pin_head()?;
        let handle = crate::moves::unique_handle(
            &format!("fork:{id}:{}:{task}", pin.seq),
            &self.taken_handles()?,
        );
        let delegation = hotl_log::Delegation {
            by: id.clone(),
            agent: Some(agent.to_owned()),
            description: task.to_owned(),
            handle: Some(handle.clone()),
            call: Some(call.to_owned()),
            at: None,
            agent_blob,
            background,
        };
        // The child runs under the parent's modes, titled by its task.
        let mut state: Vec<Body> = hotl_view::fork_state(&self.view.state, false)
            .into_iter()
            .filter(|b| matches!(b, Body::Mode { .. }))
            .collect();
        state.push(Body::title(task_title(task)));
        // The child's run starts in the write that creates its log, with every call of the
        // step answered (the fork call by the task), so a process killed at any point leaves
        // either no child or one whose own open run recovery finishes.
        let run = hotl_log::new_session_id();
        state.push(Body::Run {
            run: run.clone(),
            state: RunState::Started,
        });
        state.extend(self.child_answers(call, task));
        let cwd = worktree.as_ref().map_or(&self.cwd, |w| &w.cwd);
        let writer = self
            .writer
            .delegate(pin, &cwd.display().to_string(), state, delegation)?;
        // In the background it may only read, unless it writes in a worktree of its own (its
        // tool list stays the parent's, for the prompt cache: a tool it may not use is
        // refused when called).
        let tools = if background && worktree.is_none() {
            self.tools.filtered(|t| t.reads_only())
        } else {
            self.tools.clone()
        };
        let child = Session::from_writer(&self.store, writer, tools)?;
        cx.notice(format!("{agent} {handle} started: {task}"));
        cx.events.send(Event::ChildStarted {
            handle: handle.clone(),
            task: task.to_owned(),
            agent: agent.to_string(),
        });
        let child = ChildRun::new(child, cx.child(&handle), run, &handle, agent)
            .forking(task)
            .in_worktree(worktree);
        Ok(self.hand_off(child, background, cx))
    }

    /// The records a fork's child starts with after its run: the calls of this step still
    /// open (the step's other delegations) answered with one placeholder, the same in every
    /// sibling (every call needs a result before the next request), then `call` answered with
    /// the task, last.
    fn child_answers(&self, call: &str, task: &str) -> Vec<Body> {
        let mut records: Vec<Body> = self
            .open_calls()
            .into_iter()
            .filter(|(other, _)| other != call)
            .map(|(other, _)| Body::ToolResult {
                call: other,
                content: vec![Block::text(
                    "the parent session runs this call; this fork does only its own task",
                )],
                blob: None,
                is_error: true,
                files: Vec::new(),
            })
            .collect();
        records.push(Body::ToolResult {
            call: call.to_owned(),
            content: vec![Block::text(crate::moves::fork_brief(task))],
            blob: None,
            is_error: false,
            files: Vec::new(),
        });
        records
    }

    /// Takes on the fork a dead process left running in answer to `call`: its child (this
    /// session's own, in this tree) is reopened under the tree's lock, to finish its own turn
    /// (beside the step's other forks), and its report answers the call. `None` when the call
    /// made no child yet (it is answered "interrupted"). A fork that cannot be reopened is
    /// answered with why, so this session's own recovery goes on.
    pub(crate) fn resume_fork(&mut self, call: &str, cx: &Context) -> Option<Started> {
        // Only this session's own children: a fork of this session (another tree) inherits
        // the open call but not the child, and answers it "interrupted".
        let child = self.child_of_call(call)?;
        let d = &child.delegation;
        let handle = d.handle.clone().unwrap_or_else(|| child.id[..8].to_owned());
        let agent = d.agent.as_deref().unwrap_or("fork");
        cx.notice(format!("resuming {agent} {handle}: {}", d.description));
        let reopened = self
            .writer
            .open_delegated(&child.id)
            .map_err(AgentError::from)
            .and_then(|writer| {
                // The tools it started with: in the background only those that read, unless
                // it writes in a worktree of its own.
                let worktree = self
                    .store
                    .read_start(&child.id)
                    .ok()
                    .and_then(|s| Worktree::of_child(self.store.home(), s.cwd.as_ref()));
                let tools = if d.background && worktree.is_none() {
                    self.tools.filtered(|t| t.reads_only())
                } else {
                    self.tools.clone()
                };
                Session::from_writer(&self.store, writer, tools).map(|s| (s, worktree))
            });
        Some(match reopened {
            Ok((fork, worktree)) => {
                cx.events.send(Event::ChildStarted {
                    handle: handle.clone(),
                    task: d.description.clone(),
                    agent: agent.to_string(),
                });
                Started::Child(Box::new(
                    ChildRun::recovering(fork, cx.child(&handle), &handle, agent)
                        .forking(&d.description)
                        .in_worktree(worktree),
                ))
            }
            Err(e) => ToolOutput::error(format!(
                "{agent} {handle} (session {}) was interrupted and could not be resumed: {e}; \
                 its work so far is archived under {handle}",
                child.id
            ))
            .into(),
        })
    }

    /// The text of the last model answer in the view.
    pub(super) fn last_answer(&self) -> String {
        self.view
            .items
            .iter()
            .rev()
            .find_map(|i| match i {
                Item::Assistant { content, .. } => {
                    Some(content.iter().filter_map(Block::as_text).collect())
                }
                _ => None,
            })
            .unwrap_or_default()
    }
}

/// Remembers which files the forks `id` can see touched, for the file-touch cue (once each:
/// what is already known stays).
pub(super) fn note_delegated_files(store: &Store, id: &str, out: &mut Vec<ArchivedFile>) {
    let delegated = match store.visible_delegated(id) {
        Ok(delegated) => delegated,
        Err(e) => {
            tracing::warn!(session = id, "the forks it can see cannot be listed: {e}");
            return;
        }
    };
    for child in delegated {
        if let Some(handle) = &child.delegation.handle
            && !out.iter().any(|f| f.handle == *handle)
        {
            note_fork_files(store, &child.id, handle, &child.delegation.description, out);
        }
    }
}

/// Remembers which files the fork `child` (known by `handle`, working on `task`) touched.
pub(super) fn note_fork_files(
    store: &Store,
    child: &str,
    handle: &str,
    task: &str,
    out: &mut Vec<ArchivedFile>,
) {
    let log = match store.read(child) {
        Ok(log) => log,
        Err(e) => {
            tracing::warn!(child, "a fork's files cannot be read: {e}");
            return;
        }
    };
    let title = format!("fork: {task}");
    for record in &log.records {
        if let Body::ToolResult { files, .. } = &record.body {
            for touch in files {
                out.push(ArchivedFile {
                    fork: true,
                    path: touch.path.clone(),
                    handle: handle.to_owned(),
                    title: title.clone(),
                });
            }
        }
    }
}

/// The call the first tool result of `child`'s own log answers (children written before their
/// delegation named its call).
pub(super) fn first_result(store: &Store, child: &str) -> Option<String> {
    store
        .read(child)
        .ok()?
        .records
        .into_iter()
        .find_map(|r| match r.body {
            Body::ToolResult { call, .. } => Some(call),
            _ => None,
        })
}

/// A fork's title: its task's first line, at most 80 characters.
pub(super) fn task_title(task: &str) -> String {
    let line = task.lines().next().unwrap_or("").trim();
    let mut title: String = line.chars().take(80).collect();
    if line.chars().count() > 80 {
        title.pop();
        title.push('…');
    }
    title
}
