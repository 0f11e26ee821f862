//! What an export holds, gathered once: the session's records with inherited history in front,
//! its frozen system prompt and tools, the blobs its records point at, its delegated children
//! (each a snapshot of its own), the spending the caller priced, and what reading noticed.
//! Redaction and trimming rewrite a snapshot; every writer renders one.

use std::collections::BTreeMap;
use std::path::Path;

use hotl_log::{Block, Body, Delegation, ReadOptions, Record, Store};

use crate::economy::Economy;

/// How deep delegated children are followed (a child's children, and theirs).
pub const MAX_CHILD_DEPTH: usize = 8;

/// One session, ready to render.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    /// The session's id.
    pub id: String,
    /// Inherited records (oldest ancestor first, each cut at its pin), then the session's own.
    pub records: Vec<Record>,
    /// Index of the first own record in `records`.
    pub own_start: usize,
    /// Ancestors' ids, nearest first.
    pub ancestors: Vec<String>,
    /// The frozen system prompt, as text.
    pub system: Option<String>,
    /// The frozen tool definitions.
    pub tools: Vec<ToolInfo>,
    /// Blobs the records point at (full outputs, images, diffs) that could be read.
    pub blobs: BTreeMap<String, Vec<u8>>,
    /// The frozen system prompt's and tool definitions' blobs as stored, by hash: what a log
    /// exported to stand alone carries so that it resumes elsewhere exactly as here.
    pub frozen: BTreeMap<String, Vec<u8>>,
    /// Delegated sessions this one can see, oldest first.
    pub children: Vec<Child>,
    /// What the session spent, when the caller priced it.
    pub economy: Option<Economy>,
    /// What reading noticed: skipped lines, lineage problems, blobs that are gone.
    pub notes: Vec<String>,
}

/// A tool the session was given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToolInfo {
    /// Its name.
    pub name: String,
    /// What it is for.
    pub description: String,
    /// Its input schema, as JSON text.
    pub schema: String,
}

/// A delegated session, where it was started from.
#[derive(Clone, Debug, Default)]
pub struct Child {
    /// How it was started.
    pub delegation: Delegation,
    /// The session it was delegated from, and the seq there.
    pub pinned_in: String,
    /// The seq it was started at in `pinned_in`.
    pub pinned_at: u64,
    /// Its own records and children (no inherited history: the parent shows that).
    pub snapshot: Snapshot,
}

/// Prices a session's records (its id, the records, the index of the first own one).
pub type Pricer<'a> = &'a dyn Fn(&str, &[Record], usize) -> Option<Economy>;

impl Snapshot {
    /// Gathers a session from the store, children included.
    pub fn load(store: &Store, id: &str, price: Pricer) -> hotl_log::Result<Snapshot> {
        let mut snapshot = Snapshot::load_one(store, id, price)?;
        // The children this session or its ancestors delegated; theirs are nested under them.
        let mut children = load_children(store, id, price, 0);
        children.retain(|c| c.delegation.by == id || snapshot.ancestors.contains(&c.delegation.by));
        snapshot.children = children;
        // Children are priced with their own records; the parent's total holds them.
        if let Some(economy) = &mut snapshot.economy {
            for child in &snapshot.children {
                if let Some(spent) = &child.snapshot.economy {
                    economy.add_child(
                        child
                            .delegation
                            .handle
                            .clone()
                            .unwrap_or_else(|| child.snapshot.id.clone()),
                        &child.snapshot.id,
                        spent,
                    );
                }
            }
        }
        Ok(snapshot)
    }

    fn load_one(store: &Store, id: &str, price: Pricer) -> hotl_log::Result<Snapshot> {
        let lineage = store.lineage(id)?;
        let mut notes: Vec<String> = lineage.problems.iter().map(|p| p.to_string()).collect();
        if let Some(summary) = lineage.report.summary() {
            notes.push(format!("reading the log skipped: {summary}"));
        }
        let economy = price(id, &lineage.records, lineage.own_start);
        let mut snapshot = Snapshot {
            id: id.to_owned(),
            own_start: lineage.own_start,
            ancestors: lineage.ancestors.clone(),
            economy,
            notes,
            ..Snapshot::default()
        };
        let start = lineage.start().clone();
        snapshot.records = lineage.records;
        snapshot.read_blobs(&store.blobs(), &start);
        Ok(snapshot)
    }

    /// Gathers a log file read on its own (no store around it, no session opened): blobs are
    /// looked for in `blobs` when given (the store the log came from).
    pub fn from_file(path: &Path, blobs: Option<&hotl_log::Blobs>) -> hotl_log::Result<Snapshot> {
        let log = hotl_log::read_log(path, ReadOptions::default())?;
        let start = match log.records.first().map(|r| &r.body) {
            Some(Body::Session(start)) => (**start).clone(),
            _ => {
                return Err(hotl_log::LogError::NotALog {
                    path: path.to_owned(),
                    reason: "it does not start with a session record".to_owned(),
                });
            }
        };
        let mut snapshot = Snapshot {
            id: start.id.clone(),
            records: log.records,
            ..Snapshot::default()
        };
        if let Some(summary) = log.report.summary() {
            snapshot
                .notes
                .push(format!("reading the log skipped: {summary}"));
        }
        if start.parent.is_some() {
            snapshot.notes.push(
                "this log was forked from another session; the history it inherits is not in the file"
                    .to_owned(),
            );
        }
        match blobs {
            Some(blobs) => snapshot.read_blobs(blobs, &start),
            None => snapshot.notes.push(
                "no blob store beside the log: full outputs, images and diffs are not included"
                    .to_owned(),
            ),
        }
        Ok(snapshot)
    }

    /// The session's own records.
    pub fn own(&self) -> &[Record] {
        &self.records[self.own_start.min(self.records.len())..]
    }

    /// The own `session` record.
    pub fn start(&self) -> Option<&hotl_log::SessionStart> {
        match self.own().first().map(|r| &r.body) {
            Some(Body::Session(start)) => Some(start),
            _ => None,
        }
    }

    /// Every snapshot in the tree: this one, then its children depth first.
    pub fn walk(&self, f: &mut impl FnMut(&Snapshot)) {
        f(self);
        for child in &self.children {
            child.snapshot.walk(f);
        }
    }

    /// Every snapshot in the tree, mutably.
    pub fn walk_mut(&mut self, f: &mut impl FnMut(&mut Snapshot)) {
        f(self);
        for child in &mut self.children {
            child.snapshot.walk_mut(f);
        }
    }

    fn keep_frozen(&mut self, hash: Option<&str>, bytes: Vec<u8>) {
        if let Some(hash) = hash {
            self.frozen.insert(hash.to_owned(), bytes);
        }
    }

    fn read_blobs(&mut self, blobs: &hotl_log::Blobs, start: &hotl_log::SessionStart) {
        if let Ok(Some(bytes)) =
            hotl_log::read_frozen(blobs, start.system_blob.as_deref(), "system prompt")
        {
            self.system = system_text(&bytes);
            self.keep_frozen(start.system_blob.as_deref(), bytes);
        }
        if let Ok(Some(bytes)) =
            hotl_log::read_frozen(blobs, start.tools_blob.as_deref(), "tool definitions")
        {
            self.tools = tool_infos(&bytes);
            self.keep_frozen(start.tools_blob.as_deref(), bytes);
        }
        let mut wanted = Vec::new();
        for record in &self.records {
            record_blobs(record, &mut wanted);
        }
        wanted.sort();
        wanted.dedup();
        let mut missing = 0;
        for hash in wanted {
            match blobs.get(&hash) {
                Ok(bytes) => {
                    self.blobs.insert(hash, bytes);
                }
                Err(_) => missing += 1,
            }
        }
        if missing > 0 {
            self.notes.push(format!(
                "{missing} blob{} the log points at could not be read",
                if missing == 1 { "" } else { "s" }
            ));
        }
    }
}

fn load_children(store: &Store, id: &str, price: Pricer, depth: usize) -> Vec<Child> {
    if depth >= MAX_CHILD_DEPTH {
        return Vec::new();
    }
    let Ok(delegated) = store.visible_delegated(id) else {
        return Vec::new();
    };
    let mut children = Vec::new();
    for d in delegated {
        let Ok(mut snapshot) = Snapshot::load_one(store, &d.id, price) else {
            continue;
        };
        // The parent shows the history the child inherited: keep the child's own records.
        snapshot.records.drain(..snapshot.own_start);
        snapshot.own_start = 0;
        snapshot.children = load_children_of(store, &d.id, price, depth + 1);
        children.push(Child {
            delegation: d.delegation,
            pinned_in: d.pinned_in,
            pinned_at: d.pinned_at,
            snapshot,
        });
    }
    children
}

/// The children delegated by `id` itself (not those it sees through its ancestors).
fn load_children_of(store: &Store, id: &str, price: Pricer, depth: usize) -> Vec<Child> {
    let mut children = load_children(store, id, price, depth);
    children.retain(|c| c.delegation.by == id);
    children
}

/// The blob hashes a record points at that an export shows (the frozen prompt and tools are
/// read apart).
fn record_blobs(record: &Record, out: &mut Vec<String>) {
    match &record.body {
        Body::ToolResult { blob, content, .. } => {
            out.extend(blob.iter().cloned());
            content_blobs(content, out);
        }
        Body::User { content } | Body::Assistant { content, .. } => content_blobs(content, out),
        Body::Fold(fold) => out.extend(fold.diff_blob.iter().cloned()),
        _ => {}
    }
}

fn content_blobs(blocks: &[Block], out: &mut Vec<String>) {
    for block in blocks {
        match block {
            Block::Image {
                blob: Some(hash), ..
            } => out.push(hash.clone()),
            Block::ToolResult { content, .. } => content_blobs(content, out),
            _ => {}
        }
    }
}

/// The frozen system prompt's text: its parts (strings, or blocks with a `text`), a blank
/// line apart.
fn system_text(bytes: &[u8]) -> Option<String> {
    let value: serde_json::Value = serde_json::from_slice(bytes).ok()?;
    let parts: Vec<&str> = value
        .as_array()?
        .iter()
        .filter_map(|block| block.as_str().or_else(|| block.get("text")?.as_str()))
        .collect();
    (!parts.is_empty()).then(|| parts.join("\n\n"))
}

fn tool_infos(bytes: &[u8]) -> Vec<ToolInfo> {
    let Ok(serde_json::Value::Array(defs)) = serde_json::from_slice(bytes) else {
        return Vec::new();
    };
    defs.iter()
        .map(|def| ToolInfo {
            name: def["name"].as_str().unwrap_or("?").to_owned(),
            description: def["description"].as_str().unwrap_or("").to_owned(),
            schema: def
                .get("input_schema")
                .or_else(|| def.get("parameters"))
                .map(|s| serde_json::to_string_pretty(s).unwrap_or_default())
                .unwrap_or_default(),
        })
        .collect()
}
