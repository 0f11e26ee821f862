//! `hotl sessions list`: numbered, newest first.

use std::io::Write;
use std::process::ExitCode;

use clap::Args;
use serde::Serialize;

use crate::ctx::{Ctx, flush};
use crate::error::CliError;
use crate::render::{ShortIds, relative_time};

/// List sessions, newest first
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Every project's sessions, not just this directory's
    #[arg(long)]
    pub all: bool,
    /// One JSON array (schema: docs/json.md)
    #[arg(long)]
    pub json: bool,
}

/// One row of `sessions list --json`.
#[derive(Serialize)]
struct Row<'a> {
    number: usize,
    id: &'a str,
    name: Option<&'a str>,
    title: &'a str,
    parent: Option<&'a str>,
    parent_seq: Option<u64>,
    created: &'a str,
    updated: &'a str,
    cwd: &'a str,
    turns: u64,
    records: u64,
    bytes: u64,
    model: Option<&'a str>,
}

pub fn run(ctx: &Ctx, args: &ListArgs) -> Result<ExitCode, CliError> {
    let metas = ctx.store.list()?;
    let scope = (!args.all).then_some(ctx.cwd.as_str());
    let rows = hotl_log::listed(&metas, scope);
    let mut out = ctx.out();
    if args.json {
        let json: Vec<Row> = rows
            .iter()
            .enumerate()
            .map(|(i, m)| Row {
                number: i + 1,
                id: &m.id,
                name: m.name.as_deref(),
                title: m.display_title(),
                parent: m.parent.as_ref().map(|p| p.session.as_str()),
                parent_seq: m.parent.as_ref().map(|p| p.seq),
                created: &m.created,
                updated: &m.updated,
                cwd: &m.cwd,
                turns: m.turns,
                records: m.records,
                bytes: m.size,
                model: m.model.as_deref(),
            })
            .collect();
        serde_json::to_writer_pretty(&mut out, &json)?;
        writeln!(out)?;
        flush(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    if rows.is_empty() {
        let where_ = if args.all { "" } else { " in this directory" };
        writeln!(out, "no sessions{where_}")?;
        if !args.all && metas.iter().any(|m| !m.dropped) {
            writeln!(out, "(`hotl sessions list --all` shows every project's)")?;
        }
        flush(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    let short = ShortIds::new(metas.iter().map(|m| m.id.as_str()));
    let now = ctx.now();
    let name_w = rows
        .iter()
        .map(|m| m.name.as_deref().map_or(0, |n| n.chars().count()))
        .max()
        .unwrap_or(0)
        .max(4);
    let id_w = rows
        .iter()
        .map(|m| short.of(&m.id).len())
        .max()
        .unwrap_or(8);
    let num_w = rows.len().to_string().len();
    writeln!(
        out,
        "{:>num_w$}  {:<id_w$}  {:<name_w$}  {:<40}  {:>8}  {:>5}  cwd",
        "#", "id", "name", "title", "active", "turns"
    )?;
    for (i, m) in rows.iter().enumerate() {
        let mut line = format!(
            "{:>num_w$}  {:<id_w$}  {:<name_w$}  {:<40}  {:>8}  {:>5}  {}",
            i + 1,
            short.of(&m.id),
            m.name.as_deref().unwrap_or(""),
            clip(m.display_title(), 40),
            relative_time(&m.updated, now),
            m.turns,
            ctx.tilde(&m.cwd),
        );
        if let Some(parent) = &m.parent {
            line.push_str(&format!("  ↳ from {}", short.of(&parent.session)));
        }
        writeln!(out, "{}", line.trim_end())?;
    }
    flush(out)?;
    Ok(ExitCode::SUCCESS)
}

fn clip(text: &str, width: usize) -> String {
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(width).collect();
    if chars.next().is_some() {
        let mut cut: String = head.chars().take(width - 1).collect();
        cut.push('…');
        cut
    } else {
        head
    }
}
