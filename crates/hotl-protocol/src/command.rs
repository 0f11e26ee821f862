//! What a front end asks of an agent: [`Command`]s, each sent with a [`CommandId`] that every
//! event it causes carries and that its one [`Done`](crate::Done) names.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::mode::Mode;

/// The id an agent handle gives a command when it is sent: unique for the handle's life,
/// increasing from 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CommandId(pub u64);

impl std::fmt::Display for CommandId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// What a front end asks of an agent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Command {
    /// Run a turn on this message.
    Submit {
        /// The message.
        text: String,
    },
    /// Finish a turn a dead process left open, if there is one.
    Recover,
    /// Stop what is running (acted on at once; nothing when idle).
    Cancel,
    /// Answer an approval question (acted on at once).
    Approve {
        /// The question's id, from [`Event::Approval`](crate::Event::Approval).
        id: u64,
        /// The answer.
        answer: Answer,
        /// Why not, in the user's words, when the answer is no: the model reads it with the
        /// refusal.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// Run a move on the session's own context.
    Move(Move),
    /// Name the session.
    Rename {
        /// The name.
        name: String,
    },
    /// Change the permission mode (recorded, so resumes and forks keep it).
    SetMode {
        /// The mode.
        mode: Mode,
    },
    /// Where the session stands: ends with [`Outcome::Status`](crate::Outcome::Status).
    Status,
    /// What the context is made of.
    Context,
    /// What the session spent, per turn and in total.
    Stats,
    /// The session as the model sees it, and its next body.
    Dump,
    /// The models the provider lists.
    Models,
    /// Ask with reasoning effort `low`, `medium` or `high` from now on (recorded, so resumes
    /// and forks keep it).
    SetEffort {
        /// The level.
        effort: String,
    },
    /// Answer with `model` from the next request on (recorded, so resumes and forks keep it).
    SetModel {
        /// The model.
        model: String,
    },
    /// Switch to another session: all or nothing (anything that fails leaves the agent on
    /// the session it was on), cancellable by a `before_switch` hook. Refused while work runs.
    Switch(SwitchTo),
    /// Record a `clear`: the model sees nothing before it. Refused while work runs.
    Clear,
    /// Record a `fresh`: a new prompt-cache key, and this process's provider state dropped.
    /// Refused while work runs.
    Fresh,
    /// Revert to just before user message `t<seq>`: it and every later turn leave the
    /// visible branch (the log keeps them). Refused while work runs.
    Revert {
        /// The user message's seq.
        before: u64,
        /// What goes back: the conversation, the files the later turns changed, or both.
        #[serde(default)]
        scope: crate::RevertScope,
    },
    /// Undo the last code restore (a revert's, or an undo): the files it changed go back as
    /// they were before it, except those changed since (kept and named). Refused while work
    /// runs.
    UndoRestore,
    /// Drop the session as `hotl sessions drop` does (deleted, or hidden and kept for the
    /// sessions that descend from it) and switch to a new one. Refused while work runs.
    Drop,
}

impl Command {
    /// The command's name, as a failure names it.
    pub fn name(&self) -> &'static str {
        match self {
            Command::Submit { .. } => "submit",
            Command::Recover => "recover",
            Command::Cancel => "cancel",
            Command::Approve { .. } => "approve",
            Command::Move(step) => step.name(),
            Command::Rename { .. } => "rename",
            Command::SetMode { .. } => "mode",
            Command::Status => "status",
            Command::Context => "context",
            Command::Stats => "stats",
            Command::Dump => "dump",
            Command::Models => "models",
            Command::SetEffort { .. } => "effort",
            Command::SetModel { .. } => "model",
            Command::Switch(_) => "switch",
            Command::Clear => "clear",
            Command::Fresh => "fresh",
            Command::Drop => "drop",
            Command::Revert { .. } => "revert",
            Command::UndoRestore => "undo",
        }
    }

    /// Whether it changes which session, or what the model sees of it, so that it must not
    /// wait behind running work: it is refused then.
    pub fn needs_idle(&self) -> bool {
        matches!(
            self,
            Command::Switch(_)
                | Command::Clear
                | Command::Fresh
                | Command::Drop
                | Command::Revert { .. }
                | Command::UndoRestore
        )
    }

    /// Whether the agent acts on it at once, even while other work runs (and ends it at once).
    pub fn is_immediate(&self) -> bool {
        matches!(self, Command::Cancel | Command::Approve { .. })
    }
}

/// The user's answer to an approval question.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    /// Run this call.
    Yes,
    /// Do not run it; the model is told the user declined.
    No,
    /// Run it, and every later call of this tool while the agent runs.
    Always,
}

impl Answer {
    /// The word a front end echoes under the question.
    pub fn word(self) -> &'static str {
        match self {
            Answer::Yes => "yes",
            Answer::No => "no",
            Answer::Always => "always",
        }
    }
}

/// The session a [`Command::Switch`] goes to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "to", rename_all = "snake_case")]
pub enum SwitchTo {
    /// A new, empty session in the same directory (written with its first message).
    New,
    /// An existing session, by id.
    Resume {
        /// Its id.
        session: String,
        /// Move it here first (its recorded directory is gone): a `reroot` record, written
        /// only once it is open.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reroot: Option<PathBuf>,
    },
    /// A fork of the current session, cut at `at`.
    Fork {
        /// Where the fork ends its inherited history.
        #[serde(default)]
        at: ForkAt,
        /// The fork works in a new git worktree checked out at the code of that point,
        /// leaving the current tree alone.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        worktree: bool,
    },
}

/// Where a fork ends the history it inherits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ForkAt {
    /// At the parent's head.
    #[default]
    Head,
    /// After the parent's first N completed turns (`--keep-turns`).
    Turns(usize),
    /// After the first N transcript items, which must end a turn (`--keep`).
    Items(usize),
    /// After the turn the user message with this seq started (the console's `/fork t12`).
    Message(u64),
}

/// A move a person runs (the model runs the same ones as tools).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "move", rename_all = "snake_case")]
pub enum Move {
    /// Fold the span from `since` (default: the current episode) to the head into `note`
    /// (default: one the model writes).
    Fold {
        /// The stamp the span starts at.
        #[serde(default)]
        since: Option<u64>,
        /// A person's note, checked against the template.
        #[serde(default)]
        note: Option<String>,
    },
    /// Compact everything the model sees into `note` (default: one the model writes).
    Compact {
        /// A person's note.
        #[serde(default)]
        note: Option<String>,
    },
    /// Search the archive (no model call).
    Recall {
        /// What to look for.
        query: String,
        /// `ranked` (default), `exact` or `regex`.
        #[serde(default)]
        mode: Option<String>,
        /// At most this many hits.
        limit: usize,
    },
    /// Put one question to an archived thread.
    Ask {
        /// The thread's handle (a unique prefix does).
        handle: String,
        /// The question.
        question: String,
    },
}

impl Move {
    /// The move's name, as commands and events name it.
    pub fn name(&self) -> &'static str {
        match self {
            Move::Fold { .. } => "fold",
            Move::Compact { .. } => "compact",
            Move::Recall { .. } => "recall",
            Move::Ask { .. } => "ask",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_read_back_from_json_lines() {
        let line = r#"{"command":"submit","text":"hi"}"#;
        let command: Command = serde_json::from_str(line).expect("a submit");
        assert_eq!(command, Command::Submit { text: "hi".into() });
        let fold: Command =
            serde_json::from_str(r#"{"command":"move","move":"fold","since":12}"#).expect("fold");
        assert_eq!(
            fold,
            Command::Move(Move::Fold {
                since: Some(12),
                note: None
            })
        );
        let fork: Command =
            serde_json::from_str(r#"{"command":"switch","to":"fork","at":{"turns":2}}"#)
                .expect("fork");
        assert_eq!(
            fork,
            Command::Switch(SwitchTo::Fork {
                at: ForkAt::Turns(2),
                worktree: false,
            })
        );
        let round = serde_json::to_string(&Command::SetMode {
            mode: Mode::AcceptEdits,
        })
        .expect("serializes");
        assert_eq!(round, r#"{"command":"set_mode","mode":"accept-edits"}"#);
    }
}
