//! The `hotl` binary: arguments in, library calls, rendering out. No logic a test could not
//! reach through the libraries lives here.

// The doc comments of the argument types are the command line's help text, written for a
// terminal (`[REF]`, `t<seq>`), not for rustdoc.
#![allow(rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags)]

mod cli;
mod commands;
mod reaper;

// What the commands do with the home is decided in hotl-host; they name it as their own.
use hotl_host::{
    breadcrumb, ctx, delegation, error, headless, mcp, picking, remote, sandbox, takeout, tui,
};

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

use crate::cli::Cli;
use crate::ctx::Ctx;
use crate::error::CliError;

fn main() -> ExitCode {
    // A `bash` tool's group leader, before anything else: it must start fast and parse nothing.
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == reaper::FLAG) {
        return reaper::run(&args[2..]);
    }
    tui::process_start();
    // MCP servers end with hotl, however it ends: the reaper leads their process groups.
    hotl_mcp::lead_servers_with(reaper::program());
    // Before any thread: the credentials leave the environment block other processes read.
    let credentials = hotl_config::credential_vars();
    hotl_sandbox::credentials::scrub(&credentials.iter().map(String::as_str).collect::<Vec<_>>());
    let code = run_cli();
    // A snapshot still being taken (a turn that only talked) ends with the process.
    hotl_agent::end_children();
    code
}

fn run_cli() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(&e),
    };
    let result = in_memory(&cli)
        .and_then(|in_memory| Ctx::new(cli.home.clone(), cli.all, in_memory))
        .and_then(|ctx| match &cli.export {
            Some(paths) if cli.command.is_none() => {
                commands::sessions::export::from_file(&ctx, paths)
            }
            Some(_) => Err(CliError::usage(
                "--export reads a log file on its own: it goes with no subcommand",
            )),
            None => commands::run(&ctx, cli.command, &cli.run),
        });
    match result {
        Ok(code) => code,
        Err(CliError::BrokenPipe) => ExitCode::SUCCESS,
        Err(err) => {
            let mut stderr = std::io::stderr().lock();
            let _ = writeln!(stderr, "hotl: {err}");
            for hint in err.hints() {
                let _ = writeln!(stderr, "hint: {hint}");
            }
            ExitCode::from(err.exit_code())
        }
    }
}

/// A command line clap refused, in hotl's shape (`hotl: <what>`, then `hint:` lines), exit 2;
/// `--help` and `--version` print as clap writes them.
fn usage_error(e: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = e.print();
        // `hotl sessions` alone shows its commands, but asked for nothing.
        let asked = e.kind() != ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand;
        return ExitCode::from(if asked { 0 } else { 2 });
    }
    let text = e.to_string();
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let mut stderr = std::io::stderr().lock();
    let what = lines.next().unwrap_or_default();
    let mut what = what.strip_prefix("error: ").unwrap_or(what).to_owned();
    for line in lines {
        if let Some(tip) = line.strip_prefix("tip: ") {
            let _ = writeln!(stderr, "hotl: {what}");
            what.clear();
            let _ = writeln!(stderr, "hint: {tip}");
        } else if let Some(usage) = line.strip_prefix("Usage: ") {
            if !what.is_empty() {
                let _ = writeln!(stderr, "hotl: {what}");
                what.clear();
            }
            let _ = writeln!(stderr, "hint: usage: {usage} (--help for more)");
        } else if !what.is_empty() && !line.starts_with("For more information") {
            // A continuation of the message (the missing arguments, one a line).
            what.push(' ');
            what.push_str(line);
        }
    }
    if !what.is_empty() {
        let _ = writeln!(stderr, "hotl: {what}");
    }
    ExitCode::from(2)
}

/// Whether the run keeps its session in memory (`--no-session`, which only running the agent
/// takes).
fn in_memory(cli: &Cli) -> Result<bool, CliError> {
    match &cli.command {
        None => Ok(cli.run.no_session),
        Some(cli::Command::Resume(_)) if cli.run.no_session => Err(CliError::usage(
            "--no-session starts a session that is never saved: it cannot resume one",
        )),
        Some(cli::Command::Resume(resume)) if resume.no_session => Err(CliError::usage(
            "--no-session starts a session that is never saved: it cannot resume one",
        )),
        Some(_) if cli.run.no_session => Err(CliError::user(
            "--no-session goes with running the agent (hotl --no-session, hotl --no-session -p ...), not with a subcommand",
        )),
        Some(_) => Ok(false),
    }
}
