//! The line console: `hotl` in a terminal, a front end on the agent's events. Reads a
//! message, sends it, shows the turn live and then the status line (context gauge, todos,
//! model, cost); asks before commands and writes. Lines that are slash commands are parsed by
//! [`hotl_tui::slash`]: the moves (`/fold`, `/recall`, `/ask`, `/compact`) run in the agent, and
//! the session operations (`/new`, `/resume`, `/fork`, `/clear`, `/fresh`, `/drop`,
//! `/rename`, `/mode`) are [`ops`]; [`foreign`] is what `/resume @claude` shares with the
//! terminal UI.

use std::io::{BufRead, Write};
use std::process::ExitCode;

use hotl_agent::{Agent, Command, Event, MoveResult};
use hotl_log::SessionMeta;
use hotl_view::View;

use crate::ctx::Ctx;
use crate::error::CliError;
use crate::input::{Input, Prompt};
use crate::live::Live;
use hotl_tui::slash::{self, Slash};

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
    live.until(agent, |e| matches!(e, Event::Init { .. }))
        .await?;
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
        agent.send(Command::Status);
        live.until(agent, |e| matches!(e, Event::Status(_))).await?;
        live.print_status();
        // A recovery that fails (the provider is down) leaves the session usable: the console
        // goes on, as after any failed turn.
        agent.send(Command::Recover);
        match live.until_done(agent).await? {
            Event::Recovered { outcome: Some(_) } => {
                say!("");
                live.print_status();
            }
            Event::Failed { error, .. } => {
                say!("\n· error: {error}");
                live.print_status();
            }
            _ => {}
        }
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
        match slash::parse(text) {
            Slash::Message(text) => turn(agent, &mut live, text).await?,
            Slash::Exit => break,
            Slash::Help => say_more!("{}", slash::help()),
            Slash::Unknown(word) => say!("· unknown command {word}; /help lists them"),
            Slash::Usage(why) => say!("· {why}"),
            Slash::Session(op) => ops::run(ctx, agent, &mut live, op).await?,
            Slash::Dump if !live.saved => say!("· No messages to dump yet."),
            Slash::Dump => {
                agent.send(Command::Dump);
                match live
                    .until(agent, |e| {
                        matches!(e, Event::Dump(_) | Event::Failed { .. })
                    })
                    .await?
                {
                    Event::Dump(dump) if dump.messages.is_empty() => {
                        say!("· No messages to dump yet.");
                    }
                    Event::Dump(dump) => {
                        let text = dump.text();
                        say!("{}", text.trim_end());
                        copy_to_terminal(&text);
                        say!("· copied ({} lines)", text.lines().count());
                        crate::commands::sessions::dump::tell_sidecar(&dump);
                    }
                    Event::Failed { error, .. } => say!("· error: {error}"),
                    _ => {}
                }
            }
            Slash::Export(_) | Slash::Share if !live.saved => {
                say!("· no session yet: send a message first")
            }
            Slash::Export(path) => match crate::takeout::export_here(ctx, &live.session, path) {
                Ok(lines) => lines.iter().for_each(|l| say!("· {l}")),
                Err(e) => say!("· error: {e}"),
            },
            Slash::Share => {
                say!("· sealing and uploading…");
                match crate::takeout::share_here(ctx, &live.session).await {
                    Ok(lines) => lines.iter().for_each(|l| say!("· {l}")),
                    Err(e) => say!("· error: {e}"),
                }
            }
            Slash::Cost if !live.saved => say!("· nothing spent yet: send a message first"),
            Slash::Cost => {
                agent.send(Command::Stats);
                match live
                    .until(agent, |e| {
                        matches!(e, Event::Stats(_) | Event::Failed { .. })
                    })
                    .await?
                {
                    Event::Stats(stats) => say!("{}", stats.table().trim_end()),
                    Event::Failed { error, .. } => say!("· error: {error}"),
                    _ => {}
                }
            }
            Slash::Context if !live.saved => say!("· no session yet: send a message first"),
            Slash::Context => {
                agent.send(Command::Context);
                match live
                    .until(agent, |e| {
                        matches!(e, Event::Context(_) | Event::Failed { .. })
                    })
                    .await?
                {
                    Event::Context(parts) => {
                        say!("{}", hotl_tui::context_text(&parts, live.status.as_ref()))
                    }
                    Event::Failed { error, .. } => say!("· error: {error}"),
                    _ => {}
                }
            }
            Slash::Model(Some(model)) => {
                agent.send(Command::SetModel { model });
                if let Event::ModelChanged { from, to } = live
                    .until(agent, |e| {
                        matches!(e, Event::ModelChanged { .. } | Event::Failed { .. })
                    })
                    .await?
                {
                    say!(
                        "· model: {to} from the next request on (was {from}); its prompt cache starts cold"
                    );
                }
            }
            Slash::Effort(Some(effort)) => {
                agent.send(Command::SetEffort { effort });
                match live
                    .until(agent, |e| {
                        matches!(e, Event::EffortChanged { .. } | Event::Failed { .. })
                    })
                    .await?
                {
                    Event::EffortChanged { effort } => {
                        say!(
                            "· effort: {effort} from the next request on (recorded: resumes and forks keep it)"
                        )
                    }
                    Event::Failed { error, .. } => say!("· error: {error}"),
                    _ => {}
                }
            }
            Slash::Effort(None) => match live.status.as_ref().and_then(|s| s.effort.clone()) {
                Some(level) => say!("· effort: {level} (recorded in this session)"),
                None => say!("· effort: the model's default (/effort low|medium|high sets one)"),
            },
            Slash::Model(None) => {
                agent.send(Command::Models);
                match live
                    .until(agent, |e| {
                        matches!(e, Event::Models { .. } | Event::Failed { .. })
                    })
                    .await?
                {
                    Event::Models { models, current } => {
                        for m in models {
                            say!("{} {m}", if m == current { "*" } else { " " });
                        }
                        say!("· /model NAME switches");
                    }
                    Event::Failed { error, .. } => say!("· error: {error}"),
                    _ => {}
                }
            }
            Slash::Copy(_) | Slash::Raw(_) => {
                say!("· {text} is a command of the terminal UI (hotl without --no-tui)")
            }
            command => match command.as_move() {
                Some(_) if !live.saved => say!("· no session yet: send a message first"),
                Some(step) => run_move(agent, &mut live, step).await?,
                None => {}
            },
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

/// One message: the turn shown live, then how it ended and the status line.
async fn turn(agent: &mut Agent, live: &mut Live, text: String) -> Result<(), CliError> {
    agent.send(Command::Submit { text });
    match live.until_done(agent).await? {
        Event::TurnEnded(outcome) => {
            say!("");
            if outcome.cancelled {
                say!("· cancelled; the session is kept");
            }
        }
        Event::Failed { error, .. } => say!("\n· error: {error}"),
        _ => {}
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
    agent.send(Command::Move(step));
    match live.until_done(agent).await? {
        Event::MoveEnded(result) => {
            match result {
                MoveResult::Folded {
                    since,
                    until,
                    handle,
                    note,
                    ..
                } => {
                    say!("· folded t{since}..t{until} into handle {handle}");
                    say!("{}", note.trim_end());
                }
                MoveResult::Compacted { until, handle } => say!(
                    "· compacted through t{until}; the span stays archived as {handle} (/recall \
                     finds it, /ask takes it)"
                ),
                MoveResult::Recalled { text } => {
                    say_more!("{text}");
                    if !text.ends_with('\n') {
                        say!("");
                    }
                    return Ok(());
                }
                MoveResult::Answered { text } => say!("{}", text.trim_end()),
            }
            live.print_status();
        }
        Event::Cancelled { .. } => say!("· cancelled; nothing was recorded"),
        Event::Failed { error, .. } => say!("· error: {}", error.replace('\n', " ")),
        _ => {}
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
fn copy_to_terminal(text: &str) {
    use base64::Engine as _;
    use std::io::{IsTerminal, Write};
    let mut out = std::io::stdout();
    if out.is_terminal() {
        let encoded = base64::engine::general_purpose::STANDARD.encode(text);
        let _ = write!(out, "\x1b]52;c;{encoded}\x07");
        let _ = out.flush();
    }
}
