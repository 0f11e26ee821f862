//! `hotl sessions revert`: one `revert` record; later turns leave the visible branch.

use std::io::Write;
use std::process::ExitCode;

use clap::Args;
use hotl_log::Body;
use hotl_view::View;

use crate::ctx::{Ctx, flush};
use crate::error::CliError;

/// Return a session to a turn boundary; later turns stay on disk, off the visible branch
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  hotl sessions revert @last --to t40\n  hotl sessions revert 1 --to t12"
)]
pub struct RevertArgs {
    /// List number, id prefix, name or @last
    #[arg(value_name = "REF")]
    pub session: String,
    /// Keep everything through this stamp (t<seq>, the end of a turn as `sessions show` marks it)
    #[arg(long, value_name = "t<SEQ>")]
    pub to: String,
}

pub fn run(ctx: &Ctx, args: &RevertArgs) -> Result<ExitCode, CliError> {
    let seq = parse_stamp(&args.to)?;
    let meta = ctx.resolve(&args.session)?;
    let mut writer = ctx.store.writer(&meta.id)?;
    // Projected under the lock, so the view cannot move between the check and the append.
    let view = View::of(&ctx.store.lineage(&meta.id)?);
    let cut = view.cut_at_seq(seq)?;
    if cut.at_head {
        return Err(CliError::user(format!(
            "t{seq} is already the end of the session; nothing to revert"
        )));
    }
    writer.append(Body::Revert { to: seq })?;
    let mut out = ctx.out();
    writeln!(
        out,
        "reverted {} to t{seq} ({} turn{} kept; later records stay in the log)",
        meta.id,
        cut.boundary.turns,
        if cut.boundary.turns == 1 { "" } else { "s" }
    )?;
    flush(out)?;
    Ok(ExitCode::SUCCESS)
}

fn parse_stamp(text: &str) -> Result<u64, CliError> {
    hotl_agent::stamp_seq(text).ok_or_else(|| {
        CliError::user(format!(
            "{text:?} is not a stamp; expected t<seq>, e.g. t42"
        ))
    })
}
