//! `hotl sessions drop`: delete a session, or tombstone it while forks descend from it.

use std::io::Write;
use std::process::ExitCode;

use hotl_log::Dropped;

use crate::cli::RefArg;
use crate::ctx::{Ctx, flush};
use crate::error::CliError;

pub fn run(ctx: &Ctx, args: &RefArg) -> Result<ExitCode, CliError> {
    let meta = ctx.resolve(&args.session)?;
    let mut out = ctx.out();
    match ctx.store.drop_session(&meta.id)? {
        Dropped::Deleted => writeln!(out, "dropped {}", meta.id)?,
        Dropped::Tombstoned { descendants } => writeln!(
            out,
            "{} has {} descendant{} ({}): it is hidden from lists and kept for them; \
             `hotl gc` removes it once none is left",
            meta.id,
            descendants.len(),
            if descendants.len() == 1 { "" } else { "s" },
            descendants.join(", ")
        )?,
    }
    flush(out)?;
    Ok(ExitCode::SUCCESS)
}
