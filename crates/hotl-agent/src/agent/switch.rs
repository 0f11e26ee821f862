//! The agent's session operations: switching to a new, resumed or forked session, clearing,
//! starting fresh, dropping.
//!
//! A switch is all or nothing: the session switched to is made and opened (its lock taken)
//! before the current one is let go, so any failure (a lock another process holds, a fork
//! that cannot be cut, a hook that says no) leaves the agent exactly where it was. Nothing is
//! written by the switch itself: a new session is written with its first message, a resumed
//! one only by what is done in it; a fork writes its own log, since making it is the point.

use std::sync::Arc;

use hotl_log::Dropped;
use hotl_protocol::{Event, Mode, Outcome, SwitchReason, SwitchTo};

use super::worker::Worker;
use crate::error::{AgentError, Result};
use crate::hooks::{HookPoint, run_hooks};
use crate::lifecycle::NewSession;
use crate::session::Session;

/// The session a switch goes to, made and ready.
#[allow(clippy::large_enum_variant)] // one per switch
enum Next {
    Pending(NewSession),
    Open(Box<Session>),
}

impl Worker {
    /// The id of the session the agent is on (a new one's, given out already).
    fn current_id(&self) -> String {
        match (&self.session, &self.pending) {
            (Some(s), _) => s.id().to_owned(),
            (None, Some(new)) => new.id().to_owned(),
            (None, None) => String::new(),
        }
    }

    /// The saved session, or what to tell a user who asked `what` of one never written.
    pub(super) fn saved(&mut self, what: &str) -> Result<&mut Session> {
        self.session.as_mut().ok_or_else(|| {
            AgentError::Refused(format!(
                "nothing to {what} yet: the session is written with its first message"
            ))
        })
    }

    /// A new session in the current directory, in the current mode.
    fn new_session(&self) -> Result<NewSession> {
        Ok(NewSession::new(
            &self.store,
            self.current_cwd(),
            &self.cx.settings.model,
            self.tools.clone(),
        )?
        .with_instructions(self.instructions.clone())
        .with_mode(self.cx.settings.policy.mode))
    }

    /// Runs the hooks at `point` with `event`.
    async fn hooks(&self, point: HookPoint, mut event: serde_json::Value) -> Result<(), String> {
        let settings = &self.cx.settings;
        if !settings.hooks.iter().any(|h| h.point == point) {
            return Ok(());
        }
        let cwd = self.current_cwd();
        if let Some(fields) = event.as_object_mut() {
            fields.insert("event".to_owned(), point.name().into());
            fields.insert("cwd".to_owned(), cwd.display().to_string().into());
        }
        run_hooks(&settings.hooks, point, &event, &cwd, &settings.hidden_env).await
    }

    /// Says a switch is coming, and lets the `before_switch` hooks cancel it.
    async fn before_switch(
        &self,
        reason: SwitchReason,
        from: &str,
        to: Option<&str>,
    ) -> Result<()> {
        self.events().send(Event::BeforeSwitch {
            reason,
            from: from.to_owned(),
            to: to.map(str::to_owned),
        });
        let event = serde_json::json!({ "reason": reason.name(), "from": from, "to": to });
        self.hooks(HookPoint::BeforeSwitch, event)
            .await
            .map_err(AgentError::SwitchCancelled)
    }

    /// Runs a [`Command::Switch`](hotl_protocol::Command::Switch).
    pub(super) async fn switch(&mut self, to: SwitchTo) -> Result<Outcome> {
        let reason = match &to {
            SwitchTo::New => SwitchReason::New,
            SwitchTo::Resume { .. } => SwitchReason::Resume,
            SwitchTo::Fork { .. } => SwitchReason::Fork,
        };
        let from = self.current_id();
        if self.cx.settings.ephemeral && reason != SwitchReason::New {
            return Err(AgentError::Refused(format!(
                "this session is not saved (--no-session): {} needs a saved session",
                if reason == SwitchReason::Fork {
                    "a fork"
                } else {
                    "resuming"
                }
            )));
        }
        let next = match to {
            SwitchTo::New => {
                let new = self.new_session()?;
                self.before_switch(reason, &from, Some(new.id())).await?;
                Next::Pending(new)
            }
            SwitchTo::Resume { session, reroot } => {
                if session == from {
                    return Err(AgentError::Refused(format!("already in session {session}")));
                }
                self.before_switch(reason, &from, Some(&session)).await?;
                self.adopt(&session).await?;
                let mut opened = Session::open(&self.store, &session, self.tools.clone())?;
                if let Some(cwd) = reroot {
                    opened.reroot(&cwd)?;
                }
                Next::Open(Box::new(opened))
            }
            SwitchTo::Fork { at, worktree } => {
                let parent = self.saved("fork")?;
                let (parent_id, cwd) = (parent.id().to_owned(), parent.cwd().to_path_buf());
                self.before_switch(reason, &from, None).await?;
                let meta = self.store.meta(&parent_id)?;
                let writer = if worktree {
                    crate::lifecycle::fork_into_worktree(&self.store, &meta, at, None)?.0
                } else {
                    crate::lifecycle::fork(
                        &self.store,
                        &meta,
                        at,
                        None,
                        &cwd.display().to_string(),
                    )?
                };
                Next::Open(Box::new(Session::from_writer(
                    &self.store,
                    writer,
                    self.tools.clone(),
                )?))
            }
        };
        self.commit(reason, from, next).await;
        Ok(Outcome::Switched {
            to: self.current_id(),
        })
    }

    /// Moves the agent onto `next` (the session left is let go, its lock with it) and says
    /// so.
    async fn commit(&mut self, reason: SwitchReason, from: String, next: Next) {
        let mode = match &next {
            Next::Pending(new) => new.mode(),
            // A session's mode is the one it recorded (a fork records its parent's).
            Next::Open(session) => session.recorded_mode().unwrap_or_default(),
        };
        let (session, pending) = match next {
            Next::Pending(new) => (None, Some(new)),
            Next::Open(session) => (Some(*session), None),
        };
        let left_root = self.session.as_ref().map(|s| self.store.root_of(s.id()));
        let left = (
            std::mem::replace(&mut self.session, session),
            std::mem::replace(&mut self.pending, pending),
        );
        drop(left);
        self.leave(left_root);
        Arc::make_mut(&mut self.cx.settings).policy.mode = mode;
        let to = self.current_id();
        let (saved, title, turns) = match &self.session {
            Some(s) => (
                true,
                s.view().state.title.clone().filter(|t| !t.is_empty()),
                s.view().turns,
            ),
            None => (false, None, 0),
        };
        let cwd = self.current_cwd().display().to_string();
        self.events().send(Event::Switch {
            reason,
            from: from.clone(),
            to: to.clone(),
            saved,
            cwd: cwd.clone(),
            title,
            turns,
            mode: mode.name().to_owned(),
        });
        self.tell_about_session();
        if mode != Mode::Default {
            self.events().notice(format!(
                "mode: {}, recorded in this session; /mode default to drop it",
                mode.name()
            ));
        }
        let event = serde_json::json!({ "reason": reason.name(), "from": from, "to": to });
        if let Err(why) = self.hooks(HookPoint::Switch, event).await {
            self.events().notice(format!("a switch hook failed: {why}"));
        }
        self.send_status();
    }

    /// Runs a [`Command::Clear`](hotl_protocol::Command::Clear).
    pub(super) fn clear(&mut self) -> Result<Outcome> {
        let seq = self.saved("clear")?.clear()?;
        self.send_status();
        Ok(Outcome::Cleared { seq })
    }

    /// Runs a [`Command::Fresh`](hotl_protocol::Command::Fresh).
    pub(super) fn fresh(&mut self) -> Result<Outcome> {
        let cache_key = self.saved("start fresh")?.fresh()?;
        let forgotten = self.cx.provider.forget();
        Ok(Outcome::Fresh {
            cache_key,
            routed: self.cx.provider.routes_by_cache_key(),
            forgotten,
        })
    }

    /// Runs a [`Command::Drop`](hotl_protocol::Command::Drop): the session goes (or is hidden
    /// and kept for its descendants) and the agent moves to a new one.
    pub(super) async fn drop_session(&mut self) -> Result<Outcome> {
        let id = self.saved("drop")?.id().to_owned();
        let new = self.new_session()?;
        self.before_switch(SwitchReason::New, &id, Some(new.id()))
            .await?;
        // The store takes the session's lock to delete it: let ours go first.
        let tools = self.tools.clone();
        drop(self.session.take());
        let dropped = match self.store.drop_session(&id) {
            Ok(dropped) => dropped,
            Err(e) => {
                self.session = match Session::open(&self.store, &id, tools) {
                    Ok(session) => Some(session),
                    Err(reopen) => {
                        // Someone took it in between: go on in the new session.
                        tracing::warn!(
                            session = id,
                            "the session cannot be opened again: {reopen}"
                        );
                        self.pending = Some(new);
                        None
                    }
                };
                return Err(e.into());
            }
        };
        let kept_for = match dropped {
            Dropped::Deleted => Vec::new(),
            Dropped::Tombstoned { descendants } => descendants,
        };
        self.commit(SwitchReason::New, id.clone(), Next::Pending(new))
            .await;
        Ok(Outcome::Dropped {
            session_id: id,
            kept_for,
        })
    }
}
