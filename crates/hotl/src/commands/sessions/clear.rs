//! `hotl sessions clear`: one `clear` record; the model's context restarts after it.

use std::io::Write;
use std::process::ExitCode;

use hotl_log::Body;

use crate::cli::RefArg;
use crate::ctx::{Ctx, flush};
use crate::error::CliError;

pub fn run(ctx: &Ctx, args: &RefArg) -> Result<ExitCode, CliError> {
    let meta = ctx.resolve_to_change(&args.session, "sessions clear")?;
    let record = ctx.store.writer(&meta.id)?.append(Body::Clear)?;
    let mut out = ctx.out();
    writeln!(
        out,
        "cleared {} at t{}: the model starts fresh; the transcript keeps everything",
        meta.id, record.seq
    )?;
    flush(out)?;
    Ok(ExitCode::SUCCESS)
}
