//! `hotl search`: every session's full text (messages, tool outputs, notes, archived spans)
//! searched, the hits grouped by session; no model call.

use std::io::Write;
use std::process::ExitCode;

use clap::Args;
use serde::Serialize;

use crate::ctx::{Ctx, flush};
use crate::error::CliError;
use hotl_export::{ShortIds, relative_time};
use hotl_host::search::{Group, Report};
use hotl_recall::{Mode, Scope};

/// Search every session's full text: ranked (BM25, any case, words inside identifiers), exact or regex; no model call
#[derive(Debug, Args)]
#[command(
    after_help = "This directory's sessions (and those of directories below it) unless \
    --project or --all says otherwise.\n\nExamples:\n  hotl search \"connection refused\"\n  \
    hotl search kumquat --all\n  hotl search --regex 'E0[0-9]{3}' --since 2w\n  hotl search \
    \"flaky login\" --project ~/src/app --json\n  hotl search --remote \"flaky login\""
)]
pub struct SearchArgs {
    /// What to look for
    pub query: String,
    /// Case-insensitive text as written, newest first
    #[arg(long, conflicts_with = "regex")]
    pub exact: bool,
    /// A regular expression (`^`/`$` at line ends), newest first
    #[arg(long)]
    pub regex: bool,
    /// Only sessions made in DIR or below it
    #[arg(long, value_name = "DIR")]
    pub project: Option<std::path::PathBuf>,
    /// Only sessions active since: a date (2026-11-30), a time, or how long ago (3d, 12h, 2w)
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,
    /// The most hits to show (at least 1)
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..))]
    pub limit: u64,
    /// One JSON array of sessions with their hits (schema: docs/json.md)
    #[arg(long)]
    pub json: bool,
    /// Every session in the remote store instead, whatever project (the same search as
    /// `hotl recall --remote QUERY`, and its report)
    #[arg(long, conflicts_with_all = ["project", "since"])]
    pub remote: bool,
}

/// A session of `hotl search --json`.
#[derive(Serialize)]
struct SessionRow<'a> {
    id: &'a str,
    name: Option<&'a str>,
    title: &'a str,
    cwd: &'a str,
    updated: &'a str,
    hits: Vec<HitRow<'a>>,
}

/// A hit of `hotl search --json`.
#[derive(Serialize)]
struct HitRow<'a> {
    seq: u64,
    kind: &'a str,
    thread: Option<&'a str>,
    line: &'a str,
    score: f64,
    stale: &'a [String],
}

pub fn run(ctx: &Ctx, args: &SearchArgs) -> Result<ExitCode, CliError> {
    let mode = match (args.exact, args.regex) {
        (true, _) => Mode::Exact,
        (_, true) => Mode::Regex,
        _ => Mode::Ranked,
    };
    if args.remote {
        let (query, limit) = (
            args.query.clone(),
            usize::try_from(args.limit).unwrap_or(usize::MAX),
        );
        return crate::remote::report(ctx, args.json, |remote| async move {
            remote.recall(&query, mode, limit).await
        });
    }
    if args.project.is_some() && ctx.all {
        return Err(CliError::usage("--project and --all: give one"));
    }
    let project = match &args.project {
        Some(dir) => Some(
            std::path::absolute(dir)
                .map_err(|e| CliError::usage(format!("--project {}: {e}", dir.display())))?
                .to_string_lossy()
                .into_owned(),
        ),
        None if ctx.all => None,
        None => Some(ctx.cwd.clone()),
    };
    let scope = Scope {
        project,
        since: args
            .since
            .as_deref()
            .map(|s| hotl_host::search::since(s, ctx.now()))
            .transpose()?,
        leave_out: Vec::new(),
    };
    let limit = usize::try_from(args.limit).unwrap_or(usize::MAX);
    let report = hotl_host::search::search(ctx, &args.query, mode, &scope, limit)?;
    let mut out = ctx.out();
    if args.json {
        let rows: Vec<SessionRow> = report.groups.iter().map(json_row).collect();
        serde_json::to_writer_pretty(&mut out, &rows)?;
        writeln!(out)?;
    } else {
        print(ctx, &mut out, &report, args.project.is_none() && !ctx.all)?;
    }
    flush(out)?;
    for problem in &report.problems {
        eprintln!("hotl: not searched: {problem}");
    }
    if let Some(why) = &report.partial {
        eprintln!("hotl: {why}");
    }
    Ok(ExitCode::SUCCESS)
}

fn json_row(g: &Group) -> SessionRow<'_> {
    SessionRow {
        id: &g.meta.id,
        name: g.meta.name.as_deref(),
        title: g.meta.display_title(),
        cwd: &g.meta.cwd,
        updated: &g.meta.updated,
        hits: g
            .hits
            .iter()
            .map(|h| HitRow {
                seq: h.seq,
                kind: h.kind.name(),
                thread: h.thread.as_deref(),
                line: &h.line,
                score: h.score,
                stale: &h.stale,
            })
            .collect(),
    }
}

/// Each session on a line (id, name, title, directory, when), its hits indented below it:
/// stamp, thread, what it was, the line.
fn print(ctx: &Ctx, out: &mut impl Write, report: &Report, here: bool) -> Result<(), CliError> {
    if report.groups.is_empty() {
        let hint = if here {
            " in this directory's sessions (--all searches every project's)"
        } else {
            ""
        };
        writeln!(out, "nothing found{hint}")?;
        return Ok(());
    }
    let ids = ctx.store.session_ids().unwrap_or_default();
    let short = ShortIds::new(ids.iter().map(String::as_str));
    let now = ctx.now();
    for (i, g) in report.groups.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        let m = &g.meta;
        let mut head = short.of(&m.id).to_owned();
        if let Some(name) = &m.name {
            head.push_str(&format!("  {name}"));
        }
        writeln!(
            out,
            "{head}  {}  · {} · {}",
            hotl_text::clip(m.display_title(), 50),
            ctx.tilde(&m.cwd),
            relative_time(&m.updated, now)
        )?;
        for h in &g.hits {
            let thread = h
                .thread
                .as_deref()
                .map(|t| format!(" [{t}]"))
                .unwrap_or_default();
            let stale = if h.stale.is_empty() {
                String::new()
            } else {
                format!("  (changed since: {})", h.stale.join(", "))
            };
            writeln!(
                out,
                "  t{}{thread} {}: {}{stale}",
                h.seq,
                h.kind.name(),
                h.line
            )?;
        }
    }
    Ok(())
}
