//! Test helpers shared by hotl's crates: a temporary home and a builder for realistic logs.
//!
//! Used as a dev-dependency only. Builders write real JSONL through `hotl-log`'s own encoder, so
//! what tests read is exactly what hotl writes.

#![deny(missing_docs)]

pub mod arb;

use std::path::{Path, PathBuf};

use hotl_log::{Block, Body, Fold, Record, RunState, SessionStart, Store, Todo, encode_line};

/// The result type of tests and helpers.
pub type TestResult<T = ()> = Result<T, Box<dyn std::error::Error>>;

/// Whether a test may go on without `tool` (a program it drives, such as `script` or `git`):
/// `Ok(true)` when `present`; `Ok(false)` (said on stderr: the caller returns early) when it is
/// missing on a developer's machine; an error when it is missing under `CI=true`, where every
/// test must run: `.ci/run` installs what the tests need.
pub fn require(tool: &str, present: bool) -> TestResult<bool> {
    if present {
        return Ok(true);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        return Err(format!("{tool} is needed by this test and CI=true: install it").into());
    }
    eprintln!("skipped: no {tool} on this system");
    Ok(false)
}

/// A fixed, valid session id for tests that need a known one.
pub const FIXED_ID: &str = "01JD0000000000000000000001";

/// The timestamp builders stamp records with.
pub const FIXED_TS: &str = "2026-11-01T12:00:00.000Z";

/// A temporary hotl home, deleted on drop.
pub struct TestHome {
    dir: tempfile::TempDir,
    /// The store over it.
    pub store: Store,
}

impl TestHome {
    /// A fresh, empty home.
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("a temp dir can be created");
        let store = Store::new(dir.path().join("home"));
        TestHome { dir, store }
    }

    /// The home directory (it may not exist yet).
    pub fn path(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    /// A scratch directory beside the home.
    pub fn scratch(&self) -> &Path {
        self.dir.path()
    }

    /// Writes `log` to a scratch file and imports it; returns the session id.
    pub fn import(&self, log: &LogBuilder) -> TestResult<String> {
        let file = self.dir.path().join(format!("{}.import.jsonl", log.id));
        std::fs::write(&file, log.text())?;
        Ok(self.store.import(&file, false)?.id)
    }
}

impl Default for TestHome {
    fn default() -> Self {
        Self::new()
    }
}

/// Builds a log line by line, numbering seqs.
#[derive(Clone, Debug)]
pub struct LogBuilder {
    /// The session id written in the `session` record.
    pub id: String,
    seq: u64,
    calls: u64,
    lines: Vec<Vec<u8>>,
}

impl LogBuilder {
    /// A log whose `session` record (seq 1) has `id` and `cwd`.
    pub fn new(id: &str, cwd: &str) -> Self {
        let mut b = LogBuilder {
            id: id.to_owned(),
            seq: 0,
            calls: 0,
            lines: Vec::new(),
        };
        let mut start = SessionStart::new(cwd);
        start.id = id.to_owned();
        start.model = Some("demo".to_owned());
        b.record(Body::Session(Box::new(start)));
        b
    }

    /// A log of a session delegated by another (`delegation.by`), holding no inherited history.
    pub fn delegated(id: &str, cwd: &str, delegation: hotl_log::Delegation) -> Self {
        let mut b = LogBuilder {
            id: id.to_owned(),
            seq: 0,
            calls: 0,
            lines: Vec::new(),
        };
        let mut start = SessionStart::new(cwd);
        start.id = id.to_owned();
        start.model = Some("demo".to_owned());
        start.delegated = Some(delegation);
        b.record(Body::Session(Box::new(start)));
        b
    }

    /// Appends a record with the next seq; returns that seq.
    pub fn record(&mut self, body: Body) -> u64 {
        self.seq += 1;
        let record = Record::new(self.seq, FIXED_TS, body);
        self.lines
            .push(encode_line(&record).expect("test records encode"));
        self.seq
    }

    /// Appends raw bytes as a line (a newline is added unless `torn`).
    pub fn raw(&mut self, bytes: &[u8], torn: bool) -> &mut Self {
        let mut line = bytes.to_vec();
        if !torn {
            line.push(b'\n');
        }
        self.lines.push(line);
        self
    }

    /// A user message; returns its seq.
    pub fn user(&mut self, text: &str) -> u64 {
        self.record(Body::user_text(text))
    }

    /// A final assistant answer; returns its seq.
    pub fn assistant(&mut self, text: &str) -> u64 {
        self.record(Body::Assistant {
            content: vec![Block::text(text)],
            model: Some("demo".to_owned()),
            stop: Some("end_turn".to_owned()),
            stop_raw: None,
            usage: None,
        })
    }

    /// An assistant message calling `tool`; returns (seq, call id).
    pub fn tool_call(&mut self, tool: &str, input: serde_json::Value) -> (u64, String) {
        self.calls += 1;
        let call = format!("call_{}", self.calls);
        let seq = self.record(Body::Assistant {
            content: vec![Block::ToolUse {
                id: call.clone(),
                name: tool.to_owned(),
                input: input.into(),
            }],
            model: Some("demo".to_owned()),
            stop: Some("tool_use".to_owned()),
            stop_raw: None,
            usage: None,
        });
        (seq, call)
    }

    /// A tool result answering `call`; returns its seq.
    pub fn tool_result(&mut self, call: &str, output: &str) -> u64 {
        self.record(Body::ToolResult {
            call: call.to_owned(),
            content: vec![Block::text(output)],
            blob: None,
            is_error: false,
            files: Vec::new(),
        })
    }

    /// A whole turn: run started, the message, one tool step, the answer, run finished.
    /// Returns the seq of the user message.
    pub fn turn(&mut self, text: &str) -> u64 {
        let run = format!("run_{}", self.seq + 1);
        self.record(Body::Run {
            run: run.clone(),
            state: RunState::Started,
        });
        let user = self.user(text);
        let (_, call) = self.tool_call("bash", serde_json::json!({"command": "ls"}));
        self.tool_result(&call, "Cargo.toml\nsrc\n");
        self.assistant(&format!("done: {text}"));
        self.record(Body::Run {
            run,
            state: RunState::Finished,
        });
        user
    }

    /// A fold of `since..=until`; returns its seq.
    pub fn fold(&mut self, since: u64, until: u64, handle: &str, note: &str) -> u64 {
        self.record(Body::Fold(Box::new(Fold {
            since,
            until,
            handle: handle.to_owned(),
            note: note.to_owned(),
            files: Vec::new(),
            diff_blob: None,
        })))
    }

    /// A todo list; returns its seq.
    pub fn todos(&mut self, items: &[(&str, &str)]) -> u64 {
        self.record(Body::Todos {
            items: items
                .iter()
                .map(|(text, status)| Todo {
                    text: (*text).to_owned(),
                    status: (*status).to_owned(),
                })
                .collect(),
        })
    }

    /// The last seq used.
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// The log as bytes.
    pub fn text(&self) -> Vec<u8> {
        self.lines.concat()
    }

    /// Writes the log to `path`.
    pub fn write(&self, path: &Path) -> TestResult {
        std::fs::write(path, self.text())?;
        Ok(())
    }
}
