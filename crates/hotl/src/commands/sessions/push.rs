//! `hotl sessions push`: publish sessions to the remote store now.

use std::io::Write;
use std::process::ExitCode;

use clap::Args;
use serde::Serialize;

use crate::ctx::{Ctx, flush};
use crate::error::CliError;

/// Publish a session's tree (and the trees it descends from) to the remote store, or every
/// session with --all: only what the store lacks is sent
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  hotl sessions push @last\n  hotl sessions push --all --json")]
pub struct PushArgs {
    /// List number, id prefix, name or @last
    #[arg(value_name = "REF")]
    pub session: Option<String>,
    /// One JSON object (schema: docs/json.md)
    #[arg(long)]
    pub json: bool,
}

/// `hotl sessions push --json`.
#[derive(Serialize)]
struct Report {
    remote: String,
    pushed: Vec<hotl_remote::Published>,
    failed: Vec<Failed>,
}

/// A tree that could not be published, and why.
#[derive(Serialize)]
pub struct Failed {
    pub root: String,
    pub error: String,
}

pub fn run(ctx: &Ctx, args: &PushArgs) -> Result<ExitCode, CliError> {
    let remote = crate::remote::required(ctx)?;
    let roots = match (&args.session, ctx.all) {
        (Some(query), _) => lineage_roots(ctx, &ctx.resolve(query)?.id)?,
        (None, true) => ctx.store.session_ids()?,
        (None, false) => {
            return Err(CliError::usage("push what? give a session (REF) or --all"));
        }
    };
    let follower_remote = std::sync::Arc::clone(&remote);
    let (pushed, failed) = crate::remote::block_on(move || async move {
        let follower = hotl_remote::Follower::start(follower_remote);
        let mut pushed = Vec::new();
        let mut failed = Vec::new();
        for root in roots {
            match follower.publish_now(&root).await {
                Ok(published) => pushed.push(published),
                Err(e) => failed.push(Failed {
                    root,
                    error: e.to_string(),
                }),
            }
        }
        follower.finish(std::time::Duration::from_secs(30)).await;
        (pushed, failed)
    })?;
    let mut out = ctx.out();
    if args.json {
        let report = Report {
            remote: remote.config().label().to_owned(),
            pushed,
            failed,
        };
        serde_json::to_writer_pretty(&mut out, &serde_json::to_value(&report)?)?;
        writeln!(out)?;
        let failed = !report.failed.is_empty();
        flush(out)?;
        return Ok(if failed {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        });
    }
    for p in &pushed {
        if p.segments == 0 && p.blobs == 0 {
            writeln!(
                out,
                "{} is up to date in {}",
                short(&p.root),
                remote.config().label()
            )?;
        } else {
            writeln!(
                out,
                "pushed {} to {}: {} segment{} ({} bytes), {} blob{} ({} bytes)",
                short(&p.root),
                remote.config().label(),
                p.segments,
                if p.segments == 1 { "" } else { "s" },
                p.bytes,
                p.blobs,
                if p.blobs == 1 { "" } else { "s" },
                p.blob_bytes
            )?;
        }
    }
    flush(out)?;
    for f in &failed {
        eprintln!("hotl: {} not pushed: {}", short(&f.root), f.error);
    }
    Ok(if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The trees of `id` and of everything it descends from, oldest first: a fork pushed without
/// its parent would have no history elsewhere.
fn lineage_roots(ctx: &Ctx, id: &str) -> Result<Vec<String>, CliError> {
    let mut roots = vec![ctx.store.root_of(id)];
    let mut pin = ctx.store.read_start(id)?.parent;
    while let Some(p) = pin.take() {
        let root = ctx.store.root_of(&p.session);
        if roots.contains(&root) || roots.len() > hotl_log::MAX_ANCESTORS {
            break;
        }
        roots.push(root);
        pin = ctx.store.read_start(&p.session).ok().and_then(|s| s.parent);
    }
    roots.reverse();
    Ok(roots)
}

pub fn short(id: &str) -> &str {
    id.get(..8).unwrap_or(id)
}
