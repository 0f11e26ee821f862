//! `hotl sessions pull`: bring sessions from the remote store into this home.

use std::io::Write;
use std::process::ExitCode;

use clap::Args;
use serde::Serialize;

use super::push::{Failed, short};
use crate::ctx::{Ctx, flush};
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

/// `hotl sessions pull --json`.
#[derive(Serialize)]
struct Report {
    remote: String,
    pulled: hotl_remote::Pulled,
    failed: Vec<Failed>,
}

pub fn run(ctx: &Ctx, args: &PullArgs) -> Result<ExitCode, CliError> {
    let remote = crate::remote::required(ctx)?;
    if args.session.is_none() && !ctx.all {
        return Err(CliError::usage("pull what? give a session (REF) or --all"));
    }
    let query = args.session.clone();
    let work = std::sync::Arc::clone(&remote);
    let (pulled, failed) = crate::remote::block_on(move || async move {
        let roots = match &query {
            Some(query) => vec![work.find(query).await?.0],
            None => work
                .list_trees()
                .await?
                .0
                .into_iter()
                .map(|t| t.root)
                .collect(),
        };
        let mut all = hotl_remote::Pulled::default();
        let mut failed = Vec::new();
        for root in roots {
            match work.pull(&root).await {
                Ok(p) => {
                    all.roots.extend(p.roots);
                    all.sessions.extend(p.sessions);
                    all.segments += p.segments;
                    all.bytes += p.bytes;
                    all.blobs += p.blobs;
                    all.blob_bytes += p.blob_bytes;
                    all.problems.extend(p.problems);
                }
                Err(e) => failed.push(Failed {
                    root,
                    error: e.to_string(),
                }),
            }
        }
        Ok::<_, hotl_remote::RemoteError>((all, failed))
    })??;
    let ok = failed.is_empty() && pulled.problems.is_empty();
    let mut out = ctx.out();
    if args.json {
        let report = Report {
            remote: remote.config().label().to_owned(),
            pulled,
            failed,
        };
        serde_json::to_writer_pretty(&mut out, &serde_json::to_value(&report)?)?;
        writeln!(out)?;
    } else {
        let sessions: Vec<&str> = pulled.sessions.iter().map(|s| short(s)).collect();
        if sessions.is_empty() {
            writeln!(out, "nothing new in {}", remote.config().label())?;
        } else {
            writeln!(
                out,
                "pulled {} from {}: {} segments ({} bytes), {} blobs ({} bytes)",
                sessions.join(", "),
                remote.config().label(),
                pulled.segments,
                pulled.bytes,
                pulled.blobs,
                pulled.blob_bytes
            )?;
        }
        for problem in &pulled.problems {
            eprintln!("hotl: warning: {problem}");
        }
        for f in &failed {
            eprintln!("hotl: {} not pulled: {}", short(&f.root), f.error);
        }
    }
    flush(out)?;
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
