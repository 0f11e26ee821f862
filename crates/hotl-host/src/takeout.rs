//! Taking sessions out, for the commands and the consoles alike: a session gathered with its
//! spending priced, written as a page, Markdown or a log, or sealed and handed to a share
//! store (a `hotl share-server`, a secret gist through `gh`, or the user's own command).

use std::path::{Path, PathBuf};

use hotl_export::deliver::{self, Exported};
use hotl_export::redact::Report;
use hotl_export::{Economy, Redactor, Snapshot, Spend, TurnSpend};
use hotl_log::{Record, Store};

use crate::error::CliError;
use hotl_config::ShareConfig;

/// An export asked for.
pub struct ExportRequest {
    pub id: String,
    pub path: Option<PathBuf>,
    pub format: Option<deliver::Format>,
    pub redact: bool,
    /// Trim to fit this many bytes (`None`: no budget).
    pub budget: Option<usize>,
}

/// The session's snapshot, its spending priced with the table `file` configures.
pub fn snapshot(
    store: &Store,
    id: &str,
    file: hotl_config::FileConfig,
) -> Result<Snapshot, CliError> {
    let pricing = hotl_config::resolve(file, &hotl_config::Overrides::default())?.pricing;
    let price = |id: &str, records: &[Record], own_start: usize| {
        Some(economy(hotl_agent::stats(id, records, own_start, &pricing)))
    };
    Ok(Snapshot::load(store, id, &price)?)
}

fn economy(stats: hotl_agent::Stats) -> Economy {
    let spend = |s: &hotl_agent::Spent| Spend {
        requests: s.requests,
        input: s.input,
        cache_read: s.cache_read,
        cache_write: s.cache_write,
        output: s.output,
        cost: Some(s.cost),
        cache_hit: s.cache_hit,
    };
    Economy {
        turns: stats
            .turns
            .iter()
            .map(|t| TurnSpend {
                turn: t.turn,
                seq: t.seq,
                spend: spend(&t.spent),
                cache_broke: t.cache_broke,
            })
            .collect(),
        own: spend(&stats.own),
        children: Vec::new(),
        total: spend(&stats.own),
        unpriced: stats.unpriced,
    }
}

/// The redaction a share applies: the built-in shapes, this environment's secret-looking
/// variables, the configured secrets, and the home directory.
pub fn redactor(share: &ShareConfig) -> Redactor {
    share.redactor()
}

/// When the export was made (the store's clock, which `HOTL_NOW` pins).
fn now(store: &Store) -> String {
    hotl_log::format_ts(store.clock().now())
}

/// Writes an export of a session; never appends to its log.
pub fn export(store: &Store, cwd: &Path, req: &ExportRequest) -> Result<Exported, CliError> {
    let format = export_format(req);
    // Relative paths are the user's directory's: the printed path is whole. Without one, the
    // page goes to the data directory, not into the user's project.
    let path = match req.path.as_ref().map(|p| cwd.join(p)) {
        Some(path) if path.is_dir() => path.join(format.default_name(&req.id)),
        Some(path) => path,
        None => exports_dir(store)?.join(format.default_name(&req.id)),
    };
    let (snapshot, redactor) = prepare(store, req)?;
    deliver::write(
        snapshot,
        &path,
        format,
        redactor.as_ref(),
        req.budget,
        &now(store),
    )
    .map_err(|e| CliError::user(e.to_string()))
}

/// An export made in memory, for standard output (`req.path` is not used).
pub fn export_bytes(store: &Store, req: &ExportRequest) -> Result<deliver::Rendered, CliError> {
    let (snapshot, redactor) = prepare(store, req)?;
    deliver::render(
        snapshot,
        export_format(req),
        redactor.as_ref(),
        req.budget,
        &now(store),
    )
    .map_err(|e| CliError::user(e.to_string()))
}

/// The format asked for, else the path's, else a page.
pub fn export_format(req: &ExportRequest) -> deliver::Format {
    req.format
        .or_else(|| req.path.as_deref().and_then(deliver::Format::of_path))
        .unwrap_or(deliver::Format::Html)
}

/// The session's snapshot and the redactor the request asks for.
fn prepare(store: &Store, req: &ExportRequest) -> Result<(Snapshot, Option<Redactor>), CliError> {
    let file = hotl_config::load_file()?;
    let config = file.share.clone();
    let snapshot = snapshot(store, &req.id, file)?;
    Ok((snapshot, req.redact.then(|| redactor(&config))))
}

/// Where exports go when no path is given: `<home>/exports/`, made private if new.
pub fn exports_dir(store: &Store) -> Result<PathBuf, CliError> {
    let dir = store.home().join("exports");
    std::fs::create_dir_all(&dir)
        .map_err(|e| CliError::user(format!("cannot make {}: {e}", dir.display())))?;
    Ok(dir)
}

/// Writes an export of a log file read on its own (`hotl --export`): no session is opened.
pub fn export_file(
    store: &Store,
    cwd: &Path,
    log: &Path,
    out: Option<&Path>,
) -> Result<Exported, CliError> {
    let blobs = store.blobs();
    let snapshot = Snapshot::from_file(log, blobs.root().is_dir().then_some(&blobs))?;
    let format = out
        .and_then(deliver::Format::of_path)
        .unwrap_or(deliver::Format::Html);
    let path = match out {
        Some(path) => cwd.join(path),
        None => {
            let stem = log
                .file_stem()
                .map_or("session".into(), |s| s.to_string_lossy());
            exports_dir(store)?.join(format!("hotl-{stem}.{}", format.extension()))
        }
    };
    deliver::write(
        snapshot,
        &path,
        format,
        None,
        Some(hotl_export::DEFAULT_BUDGET),
        &now(store),
    )
    .map_err(|e| CliError::user(e.to_string()))
}

/// What an export's report says, a line each (trimming steps, redaction counts).
pub fn report_lines(trimmed: &[String], redacted: &Report) -> Vec<String> {
    deliver::report_lines(trimmed, redacted)
}

/// A share asked for.
pub struct ShareRequest {
    pub id: String,
    pub server: Option<String>,
    pub gist: bool,
    pub redact: bool,
    /// The store's limit for the sealed share (`None`: the store's default).
    pub limit: Option<usize>,
}

/// A share made.
pub struct Shared {
    pub link: String,
    pub trimmed: Vec<String>,
    pub redacted: Report,
    /// What the user should know (a fallback taken, redaction off).
    pub notices: Vec<String>,
}

/// Shares a session: redacted (unless asked not to), trimmed to the store's limit, sealed,
/// and stored; the link carries the key in its fragment.
pub async fn share(store: &Store, req: &ShareRequest) -> Result<Shared, CliError> {
    let file = hotl_config::load_file()?;
    let config = file.share.clone();
    let mut notices = Vec::new();
    if !req.redact {
        notices.push(
            "redaction is off: keys, tokens and paths in the session are in the share as they are"
                .to_owned(),
        );
    }
    let redactor = req.redact.then(|| redactor(&config));
    let snapshot = snapshot(store, &req.id, file)?;
    let now = now(store);
    if let Some(command) = &config.command {
        let (link, exported) = deliver::by_command(command, snapshot, redactor.as_ref(), &now)
            .await
            .map_err(|e| CliError::user(e.to_string()))?;
        return Ok(Shared {
            link,
            trimmed: exported.trimmed,
            redacted: exported.redacted,
            notices,
        });
    }
    let server = req
        .server
        .clone()
        .or_else(|| config.server.clone())
        .map(|s| s.trim_end_matches('/').to_owned());
    let mut use_gist = req.gist;
    if use_gist && let Err(why) = deliver::gh_ready().await {
        notices.push(format!("{why}: sharing through the server instead"));
        use_gist = false;
    }
    let Some(server) = server else {
        return Err(CliError::User {
            message: "no share server is configured".to_owned(),
            hints: vec![
                "run `hotl share-server --port 8080 --dir shares` on a host you trust, then pass --server URL or set [share] server in the config".to_owned(),
                "or set [share] command to a program that publishes the exported page".to_owned(),
            ],
        });
    };
    let limit = req.limit.unwrap_or(if use_gist {
        deliver::GIST_LIMIT
    } else {
        hotl_export::SERVER_LIMIT
    });
    let written = hotl_export::share(snapshot, &now, redactor.as_ref(), limit)
        .map_err(|e| CliError::user(e.to_string()))?;
    let key = written.key.clone().unwrap_or_default();
    let id = if use_gist {
        deliver::gist(&written.bytes).await
    } else {
        let timeout = std::time::Duration::from_secs(
            config
                .timeout_sec
                .unwrap_or(deliver::UPLOAD_TIMEOUT_SEC)
                .max(1),
        );
        deliver::upload(&share_client(timeout)?, &server, &written.bytes, timeout).await
    }
    .map_err(|e| CliError::user(e.to_string()))?;
    Ok(Shared {
        link: format!("{server}/s/{id}#{key}"),
        trimmed: written.doc.trimmed,
        redacted: written.doc.redacted,
        notices,
    })
}

/// The HTTP client a share is uploaded with: a connection within 10 s, then the upload and its
/// answer within `timeout`.
fn share_client(timeout: std::time::Duration) -> Result<reqwest::Client, CliError> {
    hotl_wire::install_tls();
    reqwest::Client::builder()
        .connect_timeout(deliver::CONNECT_TIMEOUT)
        .read_timeout(timeout)
        .timeout(deliver::CONNECT_TIMEOUT + timeout)
        .build()
        .map_err(|e| CliError::user(format!("cannot build an HTTP client: {e}")))
}

/// `/export [PATH]` from a console: what to say (the report, then the path).
pub fn export_here(
    ctx: &crate::ctx::Ctx,
    id: &str,
    path: Option<String>,
) -> Result<Vec<String>, CliError> {
    let exported = export(
        &ctx.store,
        Path::new(&ctx.cwd),
        &ExportRequest {
            id: id.to_owned(),
            path: path.map(|p| Path::new(&ctx.cwd).join(expand_home(&p))),
            format: None,
            redact: false,
            budget: Some(hotl_export::DEFAULT_BUDGET),
        },
    )?;
    let mut lines = report_lines(&exported.trimmed, &exported.redacted);
    lines.push(format!("exported to {}", exported.path.display()));
    Ok(lines)
}

/// `/share` from a console: what to say (notices, the report, then the link).
pub async fn share_here(ctx: &crate::ctx::Ctx, id: &str) -> Result<Vec<String>, CliError> {
    let shared = share(
        &ctx.store,
        &ShareRequest {
            id: id.to_owned(),
            server: None,
            gist: false,
            redact: true,
            limit: None,
        },
    )
    .await?;
    let mut lines: Vec<String> = shared
        .notices
        .iter()
        .map(|n| format!("warning: {n}"))
        .collect();
    lines.extend(report_lines(&shared.trimmed, &shared.redacted));
    lines.push(format!("shared: {}", shared.link));
    Ok(lines)
}

/// `~/x` as the home's `x`.
fn expand_home(path: &str) -> PathBuf {
    match (path.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => PathBuf::from(home).join(rest),
        _ => PathBuf::from(path),
    }
}
