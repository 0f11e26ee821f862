//! `hotl agents`: the agent definitions delegated children are made from (the built-ins, the
//! user's `~/.config/hotl/agents/`, the project's `.hotl/agents/`): list them, show one, check
//! that every file loads. A file that does not load is told on stderr, by path, and left out.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand};
use hotl_agent::agents::{self, AgentDef, Context, Loaded, Source};
use serde_json::{Value, json};

use crate::ctx::{Ctx, flush};
use crate::error::CliError;
use hotl_config as config;

/// List and inspect agent definitions (.hotl/agents/*.md, ~/.config/hotl/agents/*.md)
#[derive(Debug, Subcommand)]
pub enum AgentsCommand {
    /// List every definition in effect: name, where it comes from, context, model, tools
    #[command(after_help = "Examples:\n  hotl agents list\n  hotl agents list --json")]
    List(ListArgs),
    /// Show one definition as parsed, then its system prompt
    #[command(
        after_help = "Examples:\n  hotl agents show reviewer\n  hotl agents show explore --json"
    )]
    Show(ShowArgs),
    /// Load every definition; exit 1 naming the files left out
    #[command(after_help = "Examples:\n  hotl agents check")]
    Check,
}

/// `hotl agents list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// One JSON object: {"agents": [...], "problems": [{"path", "name", "why"}]}
    #[arg(long)]
    pub json: bool,
}

/// `hotl agents show`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The definition's name (its file's name without .md)
    pub name: String,
    /// One JSON object, the same as an entry of `hotl agents list --json`
    #[arg(long)]
    pub json: bool,
}

pub fn run(ctx: &Ctx, command: &AgentsCommand) -> Result<ExitCode, CliError> {
    let loaded = load(ctx);
    match command {
        AgentsCommand::List(args) => list(ctx, &loaded, args.json),
        AgentsCommand::Show(args) => show(ctx, &loaded, args),
        AgentsCommand::Check => check(ctx, &loaded),
    }
}

/// The user's definitions: `agents/` beside the config file.
fn user_dir() -> Option<PathBuf> {
    Some(config::config_path()?.parent()?.join("agents"))
}

/// Loads the definitions of this directory's project and of the user, and tells on stderr
/// each file left out.
fn load(ctx: &Ctx) -> Loaded {
    let project = agents::project_agents_dir(Path::new(&ctx.cwd));
    let loaded = agents::load(Some(&project), user_dir().as_deref());
    for problem in &loaded.problems {
        eprintln!(
            "hotl: {}: {} (left out)",
            shown(ctx, &problem.path),
            problem.why
        );
    }
    loaded
}

/// A path as the user would type it: relative to this directory when inside it, else with
/// `~` for the home.
fn shown(ctx: &Ctx, path: &Path) -> String {
    match path.strip_prefix(&ctx.cwd) {
        Ok(rest) => rest.display().to_string(),
        Err(_) => ctx.tilde(&path.to_string_lossy()),
    }
}

fn source_text(ctx: &Ctx, source: &Source) -> String {
    match source.path() {
        Some(path) => shown(ctx, path),
        None => source.kind().to_owned(),
    }
}

fn context_text(def: &AgentDef) -> &'static str {
    def.context.map_or("as asked", Context::name)
}

fn tools_text(def: &AgentDef) -> String {
    let mut text = match (&def.tools, def.context) {
        (Some(tools), _) => tools.join(", "),
        (None, Some(Context::Reviewer)) => "the parent's read-only tools".to_owned(),
        (None, _) => "the parent's (no MCP)".to_owned(),
    };
    if !def.disallowed_tools.is_empty() {
        text.push_str(&format!(", not {}", def.disallowed_tools.join(", ")));
    }
    text
}

fn to_json(ctx: &Ctx, def: &AgentDef) -> Value {
    json!({
        "name": def.name,
        "description": def.description,
        "source": def.source.kind(),
        "path": def.source.path().map(|p| shown(ctx, p)),
        "context": def.context.map(Context::name),
        "model": def.model,
        "tools": def.tools,
        "disallowed_tools": def.disallowed_tools,
        "permission_mode": def.permission_mode.map(|m| m.name()),
        "max_steps": def.max_steps,
        "background": def.background,
        "isolation": def.isolation.map(|_| "worktree"),
        "prompt": def.prompt,
    })
}

fn list(ctx: &Ctx, loaded: &Loaded, json: bool) -> Result<ExitCode, CliError> {
    let mut out = ctx.out();
    if json {
        let agents: Vec<Value> = loaded.defs.iter().map(|d| to_json(ctx, d)).collect();
        let problems: Vec<Value> = loaded
            .problems
            .iter()
            .map(|p| json!({ "path": shown(ctx, &p.path), "name": p.name, "why": p.why }))
            .collect();
        let doc = json!({ "agents": agents, "problems": problems });
        writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
        flush(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    let rows: Vec<[String; 5]> = loaded
        .defs
        .iter()
        .map(|d| {
            [
                d.name.clone(),
                source_text(ctx, &d.source),
                context_text(d).to_owned(),
                d.model.clone().unwrap_or_else(|| "inherit".to_owned()),
                tools_text(d),
            ]
        })
        .collect();
    let header = ["NAME", "FROM", "CONTEXT", "MODEL", "TOOLS"].map(str::to_owned);
    let mut widths = [0; 4];
    for row in std::iter::once(&header).chain(&rows) {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    for row in std::iter::once(&header).chain(&rows) {
        let mut line = String::new();
        for (width, cell) in widths.iter().zip(row) {
            line.push_str(&format!("{cell:<width$}  "));
        }
        line.push_str(&row[4]);
        writeln!(out, "{}", line.trim_end())?;
    }
    flush(out)?;
    Ok(ExitCode::SUCCESS)
}

fn show(ctx: &Ctx, loaded: &Loaded, args: &ShowArgs) -> Result<ExitCode, CliError> {
    let Some(def) = loaded.get(&args.name) else {
        let mut err = CliError::user(format!("no agent definition named {}", args.name));
        if loaded.problems.iter().any(|p| p.name == args.name) {
            err = err.hint(format!("{}.md was left out: see above", args.name));
        }
        let names: Vec<&str> = loaded.defs.iter().map(|d| d.name.as_str()).collect();
        return Err(err.hint(format!("the definitions: {}", names.join(", "))));
    };
    let mut out = ctx.out();
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&to_json(ctx, def))?)?;
        flush(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(out, "name: {}", def.name)?;
    writeln!(out, "from: {}", source_text(ctx, &def.source))?;
    writeln!(out, "description: {}", def.description)?;
    writeln!(out, "context: {}", context_text(def))?;
    writeln!(out, "model: {}", def.model.as_deref().unwrap_or("inherit"))?;
    writeln!(out, "tools: {}", tools_text(def))?;
    if let Some(mode) = def.permission_mode {
        writeln!(out, "permission_mode: {}", mode.name())?;
    }
    if let Some(steps) = def.max_steps {
        writeln!(out, "max_steps: {steps}")?;
    }
    if def.background {
        writeln!(out, "background: true")?;
    }
    if def.isolation.is_some() {
        writeln!(out, "isolation: worktree")?;
    }
    writeln!(out)?;
    if def.prompt.is_empty() {
        writeln!(out, "(no system prompt of its own: the parent's)")?;
    } else {
        writeln!(out, "{}", def.prompt)?;
    }
    flush(out)?;
    Ok(ExitCode::SUCCESS)
}

fn check(ctx: &Ctx, loaded: &Loaded) -> Result<ExitCode, CliError> {
    if loaded.problems.is_empty() {
        let mut out = ctx.out();
        writeln!(out, "{} definitions load", loaded.defs.len())?;
        flush(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    let files: Vec<String> = loaded
        .problems
        .iter()
        .map(|p| shown(ctx, &p.path))
        .collect();
    Err(CliError::user(format!(
        "{} left out: {}",
        if files.len() == 1 {
            "a definition was"
        } else {
            "definitions were"
        },
        files.join(", ")
    )))
}
