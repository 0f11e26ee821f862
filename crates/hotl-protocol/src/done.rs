//! How a command ends: [`Done`], with what it gave ([`Outcome`]) or why it failed
//! ([`Failure`], of a [`FailureKind`] a front end can act on without reading its words).
//!
//! A front end waits for the `Done` of the command it sent and for nothing else; which events
//! end which command is decided here, once.

use serde::Serialize;
use serde::ser::SerializeMap;

use crate::context::ContextParts;
use crate::dump::Dump;
use crate::event::{MoveResult, Status};
use crate::stats::Stats;
use crate::turn::TurnOutcome;

/// The end of one command.
#[derive(Clone, Debug, PartialEq)]
pub struct Done {
    /// What it gave, or why it failed.
    pub result: Result<Outcome, Failure>,
}

impl Done {
    /// A command that did what it was asked.
    pub fn ok(outcome: Outcome) -> Done {
        Done {
            result: Ok(outcome),
        }
    }

    /// A command that failed.
    pub fn failed(failure: Failure) -> Done {
        Done {
            result: Err(failure),
        }
    }
}

/// What a command that did what it was asked gave, named as the event that ends it in the JSON
/// lines (`type`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Outcome {
    /// A submitted message's turn ended (cancelled too: `cancelled` says so).
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
    /// Where the session stands (answers [`Command::Status`](crate::Command::Status)).
    Status(Status),
    /// The agent is on another session now (the [`Event::Switch`](crate::Event::Switch)
    /// before this says which).
    Switched {
        /// The session switched to.
        to: String,
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
        /// What went back.
        scope: crate::RevertScope,
        /// The files the later turns changed and what became of each (empty when the code
        /// was left alone, or nothing changed).
        files: Vec<crate::FileRewound>,
    },
    /// The last code restore was undone: what became of each file it had changed.
    Undone {
        /// The files, and what became of each.
        files: Vec<crate::FileRewound>,
    },
    /// The models the provider lists.
    Models {
        /// Their ids, as the provider gives them.
        models: Vec<String>,
        /// The model asked now.
        current: String,
    },
    /// The model changed: the prompt cache starts cold for it.
    ModelChanged {
        /// The model before.
        from: String,
        /// The model from now on.
        to: String,
    },
    /// The reasoning effort changed.
    EffortChanged {
        /// `low`, `medium` or `high`.
        effort: String,
    },
    /// What the context is made of.
    Context(ContextParts),
    /// What the session spent.
    Stats(Box<Stats>),
    /// The session as the model sees it.
    Dump(Box<Dump>),
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
    /// The session was dropped; the agent is on a new one (see the
    /// [`Event::Switch`](crate::Event::Switch) before this).
    Dropped {
        /// The dropped session.
        session_id: String,
        /// Sessions that descend from it, for which it is hidden and kept (empty: deleted).
        kept_for: Vec<String>,
    },
    /// A command the agent acts on at once (`cancel`, `approve`) was taken.
    Accepted {
        /// Its name.
        command: String,
    },
}

/// Why a command failed: what kind of failure, in words, and what it had spent.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Failure {
    /// The command: `submit`, `recover`, `fold`, `compact`, `recall`, `ask`, `rename`, `mode`,
    /// `switch`, `clear`, `fresh`, `drop`, `revert`, `stats`, ...
    pub command: String,
    /// What kind of failure.
    pub kind: FailureKind,
    /// Why, in words.
    #[serde(rename = "error")]
    pub message: String,
    /// The provider's HTTP status, when there was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// What the failed command had spent on the model before it failed (a turn that failed
    /// after answering part of it), when it spent anything.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<Box<hotl_wire::Usage>>,
    /// Its cost in dollars, when the model's price is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<f64>,
}

impl Failure {
    /// A failure of `command` of `kind`, saying `message`, that spent nothing.
    pub fn new(command: &str, kind: FailureKind, message: impl Into<String>) -> Failure {
        Failure {
            command: command.to_owned(),
            kind,
            message: message.into(),
            status: None,
            usage: None,
            cost: None,
        }
    }

    /// A command cancelled before it was done: nothing was recorded.
    pub fn cancelled(command: &str) -> Failure {
        Failure::new(
            command,
            FailureKind::Cancelled,
            "cancelled; nothing was recorded",
        )
    }

    /// A command refused because work runs and it must not wait behind it.
    pub fn busy(command: &str) -> Failure {
        Failure::new(
            command,
            FailureKind::Busy,
            "a turn is running: wait for it to end, or stop it first",
        )
    }
}

/// What kind of failure ended a command: what a front end decides on (an editor's stop
/// reason, an exit status), never the message's words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum FailureKind {
    /// The model kept calling tools past the step limit.
    StepLimit,
    /// The model called the same tool with the same arguments and result too many times.
    Loop,
    /// The context window cannot hold the conversation (compaction could not make room).
    Window,
    /// The provider's stream failed or broke mid-answer.
    Stream,
    /// The provider could not be reached.
    Connection,
    /// The provider answered with an error of its own.
    Provider,
    /// The session store failed, or another process owns the session.
    Store,
    /// The command cannot be done as asked (a bad argument, nothing to act on, a hook said no).
    Refused,
    /// A turn is running, and the command must not wait behind it.
    Busy,
    /// The session has no first message yet.
    NoSession,
    /// The user cancelled it before it was done; nothing was recorded.
    Cancelled,
    /// Anything else (an internal error).
    Other,
}

impl FailureKind {
    /// The word for it, as the JSON lines and `error` records give it.
    pub fn name(self) -> &'static str {
        match self {
            FailureKind::StepLimit => "step_limit",
            FailureKind::Loop => "loop",
            FailureKind::Window => "window",
            FailureKind::Stream => "stream",
            FailureKind::Connection => "connection",
            FailureKind::Provider => "provider",
            FailureKind::Store => "store",
            FailureKind::Refused => "refused",
            FailureKind::Busy => "busy",
            FailureKind::NoSession => "no_session",
            FailureKind::Cancelled => "cancelled",
            FailureKind::Other => "other",
        }
    }
}

impl Serialize for Done {
    /// The event that ends the command in the JSON lines: the outcome as its own tagged
    /// object; a failure as `failed` (with its `kind`), or `cancelled` when it was cancelled.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.result {
            Ok(outcome) => outcome.serialize(serializer),
            Err(failure) if failure.kind == FailureKind::Cancelled => {
                let mut map = serializer.serialize_map(Some(2))?;
                map.serialize_entry("type", "cancelled")?;
                map.serialize_entry("command", &failure.command)?;
                map.end()
            }
            Err(failure) => {
                let mut map = serializer.serialize_map(None)?;
                map.serialize_entry("type", "failed")?;
                map.serialize_entry("command", &failure.command)?;
                map.serialize_entry("kind", &failure.kind)?;
                map.serialize_entry("error", &failure.message)?;
                if let Some(status) = failure.status {
                    map.serialize_entry("status", &status)?;
                }
                if let Some(usage) = &failure.usage {
                    map.serialize_entry("usage", usage)?;
                }
                if let Some(cost) = failure.cost {
                    map.serialize_entry("cost", &cost)?;
                }
                map.end()
            }
        }
    }
}
