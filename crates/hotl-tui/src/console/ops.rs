//! What the console adds to the commands the table plans: plain-text pickers (sessions,
//! another agent's sessions imported first, user messages) filled by the same [`Host`] the
//! terminal UI asks, the questions (drop, re-root), and what follows a switch. The agent does
//! the work (a switch is all or nothing there) and the protocol's words say what happened. A
//! reference that matches nothing or several sessions gets the shell's error, and the console
//! stays where it is.

use std::io;
use std::path::{Path, PathBuf};

use hotl_protocol::slash::{Foreign, Local, MessagePick, Pick};
use hotl_protocol::{Agent, Command, ForkAt, Outcome, SwitchReason, SwitchTo, words};

use super::live::Live;
use super::{say, say_more};
use crate::picker::Row;
use crate::run::Host;

/// Sends `command` and says how it went; `view` is the slash command typed (`/stats` and
/// `/cost` show the same numbers two ways).
pub(super) async fn send(
    agent: &mut Agent,
    host: &dyn Host,
    live: &mut Live,
    command: Command,
    view: &str,
) -> io::Result<()> {
    let done = live.run(agent, command).await?;
    match &done.result {
        Ok(Outcome::Switched { .. }) | Ok(Outcome::Dropped { .. }) => {
            live.tell(&done);
            switched(agent, host, live).await?;
        }
        Ok(Outcome::Dump(dump)) => {
            let text = dump.text();
            say(text.trim_end());
            crate::run::copy_to_terminal(&text);
            live.tell(&done);
            match dump.write_body() {
                Ok(Some(path)) => eprintln!(
                    "request body: {}\nhotl: warning: it holds the conversation as sent (file contents, command output): it can hold secrets",
                    path.display()
                ),
                Ok(None) => {}
                Err(e) => eprintln!("hotl: warning: the request body could not be written: {e}"),
            }
        }
        Ok(Outcome::Stats(stats)) if view == "stats" => say(stats.economy()),
        Ok(Outcome::Reverted { text, scope, .. }) => {
            live.tell(&done);
            if scope.conversation() {
                say(format_args!("· the message was:\n{text}"));
            }
            live.print_status();
        }
        Ok(Outcome::Cleared { .. } | Outcome::Fresh { .. } | Outcome::ModeChanged { .. }) => {
            live.tell(&done);
            live.print_status();
        }
        Err(failure) => {
            live.tell(&done);
            if failure.command == "switch" || failure.command == "drop" {
                say(format_args!("· still in {}", shown_session(live)));
            }
        }
        Ok(_) => live.tell(&done),
    }
    Ok(())
}

/// After a switch (the live view said where to): the directory it works in, the status, and
/// a turn a dead process left open finished, as at start-up.
async fn switched(agent: &mut Agent, host: &dyn Host, live: &mut Live) -> io::Result<()> {
    host.switched_to(&live.session);
    if let Some(switch) = &live.last_switch
        && switch.cwd != host.here()
    {
        say(format_args!(
            "· working in {}, the session's directory",
            host.display_path(&switch.cwd)
        ));
    }
    live.run(agent, Command::Status).await?;
    if live.saved && live.last_switch.as_ref().map(|s| s.reason) == Some(SwitchReason::Resume) {
        recover(agent, live).await?;
    } else {
        live.print_status();
    }
    Ok(())
}

/// Finishes a turn a dead process left open, if there is one, and shows the status.
pub(super) async fn recover(agent: &mut Agent, live: &mut Live) -> io::Result<()> {
    // A recovery that fails (the provider is down) leaves the session usable: the console
    // goes on, as after any failed turn.
    let done = live.run(agent, Command::Recover).await?;
    match &done.result {
        Ok(Outcome::Recovered { outcome: Some(_) }) => {
            live.end_line();
            live.print_status();
        }
        Err(failure) => {
            say(format_args!("\n· error: {}", failure.message));
            live.print_status();
        }
        Ok(_) => {}
    }
    Ok(())
}

/// A picker, in plain text: a numbered list and a choice read from the terminal.
pub(super) async fn pick(
    agent: &mut Agent,
    host: &dyn Host,
    live: &mut Live,
    pick: Pick,
) -> io::Result<()> {
    let to = match pick {
        Pick::Sessions => resume_target(host, live, None).await.map(Command::Switch),
        Pick::Foreign(from) => foreign_target(host, live, from, None)
            .await
            .map(Command::Switch),
        Pick::Message(MessagePick::Fork { worktree }) => {
            pick_message(host, live).await.map(|seq| {
                Command::Switch(SwitchTo::Fork {
                    at: ForkAt::Message(seq),
                    worktree,
                })
            })
        }
        Pick::Message(MessagePick::Revert(scope)) => pick_message(host, live)
            .await
            .map(|before| Command::Revert { before, scope }),
        Pick::Tree => {
            say(
                "· /tree is a command of the terminal UI (hotl without --no-tui); hotl sessions show --tree prints it",
            );
            None
        }
    };
    match to {
        Some(command) => send(agent, host, live, command, "").await,
        None => Ok(()),
    }
}

/// What the console does itself.
pub(super) async fn local(
    agent: &mut Agent,
    host: &dyn Host,
    live: &mut Live,
    local: Local,
    typed: &str,
) -> io::Result<()> {
    let to = match local {
        Local::Help => {
            say_more(hotl_protocol::slash::help(true));
            None
        }
        Local::Copy(_) | Local::Raw(_) => {
            say(format_args!(
                "· {typed} is a command of the terminal UI (hotl without --no-tui)"
            ));
            None
        }
        Local::Effort => {
            say(format_args!(
                "· {}",
                words::effort_line(live.status.as_ref())
            ));
            None
        }
        Local::Cost => {
            say(words::spent_line(live.status.as_ref()));
            None
        }
        Local::Export(path) => {
            tell_lines(host.export(&live.session, path.as_deref()));
            None
        }
        Local::Share => {
            say("· sealing and uploading…");
            tell_lines(host.share(&live.session).await);
            None
        }
        Local::Resume(query) => resume_target(host, live, Some(query)).await,
        Local::Search(query) => search_target(host, live, &query).await,
        Local::Import { agent: from, query } => foreign_target(host, live, from, Some(query)).await,
        // A read-only view's search; the console always has its agent.
        Local::Recall { .. } | Local::Exit => None,
    };
    match to {
        Some(to) => send(agent, host, live, Command::Switch(to), "").await,
        None => Ok(()),
    }
}

/// `/search QUERY` in the console: the sessions whose text holds it, numbered; the one chosen
/// is resumed.
async fn search_target(host: &dyn Host, live: &mut Live, query: &str) -> Option<SwitchTo> {
    if query.trim().is_empty() {
        say("· what to look for? /search QUERY (every session's text; no model call)");
        return None;
    }
    let Some(search) = host.search_sessions(query) else {
        say("· this front end cannot search sessions");
        return None;
    };
    match search.await {
        Ok(rows) if rows.is_empty() => {
            say(format_args!("· nothing found for {query:?}"));
            None
        }
        Ok(rows) => {
            let chosen = choose(live, &rows, "resume which? (a number, or Enter for none)").await?;
            Box::pin(resume_target(host, live, Some(chosen))).await
        }
        Err(e) => {
            say(format_args!("· error: {e}"));
            None
        }
    }
}

/// The lines a host's answer says, `· ` before each, or its error.
fn tell_lines(said: Result<Vec<String>, String>) {
    match said {
        Ok(lines) => lines.iter().for_each(|l| say(format_args!("· {l}"))),
        Err(e) => say(format_args!("· error: {e}")),
    }
}

/// The session the console is in, for a line.
fn shown_session(live: &Live) -> String {
    if live.saved {
        live.session.clone()
    } else {
        format!("{} (new, not written yet)", live.session)
    }
}

/// Where `/resume` goes: the session `query` names, or one picked from a list; `None` when
/// nothing is to be done (told already).
async fn resume_target(
    host: &dyn Host,
    live: &mut Live,
    query: Option<String>,
) -> Option<SwitchTo> {
    let query = match query {
        Some(query) => query,
        None => {
            let rows = resumable(host, &live.session).await;
            if rows.is_empty() {
                say("· there is no other session to resume");
                return None;
            }
            choose(live, &rows, "resume which? (a number, or Enter for none)").await?
        }
    };
    let id = match host.resolve(&query) {
        Ok(id) => id,
        Err(e) => {
            say(format_args!("· {}", e.replace('\n', "\n  hint: ")));
            return None;
        }
    };
    if id == live.session {
        say(format_args!("· already in session {id}"));
        return None;
    }
    let mut reroot = None;
    if let Some(cwd) = host.session_dir(&id)
        && !Path::new(&cwd).is_dir()
    {
        let question = format!(
            "Session's directory no longer exists ({}). Move (re-root) it into the current directory? [Y/n]",
            host.display_path(&cwd)
        );
        match live.read_answer(&question).await.as_deref() {
            Some("" | "y" | "Y" | "yes") => reroot = Some(PathBuf::from(host.here())),
            _ => {
                say("· not resumed");
                return None;
            }
        }
    }
    Some(SwitchTo::Resume {
        session: id,
        reroot,
    })
}

/// Where `/resume @claude` (`@codex`, `@pi`) goes: the agent's session `query` names, or one
/// picked from this directory's, imported; `None` when nothing is to be done (told already,
/// an import error too: the console stays where it is).
async fn foreign_target(
    host: &dyn Host,
    live: &mut Live,
    from: Foreign,
    query: Option<String>,
) -> Option<SwitchTo> {
    let query = match query {
        Some(query) => query,
        None => {
            let rows = match host.foreign_sessions(from) {
                Ok(rows) => rows,
                Err(none) => {
                    say(format_args!("· {none}"));
                    return None;
                }
            };
            let question = format!(
                "import and resume which {} session? (a number, or Enter for none)",
                from.display()
            );
            choose(live, &rows, &question).await?
        }
    };
    let (to, said) = match host.import_foreign(from, &query) {
        Ok(done) => done,
        Err(e) => {
            say(format_args!("· error: {e}"));
            return None;
        }
    };
    for line in said {
        say(format_args!("· {line}"));
    }
    if let SwitchTo::Resume { session, .. } = &to
        && *session == live.session
    {
        say(format_args!("· already in session {session}"));
        return None;
    }
    Some(to)
}

/// A numbered list of `rows` (30 at most) and the value of the one picked; what is typed
/// instead of a number (an id, a path) is taken as it is.
/// The sessions `/resume` lists: this home's (the 30 newest but `current`), then the remote
/// store's that this home lacks (the 20 newest), when one is configured.
async fn resumable(host: &dyn Host, current: &str) -> Vec<Row> {
    let local = host.sessions();
    let mut rows: Vec<Row> = local
        .iter()
        .filter(|r| r.value != current)
        .take(30)
        .cloned()
        .collect();
    if let Some(listing) = host.remote_sessions() {
        say("· reading the remote store…");
        match listing.await {
            Ok(far) => rows.extend(
                far.into_iter()
                    .filter(|r| !local.iter().any(|l| l.value == r.value))
                    .take(20)
                    .map(|r| Row {
                        detail: format!("remote · {}", r.detail),
                        ..r
                    }),
            ),
            Err(e) => say(format_args!("· the remote store: {e}")),
        }
    }
    rows
}

async fn choose(live: &mut Live, rows: &[Row], question: &str) -> Option<String> {
    for (i, row) in rows.iter().enumerate().take(50) {
        say(format_args!(
            "{:>3}  {:<50}  {}",
            i + 1,
            hotl_text::clip(&row.label, 50),
            row.detail
        ));
    }
    let answer = live.read_answer(question).await?;
    if answer.is_empty() {
        return None;
    }
    match answer.parse::<usize>().ok().and_then(|n| n.checked_sub(1)) {
        Some(i) => match rows.get(i) {
            Some(row) => Some(row.value.clone()),
            None => {
                say(format_args!(
                    "· {answer:?} is not one of the numbers listed"
                ));
                None
            }
        },
        None => Some(answer),
    }
}

/// The user messages of the session, numbered, and the one picked (`/fork pick`, `/revert`).
async fn pick_message(host: &dyn Host, live: &mut Live) -> Option<u64> {
    if !live.saved {
        say("· no messages yet: send a message first");
        return None;
    }
    let messages = crate::transcript::user_messages(&host.entries(&live.session));
    if messages.is_empty() {
        say("· no messages yet: send a message first");
        return None;
    }
    for (i, (seq, text)) in messages.iter().enumerate() {
        say(format_args!(
            "{:>3}  t{seq:<5} {}",
            i + 1,
            hotl_text::clip(hotl_text::first_line(text).trim(), 70)
        ));
    }
    let answer = live
        .read_answer("which message? (a number, or Enter for none)")
        .await?;
    match answer.parse::<usize>().ok().and_then(|n| n.checked_sub(1)) {
        Some(i) if i < messages.len() => Some(messages[i].0),
        _ => {
            if !answer.is_empty() {
                say(format_args!(
                    "· {answer:?} is not one of the numbers listed"
                ));
            }
            None
        }
    }
}

/// Asks before `/drop`: which session goes.
pub(super) async fn confirm_drop(host: &dyn Host, live: &mut Live) -> bool {
    let title = host
        .sessions()
        .into_iter()
        .find(|r| r.value == live.session)
        .map(|r| format!(" ({})", r.label))
        .unwrap_or_default();
    let question = format!("drop session {}{title}? [y/N]", live.session);
    matches!(
        live.read_answer(&question).await.as_deref(),
        Some("y" | "Y" | "yes")
    )
}
