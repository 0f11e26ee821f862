//! `hotl sessions import`: adopt a hotl log written elsewhere, or (`--from`) convert another
//! agent's session (Claude Code, Codex, pi) into a new hotl session.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use hotl_import::{Homes, ImportError, ImportOptions, Source};

use crate::ctx::{Ctx, flush};
use crate::error::CliError;

/// Adopt a hotl log written elsewhere, or convert another agent's session; prints the id
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  hotl sessions import examples/hello.jsonl
  hotl sessions import saved.jsonl --new-id
  hotl sessions import --from claude ~/.claude/projects/-home-me-app/8f1c….jsonl
  hotl sessions import --from claude 8f1c          (a session id or its prefix)
  hotl sessions import --from codex 019e1625 --cwd ~/src/app
  hotl sessions import --from pi ~/.pi/agent/sessions/--home-me-app--/2026-…_0194….jsonl

With --from, the last line printed is the new session's id; importing an unchanged file again
prints the session it became.")]
pub struct ImportArgs {
    /// The .jsonl log to adopt; with --from, the other agent's session file or session id
    pub file: PathBuf,
    /// Give the session a fresh id (needed when its id already exists here)
    #[arg(long)]
    pub new_id: bool,
    /// Convert a session of this agent instead of adopting a hotl log
    #[arg(long, value_name = "AGENT")]
    pub from: Option<FromAgent>,
    /// With --from: the directory the session works in (default: the one it recorded)
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
}

/// The agents `--from` takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FromAgent {
    /// Claude Code (~/.claude/projects)
    Claude,
    /// Codex (~/.codex/sessions)
    Codex,
    /// pi (~/.pi/agent/sessions)
    Pi,
}

impl FromAgent {
    fn source(self) -> Source {
        match self {
            FromAgent::Claude => Source::Claude,
            FromAgent::Codex => Source::Codex,
            FromAgent::Pi => Source::Pi,
        }
    }
}

pub fn run(ctx: &Ctx, args: &ImportArgs) -> Result<ExitCode, CliError> {
    if let Some(from) = args.from {
        return run_foreign(ctx, args, from.source());
    }
    if args.cwd.is_some() {
        return Err(CliError::usage("--cwd goes with --from"));
    }
    // A log that records no directory (the shipped example) is adopted into this one.
    let imported = ctx
        .store
        .import_into(&args.file, args.new_id, Some(&ctx.cwd))?;
    if let Some(skipped) = imported.report.summary() {
        eprintln!("hotl: imported with damage: {skipped} (kept in the file as they were)");
    }
    if let Some((taken, fresh)) = &imported.renamed {
        eprintln!("hotl: the name {taken:?} is another session's; this copy is named {fresh:?}");
    }
    let mut out = ctx.out();
    writeln!(out, "{}", imported.id)?;
    flush(out)?;
    Ok(ExitCode::SUCCESS)
}

/// `--from`: find the file, convert it, say what was skipped, print the id last.
fn run_foreign(ctx: &Ctx, args: &ImportArgs, source: Source) -> Result<ExitCode, CliError> {
    if args.new_id {
        return Err(CliError::usage(
            "--new-id is for hotl logs; an import --from always gets a new id",
        ));
    }
    let query = args.file.to_string_lossy();
    let path = hotl_import::resolve(source, &Homes::from_env(), &query).map_err(cli_error)?;
    let cwd = match &args.cwd {
        Some(dir) => Some(
            std::fs::canonicalize(dir)
                .map_err(|e| CliError::usage(format!("--cwd {}: {e}", dir.display())))?,
        ),
        None => None,
    };
    let opts = ImportOptions {
        cwd,
        fallback_cwd: Some(PathBuf::from(&ctx.cwd)),
    };
    let outcome =
        hotl_import::import_foreign(&ctx.store, source, &path, &opts).map_err(cli_error)?;
    if outcome.existing {
        eprintln!(
            "hotl: {} is unchanged since it was imported",
            path.display()
        );
    }
    for message in outcome.report.messages() {
        eprintln!("hotl: {message}");
    }
    if let Some(previous) = &outcome.previous {
        eprintln!(
            "hotl: the file changed since it was imported as {previous}; this is a new session"
        );
    }
    match outcome.children.len() {
        0 => {}
        1 => eprintln!("hotl: 1 sub-agent session in its tree"),
        n => eprintln!("hotl: {n} sub-agent sessions in its tree"),
    }
    if outcome.cwd_missing {
        eprintln!(
            "hotl: warning: its working directory {} does not exist here (--cwd DIR picks another)",
            outcome.cwd
        );
    }
    let mut out = ctx.out();
    writeln!(out, "{}", outcome.id)?;
    flush(out)?;
    Ok(ExitCode::SUCCESS)
}

fn cli_error(e: ImportError) -> CliError {
    match e {
        ImportError::Store(e) => e.into(),
        other => CliError::user(other.to_string()),
    }
}
