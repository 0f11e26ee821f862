//! The spawn move: another agent consulted on purpose. Its definition decides how it starts
//! (see [`AgentDef::shape`]): a true fork continues this session's work as the fork move does;
//! a wrapped fork gets this session's messages as one labelled block under its own prompt; a
//! clean child gets its prompt and the task only; the reviewer gets the user's messages and
//! the working-tree diff, never what the assistant wrote. It runs in the foreground under the
//! definition's tools, model and limits (never wider than this session's permissions) and
//! answers with its final message and what it spent.

use hotl_log::{Block, Body, Delegation, RunState, SessionStart};

use super::Session;
use super::delegate::{ChildRun, Started};
use crate::agents::{AgentDef, Isolation, Shape};
use crate::context::Context;
use crate::error::Result;
use crate::permission::Mode;
use crate::snapshot::{Snapshotter, Worktree};
use hotl_protocol::Event;
use hotl_tool::ToolOutput;

/// The most of a task a reviewer is handed: it reviews the work, not the parent's account of it.
const REVIEWER_TASK_CHARS: usize = 500;

impl Session {
    /// The `spawn` tool: `task` handed to the agent `def` describes, as a fork of this session
    /// when `fork` asks for one and the definition allows it.
    pub(crate) async fn spawn_call(
        &mut self,
        call: &str,
        def: &AgentDef,
        task: &str,
        fork: bool,
        background: Option<bool>,
        cx: &Context,
    ) -> Started {
        let shape = match def.shape(fork) {
            Ok(shape) => shape,
            Err(why) => return ToolOutput::error(why).into(),
        };
        let background = background.unwrap_or(def.background);
        if let Some(refused) = self.too_deep(cx) {
            return refused.into();
        }
        // An isolated child writes in a worktree of its own, so it may write in the
        // background too.
        let worktree = match def.isolation {
            Some(Isolation::Worktree) => match self.isolate().await {
                Ok(worktree) => Some(worktree),
                Err(why) => {
                    return ToolOutput::error(format!(
                        "{} works in a worktree of its own (isolation: worktree), which cannot be made: {why}",
                        def.name
                    ))
                    .into();
                }
            },
            None => None,
        };
        let first = match shape {
            Shape::Fork => {
                return self.fork_call_as(call, task, Some(def), background, worktree, cx);
            }
            Shape::Clean => task.to_owned(),
            Shape::Wrapped => self.wrapped_brief(task),
            Shape::Reviewer => self.reviewer_brief(task).await,
        };
        let child = NewChild {
            call,
            task,
            first,
            background,
            worktree,
        };
        match self.start_child(def, child, cx) {
            Ok(started) => started,
            Err(e) => ToolOutput::error(format!("{} failed to start: {e}", def.name)).into(),
        }
    }

    fn start_child(&mut self, def: &AgentDef, new: NewChild<'_>, cx: &Context) -> Result<Started> {
        let NewChild {
            call,
            task,
            first,
            background,
            worktree,
        } = new;
        let id = self.writer.id().to_owned();
        let at = self.view.head_seq;
        let handle = crate::moves::unique_handle(
            &format!("{}:{id}:{at}:{task}", def.name),
            &self.taken_handles()?,
        );
        let blobs = self.store.blobs();
        // Its tools: this session's, as the definition allows (it never delegates in turn
        // unless its definition lists spawn or fork); in the background, only those that
        // read, since nobody watches it write, unless it writes in a worktree of its own.
        let writes_apart = worktree.is_some();
        let tools = self
            .tools
            .filtered(|t| def.allows(t.name()) && (!background || writes_apart || t.reads_only()));
        let cwd = worktree
            .as_ref()
            .map_or_else(|| self.cwd.clone(), |w| w.cwd.clone());
        let mut system = vec![if def.prompt.is_empty() {
            crate::prompt::BASE.to_owned()
        } else {
            def.prompt.clone()
        }];
        // The project's own instructions apply to every agent working in it (read here: a
        // worktree, a copy of this working tree, is made once the child starts).
        system.extend(crate::prompt::system_blocks(&self.cwd).into_iter().skip(1));
        let mut settings = (*cx.settings).clone();
        if let Some(model) = &def.model {
            settings.model.clone_from(model);
        }
        settings.policy.mode = narrower(settings.policy.mode, def.permission_mode);
        if let Some(steps) = def.max_steps {
            settings.max_steps = settings.max_steps.min(steps as usize);
        }
        let mut start = SessionStart::new(cwd.display().to_string());
        start.model = Some(settings.model.clone());
        let system = serde_json::to_vec(&system).map_err(hotl_log::LogError::from)?;
        let defs = serde_json::to_vec(&tools.definitions()).map_err(hotl_log::LogError::from)?;
        start.system_blob = Some(blobs.put(&system)?);
        start.tools_blob = Some(blobs.put(&defs)?);
        start.delegated = Some(Delegation {
            by: id.clone(),
            agent: Some(def.name.clone()),
            description: task.to_owned(),
            handle: Some(handle.clone()),
            call: Some(call.to_owned()),
            at: Some(at),
            agent_blob: Some(blobs.put(&def.bytes)?),
            background,
        });
        // Titled by its task at once; its run starts in the write that creates its log.
        let run = hotl_log::new_session_id();
        let state = vec![
            Body::title(super::fork::task_title(task)),
            Body::Mode {
                permission: Some(settings.policy.mode.name().to_owned()),
                plan: Some(settings.policy.mode == Mode::Plan),
                effort: None,
                sandbox: None,
                model: None,
                provider: None,
            },
            Body::Run {
                run: run.clone(),
                state: RunState::Started,
            },
            Body::User {
                content: vec![Block::text(first)],
            },
        ];
        let writer = self.writer.delegate_clean(start, state)?;
        let child = Session::from_writer(&self.store, writer, tools)?;
        cx.notice(format!("{} {handle} started: {task}", def.name));
        cx.events.send(Event::ChildStarted {
            handle: handle.clone(),
            task: task.to_owned(),
            agent: def.name.clone(),
        });
        let child_cx = cx.child(&handle).with_settings(settings);
        let child = ChildRun::new(child, child_cx, run, &handle, &def.name).in_worktree(worktree);
        Ok(self.hand_off(child, background, cx))
    }

    /// A new worktree at this session's working tree as it is now, under
    /// `<home>/worktrees/`, planned (made once the child's log names it); why not, outside
    /// git or when git cannot snapshot.
    async fn isolate(&mut self) -> std::result::Result<Worktree, String> {
        let cwd = self.cwd.clone();
        let top = Worktree::repository(&cwd)?;
        let blobs = self.store.blobs();
        let tree = self
            .tree
            .snapshots
            .take(&cwd, &blobs)
            .await
            .filter(|tree| !tree.contains(':'))
            .ok_or("git cannot snapshot the working tree")?;
        let dir = self
            .store
            .home()
            .join("worktrees")
            .join(hotl_log::new_session_id().to_lowercase());
        // Planned only: it is made when the child starts, after the child's log names it.
        Ok(Worktree::plan(&cwd, &top, &tree, &dir))
    }

    /// A refusal when a child of this session would go past `[agents] max_depth`.
    pub(crate) fn too_deep(&self, cx: &Context) -> Option<ToolOutput> {
        let depth = self.delegation_depth();
        let max = cx.settings.max_depth;
        (depth + 1 > max).then(|| {
            ToolOutput::error(format!(
                "delegation goes at most {max} deep ([agents] max_depth) and this session is at depth {depth}: do this task yourself"
            ))
        })
    }

    /// How many delegations this session is from its tree's root (0 for a root).
    fn delegation_depth(&self) -> usize {
        // A root (most sessions) reads nothing: its own start is at hand.
        let Some(mut by) = self.start.delegated.as_ref().map(|d| d.by.clone()) else {
            return 0;
        };
        let mut depth = 1;
        // A tree is never deeper than this; a loop in damaged logs must not hang.
        while depth < 64 {
            let Some(delegation) = self.store.read_start(&by).ok().and_then(|s| s.delegated) else {
                break;
            };
            depth += 1;
            by = delegation.by;
        }
        depth
    }

    /// The `continue` tool: one more turn of this session's child `handle`, in its own log,
    /// under the model it was started with; its new final message answers. Handles live in the
    /// log, so a child made before this process started continues as well.
    pub(crate) fn continue_call(&mut self, handle: &str, message: &str, cx: &Context) -> Started {
        match self.start_continue(handle, message, cx) {
            Ok(started) => started,
            Err(e) => {
                self.in_flight.retain(|h| h != handle);
                ToolOutput::error(format!("{handle} could not continue: {e}")).into()
            }
        }
    }

    fn start_continue(&mut self, handle: &str, message: &str, cx: &Context) -> Result<Started> {
        let id = self.writer.id().to_owned();
        let children: Vec<hotl_log::Delegated> = self
            .store
            .visible_delegated(&id)?
            .into_iter()
            .filter(|c| c.delegation.by == id)
            .collect();
        let Some(child) = children
            .iter()
            .find(|c| c.delegation.handle.as_deref() == Some(handle))
        else {
            let known: Vec<&str> = children
                .iter()
                .filter_map(|c| c.delegation.handle.as_deref())
                .collect();
            return Ok(ToolOutput::error(if known.is_empty() {
                format!("there is no child {handle:?}: this session has delegated nothing")
            } else {
                format!(
                    "there is no child {handle:?}; this session's children are: {}",
                    known.join(", ")
                )
            })
            .into());
        };
        // One turn at a time in a child's log.
        if !self.claim_child(handle) {
            return Ok(ToolOutput::error(format!(
                "{handle} is still running: continue it once it has ended (its report comes as a message; cancel {handle} stops it)"
            ))
            .into());
        }
        let agent = child
            .delegation
            .agent
            .clone()
            .unwrap_or_else(|| "fork".to_owned());
        let writer = self.writer.open_delegated(&child.id)?;
        let session = Session::from_writer(&self.store, writer, self.tools.clone())?;
        // The model it was started with, frozen for its runs.
        let mut settings = (*cx.settings).clone();
        if let Some(model) = self
            .store
            .read_start(&child.id)
            .ok()
            .and_then(|start| start.model)
        {
            settings.model = model;
        }
        cx.notice(format!("{agent} {handle} continues: {message}"));
        cx.events.send(Event::ChildStarted {
            handle: handle.to_owned(),
            task: message.to_owned(),
            agent: agent.clone(),
        });
        let child_cx = cx.child(handle).with_settings(settings);
        Ok(Started::Child(Box::new(ChildRun::continued(
            session, child_cx, message, handle, &agent,
        ))))
    }

    /// A wrapped fork's first message: this session's conversation as the model sees it, in
    /// one labelled block, then the task.
    fn wrapped_brief(&self, task: &str) -> String {
        let conversation = super::messages_text(&hotl_view::model_messages(&self.view));
        format!(
            "The conversation of the session that hands you this task, as its model sees it:\n\n<parent_conversation>\n{}\n</parent_conversation>\n\nYour task:\n{task}",
            conversation.trim_end()
        )
    }

    /// The reviewer's first message: the user's messages verbatim and the diff of the
    /// session's work in the working tree; of the parent's words only the task, capped.
    async fn reviewer_brief(&mut self, task: &str) -> String {
        let mut users = String::new();
        for item in &self.view.items {
            item.for_each_user(&mut |seq, content| {
                users.push_str(&format!("[t{seq}] {}\n\n", hotl_log::plain_text(content)));
            });
        }
        let diff = self.work_diff().await;
        let task: String = task.chars().take(REVIEWER_TASK_CHARS).collect();
        format!(
            "The user's messages in the session under review, verbatim:\n\n{}\nThe working-tree diff of the session's work:\n\n```diff\n{}\n```\n\nThe session that asked for this review handed you this task (its words, not the user's):\n{task}",
            if users.is_empty() {
                "(none)\n".to_owned()
            } else {
                users
            },
            diff.trim_end()
        )
    }

    /// The diff between the working tree before this session's first step that could change
    /// files and the tree now; a note when there is none to show.
    async fn work_diff(&mut self) -> String {
        let blobs = self.store.blobs();
        let first = self
            .store
            .lineage(self.writer.id())
            .ok()
            .and_then(|lineage| {
                lineage.records.iter().find_map(|r| match &r.body {
                    Body::Snapshot { tree } => Some(tree.clone()),
                    _ => None,
                })
            });
        let Some(first) = first else {
            return "(no working-tree snapshot was taken: the session changed no files)".to_owned();
        };
        let cwd = self.cwd.clone();
        let Some(now) = self.tree.snapshots.take(&cwd, &blobs).await else {
            return "(the working tree could not be read)".to_owned();
        };
        if first == now {
            return "(no changes)".to_owned();
        }
        Snapshotter::diff(&cwd, &first, &now, &blobs)
            .map(|patch| String::from_utf8_lossy(&patch).into_owned())
            .unwrap_or_else(|| "(no changes)".to_owned())
    }
}

/// What a new child of `spawn` starts with.
struct NewChild<'a> {
    /// The call it answers.
    call: &'a str,
    task: &'a str,
    /// Its first message.
    first: String,
    background: bool,
    /// The worktree it writes in, apart from the parent's files.
    worktree: Option<Worktree>,
}

/// The narrower of a session's mode and the one a definition asks (a child never gets more
/// than its parent has): plan, then default, then accept-edits, then bypass.
fn narrower(parent: Mode, asked: Option<Mode>) -> Mode {
    let rank = |m: Mode| match m {
        Mode::Plan => 0,
        Mode::Default => 1,
        Mode::AcceptEdits => 2,
        Mode::Bypass => 3,
    };
    match asked {
        Some(asked) if rank(asked) < rank(parent) => asked,
        _ => parent,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_never_gets_a_wider_mode() {
        assert_eq!(narrower(Mode::Plan, Some(Mode::Bypass)), Mode::Plan);
        assert_eq!(narrower(Mode::Bypass, Some(Mode::Plan)), Mode::Plan);
        assert_eq!(narrower(Mode::AcceptEdits, None), Mode::AcceptEdits);
        assert_eq!(
            narrower(Mode::Default, Some(Mode::AcceptEdits)),
            Mode::Default
        );
    }
}
