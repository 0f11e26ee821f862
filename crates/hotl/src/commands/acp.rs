//! `hotl acp`: hotl as an Agent Client Protocol agent on stdio, for editors (Zed and others)
//! that start it as a child process. Only protocol messages reach stdout; notices of this run
//! (the demo provider, a local server's warnings) go to stderr, logs to the log file.

use std::process::ExitCode;

use clap::Args;
use hotl_agent::Mode;

use crate::commands::run::ProviderFlags;
use crate::ctx::Ctx;
use crate::error::CliError;
use hotl_config as config;

/// Serve the Agent Client Protocol on stdin/stdout, for an editor (Zed and others) that starts
/// hotl as its agent
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    In Zed's settings.json: \"agent_servers\": {\"hotl\": {\"command\": \"hotl\", \"args\": [\"acp\"]}}\n  \
    hotl acp --model claude-sonnet-4-5 --permission-mode accept-edits")]
pub struct AcpArgs {
    /// The mode new sessions start in: default, accept-edits, plan or bypass (the editor can
    /// change it per session)
    #[arg(long, value_name = "MODE", value_parser = crate::commands::run::permission_modes())]
    pub permission_mode: Option<String>,
    /// Start the MCP servers this project's .hotl/config.toml declares (and remember it as
    /// trusted)
    #[arg(long)]
    pub trust_project: bool,
    /// Where commands run: workspace-write (the default), read-only or off [config: [sandbox]
    /// mode]
    #[arg(long, value_name = "MODE")]
    pub sandbox: Option<String>,
    #[command(flatten)]
    pub model_flags: ProviderFlags,
}

pub fn run(ctx: &Ctx, args: &AcpArgs) -> Result<ExitCode, CliError> {
    let mode = match &args.permission_mode {
        Some(m) => Mode::from_name(m).ok_or_else(|| {
            CliError::usage(format!(
                "unknown permission mode {m:?}; use default, accept-edits, bypass or plan"
            ))
        })?,
        None => Mode::default(),
    };
    if ctx.is_in_memory() {
        return Err(CliError::user(
            "hotl acp keeps its sessions: --no-session does not apply",
        ));
    }
    let runtime = crate::ctx::runtime()?;
    // With a remote, what the editor's sessions write is published beside them.
    runtime.block_on(crate::remote::following(ctx, async {
        let file = config::load_file()?;
        let sandbox_config = file.sandbox.clone();
        let resolved = config::resolve(file, &args.model_flags.overrides())?;
        if let Some(notice) = &resolved.demo_notice {
            eprintln!("hotl: {notice}");
        }
        // The editor answers approvals, as a person at a terminal would.
        let mut settings = config::Launch::new(&resolved, config::Surface::Editor)
            .mode(mode)
            .home_dir(ctx.home_dir.clone())
            .reaper(crate::reaper::program())
            .remote(ctx.follower())
            .settings()
            .await;
        let cwd = std::path::Path::new(&ctx.cwd);
        // One sandbox for the editor's sessions: each session's project is its own directory.
        let sandbox_mode = crate::sandbox::parse_mode(args.sandbox.as_deref())?
            .or(sandbox_config.mode)
            .unwrap_or_default();
        settings.policy.sandbox =
            crate::sandbox::prepare(ctx, sandbox_mode, &sandbox_config, cwd).await?;
        let (mut tools, _left_out) = crate::delegation::tools(cwd);
        // stdin is the protocol's: no question can be asked.
        let project = crate::mcp::project_servers(ctx, true, args.trust_project)?;
        let started = config::Servers::new(&resolved, project)
            .start_now(cwd, settings.hidden_env.clone(), &mut tools)
            .await?;
        crate::mcp::tell(&started.notices);
        settings.policy.allow.extend(started.allow);
        let instructions = started.instructions;
        let server = hotl_acp::Server::new(std::sync::Arc::new(hotl_agent::SessionLauncher {
            store: ctx.store.clone(),
            provider: resolved.provider,
            settings,
            tools,
            instructions,
        }));
        server
            .serve_stdio()
            .await
            .map_err(|e| CliError::Internal(format!("the ACP connection failed: {e}")))
    }))?;
    Ok(ExitCode::SUCCESS)
}
