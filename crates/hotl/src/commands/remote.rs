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
    #[arg(long, value_parser = ["turn", "manual"])]
    pub publish: Option<String>,
    /// How long a tree's lease lasts unless renewed, in seconds [default: 60]
    #[arg(long, value_name = "SECONDS")]
    pub lease_ttl_sec: Option<u64>,
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
        RemoteCommand::Check(args) => check(ctx, args),
    }
}

fn add(ctx: &Ctx, args: &AddArgs) -> Result<ExitCode, CliError> {
    let mut cfg = hotl_remote::RemoteConfig::new(&args.url);
    cfg.endpoint.clone_from(&args.endpoint);
    // The URL is read now, so a typo is caught here rather than at the first publish.
    hotl_remote::Bucket::open(&cfg, None)?;
    if args.encrypt && args.key_file.is_none() && std::env::var_os("HOTL_REMOTE_KEY").is_none() {
        return Err(CliError::usage(
            "--encrypt needs a key: --key-file FILE (head -c 32 /dev/urandom > FILE; chmod 600 FILE) or HOTL_REMOTE_KEY",
        ));
    }
    if let Some(file) = &args.key_file {
        hotl_remote::read_key_file(file)?;
    }
    let (path, mut doc) = crate::commands::mcp::document()?;
    let mut table = toml_edit::Table::new();
    table["name"] = toml_edit::value(args.name.as_str());
    table["url"] = toml_edit::value(args.url.as_str());
    let optional = [
        ("endpoint", args.endpoint.clone()),
        ("region", args.region.clone()),
        ("publish", args.publish.clone()),
        (
            "key_file",
            args.key_file.as_ref().map(|p| p.display().to_string()),
        ),
    ];
    for (key, value) in optional {
        if let Some(value) = value {
            table[key] = toml_edit::value(value);
        }
    }
    for (key, on) in [
        ("allow_http", args.allow_http),
        ("encrypt", args.encrypt),
        ("redact", args.redact),
    ] {
        if on {
            table[key] = toml_edit::value(true);
        }
    }
    if let Some(ttl) = args.lease_ttl_sec {
        table["lease_ttl_sec"] = toml_edit::value(i64::try_from(ttl).unwrap_or(i64::MAX));
    }
    let replaced = doc.contains_key("remote");
    doc.insert("remote", toml_edit::Item::Table(table));
    crate::commands::mcp::save(&path, &doc)?;
    let mut out = ctx.out();
    writeln!(
        out,
        "{} the remote {} ({}) in {}",
        if replaced {
            "replaced [remote] with"
        } else {
            "added"
        },
        args.name,
        args.url,
        path.display()
    )?;
    writeln!(out, "`hotl remote check` probes it")?;
    flush(out)?;
    Ok(ExitCode::SUCCESS)
}

fn check(ctx: &Ctx, args: &CheckArgs) -> Result<ExitCode, CliError> {
    let remote = crate::remote::required(ctx)?;
    let report = crate::remote::block_on(|| remote.check())??;
    let mut out = ctx.out();
    if args.json {
        let mut json = serde_json::to_value(&report)?;
        json["ok"] = serde_json::json!(report.ok());
        json["name"] = serde_json::json!(remote.config().name);
        serde_json::to_writer_pretty(&mut out, &json)?;
        writeln!(out)?;
    } else {
        writeln!(out, "{} ({})", remote.config().label(), report.url)?;
        for probe in &report.probes {
            let mark = if probe.ok { "ok  " } else { "FAIL" };
            writeln!(out, "  {mark} {:<13} {}", probe.name, probe.detail)?;
        }
        let on = |b: bool| if b { "on" } else { "off" };
        writeln!(
            out,
            "  encrypt: {}   redact: {}",
            on(report.encrypt),
            on(report.redact)
        )?;
        if let Some(skew) = report.skew_ms {
            writeln!(out, "  this machine's clock is {skew} ms from the store's")?;
        }
        match report.read_only_because() {
            None => writeln!(out, "every probe held: sessions are published here")?,
            Some(why) => writeln!(
                out,
                "hotl uses this store read-only (pull, list, show), because {why}"
            )?,
        }
    }
    flush(out)?;
    Ok(if report.ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
