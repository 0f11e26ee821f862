//! `hotl sessions show`: the transcript, or exactly what the model would see.

use std::io::Write;
use std::process::ExitCode;

use clap::Args;
use hotl_view::{View, model_messages};
use serde_json::json;

use crate::ctx::{Ctx, flush};
use crate::error::CliError;
use hotl_export::text as render;

/// Show a session's transcript
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  hotl sessions show 1\n  hotl sessions show @last --model-view\n  hotl sessions show 1 --tree"
)]
pub struct ShowArgs {
    /// List number, id prefix, name or @last
    #[arg(value_name = "REF")]
    pub session: String,
    /// Show exactly the messages the model would be sent
    #[arg(long)]
    pub model_view: bool,
    /// Show the sessions delegated beneath it, nested, with what each spent
    #[arg(long, conflicts_with = "model_view")]
    pub tree: bool,
    /// JSON instead of text (schema: docs/json.md)
    #[arg(long)]
    pub json: bool,
}

pub fn run(ctx: &Ctx, args: &ShowArgs) -> Result<ExitCode, CliError> {
    let meta = ctx.resolve(&args.session)?;
    if args.tree {
        return tree(ctx, &meta, args.json);
    }
    let lineage = ctx.store.lineage(&meta.id)?;
    let view = View::of(&lineage);
    let skipped = lineage.report.summary();
    let problems: Vec<String> = lineage.problems.iter().map(ToString::to_string).collect();
    let mut out = ctx.out();
    if args.json {
        let body = if args.model_view {
            json!({ "id": meta.id, "messages": model_messages(&view) })
        } else {
            json!({
                "id": meta.id,
                "name": meta.name,
                "title": meta.display_title(),
                "cwd": meta.cwd,
                "parent": meta.parent,
                "delegated": lineage.start().delegated,
                "turns": view.turns,
                "open_turn": view.open_turn,
                "model_after": view.model_after,
                "items": view.items,
                "boundaries": view.boundaries,
                "skipped": lineage.report,
                "problems": problems,
                "anomalies": view.anomalies,
                "failures": view.failures,
                "reverts": view.reverts,
            })
        };
        serde_json::to_writer_pretty(&mut out, &body)?;
        writeln!(out)?;
        flush(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    if args.model_view {
        out.write_all(hotl_agent::messages_text(&model_messages(&view)).as_bytes())?;
    } else {
        header(ctx, &mut out, &meta, &view)?;
        render::transcript(&mut out, &view)?;
        forks(ctx, &mut out, &meta.id)?;
    }
    for problem in problems.iter().chain(&view.anomalies) {
        writeln!(out, "warning: {problem}")?;
    }
    if let Some(skipped) = skipped {
        writeln!(out, "{skipped}")?;
    }
    flush(out)?;
    Ok(ExitCode::SUCCESS)
}

/// `--tree`: the session and the sessions delegated beneath it, with what each spent.
fn tree(ctx: &Ctx, meta: &hotl_log::SessionMeta, json: bool) -> Result<ExitCode, CliError> {
    let pricing = hotl_config::resolve(
        hotl_config::load_file()?,
        &hotl_config::Overrides::default(),
    )?
    .pricing;
    let root = hotl_agent::tree::build(&ctx.store, meta, &pricing)?;
    let mut out = ctx.out();
    if json {
        serde_json::to_writer_pretty(&mut out, &super::tree::to_json(&root))?;
        writeln!(out)?;
    } else {
        super::tree::write_text(&mut out, &root)?;
    }
    flush(out)?;
    Ok(ExitCode::SUCCESS)
}

/// The sessions this one delegated (its forks), one line each: what `recall` and `ask` reach
/// them by.
fn forks(ctx: &Ctx, out: &mut impl Write, id: &str) -> Result<(), CliError> {
    let mine: Vec<hotl_log::Delegated> = ctx
        .store
        .visible_delegated(id)?
        .into_iter()
        .filter(|d| d.delegation.by == id)
        .collect();
    for child in mine {
        let d = child.delegation;
        let what = d.agent.as_deref().unwrap_or("delegated");
        let handle = d.handle.as_deref().unwrap_or(&child.id[..8]);
        writeln!(
            out,
            "↳ {what} {handle} (t{}): {} · session {}",
            child.pinned_at, d.description, child.id
        )?;
    }
    Ok(())
}

fn header(
    ctx: &Ctx,
    out: &mut impl Write,
    meta: &hotl_log::SessionMeta,
    view: &View,
) -> std::io::Result<()> {
    let mut first = format!("session {}", meta.id);
    if let Some(name) = &meta.name {
        first.push_str(&format!(" ({name})"));
    }
    let title = meta.display_title();
    if !title.is_empty() {
        first.push_str(&format!(" {title:?}"));
    }
    writeln!(out, "{first}")?;
    let mut second = vec![format!("cwd {}", ctx.tilde(&meta.cwd))];
    if let Some(model) = &meta.model {
        second.push(format!("model {model}"));
    }
    second.push(format!(
        "{} turn{}",
        view.turns,
        if view.turns == 1 { "" } else { "s" }
    ));
    if let Some(parent) = &meta.parent {
        second.push(format!("forked from {} at t{}", parent.session, parent.seq));
    }
    if meta.dropped {
        second.push("dropped (kept for its descendants)".to_owned());
    }
    writeln!(out, "{}", second.join(" · "))?;
    if meta.delegated
        && let Some(d) = ctx
            .store
            .read_start(&meta.id)
            .ok()
            .and_then(|s| s.delegated)
    {
        let mut what = d.agent.unwrap_or_else(|| "delegated".to_owned());
        if let Some(handle) = d.handle {
            what.push(' ');
            what.push_str(&handle);
        }
        writeln!(out, "{what} of {}: {}", d.by, d.description)?;
    }
    writeln!(out)
}
