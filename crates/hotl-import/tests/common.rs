//! Shared helpers: fixtures, a temp store, and reading back what an import wrote.

use std::path::{Path, PathBuf};

use hotl_import::{ImportOptions, ImportOutcome, Source, import_foreign};
use hotl_log::{Block, Body, Record, Store};
use serde_json::Value;

pub type TestResult<T = ()> = Result<T, Box<dyn std::error::Error>>;

/// A fixture under `tests/fixtures/`.
pub fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}

pub const CC_217: &str = "claude-code/cc-2.1.7-subagent/e9fb405b-169f-40eb-9396-7e75076f045d.jsonl";
pub const CC_2064: &str =
    "claude-code/cc-2.0.64-flat/-tmp-private/4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl";
pub const CODEX: &str = "codex/sessions/2026/05/11/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl";

/// A temp home and its store.
pub struct Home {
    pub dir: tempfile::TempDir,
    pub store: Store,
}

impl Home {
    pub fn new() -> TestResult<Home> {
        let dir = tempfile::tempdir()?;
        let store = Store::new(dir.path().join("home"));
        Ok(Home { dir, store })
    }

    /// Imports `path` with the project dir as the fallback cwd.
    pub fn import(&self, source: Source, path: &Path) -> TestResult<ImportOutcome> {
        let opts = ImportOptions {
            cwd: Some(self.dir.path().to_owned()),
            fallback_cwd: None,
        };
        Ok(import_foreign(&self.store, source, path, &opts)?)
    }

    /// The records of session `id`, checking the log read cleanly.
    pub fn records(&self, id: &str) -> TestResult<Vec<Record>> {
        let log = self.store.read(id)?;
        assert!(log.report.skipped.is_empty(), "{:?}", log.report.skipped);
        Ok(log.records)
    }

    /// The raw lines of session `id` as JSON.
    pub fn raw(&self, id: &str) -> TestResult<Vec<Value>> {
        let mut out = Vec::new();
        for line in std::fs::read_to_string(self.log_path(id)?)?.lines() {
            out.push(serde_json::from_str(line)?);
        }
        Ok(out)
    }

    fn log_path(&self, id: &str) -> TestResult<PathBuf> {
        let root = self.store.root_of(id);
        let sessions = self.store.home().join("sessions");
        let direct = sessions.join(format!("{id}.jsonl"));
        if direct.is_file() {
            return Ok(direct);
        }
        Ok(sessions.join(root).join(format!("{id}.jsonl")))
    }
}

/// Every tool_use id in `records`, in order.
pub fn calls(records: &[Record]) -> Vec<String> {
    records
        .iter()
        .flat_map(|r| match &r.body {
            Body::Assistant { content, .. } => content
                .iter()
                .filter_map(|b| match b {
                    Block::ToolUse { id, .. } => Some(id.clone()),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        })
        .collect()
}

/// Every tool_result's call, in order.
pub fn results(records: &[Record]) -> Vec<String> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            Body::ToolResult { call, .. } => Some(call.clone()),
            _ => None,
        })
        .collect()
}

/// How many records of `kind`.
pub fn count(records: &[Record], kind: &str) -> usize {
    records.iter().filter(|r| r.kind() == kind).count()
}

/// The import record.
pub fn import_info(records: &[Record]) -> hotl_log::ImportInfo {
    match &records[1].body {
        Body::Import(info) => (**info).clone(),
        other => panic!("the second record is not an import record: {other:?}"),
    }
}

/// Writes `lines` (one JSON value each) to a file in `dir`.
pub fn write_lines(dir: &Path, name: &str, lines: &[Value]) -> TestResult<PathBuf> {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let mut text = String::new();
    for l in lines {
        text.push_str(&l.to_string());
        text.push('\n');
    }
    std::fs::write(&path, text)?;
    Ok(path)
}

/// Panics unless every call is answered by one result before the next message, and every
/// result answers an open call: the shape providers require.
#[track_caller]
pub fn assert_answered(records: &[Record]) {
    let mut open: Vec<String> = Vec::new();
    for r in records {
        match &r.body {
            Body::User { .. } | Body::Assistant { .. } | Body::Compaction { .. } => {
                assert!(open.is_empty(), "unanswered {open:?} before t{}", r.seq);
                if let Body::Assistant { content, .. } = &r.body {
                    open = content
                        .iter()
                        .filter_map(|b| match b {
                            Block::ToolUse { id, .. } => Some(id.clone()),
                            _ => None,
                        })
                        .collect();
                }
            }
            Body::ToolResult { call, .. } => {
                assert!(
                    open.contains(call),
                    "t{} answers no open call ({call})",
                    r.seq
                );
                open.retain(|c| c != call);
            }
            Body::Revert { .. } => open.clear(),
            _ => {}
        }
    }
    assert!(open.is_empty(), "unanswered at the end: {open:?}");
}
