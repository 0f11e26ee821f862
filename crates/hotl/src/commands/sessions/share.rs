//! `hotl sessions share`: a session redacted, sealed with a fresh key and stored; the link
//! holds the key in its fragment, which no server ever sees.

use std::io::Write;
use std::process::ExitCode;

use clap::Args;

use crate::ctx::{Ctx, flush};
use crate::error::CliError;
use crate::takeout::{self, ShareRequest};

/// Share a session as an encrypted link (redacted first; the key stays in the link)
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  hotl sessions share @last --server https://share.example.com\n  hotl sessions share 1 --gist            a secret gist through gh (the server's viewer opens it)\n  hotl sessions share @last --no-redact   as it is (warns)\n\nThe server is `hotl share-server`; set it once with [share] server in the config."
)]
pub struct ShareArgs {
    /// List number, id prefix, name or @last
    #[arg(value_name = "REF")]
    pub session: String,
    /// The share server to upload to [default: [share] server in the config]
    #[arg(long, value_name = "URL")]
    pub server: Option<String>,
    /// Store the sealed share as a secret gist with `gh` (the server when gh is not ready)
    #[arg(long)]
    pub gist: bool,
    /// Share as it is: no credentials, secrets or home paths hidden
    #[arg(long)]
    pub no_redact: bool,
    /// The store's limit for a sealed share, in bytes (the session is trimmed to fit)
    /// [default: 1000000 for a server, 5000000 for a gist]
    #[arg(long, value_name = "N")]
    pub max_bytes: Option<usize>,
}

pub fn run(ctx: &Ctx, args: &ShareArgs) -> Result<ExitCode, CliError> {
    let meta = ctx.resolve_to_change(&args.session, "sessions share")?;
    let request = ShareRequest {
        id: meta.id,
        server: args.server.clone(),
        gist: args.gist,
        redact: !args.no_redact,
        limit: args.max_bytes,
    };
    let shared = crate::ctx::runtime()?.block_on(takeout::share(&ctx.store, &request))?;
    for notice in &shared.notices {
        eprintln!("hotl: warning: {notice}");
    }
    for line in takeout::report_lines(&shared.trimmed, &shared.redacted) {
        eprintln!("hotl: {line}");
    }
    let mut out = ctx.out();
    writeln!(out, "{}", shared.link)?;
    flush(out)?;
    Ok(ExitCode::SUCCESS)
}
