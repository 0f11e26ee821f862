//! Session operations typed in the UI, with what only the UI adds: resolving a reference as
//! the shell does, the pickers (another agent's sessions for `/resume @claude` too), and the
//! question before a drop. The agent does the work; the host imports.

use hotl_agent::{Agent, Command, ForkAt, SwitchTo};

use super::Host;
use crate::app::{App, Effect, Modal};
use crate::cells::Tone;
use crate::picker::{self, Picker};
use crate::slash::{ForkPoint, SessionOp};

pub(super) fn session_op(op: SessionOp, app: &mut App, agent: Option<&Agent>, host: &dyn Host) {
    let send = |app: &mut App, command: Command, name: &'static str| {
        let Some(agent) = agent else {
            app.say("read-only: nothing can be sent", Tone::Error);
            return;
        };
        app.run(command, name);
        for effect in app.take_effects() {
            if let Effect::Send(command) = effect {
                agent.send(command);
            }
        }
    };
    match op {
        SessionOp::New => send(app, Command::Switch(SwitchTo::New), "new"),
        SessionOp::Resume(Some(query)) => match host.resolve(&query) {
            Ok(id) if id == app.session => app.say(format!("already in {id}"), Tone::Info),
            Ok(session) => send(
                app,
                Command::Switch(SwitchTo::Resume {
                    session,
                    reroot: None,
                }),
                "resume",
            ),
            Err(e) => app.say(e, Tone::Error),
        },
        SessionOp::Resume(None) => {
            let rows = host.sessions();
            if rows.is_empty() {
                app.say("there are no sessions to resume", Tone::Error);
            } else {
                app.modal = Some(Modal::Pick(Picker::new(
                    "resume a session",
                    picker::Kind::Resume,
                    rows,
                )));
            }
        }
        SessionOp::ResumeForeign { agent, query: None } => match host.foreign_sessions(agent) {
            Ok(rows) => {
                app.modal = Some(Modal::Pick(Picker::new(
                    format!(
                        "resume a {} session (imported as a new one)",
                        agent.display()
                    ),
                    picker::Kind::Foreign(agent),
                    rows,
                )));
            }
            Err(none) => app.say(none, Tone::Info),
        },
        SessionOp::ResumeForeign {
            agent,
            query: Some(query),
        } => match host.import_foreign(agent, &query) {
            Ok((to, said)) => {
                said.into_iter().for_each(|l| app.say(l, Tone::Info));
                match &to {
                    SwitchTo::Resume { session, .. } if *session == app.session => {
                        app.say(format!("already in {session}"), Tone::Info);
                    }
                    _ => send(app, Command::Switch(to), "resume"),
                }
            }
            // The import failed: the session stays.
            Err(e) => app.say(e, Tone::Error),
        },
        SessionOp::Fork(ForkPoint::Head) => send(
            app,
            Command::Switch(SwitchTo::Fork { at: ForkAt::Head }),
            "fork",
        ),
        SessionOp::Fork(ForkPoint::Message(seq)) => send(
            app,
            Command::Switch(SwitchTo::Fork {
                at: ForkAt::Message(seq),
            }),
            "fork",
        ),
        SessionOp::Fork(ForkPoint::Pick) => {
            pick_message(app, host, "fork after the turn of", picker::Kind::Fork)
        }
        SessionOp::Revert(Some(before)) => send(app, Command::Revert { before }, "revert"),
        SessionOp::Revert(None) => {
            pick_message(app, host, "revert to before", picker::Kind::Revert)
        }
        SessionOp::Tree => {
            if !app.saved {
                app.say(
                    "no tree yet: the session is written with its first message",
                    Tone::Error,
                );
                return;
            }
            let rows = host.tree(&app.session);
            app.modal = Some(Modal::Pick(Picker::new(
                "this session's tree (Enter switches to a session)",
                picker::Kind::Tree,
                rows,
            )));
        }
        SessionOp::Clear => send(app, Command::Clear, "clear"),
        SessionOp::Fresh => send(app, Command::Fresh, "fresh"),
        SessionOp::Drop => {
            if !app.saved {
                app.say(
                    "nothing to drop yet: the session is written with its first message",
                    Tone::Error,
                );
            } else {
                app.modal = Some(Modal::Confirm {
                    question: format!("drop session {}?", app.session),
                    then: Box::new(Effect::Send(Command::Drop)),
                });
            }
        }
        SessionOp::Rename(name) => send(app, Command::Rename { name }, "rename"),
        SessionOp::Mode(mode) => send(app, Command::SetMode { mode }, "mode"),
    }
}

pub(super) fn pick_message(app: &mut App, host: &dyn Host, title: &str, kind: picker::Kind) {
    if !app.saved {
        app.say("no messages yet", Tone::Error);
        return;
    }
    let entries = host.entries(&app.session);
    let rows: Vec<picker::Row> = crate::transcript::user_messages(&entries)
        .into_iter()
        .enumerate()
        .map(|(newer, (seq, text))| {
            let preview: String = text.lines().next().unwrap_or("").chars().take(80).collect();
            // A revert hides the message's turn and every later one; a fork keeps them.
            let detail = if kind == picker::Kind::Revert {
                let hidden = newer + 1;
                format!(
                    "{preview}  · hides {hidden} turn{}",
                    if hidden == 1 { "" } else { "s" }
                )
            } else {
                preview
            };
            picker::Row {
                label: format!("t{seq}"),
                detail,
                value: format!("t{seq}"),
                near: true,
            }
        })
        .collect();
    if rows.is_empty() {
        app.say("no user messages to pick from", Tone::Error);
        return;
    }
    app.modal = Some(Modal::Pick(Picker::new(title, kind, rows)));
}
