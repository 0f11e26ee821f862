//! `hotl remote`: the object store sessions are published to. `add` writes `[remote]` into
//! config.toml; `check` probes that the store can hold leases.

use std::io::Write;
use std::process::ExitCode;

use clap::{Args, Subcommand};

use crate::ctx::{Ctx, flush};
use crate::error::CliError;

/// `hotl remote ...`
#[derive(Debug, Subcommand)]
pub enum RemoteCommand {
    /// Set the remote store in config.toml ([remote]): hotl remote add NAME URL
    Add(AddArgs),
    /// Probe the remote store: list, write, read, and refuse a second create and a stale
    /// update (exit 1 when a probe fails: the store is then used read-only)
    Check(CheckArgs),
}

/// Set the remote store sessions are published to and pulled from
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  hotl remote add team s3://my-bucket/hotl\n  hotl remote add local s3://sessions --endpoint http://127.0.0.1:9000 --allow-http\n  hotl remote add private gs://my-bucket/hotl --encrypt --key-file ~/.config/hotl/remote.key"
)]
pub struct AddArgs {
    /// The name listings show
    pub name: String,
    /// s3://bucket/prefix, gs://bucket/prefix, az://container/prefix or file:///dir
    pub url: String,
    /// An S3-compatible server's endpoint (MinIO, R2, a local server)
    #[arg(long)]
    pub endpoint: Option<String>,
    /// The S3 region [default: $AWS_REGION, else us-east-1]
    #[arg(long)]
    pub region: Option<String>,
    /// Allow a plain http:// endpoint
    #[arg(long)]
    pub allow_http: bool,
    /// Seal everything published with AES-256-GCM (key from --key-file or HOTL_REMOTE_KEY)
    #[arg(long)]
    pub encrypt: bool,
    /// The key's file: 32 raw bytes (head -c 32 /dev/urandom), 64 hex characters or base64
    #[arg(long, value_name = "FILE")]
    pub key_file: Option<std::path::PathBuf>,
    /// Redact what is published as a share is redacted
    #[arg(long)]
    pub redact: bool,
    /// When to publish: turn (every turn's end, in the background) or manual (push only)
    #[arg(long, default_value = "turn")]
    pub publish: hotl_remote::Publish,
    /// How long a tree's lease lasts unless renewed, in seconds
    #[arg(long, value_name = "SECONDS", default_value_t = hotl_remote::DEFAULT_LEASE_TTL_SEC)]
    pub lease_ttl_sec: u64,
}

/// Probe the remote store
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  hotl remote check\n  hotl remote check --json")]
pub struct CheckArgs {
    /// One JSON object (schema: docs/json.md)
    #[arg(long)]
    pub json: bool,
}

pub fn run(ctx: &Ctx, command: &RemoteCommand) -> Result<ExitCode, CliError> {
    match command {
        RemoteCommand::Add(args) => add(ctx, args),
        RemoteCommand::Check(args) => {
            crate::remote::report(ctx, args.json, |r| async move { r.checked().await })
        }
    }
}

fn add(ctx: &Ctx, args: &AddArgs) -> Result<ExitCode, CliError> {
    let cfg = hotl_remote::RemoteConfig {
        name: Some(args.name.clone()),
        endpoint: args.endpoint.clone(),
        region: args.region.clone(),
        allow_http: args.allow_http,
        lease_ttl_sec: args.lease_ttl_sec,
        publish: args.publish,
        encrypt: args.encrypt,
        key_file: args.key_file.clone(),
        redact: args.redact,
        ..hotl_remote::RemoteConfig::new(&args.url)
    };
    let mut out = ctx.out();
    write!(out, "{}", hotl_config::add_remote(&cfg)?)?;
    flush(out)?;
    Ok(ExitCode::SUCCESS)
}
