//! What a front end does with a typed line, decided once for every front end: send a command,
//! open a picker, ask first, do something of its own, or say why not.

use super::table::find;
use super::{Foreign, ForkPoint, RECALL_LIMIT, SessionOp, Slash, Worktree};
use crate::command::{Command, ForkAt, Move, SwitchTo};

/// Where the front end stands when a line is typed.
#[derive(Clone, Copy, Debug)]
pub struct Front<'a> {
    /// The session shown.
    pub session: &'a str,
    /// Whether it is on disk (it is written with its first message).
    pub saved: bool,
    /// Whether a turn or a command runs.
    pub busy: bool,
    /// Whether another process owns the session (no agent here: only reading works).
    pub read_only: bool,
    /// Whether the front end is a terminal (the terminal UI, the line console) rather than an
    /// editor: pickers, the clipboard and files for the user are there.
    pub terminal: bool,
}

/// What to do with a typed line.
#[derive(Clone, Debug, PartialEq)]
pub enum Plan {
    /// Send this command to the agent. A message sent while a turn runs waits for it (the
    /// front end queues it); anything else the front end waits for until its
    /// [`Done`](crate::Done).
    Send(Command),
    /// Let the user pick, then act on the choice.
    Pick(Pick),
    /// Ask this yes/no question; on yes, send the command.
    Confirm {
        /// The question.
        question: String,
        /// What a yes sends.
        then: Command,
    },
    /// Something the front end does itself (with its host where it needs the store).
    Local(Local),
    /// Nothing to do: say this (a command used wrongly, unknown, or not possible now).
    Usage(String),
}

/// What the user picks from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pick {
    /// Sessions to resume.
    Sessions,
    /// Another agent's sessions of this directory, to continue as new hotl sessions.
    Foreign(Foreign),
    /// A user message of this session.
    Message(MessagePick),
    /// This session's tree: its root, forks and delegated children.
    Tree,
}

/// What a picked user message is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MessagePick {
    /// A fork after its turn (in a new worktree at the code of that point, when asked).
    Fork {
        /// `--worktree`.
        worktree: bool,
    },
    /// A revert to just before it, taking back what the scope says.
    Revert(crate::RevertScope),
}

/// What a front end does without the agent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Local {
    /// Show `/help` (the [table](super::COMMANDS)'s rows this front end offers).
    Help,
    /// Leave.
    Exit,
    /// Copy the N-th answer from the end (default the last).
    Copy(Option<usize>),
    /// Show the N-th answer from the end as written.
    Raw(Option<usize>),
    /// Say the reasoning effort in force.
    Effort,
    /// Say what this process spent (nothing is on disk to count from yet).
    Cost,
    /// Write the session out (`/export [PATH]`).
    Export(Option<String>),
    /// Seal and share the session.
    Share,
    /// Resolve a session reference as the shell does, then switch to it.
    Resume(String),
    /// Find a session by what was said in it (`/search [QUERY]`): the resume picker searching
    /// every session's text, or, in the line console, the hits printed.
    Search(String),
    /// Import another agent's session (`query`: a file, an id or its prefix) and switch to it.
    Import {
        /// Whose session.
        agent: Foreign,
        /// Which.
        query: String,
    },
    /// Search the archive here (a read-only view has no agent to ask).
    Recall {
        /// What to look for.
        query: String,
        /// `ranked`, `exact` or `regex`.
        mode: String,
        /// At most this many hits.
        limit: usize,
    },
}

/// What a read-only view says when asked for something only the owner of a session can do.
pub const READ_ONLY: &str =
    "read-only: another process owns this session; /recall, /copy, /raw and Ctrl+T work";

/// What a front end does with `slash`, standing where `front` says.
pub fn plan(slash: Slash, front: &Front<'_>) -> Plan {
    let name = match &slash {
        Slash::Message(_) if front.read_only => return Plan::Usage(READ_ONLY.to_owned()),
        Slash::Message(text) => return Plan::Send(Command::Submit { text: text.clone() }),
        Slash::Unknown(word) => {
            return Plan::Usage(format!("unknown command {word}; /help lists them"));
        }
        Slash::Usage(why) => return Plan::Usage(why.clone()),
        other => other.name(),
    };
    let Some(row) = find(name) else {
        return Plan::Usage(format!("unknown command /{name}; /help lists them"));
    };
    if row.needs.terminal && !front.terminal {
        return Plan::Usage(format!(
            "/{name} is a command of hotl's terminal front ends; here the editor starts, \
             loads and shows sessions (the shell has the rest: hotl --help)"
        ));
    }
    if front.read_only {
        return read_only(slash);
    }
    if row.needs.saved && !front.saved {
        return Plan::Usage("no session yet: send a message first".to_owned());
    }
    if row.needs.idle && front.busy {
        return Plan::Usage(format!("/{name} waits for the turn to end (Esc stops it)"));
    }
    match slash {
        Slash::Session(op) => session(op, front),
        other => command(other, front),
    }
}

/// What a read-only view can do: read.
fn read_only(slash: Slash) -> Plan {
    match slash {
        Slash::Recall { mode, query } => Plan::Local(Local::Recall {
            query,
            mode: mode.to_owned(),
            limit: RECALL_LIMIT,
        }),
        Slash::Help => Plan::Local(Local::Help),
        Slash::Exit => Plan::Local(Local::Exit),
        Slash::Copy(n) => Plan::Local(Local::Copy(n)),
        Slash::Raw(n) => Plan::Local(Local::Raw(n)),
        Slash::Export(path) => Plan::Local(Local::Export(path)),
        Slash::Share => Plan::Local(Local::Share),
        Slash::Cost => Plan::Local(Local::Cost),
        Slash::Effort(None) => Plan::Local(Local::Effort),
        Slash::Session(SessionOp::Tree) => Plan::Pick(Pick::Tree),
        _ => Plan::Usage(READ_ONLY.to_owned()),
    }
}

/// A command that is not a session operation.
fn command(slash: Slash, front: &Front<'_>) -> Plan {
    if let Some(step) = slash.as_move() {
        return Plan::Send(Command::Move(step));
    }
    match slash {
        Slash::Help => Plan::Local(Local::Help),
        Slash::Exit => Plan::Local(Local::Exit),
        Slash::Copy(n) => Plan::Local(Local::Copy(n)),
        Slash::Raw(n) => Plan::Local(Local::Raw(n)),
        Slash::Export(path) => Plan::Local(Local::Export(path)),
        Slash::Share => Plan::Local(Local::Share),
        Slash::Effort(None) => Plan::Local(Local::Effort),
        Slash::Effort(Some(effort)) => Plan::Send(Command::SetEffort { effort }),
        Slash::Model(None) => Plan::Send(Command::Models),
        Slash::Model(Some(model)) => Plan::Send(Command::SetModel { model }),
        Slash::Context => Plan::Send(Command::Context),
        Slash::Cost if !front.saved => Plan::Local(Local::Cost),
        Slash::Cost | Slash::Stats => Plan::Send(Command::Stats),
        Slash::Dump => Plan::Send(Command::Dump),
        Slash::Search(query) => Plan::Local(Local::Search(query)),
        other => Plan::Usage(format!("{other:?} does nothing here")),
    }
}

/// A session operation.
fn session(op: SessionOp, front: &Front<'_>) -> Plan {
    let switch = |to| Plan::Send(Command::Switch(to));
    match op {
        SessionOp::New => switch(SwitchTo::New),
        SessionOp::Resume(Some(query)) => Plan::Local(Local::Resume(query)),
        SessionOp::Resume(None) => Plan::Pick(Pick::Sessions),
        SessionOp::ResumeForeign { agent, query: None } => Plan::Pick(Pick::Foreign(agent)),
        SessionOp::ResumeForeign {
            agent,
            query: Some(query),
        } => Plan::Local(Local::Import { agent, query }),
        SessionOp::Fork(ForkPoint::Head, Worktree(worktree)) => switch(SwitchTo::Fork {
            at: ForkAt::Head,
            worktree,
        }),
        SessionOp::Fork(ForkPoint::Message(seq), Worktree(worktree)) => switch(SwitchTo::Fork {
            at: ForkAt::Message(seq),
            worktree,
        }),
        SessionOp::Fork(ForkPoint::Pick, _) if !front.terminal => {
            Plan::Usage("/fork pick needs a terminal to pick in: /fork t<seq>".to_owned())
        }
        SessionOp::Fork(ForkPoint::Pick, Worktree(worktree)) => {
            Plan::Pick(Pick::Message(MessagePick::Fork { worktree }))
        }
        SessionOp::Revert(Some(before), scope) => Plan::Send(Command::Revert { before, scope }),
        SessionOp::Revert(None, _) if !front.terminal => {
            Plan::Usage("/revert needs a stamp here: /revert t<seq>".to_owned())
        }
        SessionOp::Revert(None, scope) => Plan::Pick(Pick::Message(MessagePick::Revert(scope))),
        SessionOp::Tree => Plan::Pick(Pick::Tree),
        SessionOp::UndoRestore => Plan::Send(Command::UndoRestore),
        SessionOp::Clear => Plan::Send(Command::Clear),
        SessionOp::Fresh => Plan::Send(Command::Fresh),
        SessionOp::Drop => Plan::Confirm {
            question: format!("drop session {}?", front.session),
            then: Command::Drop,
        },
        SessionOp::Rename(name) => Plan::Send(Command::Rename { name }),
        SessionOp::Mode(mode) => Plan::Send(Command::SetMode { mode }),
    }
}

impl Slash {
    /// The name of the table's row this line is (`fold`, `exit` for `/quit`); empty for a
    /// message, an unknown word or a usage error.
    pub fn name(&self) -> &'static str {
        match self {
            Slash::Message(_) | Slash::Unknown(_) | Slash::Usage(_) => "",
            Slash::Exit => "exit",
            Slash::Help => "help",
            Slash::Fold(_) => "fold",
            Slash::Compact => "compact",
            Slash::Recall { .. } => "recall",
            Slash::Search(_) => "search",
            Slash::Ask { .. } => "ask",
            Slash::Session(op) => op.name().trim_start_matches('/'),
            Slash::Copy(_) => "copy",
            Slash::Cost => "cost",
            Slash::Stats => "stats",
            Slash::Dump => "dump",
            Slash::Export(_) => "export",
            Slash::Share => "share",
            Slash::Context => "context",
            Slash::Raw(_) => "raw",
            Slash::Model(_) => "model",
            Slash::Effort(_) => "effort",
        }
    }

    /// The move this command runs in the agent, if it is one.
    pub fn as_move(&self) -> Option<Move> {
        Some(match self {
            Slash::Fold(since) => Move::Fold {
                since: *since,
                note: None,
            },
            Slash::Compact => Move::Compact { note: None },
            Slash::Recall { mode, query } => Move::Recall {
                query: query.clone(),
                mode: Some((*mode).to_owned()),
                limit: RECALL_LIMIT,
            },
            Slash::Ask { handle, question } => Move::Ask {
                handle: handle.clone(),
                question: question.clone(),
            },
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::parse;
    use super::*;

    fn front() -> Front<'static> {
        Front {
            session: "01S",
            saved: true,
            busy: false,
            read_only: false,
            terminal: true,
        }
    }

    fn planned(line: &str, front: &Front<'_>) -> Plan {
        plan(parse(line), front)
    }

    #[test]
    fn every_command_is_planned_on_a_terminal() {
        for command in super::super::COMMANDS {
            let plan = planned(&format!("/{}", command.name), &front());
            if let Plan::Usage(why) = &plan {
                // Those that take a required argument say so; none is refused for where it is.
                assert!(
                    !why.contains("terminal") && !why.contains("no session"),
                    "/{}: {why}",
                    command.name
                );
            }
        }
    }

    #[test]
    fn what_needs_a_saved_idle_terminal_says_so() {
        let unsaved = Front {
            saved: false,
            ..front()
        };
        assert_eq!(
            planned("/fold", &unsaved),
            Plan::Usage("no session yet: send a message first".to_owned())
        );
        let busy = Front {
            busy: true,
            ..front()
        };
        assert_eq!(
            planned("/clear", &busy),
            Plan::Usage("/clear waits for the turn to end (Esc stops it)".to_owned())
        );
        assert_eq!(
            planned("/rename x", &busy),
            Plan::Send(Command::Rename { name: "x".into() })
        );
        let editor = Front {
            terminal: false,
            ..front()
        };
        assert!(matches!(planned("/resume", &editor), Plan::Usage(u) if u.contains("terminal")));
        assert!(matches!(planned("/revert", &editor), Plan::Usage(u) if u.contains("t<seq>")));
        assert_eq!(
            planned("/fork t4", &editor),
            Plan::Send(Command::Switch(SwitchTo::Fork {
                at: ForkAt::Message(4),
                worktree: false,
            }))
        );
    }

    #[test]
    fn a_read_only_view_only_reads() {
        let read_only = Front {
            read_only: true,
            ..front()
        };
        assert!(matches!(
            planned("/recall needle", &read_only),
            Plan::Local(Local::Recall { .. })
        ));
        assert_eq!(
            planned("hello", &read_only),
            Plan::Usage(READ_ONLY.to_owned())
        );
        assert_eq!(
            planned("/fold", &read_only),
            Plan::Usage(READ_ONLY.to_owned())
        );
        assert_eq!(planned("/copy", &read_only), Plan::Local(Local::Copy(None)));
    }

    #[test]
    fn drop_asks_first_and_cost_counts_from_disk_once_there_is_a_session() {
        assert_eq!(
            planned("/drop", &front()),
            Plan::Confirm {
                question: "drop session 01S?".to_owned(),
                then: Command::Drop
            }
        );
        assert_eq!(planned("/cost", &front()), Plan::Send(Command::Stats));
        let unsaved = Front {
            saved: false,
            ..front()
        };
        assert_eq!(planned("/cost", &unsaved), Plan::Local(Local::Cost));
        assert_eq!(planned("/stats", &front()), Plan::Send(Command::Stats));
    }
}
