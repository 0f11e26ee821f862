//! `hotl ask`: put one question to an archived thread of a session.

use std::io::Write;
use std::process::ExitCode;

use clap::Args;
use hotl_agent::{Move, MoveResult, Session};

use crate::commands::oneshot::{self, Model};
use crate::ctx::{Ctx, flush};
use crate::error::CliError;

/// Ask an archived thread (a fold, a compaction, a fork) one question; prints its answer
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  hotl ask @last b2e4 why did the build fail?")]
pub struct AskArgs {
    /// List number, id prefix, name or @last
    #[arg(value_name = "REF")]
    pub session: String,
    /// The thread's handle, as `hotl recall` and `hotl sessions show` print it (a unique
    /// prefix will do)
    pub handle: String,
    /// The question (the rest of the line; flags may follow it; quote it, or put `--` before
    /// it, when a word starts with `-`)
    #[arg(required = true, num_args = 1..)]
    pub question: Vec<String>,
    #[command(flatten)]
    pub model_flags: crate::commands::run::ProviderFlags,
}

pub fn run(ctx: &Ctx, args: &AskArgs) -> Result<ExitCode, CliError> {
    let question = args.question.join(" ");
    if question.trim().is_empty() {
        return Err(CliError::user("the question is empty"));
    }
    // The session first: a bad reference is told before the provider is set up (and, for a
    // local server, asked its window).
    let meta = ctx.resolve_to_change(&args.session, "ask")?;
    let session = Session::open(&ctx.store, &meta.id, hotl_agent::standard_tools())?;
    // So is an unknown handle.
    let handle = session.thread(&args.handle)?;
    let MoveResult::Answered { text } = oneshot::run_move(
        session,
        Move::Ask { handle, question },
        Model::From(&args.model_flags),
    )?
    else {
        return Err(CliError::Internal("an ask that did not answer".to_owned()));
    };
    let mut out = ctx.out();
    writeln!(out, "{text}")?;
    flush(out)?;
    Ok(ExitCode::SUCCESS)
}
