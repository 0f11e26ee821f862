//! `hotl stats`: what a session spent, per turn and in total, and what its folds and forks
//! saved (an estimate), from the usage its records hold. No model call.

use std::io::Write;
use std::process::ExitCode;

use clap::Args;

use crate::ctx::{Ctx, flush};
use crate::error::CliError;

/// Show what a session spent: tokens by kind, fresh-token equivalents, dollars, cache hits
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  hotl stats @last\n  hotl stats 1 --json")]
pub struct StatsArgs {
    /// List number, id prefix, name or @last
    #[arg(value_name = "REF")]
    pub session: String,
    /// One JSON object instead of text (schema: docs/json.md)
    #[arg(long)]
    pub json: bool,
}

pub fn run(ctx: &Ctx, args: &StatsArgs) -> Result<ExitCode, CliError> {
    let meta = ctx.resolve(&args.session)?;
    let pricing = hotl_config::resolve(
        hotl_config::load_file()?,
        &hotl_config::Overrides::default(),
    )?
    .pricing;
    let stats = hotl_agent::session_stats(&ctx.store, &meta.id, &pricing)?;
    let mut out = ctx.out();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &stats)?;
        writeln!(out)?;
    } else {
        out.write_all(stats.table().as_bytes())?;
    }
    flush(out)?;
    Ok(ExitCode::SUCCESS)
}
