//! `hotl share-server`: the store behind encrypted shares (`hotl-share-server`): sealed blobs
//! it cannot read, and the viewer page that opens them in the browser.

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use crate::ctx::Ctx;
use crate::error::CliError;

/// Serve encrypted shares: stores sealed blobs and the viewer that opens them
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  hotl share-server --port 8080 --dir /var/lib/hotl-shares\n  hotl share-server --port 0 --dir shares --max-bytes 5000000\n\nThen: hotl sessions share @last --server http://HOST:8080"
)]
pub struct ShareServerArgs {
    /// The port to listen on (0: any free one; the address is printed)
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Where sealed shares are kept
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// The largest share accepted, in bytes
    #[arg(long, value_name = "N", default_value_t = hotl_export::SERVER_LIMIT)]
    pub max_bytes: usize,
    /// The address to listen on
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1")]
    pub bind: std::net::IpAddr,
    /// Where the viewer reads gists from, for shares stored as gists
    #[arg(
        long,
        value_name = "URL",
        default_value = "https://api.github.com/gists"
    )]
    pub gist_api: String,
    /// Append every request (line, headers, body) to this file
    #[arg(long, value_name = "FILE")]
    pub request_log: Option<PathBuf>,
    /// Uploads one client address may make a minute (0: no limit)
    #[arg(long, value_name = "N", default_value_t = 30)]
    pub uploads_per_minute: u32,
    /// Bytes all kept shares may take together (0: no limit)
    #[arg(long, value_name = "N", default_value_t = 1 << 30)]
    pub max_total_bytes: u64,
    /// How long a share is kept (e.g. 30d, 12h; 0: for ever)
    #[arg(long, value_name = "AGE", default_value = "30d", value_parser = parse_age)]
    pub expire_after: std::time::Duration,
}

fn parse_age(text: &str) -> Result<std::time::Duration, String> {
    if text == "0" {
        return Ok(std::time::Duration::ZERO);
    }
    humantime::parse_duration(text).map_err(|e| format!("{e} (try 30d, 12h or 0)"))
}

pub fn run(_ctx: &Ctx, args: &ShareServerArgs) -> Result<ExitCode, CliError> {
    let config = hotl_share_server::Config {
        dir: args.dir.clone(),
        max_bytes: args.max_bytes,
        gist_api: args.gist_api.clone(),
        request_log: args.request_log.clone(),
        limits: hotl_share_server::Limits {
            uploads_per_minute: args.uploads_per_minute,
            max_total_bytes: args.max_total_bytes,
            expire_after: (!args.expire_after.is_zero()).then_some(args.expire_after),
        },
    };
    let runtime = crate::ctx::runtime()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(SocketAddr::new(args.bind, args.port))
            .await
            .map_err(|e| {
                CliError::user(format!("cannot listen on {}:{}: {e}", args.bind, args.port))
            })?;
        println!(
            "hotl share-server listening on http://{}",
            listener.local_addr()?
        );
        let _ = std::io::stdout().flush();
        let shutdown = async {
            let _ = tokio::signal::ctrl_c().await;
        };
        hotl_share_server::serve(config, listener, shutdown)
            .await
            .map_err(|e| CliError::user(e.to_string()))
    })?;
    Ok(ExitCode::SUCCESS)
}
