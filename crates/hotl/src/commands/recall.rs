//! `hotl recall`: search what a session's tree archived (folded and compacted spans, earlier
//! asks, forks), no model call.

use std::io::Write;
use std::process::ExitCode;

use clap::Args;

use crate::ctx::{Ctx, flush};
use crate::error::CliError;

/// Search what a session archived (folds, compactions, forks, earlier asks): ranked (BM25), exact or regex; no model call
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  hotl recall @last \"connection refused\"\n  hotl recall 2 --regex 'E[0-9]{4}'\n  hotl recall --remote \"flaky login test\""
)]
pub struct RecallArgs {
    /// List number, id prefix, name or @last (with --remote, no session: what to look for)
    #[arg(value_name = "REF")]
    pub session: String,
    /// What to look for
    pub query: Option<String>,
    /// Search the whole text (transcript and archives) of every session in the remote store;
    /// what this home lacks is fetched into a cache, and kept for the next search
    #[arg(long)]
    pub remote: bool,
    /// ranked | exact | regex
    #[arg(long, default_value = "ranked")]
    pub mode: String,
    /// Short for --mode exact
    #[arg(long, conflicts_with_all = ["mode", "regex"])]
    pub exact: bool,
    /// Short for --mode regex
    #[arg(long, conflicts_with = "mode")]
    pub regex: bool,
    /// The most hits to show (at least 1)
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    pub limit: u64,
    /// One JSON array of hits (schema: docs/json.md)
    #[arg(long)]
    pub json: bool,
}

/// One hit of `hotl recall --json`.
#[derive(serde::Serialize)]
struct Row<'a> {
    handle: &'a str,
    seq: u64,
    kind: &'a str,
    line: &'a str,
    score: f64,
    stale: &'a [String],
}

pub fn run(ctx: &Ctx, args: &RecallArgs) -> Result<ExitCode, CliError> {
    let named = match (args.exact, args.regex) {
        (true, _) => "exact",
        (_, true) => "regex",
        _ => args.mode.as_str(),
    };
    let mode = hotl_agent::recall_mode(Some(named)).map_err(CliError::user)?;
    let limit = usize::try_from(args.limit).unwrap_or(usize::MAX);
    let query = match (&args.query, args.remote) {
        (Some(query), false) => query,
        (None, false) => return Err(CliError::usage("what to look for? hotl recall REF QUERY")),
        (Some(_), true) => return Err(CliError::usage("recall --remote takes no session")),
        (None, true) => {
            let query = args.session.clone();
            return crate::remote::report(ctx, args.json, |remote| async move {
                remote.recall(&query, mode, limit).await
            });
        }
    };
    let meta = ctx.resolve(&args.session)?;
    // A damaged index file is rebuilt and searched again, not reported.
    let (archive, hits) = hotl_recall::search_archive(&ctx.store, &meta.id, query, mode, limit)
        .map_err(|e| CliError::user(e.to_string()))?;
    let mut out = ctx.out();
    if args.json {
        let rows: Vec<Row> = hits
            .iter()
            .map(|h| Row {
                handle: &h.handle,
                seq: h.seq,
                kind: h.kind.name(),
                line: &h.line,
                score: h.score,
                stale: &h.stale,
            })
            .collect();
        serde_json::to_writer_pretty(&mut out, &rows)?;
        writeln!(out)?;
    } else {
        write!(out, "{}", hotl_recall::render_search(&archive, &hits))?;
    }
    flush(out)?;
    Ok(ExitCode::SUCCESS)
}
