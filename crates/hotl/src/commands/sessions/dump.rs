//! `hotl sessions dump`: a session as plain text (its model, system prompt, tool definitions
//! with their parameters, and the messages the model sees: thinking, tool calls and results,
//! fold notes and compaction summaries), and beside it the exact request body hotl would send
//! for the conversation as it stands, for looking at what a model is really given.

use std::io::Write;
use std::process::ExitCode;

use clap::Args;
use hotl_agent::{Dump, Session};

use crate::ctx::{Ctx, flush};
use crate::error::CliError;

/// Print a session as the model sees it, and write the next request's body beside it
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  hotl sessions dump @last\n  hotl sessions dump 1 > transcript.txt"
)]
pub struct DumpArgs {
    /// List number, id prefix, name or @last
    #[arg(value_name = "REF")]
    pub session: String,
}

pub fn run(ctx: &Ctx, args: &DumpArgs) -> Result<ExitCode, CliError> {
    let meta = ctx.resolve(&args.session)?;
    let resolved = hotl_config::resolve(
        hotl_config::load_file()?,
        &hotl_config::Overrides::default(),
    )?;
    let launch = hotl_config::Launch::new(&resolved, hotl_config::Surface::Headless);
    let settings = crate::ctx::runtime()?.block_on(launch.settings());
    let session = Session::open(&ctx.store, &meta.id, hotl_agent::standard_tools())?;
    let dump = session.dump(&resolved.provider, &settings);
    drop(session);
    let mut out = ctx.out();
    if dump.messages.is_empty() {
        writeln!(out, "No messages to dump yet.")?;
        flush(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    out.write_all(dump.text().as_bytes())?;
    flush(out)?;
    tell_sidecar(&dump);
    Ok(ExitCode::SUCCESS)
}

/// Writes the request body beside the text and says where on stderr, with a warning; a body
/// that cannot be written is told, and the text stands.
pub fn tell_sidecar(dump: &Dump) {
    match dump.write_body() {
        Ok(Some(path)) => eprintln!(
            "request body: {}\nhotl: warning: it holds the conversation as sent (file contents, command output): it can hold secrets",
            path.display()
        ),
        Ok(None) => {}
        Err(e) => eprintln!("hotl: warning: the request body could not be written: {e}"),
    }
}
