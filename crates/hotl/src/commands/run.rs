//! Running the agent: `hotl -p "task"` (headless) and `hotl` (the console), on a new session, a
//! resumed one (`-r`, `-c`, an id prefix) or a fork (`--fork-from`).

use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, ValueEnum};
use hotl_agent::{ForkAt, Mode, NewSession, Session, Start, ToolSet};
use hotl_log::SessionMeta;
use hotl_wire::Ttl;

use crate::ctx::Ctx;
use crate::error::CliError;
use crate::headless::OutputFormat;
use hotl_config::{self as config, Overrides, Resolved};

/// Flags of the agent itself (used without a subcommand).
#[derive(Debug, Default, Args)]
pub struct RunArgs {
    /// Run headless with this prompt, print the final answer and exit (`-` reads the prompt
    /// from stdin; piped stdin is added to any other prompt)
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
    /// Allow a tool without asking (repeatable), e.g. --allow bash; --allow bash:unsandboxed
    /// lets commands run outside the sandbox (and files that make programs run be written)
    /// without asking
    #[arg(long, value_name = "TOOL")]
    pub allow: Vec<String>,
    /// Where commands run: workspace-write (the default: writes only in the project, no
    /// network), read-only, or off (unconfined, asked before each unless bypass) [config:
    /// [sandbox] mode]
    #[arg(long, value_name = "MODE")]
    pub sandbox: Option<String>,
    /// Keep the session in memory only: nothing is written to the home (no log, no
    /// breadcrumb, no history), and it cannot be resumed or forked
    #[arg(long, conflicts_with_all = ["resume", "continue_last", "fork_from"])]
    pub no_session: bool,
    /// Use the line console instead of the terminal UI (also when stdin or stdout is not a
    /// terminal)
    #[arg(long)]
    pub no_tui: bool,
    /// The terminal UI in the alternate screen: the transcript scrolls with the wheel and
    /// PageUp/PageDown, a click expands a card in place or takes a handle to /ask (also
    /// `[tui] fullscreen = true`)
    #[arg(long)]
    pub fullscreen: bool,
    /// Start the MCP servers this project's .hotl/config.toml declares, and remember the
    /// project as trusted (a terminal asks instead)
    #[arg(long)]
    pub trust_project: bool,
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
            sandbox: pick(&self.sandbox, &outer.sandbox),
            session: pick(&self.session, &outer.session),
            no_session: self.no_session || outer.no_session,
            no_tui: self.no_tui || outer.no_tui,
            fullscreen: self.fullscreen || outer.fullscreen,
            trust_project: self.trust_project || outer.trust_project,
        }
    }
}

/// What a session is opened with besides its log: the tools (MCP servers' among them), and
/// what the servers ask to add to a new session's prompt.
struct Offered {
    tools: ToolSet,
    instructions: Vec<String>,
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
    /// The most tokens one answer may take (default: 8192, at most a quarter of a window
    /// under 32K; never more than the window leaves) [env: HOTL_MAX_TOKENS]
    #[arg(long, value_name = "TOKENS", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_tokens: Option<u32>,
}

impl ProviderFlags {
    /// These flags over `outer`'s.
    pub fn merged(&self, outer: &ProviderFlags) -> ProviderFlags {
        ProviderFlags {
            provider: self.provider.clone().or_else(|| outer.provider.clone()),
            base_url: self.base_url.clone().or_else(|| outer.base_url.clone()),
            model: self.model.clone().or_else(|| outer.model.clone()),
            max_tokens: self.max_tokens.or(outer.max_tokens),
        }
    }

    /// The overrides configuration resolution takes.
    pub fn overrides(&self) -> Overrides {
        Overrides {
            provider: self.provider.clone(),
            base_url: self.base_url.clone(),
            model: self.model.clone(),
            max_tokens: self.max_tokens,
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
    let runtime = crate::ctx::runtime()?;
    // With a remote, what the run writes is published beside it, and on its way out.
    runtime.block_on(crate::remote::following(
        ctx,
        run_async(ctx, args, resume_ref),
    ))
}

async fn run_async(
    ctx: &Ctx,
    args: &RunArgs,
    resume_ref: Option<String>,
) -> Result<ExitCode, CliError> {
    let file = config::load_file()?;
    let sandbox_config = file.sandbox.clone();
    let resolved = config::resolve(file, &args.model_flags.overrides())?;
    let sandbox_flag = crate::sandbox::parse_mode(args.sandbox.as_deref())?;
    let prompt = match args.prompt.as_deref() {
        Some(given) => Some(with_piped_stdin(given)?),
        None => None,
    };
    if prompt.as_deref().is_some_and(|p| p.trim().is_empty()) {
        return Err(CliError::usage("the prompt is empty"));
    }
    let headless = prompt.is_some() || !std::io::stdin().is_terminal();
    let mode = match &args.permission_mode {
        Some(m) => Some(Mode::from_name(m).ok_or_else(|| {
            CliError::usage(format!(
                "unknown permission mode {m:?}; use default, accept-edits, bypass or plan"
            ))
        })?),
        None => None,
    };
    let (mut tools, left_out) = crate::delegation::tools(std::path::Path::new(&ctx.cwd));
    for problem in left_out {
        eprintln!("hotl: warning: agent definition {problem}");
    }
    // An MCP tool is known only once its server runs: `mcp__` entries are checked by name.
    if let Some(unknown) = args.allow.iter().find(|a| {
        tools.get(a).is_none()
            && !a.starts_with("mcp__")
            && a.as_str() != hotl_agent::ALLOW_UNSANDBOXED
    }) {
        return Err(CliError::usage(format!(
            "--allow {unknown}: there is no such tool; the tools are {}",
            tools.names().join(", ")
        )));
    }
    if let Some(notice) = &resolved.demo_notice {
        eprintln!("hotl: {notice}");
    }
    let cwd = std::path::Path::new(&ctx.cwd);
    let project = crate::mcp::project_servers(ctx, headless, args.trust_project)?;
    let mut servers = Some(config::Servers::new(&resolved, project));
    let mut instructions = Vec::new();
    let mut mcp_allowed = Vec::new();
    // Headless, nothing is drawn: the servers start before the session opens. Otherwise
    // they start after the first frame (below).
    if headless && let Some(servers) = servers.take() {
        let started = servers
            .start_now(cwd, hotl_agent::hidden_env(), &mut tools)
            .await?;
        crate::mcp::tell(&started.notices);
        (instructions, mcp_allowed) = (started.instructions, started.allow);
    }
    let surface = if headless {
        config::Surface::Headless
    } else {
        config::Surface::Terminal
    };
    let mut settings = config::Launch::new(&resolved, surface)
        .mode(mode.unwrap_or_default())
        .allow(args.allow.iter().cloned().chain(mcp_allowed))
        .home_dir(ctx.home_dir.clone())
        .reaper(crate::reaper::program())
        .ephemeral(ctx.is_in_memory())
        .remote(ctx.follower())
        .settings()
        .await;
    let mut target = resume_ref.or_else(|| args.resume.clone());
    // `hotl "fix the bug"`: a first word that names no session is a task, not a reference.
    let mut first_message = None;
    if target.is_none()
        && let Some(word) = &args.session
    {
        match positional(ctx, word, headless)? {
            Positional::Session => target = Some(word.clone()),
            Positional::Task => first_message = Some(word.clone()),
        }
    }
    // `hotl -r` without a reference in the terminal UI: its picker, over a new session.
    let tui_pick = target.as_deref() == Some("")
        && !headless
        && args.fork_from.is_none()
        && crate::tui::wanted(args.no_tui);
    if tui_pick {
        target = None;
    }
    let offered = Offered {
        tools,
        instructions,
    };
    let start = match open_session(ctx, args, target, &resolved, headless, mode, offered) {
        Err(CliError::Locked { session, message }) if !headless => {
            // Another process writes it: a read-only snapshot.
            if crate::tui::wanted(args.no_tui) {
                let why = message.lines().next().unwrap_or(&message).to_owned();
                let (resumed, read_only) = crate::tui::read_only(ctx, &session, why)?;
                let options = hotl_tui::Options {
                    resumed: Some(resumed),
                    read_only: Some(read_only),
                    fullscreen: args.fullscreen || resolved.fullscreen,
                    ..crate::tui::options(ctx)
                };
                let opener = crate::tui::Opener {
                    provider: resolved.provider.clone(),
                    settings: settings.clone(),
                };
                return crate::tui::run(ctx, None, options, Some(opener)).await;
            }
            return crate::picking::snapshot(ctx, &session, &message);
        }
        other => other?,
    };
    let (start, sandbox_mode) = crate::sandbox::mode_of(start, sandbox_flag, sandbox_config.mode)?;
    let session_cwd = match &start {
        Start::Open(session) => session.cwd().to_owned(),
        Start::New(new) => new.cwd().to_owned(),
    };
    settings.policy.sandbox =
        crate::sandbox::prepare(ctx, sandbox_mode, &sandbox_config, &session_cwd).await?;
    let opened = crate::tui::process_start().elapsed();
    let resumed = matches!(start, Start::Open(_));
    let session_id = match &start {
        Start::Open(session) => session.id().to_owned(),
        Start::New(new) => new.id().to_owned(),
    };
    if !ctx.is_in_memory() {
        crate::breadcrumb::remember(&ctx.store, &session_id);
    }
    if let Start::Open(session) = &start
        && session.cwd() != std::path::Path::new(&ctx.cwd)
    {
        // The tools run where the session's files are, which may not be where the user is.
        eprintln!(
            "hotl: working in {}, the session's directory (you are in {})",
            ctx.tilde(&session.cwd().to_string_lossy()),
            ctx.tilde(&ctx.cwd)
        );
    }
    if mode.is_none()
        && let Start::Open(session) = &start
        && let Some(recorded) = session.recorded_mode()
    {
        // Modes are the session's: a resume or a fork keeps the one it recorded, and says so
        // when it allows more than the default (it is easy to forget a bypass).
        settings.policy.mode = recorded;
        if recorded != Mode::Default {
            eprintln!(
                "hotl: mode: {}, recorded in this session; --permission-mode default to drop it",
                recorded.name()
            );
        }
    }
    if let Start::Open(session) = &start
        && let Some(effort) = session.recorded_effort()
    {
        // Effort is the session's, as modes are: a resume or a fork asks as it did.
        settings.reasoning = Some(resolved.provider.reasoning_for(effort));
        settings.effort = Some(effort.to_owned());
    }
    // What the terminal UI shows of a resumed session: only its tail is turned into cells,
    // from the view the session was opened with (the log is not read twice).
    let tui_tail = match &start {
        Start::Open(session) if prompt.is_none() && crate::tui::wanted(args.no_tui) => {
            Some(hotl_tui::transcript::tail(&session.view().items))
        }
        _ => None,
    };
    let settings_ttl = match settings.ttl {
        Ttl::FiveMinutes => Duration::from_secs(5 * 60),
        Ttl::OneHour => Duration::from_secs(60 * 60),
    };
    let first_frame = Arc::new(tokio::sync::Notify::new());
    let late = servers.filter(|s| !s.is_empty()).map(|servers| {
        servers.start_after(
            Arc::clone(&first_frame),
            cwd.to_path_buf(),
            settings.hidden_env.clone(),
        )
    });
    let agent = hotl_agent::spawn_with_late(start, resolved.provider.clone(), settings, late);
    let canceller = agent.canceller();
    // SIGTERM (a supervisor, CI, a closing terminal multiplexer) stops hotl as Ctrl-C and
    // then leaving would: the turn and its children cancelled and recorded, then the process
    // ends. Headless, the run's own end follows the cancel; the console and the terminal UI
    // are told, and leave as when the user leaves.
    let terminated = Arc::new(tokio::sync::Notify::new());
    let mut terminate =
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    let told = Arc::clone(&terminated);
    let by_signal = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let signalled = Arc::clone(&by_signal);
    tokio::spawn(async move {
        loop {
            let asked = tokio::select! {
                c = tokio::signal::ctrl_c() => c.is_ok(),
                t = async {
                    match terminate.as_mut() {
                        Some(t) => t.recv().await,
                        None => std::future::pending().await,
                    }
                } => {
                    signalled.store(true, std::sync::atomic::Ordering::SeqCst);
                    told.notify_one();
                    t.is_some()
                }
            };
            if !asked {
                break;
            }
            canceller.cancel();
        }
    });
    match prompt.as_deref() {
        Some(prompt) => {
            // A fork starts fresh: the turn its parent left open is the parent's to finish.
            let recover = resumed && args.fork_from.is_none();
            crate::headless::run(agent, prompt, args.output_format.into(), recover).await
        }
        None if headless => {
            agent.shutdown().await;
            Err(CliError::user(
                "stdin is not a terminal: pass the task with -p \"...\"",
            ))
        }
        None if crate::tui::wanted(args.no_tui) => {
            let options = hotl_tui::Options {
                first: first_message,
                resumed: tui_tail.map(|(tail, hidden)| hotl_tui::Resumed {
                    id: session_id.clone(),
                    tail,
                    hidden,
                }),
                ttl: settings_ttl,
                pick: tui_pick,
                opened: resumed.then_some(opened),
                fullscreen: args.fullscreen || resolved.fullscreen,
                first_frame: Some(first_frame),
                terminated: Some(terminated),
                ..crate::tui::options(ctx)
            };
            let left = crate::tui::run(ctx, Some(agent), options, None).await?;
            // Ended by SIGTERM: the shell's convention says so (128 + 15).
            Ok(if by_signal.load(std::sync::atomic::Ordering::SeqCst) {
                ExitCode::from(143)
            } else {
                left
            })
        }
        None => {
            let options = hotl_tui::Options {
                first: first_message,
                first_frame: Some(first_frame),
                terminated: Some(terminated),
                ..crate::tui::options(ctx)
            };
            let left = crate::tui::console(ctx, agent, options).await?;
            if by_signal.load(std::sync::atomic::Ordering::SeqCst) {
                // The line editor's thread may still be blocked reading the terminal: the
                // process ends now, its snapshot processes with it.
                hotl_agent::end_children();
                std::process::exit(143);
            }
            Ok(left)
        }
    }
}

/// What the positional argument of `hotl WORD` is.
enum Positional {
    /// A session to resume.
    Session,
    /// A task for a new session's first message (the console only).
    Task,
}

/// Reads `hotl WORD`: a session reference when it resolves; else (it has a space, or names no
/// session) a task, which the console takes as its first message and a headless run refuses
/// with the command that would run it.
fn positional(ctx: &Ctx, word: &str, headless: bool) -> Result<Positional, CliError> {
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

/// The prompt `-p` gives: `-` is all of stdin; any other prompt gets what is piped into stdin
/// after it (`git diff | hotl -p "review this"`). stdin is read only when it is a pipe or a
/// regular file, never a terminal or `/dev/null`.
fn with_piped_stdin(given: &str) -> Result<String, CliError> {
    let piped = piped_stdin()?;
    match (given, piped) {
        ("-", Some(text)) => Ok(text),
        ("-", None) => Err(CliError::user(
            "-p - reads the prompt from stdin, and nothing is piped in",
        )),
        (prompt, Some(text)) if !text.trim().is_empty() => Ok(format!("{prompt}\n\n{text}")),
        (prompt, _) => Ok(prompt.to_owned()),
    }
}

/// All of stdin when it is a pipe or a regular file.
fn piped_stdin() -> Result<Option<String>, CliError> {
    use std::io::Read;
    use std::os::fd::AsFd;
    use std::os::unix::fs::FileTypeExt;
    let stdin = std::io::stdin();
    let kind = stdin
        .as_fd()
        .try_clone_to_owned()
        .map(std::fs::File::from)
        .and_then(|f| f.metadata())
        .map(|m| m.file_type());
    let readable = kind.is_ok_and(|k| k.is_fifo() || k.is_file());
    if !readable {
        return Ok(None);
    }
    let mut bytes = Vec::new();
    stdin.lock().read_to_end(&mut bytes)?;
    Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
}

/// What a run works in: a resumed or forked session, open for writing, or a new one (written
/// when the first message is submitted). Every rule (the name's among them) is checked here,
/// before anything is written.
fn open_session(
    ctx: &Ctx,
    args: &RunArgs,
    target: Option<String>,
    resolved: &Resolved,
    headless: bool,
    mode: Option<Mode>,
    offered: Offered,
) -> Result<Start, CliError> {
    let Offered {
        tools,
        instructions,
    } = offered;
    if let Some(parent) = &args.fork_from {
        let parent = ctx.resolve(parent)?;
        warn_if_cold(ctx, &parent, resolved, headless);
        let at = match (args.keep_turns, args.keep) {
            (Some(n), _) => ForkAt::Turns(n),
            (None, Some(n)) => ForkAt::Items(n),
            (None, None) => ForkAt::Head,
        };
        // A fork works where it is made: here, which also serves a parent whose directory
        // is gone.
        let writer = hotl_agent::fork(&ctx.store, &parent, at, args.name.as_deref(), &ctx.cwd)?;
        let mut session = Session::from_writer(&ctx.store, writer, tools)?;
        if let Some(mode) = mode {
            session.set_mode(mode)?;
        }
        return Ok(Start::Open(Box::new(session)));
    }
    let (meta, mut reroot) = match target {
        Some(query) if query.is_empty() => (Some(crate::picking::pick(ctx, headless)?), false),
        Some(query) => (Some(ctx.resolve(&query)?), false),
        None if args.continue_last => continued(ctx)?,
        None => (None, false),
    };
    let Some(meta) = meta else {
        let new = NewSession::new(&ctx.store, &ctx.cwd, &resolved.model, tools)?
            .with_instructions(instructions)
            .with_mode(mode.unwrap_or_default())
            .with_name(args.name.as_deref())?;
        return Ok(Start::New(new));
    };
    crate::remote::adopt(ctx, &meta.id)?;
    if !reroot && !std::path::Path::new(&meta.cwd).is_dir() {
        // A session made on another machine opens here without asking.
        reroot = ctx.was_pulled(&meta.id) || ask_reroot(ctx, &meta, headless)?;
    }
    let mut session = Session::open(&ctx.store, &meta.id, tools)?;
    if reroot {
        session.reroot(std::path::Path::new(&ctx.cwd))?;
        eprintln!(
            "hotl: moved session {} from {} (gone) into {}",
            meta.id,
            ctx.tilde(&meta.cwd),
            ctx.tilde(&ctx.cwd)
        );
    }
    if let Some(mode) = mode {
        session.set_mode(mode)?;
    }
    Ok(Start::Open(Box::new(session)))
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
        if latest_here.is_none() && !std::path::Path::new(&crumb.cwd).is_dir() {
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

impl From<Format> for OutputFormat {
    fn from(f: Format) -> Self {
        match f {
            Format::Text => OutputFormat::Text,
            Format::Json => OutputFormat::Json,
            Format::StreamJson => OutputFormat::StreamJson,
        }
    }
}
