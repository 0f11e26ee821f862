//! `hotl sessions import`: adopt a hotl log written elsewhere.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use crate::ctx::{Ctx, flush};
use crate::error::CliError;

/// Adopt a hotl log written elsewhere; prints the session id
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  hotl sessions import examples/hello.jsonl\n  hotl sessions import saved.jsonl --new-id"
)]
pub struct ImportArgs {
    /// The .jsonl log to adopt
    pub file: PathBuf,
    /// Give the session a fresh id (needed when its id already exists here)
    #[arg(long)]
    pub new_id: bool,
}

pub fn run(ctx: &Ctx, args: &ImportArgs) -> Result<ExitCode, CliError> {
    // A log that records no directory (the shipped example) is adopted into this one.
    let imported = ctx
        .store
        .import_into(&args.file, args.new_id, Some(&ctx.cwd))?;
    if let Some(skipped) = imported.report.summary() {
        eprintln!("hotl: imported with damage: {skipped} (kept in the file as they were)");
    }
    let mut out = ctx.out();
    writeln!(out, "{}", imported.id)?;
    flush(out)?;
    Ok(ExitCode::SUCCESS)
}
