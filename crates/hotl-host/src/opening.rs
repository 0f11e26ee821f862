//! What a run works in: a resumed or forked session open for writing, or a new one; `-c`'s
//! choice, `hotl WORD`'s reading, a session whose directory is gone moved here, and what a
//! reopened session recorded (its mode, its effort) applied to the run's settings.

use std::path::Path;

use hotl_agent::{ForkAt, Mode, NewSession, Session, Settings, Start, ToolSet};
use hotl_config::Resolved;
use hotl_log::SessionMeta;

use crate::ctx::Ctx;
use crate::error::CliError;

/// What a session is opened with besides its log: the tools (MCP servers' among them), and
/// what the servers ask to add to a new session's prompt.
pub struct Offered {
    /// The run's tools.
    pub tools: ToolSet,
    /// The servers' instructions, for a new session's prompt.
    pub instructions: Vec<String>,
}

/// How the run asked for its session (the flags `hotl` and `hotl resume` take).
#[derive(Debug, Default)]
pub struct Opening<'a> {
    /// A session to resume: a reference, or empty for the picker.
    pub target: Option<String>,
    /// `--fork-from`: the parent of a new fork.
    pub fork_from: Option<&'a str>,
    /// Where the fork is cut.
    pub at: ForkAt,
    /// `--name`, for a new session or a fork.
    pub name: Option<&'a str>,
    /// `-c`: this terminal's or this directory's last session.
    pub continue_last: bool,
    /// `--permission-mode`, when given.
    pub mode: Option<Mode>,
    /// Nobody at a terminal to ask.
    pub headless: bool,
}

/// Opens what `opening` asks for. Every rule (the name's among them) is checked here, before
/// anything is written.
pub fn open_session(
    ctx: &Ctx,
    opening: Opening,
    resolved: &Resolved,
    offered: Offered,
) -> Result<Start, CliError> {
    let Offered {
        tools,
        instructions,
    } = offered;
    if let Some(parent) = opening.fork_from {
        let parent = ctx.resolve(parent)?;
        warn_if_cold(ctx, &parent, resolved, opening.headless);
        // A fork works where it is made: here, which also serves a parent whose directory
        // is gone.
        let writer = hotl_agent::fork(&ctx.store, &parent, opening.at, opening.name, &ctx.cwd)?;
        let session = Session::from_writer(&ctx.store, writer, tools)?;
        return opened(session, opening.mode);
    }
    let (meta, mut reroot) = match opening.target {
        Some(query) if query.is_empty() => {
            (Some(crate::picking::pick(ctx, opening.headless)?), false)
        }
        Some(query) => (Some(ctx.resolve(&query)?), false),
        None if opening.continue_last => continued(ctx)?,
        None => (None, false),
    };
    let Some(meta) = meta else {
        let new = NewSession::new(&ctx.store, &ctx.cwd, &resolved.model, tools)?
            .with_instructions(instructions)
            .with_mode(opening.mode.unwrap_or_default())
            .with_name(opening.name)?;
        return Ok(Start::New(new));
    };
    crate::remote::adopt(ctx, &meta.id)?;
    if !reroot && !Path::new(&meta.cwd).is_dir() {
        // A session made on another machine opens here without asking.
        reroot = ctx.was_pulled(&meta.id) || ask_reroot(ctx, &meta, opening.headless)?;
    }
    let mut session = Session::open(&ctx.store, &meta.id, tools)?;
    if reroot {
        session.reroot(Path::new(&ctx.cwd))?;
        eprintln!(
            "hotl: moved session {} from {} (gone) into {}",
            meta.id,
            ctx.tilde(&meta.cwd),
            ctx.tilde(&ctx.cwd)
        );
    }
    opened(session, opening.mode)
}

fn opened(mut session: Session, mode: Option<Mode>) -> Result<Start, CliError> {
    if let Some(mode) = mode {
        session.set_mode(mode)?;
    }
    Ok(Start::Open(Box::new(session)))
}

/// What a reopened session recorded, applied to the run's `settings` unless the flags say
/// otherwise: its mode (said aloud when it allows more than the default: a bypass is easy to
/// forget), its effort, and the model chosen in it when this run talks to the provider it
/// was chosen on (`model_flag`: `--model` was given). Also says where the tools will run when
/// it is not here.
pub fn apply_recorded(
    ctx: &Ctx,
    start: &Start,
    settings: &mut Settings,
    (mode_flag, model_flag): (Option<Mode>, bool),
    resolved: &Resolved,
) {
    let Start::Open(session) = start else {
        return;
    };
    if session.cwd() != Path::new(&ctx.cwd) {
        eprintln!(
            "hotl: working in {}, the session's directory (you are in {})",
            ctx.tilde(&session.cwd().to_string_lossy()),
            ctx.tilde(&ctx.cwd)
        );
    }
    if mode_flag.is_none()
        && let Some(recorded) = session.recorded_mode()
    {
        settings.policy.mode = recorded;
        if recorded != Mode::Default {
            eprintln!(
                "hotl: mode: {}, recorded in this session; --permission-mode default to drop it",
                recorded.name()
            );
        }
    }
    if !model_flag
        && let Some((model, provider)) = session.recorded_model()
        && provider == resolved.provider.identity()
        && model != settings.model
    {
        eprintln!("hotl: model: {model}, chosen in this session; --model to answer with another");
        settings.model = model.to_owned();
        if let Some(window) = hotl_agent::known_context_window(model) {
            settings.context_window = window;
        }
    }
    if let Some(effort) = session.recorded_effort() {
        settings.reasoning = Some(resolved.provider.reasoning_for(effort));
        settings.effort = Some(effort.to_owned());
    }
}

/// What `-c` continues, and whether to move it here: this terminal's last session when it
/// belongs to this directory (or its directory is gone and this one has no session of its
/// own, then it moves here), else this directory's latest root, else nothing (a new session).
fn continued(ctx: &Ctx) -> Result<(Option<SessionMeta>, bool), CliError> {
    let metas = ctx.store.list()?;
    let latest_here = metas
        .iter()
        .find(|m| !m.dropped && !m.delegated && m.cwd == ctx.cwd)
        .cloned();
    if let Some(crumb) = crate::breadcrumb::recall(&ctx.store) {
        if crumb.cwd == ctx.cwd {
            return Ok((Some(crumb), false));
        }
        if latest_here.is_none() && !Path::new(&crumb.cwd).is_dir() {
            return Ok((Some(crumb), true));
        }
    }
    Ok((latest_here, false))
}

/// A resumed session whose directory is gone: asks to move it here (yes by default); headless
/// there is nobody to ask, and nothing is written.
fn ask_reroot(ctx: &Ctx, meta: &SessionMeta, headless: bool) -> Result<bool, CliError> {
    let gone = ctx.tilde(&meta.cwd);
    if headless {
        return Err(CliError::user(format!(
            "session {}'s directory no longer exists ({gone}); run `hotl -r {}` in a terminal to move it into this directory, or fork it here with --fork-from",
            meta.id, meta.id
        )));
    }
    use std::io::{BufRead, Write};
    print!(
        "Session's directory no longer exists ({gone}). Move (re-root) it into the current directory? [Y/n] "
    );
    std::io::stdout().flush()?;
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer)?;
    match answer.trim() {
        "" | "y" | "Y" | "yes" => Ok(true),
        _ => Err(CliError::user(
            "not resumed: the session stays where it was",
        )),
    }
}

/// A fork's first request reads the parent's prompt cache only while it lives (5 minutes for
/// headless runs, an hour in the console).
fn warn_if_cold(ctx: &Ctx, parent: &SessionMeta, resolved: &Resolved, headless: bool) {
    let ttl = if headless {
        resolved.cold_headless
    } else {
        resolved.cold_console
    };
    let Some(updated) = hotl_log::parse_ts(&parent.updated) else {
        return;
    };
    let idle = ctx.now().duration_since(updated).unwrap_or_default();
    if idle > ttl {
        eprintln!(
            "hotl: note: {} was last active {} ago, longer than the prompt cache lives ({}); the fork's first request pays full price once",
            parent.id,
            humantime::format_duration(std::time::Duration::from_secs(idle.as_secs())),
            humantime::format_duration(ttl)
        );
    }
}

/// What the positional argument of `hotl WORD` is.
pub enum Positional {
    /// A session to resume.
    Session,
    /// A task for a new session's first message (the console only).
    Task,
}

/// Reads `hotl WORD`: a session reference when it resolves; else (it has a space, or names no
/// session) a task, which the console takes as its first message and a headless run refuses
/// with the command that would run it.
pub fn positional(ctx: &Ctx, word: &str, headless: bool) -> Result<Positional, CliError> {
    // An ambiguous prefix is a reference the user meant: its error names the candidates.
    if !word.contains(char::is_whitespace) && ctx.find(word)?.is_some() {
        return Ok(Positional::Session);
    }
    const SUBCOMMANDS: &[&str] = &[
        "list", "ls", "show", "dump", "import", "fork", "rename", "revert", "clear", "drop",
        "check",
    ];
    if SUBCOMMANDS.contains(&word) {
        return Err(CliError::user(format!("no session matches {word:?}"))
            .hint(format!("did you mean `hotl sessions {word}`?")));
    }
    if headless {
        return Err(CliError::user(format!(
            "no session matches {word:?}, and without a terminal a task needs -p"
        ))
        .hint(format!(
            "to run it as a task: hotl -p {}",
            shell_quote(word)
        )));
    }
    Ok(Positional::Task)
}

/// `text` quoted for a POSIX shell.
fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}
