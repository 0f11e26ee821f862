//! Getting a session out to where it goes: written to a file as a page, Markdown or a log
//! ([`write()`]), or, sealed, handed to a share store: a `hotl share-server` ([`upload`]), a
//! secret gist through `gh` ([`gist`]), or the user's own command ([`by_command`]). The caller
//! picks the store and says what to tell the user; nothing here reads configuration.

use std::path::{Path, PathBuf};

use crate::redact::Report;
use crate::{Redactor, Snapshot};

/// What went wrong getting a session out: what to tell the user.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct DeliverError(pub String);

/// The result of this module's functions.
pub type Result<T, E = DeliverError> = std::result::Result<T, E>;

/// What an export is written as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// One self-contained page that works offline.
    Html,
    /// Markdown.
    Md,
    /// A hotl log that stands alone (`hotl sessions import` reads it back).
    Jsonl,
}

impl Format {
    /// The file extension it is written with.
    pub fn extension(self) -> &'static str {
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

    /// The file a session's export is written to when no name is given:
    /// `hotl-<id prefix>.<extension>`.
    pub fn default_name(self, id: &str) -> String {
        format!("hotl-{}.{}", &id[..id.len().min(10)], self.extension())
    }
}

/// An export written.
#[derive(Debug)]
pub struct Exported {
    /// Where.
    pub path: PathBuf,
    /// What trimming to the budget took out, a line each.
    pub trimmed: Vec<String>,
    /// What redaction replaced, by kind.
    pub redacted: Report,
}

/// An export made in memory: its bytes and what was done to them.
pub struct Rendered {
    /// The file's bytes.
    pub bytes: Vec<u8>,
    /// What trimming to the budget took out, a line each.
    pub trimmed: Vec<String>,
    /// What redaction replaced, by kind.
    pub redacted: Report,
}

/// `snapshot` as `format`, redacted by `redactor` when given, trimmed to `budget` bytes when
/// given (pages only).
pub fn render(
    mut snapshot: Snapshot,
    format: Format,
    redactor: Option<&Redactor>,
    budget: Option<usize>,
    now: &str,
) -> Result<Rendered> {
    match format {
        Format::Html => {
            let written = crate::export_html(snapshot, now, redactor, budget)
                .map_err(|e| DeliverError(e.to_string()))?;
            Ok(Rendered {
                bytes: written.bytes,
                trimmed: written.doc.trimmed,
                redacted: written.doc.redacted,
            })
        }
        Format::Md | Format::Jsonl => {
            let redacted = redactor
                .map(|r| r.snapshot(&mut snapshot))
                .unwrap_or_default();
            let text = if format == Format::Md {
                crate::md::render(&snapshot)
            } else {
                crate::standalone::with_blobs(crate::flattened_log(&snapshot), &snapshot)
            };
            Ok(Rendered {
                bytes: text.into_bytes(),
                trimmed: Vec::new(),
                redacted,
            })
        }
    }
}

/// Writes `snapshot` to `path` as `format` (atomically: a reader never sees half a file),
/// redacted by `redactor` when given, trimmed to `budget` bytes when given (pages only).
pub fn write(
    snapshot: Snapshot,
    path: &Path,
    format: Format,
    redactor: Option<&Redactor>,
    budget: Option<usize>,
    now: &str,
) -> Result<Exported> {
    let rendered = render(snapshot, format, redactor, budget, now)?;
    hotl_log::write_file_atomic(path, &rendered.bytes)
        .map_err(|e| DeliverError(format!("cannot write {}: {e}", path.display())))?;
    Ok(Exported {
        path: path.to_owned(),
        trimmed: rendered.trimmed,
        redacted: rendered.redacted,
    })
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

/// The largest sealed share a gist takes (raw gist reads stop at 10 MB; base64 adds a third).
pub const GIST_LIMIT: usize = 5_000_000;

/// Ids a share store gives: 10 to 64 of `A-Z a-z 0-9 _ -`.
pub fn valid_share_id(id: &str) -> bool {
    (10..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// How long a share server may take to take an upload and answer, unless `[share]
/// timeout_sec` says otherwise (a share is at most a megabyte).
pub const UPLOAD_TIMEOUT_SEC: u64 = 20;

/// How long connecting to a share server may take.
pub const CONNECT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Uploads a sealed share to the `hotl share-server` at `server` with `client` (whose timeouts
/// are [`CONNECT_TIMEOUT`] to connect and `timeout` after); the server's id for it.
pub async fn upload(
    client: &reqwest::Client,
    server: &str,
    sealed: &[u8],
    timeout: std::time::Duration,
) -> Result<String> {
    let url = format!("{server}/s");
    let sent = client
        .post(&url)
        .header("content-type", "application/octet-stream")
        .body(sealed.to_vec())
        .send()
        .await;
    let response = match sent {
        Ok(response) => response,
        // Connected, then nothing: the server is there but does not answer.
        Err(e) if e.is_timeout() && !e.is_connect() => {
            return Err(DeliverError(format!(
                "the share server at {url} took the connection but did not answer within {} s \
                 ([share] timeout_sec)",
                timeout.as_secs()
            )));
        }
        Err(e) => {
            return Err(DeliverError(format!(
                "cannot reach the share server at {url}: {e}"
            )));
        }
    };
    let status = response.status();
    let body = response.text().await.unwrap_or_default();
    if !status.is_success() {
        return Err(DeliverError(format!(
            "the share server refused the upload: HTTP {status}: {}",
            body.trim()
        )));
    }
    serde_json::from_str::<serde_json::Value>(&body)
        .ok()
        .and_then(|v| v["id"].as_str().map(str::to_owned))
        .filter(|id| valid_share_id(id))
        .ok_or_else(|| {
            DeliverError(format!(
                "the share server answered without a share id: {}",
                body.trim()
            ))
        })
}

/// Whether `gh` is there and logged in; why not, when it is not.
pub async fn gh_ready() -> std::result::Result<(), String> {
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

/// Pushes a sealed share as a secret gist through `gh`; the gist's (hex) id.
pub async fn gist(sealed: &[u8]) -> Result<String> {
    use base64::Engine as _;
    let dir = scratch("gist")?;
    let file = dir.path().join("session.hotlshare.txt");
    std::fs::write(
        &file,
        base64::engine::general_purpose::STANDARD.encode(sealed),
    )
    .map_err(|e| DeliverError(format!("cannot write {}: {e}", file.display())))?;
    let output = tokio::process::Command::new("gh")
        .args(["gist", "create", "--public=false"])
        .arg(&file)
        .output()
        .await
        .map_err(|e| DeliverError(format!("cannot run gh: {e}")))?;
    if !output.status.success() {
        return Err(DeliverError(format!(
            "gh gist create failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    stdout
        .lines()
        .rev()
        .find_map(|l| l.trim().rsplit('/').next().map(str::to_owned))
        .filter(|id| id.len() >= 20 && id.bytes().all(|b| b.is_ascii_hexdigit()))
        .ok_or_else(|| DeliverError(format!("gh printed no gist link: {}", stdout.trim())))
}

/// The user's own share command: given `snapshot` exported as a page, it prints the link. A
/// failure is an error; nothing else is tried. The page and its report come back with the
/// link.
pub async fn by_command(
    command: &str,
    snapshot: Snapshot,
    redactor: Option<&Redactor>,
    now: &str,
) -> Result<(String, Exported)> {
    let dir = scratch("share")?;
    let page = dir.path().join(format!("{}.html", snapshot.id));
    let exported = write(
        snapshot,
        &page,
        Format::Html,
        redactor,
        Some(crate::DEFAULT_BUDGET),
        now,
    )?;
    let output = tokio::process::Command::new(command)
        .arg(&exported.path)
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .map_err(|e| DeliverError(format!("cannot run the share command {command}: {e}")))?;
    if !output.status.success() {
        return Err(DeliverError(format!(
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
        .ok_or_else(|| DeliverError(format!("the share command {command} printed no link")))?;
    Ok((link, exported))
}

/// A private scratch directory, removed when dropped.
fn scratch(what: &str) -> Result<tempfile::TempDir> {
    tempfile::Builder::new()
        .prefix(&format!("hotl-{what}-"))
        .tempdir()
        .map_err(|e| DeliverError(format!("cannot make a scratch directory: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn share_ids_and_formats() {
        assert!(valid_share_id("AbC-_0123456"));
        assert!(!valid_share_id("short"));
        assert!(!valid_share_id("has/slash/in/it"));
        assert_eq!(Format::of_path(Path::new("a/b.markdown")), Some(Format::Md));
        assert_eq!(Format::of_path(Path::new("a/b.txt")), None);
        assert_eq!(
            Format::Jsonl.default_name("01ABCDEFGHIJK"),
            "hotl-01ABCDEFGH.jsonl"
        );
    }
}
