//! `hotl completions SHELL` and `hotl man`: what clap knows of the command line, as a shell
//! completion script and as a man page.

use std::io::Write;
use std::process::ExitCode;

use clap::{Args, CommandFactory};
use clap_complete::Shell;

use crate::cli::Cli;
use crate::ctx::{Ctx, flush};
use crate::error::CliError;

/// Print a shell completion script
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    hotl completions bash > ~/.local/share/bash-completion/completions/hotl\n  \
    hotl completions zsh > ~/.zfunc/_hotl      (with fpath+=~/.zfunc before compinit)\n  \
    hotl completions fish > ~/.config/fish/completions/hotl.fish")]
pub struct CompletionsArgs {
    /// bash, zsh, fish, elvish or powershell
    pub shell: Shell,
}

pub fn run(ctx: &Ctx, args: &CompletionsArgs) -> Result<ExitCode, CliError> {
    // Into memory first: the generator panics on a write error (a closed pipe), and a closed
    // pipe is not an error.
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "hotl", &mut script);
    let mut out = ctx.out();
    out.write_all(&script)?;
    flush(out)?;
    Ok(ExitCode::SUCCESS)
}

/// The man page, in roff.
pub fn man(ctx: &Ctx) -> Result<ExitCode, CliError> {
    let mut page = Vec::new();
    clap_mangen::Man::new(Cli::command()).render(&mut page)?;
    let mut out = ctx.out();
    out.write_all(&page)?;
    flush(out)?;
    Ok(ExitCode::SUCCESS)
}
