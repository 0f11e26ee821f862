//! `hotl config`: the configuration a run would use, each value with where it came from (a
//! flag, the environment, the config file, or hotl's default), and `hotl config path`.

use std::io::Write;
use std::process::ExitCode;

use crate::commands::run::ProviderFlags;
use crate::ctx::{Ctx, flush};
use crate::error::CliError;
use clap::{Args, Subcommand};
use hotl_config as config;

/// Show the effective configuration and where each value comes from
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    hotl config                      every setting, its value and its source\n  \
    hotl --model gpt-5 config        what a run with that flag would use\n  \
    hotl config --json               the same as JSON\n  \
    hotl config path                 where the config file is (or would be)")]
pub struct ConfigArgs {
    #[command(subcommand)]
    pub what: Option<ConfigWhat>,
    /// Print a JSON array of {key, value, source}
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub model_flags: ProviderFlags,
}

/// What of the configuration to print.
#[derive(Debug, Subcommand)]
pub enum ConfigWhat {
    /// Print the config file's path (whether or not it exists)
    Path,
}

pub fn run(ctx: &Ctx, args: &ConfigArgs) -> Result<ExitCode, CliError> {
    let path = config::config_path();
    let mut out = ctx.out();
    if let Some(ConfigWhat::Path) = args.what {
        let Some(path) = path else {
            return Err(CliError::user(
                "no config path: neither XDG_CONFIG_HOME nor HOME is set",
            ));
        };
        writeln!(out, "{}", path.display())?;
        flush(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    let file = config::load_file()?;
    let settings = config::explain(&file, path.as_deref(), &args.model_flags.overrides())?;
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&settings)?)?;
    } else {
        let width = settings.iter().map(|s| s.key.len()).max().unwrap_or(0);
        let value_width = settings
            .iter()
            .map(|s| s.value.chars().count())
            .max()
            .unwrap_or(0)
            .min(40);
        for s in &settings {
            writeln!(
                out,
                "{:width$}  {:value_width$}  ({})",
                s.key, s.value, s.source
            )?;
        }
    }
    flush(out)?;
    Ok(ExitCode::SUCCESS)
}
