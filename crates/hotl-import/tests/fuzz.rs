//! The three importers against mutated files, a bounded property test: whatever a Claude Code,
//! Codex or pi file holds (ids that are their own parents, numbers past any date, paths that
//! climb out, values of the wrong type, lines cut, doubled or swapped), an import ends within
//! its deadline, never panics, and writes nothing outside the home.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use hotl_import::Source;
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::common::*;

/// How long one import may take before it counts as a hang (a few ms is typical).
const DEADLINE: Duration = Duration::from_secs(10);

/// A small pi session: a tree with a branch, a tool call and its result.
fn pi_lines() -> Vec<Value> {
    let entry = |id: &str, parent: Option<&str>, message: Value| {
        json!({"type": "message", "id": id, "parentId": parent,
            "timestamp": "2026-02-01T10:00:00.000Z", "message": message})
    };
    vec![
        json!({"type": "session", "version": 3, "id": "0194-pi",
            "timestamp": "2026-02-01T10:00:00.000Z", "cwd": "/tmp"}),
        entry("e1", None, json!({"role": "user", "content": "list files"})),
        entry(
            "e2",
            Some("e1"),
            json!({"role": "assistant", "content": [
                {"type": "toolCall", "id": "tc1", "name": "bash", "arguments": {"command": "ls"}}]}),
        ),
        entry(
            "e3",
            Some("e2"),
            json!({"role": "toolResult", "toolCallId": "tc1", "toolName": "bash",
                "content": [{"type": "text", "text": "a b"}]}),
        ),
        entry(
            "e4",
            Some("e1"),
            json!({"role": "assistant", "content": [{"type": "text", "text": "a branch"}]}),
        ),
    ]
}

/// The lines of a fixture file, parsed (lines that do not parse are left out).
fn fixture_lines(rel: &str) -> Vec<Value> {
    std::fs::read_to_string(fixture(rel))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// A hostile value, chosen by `pick`.
fn hostile(pick: u64, lines: &[Value]) -> Value {
    let some_id = lines
        .get(pick as usize % lines.len().max(1))
        .and_then(|l| l.get("id").or_else(|| l.get("uuid")))
        .cloned()
        .unwrap_or(Value::Null);
    match pick % 14 {
        0 => Value::Null,
        1 => json!(u64::MAX),
        2 => json!(253_402_300_800_000u64),
        3 => json!(-1),
        4 => json!("../../../../tmp/escape"),
        5 => json!("/etc/passwd"),
        6 => json!(""),
        7 => json!([1, "two", {"three": null}]),
        8 => json!({"nested": {"deeper": [null]}}),
        9 => json!("2026-13-45T99:99:99Z"),
        10 => json!("99999-01-01T00:00:00Z"),
        11 => some_id,
        12 => json!("\u{1b}]52;c;eA==\u{7}\u{202e}"),
        _ => json!(1.5e300),
    }
}

/// The keys a mutation aims at: those the importers read.
const KEYS: &[&str] = &[
    "id",
    "parentId",
    "uuid",
    "parentUuid",
    "timestamp",
    "type",
    "cwd",
    "message",
    "content",
    "role",
    "payload",
    "sessionId",
    "toolCallId",
    "isSidechain",
    "version",
];

/// Applies one mutation `(op, line, key, value)` to `lines`.
fn mutate(lines: &mut Vec<Value>, (op, at, key, value): (u8, usize, usize, u64)) {
    if lines.is_empty() {
        return;
    }
    let at = at % lines.len();
    let key = KEYS[key % KEYS.len()];
    match op % 8 {
        // A key set to something hostile, at the top or one level down.
        0 | 1 => {
            let v = hostile(value, lines);
            let line = &mut lines[at];
            let target = if op % 8 == 1 {
                line.as_object_mut()
                    .and_then(|o| o.values_mut().find(|v| v.is_object()))
            } else {
                Some(line)
            };
            if let Some(Value::Object(o)) = target {
                o.insert(key.to_owned(), v);
            }
        }
        // A key removed.
        2 => {
            if let Value::Object(o) = &mut lines[at] {
                o.remove(key);
            }
        }
        // An entry made its own parent.
        3 => {
            if let Value::Object(o) = &mut lines[at] {
                let id = o.get("id").or_else(|| o.get("uuid")).cloned();
                if let Some(id) = id {
                    o.insert("parentId".to_owned(), id.clone());
                    o.insert("parentUuid".to_owned(), id);
                }
            }
        }
        // A line doubled, dropped, or two swapped.
        4 => {
            let copy = lines[at].clone();
            lines.insert(at, copy);
        }
        5 => {
            lines.remove(at);
        }
        6 => {
            let other = value as usize % lines.len();
            lines.swap(at, other);
        }
        // The whole line replaced by a hostile value.
        _ => lines[at] = hostile(value, lines),
    }
}

/// Every path under `dir`, but not under `home`.
fn files_outside(dir: &Path, home: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.starts_with(home) {
                continue;
            }
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(path.clone());
            }
            found.push(path);
        }
    }
    found.sort();
    found
}

/// Imports `text` as `source` in a fresh home, off this thread: `Err` on a panic or a hang.
fn import_bounded(source: Source, text: String) -> Result<(), TestCaseError> {
    let home = Home::new().map_err(|e| TestCaseError::fail(e.to_string()))?;
    let input = home.dir.path().join("input.jsonl");
    std::fs::write(&input, text).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let before = files_outside(home.dir.path(), home.store.home());
    let (done, finished) = mpsc::channel();
    let store = home.store.clone();
    let path = input.clone();
    let cwd = home.dir.path().join("project");
    std::thread::spawn(move || {
        let opts = hotl_import::ImportOptions {
            cwd: None,
            fallback_cwd: Some(cwd),
        };
        let outcome = std::panic::catch_unwind(|| {
            // An import that refuses the file is fine; only a panic or a hang is not.
            let _ = hotl_import::import_foreign(&store, source, &path, &opts);
        });
        let _ = done.send(outcome.is_ok());
    });
    match finished.recv_timeout(DEADLINE) {
        Ok(true) => {}
        Ok(false) => return Err(TestCaseError::fail("the import panicked")),
        Err(_) => return Err(TestCaseError::fail("the import hung")),
    }
    let after = files_outside(home.dir.path(), home.store.home());
    prop_assert_eq!(before, after, "the import wrote outside the home");
    Ok(())
}

fn mutations() -> impl Strategy<Value = Vec<(u8, usize, usize, u64)>> {
    prop::collection::vec(
        (any::<u8>(), any::<usize>(), any::<usize>(), any::<u64>()),
        1..8,
    )
}

fn render(lines: &[Value], cut: Option<usize>) -> String {
    let mut text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    if let Some(cut) = cut {
        // A torn tail: cut at a character boundary.
        let mut at = cut % (text.len() + 1);
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        text.truncate(at);
    }
    text
}

proptest! {
    // A hang costs its deadline per case: shrinking one is kept short.
    #![proptest_config(ProptestConfig {
        max_shrink_iters: 32,
        ..hotl_testkit::arb::config(48)
    })]

    #[test]
    fn pi_imports_end_without_a_panic(ops in mutations(), cut in prop::option::of(any::<usize>())) {
        let mut lines = pi_lines();
        for op in ops {
            mutate(&mut lines, op);
        }
        import_bounded(Source::Pi, render(&lines, cut))?;
    }

    #[test]
    fn claude_imports_end_without_a_panic(ops in mutations(), cut in prop::option::of(any::<usize>())) {
        let mut lines = fixture_lines(CC_2064);
        for op in ops {
            mutate(&mut lines, op);
        }
        import_bounded(Source::Claude, render(&lines, cut))?;
    }

    #[test]
    fn codex_imports_end_without_a_panic(ops in mutations(), cut in prop::option::of(any::<usize>())) {
        let mut lines = fixture_lines(CODEX);
        for op in ops {
            mutate(&mut lines, op);
        }
        import_bounded(Source::Codex, render(&lines, cut))?;
    }
}

#[test]
fn a_pi_entry_that_is_its_own_parent_and_a_date_past_9999_import() -> TestResult {
    let mut lines = pi_lines();
    lines[1]["parentId"] = json!("e1");
    lines[2]["timestamp"] = json!(253_402_300_800_000u64);
    lines[3]["timestamp"] = json!(u64::MAX);
    import_bounded(Source::Pi, render(&lines, None)).map_err(|e| e.to_string())?;
    Ok(())
}
