//! Command dispatch: one module per command group, one file per verb.

pub mod acp;
pub mod agents;
pub mod ask;
pub mod compact;
pub mod completions;
pub mod config;
pub mod debug;
pub mod fold;
pub mod gc;
pub mod mcp;
pub mod oneshot;
pub mod recall;
pub mod remote;
pub mod run;
pub mod sandbox;
pub mod search;
pub mod sessions;
pub mod share_server;
pub mod stats;

use std::process::ExitCode;

use crate::cli::{Command, DebugCommand, SessionsCommand};
use crate::ctx::Ctx;
use crate::error::CliError;

/// Runs a parsed command.
pub fn run(ctx: &Ctx, command: Option<Command>, args: &run::RunArgs) -> Result<ExitCode, CliError> {
    let Some(command) = command else {
        return run::run(ctx, args, None);
    };
    match command {
        Command::Resume(resume) => {
            let target = resume.session.clone().unwrap_or_default();
            run::run(ctx, &resume.merged(args), Some(target))
        }
        Command::Sandbox(cmd) => sandbox::run(ctx, &cmd),
        Command::Search(args) => search::run(ctx, &args),
        Command::Sessions(cmd) => match cmd {
            SessionsCommand::List(args) => sessions::list::run(ctx, &args),
            SessionsCommand::Show(args) => sessions::show::run(ctx, &args),
            SessionsCommand::Dump(args) => sessions::dump::run(ctx, &args),
            SessionsCommand::Import(args) => sessions::import::run(ctx, &args),
            SessionsCommand::Export(args) => sessions::export::run(ctx, &args),
            SessionsCommand::Share(args) => sessions::share::run(ctx, &args),
            SessionsCommand::Fork(args) => sessions::fork::run(ctx, &args),
            SessionsCommand::Rename(args) => sessions::rename::run(ctx, &args),
            SessionsCommand::Revert(args) => sessions::revert::run(ctx, &args),
            SessionsCommand::Clear(args) => sessions::clear::run(ctx, &args),
            SessionsCommand::Drop(args) => sessions::drop::run(ctx, &args),
            SessionsCommand::Check(args) => sessions::check::run(ctx, &args),
            SessionsCommand::Push(args) => sessions::sync::push(ctx, &args),
            SessionsCommand::Pull(args) => sessions::sync::pull(ctx, &args),
        },
        Command::Gc(args) => gc::run(ctx, &args),
        Command::Fold(mut fold_args) => {
            fold_args.model_flags = fold_args.model_flags.merged(&args.model_flags);
            fold::run(ctx, &fold_args)
        }
        Command::Ask(mut ask_args) => {
            // Provider flags given before `ask` count too.
            ask_args.model_flags = ask_args.model_flags.merged(&args.model_flags);
            ask::run(ctx, &ask_args)
        }
        Command::Compact(mut compact_args) => {
            compact_args.model_flags = compact_args.model_flags.merged(&args.model_flags);
            compact::run(ctx, &compact_args)
        }
        Command::Recall(args) => recall::run(ctx, &args),
        Command::Stats(args) => stats::run(ctx, &args),
        Command::Config(mut config_args) => {
            config_args.model_flags = config_args.model_flags.merged(&args.model_flags);
            config::run(ctx, &config_args)
        }
        Command::Completions(args) => completions::run(ctx, &args),
        Command::Mcp(command) => mcp::run(ctx, &command),
        Command::Remote(command) => remote::run(ctx, &command),
        Command::Agents(command) => agents::run(ctx, &command),
        Command::Man => completions::man(ctx),
        Command::Acp(mut acp_args) => {
            acp_args.model_flags = acp_args.model_flags.merged(&args.model_flags);
            acp::run(ctx, &acp_args)
        }
        Command::ShareServer(args) => share_server::run(ctx, &args),
        Command::Debug(DebugCommand::Decode(args)) => debug::decode::run(ctx, &args),
    }
}
