//! `hotl sessions push`: publish sessions to the remote store now.

use std::process::ExitCode;

use clap::Args;

use crate::ctx::Ctx;
use crate::error::CliError;

/// Publish a session's tree (and the trees it descends from) to the remote store, or every
/// session with --all: only what the store lacks is sent
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  hotl sessions push @last\n  hotl sessions push --all --json")]
pub struct PushArgs {
    /// List number, id prefix, name or @last
    #[arg(value_name = "REF")]
    pub session: Option<String>,
    /// One JSON object (schema: docs/json.md)
    #[arg(long)]
    pub json: bool,
}

pub fn run(ctx: &Ctx, args: &PushArgs) -> Result<ExitCode, CliError> {
    let roots = match (&args.session, ctx.all) {
        (Some(query), _) => {
            hotl_remote::report::lineage_roots(&ctx.store, &ctx.resolve(query)?.id)?
        }
        (None, true) => ctx.store.session_ids()?,
        (None, false) => {
            return Err(CliError::usage("push what? give a session (REF) or --all"));
        }
    };
    crate::remote::report(ctx, args.json, |remote| async move {
        Ok(remote.push(roots).await)
    })
}
