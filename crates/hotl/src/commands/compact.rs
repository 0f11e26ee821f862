//! `hotl compact`: replace everything a session's model sees with one note, from the shell.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use hotl_agent::{Move, MoveResult, Session};

use crate::commands::oneshot::{self, Model};
use crate::ctx::{Ctx, flush};
use crate::error::CliError;

/// Compact a session: everything the model sees becomes one note (the span stays archived)
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  hotl compact @last\n  hotl compact 1 --note-file note.txt")]
pub struct CompactArgs {
    /// List number, id prefix, name or @last
    #[arg(value_name = "REF")]
    pub session: String,
    /// The note: lines starting changed:, learned:, decided and rejected:, open:, where:
    /// [default: the model writes it]
    #[arg(long, value_name = "FILE")]
    pub note_file: Option<PathBuf>,
    #[command(flatten)]
    pub model_flags: crate::commands::run::ProviderFlags,
}

pub fn run(ctx: &Ctx, args: &CompactArgs) -> Result<ExitCode, CliError> {
    let note = args
        .note_file
        .as_deref()
        .map(oneshot::note_file)
        .transpose()?;
    let meta = ctx.resolve_to_change(&args.session, "compact")?;
    let session = Session::open(&ctx.store, &meta.id, hotl_agent::standard_tools())?;
    let model = match note {
        Some(_) => Model::None,
        None => Model::From(&args.model_flags),
    };
    // Notices ("compacting: ...") go to stderr, as a headless run's do.
    let MoveResult::Compacted { until, handle } =
        oneshot::run_move(session, Move::Compact { note }, model)?
    else {
        return Err(CliError::Internal(
            "a compaction that did not compact".to_owned(),
        ));
    };
    let mut out = ctx.out();
    writeln!(
        out,
        "compacted {} through t{until}; archived as {handle}",
        meta.id
    )?;
    flush(out)?;
    Ok(ExitCode::SUCCESS)
}
