//! The line console: `hotl --no-tui` (or a terminal the UI cannot draw on), a plain front end
//! on the agent's protocol. Reads a message, sends it, shows the turn live and then the status
//! line (context gauge, todos, model, cost); asks before commands and writes. A typed line is
//! planned by the protocol's slash-command table, as every front end plans it, and what
//! happened is said in the protocol's words; what the console adds is plain-text pickers and
//! questions ([`ops`]); [`foreign`] is what `/resume @claude` shares with the terminal UI.

use std::io::{BufRead, Write};
use std::process::ExitCode;

use hotl_agent::{Agent, Command, MoveResult, Outcome};
use hotl_log::SessionMeta;
use hotl_protocol::slash::{self, Front, Local, Plan};
use hotl_view::View;

use crate::ctx::Ctx;
use crate::error::CliError;
use crate::input::{Input, Prompt};
use crate::live::Live;

/// `println!` through [`Plain`](crate::plain::Plain): what the console prints of the session
/// (notes, hits, answers, errors that quote it, titles) may hold control sequences.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let mut out = crate::plain::Plain::new(std::io::stdout().lock());
        let _ = writeln!(out, $($arg)*);
    }};
}

/// `print!` through [`Plain`](crate::plain::Plain), flushed.
macro_rules! say_more {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let mut out = crate::plain::Plain::new(std::io::stdout().lock());
        let _ = write!(out, $($arg)*);
        let _ = out.flush();
    }};
}

pub(crate) mod foreign;
mod ops;

/// Runs the console on `agent` until the user leaves; `first`, when given (`hotl "fix the
/// bug"`), is sent as the first message.
pub async fn run(
    ctx: &Ctx,
    mut agent: Agent,
    first: Option<String>,
    first_frame: std::sync::Arc<tokio::sync::Notify>,
    terminated: std::sync::Arc<tokio::sync::Notify>,
) -> Result<ExitCode, CliError> {
    // The line editor puts the terminal in raw mode while it reads; a SIGTERM may come then.
    let terminal = crate::input::TerminalMode::save();
    let result = tokio::select! {
        result = converse(ctx, &mut agent, first, &first_frame) => result,
        () = terminated.notified() => {
            // Stopped as when the user leaves: what runs is cancelled and recorded (children
            // get 2 s), the terminal is as it was, and the process ends at once (the editor's
            // thread may be blocked reading the terminal).
            agent.shutdown().await;
            terminal.restore();
            say!("\n· stopped (SIGTERM)");
            hotl_agent::end_children();
            std::process::exit(143);
        }
    };
    agent.shutdown().await;
    result
}

async fn converse(
    ctx: &Ctx,
    agent: &mut Agent,
    mut first: Option<String>,
    first_frame: &tokio::sync::Notify,
) -> Result<ExitCode, CliError> {
    let mut live = Live::new();
    live.until_init(agent).await?;
    say!(
        "hotl · {} · {} · Ctrl-C stops a turn, Ctrl-D leaves",
        live.model,
        if live.saved {
            format!("session {}", live.session)
        } else {
            "new session".to_owned()
        }
    );
    // The banner is the console's first frame: MCP servers start now.
    first_frame.notify_one();
    if live.saved {
        live.run(agent, Command::Status).await?;
        live.print_status();
        ops::recover(agent, &mut live).await?;
    }
    let mut prompt = Some(
        Prompt::new(ctx.store.home().join("console-history"))
            .map_err(|e| CliError::Internal(format!("cannot read the terminal: {e}")))?,
    );
    loop {
        if let Some(text) = first.take() {
            say!("> {text}");
            turn(agent, &mut live, text).await?;
            continue;
        }
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
                say!("");
                break;
            }
        };
        let text = line.trim();
        if text.is_empty() {
            continue;
        }
        if dispatch(ctx, agent, &mut live, text).await? == Flow::Leave {
            break;
        }
    }
    if ctx.is_in_memory() {
        say!("session not saved (--no-session): nothing was written");
    } else if live.saved {
        say!(
            "session {} · resume with: hotl -r {}",
            live.session,
            live.session
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Whether the console goes on after a line.
#[derive(Debug, PartialEq, Eq)]
enum Flow {
    Stay,
    Leave,
}

/// One typed line, planned by the slash-command table as every front end plans it.
async fn dispatch(
    ctx: &Ctx,
    agent: &mut Agent,
    live: &mut Live,
    text: &str,
) -> Result<Flow, CliError> {
    let parsed = slash::parse(text);
    let view = parsed.name();
    let front = Front {
        session: &live.session,
        saved: live.saved,
        busy: false,
        read_only: false,
        terminal: true,
    };
    match slash::plan(parsed, &front) {
        Plan::Send(Command::Submit { text }) => turn(agent, live, text).await?,
        Plan::Send(Command::Move(step)) => run_move(agent, live, step).await?,
        Plan::Send(command) => ops::send(ctx, agent, live, command, view).await?,
        Plan::Pick(pick) => ops::pick(ctx, agent, live, pick).await?,
        Plan::Confirm { then, .. } => {
            if ops::confirm_drop(ctx, live).await? {
                ops::send(ctx, agent, live, then, view).await?;
            } else {
                say!("· not dropped");
            }
        }
        Plan::Local(Local::Exit) => return Ok(Flow::Leave),
        Plan::Local(local) => ops::local(ctx, agent, live, local, text).await?,
        Plan::Usage(why) => say!("· {why}"),
    }
    Ok(Flow::Stay)
}

/// One message: the turn shown live, then how it ended and the status line.
async fn turn(agent: &mut Agent, live: &mut Live, text: String) -> Result<(), CliError> {
    let done = live.run(agent, Command::Submit { text }).await?;
    match &done.result {
        Ok(Outcome::TurnEnded(outcome)) => {
            live.end_line();
            if outcome.cancelled {
                live.tell(&done);
            }
        }
        Err(failure) => say!("\n· error: {}", failure.message),
        Ok(_) => {}
    }
    live.print_status();
    Ok(())
}

/// A slash command's move: what it gave, then the status line when it called the model or
/// changed the context. Ctrl-C drops its model call; nothing is recorded until it is done.
async fn run_move(
    agent: &mut Agent,
    live: &mut Live,
    step: hotl_agent::Move,
) -> Result<(), CliError> {
    let done = live.run(agent, Command::Move(step)).await?;
    live.tell(&done);
    if matches!(
        done.result,
        Ok(Outcome::MoveEnded(
            MoveResult::Folded { .. } | MoveResult::Compacted { .. } | MoveResult::Answered { .. }
        ))
    ) {
        live.print_status();
    }
    Ok(())
}

/// A session another process is writing: its transcript as it stands, read-only.
pub fn snapshot(ctx: &Ctx, id: &str, why: &str) -> Result<ExitCode, CliError> {
    let view = View::from_lineage(ctx.store.lineage(id)?);
    let mut out = ctx.out();
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
            "{:>3}  {}  {:<40}  {:>8}  {}",
            i + 1,
            &m.id[..10],
            m.display_title().chars().take(40).collect::<String>(),
            crate::render::relative_time(&m.updated, now),
            ops::turns_text(m.turns as usize)
        );
        if let Some(p) = &m.parent {
            line.push_str(&format!(
                "  ↳ from {}",
                &p.session[..10.min(p.session.len())]
            ));
        }
        say!("{line}");
    }
    say_more!("resume which? ");
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

/// Puts `text` on the clipboard through the terminal (OSC 52: works through tmux and ssh),
/// when stdout is one.
pub(crate) fn copy_to_terminal(text: &str) {
    use base64::Engine as _;
    use std::io::{IsTerminal, Write};
    let mut out = std::io::stdout();
    if out.is_terminal() {
        let encoded = base64::engine::general_purpose::STANDARD.encode(text);
        let _ = write!(out, "\x1b]52;c;{encoded}\x07");
        let _ = out.flush();
    }
}
