//! Taking sessions out, for the commands and the consoles alike: a session gathered with its
//! spending priced, written as a page, Markdown or a log, or sealed and handed to a share
//! store (a `hotl share-server`, a secret gist through `gh`, or the user's own command).

use std::path::{Path, PathBuf};

use hotl_export::redact::Report;
use hotl_export::{Economy, Redactor, Snapshot, Spend, TurnSpend};
use hotl_log::{Record, Store};

use crate::config::ShareConfig;
use crate::error::CliError;

/// What an export is written as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// One self-contained page that works offline
    Html,
    /// Markdown
    Md,
    /// A hotl log that stands alone (`hotl sessions import` reads it back)
    Jsonl,
}

impl Format {
    fn extension(self) -> &'static str {
        match self {
            Format::Html => "html",
            Format::Md => "md",
            Format::Jsonl => "jsonl",
        }
    }

    /// The format a path's extension names.
    pub fn of_path(path: &Path) -> Option<Format> {
        match path.extension()?.to_str()? {
            "html" | "htm" => Some(Format::Html),
            "md" | "markdown" => Some(Format::Md),
            "jsonl" => Some(Format::Jsonl),
            _ => None,
        }
    }
}

/// An export asked for.
pub struct ExportRequest {
    pub id: String,
    pub path: Option<PathBuf>,
    pub format: Option<Format>,
    pub redact: bool,
    /// Trim to fit this many bytes (`None`: no budget).
    pub budget: Option<usize>,
}

/// An export written.
pub struct Exported {
    pub path: PathBuf,
    pub trimmed: Vec<String>,
    pub redacted: Report,
}

/// The session's snapshot, its spending priced with the table `file` configures.
pub fn snapshot(
    store: &Store,
    id: &str,
    file: crate::config::FileConfig,
) -> Result<Snapshot, CliError> {
    let pricing = crate::config::resolve(file, &crate::config::Overrides::default())?.pricing;
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
    let home = std::env::var("HOME").ok().filter(|h| !h.is_empty());
    Redactor::new(std::env::vars(), &share.secrets, home)
}

/// When the export was made (the store's clock, which `HOTL_NOW` pins).
fn now(store: &Store) -> String {
    hotl_log::format_ts(store.clock().now())
}

/// Writes an export of a session; never appends to its log.
pub fn export(store: &Store, cwd: &Path, req: &ExportRequest) -> Result<Exported, CliError> {
    let format = req
        .format
        .or_else(|| req.path.as_deref().and_then(Format::of_path))
        .unwrap_or(Format::Html);
    // Relative paths are the user's directory's: the printed path is whole.
    let path = match req.path.as_ref().map(|p| cwd.join(p)) {
        Some(path) if path.is_dir() => path.join(default_name(&req.id, format)),
        Some(path) => path,
        None => cwd.join(default_name(&req.id, format)),
    };
    let file = crate::config::load_file()?;
    let config = file.share.clone();
    let snapshot = snapshot(store, &req.id, file)?;
    let redactor = req.redact.then(|| redactor(&config));
    write_export(
        snapshot,
        &path,
        format,
        redactor.as_ref(),
        req.budget,
        &now(store),
    )
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
    let format = out.and_then(Format::of_path).unwrap_or(Format::Html);
    let path = match out {
        Some(path) => cwd.join(path),
        None => {
            let stem = log
                .file_stem()
                .map_or("session".into(), |s| s.to_string_lossy());
            cwd.join(format!("hotl-{stem}.{}", format.extension()))
        }
    };
    write_export(
        snapshot,
        &path,
        format,
        None,
        Some(hotl_export::DEFAULT_BUDGET),
        &now(store),
    )
}

fn write_export(
    snapshot: Snapshot,
    path: &Path,
    format: Format,
    redactor: Option<&Redactor>,
    budget: Option<usize>,
    now: &str,
) -> Result<Exported, CliError> {
    let mut snapshot = snapshot;
    let (bytes, trimmed, redacted) = match format {
        Format::Html => {
            let written = hotl_export::export_html(snapshot, now, redactor, budget)
                .map_err(|e| CliError::user(e.to_string()))?;
            (written.bytes, written.doc.trimmed, written.doc.redacted)
        }
        Format::Md => {
            let redacted = redactor
                .map(|r| r.snapshot(&mut snapshot))
                .unwrap_or_default();
            (
                hotl_export::md::render(&snapshot).into_bytes(),
                Vec::new(),
                redacted,
            )
        }
        Format::Jsonl => {
            let redacted = redactor
                .map(|r| r.snapshot(&mut snapshot))
                .unwrap_or_default();
            (
                hotl_export::flattened_log(&snapshot).into_bytes(),
                Vec::new(),
                redacted,
            )
        }
    };
    write_atomic(path, &bytes)?;
    Ok(Exported {
        path: path.to_owned(),
        trimmed,
        redacted,
    })
}

fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        path.file_name()
            .map_or("export".into(), |n| n.to_string_lossy()),
        std::process::id()
    ));
    std::fs::write(&tmp, bytes)
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            CliError::user(format!("cannot write {}: {e}", path.display()))
        })
}

fn default_name(id: &str, format: Format) -> String {
    format!("hotl-{}.{}", &id[..id.len().min(10)], format.extension())
}

/// What an export's report says, a line each (trimming steps, redaction counts).
pub fn report_lines(trimmed: &[String], redacted: &Report) -> Vec<String> {
    let mut lines: Vec<String> = trimmed.iter().map(|t| format!("trimmed: {t}")).collect();
    if !redacted.is_empty() {
        let counts: Vec<String> = redacted.iter().map(|(k, n)| format!("{n} {k}")).collect();
        lines.push(format!("redacted: {}", counts.join(", ")));
    }
    lines
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

/// The largest sealed share a gist takes (raw gist reads stop at 10 MB; base64 adds a third).
const GIST_LIMIT: usize = 5_000_000;

/// Shares a session: redacted (unless asked not to), trimmed to the store's limit, sealed,
/// and stored; the link carries the key in its fragment.
pub async fn share(store: &Store, req: &ShareRequest) -> Result<Shared, CliError> {
    let file = crate::config::load_file()?;
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
        return share_by_command(command, snapshot, redactor.as_ref(), &now, notices).await;
    }
    let server = req
        .server
        .clone()
        .or_else(|| config.server.clone())
        .map(|s| s.trim_end_matches('/').to_owned());
    let mut use_gist = req.gist;
    if use_gist && let Err(why) = gh_ready().await {
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
        GIST_LIMIT
    } else {
        hotl_export::SERVER_LIMIT
    });
    let written = hotl_export::share(snapshot, &now, redactor.as_ref(), limit)
        .map_err(|e| CliError::user(e.to_string()))?;
    let key = written.key.clone().unwrap_or_default();
    let id = if use_gist {
        gist(&written.bytes).await?
    } else {
        upload(&server, &written.bytes).await?
    };
    Ok(Shared {
        link: format!("{server}/s/{id}#{key}"),
        trimmed: written.doc.trimmed,
        redacted: written.doc.redacted,
        notices,
    })
}

/// Uploads a sealed share; the server's id for it.
async fn upload(server: &str, sealed: &[u8]) -> Result<String, CliError> {
    hotl_wire::install_tls();
    let client = reqwest::Client::builder()
        .connect_timeout(std::time::Duration::from_secs(15))
        .timeout(std::time::Duration::from_secs(120))
        .build()
        .map_err(|e| CliError::user(format!("cannot build an HTTP client: {e}")))?;
    let url = format!("{server}/s");
    let response = client
        .post(&url)
        .header("content-type", "application/octet-stream")
        .body(sealed.to_vec())
        .send()
        .await
        .map_err(|e| CliError::user(format!("cannot reach the share server at {url}: {e}")))?;
    let status = response.status();
    let body = response.text().await.unwrap_or_default();
    if !status.is_success() {
        return Err(CliError::user(format!(
            "the share server refused the upload: HTTP {status}: {}",
            body.trim()
        )));
    }
    let id = serde_json::from_str::<serde_json::Value>(&body)
        .ok()
        .and_then(|v| v["id"].as_str().map(str::to_owned))
        .filter(|id| valid_id(id))
        .ok_or_else(|| {
            CliError::user(format!(
                "the share server answered without a share id: {}",
                body.trim()
            ))
        })?;
    Ok(id)
}

/// Ids a share store gives: 10 to 64 of `A-Z a-z 0-9 _ -`.
pub fn valid_id(id: &str) -> bool {
    (10..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Whether `gh` is there and logged in.
async fn gh_ready() -> Result<(), String> {
    match tokio::process::Command::new("gh")
        .args(["auth", "status"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .await
    {
        Ok(status) if status.success() => Ok(()),
        Ok(_) => Err("gh is not logged in (gh auth login)".to_owned()),
        Err(_) => Err("gh is not installed".to_owned()),
    }
}

/// Pushes a sealed share as a secret gist; the gist's (hex) id.
async fn gist(sealed: &[u8]) -> Result<String, CliError> {
    use base64::Engine as _;
    let dir = std::env::temp_dir().join(format!("hotl-gist-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let file = dir.join("session.hotlshare.txt");
    std::fs::write(
        &file,
        base64::engine::general_purpose::STANDARD.encode(sealed),
    )?;
    let output = tokio::process::Command::new("gh")
        .args(["gist", "create", "--public=false"])
        .arg(&file)
        .output()
        .await;
    let _ = std::fs::remove_dir_all(&dir);
    let output = output.map_err(|e| CliError::user(format!("cannot run gh: {e}")))?;
    if !output.status.success() {
        return Err(CliError::user(format!(
            "gh gist create failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let id = stdout
        .lines()
        .rev()
        .find_map(|l| l.trim().rsplit('/').next().map(str::to_owned))
        .filter(|id| id.len() >= 20 && id.bytes().all(|b| b.is_ascii_hexdigit()))
        .ok_or_else(|| CliError::user(format!("gh printed no gist link: {}", stdout.trim())))?;
    Ok(id)
}

/// The user's own share command: given the exported page, it prints the link. A failure is
/// an error; nothing else is tried.
async fn share_by_command(
    command: &str,
    snapshot: Snapshot,
    redactor: Option<&Redactor>,
    now: &str,
    notices: Vec<String>,
) -> Result<Shared, CliError> {
    let dir = std::env::temp_dir().join(format!("hotl-share-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let page = dir.join(format!("{}.html", snapshot.id));
    let exported = write_export(
        snapshot,
        &page,
        Format::Html,
        redactor,
        Some(hotl_export::DEFAULT_BUDGET),
        now,
    );
    let result = match exported {
        Ok(exported) => tokio::process::Command::new(command)
            .arg(&exported.path)
            .stdin(std::process::Stdio::null())
            .output()
            .await
            .map(|o| (o, exported))
            .map_err(|e| CliError::user(format!("cannot run the share command {command}: {e}"))),
        Err(e) => Err(e),
    };
    let _ = std::fs::remove_dir_all(&dir);
    let (output, exported) = result?;
    if !output.status.success() {
        return Err(CliError::user(format!(
            "the share command {command} failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    let link = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(str::to_owned)
        .ok_or_else(|| CliError::user(format!("the share command {command} printed no link")))?;
    Ok(Shared {
        link,
        trimmed: exported.trimmed,
        redacted: exported.redacted,
        notices,
    })
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
