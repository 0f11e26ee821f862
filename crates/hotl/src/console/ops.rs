//! The console's session operations: `/new`, `/resume` (also `@claude`, `@codex`, `@pi`:
//! another agent's session imported first, see [`super::foreign`]), `/fork`, `/clear`,
//! `/fresh`, `/drop`, `/rename` and `/mode`, each one command to the agent, which does the
//! work (a switch is all or nothing there). What the console adds is the talk around it: the
//! pickers, the questions, and saying what happened. A reference that matches nothing or
//! several sessions gets the shell's error, and the console stays where it is.

use std::path::{Path, PathBuf};

use hotl_agent::slash::Foreign;
use hotl_agent::{Agent, Command, Event, ForkAt, SwitchTo};
use hotl_log::SessionMeta;
use hotl_view::{Item, View};

use crate::ctx::Ctx;
use crate::error::CliError;
use crate::live::Live;
use hotl_tui::slash::{ForkPoint, SessionOp};

/// Runs `op`, then says how it went.
pub async fn run(
    ctx: &Ctx,
    agent: &mut Agent,
    live: &mut Live,
    op: SessionOp,
) -> Result<(), CliError> {
    let command = match op {
        SessionOp::New => Command::Switch(SwitchTo::New),
        SessionOp::Resume(query) => match resume_target(ctx, live, query).await? {
            Some(to) => Command::Switch(to),
            None => return Ok(()),
        },
        SessionOp::ResumeForeign { agent: from, query } => {
            match foreign_target(ctx, live, from, query).await? {
                Some(to) => Command::Switch(to),
                None => return Ok(()),
            }
        }
        SessionOp::Fork(point) => {
            let at = match point {
                ForkPoint::Head => ForkAt::Head,
                ForkPoint::Message(seq) => ForkAt::Message(seq),
                ForkPoint::Pick => match pick_message(ctx, live).await? {
                    Some(seq) => ForkAt::Message(seq),
                    None => return Ok(()),
                },
            };
            Command::Switch(SwitchTo::Fork { at })
        }
        SessionOp::Clear => Command::Clear,
        SessionOp::Fresh => Command::Fresh,
        SessionOp::Drop => {
            if !confirm_drop(ctx, live).await? {
                say!("· not dropped");
                return Ok(());
            }
            Command::Drop
        }
        SessionOp::Rename(name) => Command::Rename { name },
        SessionOp::Mode(mode) => Command::SetMode { mode },
        SessionOp::Revert(Some(before)) => Command::Revert { before },
        SessionOp::Tree => {
            say!(
                "· /tree is a command of the terminal UI (hotl without --no-tui); hotl sessions list shows forks with ↳"
            );
            return Ok(());
        }
        SessionOp::Revert(None) => match pick_message(ctx, live).await? {
            Some(before) => Command::Revert { before },
            None => return Ok(()),
        },
    };
    agent.send(command);
    // A drop is told as it happens (by the live view), then the switch that follows it.
    let ended = live.until_done(agent).await?;
    tell(ctx, agent, live, ended).await
}

/// Says what an operation did, and finishes a resumed turn a dead process left open.
async fn tell(ctx: &Ctx, agent: &mut Agent, live: &mut Live, ended: Event) -> Result<(), CliError> {
    match ended {
        Event::Failed { command, error, .. } => {
            let what = match command.as_str() {
                "switch" => "could not switch",
                "drop" => "could not drop",
                "clear" => "could not clear",
                "fresh" => "could not start fresh",
                "rename" => "could not rename",
                _ => "failed",
            };
            say!("· {what}: {}", error.replace('\n', " "));
            if command == "switch" || command == "drop" {
                say!("· still in {}", shown_session(live));
            }
        }
        Event::Switch {
            reason,
            to,
            saved,
            cwd,
            title,
            turns,
            ..
        } => {
            if !ctx.is_in_memory() {
                crate::breadcrumb::remember(&ctx.store, &to);
            }
            let title = title.map(|t| format!(" · {t}")).unwrap_or_default();
            match reason {
                hotl_agent::SwitchReason::New => {
                    say!("· new session {to} (written with its first message)");
                }
                hotl_agent::SwitchReason::Fork => {
                    say!(
                        "· forked into {to}{title} · {} kept; the original is untouched",
                        turns_text(turns)
                    );
                }
                hotl_agent::SwitchReason::Resume => {
                    say!("· resumed {to}{title} · {}", turns_text(turns));
                }
            }
            if cwd != ctx.cwd {
                say!("· working in {}, the session's directory", ctx.tilde(&cwd));
            }
            agent.send(Command::Status);
            live.until(agent, |e| matches!(e, Event::Status(_))).await?;
            if saved && reason == hotl_agent::SwitchReason::Resume {
                // As at start-up: a turn a dead process left open is finished now.
                agent.send(Command::Recover);
                if let Event::Failed { error, .. } = live.until_done(agent).await? {
                    say!("\n· error: {error}");
                }
            }
            live.print_status();
        }
        Event::Reverted { before, to, text } => {
            say!(
                "· reverted to t{to}: t{before} and later turns are hidden (the log keeps them); the message was:"
            );
            say!("{text}");
            live.print_status();
        }
        Event::Cleared { seq } => {
            say!(
                "· cleared at t{seq}: the model starts from nothing; the transcript keeps everything"
            );
            live.print_status();
        }
        Event::Fresh {
            cache_key,
            routed,
            forgotten,
        } => {
            let kept = format!(
                "{forgotten} encoded message{} dropped",
                if forgotten == 1 { "" } else { "s" }
            );
            if routed {
                say!(
                    "· fresh: requests carry a new prompt-cache key ({}…), so the provider's cache for this session starts clean; {kept}; the conversation stays",
                    &cache_key[..cache_key.len().min(10)]
                );
            } else {
                say!(
                    "· fresh: this provider caches by request prefix and keeps no session state, so only hotl's own was dropped ({kept}); a new prompt-cache key is recorded; the conversation stays"
                );
            }
        }
        Event::Renamed { name } => say!("· named {name}"),
        Event::ModeChanged { mode } => say!("· mode: {mode}"),
        _ => {}
    }
    Ok(())
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
async fn confirm_drop(ctx: &Ctx, live: &mut Live) -> Result<bool, CliError> {
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
