//! Plausible text for synthetic sessions: questions, pastes, tool inputs and outputs, answers.
//!
//! Everything is assembled from small fixed pools with a seeded [`Rng`], so it is cheap to make
//! hundreds of megabytes and the JSON has the escapes real logs have (quotes, backslashes,
//! newlines, tabs, some non-ASCII).

use serde_json::{Value, json};

use crate::rng::Rng;

const FILES: &[&str] = &[
    "crates/hotl-log/src/read.rs",
    "crates/hotl-log/src/write.rs",
    "crates/hotl-log/src/lineage.rs",
    "crates/hotl-log/src/meta.rs",
    "crates/hotl-view/src/project.rs",
    "crates/hotl-view/src/model.rs",
    "crates/hotl/src/commands/sessions/fork.rs",
    "crates/hotl/src/main.rs",
    "src/server/routes.rs",
    "src/db/migrations.rs",
    "src/auth/token.rs",
    "web/src/components/SessionList.tsx",
    "tests/e2e/fork_and_revert.rs",
    "docs/log-format.md",
    "Cargo.toml",
    "scripts/release.sh",
];

const IDENTS: &[&str] = &[
    "read_log",
    "append",
    "lineage",
    "rebuild_meta",
    "project",
    "model_messages",
    "pin_hash",
    "resolve",
    "visible_branch",
    "summarize",
    "TreeLock",
    "SessionMeta",
    "LoadReport",
    "parse_token",
    "refresh_session",
    "migrate_up",
    "render_row",
    "handle_request",
    "config",
    "offset",
    "records",
    "writer",
];

const CRATES: &[&str] = &["hotl-log", "hotl-view", "hotl", "server", "web-api"];

const QUESTIONS: &[&str] = &[
    "why does `{id}` panic when the log is empty?",
    "add a --json flag to `{id}` and document it",
    "the test in {file} fails on CI but not locally, can you look?",
    "rename `{id}` to `{id2}` everywhere",
    "what does `{id}` in {file} actually do?",
    "make `{id}` faster, it takes seconds on big sessions",
    "fix the clippy warnings in {file}",
    "can you write a regression test for the bug we just fixed in `{id}`?",
    "ok, now run the whole test suite",
    "looks good. commit it with a short message",
    "that's not right: `{id}` must not allocate per line. try again",
    "explain the error below",
    "refactor {file} so `{id}` and `{id2}` share one helper",
    "where is `{id}` called from?",
    "undo the last change to {file}",
    "summarize what changed today",
];

const CODE: &[&str] = &[
    "use std::io::{BufRead, BufReader};",
    "pub fn {id}(path: &Path, opts: Options) -> Result<Log> {",
    "    let file = File::open(path).at(path)?;",
    "    let mut buf = Vec::with_capacity({n});",
    "    for (i, line) in lines.iter().enumerate() {",
    "        if line.trim().is_empty() {",
    "            continue;",
    "        }",
    "    }",
    "    match serde_json::from_slice::<Record>(&buf) {",
    "        Ok(record) => entries.push(record),",
    "        Err(e) => report.skipped.push(format!(\"line {}: {e}\", i + 1)),",
    "    Ok(Log { entries, report })",
    "}",
    "",
    "/// Returns the {id} for `seq`, or `None` when it was folded.",
    "#[derive(Clone, Debug, PartialEq, Eq, Serialize)]",
    "pub struct {Id} {",
    "    pub seq: u64,",
    "    pub name: Option<String>,",
    "impl {Id} {",
    "    assert_eq!(view.items.len(), {n}, \"items: {:?}\", view.items);",
    "    let path = format!(\"{}/sessions/{}.jsonl\", home.display(), id);",
    "    // A torn tail stays a (reported) damaged line; nothing is truncated.",
    "    writeln!(out, \"{:>4}  {}\", i + 1, row.title)?;",
    "    let re = Regex::new(r\"^t(\\d+)$\").expect(\"a valid literal regex\");",
    "    const MAX: usize = {n};",
    "    self.{id}.insert(key.clone(), value);",
    "\tif err != nil {",
    "\t\treturn fmt.Errorf(\"{id}: %w\", err)",
    "export function {id}(props: Props): JSX.Element {",
    "  return <div className=\"row\">{props.title} → {props.count}</div>;",
];

const LOG_LINES: &[&str] = &[
    "   Compiling {crate} v0.1.0 (/work/crates/{crate})",
    "    Finished `dev` profile [unoptimized + debuginfo] target(s) in {n}.{n2}s",
    "     Running unittests src/lib.rs (target/debug/deps/{crate}-{hex})",
    "test {id}::tests::{id2}_round_trips ... ok",
    "test {id}::tests::{id2}_is_reported ... ok",
    "test {id}::tests::{id2}_keeps_order ... FAILED",
    "warning: unused variable: `{id}`",
    "  --> {file}:{n}:{n2}",
    "   |",
    "{n} |     let {id} = {id2}(&path)?;",
    "   |         ^^^^ help: if this is intentional, prefix it with an underscore: `_{id}`",
    "error[E0308]: mismatched types",
    "thread 'main' panicked at {file}:{n}:{n2}:",
    "called `Option::unwrap()` on a `None` value",
    "test result: ok. {n} passed; 0 failed; 0 ignored; 0 measured; 0 filtered out",
    "2026-03-{n2}T10:{n2}:{n2}.{n}Z INFO {crate}::{id}: request handled status=200 ms={n}",
    "2026-03-{n2}T10:{n2}:{n2}.{n}Z WARN {crate}::{id}: retrying after \"connection reset\"",
    " M {file}",
    "?? {file}",
    "drwxr-xr-x  5 dev dev  4096 Mar {n2} 09:{n2} {id}",
    "-rw-r--r--  1 dev dev {n} Mar {n2} 09:{n2} {id}.rs",
    "✓ {id} ({n} ms)",
    "  café-{id}: {n} ops/s — within budget",
];

const SENTENCES: &[&str] = &[
    "I looked at `{id}` in `{file}` first.",
    "The problem is that `{id}` reads the whole file before checking the size.",
    "I changed it to stream line by line and keep only the offsets.",
    "The tests in {file} pass now ({n} passed, 0 failed).",
    "`{id2}` is only called from `{id}`, so the rename is local.",
    "There is one remaining warning about an unused import, which I removed.",
    "Note that this changes the error message users see when the file is missing.",
    "I did not touch the public API of `{crate}`.",
    "If you want, I can also add a benchmark for the large-file case.",
    "The fix is a one-line change: the offset must be taken after the newline, not before.",
    "Both the cold path and the cached path now go through `{id}`.",
    "This keeps memory flat: peak RSS stays under {n} MB on the big fixture.",
];

const THOUGHTS: &[&str] = &[
    "The user wants `{id}` changed; first I should see where it is defined.",
    "Maybe the failure is an ordering issue: `{id2}` sorts by id but the test expects time order.",
    "Reading {file} will tell me whether the offset includes the newline.",
    "I should run the tests before and after, so I know the change is what fixed it.",
    "Grep for callers of `{id}` to make sure nothing else relies on the old behaviour.",
    "Hmm, that output shows {n} warnings; most are in generated code, so ignore those.",
];

const TODOS: &[&str] = &[
    "reproduce the failure in {file}",
    "fix `{id}`",
    "add a regression test for `{id2}`",
    "run clippy and the full test suite",
    "update docs for `{id}`",
    "benchmark `{id}` on a large session",
];

const TITLES: &[&str] = &[
    "Fix `{id}` on empty logs",
    "Speed up `{id}`",
    "Rename `{id}` to `{id2}`",
    "Investigate flaky test in {file}",
    "Add --json to `{id}`",
    "Refactor {file}",
];

/// Fills `{id}`, `{id2}`, `{Id}`, `{file}`, `{crate}`, `{n}`, `{n2}` and `{hex}` in `template`.
fn fill(rng: &mut Rng, template: &str, out: &mut String) {
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open..];
        let Some(close) = after.find('}') else {
            out.push_str(after);
            return;
        };
        let key = &after[1..close];
        match key {
            "id" | "id2" => out.push_str(rng.pick::<&str>(IDENTS)),
            "Id" => {
                let id = rng.pick(IDENTS);
                for part in id.split('_') {
                    let mut chars = part.chars();
                    if let Some(c) = chars.next() {
                        out.extend(c.to_uppercase());
                        out.push_str(chars.as_str());
                    }
                }
            }
            "file" => out.push_str(rng.pick::<&str>(FILES)),
            "crate" => out.push_str(rng.pick::<&str>(CRATES)),
            "n" => out.push_str(&rng.range(1, 4000).to_string()),
            "n2" => out.push_str(&format!("{:02}", rng.range(0, 59))),
            "hex" => out.push_str(&rng.hex(16)),
            // Not a placeholder (a format string inside code): keep it as written.
            _ => out.push_str(&after[..=close]),
        }
        rest = &after[close + 1..];
    }
    out.push_str(rest);
}

fn filled(rng: &mut Rng, template: &str) -> String {
    let mut out = String::new();
    fill(rng, template, &mut out);
    out
}

/// Lines picked from `pool` until the text reaches about `bytes`.
fn lines(rng: &mut Rng, pool: &[&str], bytes: usize, numbered: bool) -> String {
    let mut out = String::with_capacity(bytes + 128);
    let mut n = rng.range(1, 400);
    while out.len() < bytes {
        if numbered {
            out.push_str(&format!("{n:>6}\t"));
            n += 1;
        }
        let template = *rng.pick(pool);
        fill(rng, template, &mut out);
        out.push('\n');
    }
    out
}

/// Sentences picked from `pool` until the text reaches about `bytes`.
fn prose(rng: &mut Rng, pool: &[&str], bytes: usize) -> String {
    let mut out = String::with_capacity(bytes + 128);
    while out.len() < bytes {
        if !out.is_empty() {
            out.push(if rng.chance(0.15) { '\n' } else { ' ' });
        }
        let template = *rng.pick(pool);
        fill(rng, template, &mut out);
    }
    out
}

/// A user message: mostly a short question, sometimes a question with a long paste.
pub(crate) fn user_message(rng: &mut Rng) -> String {
    let template = *rng.pick(QUESTIONS);
    let question = filled(rng, template);
    if rng.chance(0.12) {
        let size = rng.urange(1500, 6000);
        let pool = if rng.chance(0.5) { LOG_LINES } else { CODE };
        format!("{question}\n\n```\n{}```", lines(rng, pool, size, false))
    } else {
        question
    }
}

/// The tools a synthetic model calls.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Tool {
    Bash,
    Read,
    Edit,
    Grep,
}

impl Tool {
    pub(crate) fn pick(rng: &mut Rng) -> Tool {
        match rng.range(0, 9) {
            0..=3 => Tool::Bash,
            4..=6 => Tool::Read,
            7 => Tool::Edit,
            _ => Tool::Grep,
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Tool::Bash => "bash",
            Tool::Read => "read",
            Tool::Edit => "edit",
            Tool::Grep => "grep",
        }
    }
}

/// A tool call's JSON input and the file it names.
pub(crate) fn tool_input(rng: &mut Rng, tool: Tool) -> (Value, &'static str) {
    let file = *rng.pick(FILES);
    let input = match tool {
        Tool::Bash => {
            const COMMANDS: &[&str] = &[
                "cargo test -p {crate} 2>&1 | tail -80",
                "cargo build --workspace 2>&1",
                "cargo clippy --all-targets -- -D warnings",
                "git status --short && git diff --stat",
                "ls -la $(dirname {file})",
                "rg -n \"fn {id}\" crates/ src/",
                "RUST_LOG=debug cargo run -- sessions list --all",
            ];
            let cmd = *rng.pick(COMMANDS);
            let mut v = json!({ "command": filled(rng, cmd) });
            if rng.chance(0.3) {
                v["timeout"] = json!(rng.range(10, 600) * 1000);
            }
            v
        }
        Tool::Read => {
            let mut v = json!({ "path": file });
            if rng.chance(0.4) {
                v["offset"] = json!(rng.range(1, 500));
                v["limit"] = json!(rng.range(50, 400));
            }
            v
        }
        Tool::Edit => {
            let (old_len, new_len) = (rng.urange(60, 600), rng.urange(60, 700));
            let old = lines(rng, CODE, old_len, false);
            let new = lines(rng, CODE, new_len, false);
            json!({ "path": file, "old_string": old, "new_string": new })
        }
        Tool::Grep => {
            let template = *rng.pick(&["fn {id}", "{id}\\(", "struct {Id}"][..]);
            let pattern = filled(rng, template);
            json!({ "pattern": pattern, "path": "crates", "glob": "*.rs" })
        }
    };
    (input, file)
}

/// A tool's output of about `bytes`, shaped like what `tool` prints.
pub(crate) fn tool_output(rng: &mut Rng, tool: Tool, file: &str, bytes: usize) -> String {
    match tool {
        Tool::Bash => lines(rng, LOG_LINES, bytes, false),
        Tool::Read => lines(rng, CODE, bytes, true),
        Tool::Edit => format!(
            "The file {file} has been updated. Here's the result of running `cat -n` on a snippet:\n{}",
            lines(rng, CODE, bytes, true)
        ),
        Tool::Grep => {
            let mut out = String::with_capacity(bytes + 128);
            while out.len() < bytes {
                out.push_str(rng.pick::<&str>(FILES));
                out.push_str(&format!(":{}:", rng.range(1, 900)));
                let template = *rng.pick(CODE);
                fill(rng, template, &mut out);
                out.push('\n');
            }
            out
        }
    }
}

/// The size of a tool output: mostly 200 B–4 KB, some 20–60 KB, rarely about 200 KB.
pub(crate) fn output_size(rng: &mut Rng) -> usize {
    let p = rng.unit();
    if p < 0.003 {
        rng.urange(180_000, 220_000)
    } else if p < 0.053 {
        rng.urange(20_000, 60_000)
    } else {
        rng.urange(200, 4000)
    }
}

/// A line or two the model says before calling a tool.
pub(crate) fn preamble(rng: &mut Rng) -> String {
    let len = rng.urange(40, 200);
    prose(rng, SENTENCES, len)
}

/// The model's final answer: one to a few paragraphs, sometimes with a code block.
pub(crate) fn answer(rng: &mut Rng) -> String {
    let len = rng.urange(200, 1800);
    let mut text = prose(rng, SENTENCES, len);
    if rng.chance(0.25) {
        let len = rng.urange(100, 800);
        let code = lines(rng, CODE, len, false);
        text.push_str(&format!("\n\n```rust\n{code}```\n"));
    }
    text
}

/// A thinking block's text.
pub(crate) fn thinking(rng: &mut Rng) -> String {
    let len = rng.urange(200, 3000);
    prose(rng, THOUGHTS, len)
}

/// The paragraph a fold leaves in place of its span.
pub(crate) fn fold_note(rng: &mut Rng) -> String {
    let len = rng.urange(250, 700);
    prose(rng, SENTENCES, len).replace('\n', " ")
}

/// A todo item's text.
pub(crate) fn todo(rng: &mut Rng) -> String {
    let template = *rng.pick(TODOS);
    filled(rng, template)
}

/// A session title.
pub(crate) fn title(rng: &mut Rng) -> String {
    let template = *rng.pick(TITLES);
    filled(rng, template)
}

/// A working directory for a session.
pub(crate) fn cwd(rng: &mut Rng) -> String {
    const CWDS: &[&str] = &[
        "/home/dev/hotl",
        "/home/dev/shop",
        "/home/dev/infra",
        "/srv/api",
    ];
    (*rng.pick(CWDS)).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_filled_and_code_braces_kept() {
        let mut rng = Rng::derive(3, 0);
        let text = filled(&mut rng, "`{id}` at {file}:{n} {:?} {}");
        assert!(!text.contains("{id}") && !text.contains("{file}"), "{text}");
        assert!(text.ends_with("{:?} {}"), "{text}");
    }

    #[test]
    fn outputs_reach_their_size() {
        let mut rng = Rng::derive(5, 0);
        for tool in [Tool::Bash, Tool::Read, Tool::Edit, Tool::Grep] {
            let out = tool_output(&mut rng, tool, "a.rs", 3000);
            assert!(
                (3000..3400).contains(&out.len()),
                "{} {}",
                tool.name(),
                out.len()
            );
        }
    }
}
