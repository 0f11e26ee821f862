//! `hotl sessions rename`: one `name` record.

use std::io::Write;
use std::process::ExitCode;

use crate::ctx::{Ctx, flush};
use crate::error::CliError;
use clap::Args;

/// Name a session (names are unique among live sessions)
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  hotl sessions rename @last parser-fix")]
pub struct RenameArgs {
    /// List number, id prefix, name or @last
    #[arg(value_name = "REF")]
    pub session: String,
    /// The new name
    pub name: String,
}

pub fn run(ctx: &Ctx, args: &RenameArgs) -> Result<ExitCode, CliError> {
    let meta = ctx.resolve_to_change(&args.session, "sessions rename")?;
    hotl_agent::rename(&ctx.store, &meta.id, &args.name)?;
    let mut out = ctx.out();
    writeln!(out, "renamed {} to {}", meta.id, args.name)?;
    flush(out)?;
    Ok(ExitCode::SUCCESS)
}
