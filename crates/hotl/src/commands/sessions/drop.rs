//! `hotl sessions drop`: delete a session, or tombstone it while forks descend from it.

use std::io::{BufRead, IsTerminal, Write};
use std::process::ExitCode;

use clap::Args;
use hotl_log::Dropped;

use crate::ctx::{Ctx, flush};
use crate::error::CliError;

/// Delete a session (kept hidden while other sessions descend from it); asks first on a
/// terminal
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  hotl sessions drop 3\n  hotl sessions drop old-experiment --yes"
)]
pub struct DropArgs {
    /// List number, id prefix, name or @last
    #[arg(value_name = "REF")]
    pub session: String,
    /// Drop without asking
    #[arg(long, short = 'y')]
    pub yes: bool,
}

pub fn run(ctx: &Ctx, args: &DropArgs) -> Result<ExitCode, CliError> {
    let meta = ctx.resolve(&args.session)?;
    if !args.yes {
        confirm(ctx, &args.session, &meta)?;
    }
    let mut out = ctx.out();
    match ctx.store.drop_session(&meta.id)? {
        Dropped::Deleted => writeln!(out, "dropped {}", meta.id)?,
        Dropped::Tombstoned { descendants } => writeln!(
            out,
            "{} has {} descendant{} ({}): it is hidden from lists and kept for them; \
             `hotl gc` removes it once none is left",
            meta.id,
            descendants.len(),
            if descendants.len() == 1 { "" } else { "s" },
            descendants.join(", ")
        )?,
    }
    flush(out)?;
    Ok(ExitCode::SUCCESS)
}

/// Asks before dropping on a terminal. Without one, a list number is refused (numbers shift
/// as sessions start, so it may name another session by now); an id prefix or a name is
/// taken as meant.
fn confirm(ctx: &Ctx, typed: &str, meta: &hotl_log::SessionMeta) -> Result<(), CliError> {
    let by_number = !typed.starts_with('0') && typed.parse::<usize>().is_ok();
    if !std::io::stdin().is_terminal() {
        if by_number {
            return Err(CliError::user(format!(
                "`drop {typed}` names a session by its list number, which shifts as sessions \
                 start; nobody can be asked here"
            ))
            .hint(format!(
                "name it by id: hotl sessions drop {} --yes",
                meta.id
            )));
        }
        return Ok(());
    }
    let mut out = ctx.out();
    write!(
        out,
        "drop session {} ({}, {} turn{}, {})? [y/N] ",
        meta.id,
        meta.display_title(),
        meta.turns,
        if meta.turns == 1 { "" } else { "s" },
        ctx.tilde(&meta.cwd)
    )?;
    flush(out)?;
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer)?;
    match answer.trim() {
        "y" | "Y" | "yes" => Ok(()),
        _ => Err(CliError::user(format!("{} is kept", meta.id))),
    }
}
