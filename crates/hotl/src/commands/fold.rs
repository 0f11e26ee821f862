//! `hotl fold`: fold a finished span of a session from the shell.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use hotl_agent::{Move, MoveResult, Session};

use crate::commands::oneshot::{self, Model};
use crate::ctx::{Ctx, flush};
use crate::error::CliError;

/// Fold a finished span into a note (the span stays archived under a handle)
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  hotl fold @last                       the model writes the note for the current episode\n  hotl fold 1 --since t12 --note-file note.txt"
)]
pub struct FoldArgs {
    /// List number, id prefix, name or @last
    #[arg(value_name = "REF")]
    pub session: String,
    /// Where the span starts: the stamp of a user message or tool result (t<seq>)
    /// [default: the first message or step since the last fold, compaction or clear]
    #[arg(long, value_name = "t<SEQ>")]
    pub since: Option<String>,
    /// The note: lines starting changed:, learned:, decided and rejected:, open:, where:
    /// [default: the model writes it]
    #[arg(long, value_name = "FILE")]
    pub note_file: Option<PathBuf>,
    #[command(flatten)]
    pub model_flags: crate::commands::run::ProviderFlags,
}

pub fn run(ctx: &Ctx, args: &FoldArgs) -> Result<ExitCode, CliError> {
    let since = args
        .since
        .as_deref()
        .map(|text| {
            hotl_agent::stamp_seq(text)
                .ok_or_else(|| CliError::user(format!("{text:?} is not a stamp; expected t<seq>")))
        })
        .transpose()?;
    let note = args
        .note_file
        .as_deref()
        .map(oneshot::note_file)
        .transpose()?;
    let meta = ctx.resolve_to_change(&args.session, "fold")?;
    let session = Session::open(&ctx.store, &meta.id, hotl_agent::standard_tools())?;
    // Told before any provider is set up.
    let Some(since) = since.or_else(|| session.view().episode_start()) else {
        return Err(CliError::user(
            "nothing to fold: nothing since the last fold, compaction or clear; name a start \
             with --since t<seq>",
        ));
    };
    let model = match note {
        Some(_) => Model::None,
        None => Model::From(&args.model_flags),
    };
    let MoveResult::Folded {
        since,
        until,
        handle,
        note,
        ..
    } = oneshot::run_move(
        session,
        Move::Fold {
            since: Some(since),
            note,
        },
        model,
    )?
    else {
        return Err(CliError::Internal("a fold that did not fold".to_owned()));
    };
    let mut out = ctx.out();
    writeln!(
        out,
        "folded t{since}..t{until} of {} into handle {handle}",
        meta.id
    )?;
    writeln!(out, "{note}")?;
    flush(out)?;
    Ok(ExitCode::SUCCESS)
}
