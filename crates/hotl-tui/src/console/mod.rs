//! The line console: `hotl --no-tui` (or a terminal the UI does not draw on), the plain front
//! end on the agent's protocol. Reads a message, sends it, shows the turn live and then the
//! status line (context gauge, todos, model, cost); asks before commands and writes. A typed
//! line is planned by the protocol's slash-command table as in the terminal UI, what happened
//! is said in the protocol's words, and the session store is reached through the same
//! [`Host`]; what the console adds is plain-text pickers and questions ([`ops`]).

use std::io::{self, Write};

use hotl_protocol::slash::{self, Front, Local, Plan};
use hotl_protocol::{Agent, Command, MoveResult, Outcome};

use self::live::Live;
use self::prompt::{Input, Prompt, TerminalMode};
use crate::run::{Ended, Host, Options};

mod live;
mod ops;
mod prompt;

/// Prints a line through [`hotl_text::Plain`]: what the console prints of the session (notes,
/// hits, answers, errors that quote it, titles) may hold control sequences.
fn say(text: impl std::fmt::Display) {
    let mut out = hotl_text::Plain::new(io::stdout().lock());
    let _ = writeln!(out, "{text}");
}

/// Prints without a newline, flushed.
fn say_more(text: impl std::fmt::Display) {
    let mut out = hotl_text::Plain::new(io::stdout().lock());
    let _ = write!(out, "{text}");
    let _ = out.flush();
}

/// Runs the console on `agent` until the user leaves (`options.first`, when given, is sent as
/// the first message); SIGTERM (`options.terminated`) stops it as leaving does.
pub async fn run(mut agent: Agent, host: &dyn Host, options: Options) -> io::Result<Ended> {
    // The line editor puts the terminal in raw mode while it reads; a SIGTERM may come then.
    let terminal = TerminalMode::save();
    let terminated = options.terminated.clone();
    let result = tokio::select! {
        result = converse(&mut agent, host, &options) => result,
        () = async {
            match &terminated {
                Some(told) => told.notified().await,
                None => std::future::pending().await,
            }
        } => {
            // Stopped as when the user leaves: what runs is cancelled and recorded (children
            // get 2 s), the terminal is as it was.
            agent.shutdown().await;
            terminal.restore();
            say("\n· stopped (SIGTERM)");
            return Ok(Ended { session: String::new(), saved: false });
        }
    };
    agent.shutdown().await;
    result
}

async fn converse(agent: &mut Agent, host: &dyn Host, options: &Options) -> io::Result<Ended> {
    let mut live = Live::new();
    live.until_init(agent).await?;
    say(format_args!(
        "hotl · {} · {} · Ctrl-C stops a turn, Ctrl-D leaves",
        live.model,
        if live.saved {
            format!("session {}", live.session)
        } else {
            "new session".to_owned()
        }
    ));
    // The banner is the console's first frame: MCP servers start now.
    if let Some(first_frame) = &options.first_frame {
        first_frame.notify_one();
    }
    if live.saved {
        live.run(agent, Command::Status).await?;
        live.print_status();
        ops::recover(agent, &mut live).await?;
    }
    let mut prompt = Some(Prompt::new(options.history.clone()).map_err(io::Error::other)?);
    let mut first = options.first.clone();
    loop {
        if let Some(text) = first.take() {
            say(format_args!("> {text}"));
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
        .map_err(io::Error::other)?;
        prompt = Some(editor);
        let line = match input {
            Input::Line(line) => line,
            Input::Interrupted => continue,
            Input::End => {
                say("");
                break;
            }
        };
        let text = line.trim();
        if text.is_empty() {
            continue;
        }
        if dispatch(agent, host, &mut live, text).await? == Flow::Leave {
            break;
        }
    }
    if options.ephemeral {
        say("session not saved (--no-session): nothing was written");
    } else if live.saved {
        let by = host
            .session_name(&live.session)
            .unwrap_or_else(|| live.session.clone());
        say(format_args!(
            "session {} · resume with: hotl -r {by}",
            live.session
        ));
    }
    Ok(Ended {
        session: live.session.clone(),
        saved: live.saved,
    })
}

/// Whether the console goes on after a line.
#[derive(Debug, PartialEq, Eq)]
enum Flow {
    Stay,
    Leave,
}

/// One typed line, planned by the slash-command table as every front end plans it.
async fn dispatch(
    agent: &mut Agent,
    host: &dyn Host,
    live: &mut Live,
    text: &str,
) -> io::Result<Flow> {
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
        Plan::Send(command) => ops::send(agent, host, live, command, view).await?,
        Plan::Pick(pick) => ops::pick(agent, host, live, pick).await?,
        Plan::Confirm { then, .. } => {
            if ops::confirm_drop(host, live).await {
                ops::send(agent, host, live, then, view).await?;
            } else {
                say("· not dropped");
            }
        }
        Plan::Local(Local::Exit) => return Ok(Flow::Leave),
        Plan::Local(local) => ops::local(agent, host, live, local, text).await?,
        Plan::Usage(why) => say(format_args!("· {why}")),
    }
    Ok(Flow::Stay)
}

/// One message: the turn shown live, then how it ended and the status line.
async fn turn(agent: &mut Agent, live: &mut Live, text: String) -> io::Result<()> {
    let done = live.run(agent, Command::Submit { text }).await?;
    match &done.result {
        Ok(Outcome::TurnEnded(outcome)) => {
            live.end_line();
            if outcome.cancelled {
                live.tell(&done);
            }
        }
        Err(failure) => say(format_args!("\n· error: {}", failure.message)),
        Ok(_) => {}
    }
    live.print_status();
    Ok(())
}

/// A slash command's move: what it gave, then the status line when it called the model or
/// changed the context. Ctrl-C drops its model call; nothing is recorded until it is done.
async fn run_move(agent: &mut Agent, live: &mut Live, step: hotl_protocol::Move) -> io::Result<()> {
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
