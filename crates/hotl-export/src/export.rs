//! Exporting: a snapshot written as one self-contained HTML file (within a size budget,
//! trimmed when over it), as Markdown, or as a JSONL log; and sharing: the same document,
//! redacted, trimmed to the store's limit, and sealed.

use base64::Engine as _;

use crate::doc::Document;
use crate::html::page;
use crate::html::transcript::Omit;
use crate::redact::{Redactor, Report};
use crate::seal::{self, Sealed};
use crate::snapshot::Snapshot;
use crate::trim::{self, TooLarge};

/// An export's default size budget.
pub const DEFAULT_BUDGET: usize = 50 * 1024 * 1024;

/// A share store's default limit (sealed bytes).
pub const SERVER_LIMIT: usize = 1_000_000;

/// What an export or share became.
pub struct Written {
    /// The document it holds (its `trimmed` and `redacted` say what was changed).
    pub doc: Document,
    /// The bytes to write (the page), or the sealed share.
    pub bytes: Vec<u8>,
    /// The share's key (shares only).
    pub key: Option<String>,
}

/// Why an export or share failed.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// It cannot fit its limit.
    #[error(transparent)]
    TooLarge(#[from] TooLarge),
    /// Sealing failed.
    #[error(transparent)]
    Seal(#[from] seal::SealError),
    /// Encoding the document failed.
    #[error("encoding the document failed: {0}")]
    Encode(#[from] serde_json::Error),
}

/// The page of a snapshot: redacted when a redactor is given, trimmed to `budget` when one is.
pub fn html(
    mut snapshot: Snapshot,
    exported_at: &str,
    redactor: Option<&Redactor>,
    budget: Option<usize>,
) -> Result<Written, ExportError> {
    let redacted = redactor
        .map(|r| r.snapshot(&mut snapshot))
        .unwrap_or_default();
    let mut omit = Omit::default();
    let mut trimmed = Vec::new();
    if let Some(budget) = budget {
        (omit, trimmed) = trim::fit(&mut snapshot, budget, |s, omit| {
            page_of(s, exported_at, &redacted, &[], omit).map_or(usize::MAX, |(p, _)| p.len())
        })?;
    }
    let (page, doc) = page_of(&snapshot, exported_at, &redacted, &trimmed, omit)?;
    Ok(Written {
        doc,
        bytes: page.into_bytes(),
        key: None,
    })
}

fn page_of(
    snapshot: &Snapshot,
    exported_at: &str,
    redacted: &Report,
    trimmed: &[String],
    omit: Omit,
) -> Result<(String, Document), ExportError> {
    let mut doc = Document::of(snapshot, exported_at);
    doc.redacted = redacted.clone();
    doc.trimmed = trimmed.to_vec();
    let body = page::body(snapshot, &doc, omit);
    let embedded =
        base64::engine::general_purpose::STANDARD.encode(seal::gzip(&serde_json::to_vec(&doc)?)?);
    let title = doc.session.heading(snapshot);
    Ok((page::export_page(&title, &body, &embedded), doc))
}

/// A sealed share of a snapshot: redacted (unless `redactor` is `None`), trimmed until the
/// sealed bytes fit `limit`, with the page body rendered inside.
pub fn share(
    mut snapshot: Snapshot,
    exported_at: &str,
    redactor: Option<&Redactor>,
    limit: usize,
) -> Result<Written, ExportError> {
    let redacted = redactor
        .map(|r| r.snapshot(&mut snapshot))
        .unwrap_or_default();
    let (omit, trimmed) = trim::fit(&mut snapshot, limit, |s, omit| {
        share_plain(s, exported_at, &redacted, &[], omit)
            .and_then(|(plain, _)| Ok(seal::gzip(&plain)?.len() + seal::IV_LEN + seal::TAG_LEN))
            .unwrap_or(usize::MAX)
    })?;
    let (plain, doc) = share_plain(&snapshot, exported_at, &redacted, &trimmed, omit)?;
    let Sealed { bytes, key } = seal::seal(&plain)?;
    if bytes.len() > limit {
        return Err(TooLarge {
            size: bytes.len(),
            limit,
        }
        .into());
    }
    Ok(Written {
        doc,
        bytes,
        key: Some(key),
    })
}

fn share_plain(
    snapshot: &Snapshot,
    exported_at: &str,
    redacted: &Report,
    trimmed: &[String],
    omit: Omit,
) -> Result<(Vec<u8>, Document), ExportError> {
    let mut doc = Document::of(snapshot, exported_at);
    doc.redacted = redacted.clone();
    doc.trimmed = trimmed.to_vec();
    doc.html = Some(page::body(snapshot, &doc, omit));
    let plain = serde_json::to_vec(&doc)?;
    doc.html = None;
    Ok((plain, doc))
}
