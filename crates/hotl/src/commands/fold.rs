//! `hotl fold`: fold a finished span of a session from the shell.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use hotl_agent::Session;

use crate::ctx::{Ctx, flush};
use crate::error::CliError;

/// Fold a finished span into a note (the span stays archived under a handle)
#[derive(Debug, Args)]
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
        .map(crate::commands::oneshot::note_file)
        .transpose()?;
    let meta = ctx.resolve(&args.session)?;
    let mut session = Session::open(&ctx.store, &meta.id, hotl_agent::default_tools())?;
    let since = match since.or_else(|| crate::slash::episode_start(session.view())) {
        Some(since) => since,
        None => {
            return Err(CliError::user(
                "nothing to fold: nothing since the last fold, compaction or clear; name a start \
                 with --since t<seq>",
            ));
        }
    };
    let note = match note {
        Some(note) => note,
        None => {
            let (resolved, settings, runtime) =
                crate::commands::oneshot::prepare(&args.model_flags)?;
            runtime.block_on(session.write_note(since, &resolved.provider, &settings))?
        }
    };
    let fold = session.fold(since, None, &note)?;
    let mut out = ctx.out();
    writeln!(
        out,
        "folded t{}..t{} of {} into handle {}",
        fold.since, fold.until, meta.id, fold.handle
    )?;
    writeln!(out, "{}", fold.note)?;
    flush(out)?;
    Ok(ExitCode::SUCCESS)
}
