//! `hotl gc`: remove old and dropped sessions, unreferenced blobs and stale derived files, and
//! the worktrees of isolated children that are gone.

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use hotl_log::GcOptions;

use crate::ctx::{Ctx, flush};
use crate::error::CliError;

/// Remove old and dropped sessions, unreferenced blobs and stale caches; never history that a
/// kept session descends from
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  hotl gc --dry-run\n  hotl gc\n  hotl gc --remote --dry-run")]
pub struct GcArgs {
    /// Remove sessions with no activity for this long (e.g. 30d, 12h, 2w)
    #[arg(long, value_name = "AGE", default_value = "30d", value_parser = parse_age)]
    pub older_than: Duration,
    /// List what would be removed, remove nothing
    #[arg(long)]
    pub dry_run: bool,
    /// JSON report
    #[arg(long)]
    pub json: bool,
    /// Collect the remote store's garbage instead: trees idle that long or dropped (never
    /// one a kept tree descends from, nor one another process holds), then blobs no kept
    /// tree references, once an hour old
    #[arg(long)]
    pub remote: bool,
}

fn parse_age(text: &str) -> Result<Duration, String> {
    humantime::parse_duration(text).map_err(|e| format!("{e} (try 30d, 12h or 2w)"))
}

pub fn run(ctx: &Ctx, args: &GcArgs) -> Result<ExitCode, CliError> {
    if args.remote {
        let opts = hotl_remote::GcOptions {
            older_than: args.older_than,
            dry_run: args.dry_run,
            ..hotl_remote::GcOptions::default()
        };
        return crate::remote::report(ctx, args.json, |r| async move { r.gc(opts).await });
    }
    let report = ctx.store.gc(GcOptions {
        older_than: args.older_than,
        dry_run: args.dry_run,
        ..GcOptions::default()
    })?;
    // After the sessions: a worktree is removed once no session left works in it.
    let worktrees = hotl_agent::sweep_worktrees(&ctx.store, args.dry_run);
    // The index of every session drops what it held of sessions that are gone or dropped.
    let search_freed = if args.dry_run {
        0
    } else {
        hotl_recall::SessionIndex::compact(&ctx.store).map_err(|e| CliError::user(e.to_string()))?
    };
    let mut out = ctx.out();
    if args.json {
        let mut json = serde_json::to_value(&report)?;
        json["worktrees"] = serde_json::json!(worktrees);
        json["search_index_freed_bytes"] = serde_json::json!(search_freed);
        serde_json::to_writer_pretty(&mut out, &json)?;
        writeln!(out)?;
        flush(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    let verb = if args.dry_run {
        "would remove"
    } else {
        "removed"
    };
    for s in &report.sessions {
        writeln!(
            out,
            "{verb} session {} ({}, {} bytes)",
            s.id, s.reason, s.bytes
        )?;
    }
    for (hash, bytes) in &report.blobs {
        writeln!(out, "{verb} blob {hash} ({bytes} bytes)")?;
    }
    for path in &report.derived {
        writeln!(out, "{verb} {}", path.display())?;
    }
    for path in &worktrees {
        writeln!(out, "{verb} worktree {}", path.display())?;
    }
    for id in &report.kept_for_descendants {
        writeln!(out, "kept {id}: a kept session descends from it")?;
    }
    for id in &report.spared_owned {
        writeln!(out, "kept {id}: owned by a running hotl process")?;
    }
    if search_freed > 0 {
        writeln!(
            out,
            "the search index let go of gone and dropped sessions: {search_freed} bytes"
        )?;
    }
    let freed = report.freed_bytes + search_freed;
    writeln!(
        out,
        "{}: {} session{}, {} blob{}, {} derived file{}, {} worktree{}; {freed} bytes",
        if args.dry_run { "dry run" } else { "done" },
        report.sessions.len(),
        if report.sessions.len() == 1 { "" } else { "s" },
        report.blobs.len(),
        if report.blobs.len() == 1 { "" } else { "s" },
        report.derived.len(),
        if report.derived.len() == 1 { "" } else { "s" },
        worktrees.len(),
        if worktrees.len() == 1 { "" } else { "s" },
    )?;
    flush(out)?;
    Ok(ExitCode::SUCCESS)
}
