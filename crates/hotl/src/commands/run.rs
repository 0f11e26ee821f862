//! Running the agent: `hotl -p "task"` (headless) and `hotl` (the console), on a new session, a
//! resumed one (`-r`, `-c`, an id prefix) or a fork (`--fork-from`).

use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, ValueEnum};
use hotl_agent::{ForkAt, Mode, Start, ToolSet};
use hotl_host::opening::{self, Offered, Opening, Positional};
use hotl_host::signals::Signals;
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
    #[arg(
        long,
        value_name = "MODE",
        value_parser = permission_modes()
    )]
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
    let prompt = prompt_of(args)?;
    let headless = prompt.is_some() || !std::io::stdin().is_terminal();
    let mode = mode_of(args)?;
    let mut tools = tools_of(ctx, args)?;
    let cwd = std::path::Path::new(&ctx.cwd);
    let (mut settings, servers, instructions) =
        launch(ctx, args, &resolved, mode, headless, &mut tools).await?;
    let (target, first_message, tui_pick) = target_of(ctx, args, resume_ref, headless)?;
    let opening = Opening {
        target,
        fork_from: args.fork_from.as_deref(),
        at: fork_at(args),
        name: args.name.as_deref(),
        continue_last: args.continue_last,
        mode,
        headless,
    };
    let offered = Offered {
        tools,
        instructions,
    };
    let start = match opening::open_session(ctx, opening, &resolved, offered) {
        Err(CliError::Locked { session, message }) if !headless => {
            return read_only(ctx, args, &resolved, settings, &session, &message).await;
        }
        other => other?,
    };
    // Said once the session is found: a reference that matches nothing is the one error.
    if let Some(notice) = &resolved.demo_notice {
        eprintln!("hotl: {notice}");
    }
    let (start, sandbox_mode) = crate::sandbox::mode_of(start, sandbox_flag, sandbox_config.mode)?;
    let session_cwd = match &start {
        Start::Open(session) => session.cwd().to_owned(),
        Start::New(new) => new.cwd().to_owned(),
    };
    settings.policy.sandbox =
        crate::sandbox::prepare(ctx, sandbox_mode, &sandbox_config, &session_cwd).await?;
    let session_id = match &start {
        Start::Open(session) => session.id().to_owned(),
        Start::New(new) => new.id().to_owned(),
    };
    if !ctx.is_in_memory() {
        crate::breadcrumb::remember(&ctx.store, &session_id);
    }
    let model_flag = args.model_flags.model.is_some();
    opening::apply_recorded(ctx, &start, &mut settings, (mode, model_flag), &resolved);
    let first_frame = Arc::new(tokio::sync::Notify::new());
    let late = servers.filter(|s| !s.is_empty()).map(|servers| {
        servers.start_after(
            Arc::clone(&first_frame),
            cwd.to_path_buf(),
            settings.hidden_env.clone(),
        )
    });
    let front = Front {
        prompt,
        headless,
        first_message,
        tui_pick,
        session_id,
        fullscreen: args.fullscreen || resolved.fullscreen,
        first_frame,
    };
    front.run(ctx, args, start, settings, late, &resolved).await
}

/// The run's settings, and its MCP servers: headless, where nothing is drawn, they start now
/// (their tools join `tools`, their instructions are returned); otherwise they are returned to
/// start after the first frame.
async fn launch(
    ctx: &Ctx,
    args: &RunArgs,
    resolved: &Resolved,
    mode: Option<Mode>,
    headless: bool,
    tools: &mut ToolSet,
) -> Result<(hotl_agent::Settings, Option<config::Servers>, Vec<String>), CliError> {
    let project = crate::mcp::project_servers(ctx, headless, args.trust_project)?;
    let mut servers = Some(config::Servers::new(resolved, project));
    let mut instructions = Vec::new();
    let mut mcp_allowed = Vec::new();
    if headless && let Some(servers) = servers.take() {
        let started = servers
            .start_now(
                std::path::Path::new(&ctx.cwd),
                hotl_agent::hidden_env(),
                tools,
            )
            .await?;
        crate::mcp::tell(&started.notices);
        (instructions, mcp_allowed) = (started.instructions, started.allow);
    }
    let surface = if headless {
        config::Surface::Headless
    } else {
        config::Surface::Terminal
    };
    let settings = config::Launch::new(resolved, surface)
        .mode(mode.unwrap_or_default())
        .allow(args.allow.iter().cloned().chain(mcp_allowed))
        .home_dir(ctx.home_dir.clone())
        .reaper(crate::reaper::program())
        .ephemeral(ctx.is_in_memory())
        .remote(ctx.follower())
        .settings()
        .await;
    Ok((settings, servers, instructions))
}

/// `-p`'s prompt with what is piped after it; an empty one is refused.
fn prompt_of(args: &RunArgs) -> Result<Option<String>, CliError> {
    let prompt = match args.prompt.as_deref() {
        Some(given) => Some(with_piped_stdin(given)?),
        None => None,
    };
    if prompt.as_deref().is_some_and(|p| p.trim().is_empty()) {
        return Err(CliError::usage("the prompt is empty"));
    }
    Ok(prompt)
}

/// The values `--permission-mode` takes (so completion offers them); Claude Code's names are
/// taken too.
pub fn permission_modes() -> clap::builder::PossibleValuesParser {
    use clap::builder::PossibleValue;
    clap::builder::PossibleValuesParser::new([
        PossibleValue::new("default"),
        PossibleValue::new("accept-edits").alias("acceptEdits"),
        PossibleValue::new("bypass").alias("bypassPermissions"),
        PossibleValue::new("plan"),
    ])
}

/// `--permission-mode`, read.
fn mode_of(args: &RunArgs) -> Result<Option<Mode>, CliError> {
    args.permission_mode
        .as_deref()
        .map(|m| {
            Mode::from_name(m).ok_or_else(|| {
                CliError::usage(format!(
                    "unknown permission mode {m:?}; use default, accept-edits, bypass or plan"
                ))
            })
        })
        .transpose()
}

/// The run's tools (the project's agent definitions among them), with `--allow` checked
/// against them.
fn tools_of(ctx: &Ctx, args: &RunArgs) -> Result<ToolSet, CliError> {
    let (tools, left_out) = crate::delegation::tools(std::path::Path::new(&ctx.cwd));
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
    Ok(tools)
}

/// Where `--keep-turns` or `--keep` cut a fork.
fn fork_at(args: &RunArgs) -> ForkAt {
    match (args.keep_turns, args.keep) {
        (Some(n), _) => ForkAt::Turns(n),
        (None, Some(n)) => ForkAt::Items(n),
        (None, None) => ForkAt::Head,
    }
}

/// The session asked for (`-r`, `resume REF`, or `hotl WORD` naming one), the console's first
/// message (`hotl "fix the bug"`: a word that names no session is a task), and whether the
/// terminal UI opens on its picker (`hotl -r` without a reference).
fn target_of(
    ctx: &Ctx,
    args: &RunArgs,
    resume_ref: Option<String>,
    headless: bool,
) -> Result<(Option<String>, Option<String>, bool), CliError> {
    let mut target = resume_ref.or_else(|| args.resume.clone());
    let mut first_message = None;
    if target.is_none()
        && let Some(word) = &args.session
    {
        match opening::positional(ctx, word, headless)? {
            Positional::Session => target = Some(word.clone()),
            Positional::Task => first_message = Some(word.clone()),
        }
    }
    let tui_pick = target.as_deref() == Some("")
        && !headless
        && args.fork_from.is_none()
        && crate::tui::wanted(args.no_tui);
    if tui_pick {
        target = None;
    }
    Ok((target, first_message, tui_pick))
}

/// A session another process writes, opened at a terminal: a read-only snapshot, in the
/// terminal UI (which can switch to another session) or printed.
async fn read_only(
    ctx: &Ctx,
    args: &RunArgs,
    resolved: &Resolved,
    settings: hotl_agent::Settings,
    session: &str,
    message: &str,
) -> Result<ExitCode, CliError> {
    if !crate::tui::wanted(args.no_tui) {
        return crate::picking::snapshot(ctx, session, message);
    }
    let why = message.lines().next().unwrap_or(message).to_owned();
    let (resumed, read_only) = crate::tui::read_only(ctx, session, why)?;
    let options = hotl_tui::Options {
        resumed: Some(resumed),
        read_only: Some(read_only),
        fullscreen: args.fullscreen || resolved.fullscreen,
        ..crate::tui::options(ctx)
    };
    let opener = crate::tui::Opener {
        provider: resolved.provider.clone(),
        settings,
    };
    crate::tui::run(ctx, None, options, Some(opener)).await
}

/// The front end a run ends in (headless, the terminal UI or the line console), and what it
/// is opened with.
struct Front {
    prompt: Option<String>,
    headless: bool,
    first_message: Option<String>,
    tui_pick: bool,
    session_id: String,
    fullscreen: bool,
    /// Told when the first frame is drawn: the MCP servers start then.
    first_frame: Arc<tokio::sync::Notify>,
}

impl Front {
    /// Starts the agent on `start` and hands it to the front end; Ctrl-C and SIGTERM are
    /// watched beside it.
    async fn run(
        self,
        ctx: &Ctx,
        args: &RunArgs,
        start: Start,
        settings: hotl_agent::Settings,
        late: Option<hotl_agent::Late>,
        resolved: &Resolved,
    ) -> Result<ExitCode, CliError> {
        let opened = crate::tui::process_start().elapsed();
        let resumed = matches!(start, Start::Open(_));
        // What the terminal UI shows of a resumed session: only its tail is turned into cells,
        // from the view the session was opened with (the log is not read twice).
        let tui_tail = match &start {
            Start::Open(session) if self.prompt.is_none() && crate::tui::wanted(args.no_tui) => {
                Some(hotl_tui::transcript::tail(&session.view().items))
            }
            _ => None,
        };
        let ttl = match settings.ttl {
            // A local server with no price (llama.cpp, Ollama) keeps its cache with no clock.
            _ if local_unpriced(&resolved.provider, &settings) => Duration::ZERO,
            Ttl::FiveMinutes => Duration::from_secs(5 * 60),
            Ttl::OneHour => Duration::from_secs(60 * 60),
        };
        let agent = hotl_agent::spawn_with_late(start, resolved.provider.clone(), settings, late);
        let signals = Signals::watch(agent.canceller());
        match self.prompt.as_deref() {
            Some(prompt) => {
                // A fork starts fresh: the turn its parent left open is the parent's to finish.
                let recover = resumed && args.fork_from.is_none();
                crate::headless::run(agent, prompt, args.output_format.into(), recover).await
            }
            None if self.headless => {
                agent.shutdown().await;
                Err(CliError::user(
                    "stdin is not a terminal: pass the task with -p \"...\"",
                ))
            }
            None if crate::tui::wanted(args.no_tui) => {
                let options = hotl_tui::Options {
                    first: self.first_message,
                    resumed: tui_tail.map(|(tail, hidden)| hotl_tui::Resumed {
                        id: self.session_id,
                        tail,
                        hidden,
                    }),
                    ttl,
                    pick: self.tui_pick,
                    opened: resumed.then_some(opened),
                    fullscreen: self.fullscreen,
                    first_frame: Some(self.first_frame),
                    terminated: Some(Arc::clone(&signals.terminated)),
                    ..crate::tui::options(ctx)
                };
                let left = crate::tui::run(ctx, Some(agent), options, None).await?;
                // Ended by SIGTERM: the shell's convention says so (128 + 15).
                Ok(if signals.terminated_by_signal() {
                    ExitCode::from(143)
                } else {
                    left
                })
            }
            None => {
                let options = hotl_tui::Options {
                    first: self.first_message,
                    first_frame: Some(self.first_frame),
                    terminated: Some(Arc::clone(&signals.terminated)),
                    ..crate::tui::options(ctx)
                };
                let left = crate::tui::console(ctx, agent, options).await?;
                if signals.terminated_by_signal() {
                    // The line editor's thread may still be blocked reading the terminal: the
                    // process ends now, its snapshot processes with it.
                    hotl_agent::end_children();
                    std::process::exit(143);
                }
                Ok(left)
            }
        }
    }
}

/// Whether the run asks a server on this machine or network for a model with no known price.
fn local_unpriced(provider: &hotl_agent::Provider, settings: &hotl_agent::Settings) -> bool {
    matches!(provider, hotl_agent::Provider::Http(http) if hotl_wire::is_local(http.base()))
        && settings.pricing.price(&settings.model).is_none()
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

impl From<Format> for OutputFormat {
    fn from(f: Format) -> Self {
        match f {
            Format::Text => OutputFormat::Text,
            Format::Json => OutputFormat::Json,
            Format::StreamJson => OutputFormat::StreamJson,
        }
    }
}
