//! The events an agent sends its front end: owned values, one per thing that happened, in
//! order, over a channel. `hotl -p --output-format stream-json` prints each as one JSON line
//! (`docs/json.md` lists them); the console and any other front end render the same values.
//!
//! A front end that goes away (drops its receiver) cancels the work in progress: the next
//! event that cannot be delivered sets the cancel signal, and the turn closes its run cleanly,
//! so the log stays valid and resumable.

use std::sync::Arc;

use serde::Serialize;
use tokio::sync::{mpsc, watch};

use crate::session::TurnOutcome;

/// One event, with the child it came from.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Envelope {
    /// The handle of the fork (or other delegated child) whose work produced it; absent for
    /// the session's own. Nested children carry the innermost handle.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub child: Option<String>,
    /// What happened.
    #[serde(flatten)]
    pub event: Event,
}

/// How [`Event::ToolsAdded`] reads, for a front end: the count and the first few names.
pub fn tools_added_line(tools: &[String]) -> String {
    const SHOWN: usize = 4;
    let mut names = tools
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if tools.len() > SHOWN {
        names.push_str(&format!(" and {} more", tools.len() - SHOWN));
    }
    let s = if tools.len() == 1 { "" } else { "s" };
    format!("{} tool{s} ready: {names}", tools.len())
}

/// What an agent reports. Serialized with a `type` tag (`"tool_use"`, `"notice"`, ...).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Event {
    /// The agent is ready: the first event, before any command runs.
    Init {
        /// The session's id (a new session's is given out now and its log written with the
        /// first message).
        session_id: String,
        /// Whether the session exists on disk already.
        saved: bool,
        /// Its working directory.
        cwd: String,
        /// The model asked.
        model: String,
        /// The tools the model can call, in order.
        tools: Vec<String>,
    },
    /// What the session spent ([`Command::Stats`](crate::Command::Stats)).
    Stats(Box<crate::stats::Stats>),
    /// The session as the model sees it ([`Command::Dump`](crate::Command::Dump)).
    Dump(Box<crate::session::Dump>),
    /// Tools arrived after [`Event::Init`] (an MCP server's, started after the front end's
    /// first frame): a session written from now on offers them too.
    ToolsAdded {
        /// Their names, in order.
        tools: Vec<String>,
    },
    /// The session was written for the first time (its first message).
    Created {
        /// Its id.
        session_id: String,
    },
    /// A model stream event, as it arrives.
    Model {
        /// The event.
        event: hotl_wire::Event,
    },
    /// A tool call is about to run (every call: built-in tools, moves, unknown names).
    ToolUse {
        /// The call id.
        id: String,
        /// The tool.
        name: String,
        /// Its arguments, exactly as the model wrote them (a JSON string holding the text
        /// when it is not JSON).
        input: hotl_log::ToolInput,
    },
    /// A tool call finished (or was answered without running: refused, cancelled).
    ToolResult {
        /// The call id.
        id: String,
        /// The tool.
        name: String,
        /// Whether it failed.
        is_error: bool,
        /// What the model sees.
        content: String,
    },
    /// Something worth a line: a retry, a refusal, a recovery, a compaction.
    Notice {
        /// What to say.
        message: String,
    },
    /// A call needs the user's yes: answer with [`Command::Approve`](crate::Command) and this
    /// id. The turn waits; drawing and other commands do not.
    Approval {
        /// What to answer.
        id: u64,
        /// The tool.
        tool: String,
        /// The question, naming the call.
        question: String,
    },
    /// Where the session stands: sent after each step, each command and on request.
    Status(Status),
    /// A fork (or other delegated child) started; its events carry its handle until
    /// [`Event::ChildEnded`].
    ChildStarted {
        /// Its handle.
        handle: String,
        /// What it was asked to do.
        task: String,
    },
    /// A child finished.
    ChildEnded {
        /// Its handle.
        handle: String,
        /// Whether it finished its turn (not failed).
        ok: bool,
    },
    /// A submitted message's turn ended.
    TurnEnded(TurnOutcome),
    /// A recovery ended: the turn a dead process left open was finished (`outcome`), or there
    /// was none (`outcome` null).
    Recovered {
        /// The finished turn.
        outcome: Option<TurnOutcome>,
    },
    /// A move run by command ended.
    MoveEnded(MoveResult),
    /// The session was named.
    Renamed {
        /// The name.
        name: String,
    },
    /// The permission mode changed.
    ModeChanged {
        /// The mode, as typed (`default`, `accept-edits`, `bypass`, `plan`).
        mode: String,
    },
    /// The agent is about to switch sessions; a `before_switch` hook may still cancel it
    /// (then [`Event::Failed`] with command `switch` follows, and nothing changed).
    BeforeSwitch {
        /// Why.
        reason: SwitchReason,
        /// The session being left.
        from: String,
        /// The session switched to, when it is known already (a resume's; a new session's
        /// id once given out; a fork's only after it is made).
        #[serde(skip_serializing_if = "Option::is_none")]
        to: Option<String>,
    },
    /// The agent switched sessions: commands act on `to` from now on.
    Switch {
        /// Why.
        reason: SwitchReason,
        /// The session left.
        from: String,
        /// The session switched to.
        to: String,
        /// Whether it exists on disk (a new one is written with its first message).
        saved: bool,
        /// Its working directory.
        cwd: String,
        /// Its title, when it has one.
        #[serde(skip_serializing_if = "Option::is_none")]
        title: Option<String>,
        /// Its visible user turns.
        turns: usize,
        /// Its permission mode, as recorded (the one it runs with from now on).
        mode: String,
    },
    /// A `clear` was recorded: the model sees nothing before `seq` from now on.
    Cleared {
        /// The clear's seq.
        seq: u64,
    },
    /// A `revert` was recorded: user message `before` and every later turn left the visible
    /// branch.
    Reverted {
        /// The user message reverted before.
        before: u64,
        /// The last stamp kept.
        to: u64,
        /// The message's text (a front end puts it back in the composer).
        text: String,
    },
    /// The models the provider lists (answers [`Command::Models`](crate::Command)).
    Models {
        /// Their ids, as the provider gives them.
        models: Vec<String>,
        /// The model asked now.
        current: String,
    },
    /// The model changed (answers [`Command::SetModel`](crate::Command)): the prompt cache
    /// starts cold for it.
    ModelChanged {
        /// The model before.
        from: String,
        /// The model from now on.
        to: String,
    },
    /// The reasoning effort changed (answers [`Command::SetEffort`](crate::Command)).
    EffortChanged {
        /// `low`, `medium` or `high`.
        effort: String,
    },
    /// What the context is made of (answers [`Command::Context`](crate::Command)).
    Context(crate::ContextParts),
    /// A `fresh` was recorded: the provider side starts clean.
    Fresh {
        /// The prompt-cache key requests carry from now on.
        cache_key: String,
        /// Whether the provider routes by that key (OpenAI); Anthropic caches by the request
        /// prefix, so there only this process's own state was dropped.
        routed: bool,
        /// How many encoded messages this process had kept for reuse and dropped.
        forgotten: usize,
    },
    /// The session was dropped (the agent is on a new one, see the [`Event::Switch`] that
    /// follows).
    Dropped {
        /// The dropped session.
        session_id: String,
        /// Sessions that descend from it, for which it is hidden and kept (empty: deleted).
        kept_for: Vec<String>,
    },
    /// A move was cancelled before it was done; nothing was recorded.
    Cancelled {
        /// The move: `fold`, `compact`, `recall`, `ask`.
        command: String,
    },
    /// A command failed; the session is kept as it was before the command, or as far as it
    /// got (a turn's log stays valid and resumable).
    Failed {
        /// The command: `submit`, `recover`, `fold`, `compact`, `recall`, `ask`, `rename`,
        /// `mode`, `switch`, `clear`, `fresh`, `drop`.
        command: String,
        /// Why.
        error: String,
        /// What the failed command had spent on the model before it failed (a turn that
        /// failed after answering part of it), when it spent anything.
        #[serde(skip_serializing_if = "Option::is_none")]
        usage: Option<hotl_wire::Usage>,
        /// Its cost in dollars, when the model's price is known.
        #[serde(skip_serializing_if = "Option::is_none")]
        cost: Option<f64>,
    },
}

/// Why the agent switched sessions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SwitchReason {
    /// To a new, empty session (`/new`, and after `/drop`).
    New,
    /// To a fork of the current session (`/fork`).
    Fork,
    /// To another existing session (`/resume`).
    Resume,
}

impl SwitchReason {
    /// The word events and hooks use.
    pub fn name(self) -> &'static str {
        match self {
            SwitchReason::New => "new",
            SwitchReason::Fork => "fork",
            SwitchReason::Resume => "resume",
        }
    }
}

/// What a move run by command gave.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "move", rename_all = "snake_case")]
pub enum MoveResult {
    /// A span was folded.
    Folded {
        /// Its first stamp.
        since: u64,
        /// Its last stamp.
        until: u64,
        /// The handle it is archived under.
        handle: String,
        /// The note that replaces it.
        note: String,
        /// The files the span touched.
        files: Vec<String>,
    },
    /// Everything the model sees was compacted.
    Compacted {
        /// Compacted through this seq.
        until: u64,
        /// The handle recall and ask name it by (`compaction@t<until>`).
        handle: String,
    },
    /// Recall's hits, as the model would see them.
    Recalled {
        /// The rendered hits.
        text: String,
    },
    /// An archived thread's answer.
    Answered {
        /// The answer (with a `stale:` line when its files changed since).
        text: String,
    },
}

/// Where a session stands, for a status line.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Status {
    /// The session's id.
    pub session_id: String,
    /// About how many tokens the next request holds (0: unknown, e.g. right after a fold).
    pub context_used: u64,
    /// The model's context window in tokens (0: no limit known).
    pub context_window: u64,
    /// `context_used` as a percentage of the window.
    pub context_percent: u64,
    /// Todos marked done.
    pub todos_done: usize,
    /// Todos in all.
    pub todos: usize,
    /// The model that answered last (or the session's).
    pub model: Option<String>,
    /// The permission mode recorded last.
    pub mode: Option<String>,
    /// The reasoning effort asked, when one is set.
    pub effort: Option<String>,
    /// Tokens this process spent on the session.
    pub usage: hotl_wire::Usage,
    /// Dollars this process spent (known prices only).
    pub cost: f64,
    /// Model calls this process made.
    pub requests: u32,
    /// The share of the last request's prompt read from the cache (0 to 1), when known.
    pub cache_hit: Option<f64>,
    /// Time this process spent waiting for the model (after each request body was built), in
    /// seconds.
    #[serde(rename = "model_seconds", serialize_with = "seconds")]
    pub model_time: std::time::Duration,
    /// Time this process spent in tools, in seconds.
    #[serde(rename = "tool_seconds", serialize_with = "seconds")]
    pub tool_time: std::time::Duration,
}

fn seconds<S: serde::Serializer>(d: &std::time::Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}

/// Where events go: a channel to the front end, or nowhere. Cheap to clone.
#[derive(Clone, Debug, Default)]
pub struct Events {
    tx: Option<mpsc::UnboundedSender<Envelope>>,
    child: Option<Arc<str>>,
    /// Set when the receiver is gone: the work in progress stops.
    cancel: Option<Arc<watch::Sender<bool>>>,
}

impl Events {
    /// Events for a new channel, and its receiving end.
    pub fn channel() -> (Events, mpsc::UnboundedReceiver<Envelope>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (
            Events {
                tx: Some(tx),
                ..Events::default()
            },
            rx,
        )
    }

    /// Events nobody receives.
    pub fn discard() -> Events {
        Events::default()
    }

    /// These events, setting `cancel` when the receiver is gone.
    pub fn cancelling(mut self, cancel: Arc<watch::Sender<bool>>) -> Events {
        self.cancel = Some(cancel);
        self
    }

    /// These events, marked as the child `handle`'s.
    pub(crate) fn child(&self, handle: &str) -> Events {
        Events {
            child: Some(Arc::from(handle)),
            ..self.clone()
        }
    }

    /// Sends `event`; a receiver that is gone cancels the work in progress.
    pub(crate) fn send(&self, event: Event) {
        let Some(tx) = &self.tx else {
            return;
        };
        let envelope = Envelope {
            child: self.child.as_deref().map(str::to_owned),
            event,
        };
        if tx.send(envelope).is_err()
            && let Some(cancel) = &self.cancel
        {
            tracing::debug!("the front end is gone: cancelling");
            cancel.send_replace(true);
        }
    }

    /// Sends a notice.
    pub(crate) fn notice(&self, message: impl Into<String>) {
        self.send(Event::Notice {
            message: message.into(),
        });
    }

    /// Resolves once nobody receives these events any more (never for events that go
    /// nowhere).
    pub(crate) async fn closed(&self) {
        match &self.tx {
            Some(tx) => tx.closed().await,
            None => std::future::pending().await,
        }
    }

    /// Whether nobody receives these events any more (a channel whose receiver is gone).
    pub(crate) fn is_closed(&self) -> bool {
        self.tx.as_ref().is_some_and(|tx| tx.is_closed())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_serialize_flat_with_their_type_and_child() {
        let plain = Envelope {
            child: None,
            event: Event::Notice {
                message: "hi".into(),
            },
        };
        assert_eq!(
            serde_json::to_string(&plain).unwrap(),
            r#"{"type":"notice","message":"hi"}"#
        );
        let call = Envelope {
            child: None,
            event: Event::ToolUse {
                id: "c1".into(),
                name: "bash".into(),
                input: hotl_log::ToolInput::from_json(r#"{"command": "ls", "a": 1}"#).unwrap(),
            },
        };
        assert_eq!(
            serde_json::to_string(&call).unwrap(),
            r#"{"type":"tool_use","id":"c1","name":"bash","input":{"command": "ls", "a": 1}}"#,
            "the arguments as written, key order and spacing kept"
        );
        let from_child = Envelope {
            child: Some("ab12".into()),
            event: Event::ToolResult {
                id: "c1".into(),
                name: "bash".into(),
                is_error: false,
                content: "ok".into(),
            },
        };
        assert_eq!(
            serde_json::to_string(&from_child).unwrap(),
            r#"{"child":"ab12","type":"tool_result","id":"c1","name":"bash","is_error":false,"content":"ok"}"#
        );
        let moved = Event::MoveEnded(MoveResult::Compacted {
            until: 9,
            handle: "compaction@t9".into(),
        });
        assert_eq!(
            serde_json::to_string(&moved).unwrap(),
            r#"{"type":"move_ended","move":"compacted","until":9,"handle":"compaction@t9"}"#
        );
    }

    #[test]
    fn a_receiver_that_is_gone_cancels() {
        let (cancel, watching) = watch::channel(false);
        let (events, rx) = Events::channel();
        let events = events.cancelling(Arc::new(cancel));
        events.notice("delivered");
        assert!(!*watching.borrow());
        drop(rx);
        assert!(events.is_closed());
        events.child("ab12").notice("nobody hears this");
        assert!(*watching.borrow(), "cancelled");
    }
}
