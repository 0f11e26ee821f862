//! What the host adds to a session operation the app planned: the pickers it fills from the
//! store (sessions, another agent's sessions, user messages, the tree), a reference resolved
//! as the shell does, another agent's session imported. The agent does the switching.

use hotl_protocol::slash::{Foreign, MessagePick, Pick};
use hotl_protocol::{Command, SwitchTo};

use super::Host;
use crate::app::{App, Modal};
use crate::cells::Tone;
use crate::picker::{self, Picker};

/// Opens the picker `pick` asks for, filled by the host. `remote`: the resume picker gets the
/// remote store's tab (its rows come later: [`remote_read`]).
pub(super) fn pick(pick: Pick, app: &mut App, host: &dyn Host, remote: bool) {
    match pick {
        Pick::Sessions => {
            let rows = host.sessions();
            if rows.is_empty() && !remote {
                app.say("there are no sessions to resume", Tone::Error);
            } else {
                open(app, "resume a session", picker::Kind::Resume, rows);
                if let Some(Modal::Pick(picker)) = &mut app.modal
                    && remote
                {
                    picker.reading_remote();
                }
            }
        }
        Pick::Foreign(agent) => match host.foreign_sessions(agent) {
            Ok(rows) => open(
                app,
                &format!(
                    "resume a {} session (imported as a new one)",
                    agent.display()
                ),
                picker::Kind::Foreign(agent),
                rows,
            ),
            Err(none) => app.say(none, Tone::Info),
        },
        Pick::Message(MessagePick::Fork { worktree }) => {
            let title = if worktree {
                "fork into a new worktree after the turn of"
            } else {
                "fork after the turn of"
            };
            pick_message(app, host, title, picker::Kind::Fork { worktree })
        }
        Pick::Message(MessagePick::Revert(scope)) => {
            let title = match scope {
                hotl_protocol::RevertScope::Both => {
                    "revert the conversation and the code to before"
                }
                hotl_protocol::RevertScope::Conversation => "revert the conversation to before",
                hotl_protocol::RevertScope::Code => "put the code back as it was before",
            };
            pick_message(app, host, title, picker::Kind::Revert(scope))
        }
        Pick::Tree => {
            let rows = host.tree(&app.session);
            open(
                app,
                "this session's tree (Enter switches to a session)",
                picker::Kind::Tree,
                rows,
            );
        }
    }
}

/// The remote store's sessions, read: into the resume picker, if it is still open.
pub(super) fn remote_read(app: &mut App, read: Result<Vec<picker::Row>, String>) {
    if let Some(Modal::Pick(picker)) = &mut app.modal {
        picker.remote_read(read);
        app.dirty = true;
    }
}

/// What every session's text holds of `query`: into the resume picker, if it is still open.
pub(super) fn content_found(app: &mut App, query: &str, found: Result<Vec<picker::Row>, String>) {
    if let Some(Modal::Pick(picker)) = &mut app.modal {
        picker.content_found(query, found);
        app.dirty = true;
    }
}

/// The switch to the session `query` names, or what to say instead.
pub(super) fn resolve(query: &str, app: &mut App, host: &dyn Host) {
    match host.resolve(query) {
        Ok(id) if id == app.session => app.say(format!("already in {id}"), Tone::Info),
        Ok(session) => {
            // A session whose directory is not here (made on another machine, or moved) is
            // moved into this one, as `hotl -r` moves it.
            let gone = host
                .session_dir(&session)
                .filter(|dir| !std::path::Path::new(dir).is_dir());
            if let Some(dir) = &gone {
                let (dir, here) = (host.display_path(dir), host.display_path(&host.here()));
                app.say(
                    format!("{dir} is not here: the session moves into {here}"),
                    Tone::Info,
                );
            }
            let reroot = gone.map(|_| std::path::PathBuf::from(host.here()));
            app.run(
                Command::Switch(SwitchTo::Resume { session, reroot }),
                "resume",
            );
        }
        Err(e) => app.say(e, Tone::Error),
    }
}

/// Imports `agent`'s session `query` names and switches to it (an import that fails leaves
/// the app where it is).
pub(super) fn import(agent: Foreign, query: &str, app: &mut App, host: &dyn Host) {
    match host.import_foreign(agent, query) {
        Ok((to, said)) => {
            said.into_iter().for_each(|l| app.say(l, Tone::Info));
            match &to {
                SwitchTo::Resume { session, .. } if *session == app.session => {
                    app.say(format!("already in {session}"), Tone::Info);
                }
                _ => app.run(Command::Switch(to), "resume"),
            }
        }
        Err(e) => app.say(e, Tone::Error),
    }
}

fn open(app: &mut App, title: &str, kind: picker::Kind, rows: Vec<picker::Row>) {
    app.modal = Some(Modal::Pick(Picker::new(title, kind, rows)));
}

fn pick_message(app: &mut App, host: &dyn Host, title: &str, kind: picker::Kind) {
    if !app.saved {
        app.say("no messages yet", Tone::Error);
        return;
    }
    let entries = host.entries(&app.session);
    let messages = crate::transcript::user_messages(&entries);
    // What a revert there puts back, when it puts back code.
    let changed = match kind {
        picker::Kind::Revert(scope) if scope.code() => {
            let seqs: Vec<u64> = messages.iter().map(|(seq, _)| *seq).collect();
            host.changed_from(&app.session, &seqs)
        }
        _ => vec![Vec::new(); messages.len()],
    };
    let rows: Vec<picker::Row> = messages
        .into_iter()
        .zip(changed)
        .enumerate()
        .map(|(newer, ((seq, text), changed))| {
            let preview = hotl_text::clip(hotl_text::first_line(&text), 80);
            // A revert hides the message's turn and every later one; a fork keeps them.
            let detail = if matches!(kind, picker::Kind::Revert(_)) {
                format!(
                    "{preview}  · hides {}{}",
                    hotl_text::plural(newer + 1, "turn"),
                    files_line(&changed)
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
    open(app, title, kind, rows);
}

/// ` · puts back a.rs, b.rs and 3 more` for the files a revert puts back, or nothing.
fn files_line(changed: &[String]) -> String {
    match changed.len() {
        0 => String::new(),
        n if n <= 3 => format!(" · puts back {}", changed.join(", ")),
        n => format!(
            " · puts back {} and {} more",
            changed[..3].join(", "),
            n - 3
        ),
    }
}
