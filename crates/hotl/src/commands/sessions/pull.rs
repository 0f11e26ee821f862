//! `hotl sessions pull`: bring sessions from the remote store into this home.

use std::process::ExitCode;

use clap::Args;

use crate::ctx::Ctx;
use crate::error::CliError;

/// Pull a session's tree (and the trees it descends from) from the remote store, or every
/// tree with --all: only what this home lacks is fetched, checked before it is written
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  hotl sessions pull 01JD3\n  hotl sessions pull --all --json")]
pub struct PullArgs {
    /// An id, id prefix or name of a session in the remote store, or @last
    #[arg(value_name = "REF")]
    pub session: Option<String>,
    /// One JSON object (schema: docs/json.md)
    #[arg(long)]
    pub json: bool,
}

pub fn run(ctx: &Ctx, args: &PullArgs) -> Result<ExitCode, CliError> {
    if args.session.is_none() && !ctx.all {
        return Err(CliError::usage("pull what? give a session (REF) or --all"));
    }
    let query = args.session.clone();
    crate::remote::report(ctx, args.json, |remote| async move {
        remote.pull_some(query.as_deref()).await
    })
}
