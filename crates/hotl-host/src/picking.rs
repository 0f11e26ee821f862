//! What `hotl -r` shows on a plain terminal: a numbered list of sessions to pick from when no
//! reference is given, and a session another process writes as a read-only snapshot.

use std::io::{BufRead, Write};
use std::process::ExitCode;

use hotl_log::SessionMeta;
use hotl_view::View;

use crate::ctx::Ctx;
use crate::error::CliError;

/// A session another process is writing: its transcript as it stands, read-only.
pub fn snapshot(ctx: &Ctx, id: &str, why: &str) -> Result<ExitCode, CliError> {
    let view = View::from_lineage(ctx.store.lineage(id)?);
    let mut out = ctx.out();
    hotl_export::text::transcript(&mut out, &view)?;
    writeln!(
        out,
        "── read-only snapshot: {} ──",
        why.lines().next().unwrap_or(why)
    )?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// `hotl -r` without a reference: a numbered list (this directory's sessions, else all), and a
/// choice read from the terminal.
pub fn pick(ctx: &Ctx, headless: bool) -> Result<SessionMeta, CliError> {
    if headless {
        return Err(CliError::user(
            "-r without a session needs a terminal to pick from; pass a list number, id prefix, name or @last",
        ));
    }
    let metas = ctx.store.list()?;
    let mut rows = hotl_log::listed(&metas, Some(&ctx.cwd));
    if rows.is_empty() {
        rows = hotl_log::listed(&metas, None);
    }
    if rows.is_empty() {
        return Err(CliError::user("there are no sessions to resume"));
    }
    let now = ctx.now();
    let mut out = ctx.out();
    for (i, m) in rows.iter().enumerate().take(30) {
        let mut line = format!(
            "{:>3}  {}  {:<40}  {:>8}  {}",
            i + 1,
            &m.id[..10],
            hotl_text::clip(m.display_title(), 40),
            hotl_export::relative_time(&m.updated, now),
            hotl_text::plural(m.turns as usize, "turn")
        );
        if let Some(p) = &m.parent {
            line.push_str(&format!(
                "  ↳ from {}",
                &p.session[..10.min(p.session.len())]
            ));
        }
        writeln!(out, "{line}")?;
    }
    write!(out, "resume which? ")?;
    out.flush()?;
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer)?;
    let answer = answer.trim();
    if let Ok(n) = answer.parse::<usize>()
        && let Some(m) = n.checked_sub(1).and_then(|i| rows.get(i))
    {
        return Ok((*m).clone());
    }
    ctx.resolve(answer)
}
