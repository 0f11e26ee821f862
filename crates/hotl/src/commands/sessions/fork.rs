//! `hotl sessions fork`: a new root session seeded with another's history, nothing copied.

use std::io::Write;
use std::process::ExitCode;

use clap::Args;
use hotl_agent::ForkAt;

use crate::ctx::{Ctx, flush};
use crate::error::CliError;

/// Start a new session from another's history; prints the new session's id
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  hotl sessions fork @last -n retry\n  hotl sessions fork 1 --keep-turns 2\n  hotl sessions fork @last --keep-turns 1 --worktree     the code of that point, beside this tree"
)]
pub struct ForkArgs {
    /// List number, id prefix, name or @last
    #[arg(value_name = "REF")]
    pub session: String,
    /// Fork at the end of the N-th completed turn instead of the head
    #[arg(long, value_name = "N", conflicts_with = "keep")]
    pub keep_turns: Option<usize>,
    /// Fork after N transcript items; must land on a turn boundary
    #[arg(long, value_name = "N")]
    pub keep: Option<usize>,
    /// Name for the fork (the parent's name is never inherited)
    #[arg(short = 'n', long, value_name = "NAME")]
    pub name: Option<String>,
    /// The fork works in a new git worktree checked out at the code of its point (as the
    /// parent's snapshots had it), leaving the current tree alone; its path is printed on a
    /// second line
    #[arg(long)]
    pub worktree: bool,
}

pub fn run(ctx: &Ctx, args: &ForkArgs) -> Result<ExitCode, CliError> {
    let parent = ctx.resolve(&args.session)?;
    let at = match (args.keep_turns, args.keep) {
        (Some(n), _) => ForkAt::Turns(n),
        (None, Some(n)) => ForkAt::Items(n),
        (None, None) => ForkAt::Head,
    };
    if args.worktree {
        let (writer, dir) =
            hotl_agent::fork_into_worktree(&ctx.store, &parent, at, args.name.as_deref())?;
        let mut out = ctx.out();
        writeln!(out, "{}", writer.id())?;
        writeln!(out, "{}", dir.display())?;
        flush(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    // A fork only reads its parent: one whose directory is gone (made on another machine,
    // or moved) is forked here, as `--fork-from` does.
    let cwd = if std::path::Path::new(&parent.cwd).is_dir() {
        parent.cwd.as_str()
    } else {
        eprintln!(
            "hotl: {} does not exist here; the fork works in {}",
            parent.cwd, ctx.cwd
        );
        ctx.cwd.as_str()
    };
    let writer = hotl_agent::fork(&ctx.store, &parent, at, args.name.as_deref(), cwd)?;
    let mut out = ctx.out();
    writeln!(out, "{}", writer.id())?;
    flush(out)?;
    Ok(ExitCode::SUCCESS)
}
