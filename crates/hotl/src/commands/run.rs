//! Running the agent: `hotl -p "task"` (headless) and `hotl` (the console), on a new session, a
//! resumed one (`-r`, `-c`, an id prefix) or a fork (`--fork-from`).

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use hotl_agent::{Mode, Policy, Session, Settings};
use hotl_log::SessionMeta;
use hotl_wire::Ttl;
use tokio::sync::watch;

use crate::commands::sessions::fork::create_fork;
use crate::config::{self, Overrides, Resolved};
use crate::ctx::Ctx;
use crate::error::CliError;
use crate::ui::{ConsoleUi, OutputFormat, PrintUi};

/// Flags of the agent itself (used without a subcommand).
#[derive(Debug, Default, Args)]
pub struct RunArgs {
    /// Run headless with this prompt, print the final answer and exit
    #[arg(short = 'p', long = "print", value_name = "PROMPT")]
    pub prompt: Option<String>,
    /// What -p prints
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub output_format: Format,
    /// Resume a session: a list number, id prefix, name or @last (no value: pick from a list)
    #[arg(short = 'r', long = "resume", value_name = "REF", num_args = 0..=1, default_missing_value = "")]
    pub resume: Option<String>,
    /// Continue the most recent session of this directory (a new one if there is none)
    #[arg(short = 'c', long = "continue")]
    pub continue_last: bool,
    /// Start from a fork of this session (a list number, id prefix, name or @last)
    #[arg(long, value_name = "REF")]
    pub fork_from: Option<String>,
    /// With --fork-from: fork at the end of the N-th completed turn
    #[arg(
        long,
        value_name = "N",
        requires = "fork_from",
        conflicts_with = "keep"
    )]
    pub keep_turns: Option<usize>,
    /// With --fork-from: fork after N transcript items (must be a turn boundary)
    #[arg(long, value_name = "N", requires = "fork_from")]
    pub keep: Option<usize>,
    /// Name the new session
    #[arg(short = 'n', long, value_name = "NAME")]
    pub name: Option<String>,
    #[command(flatten)]
    pub model_flags: ProviderFlags,
    /// default | accept-edits | bypass | plan
    #[arg(long, value_name = "MODE")]
    pub permission_mode: Option<String>,
    /// Allow a tool without asking (repeatable), e.g. --allow bash
    #[arg(long, value_name = "TOOL")]
    pub allow: Vec<String>,
    /// A session id prefix to resume (like -r)
    #[arg(value_name = "SESSION")]
    pub session: Option<String>,
}

impl RunArgs {
    /// These flags (given after `resume`) over `outer` (given before it).
    pub fn merged(&self, outer: &RunArgs) -> RunArgs {
        let pick = |a: &Option<String>, b: &Option<String>| a.clone().or_else(|| b.clone());
        RunArgs {
            prompt: pick(&self.prompt, &outer.prompt),
            output_format: if self.output_format != Format::Text {
                self.output_format
            } else {
                outer.output_format
            },
            resume: pick(&self.resume, &outer.resume),
            continue_last: self.continue_last || outer.continue_last,
            fork_from: pick(&self.fork_from, &outer.fork_from),
            keep_turns: self.keep_turns.or(outer.keep_turns),
            keep: self.keep.or(outer.keep),
            name: pick(&self.name, &outer.name),
            model_flags: self.model_flags.merged(&outer.model_flags),
            permission_mode: pick(&self.permission_mode, &outer.permission_mode),
            allow: self.allow.iter().chain(&outer.allow).cloned().collect(),
            session: pick(&self.session, &outer.session),
        }
    }
}

/// Which model answers: flags over the environment over the config file.
#[derive(Debug, Default, Clone, Args)]
pub struct ProviderFlags {
    /// anthropic | openai | openai-chat | demo [env: HOTL_PROVIDER]
    #[arg(long, value_name = "PROVIDER")]
    pub provider: Option<String>,
    /// A server root or a URL ending in /v1 (any OpenAI-compatible server) [env: HOTL_BASE_URL]
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// The model [env: HOTL_MODEL]
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
}

impl ProviderFlags {
    /// These flags over `outer`'s.
    pub fn merged(&self, outer: &ProviderFlags) -> ProviderFlags {
        ProviderFlags {
            provider: self.provider.clone().or_else(|| outer.provider.clone()),
            base_url: self.base_url.clone().or_else(|| outer.base_url.clone()),
            model: self.model.clone().or_else(|| outer.model.clone()),
        }
    }

    /// The overrides configuration resolution takes.
    pub fn overrides(&self) -> Overrides {
        Overrides {
            provider: self.provider.clone(),
            base_url: self.base_url.clone(),
            model: self.model.clone(),
        }
    }
}

/// Output formats of headless runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// The final answer.
    #[default]
    Text,
    /// One JSON object: the answer, the session id, usage and cost.
    Json,
    /// One JSON event per line as the run happens, then the result.
    StreamJson,
}

/// Runs the agent.
pub fn run(ctx: &Ctx, args: &RunArgs, resume_ref: Option<String>) -> Result<ExitCode, CliError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| CliError::Internal(format!("cannot start the runtime: {e}")))?;
    runtime.block_on(run_async(ctx, args, resume_ref))
}

async fn run_async(
    ctx: &Ctx,
    args: &RunArgs,
    resume_ref: Option<String>,
) -> Result<ExitCode, CliError> {
    let resolved = config::resolve(config::load_file()?, &args.model_flags.overrides())?;
    if args.prompt.as_deref().is_some_and(|p| p.trim().is_empty()) {
        return Err(CliError::user("the prompt is empty"));
    }
    let headless = args.prompt.is_some() || !std::io::stdin().is_terminal();
    let mode = match &args.permission_mode {
        Some(m) => Some(Mode::from_name(m).ok_or_else(|| {
            CliError::user(format!(
                "unknown permission mode {m:?}; use default, accept-edits, bypass or plan"
            ))
        })?),
        None => None,
    };
    let tools: Vec<String> = hotl_agent::default_tools()
        .iter()
        .map(|t| t.definition().name)
        .collect();
    if let Some(unknown) = args.allow.iter().find(|a| !tools.contains(a)) {
        return Err(CliError::user(format!(
            "--allow {unknown}: there is no such tool; the tools are {}",
            tools.join(", ")
        )));
    }
    let mut settings = Settings::new(resolved.model.clone());
    settings.pricing = resolved.pricing.clone();
    settings.explicit_breakpoints = resolved.explicit_breakpoints;
    settings.context_window = config::context_window(&resolved, &resolved.model).await;
    settings.ttl = if headless {
        Ttl::FiveMinutes
    } else {
        Ttl::OneHour
    };
    settings.policy = Policy {
        mode: mode.unwrap_or_default(),
        allow: args.allow.clone(),
        interactive: !headless,
    };
    if let Some(notice) = resolved.demo_notice {
        eprintln!("hotl: {notice}");
    }
    let target = resume_ref
        .or_else(|| args.resume.clone())
        .or_else(|| args.session.clone());
    let session = match open_session(ctx, args, target, &resolved, headless, mode) {
        Err(CliError::Locked { session, message }) if !headless => {
            // Another process writes it: the console shows a read-only snapshot.
            return crate::console::snapshot(ctx, &session, &message);
        }
        other => other?,
    };
    if mode.is_none()
        && let Some(recorded) = session.as_ref().and_then(recorded_mode)
    {
        // Modes are the session's: a resume or a fork keeps the one it recorded.
        settings.policy.mode = recorded;
    }
    let (cancel_tx, cancel) = watch::channel(false);
    let cancel_tx = std::sync::Arc::new(cancel_tx);
    let signal_tx = cancel_tx.clone();
    tokio::spawn(async move {
        while tokio::signal::ctrl_c().await.is_ok() {
            let _ = signal_tx.send(true);
        }
    });
    match args.prompt.clone() {
        Some(prompt) => {
            let format = OutputFormat::from(args.output_format);
            let mut ui = PrintUi::new(format);
            headless_turn(
                ctx, args, session, &prompt, &resolved, &settings, mode, &mut ui, cancel,
            )
            .await
        }
        None if headless => Err(CliError::user(
            "stdin is not a terminal: pass the task with -p \"...\"",
        )),
        None => {
            let mut ui = ConsoleUi::new();
            crate::console::run(
                ctx, args, session, &resolved, &settings, mode, &mut ui, cancel, &cancel_tx,
            )
            .await
        }
    }
}

/// The session a run works in: `Some` for a resume or a fork, `None` for a new session (created
/// when the first message is submitted).
fn open_session(
    ctx: &Ctx,
    args: &RunArgs,
    target: Option<String>,
    resolved: &Resolved,
    headless: bool,
    mode: Option<Mode>,
) -> Result<Option<Session>, CliError> {
    if let Some(parent) = &args.fork_from {
        let parent = ctx.resolve(parent)?;
        warn_if_cold(ctx, &parent, resolved, headless);
        let writer = create_fork(
            &ctx.store,
            &parent,
            args.keep_turns,
            args.keep,
            args.name.as_deref(),
        )?;
        let mut session = Session::from_writer(&ctx.store, writer, hotl_agent::default_tools())?;
        if let Some(mode) = mode {
            session.set_mode(mode)?;
        }
        report(&session);
        return Ok(Some(session));
    }
    let meta = match target {
        Some(query) if query.is_empty() => Some(crate::console::pick(ctx, headless)?),
        Some(query) => Some(ctx.resolve(&query)?),
        None if args.continue_last => ctx
            .store
            .list()?
            .into_iter()
            .find(|m| !m.dropped && !m.delegated && m.cwd == ctx.cwd),
        None => None,
    };
    let Some(meta) = meta else {
        return Ok(None);
    };
    let mut session = Session::open(&ctx.store, &meta.id, hotl_agent::default_tools())?;
    if let Some(mode) = mode {
        session.set_mode(mode)?;
    }
    report(&session);
    if let Some(last) = session.last_model()
        && last != resolved.model
    {
        eprintln!(
            "hotl: the model changed: this transcript was produced by {last}; continuing with {}",
            resolved.model
        );
    }
    Ok(Some(session))
}

/// The permission mode a session recorded last.
fn recorded_mode(session: &Session) -> Option<Mode> {
    let modes = &session.view().state.modes;
    if modes.plan {
        return Some(Mode::Plan);
    }
    modes.permission.as_deref().and_then(Mode::from_name)
}

fn report(session: &Session) {
    for problem in &session.problems {
        eprintln!("hotl: warning: {problem}");
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

#[allow(clippy::too_many_arguments)]
async fn headless_turn(
    ctx: &Ctx,
    args: &RunArgs,
    session: Option<Session>,
    prompt: &str,
    resolved: &Resolved,
    settings: &Settings,
    mode: Option<Mode>,
    ui: &mut PrintUi,
    cancel: watch::Receiver<bool>,
) -> Result<ExitCode, CliError> {
    let forked = args.fork_from.is_some();
    let mut session = match session {
        Some(s) => s,
        None => {
            let cwd = std::path::PathBuf::from(&ctx.cwd);
            let mut s = Session::create(
                &ctx.store,
                &cwd,
                &resolved.model,
                hotl_agent::default_tools(),
                mode.unwrap_or_default(),
            )?;
            if let Some(name) = &args.name {
                crate::commands::sessions::fork::ensure_name_free(&ctx.store, name, Some(s.id()))?;
                s.set_name(name)?;
            }
            s
        }
    };
    let recovered = if forked {
        None
    } else {
        session
            .recover(&resolved.provider, settings, ui, cancel.clone())
            .await?
    };
    let mut outcome = session
        .submit(prompt, &resolved.provider, settings, ui, cancel)
        .await;
    // The json result counts every request this process made, the recovery's included.
    if let (Some(before), Ok(outcome)) = (recovered, outcome.as_mut()) {
        outcome.add(&before);
    }
    ui.finish(&session, &outcome)
}

impl From<Format> for OutputFormat {
    fn from(f: Format) -> Self {
        match f {
            Format::Text => OutputFormat::Text,
            Format::Json => OutputFormat::Json,
            Format::StreamJson => OutputFormat::StreamJson,
        }
    }
}
