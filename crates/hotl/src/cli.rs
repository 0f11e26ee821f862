//! The command line: every flag and subcommand. Doc comments are the `--help` text.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// hotl: a terminal coding agent whose memory is an append-only log.
#[derive(Debug, Parser)]
#[command(
    name = "hotl",
    version,
    about,
    propagate_version = true,
    after_help = "Examples:\n  hotl                                   the terminal UI in this directory\n  hotl \"fix the failing test\"            start with a task\n  hotl -p \"list the files\"               one turn, headless (--output-format json|stream-json)\n  hotl -c                                continue this terminal's session\n  hotl -r @last                          resume the latest session here\n  hotl --base-url http://127.0.0.1:8080/v1 --model qwen   any OpenAI-compatible server\n  hotl sessions list                     this directory's sessions, newest first\n  hotl search \"connection refused\"       what was said in this directory's sessions (--all: every project's)\n  hotl completions bash                  a completion script (bash, zsh, fish, elvish, powershell)"
)]
pub struct Cli {
    /// Where sessions and blobs live [default: $HOTL_HOME, else $XDG_DATA_HOME/hotl, else
    /// ~/.local/share/hotl]
    #[arg(long, global = true, value_name = "DIR")]
    pub home: Option<PathBuf>,

    /// Every project's sessions: listings show them all, and a list number counts in that
    /// listing (`hotl sessions list --all`, then `hotl sessions show --all 6`)
    #[arg(long, global = true)]
    pub all: bool,

    /// Export a log file as a page (or .md/.jsonl, by PATH's extension) without opening a
    /// session: hotl --export FILE.jsonl [PATH]
    #[arg(long, value_name = "FILE", num_args = 1..=2, conflicts_with_all = ["prompt", "resume", "continue_last"])]
    pub export: Option<Vec<PathBuf>>,

    #[command(flatten)]
    pub run: crate::commands::run::RunArgs,

    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Top-level commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Resume a session (the same as -r): hotl resume [REF] [-p PROMPT] ...
    // The flags that choose another session, or name a new one, mean nothing here: hidden.
    #[command(
        mut_arg("resume", |a| a.hide(true)),
        mut_arg("continue_last", |a| a.hide(true)),
        mut_arg("fork_from", |a| a.hide(true)),
        mut_arg("keep_turns", |a| a.hide(true)),
        mut_arg("keep", |a| a.hide(true)),
        mut_arg("name", |a| a.hide(true))
    )]
    Resume(crate::commands::run::RunArgs),
    /// List, show, fork and manage sessions
    #[command(subcommand)]
    Sessions(SessionsCommand),
    /// Remove old and dropped sessions, unreferenced blobs and stale caches
    Gc(crate::commands::gc::GcArgs),
    /// Fold a finished span of a session into a note, archived under a handle
    Fold(crate::commands::fold::FoldArgs),
    /// Compact a session: everything the model sees becomes one note (the span stays archived)
    Compact(crate::commands::compact::CompactArgs),
    /// Search what a session folded away (ranked, exact or regex; no model call)
    Recall(crate::commands::recall::RecallArgs),
    /// Search every session's full text, grouped by session (ranked, exact or regex; no model call)
    Search(crate::commands::search::SearchArgs),
    /// Ask an archived thread one question (no change to the main line but an `ask` record)
    Ask(crate::commands::ask::AskArgs),
    /// What a session spent, per turn and in total, and what its folds and forks saved
    Stats(crate::commands::stats::StatsArgs),
    /// Manage MCP servers: list, check, add, remove
    #[command(subcommand)]
    #[command(arg = crate::cli::unused_all())]
    Mcp(crate::commands::mcp::McpCommand),
    /// The remote store sessions are published to: add, check
    #[command(subcommand)]
    Remote(crate::commands::remote::RemoteCommand),
    /// The sandbox commands run in: check what it enforces here, run a command under it
    #[command(subcommand)]
    #[command(arg = crate::cli::unused_all())]
    Sandbox(crate::commands::sandbox::SandboxCommand),
    /// Agent definitions delegated children are made from: list, show, check
    #[command(subcommand)]
    #[command(arg = crate::cli::unused_all())]
    Agents(crate::commands::agents::AgentsCommand),
    /// Show the effective configuration and where each value comes from
    #[command(arg = crate::cli::unused_all())]
    Config(crate::commands::config::ConfigArgs),
    /// Print a shell completion script: hotl completions bash > ~/.local/share/bash-completion/completions/hotl
    #[command(arg = crate::cli::unused_home())]
    #[command(arg = crate::cli::unused_all())]
    Completions(crate::commands::completions::CompletionsArgs),
    /// Print hotl's man page (roff): hotl man > ~/.local/share/man/man1/hotl.1
    #[command(arg = crate::cli::unused_home())]
    #[command(arg = crate::cli::unused_all())]
    Man,
    /// Serve the Agent Client Protocol on stdio, for editors (Zed and others)
    #[command(arg = crate::cli::unused_all())]
    Acp(crate::commands::acp::AcpArgs),
    /// Serve encrypted shares: store sealed blobs and the viewer that opens them
    #[command(arg = crate::cli::unused_all())]
    ShareServer(crate::commands::share_server::ShareServerArgs),
    /// Developer tools: look at what providers send
    #[command(subcommand)]
    #[command(arg = crate::cli::unused_home())]
    #[command(arg = crate::cli::unused_all())]
    Debug(DebugCommand),
}

/// `hotl debug ...`
#[derive(Debug, Subcommand)]
pub enum DebugCommand {
    /// Decode a recorded streaming response into hotl's events (JSON Lines)
    Decode(crate::commands::debug::decode::DecodeArgs),
}

/// `hotl sessions ...`
#[derive(Debug, Subcommand)]
pub enum SessionsCommand {
    /// List sessions, newest first (this directory's, or --all)
    #[command(visible_alias = "ls")]
    List(crate::commands::sessions::list::ListArgs),
    /// Show a session's transcript, or exactly what the model would see
    Show(crate::commands::sessions::show::ShowArgs),
    /// Print a session as the model sees it (prompt, tools, messages), and write the body of
    /// its next request beside it
    Dump(crate::commands::sessions::dump::DumpArgs),
    /// Write a session as one offline HTML page, Markdown, or a log that stands alone
    Export(crate::commands::sessions::export::ExportArgs),
    /// Share a session as an encrypted link (redacted first)
    Share(crate::commands::sessions::share::ShareArgs),
    /// Adopt a hotl log written elsewhere
    Import(crate::commands::sessions::import::ImportArgs),
    /// Start a new session from another's history, whole or cut at a turn
    Fork(crate::commands::sessions::fork::ForkArgs),
    /// Name a session
    Rename(crate::commands::sessions::rename::RenameArgs),
    /// Return a session to an earlier turn boundary (later turns stay on disk)
    Revert(crate::commands::sessions::revert::RevertArgs),
    /// Restart the model's context after this point (the transcript keeps everything)
    Clear(RefArg),
    /// Delete a session (kept hidden while other sessions descend from it); asks first
    Drop(crate::commands::sessions::drop::DropArgs),
    /// Verify logs and explain what is wrong; exit status 1 on problems
    Check(crate::commands::sessions::check::CheckArgs),
    /// Publish sessions to the remote store ([remote]): a session's tree, or --all
    Push(crate::commands::sessions::sync::SyncArgs),
    /// Pull sessions from the remote store into this home: a session's tree, or --all
    Pull(crate::commands::sessions::sync::SyncArgs),
}

/// A session reference.
#[derive(Debug, Args)]
pub struct RefArg {
    /// List number, id prefix, name or @last
    #[arg(value_name = "REF")]
    pub session: String,
}

/// `--all` (a global flag: every project's sessions) where it means nothing, hidden: a
/// subcommand that defines the flag itself does not get the global one, so its help does not
/// offer it. Taken and ignored, as before.
pub fn unused_all() -> clap::Arg {
    clap::Arg::new("all")
        .long("all")
        .hide(true)
        .action(clap::ArgAction::SetTrue)
}

/// `--home` where no session is read or written, hidden like [`unused_all`] (its value
/// still reaches the global flag, so it is typed as that one is).
pub fn unused_home() -> clap::Arg {
    clap::Arg::new("home")
        .long("home")
        .value_name("DIR")
        .value_parser(clap::value_parser!(PathBuf))
        .hide(true)
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    use super::Cli;

    /// Every example in every `--help` parses as the command line it shows.
    #[test]
    fn every_help_example_parses() {
        fn examples(command: &clap::Command, out: &mut Vec<String>) {
            if let Some(help) = command.get_after_help() {
                for line in help.to_string().lines() {
                    let line = line.trim();
                    if let Some(example) = line.strip_prefix("hotl") {
                        // The command line: before a comment (two spaces), a pipe or a redirect.
                        let example = example.split("  ").next().unwrap_or_default();
                        let example = example.split(['|', '>']).next().unwrap_or_default();
                        out.push(format!("hotl{example}"));
                    }
                }
            }
            for sub in command.get_subcommands() {
                examples(sub, out);
            }
        }
        let mut all = Vec::new();
        examples(&Cli::command(), &mut all);
        assert!(all.len() > 20, "{all:?}");
        for example in all {
            let words = split_words(&example);
            if let Err(e) = Cli::try_parse_from(&words) {
                panic!("{example}: {e}");
            }
        }
    }

    /// Words as a shell splits them: spaces, and quotes that group.
    fn split_words(line: &str) -> Vec<String> {
        let mut words = Vec::new();
        let (mut word, mut quote, mut any) = (String::new(), None, false);
        for c in line.chars() {
            match (quote, c) {
                (None, '"' | '\'') => {
                    quote = Some(c);
                    any = true;
                }
                (Some(q), c) if c == q => quote = None,
                (None, ' ') => {
                    if any {
                        words.push(std::mem::take(&mut word));
                        any = false;
                    }
                }
                (_, c) => {
                    word.push(c);
                    any = true;
                }
            }
        }
        if any {
            words.push(word);
        }
        words
    }
}
