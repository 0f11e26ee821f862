//! The `hotl-export/1` document: what an exported page embeds (gzipped, base64) and what a
//! share seals. It carries the session's facts, what it spent, what was trimmed or redacted,
//! the log itself (for the page's "download log"), and, in a share, the page body already
//! rendered in Rust, so the viewer only inserts it.

use std::collections::BTreeMap;

use hotl_log::{Body, Record};
use serde::{Deserialize, Serialize};

use crate::economy::Economy;
use crate::snapshot::Snapshot;

/// The format tag of the document.
pub const FORMAT: &str = "hotl-export/1";

/// The document.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Document {
    /// Always [`FORMAT`].
    pub format: String,
    /// When it was exported (RFC 3339 UTC).
    pub exported_at: String,
    /// The hotl version that exported it.
    pub hotl: String,
    /// The session.
    pub session: SessionInfo,
    /// What the session spent, when priced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub economy: Option<serde_json::Value>,
    /// The trimming steps taken to fit the size budget, in order.
    #[serde(default)]
    pub trimmed: Vec<String>,
    /// What redaction replaced, by kind (counts, never values).
    #[serde(default)]
    pub redacted: BTreeMap<String, usize>,
    /// The session's log, flattened to stand alone (JSONL); left out of a page it would make
    /// too large (`log_left_out` then says so).
    #[serde(default)]
    pub log: String,
    /// Why the log is not in the document, when it is not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_left_out: Option<String>,
    /// The long rests of clipped tool outputs, which the page shows from here when opened
    /// (`data-rest` indexes them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rest: Vec<String>,
    /// The page body, rendered (shares only: an exported page holds it in its markup).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub html: Option<String>,
}

/// The session's facts for the header.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct SessionInfo {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: Option<String>,
    /// Its title.
    pub title: Option<String>,
    /// Its working directory.
    pub cwd: String,
    /// When it started.
    pub created: String,
    /// The models that answered, in order of first use.
    pub models: Vec<String>,
    /// User turns on the visible branch.
    pub turns: usize,
    /// Delegated sessions in the tree.
    pub children: usize,
}

impl SessionInfo {
    /// The facts of a snapshot.
    pub fn of(snapshot: &Snapshot) -> SessionInfo {
        // The summary a listing keeps: a pass over the records, no projection.
        let meta = hotl_log::summarize(&snapshot.records, snapshot.own_start);
        let mut models: Vec<String> = Vec::new();
        for record in &snapshot.records {
            if let Body::Assistant {
                model: Some(model), ..
            } = &record.body
                && !models.contains(model)
            {
                models.push(model.clone());
            }
        }
        let start = snapshot.start();
        let mut children = 0;
        snapshot.walk(&mut |s| children += s.children.len());
        SessionInfo {
            id: snapshot.id.clone(),
            name: meta.name,
            title: meta.title,
            cwd: start.map(|s| s.cwd.clone()).unwrap_or_default(),
            created: snapshot
                .own()
                .first()
                .map(|r| r.ts.clone())
                .unwrap_or_default(),
            models,
            turns: usize::try_from(meta.turns).unwrap_or(usize::MAX),
            children,
        }
    }

    /// What the page calls the session: its title, else its name, else its first words.
    pub fn heading(&self, snapshot: &Snapshot) -> String {
        if let Some(t) = self.title.as_ref().or(self.name.as_ref()) {
            return t.clone();
        }
        let first = snapshot.records.iter().find_map(|r| match &r.body {
            Body::User { content } => Some(hotl_log::plain_text(content)),
            _ => None,
        });
        match first {
            Some(text) => {
                let line = text.lines().next().unwrap_or("").trim();
                match line.char_indices().nth(80) {
                    Some((i, _)) => format!("{}…", &line[..i]),
                    None => line.to_owned(),
                }
            }
            None => format!("session {}", self.id),
        }
    }
}

impl Document {
    /// The document of a snapshot without its log (too large to carry).
    pub fn without_log(snapshot: &Snapshot, exported_at: &str) -> Document {
        Document {
            format: FORMAT.to_owned(),
            exported_at: exported_at.to_owned(),
            hotl: hotl_log::ENGINE_VERSION.to_owned(),
            session: SessionInfo::of(snapshot),
            economy: snapshot.economy.as_ref().and_then(economy_json),
            trimmed: Vec::new(),
            redacted: BTreeMap::new(),
            log: String::new(),
            log_left_out: None,
            rest: Vec::new(),
            html: None,
        }
    }

    /// The document of a snapshot (without the rendered body).
    pub fn of(snapshot: &Snapshot, exported_at: &str) -> Document {
        Document {
            log: flattened_log(snapshot),
            ..Document::without_log(snapshot, exported_at)
        }
    }
}

fn economy_json(economy: &Economy) -> Option<serde_json::Value> {
    serde_json::to_value(economy).ok()
}

/// About how many bytes of text the snapshot's records hold (messages, thinking, tool inputs
/// and outputs, notes), children included: a lower bound on any rendering of it.
pub fn text_bytes(snapshot: &Snapshot) -> usize {
    fn blocks(content: &[hotl_log::Block]) -> usize {
        content
            .iter()
            .map(|b| match b {
                hotl_log::Block::Text { text } => text.len(),
                hotl_log::Block::Thinking { thinking, .. } => thinking.len(),
                hotl_log::Block::ToolUse { input, .. } => input.get().len(),
                hotl_log::Block::ToolResult { content, .. } => blocks(content),
                _ => 0,
            })
            .sum()
    }
    let mut total = 0;
    snapshot.walk(&mut |s| {
        for record in &s.records {
            total += match &record.body {
                Body::User { content }
                | Body::Assistant { content, .. }
                | Body::ToolResult { content, .. } => blocks(content),
                Body::Fold(fold) => fold.note.len(),
                Body::Compaction { summary, .. } => summary.len(),
                _ => 0,
            };
        }
    });
    total
}

/// The session's records as one log that stands alone: its own `session` record first (no
/// parent: the inherited history follows it), then every other record of the lineage in
/// order. A hotl log of the same transcript, importable anywhere.
pub fn flattened_log(snapshot: &Snapshot) -> String {
    let mut out = String::new();
    for record in flattened(snapshot) {
        if let Ok(line) = hotl_log::encode_line(&record) {
            out.push_str(&String::from_utf8_lossy(&line));
        }
    }
    out
}

/// The records of [`flattened_log`].
pub fn flattened(snapshot: &Snapshot) -> Vec<Record> {
    let mut records = Vec::with_capacity(snapshot.records.len());
    let first_seq = snapshot.records.first().map_or(1, |r| r.seq);
    if let Some(own) = snapshot.own().first()
        && let Body::Session(start) = &own.body
    {
        let mut start = start.clone();
        start.parent = None;
        start.delegated = None;
        records.push(Record {
            seq: first_seq,
            ts: own.ts.clone(),
            v: own.v.clone(),
            body: Body::Session(start),
        });
    }
    records.extend(
        snapshot
            .records
            .iter()
            .filter(|r| !matches!(r.body, Body::Session(_)))
            .cloned(),
    );
    records
}
