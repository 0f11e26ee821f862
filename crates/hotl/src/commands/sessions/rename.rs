//! `hotl sessions rename`: one `name` record.

use std::io::Write;
use std::process::ExitCode;

use clap::Args;
use hotl_log::Body;

use crate::commands::sessions::fork::ensure_name_free;
use crate::ctx::{Ctx, flush};
use crate::error::CliError;

/// Name a session (names are unique among live sessions)
#[derive(Debug, Args)]
pub struct RenameArgs {
    /// List number, id prefix, name or @last
    #[arg(value_name = "REF")]
    pub session: String,
    /// The new name
    pub name: String,
}

pub fn run(ctx: &Ctx, args: &RenameArgs) -> Result<ExitCode, CliError> {
    let meta = ctx.resolve(&args.session)?;
    ensure_name_free(&ctx.store, &args.name, Some(&meta.id))?;
    ctx.store.writer(&meta.id)?.append(Body::Name {
        name: Some(args.name.clone()),
    })?;
    let mut out = ctx.out();
    writeln!(out, "renamed {} to {}", meta.id, args.name)?;
    flush(out)?;
    Ok(ExitCode::SUCCESS)
}
