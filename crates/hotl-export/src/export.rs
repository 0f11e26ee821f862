//! Exporting: a snapshot written as one self-contained HTML file (within a size budget,
//! trimmed when over it), as Markdown, or as a JSONL log; and sharing: the same document,
//! redacted, trimmed to the store's limit, and sealed.

use base64::Engine as _;

use crate::doc::{Document, text_bytes};
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
    let Some(budget) = budget else {
        let (page, doc) = page_of(
            &snapshot,
            exported_at,
            &redacted,
            &[],
            Omit::default(),
            None,
        )?;
        return Ok(Written {
            doc,
            bytes: page.into_bytes(),
            key: None,
        });
    };
    // The last page rendered is the one that fit: kept, not rendered again.
    let mut last: Option<(String, Document)> = None;
    let (omit, trimmed) = trim::fit(&mut snapshot, budget, |s, omit, steps| {
        // Text already over the budget cannot render under it: no need to render it.
        let floor = text_bytes(s);
        if floor > budget {
            return floor;
        }
        match page_of(s, exported_at, &redacted, steps, omit, Some(budget)) {
            Ok((page, doc)) => {
                let len = page.len();
                last = Some((page, doc));
                len
            }
            Err(_) => usize::MAX,
        }
    })?;
    let (page, doc) = match last {
        Some(fitted) => fitted,
        None => page_of(
            &snapshot,
            exported_at,
            &redacted,
            &trimmed,
            omit,
            Some(budget),
        )?,
    };
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
    budget: Option<usize>,
) -> Result<(String, Document), ExportError> {
    // The log rides along for "download log" while it is a small part of what the page may
    // weigh; past that, the page says where to get it (and it is not encoded at all when its
    // text alone is over).
    let mut doc = match budget {
        Some(budget) if text_bytes(snapshot) > budget / 4 => {
            Document::without_log(snapshot, exported_at)
        }
        _ => Document::of(snapshot, exported_at),
    };
    doc.redacted = redacted.clone();
    doc.trimmed = trimmed.to_vec();
    if let Some(budget) = budget
        && doc.log.len() > budget / 4
    {
        doc.log = String::new();
        doc.log_left_out = Some(
            "the log is too large to embed in this page: hotl sessions export --format jsonl writes it"
                .to_owned(),
        );
    }
    let (body, rest) = page::body(snapshot, &doc, omit);
    doc.rest = rest;
    let embedded = base64::engine::general_purpose::STANDARD
        .encode(seal::gzip_fast(&serde_json::to_vec(&doc)?)?);
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
    let mut last: Option<(Vec<u8>, Document)> = None;
    let (omit, trimmed) = trim::fit(&mut snapshot, limit, |s, omit, steps| {
        // gzip shrinks text at most about tenfold: text ten times over the limit cannot fit.
        let floor = text_bytes(s) / 10;
        if floor > limit {
            return floor;
        }
        let Ok((plain, doc)) = share_plain(s, exported_at, &redacted, steps, omit) else {
            return usize::MAX;
        };
        let size =
            seal::gzip(&plain).map_or(usize::MAX, |gz| gz.len() + seal::IV_LEN + seal::TAG_LEN);
        last = Some((plain, doc));
        size
    })?;
    let (plain, doc) = match last {
        Some(fitted) => fitted,
        None => share_plain(&snapshot, exported_at, &redacted, &trimmed, omit)?,
    };
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
    let (body, rest) = page::body(snapshot, &doc, omit);
    doc.html = Some(body);
    doc.rest = rest;
    let plain = serde_json::to_vec(&doc)?;
    doc.html = None;
    Ok((plain, doc))
}
