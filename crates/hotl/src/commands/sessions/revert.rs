//! `hotl sessions revert`: one `revert` record; later turns leave the visible branch.

use std::io::Write;
use std::process::ExitCode;

use clap::Args;
use hotl_agent::RevertScope;
use hotl_log::Body;
use hotl_view::View;

use crate::ctx::{Ctx, flush};
use crate::error::CliError;

/// Return a session to a turn boundary; later turns stay on disk, off the visible branch
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  hotl sessions revert @last --to t40\n  hotl sessions revert 1 --to t12 --code\n  hotl sessions revert @last --undo"
)]
pub struct RevertArgs {
    /// List number, id prefix, name or @last
    #[arg(value_name = "REF")]
    pub session: String,
    /// Keep everything through this stamp (t<seq>, the end of a turn as `sessions show` marks it)
    #[arg(long, value_name = "t<SEQ>", required_unless_present = "undo")]
    pub to: Option<String>,
    /// Undo the last code restore: the files it put back go back as they were before it
    /// (a file changed since is kept and named)
    #[arg(long, conflicts_with_all = ["to", "both", "conversation", "code"])]
    pub undo: bool,
    /// Revert the conversation and put back the files the later turns changed (the default)
    #[arg(long, group = "scope")]
    pub both: bool,
    /// Revert only the conversation: the files stay as they are
    #[arg(long, group = "scope")]
    pub conversation: bool,
    /// Put back only the files; the conversation goes on
    #[arg(long, group = "scope")]
    pub code: bool,
}

impl RevertArgs {
    fn scope(&self) -> RevertScope {
        match (self.conversation, self.code) {
            (true, _) => RevertScope::Conversation,
            (_, true) => RevertScope::Code,
            _ => RevertScope::Both,
        }
    }
}

pub fn run(ctx: &Ctx, args: &RevertArgs) -> Result<ExitCode, CliError> {
    let meta = ctx.resolve_to_change(&args.session, "sessions revert")?;
    let mut writer = ctx.store.writer(&meta.id)?;
    let cwd = std::path::Path::new(&meta.cwd);
    let Some(to) = &args.to else {
        let files = hotl_agent::revert_files(&ctx.store, &mut writer, cwd, None)
            .map_err(|why| CliError::user(format!("nothing was undone: {why}")))?;
        let mut out = ctx.out();
        writeln!(out, "{}", hotl_agent::words::undone(&files))?;
        flush(out)?;
        return Ok(ExitCode::SUCCESS);
    };
    let seq = parse_stamp(to)?;
    // Projected under the lock, so the view cannot move between the check and the append.
    let view = View::of(&ctx.store.lineage(&meta.id)?);
    let cut = view.cut_at_seq(seq)?;
    let scope = args.scope();
    if cut.at_head && scope.conversation() {
        return Err(CliError::user(format!(
            "t{seq} is already the end of the session; nothing to revert"
        )));
    }
    // The files first: when they cannot be put back, nothing is recorded.
    let files = if scope.code() {
        hotl_agent::revert_files(&ctx.store, &mut writer, cwd, Some(seq)).map_err(|why| {
            CliError::user(format!("the code cannot be put back: {why}"))
                .hint("--conversation reverts only the conversation")
        })?
    } else {
        Vec::new()
    };
    if scope.conversation() {
        writer.append(Body::Revert { to: seq })?;
    }
    let mut out = ctx.out();
    if scope.conversation() {
        writeln!(
            out,
            "reverted {} to t{seq} ({} turn{} kept; later records stay in the log)",
            meta.id,
            cut.boundary.turns,
            if cut.boundary.turns == 1 { "" } else { "s" }
        )?;
    }
    if scope.code() {
        let said = hotl_agent::words::reverted(seq, seq, RevertScope::Code, &files);
        for line in said.lines().skip(1) {
            writeln!(out, "{}", line.trim_start())?;
        }
    }
    flush(out)?;
    Ok(ExitCode::SUCCESS)
}

fn parse_stamp(text: &str) -> Result<u64, CliError> {
    hotl_agent::stamp_seq(text).ok_or_else(|| {
        CliError::user(format!(
            "{text:?} is not a stamp; expected t<seq>, e.g. t42"
        ))
    })
}
