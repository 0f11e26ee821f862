//! `hotl sessions list`: numbered, newest first.

use std::io::Write;
use std::process::ExitCode;

use clap::Args;
use serde::Serialize;

use crate::ctx::{Ctx, flush};
use crate::error::CliError;
use hotl_export::{ShortIds, relative_time};

/// List sessions, newest first
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  hotl sessions list\n  hotl sessions list --all --json\n  hotl sessions list --remote --project ~/src/app"
)]
pub struct ListArgs {
    /// One JSON array (schema: docs/json.md)
    #[arg(long)]
    pub json: bool,
    /// Every session in the remote store, whatever project it came from
    #[arg(long)]
    pub remote: bool,
    /// With --remote: only sessions of this project directory
    #[arg(long, value_name = "DIR", requires = "remote")]
    pub project: Option<std::path::PathBuf>,
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
    #[serde(skip_serializing_if = "Vec::is_empty")]
    delegated: Vec<Child>,
}

/// A session delegated inside a listed root's tree (a fork-tool child, a subagent).
#[derive(Serialize)]
struct Child {
    id: String,
    handle: Option<String>,
    agent: Option<String>,
    task: String,
    by: String,
    updated: String,
    turns: u64,
    records: u64,
}

/// The sessions delegated inside `root`'s tree, oldest first.
fn children(ctx: &Ctx, root: &str) -> Result<Vec<Child>, CliError> {
    let mut out = Vec::new();
    for id in ctx.store.tree_children(root)? {
        let (Ok(start), Ok(meta)) = (ctx.store.read_start(&id), ctx.store.meta(&id)) else {
            continue;
        };
        let delegation = start.delegated.unwrap_or_else(|| hotl_log::Delegation {
            by: root.to_owned(),
            ..Default::default()
        });
        out.push(Child {
            id,
            handle: delegation.handle,
            agent: delegation.agent,
            task: delegation.description,
            by: delegation.by,
            updated: meta.updated,
            turns: meta.turns,
            records: meta.records,
        });
    }
    out.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(out)
}

pub fn run(ctx: &Ctx, args: &ListArgs) -> Result<ExitCode, CliError> {
    if args.remote {
        let project = args.project.clone();
        return crate::remote::report(ctx, args.json, |remote| async move {
            remote.listing(project.as_deref()).await
        });
    }
    let metas = ctx.store.list()?;
    let scope = (!ctx.all).then_some(ctx.cwd.as_str());
    let rows = hotl_log::listed(&metas, scope);
    let trees: std::collections::HashSet<String> = ctx.store.tree_roots()?.into_iter().collect();
    let delegated = |id: &str| -> Result<Vec<Child>, CliError> {
        if trees.contains(id) {
            children(ctx, id)
        } else {
            Ok(Vec::new())
        }
    };
    let mut out = ctx.out();
    if args.json {
        let mut json = Vec::with_capacity(rows.len());
        for (i, m) in rows.iter().enumerate() {
            json.push(Row {
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
                delegated: delegated(&m.id)?,
            });
        }
        serde_json::to_writer_pretty(&mut out, &json)?;
        writeln!(out)?;
        flush(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    if rows.is_empty() {
        let where_ = if ctx.all { "" } else { " in this directory" };
        writeln!(out, "no sessions{where_}")?;
        if !ctx.all && metas.iter().any(|m| !m.dropped) {
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
            hotl_text::clip(m.display_title(), 40),
            relative_time(&m.updated, now),
            m.turns,
            ctx.tilde(&m.cwd),
        );
        if let Some(parent) = &m.parent {
            line.push_str(&format!("  ↳ from {}", short.of(&parent.session)));
        }
        writeln!(out, "{}", line.trim_end())?;
        for child in delegated(&m.id)? {
            let mut label = child
                .agent
                .clone()
                .unwrap_or_else(|| "delegated".to_owned());
            if let Some(handle) = &child.handle {
                label.push(' ');
                label.push_str(handle);
            }
            writeln!(
                out,
                "{:>num_w$}  └ {label} · {} · {} · {} turns · {}",
                "",
                hotl_text::clip(&child.task, 50),
                relative_time(&child.updated, now),
                child.turns,
                short.of(&child.id),
            )?;
        }
    }
    flush(out)?;
    Ok(ExitCode::SUCCESS)
}
