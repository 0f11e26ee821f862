//! `hotl sandbox check` (what the sandbox enforces here, and a self-test) and `hotl sandbox
//! run -- CMD` (a command under the rules a session in this directory would have).

use std::ffi::OsString;
use std::io::Write;
use std::process::ExitCode;

use clap::{Args, Subcommand};

use crate::ctx::Ctx;
use crate::error::CliError;

/// `hotl sandbox ...`
#[derive(Debug, Subcommand)]
pub enum SandboxCommand {
    /// Print what the sandbox enforces on this machine and run a self-test (exit 0 when the
    /// rules are enforced and the test passes, 1 otherwise)
    Check(ModeArgs),
    /// Run a command under the rules a session here would have: hotl sandbox run -- CMD [ARGS]
    Run(RunArgs),
}

/// The mode to check or run in.
#[derive(Debug, Args)]
pub struct ModeArgs {
    /// read-only | workspace-write | off [default: [sandbox] mode, else workspace-write]
    #[arg(long, value_name = "MODE")]
    pub sandbox: Option<String>,
}

/// `hotl sandbox run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub mode: ModeArgs,
    /// The command and its arguments
    #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
    pub command: Vec<OsString>,
}

pub fn run(ctx: &Ctx, command: &SandboxCommand) -> Result<ExitCode, CliError> {
    let runtime = crate::ctx::runtime()?;
    runtime.block_on(async {
        match command {
            SandboxCommand::Check(args) => {
                let mode = crate::sandbox::parse_mode(args.sandbox.as_deref())?;
                let (report, enforced) = crate::sandbox::check(ctx, mode).await?;
                let mut out = std::io::stdout().lock();
                out.write_all(report.as_bytes())?;
                Ok(ExitCode::from(u8::from(!enforced)))
            }
            SandboxCommand::Run(args) => {
                let mode = crate::sandbox::parse_mode(args.mode.sandbox.as_deref())?;
                let (program, rest) = args
                    .command
                    .split_first()
                    .ok_or_else(|| CliError::usage("no command to run"))?;
                let status = crate::sandbox::run(ctx, mode, program, rest).await?;
                Ok(crate::sandbox::exit_code(status))
            }
        }
    })
}
