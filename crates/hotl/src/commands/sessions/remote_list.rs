//! `hotl sessions list --remote`: every tree in the remote store, newest first, from its
//! summaries (one listing pass; summaries read again only when they changed).

use std::io::Write;
use std::process::ExitCode;

use serde::Serialize;

use super::list::ListArgs;
use crate::ctx::{Ctx, flush};
use crate::error::CliError;
use hotl_export::relative_time;

/// One row of `sessions list --remote --json`.
#[derive(Serialize)]
struct Row<'a> {
    id: &'a str,
    name: Option<&'a str>,
    title: &'a str,
    project: &'a str,
    author: &'a str,
    host: &'a str,
    updated: &'a str,
    published: &'a str,
    turns: u64,
    records: u64,
    parent: Option<&'a str>,
    delegated: Vec<&'a str>,
    local: bool,
}

pub fn run(ctx: &Ctx, args: &ListArgs) -> Result<ExitCode, CliError> {
    let remote = crate::remote::required(ctx)?;
    let work = std::sync::Arc::clone(&remote);
    let (trees, problems) =
        crate::remote::block_on(move || async move { work.list_trees().await })??;
    for problem in &problems {
        eprintln!("hotl: warning: {problem}");
    }
    let project = args.project.as_ref().map(|dir| {
        dir.canonicalize()
            .unwrap_or_else(|_| dir.clone())
            .to_string_lossy()
            .into_owned()
    });
    let rows: Vec<Row> = trees
        .iter()
        .filter_map(|tree| {
            let root = tree.root_meta()?;
            if project.as_deref().is_some_and(|p| p != root.cwd) {
                return None;
            }
            Some(Row {
                id: &root.id,
                name: root.name.as_deref(),
                title: root
                    .title
                    .as_deref()
                    .or(root.first_message.as_deref())
                    .unwrap_or(""),
                project: &root.cwd,
                author: &tree.author,
                host: &tree.host,
                updated: tree.updated(),
                published: &tree.published,
                turns: root.turns,
                records: root.records,
                parent: root.parent.as_ref().map(|p| p.session.as_str()),
                delegated: tree
                    .sessions
                    .iter()
                    .filter(|m| m.id != root.id)
                    .map(|m| m.id.as_str())
                    .collect(),
                local: ctx.store.exists(&root.id),
            })
        })
        .collect();
    let mut out = ctx.out();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &rows)?;
        writeln!(out)?;
        flush(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    if rows.is_empty() {
        writeln!(out, "no sessions in {}", remote.config().label())?;
    }
    let now = ctx.now();
    for row in &rows {
        let when = relative_time(row.updated, now);
        let name = row.name.map(|n| format!(" [{n}]")).unwrap_or_default();
        let title = hotl_text::clip(row.title, 60);
        writeln!(
            out,
            "{}{name}  {title}  ·  {}  ·  {}@{}  ·  {when}{}",
            &row.id[..row.id.len().min(10)],
            ctx.tilde(row.project),
            row.author,
            row.host,
            if row.local { "  · here too" } else { "" }
        )?;
    }
    flush(out)?;
    Ok(ExitCode::SUCCESS)
}
