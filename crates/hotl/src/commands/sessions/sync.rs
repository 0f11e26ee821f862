//! `hotl sessions push` and `pull`: sessions published to the remote store now, or brought
//! from it into this home.

use std::process::ExitCode;

use clap::Args;

use crate::ctx::Ctx;
use crate::error::CliError;

/// A session's tree (and the trees it descends from), or every one with --all: only what the
/// other side lacks moves
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  hotl sessions push @last\n  hotl sessions pull 01JD3\n  hotl sessions push --all --json"
)]
pub struct SyncArgs {
    /// List number, id prefix, name or @last (a pull: of a session in the remote store)
    #[arg(value_name = "REF")]
    pub session: Option<String>,
    /// One JSON object (schema: docs/json.md)
    #[arg(long)]
    pub json: bool,
}

/// `hotl sessions push`.
pub fn push(ctx: &Ctx, args: &SyncArgs) -> Result<ExitCode, CliError> {
    let roots = match (&args.session, ctx.all) {
        (Some(query), _) => {
            hotl_remote::report::lineage_roots(&ctx.store, &ctx.resolve(query)?.id)?
        }
        (None, true) => ctx.store.session_ids()?,
        (None, false) => return Err(CliError::usage("push what? give a session (REF) or --all")),
    };
    crate::remote::report(ctx, args.json, |remote| async move {
        Ok(remote.push(roots).await)
    })
}

/// `hotl sessions pull`.
pub fn pull(ctx: &Ctx, args: &SyncArgs) -> Result<ExitCode, CliError> {
    if args.session.is_none() && !ctx.all {
        return Err(CliError::usage("pull what? give a session (REF) or --all"));
    }
    let query = args.session.clone();
    crate::remote::report(ctx, args.json, |remote| async move {
        remote.pull_some(query.as_deref()).await
    })
}
