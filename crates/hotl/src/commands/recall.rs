//! `hotl recall`: search a session's archive (folded and compacted spans), no model call.

use std::io::Write;
use std::process::ExitCode;

use clap::Args;

use crate::ctx::{Ctx, flush};
use crate::error::CliError;

/// Search what a session folded away: ranked (BM25), exact or regex; no model call
#[derive(Debug, Args)]
pub struct RecallArgs {
    /// List number, id prefix, name or @last
    #[arg(value_name = "REF")]
    pub session: String,
    /// What to look for
    pub query: String,
    /// ranked | exact | regex
    #[arg(long, default_value = "ranked")]
    pub mode: String,
    /// The most hits to show
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
}

pub fn run(ctx: &Ctx, args: &RecallArgs) -> Result<ExitCode, CliError> {
    let mode = hotl_agent::recall_mode(Some(&args.mode)).map_err(CliError::user)?;
    let meta = ctx.resolve(&args.session)?;
    let archive = hotl_recall::open_archive(&ctx.store, &meta.id)
        .map_err(|e| CliError::user(e.to_string()))?;
    let hits = archive
        .search(&args.query, mode, args.limit)
        .map_err(|e| CliError::user(e.to_string()))?;
    let mut out = ctx.out();
    write!(out, "{}", hotl_recall::render_hits(&hits))?;
    if !hotl_recall::render_hits(&hits).ends_with('\n') {
        writeln!(out)?;
    }
    flush(out)?;
    Ok(ExitCode::SUCCESS)
}
