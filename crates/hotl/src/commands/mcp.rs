//! `hotl mcp`: the MCP servers of the config: list them with their state and tools, check
//! that they start, add and remove them (the config file is edited in place, its comments
//! kept).

use std::io::Write;
use std::process::ExitCode;

use clap::{Args, Subcommand};

use crate::ctx::{Ctx, flush};
use crate::error::CliError;
use hotl_config as config;

/// Manage the MCP servers whose tools sessions get
#[derive(Debug, Subcommand)]
pub enum McpCommand {
    /// Start every configured server and list its state and tools
    #[command(after_help = "Examples:\n  hotl mcp list")]
    List,
    /// Start the servers (or one), list their tools, stop them; exit 1 naming what failed
    #[command(after_help = "Examples:\n  hotl mcp check\n  hotl mcp check github")]
    Check {
        /// Only this server
        name: Option<String>,
    },
    /// Add a server to the config: a command run over stdio, or a streamable-HTTP URL
    #[command(
        after_help = "Examples:\n  hotl mcp add files -- npx -y @modelcontextprotocol/server-filesystem .\n  hotl mcp add remote --url https://example.com/mcp --bearer-token-env-var REMOTE_TOKEN"
    )]
    Add(AddArgs),
    /// Remove a server from the config
    #[command(after_help = "Examples:\n  hotl mcp remove files")]
    Remove {
        /// The server's name
        name: String,
    },
}

/// `hotl mcp add`.
#[derive(Debug, Args)]
pub struct AddArgs {
    /// The server's name (its tools are named mcp__NAME__TOOL)
    pub name: String,
    /// A streamable-HTTP endpoint instead of a command
    #[arg(long, conflicts_with = "command")]
    pub url: Option<String>,
    /// The environment variable holding a bearer token for --url
    #[arg(long, requires = "url")]
    pub bearer_token_env_var: Option<String>,
    /// The command and its arguments (after --)
    #[arg(last = true)]
    pub command: Vec<String>,
}

pub fn run(ctx: &Ctx, command: &McpCommand) -> Result<ExitCode, CliError> {
    match command {
        McpCommand::List => status(ctx, None, false),
        McpCommand::Check { name } => status(ctx, name.as_deref(), true),
        McpCommand::Add(args) => add(ctx, args),
        McpCommand::Remove { name } => remove(ctx, name),
    }
}

/// Starts the configured servers (or `only`) and prints each one's state and tools; with
/// `check`, exits 1 when one failed.
fn status(ctx: &Ctx, only: Option<&str>, check: bool) -> Result<ExitCode, CliError> {
    let file = config::load_file()?;
    let mut servers = file.mcp_servers;
    if let Some(name) = only {
        servers.retain(|n, _| n == name);
        if servers.is_empty() {
            return Err(CliError::user(format!(
                "no MCP server named {name} in the config"
            )));
        }
    }
    let mut out = ctx.out();
    if servers.is_empty() {
        writeln!(
            out,
            "no MCP servers are configured (hotl mcp add NAME -- COMMAND, or [mcp_servers.NAME] in {})",
            config::config_path()
                .map_or_else(|| "the config file".to_owned(), |p| p.display().to_string())
        )?;
        flush(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    let runtime = crate::ctx::runtime()?;
    let hidden = hotl_agent::hidden_env();
    let cwd = std::path::PathBuf::from(&ctx.cwd);
    // Each on its own, so each is told.
    let mut failed = Vec::new();
    for (name, server) in &servers {
        let what = match (&server.command, &server.url) {
            (Some(command), _) => format!("{command} {}", server.args.join(" "))
                .trim_end()
                .to_owned(),
            (None, Some(url)) => url.clone(),
            _ => String::new(),
        };
        if !server.is_enabled() {
            writeln!(out, "{name}  disabled  {what}")?;
            continue;
        }
        let mut alone = server.clone();
        alone.required = false;
        let one = [(name.clone(), alone)].into();
        let started = runtime
            .block_on(hotl_mcp::start_all(&one, &cwd, hidden.clone()))
            .map_err(CliError::user)?;
        if let Some((_, why)) = started.failed.first() {
            // What a server says, and the names it chose, reach the terminal as text only.
            writeln!(out, "{name}  failed  {what}: {}", hotl_text::printable(why))?;
            failed.push(name.clone());
            continue;
        }
        let tools = started
            .listed
            .first()
            .map(|(_, t)| t.clone())
            .unwrap_or_default();
        writeln!(out, "{name}  running  {what}  ({} tools)", tools.len())?;
        for (hotl_name, raw) in tools {
            writeln!(
                out,
                "  {}  ({})",
                hotl_text::one_line(&hotl_name),
                hotl_text::one_line(&raw)
            )?;
        }
    }
    flush(out)?;
    // The servers started here stop with the runtime.
    drop(runtime);
    if check && !failed.is_empty() {
        return Err(CliError::user(format!(
            "{} did not start: {}",
            if failed.len() == 1 {
                "an MCP server"
            } else {
                "MCP servers"
            },
            failed.join(", ")
        )));
    }
    Ok(ExitCode::SUCCESS)
}

/// The config file as an editable document (empty when there is none yet).
fn document() -> Result<(std::path::PathBuf, toml_edit::DocumentMut), CliError> {
    let path = config::config_path()
        .ok_or_else(|| CliError::user("no config path: neither XDG_CONFIG_HOME nor HOME is set"))?;
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(CliError::user(format!("{}: {e}", path.display()))),
    };
    let doc = text
        .parse::<toml_edit::DocumentMut>()
        .map_err(|e| CliError::user(format!("{}: {e}", path.display())))?;
    Ok((path, doc))
}

fn save(path: &std::path::Path, doc: &toml_edit::DocumentMut) -> Result<(), CliError> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    // Written beside it, then moved over it: a crash never leaves half a config.
    let tmp = path.with_extension("toml.tmp");
    std::fs::write(&tmp, doc.to_string())?;
    std::fs::rename(&tmp, path)?;
    Ok(())
}

fn add(ctx: &Ctx, args: &AddArgs) -> Result<ExitCode, CliError> {
    if args.url.is_none() && args.command.is_empty() {
        return Err(CliError::usage(
            "give the server's command after --, or --url URL",
        ));
    }
    let (path, mut doc) = document()?;
    let servers = doc
        .entry("mcp_servers")
        .or_insert_with(|| {
            let mut table = toml_edit::Table::new();
            table.set_implicit(true);
            toml_edit::Item::Table(table)
        })
        .as_table_mut()
        .ok_or_else(|| CliError::user(format!("{}: mcp_servers is not a table", path.display())))?;
    if servers.contains_key(&args.name) {
        return Err(CliError::user(format!(
            "an MCP server named {} is already configured (hotl mcp remove {} first)",
            args.name, args.name
        )));
    }
    let mut server = toml_edit::Table::new();
    if let Some(url) = &args.url {
        server["url"] = toml_edit::value(url.as_str());
        if let Some(var) = &args.bearer_token_env_var {
            server["bearer_token_env_var"] = toml_edit::value(var.as_str());
        }
    } else {
        server["command"] = toml_edit::value(args.command[0].as_str());
        let mut rest = toml_edit::Array::new();
        for arg in &args.command[1..] {
            rest.push(arg.as_str());
        }
        server["args"] = toml_edit::value(rest);
    }
    servers.insert(&args.name, toml_edit::Item::Table(server));
    save(&path, &doc)?;
    let mut out = ctx.out();
    writeln!(
        out,
        "added the MCP server {} to {}",
        args.name,
        path.display()
    )?;
    flush(out)?;
    Ok(ExitCode::SUCCESS)
}

fn remove(ctx: &Ctx, name: &str) -> Result<ExitCode, CliError> {
    let (path, mut doc) = document()?;
    let removed = doc
        .get_mut("mcp_servers")
        .and_then(|s| s.as_table_mut())
        .and_then(|s| s.remove(name));
    if removed.is_none() {
        return Err(CliError::user(format!(
            "no MCP server named {name} in {}",
            path.display()
        )));
    }
    save(&path, &doc)?;
    let mut out = ctx.out();
    writeln!(out, "removed the MCP server {name} from {}", path.display())?;
    flush(out)?;
    Ok(ExitCode::SUCCESS)
}
