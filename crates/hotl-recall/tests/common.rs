//! Shared helpers: logs with folds, written into a test home.

use hotl_log::{Block, Body, FileTouch, Record, RunState};
use hotl_recall::{Archive, Hit};
use hotl_testkit::{FIXED_ID, LogBuilder, TestHome, TestResult};

/// One turn whose tool step prints `output` and touches `files`; returns (user seq, last seq).
pub fn turn_with(
    b: &mut LogBuilder,
    user: &str,
    output: &str,
    files: Vec<FileTouch>,
    answer: &str,
) -> (u64, u64) {
    let run = format!("run_{}", b.seq() + 1);
    b.record(Body::Run {
        run: run.clone(),
        state: RunState::Started,
    });
    let u = b.user(user);
    let (_, call) = b.tool_call("bash", serde_json::json!({"command": "cargo build"}));
    b.record(Body::ToolResult {
        call,
        content: vec![Block::text(output)],
        blob: None,
        is_error: false,
        files,
    });
    b.assistant(answer);
    let last = b.record(Body::Run {
        run,
        state: RunState::Finished,
    });
    (u, last)
}

/// A file touch.
pub fn touch(path: &str, op: &str, hash: Option<&str>) -> FileTouch {
    FileTouch {
        path: path.to_owned(),
        op: op.to_owned(),
        hash: hash.map(str::to_owned),
    }
}

/// The hash a file touch records for `bytes`.
pub fn content_hash(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex()[..32].to_owned()
}

/// A session with two folded threads (`a1`: a build error, `b2`: a flaky test) and a live
/// turn after them.
pub fn two_folds() -> LogBuilder {
    let mut b = LogBuilder::new(FIXED_ID, "/project");
    let (s1, _) = turn_with(
        &mut b,
        "the build fails, can you look?",
        "error TS2322: Type 'string' is not assignable to type 'number'.\n  at src/parse.ts:12",
        vec![touch("src/parse.ts", "read", Some("00"))],
        "the parser returns a string where a number belongs",
    );
    let (_, u1) = turn_with(
        &mut b,
        "ok fix it",
        "compiled 3 files",
        vec![touch("src/parse.ts", "edit", Some("11"))],
        "fixed: parseInt before the return",
    );
    b.fold(s1, u1, "a1", "fixed TS2322 in the parser (parseInt)");
    let (s2, u2) = turn_with(
        &mut b,
        "the login test is flaky",
        "test login_redirect ... FAILED\nthread panicked at 'timeout after 30s'",
        vec![],
        "the redirect races the session cookie; added a wait",
    );
    b.fold(s2, u2, "b2", "login test: waits for the cookie now");
    turn_with(
        &mut b,
        "what is left?",
        "nothing pending in the zanzibar queue",
        vec![],
        "only the release notes",
    );
    b
}

/// The records of a builder, as the store reads them.
pub fn records(b: &LogBuilder) -> TestResult<Vec<Record>> {
    let log = hotl_log::read_from(&b.text()[..], hotl_log::ReadOptions::default())?;
    Ok(log.records)
}

/// An in-memory archive of a builder's log.
pub fn archive(b: &LogBuilder) -> TestResult<Archive> {
    Ok(Archive::from_records(&records(b)?, 0))
}

/// A home holding `b` as a root session; returns it and the session id.
pub fn home_with(b: &LogBuilder) -> TestResult<(TestHome, String)> {
    let home = TestHome::new();
    std::fs::create_dir_all(home.store.layout().sessions_dir())?;
    b.write(&home.store.layout().log(&b.id))?;
    Ok((home, b.id.clone()))
}

/// (handle, seq, kind, line) of each hit: what must agree between two archives.
pub fn summary(hits: &[Hit]) -> Vec<(String, u64, String, String)> {
    hits.iter()
        .map(|h| (h.handle.clone(), h.seq, h.kind.to_string(), h.line.clone()))
        .collect()
}
