//! `hotl compact`: replace everything a session's model sees with one note, from the shell.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use hotl_agent::Session;

use crate::ctx::{Ctx, flush};
use crate::error::CliError;
use crate::ui::{OutputFormat, PrintUi};

/// Compact a session: everything the model sees becomes one note (the span stays archived)
#[derive(Debug, Args)]
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
        .map(crate::commands::oneshot::note_file)
        .transpose()?;
    let meta = ctx.resolve(&args.session)?;
    let mut session = Session::open(&ctx.store, &meta.id, hotl_agent::default_tools())?;
    let until = match note {
        Some(note) => session.record_compaction(note)?,
        None => {
            let (resolved, settings, runtime) =
                crate::commands::oneshot::prepare(&args.model_flags)?;
            // Notices ("compacting: ...") go to stderr, as a headless run's do.
            let mut ui = PrintUi::new(OutputFormat::Text);
            runtime.block_on(session.compact(&resolved.provider, &settings, &mut ui))?
        }
    };
    let mut out = ctx.out();
    writeln!(
        out,
        "compacted {} through t{until}; archived as {}",
        meta.id,
        hotl_recall::compaction_handle(until)
    )?;
    flush(out)?;
    Ok(ExitCode::SUCCESS)
}
