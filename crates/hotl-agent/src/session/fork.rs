//! The fork move: a child session that works a task to the end and answers with its final
//! message, resumed after a crash, and the files its work touched.

use hotl_log::{Block, Body, RunState, Store};
use hotl_view::Item;
use tokio::sync::watch;

use super::{Progress, Session, Settings, TurnOutcome, Ui};
use crate::error::Result;
use crate::provider::Provider;
use crate::tool::ToolOutput;

impl Session {
    /// The `fork` tool: a child session pinned at this session's end (the assistant message that
    /// called `fork`, other calls of the step already answered), whose first record answers the
    /// fork call with the task, so its first request extends this session's last one. It runs
    /// to completion with the same tools; its final message comes back as the result.
    pub(super) async fn fork_call(
        &mut self,
        call: &str,
        task: &str,
        provider: &Provider,
        settings: &Settings,
        ui: &mut dyn Ui,
        cancel: watch::Receiver<bool>,
    ) -> Result<ToolOutput> {
        let id = self.writer.id().to_owned();
        let pin = self.writer.pin_head()?;
        let handle = crate::moves::unique_handle(
            &format!("fork:{id}:{}:{task}", pin.seq),
            &self.taken_handles()?,
        );
        let delegation = hotl_log::Delegation {
            by: id.clone(),
            agent: Some("fork".to_owned()),
            description: task.to_owned(),
            handle: Some(handle.clone()),
            call: Some(call.to_owned()),
        };
        // The child runs under the parent's modes, titled by its task.
        let mut state: Vec<Body> = hotl_view::fork_state(&self.view.state, false)
            .into_iter()
            .filter(|b| matches!(b, Body::Mode { .. }))
            .collect();
        state.push(Body::Title {
            title: task_title(task),
        });
        // The child's run starts in the write that creates its log, with every call of the
        // step answered (the fork call by the task), so a process killed at any point leaves
        // either no child or one whose own open run recovery finishes.
        let run = hotl_log::new_session_id();
        state.push(Body::Run {
            run: run.clone(),
            state: RunState::Started,
        });
        state.extend(self.child_answers(call, task));
        let writer =
            self.writer
                .delegate(pin, &self.cwd.display().to_string(), state, delegation)?;
        let mut child = Session::from_writer(&self.store, writer, self.tools.clone())?;
        ui.progress(Progress::Notice(&format!("fork {handle} started: {task}")));
        ui.fork_started(&handle);
        let outcome = Box::pin(child.steps(&run, provider, settings, ui, cancel)).await;
        ui.fork_done(&handle);
        ui.progress(Progress::Notice(&format!(
            "fork {handle} {}",
            if outcome.is_ok() {
                "finished"
            } else {
                "failed"
            }
        )));
        // What the child spent counts, however it ended.
        self.totals.add(&child.totals);
        let outcome = match outcome {
            Ok(outcome) => outcome,
            Err(e) => {
                return Ok(ToolOutput::error(format!(
                    "the fork failed: {e}; its work so far is archived under {handle}"
                )));
            }
        };
        note_fork_files(
            &self.store,
            child.id(),
            &handle,
            task,
            &mut self.archived_files,
        );
        Ok(fork_report(&handle, child.id(), &outcome))
    }

    /// The records a fork's child starts with after its run: the calls of this step still
    /// open (a second fork runs after this one) answered as the parent's (every call needs a
    /// result before the next request), then `call` answered with the task.
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

    /// Finishes the forks the dead process left running: each open `fork` call whose child
    /// exists is resumed (the child recovers its own turn) and answered with its report, as if
    /// nothing had happened. A fork call with no child yet stays open (answered "interrupted").
    pub(super) async fn resume_forks(
        &mut self,
        provider: &Provider,
        settings: &Settings,
        ui: &mut dyn Ui,
        cancel: watch::Receiver<bool>,
    ) -> Result<()> {
        let open: Vec<String> = self
            .open_calls()
            .into_iter()
            .filter(|(_, name)| name == "fork")
            .map(|(id, _)| id)
            .collect();
        if open.is_empty() {
            return Ok(());
        }
        // Only this session's own children: a fork of this session (another tree) inherits
        // the open call but not the child, and answers it "interrupted".
        let id = self.writer.id().to_owned();
        let mine = self
            .store
            .visible_delegated(&id)?
            .into_iter()
            .filter(|c| c.delegation.by == id && self.store.root_of(&c.id) == self.writer.root())
            .collect::<Vec<_>>();
        for child in mine {
            let Some(call) = child
                .delegation
                .call
                .clone()
                .or_else(|| first_result(&self.store, &child.id))
            else {
                continue;
            };
            if !open.contains(&call) {
                continue;
            }
            let handle = child
                .delegation
                .handle
                .clone()
                .unwrap_or_else(|| child.id[..8].to_owned());
            ui.progress(Progress::Notice(&format!(
                "resuming fork {handle}: {}",
                child.delegation.description
            )));
            // A fork that cannot be resumed (its provider failing, its log unreadable) is
            // answered with why, so this session's own recovery goes on.
            let output =
                match Box::pin(self.resume_fork(&child.id, provider, settings, ui, cancel.clone()))
                    .await
                {
                    Ok((id, outcome)) => fork_report(&handle, &id, &outcome),
                    Err(e) => ToolOutput::error(format!(
                        "fork {handle} (session {}) was interrupted and could not be resumed: {e}; \
                     its work so far is archived under {handle}",
                        child.id
                    )),
                };
            self.record_result(&call, output)?;
        }
        Ok(())
    }

    /// Reopens the fork `child` under this tree's lock and finishes its turn; its id and how
    /// it ended.
    async fn resume_fork(
        &mut self,
        child: &str,
        provider: &Provider,
        settings: &Settings,
        ui: &mut dyn Ui,
        cancel: watch::Receiver<bool>,
    ) -> Result<(String, TurnOutcome)> {
        let writer = self.writer.open_delegated(child)?;
        let mut fork = Session::from_writer(&self.store, writer, self.tools.clone())?;
        ui.progress(Progress::Notice(&format!("fork {child} resumed")));
        ui.fork_started(child);
        let outcome = Box::pin(fork.recover(provider, settings, ui, cancel)).await;
        ui.fork_done(child);
        ui.progress(Progress::Notice(&format!(
            "fork {child} {}",
            if outcome.is_ok() {
                "finished"
            } else {
                "failed"
            }
        )));
        self.totals.add(&fork.totals);
        let outcome = outcome?.unwrap_or_else(|| TurnOutcome {
            text: fork.last_answer(),
            ..TurnOutcome::default()
        });
        Ok((fork.id().to_owned(), outcome))
    }

    /// The text of the last model answer in the view.
    fn last_answer(&self) -> String {
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

/// What a fork's call is answered with: its final message and its handle, or that it was
/// cancelled.
fn fork_report(handle: &str, id: &str, outcome: &TurnOutcome) -> ToolOutput {
    if outcome.cancelled {
        return ToolOutput::error(format!(
            "fork {handle} (session {id}) was cancelled by the user before it finished; \
             its work so far is archived under {handle}"
        ));
    }
    ToolOutput::ok(format!(
        "fork {handle} (session {id}) finished:\n{}",
        outcome.text
    ))
}

/// Remembers which files the forks `id` can see touched, for the file-touch cue (once each:
/// what is already known stays).
pub(super) fn note_delegated_files(
    store: &Store,
    id: &str,
    out: &mut Vec<(String, String, String)>,
) {
    let Ok(delegated) = store.visible_delegated(id) else {
        return;
    };
    for child in delegated {
        if let Some(handle) = &child.delegation.handle
            && !out.iter().any(|(_, h, _)| h == handle)
        {
            note_fork_files(store, &child.id, handle, &child.delegation.description, out);
        }
    }
}

/// Remembers which files the fork `child` (known by `handle`, working on `task`) touched.
fn note_fork_files(
    store: &Store,
    child: &str,
    handle: &str,
    task: &str,
    out: &mut Vec<(String, String, String)>,
) {
    let Ok(log) = store.read(child) else {
        return;
    };
    let title = format!("fork: {task}");
    for record in &log.records {
        if let Body::ToolResult { files, .. } = &record.body {
            for touch in files {
                out.push((touch.path.clone(), handle.to_owned(), title.clone()));
            }
        }
    }
}

/// The call the first tool result of `child`'s own log answers (children written before their
/// delegation named its call).
fn first_result(store: &Store, child: &str) -> Option<String> {
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
fn task_title(task: &str) -> String {
    let line = task.lines().next().unwrap_or("").trim();
    let mut title: String = line.chars().take(80).collect();
    if line.chars().count() > 80 {
        title.pop();
        title.push('…');
    }
    title
}
