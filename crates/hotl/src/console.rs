//! The line console: `hotl` in a terminal. Reads a message, runs the turn with live output,
//! shows a status line (context gauge, todos, model, cost) and asks before commands and writes.
//! Lines that are slash commands (`/fold`, `/recall`, `/ask`, `/help`) go to [`crate::slash`].

use std::io::{BufRead, Write};
use std::process::ExitCode;

use hotl_agent::{Mode, Session, Settings};
use hotl_log::SessionMeta;
use hotl_view::View;
use tokio::sync::watch;

use crate::commands::run::RunArgs;
use crate::config::Resolved;
use crate::ctx::Ctx;
use crate::error::CliError;
use crate::input::{Input, Prompt};
use crate::slash::{self, Slash};
use crate::ui::ConsoleUi;

#[allow(clippy::too_many_arguments)]
pub async fn run(
    ctx: &Ctx,
    args: &RunArgs,
    mut session: Option<Session>,
    resolved: &Resolved,
    settings: &Settings,
    mode: Option<Mode>,
    ui: &mut ConsoleUi,
    cancel: watch::Receiver<bool>,
    reset: &watch::Sender<bool>,
) -> Result<ExitCode, CliError> {
    println!(
        "hotl · {} · {} · Ctrl-C stops a turn, Ctrl-D leaves",
        resolved.model,
        session
            .as_ref()
            .map_or("new session".to_owned(), |s| format!("session {}", s.id()))
    );
    if let Some(s) = session.as_mut() {
        println!("{}", status(s, settings));
        // A recovery that fails (the provider is down) leaves the session usable: the
        // console goes on, as after any failed turn.
        match s
            .recover(&resolved.provider, settings, ui, cancel.clone())
            .await
        {
            Ok(Some(outcome)) => {
                println!();
                if outcome.cancelled {
                    let _ = reset.send(false);
                }
                println!("{}", status(s, settings));
            }
            Ok(None) => {}
            Err(e) => {
                println!("\n· error: {e}");
                println!("{}", status(s, settings));
            }
        }
    }
    let mut prompt = Some(
        Prompt::new(ctx.store.home().join("console-history"))
            .map_err(|e| CliError::Internal(format!("cannot read the terminal: {e}")))?,
    );
    loop {
        // The editor blocks on the terminal: it goes to a blocking thread and comes back.
        let mut editor = prompt
            .take()
            .expect("the prompt comes back after each read");
        let (editor, input) = tokio::task::spawn_blocking(move || {
            let input = editor.read();
            (editor, input)
        })
        .await
        .map_err(|e| CliError::Internal(e.to_string()))?;
        prompt = Some(editor);
        let line = match input {
            Input::Line(line) => line,
            Input::Interrupted => continue,
            Input::End => {
                println!();
                break;
            }
        };
        let text = line.trim();
        if text.is_empty() {
            continue;
        }
        let _ = reset.send(false);
        let text = match slash::parse(text) {
            Slash::Message(text) => text,
            Slash::Exit => break,
            command => {
                slash::run(
                    command,
                    session.as_mut(),
                    &resolved.provider,
                    settings,
                    cancel.clone(),
                )
                .await;
                continue;
            }
        };
        if session.is_none() {
            let cwd = std::path::PathBuf::from(&ctx.cwd);
            let mut s = Session::create(
                &ctx.store,
                &cwd,
                &resolved.model,
                hotl_agent::default_tools(),
                mode.unwrap_or_default(),
            )?;
            if let Some(name) = &args.name {
                s.set_name(name)?;
            }
            session = Some(s);
        }
        let s = session.as_mut().expect("created above");
        match s
            .submit(&text, &resolved.provider, settings, ui, cancel.clone())
            .await
        {
            Ok(outcome) => {
                println!();
                if outcome.cancelled {
                    println!("· cancelled; the session is kept");
                }
            }
            Err(e) => println!("\n· error: {e}"),
        }
        println!("{}", status(s, settings));
    }
    if let Some(s) = &session {
        println!("session {} · resume with: hotl -r {}", s.id(), s.id());
    }
    Ok(ExitCode::SUCCESS)
}

/// `── 12% ctx · todos 1/3 · claude-sonnet-4-5 · $0.0123 ──`: the context gauge measures what
/// the last request held against `settings.context_window` (a turn compacts at
/// [`hotl_agent::COMPACT_AT_PERCENT`]).
pub fn status(session: &Session, settings: &Settings) -> String {
    let view = session.view();
    let percent = (session.context_used() * 100)
        .checked_div(settings.context_window)
        .unwrap_or(0);
    let mut parts = vec![format!("{percent}% ctx")];
    let todos = &view.state.todos;
    if !todos.is_empty() {
        let done = todos.iter().filter(|t| t.status == "done").count();
        parts.push(format!("todos {done}/{}", todos.len()));
    }
    if let Some(model) = session.last_model() {
        parts.push(model);
    }
    if let Some(mode) = &view.state.modes.permission {
        parts.push(format!("mode {mode}"));
    }
    parts.push(format!("${:.4}", session.totals.cost));
    format!("── {} ──", parts.join(" · "))
}

/// A session another process is writing: its transcript as it stands, read-only.
pub fn snapshot(ctx: &Ctx, id: &str, why: &str) -> Result<ExitCode, CliError> {
    let view = View::from_lineage(ctx.store.lineage(id)?);
    let mut out = std::io::stdout().lock();
    crate::render::transcript(&mut out, &view)?;
    writeln!(
        out,
        "── read-only snapshot: {} ──",
        why.lines().next().unwrap_or(why)
    )?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// `hotl -r` without a reference: a numbered list (this directory's sessions, else all), and a
/// choice read from the terminal.
pub fn pick(ctx: &Ctx, headless: bool) -> Result<SessionMeta, CliError> {
    if headless {
        return Err(CliError::user(
            "-r without a session needs a terminal to pick from; pass a list number, id prefix, name or @last",
        ));
    }
    let metas = ctx.store.list()?;
    let mut rows = hotl_log::listed(&metas, Some(&ctx.cwd));
    let scoped = !rows.is_empty();
    if !scoped {
        rows = hotl_log::listed(&metas, None);
    }
    if rows.is_empty() {
        return Err(CliError::user("there are no sessions to resume"));
    }
    let now = ctx.now();
    for (i, m) in rows.iter().enumerate().take(30) {
        let mut line = format!(
            "{:>3}  {}  {:<40}  {:>8}  {} turns",
            i + 1,
            &m.id[..10],
            m.display_title().chars().take(40).collect::<String>(),
            crate::render::relative_time(&m.updated, now),
            m.turns
        );
        if let Some(p) = &m.parent {
            line.push_str(&format!(
                "  ↳ from {}",
                &p.session[..10.min(p.session.len())]
            ));
        }
        println!("{line}");
    }
    print!("resume which? ");
    std::io::stdout().flush()?;
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer)?;
    let answer = answer.trim();
    if let Ok(n) = answer.parse::<usize>()
        && let Some(m) = n.checked_sub(1).and_then(|i| rows.get(i))
    {
        return Ok((*m).clone());
    }
    ctx.resolve(answer)
}
