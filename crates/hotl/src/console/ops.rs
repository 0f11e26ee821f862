//! What the console adds to the commands the table plans: plain-text pickers (sessions,
//! another agent's sessions imported first, see [`super::foreign`], user messages), the
//! questions (drop, re-root), and what follows a switch. The agent does the work (a switch is
//! all or nothing there) and the protocol's words say what happened. A reference that matches
//! nothing or several sessions gets the shell's error, and the console stays where it is.

use std::path::{Path, PathBuf};

use hotl_agent::{Agent, Command, ForkAt, Outcome, SwitchReason, SwitchTo};
use hotl_log::SessionMeta;
use hotl_protocol::slash::{Foreign, Local, MessagePick, Pick};
use hotl_protocol::words;
use hotl_view::{Item, View};

use crate::ctx::Ctx;
use crate::error::CliError;
use crate::live::Live;

/// Sends `command` and says how it went; `view` is the slash command typed (`/stats` and
/// `/cost` show the same numbers two ways).
pub async fn send(
    ctx: &Ctx,
    agent: &mut Agent,
    live: &mut Live,
    command: Command,
    view: &str,
) -> Result<(), CliError> {
    let done = live.run(agent, command).await?;
    match &done.result {
        Ok(Outcome::Switched { .. }) | Ok(Outcome::Dropped { .. }) => {
            live.tell(&done);
            switched(ctx, agent, live).await?;
        }
        Ok(Outcome::Dump(dump)) => {
            let text = dump.text();
            say!("{}", text.trim_end());
            super::copy_to_terminal(&text);
            live.tell(&done);
            crate::commands::sessions::dump::tell_sidecar(dump);
        }
        Ok(Outcome::Stats(stats)) if view == "stats" => say!("{}", stats.economy()),
        Ok(Outcome::Reverted { text, .. }) => {
            live.tell(&done);
            say!("· the message was:\n{text}");
            live.print_status();
        }
        Ok(Outcome::Cleared { .. } | Outcome::Fresh { .. } | Outcome::ModeChanged { .. }) => {
            live.tell(&done);
            live.print_status();
        }
        Err(failure) => {
            live.tell(&done);
            if failure.command == "switch" || failure.command == "drop" {
                say!("· still in {}", shown_session(live));
            }
        }
        Ok(_) => live.tell(&done),
    }
    Ok(())
}

/// After a switch (the live view said where to): the directory it works in, the status, and
/// a turn a dead process left open finished, as at start-up.
async fn switched(ctx: &Ctx, agent: &mut Agent, live: &mut Live) -> Result<(), CliError> {
    if !ctx.is_in_memory() {
        crate::breadcrumb::remember(&ctx.store, &live.session);
    }
    if let Some(switch) = &live.last_switch
        && switch.cwd != ctx.cwd
    {
        say!(
            "· working in {}, the session's directory",
            ctx.tilde(&switch.cwd)
        );
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
pub async fn recover(agent: &mut Agent, live: &mut Live) -> Result<(), CliError> {
    // A recovery that fails (the provider is down) leaves the session usable: the console
    // goes on, as after any failed turn.
    let done = live.run(agent, Command::Recover).await?;
    match &done.result {
        Ok(Outcome::Recovered { outcome: Some(_) }) => {
            live.end_line();
            live.print_status();
        }
        Err(failure) => {
            say!("\n· error: {}", failure.message);
            live.print_status();
        }
        Ok(_) => {}
    }
    Ok(())
}

/// A picker, in plain text: a numbered list and a choice read from the terminal.
pub async fn pick(
    ctx: &Ctx,
    agent: &mut Agent,
    live: &mut Live,
    pick: Pick,
) -> Result<(), CliError> {
    let to = match pick {
        Pick::Sessions => resume_target(ctx, live, None).await?.map(Command::Switch),
        Pick::Foreign(from) => foreign_target(ctx, live, from, None)
            .await?
            .map(Command::Switch),
        Pick::Message(MessagePick::Fork) => pick_message(ctx, live).await?.map(|seq| {
            Command::Switch(SwitchTo::Fork {
                at: ForkAt::Message(seq),
            })
        }),
        Pick::Message(MessagePick::Revert) => pick_message(ctx, live)
            .await?
            .map(|before| Command::Revert { before }),
        Pick::Tree => {
            say!(
                "· /tree is a command of the terminal UI (hotl without --no-tui); hotl sessions show --tree prints it"
            );
            None
        }
    };
    match to {
        Some(command) => send(ctx, agent, live, command, "").await,
        None => Ok(()),
    }
}

/// What the console does itself.
pub async fn local(
    ctx: &Ctx,
    agent: &mut Agent,
    live: &mut Live,
    local: Local,
    typed: &str,
) -> Result<(), CliError> {
    let to = match local {
        Local::Help => {
            say_more!("{}", hotl_protocol::slash::help(true));
            None
        }
        Local::Copy(_) | Local::Raw(_) => {
            say!("· {typed} is a command of the terminal UI (hotl without --no-tui)");
            None
        }
        Local::Effort => {
            say!("· {}", words::effort_line(live.status.as_ref()));
            None
        }
        Local::Cost => {
            say!("{}", words::spent_line(live.status.as_ref()));
            None
        }
        Local::Export(path) => {
            match crate::takeout::export_here(ctx, &live.session, path) {
                Ok(lines) => lines.iter().for_each(|l| say!("· {l}")),
                Err(e) => say!("· error: {e}"),
            }
            None
        }
        Local::Share => {
            say!("· sealing and uploading…");
            match crate::takeout::share_here(ctx, &live.session).await {
                Ok(lines) => lines.iter().for_each(|l| say!("· {l}")),
                Err(e) => say!("· error: {e}"),
            }
            None
        }
        Local::Resume(query) => resume_target(ctx, live, Some(query)).await?,
        Local::Import { agent: from, query } => {
            foreign_target(ctx, live, from, Some(query)).await?
        }
        // A read-only view's search; the console always has its agent.
        Local::Recall { .. } | Local::Exit => None,
    };
    match to {
        Some(to) => send(ctx, agent, live, Command::Switch(to), "").await,
        None => Ok(()),
    }
}

/// `1 turn`, `3 turns`.
pub(super) fn turns_text(turns: usize) -> String {
    format!("{turns} turn{}", if turns == 1 { "" } else { "s" })
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
    ctx: &Ctx,
    live: &mut Live,
    query: Option<String>,
) -> Result<Option<SwitchTo>, CliError> {
    let meta = match query {
        Some(query) => match ctx.resolve(&query) {
            Ok(meta) => meta,
            Err(e) => {
                refuse(&e);
                return Ok(None);
            }
        },
        None => match pick_session(ctx, live).await? {
            Some(meta) => meta,
            None => return Ok(None),
        },
    };
    if meta.id == live.session {
        say!("· already in session {}", meta.id);
        return Ok(None);
    }
    let mut reroot = None;
    if !Path::new(&meta.cwd).is_dir() {
        let question = format!(
            "Session's directory no longer exists ({}). Move (re-root) it into the current directory? [Y/n]",
            ctx.tilde(&meta.cwd)
        );
        match live.read_answer(&question).await.as_deref() {
            Some("" | "y" | "Y" | "yes") => reroot = Some(PathBuf::from(&ctx.cwd)),
            _ => {
                say!("· not resumed");
                return Ok(None);
            }
        }
    }
    Ok(Some(SwitchTo::Resume {
        session: meta.id,
        reroot,
    }))
}

/// Where `/resume @claude` (`@codex`, `@pi`) goes: the agent's session `query` names, or one
/// picked from this directory's, imported; `None` when nothing is to be done (told already,
/// an import error too: the console stays where it is).
async fn foreign_target(
    ctx: &Ctx,
    live: &mut Live,
    from: Foreign,
    query: Option<String>,
) -> Result<Option<SwitchTo>, CliError> {
    let query = match query {
        Some(query) => query,
        None => match pick_foreign(ctx, live, from).await {
            Some(query) => query,
            None => return Ok(None),
        },
    };
    let (to, said) = match super::foreign::import(ctx, from, &query) {
        Ok(done) => done,
        Err(e) => {
            say!("· error: {e}");
            return Ok(None);
        }
    };
    for line in said {
        say!("· {line}");
    }
    if let SwitchTo::Resume { session, .. } = &to
        && *session == live.session
    {
        say!("· already in session {session}");
        return Ok(None);
    }
    Ok(Some(to))
}

/// A numbered list of `from`'s sessions of this directory, and the file (or the id typed)
/// picked.
async fn pick_foreign(ctx: &Ctx, live: &mut Live, from: Foreign) -> Option<String> {
    let found = match super::foreign::candidates(ctx, from) {
        Ok(found) => found,
        Err(none) => {
            say!("· {none}");
            return None;
        }
    };
    for (i, c) in found.iter().enumerate().take(30) {
        let (title, detail) = super::foreign::describe(ctx, c);
        say!(
            "{:>3}  {:<50}  {detail}",
            i + 1,
            title.chars().take(50).collect::<String>()
        );
    }
    let question = format!(
        "import and resume which {} session? (a number, or Enter for none)",
        from.display()
    );
    let answer = live.read_answer(&question).await?;
    if answer.is_empty() {
        return None;
    }
    match answer.parse::<usize>().ok().and_then(|n| n.checked_sub(1)) {
        Some(i) => match found.get(i) {
            Some(c) => Some(c.path.to_string_lossy().into_owned()),
            None => {
                say!("· {answer:?} is not one of the numbers listed");
                None
            }
        },
        // An id or a path typed instead.
        None => Some(answer),
    }
}

/// An error the console tells without leaving the session.
fn refuse(e: &CliError) {
    say!("· {e}");
    for hint in e.hints() {
        say!("  hint: {hint}");
    }
}

/// A numbered list of sessions (this directory's, else every project's), and the one picked.
async fn pick_session(ctx: &Ctx, live: &mut Live) -> Result<Option<SessionMeta>, CliError> {
    let metas = ctx.store.list()?;
    let mut rows = hotl_log::listed(&metas, Some(&ctx.cwd));
    if rows.len() <= 1 {
        rows = hotl_log::listed(&metas, None);
    }
    rows.retain(|m| m.id != live.session);
    if rows.is_empty() {
        say!("· there is no other session to resume");
        return Ok(None);
    }
    let now = ctx.now();
    for (i, m) in rows.iter().enumerate().take(30) {
        say!(
            "{:>3}  {}  {:<40}  {:>8}  {}{}",
            i + 1,
            &m.id[..10],
            m.display_title().chars().take(40).collect::<String>(),
            crate::render::relative_time(&m.updated, now),
            turns_text(m.turns as usize),
            if m.cwd == ctx.cwd {
                String::new()
            } else {
                format!("  {}", ctx.tilde(&m.cwd))
            }
        );
    }
    let Some(answer) = live
        .read_answer("resume which? (a number, or Enter for none)")
        .await
    else {
        return Ok(None);
    };
    if answer.is_empty() {
        return Ok(None);
    }
    if let Ok(n) = answer.parse::<usize>()
        && let Some(m) = n.checked_sub(1).and_then(|i| rows.get(i))
    {
        return Ok(Some((*m).clone()));
    }
    match ctx.resolve(&answer) {
        Ok(meta) => Ok(Some(meta)),
        Err(e) => {
            refuse(&e);
            Ok(None)
        }
    }
}

/// The user messages of the session, numbered, and the one picked: `/fork pick`.
async fn pick_message(ctx: &Ctx, live: &mut Live) -> Result<Option<u64>, CliError> {
    if !live.saved {
        say!("· nothing to fork yet: send a message first");
        return Ok(None);
    }
    let view = View::from_lineage(ctx.store.lineage(&live.session)?);
    let mut messages = Vec::new();
    user_messages(&view.items, &mut messages);
    if messages.is_empty() {
        say!("· nothing to fork yet: send a message first");
        return Ok(None);
    }
    for (i, (seq, text)) in messages.iter().enumerate() {
        say!("{:>3}  t{seq:<5} {}", i + 1, text);
    }
    let Some(answer) = live
        .read_answer("fork after which message's turn? (a number, or Enter for none)")
        .await
    else {
        return Ok(None);
    };
    match answer.parse::<usize>().ok().and_then(|n| n.checked_sub(1)) {
        Some(i) if i < messages.len() => Ok(Some(messages[i].0)),
        _ => {
            if !answer.is_empty() {
                say!("· {answer:?} is not one of the numbers listed");
            }
            Ok(None)
        }
    }
}

/// The user messages among `items` (folded ones too), as (seq, first line clipped).
fn user_messages(items: &[Item], out: &mut Vec<(u64, String)>) {
    for item in items {
        match item {
            Item::User { seq, content } => {
                let text: String = content.iter().filter_map(|b| b.as_text()).collect();
                let first = text.lines().next().unwrap_or("").trim();
                let mut shown: String = first.chars().take(70).collect();
                if first.chars().count() > 70 {
                    shown.push('…');
                }
                out.push((*seq, shown));
            }
            Item::Folded { items, .. } | Item::Compacted { items, .. } => {
                user_messages(items, out);
            }
            _ => {}
        }
    }
}

/// Asks before `/drop`: what goes, and what stays for whom.
pub async fn confirm_drop(ctx: &Ctx, live: &mut Live) -> Result<bool, CliError> {
    if !live.saved {
        say!("· nothing to drop: this session is not written yet");
        return Ok(false);
    }
    let meta = ctx.store.meta(&live.session)?;
    let title = meta.display_title();
    let question = format!(
        "drop session {}{}? [y/N]",
        meta.id,
        if title.is_empty() {
            String::new()
        } else {
            format!(" ({title})")
        }
    );
    Ok(matches!(
        live.read_answer(&question).await.as_deref(),
        Some("y" | "Y" | "yes")
    ))
}
