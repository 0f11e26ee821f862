//! pi session files (`~/.pi/agent/sessions/--<cwd>--/<ts>_<id>.jsonl`) converted into hotl
//! records.
//!
//! Line 1 is a header (`type:"session"`); entries after it form a tree through `id` /
//! `parentId`, and the session's leaf is the last entry. Entries are walked in file order: an
//! entry whose parent is not the one before it (on the converted line) starts a new branch, so
//! a `revert` to its parent comes first and the older branch stays in the log, hidden.

use std::collections::HashMap;
use std::path::Path;

use hotl_log::{Block, Body, ToolInput, Usage};
use serde_json::{Map, Value};

use crate::draft::{Draft, Entry, src};
use crate::lines::{Line, str_of};
use crate::report::Report;
use crate::time::{TsError, from_millis, normalize};

/// What converting a pi session gave.
#[derive(Debug, Default)]
pub(crate) struct Conversion {
    pub draft: Draft,
    pub session_id: Option<String>,
    pub version: Option<String>,
    pub cwd: Option<String>,
}

struct Walk<'r> {
    report: &'r mut Report,
    out: Conversion,
    parents: HashMap<String, String>,
    seqs: HashMap<String, u64>,
    /// The last converted entry.
    head: Option<String>,
    ts: String,
}

/// Converts the lines of one pi session.
pub(crate) fn convert(lines: Vec<Line>, report: &mut Report) -> Conversion {
    let mut walk = Walk {
        report,
        out: Conversion::default(),
        parents: HashMap::new(),
        seqs: HashMap::new(),
        head: None,
        ts: String::new(),
    };
    for Line { no, obj } in lines {
        walk.entry(no, &obj);
    }
    let ts = walk.ts.clone();
    walk.out.draft.finish(&ts);
    walk.out
}

impl Walk<'_> {
    fn entry(&mut self, no: usize, obj: &Map<String, Value>) {
        let kind = str_of(obj, "type").unwrap_or("");
        if let Some(ts) = obj.get("timestamp") {
            let parsed = match ts {
                Value::Number(n) => n.as_u64().and_then(from_millis).ok_or(TsError::Malformed),
                Value::String(s) => normalize(s),
                _ => Err(TsError::Malformed),
            };
            match parsed {
                Ok(ts) => self.ts = ts,
                Err(TsError::NoZone) => {
                    let why = format!("an entry whose timestamp names no zone ({ts})");
                    self.report.skip_line(no, "timestamp_without_zone", why);
                    return;
                }
                Err(TsError::Malformed) => {
                    self.report.skip_line(
                        no,
                        "bad_timestamp",
                        "an entry with an unreadable timestamp",
                    );
                    return;
                }
            }
        }
        if kind == "session" {
            if self.out.session_id.is_none() {
                self.out.session_id = str_of(obj, "id").map(str::to_owned);
                self.out.cwd = str_of(obj, "cwd").map(str::to_owned);
                self.out.version = obj.get("version").map(|v| match v {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                });
                if let Some(title) = str_of(obj, "title") {
                    self.out.draft.title = Some(title.to_owned());
                }
            } else {
                self.report
                    .skip_line(no, "session", "a second session header");
            }
            return;
        }
        let id = str_of(obj, "id").map(str::to_owned);
        if let (Some(id), Some(parent)) = (&id, str_of(obj, "parentId")) {
            self.parents.insert(id.clone(), parent.to_owned());
        }
        match kind {
            "message" => self.message(no, obj, id),
            "compaction" => {
                let summary = str_of(obj, "summary").unwrap_or_default().to_owned();
                let until = str_of(obj, "firstKeptEntryId")
                    .and_then(|first| self.seqs.get(first))
                    .map_or(self.out.draft.last_seq(), |&s| s - 1);
                self.branch(&id);
                let mut more = Vec::new();
                if let Some(t) = obj.get("tokensBefore") {
                    more.push(("tokens_before", t.clone()));
                }
                let ts = self.ts.clone();
                self.out
                    .draft
                    .compaction(until, summary, &ts, Some(src(id.as_deref(), no, more)));
                let seq = self.out.draft.last_seq();
                self.converted(id, seq);
            }
            "session_info" | "title_change" => {
                if let Some(name) = str_of(obj, "name").or(str_of(obj, "title")) {
                    self.out.draft.title = Some(name.to_owned());
                }
            }
            "model_change"
            | "thinking_level_change"
            | "label"
            | "custom"
            | "custom_message"
            | "branch_summary"
            | "ttsr_injection"
            | "credential_pin"
            | "model_usage"
            | "service_tier_change"
            | "mode_change"
            | "session_init"
            | "archive" => {
                self.report.skip_line(no, kind, kind.to_owned());
            }
            "reset_boundary" => {
                self.branch(&id);
                let seq = self.out.draft.push(Body::Clear, &self.ts.clone(), None);
                self.converted(id, seq);
            }
            other => {
                let why = format!("unknown entry type {other:?}");
                self.report.skip_line(no, other, why);
            }
        }
    }

    fn message(&mut self, no: usize, obj: &Map<String, Value>, id: Option<String>) {
        let empty = Map::new();
        let m = obj
            .get("message")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let role = str_of(m, "role").unwrap_or("");
        let ts = self.ts.clone();
        match role {
            "user" => {
                let content = blocks(m.get("content"), self.report, &mut Vec::new());
                if content.is_empty() {
                    self.report
                        .skip_line(no, "message/empty", "an empty user message");
                    return;
                }
                self.branch(&id);
                let seq = self
                    .out
                    .draft
                    .user(content, &ts, Some(src(id.as_deref(), no, vec![])));
                self.converted(id, seq);
            }
            "assistant" => {
                let mut signatures = Vec::new();
                let content = blocks(m.get("content"), self.report, &mut signatures);
                self.branch(&id);
                let stop_raw = str_of(m, "stopReason").map(str::to_owned);
                let stop = stop_raw.as_deref().map(|s| {
                    match s {
                        "stop" => "done",
                        "length" => "truncated",
                        "toolUse" => "tool_use",
                        "aborted" => "interrupted",
                        other => other,
                    }
                    .to_owned()
                });
                let mut more = Vec::new();
                if !signatures.is_empty() {
                    more.push(("signatures", Value::from(signatures)));
                }
                let seq = self.out.draft.push(
                    Body::Assistant {
                        content,
                        model: str_of(m, "model").map(str::to_owned),
                        stop,
                        stop_raw,
                        usage: m.get("usage").map(usage),
                    },
                    &ts,
                    Some(src(id.as_deref(), no, more)),
                );
                self.converted(id, seq);
            }
            "toolResult" => {
                let content = blocks(m.get("content"), self.report, &mut Vec::new());
                self.branch(&id);
                let entry = Entry {
                    body: Body::ToolResult {
                        call: str_of(m, "toolCallId").unwrap_or_default().to_owned(),
                        content,
                        blob: None,
                        is_error: m.get("isError").and_then(Value::as_bool) == Some(true),
                        files: Vec::new(),
                    },
                    ts,
                    src: Some(src(id.as_deref(), no, vec![])),
                };
                for (_, seq) in self.out.draft.push_results(vec![((), entry)]) {
                    self.converted(id.clone(), seq);
                }
            }
            "bashExecution" => {
                if m.get("excludeFromContext").and_then(Value::as_bool) == Some(true) {
                    self.report.skip_line(
                        no,
                        "message/bashExecution",
                        "a shell command kept out of the context",
                    );
                    return;
                }
                let text = format!(
                    "$ {}\n{}",
                    str_of(m, "command").unwrap_or_default(),
                    str_of(m, "output").unwrap_or_default()
                );
                self.branch(&id);
                let more = vec![("kind", Value::from("bashExecution"))];
                let seq = self.out.draft.user(
                    vec![Block::text(text)],
                    &ts,
                    Some(src(id.as_deref(), no, more)),
                );
                self.converted(id, seq);
            }
            other => {
                let kind = format!("message/{other}");
                let why = format!("a {other} message");
                self.report.skip_line(no, &kind, why);
            }
        }
    }

    /// An entry whose parent is not where the conversation stands starts a new branch.
    fn branch(&mut self, id: &Option<String>) {
        let Some(id) = id else { return };
        let Some(mut at) = self.parents.get(id).cloned() else {
            return;
        };
        // Through entries that were not converted; a chain of parents that loops (an entry
        // that is its own parent) ends the walk: no chain is longer than the entries.
        let mut steps = 0;
        while !self.seqs.contains_key(&at) {
            steps += 1;
            match self.parents.get(&at) {
                Some(p) if steps <= self.parents.len() => at = p.clone(),
                _ => return,
            }
        }
        if self.head.as_deref() != Some(at.as_str()) {
            let to = self.seqs[&at];
            let ts = self.ts.clone();
            self.out.draft.revert(to, &ts);
        }
    }

    fn converted(&mut self, id: Option<String>, seq: u64) {
        if let Some(id) = id {
            self.seqs.insert(id.clone(), seq);
            self.head = Some(id);
        }
    }
}

/// pi content: a string, or `text`, `image{data, mimeType}`, `thinking{thinking,
/// thinkingSignature}`, `toolCall{id, name, arguments}` blocks.
fn blocks(
    content: Option<&Value>,
    report: &mut Report,
    signatures: &mut Vec<String>,
) -> Vec<Block> {
    let Some(items) = content.and_then(Value::as_array) else {
        return match content.and_then(Value::as_str) {
            Some(text) if !text.is_empty() => vec![Block::text(text)],
            _ => Vec::new(),
        };
    };
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    items
        .iter()
        .filter_map(
            |b| match b.get("type").and_then(Value::as_str).unwrap_or("") {
                "text" => Some(Block::text(text(b, "text"))),
                "image" => Some(Block::Image {
                    media_type: text(b, "mimeType"),
                    data: Some(text(b, "data")),
                    blob: None,
                }),
                "thinking" => {
                    let sig = text(b, "thinkingSignature");
                    if !sig.is_empty() {
                        signatures.push(sig);
                    }
                    Some(Block::Thinking {
                        thinking: text(b, "thinking"),
                        signature: None,
                    })
                }
                "toolCall" => Some(Block::ToolUse {
                    id: text(b, "id"),
                    name: text(b, "name"),
                    input: b
                        .get("arguments")
                        .cloned()
                        .map(ToolInput::from)
                        .unwrap_or_default(),
                }),
                other => {
                    report.skip_part(&format!("block/{other}"));
                    None
                }
            },
        )
        .collect()
}

/// `{input, output, cacheRead, cacheWrite}`.
fn usage(u: &Value) -> Usage {
    let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
    Usage {
        input: n("input"),
        cache_read: n("cacheRead"),
        cache_write: n("cacheWrite"),
        cache_write_1h: 0,
        output: n("output"),
        thinking: 0,
    }
}

/// What discovery shows of a pi session: the header's id and cwd, its name or first prompt.
pub(crate) fn peek(path: &Path) -> Option<crate::discover::Peek> {
    let bytes = std::fs::read(path).ok()?;
    let mut peek = crate::discover::Peek::default();
    let mut prompt = None;
    for line in bytes.split(|&b| b == b'\n') {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        peek.records += 1;
        let Ok(v) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        match v.get("type").and_then(Value::as_str) {
            Some("session") if peek.records == 1 => {
                peek.id = v.get("id").and_then(Value::as_str).map(str::to_owned);
                peek.cwd = v.get("cwd").and_then(Value::as_str).map(str::to_owned);
                peek.title = v.get("title").and_then(Value::as_str).map(str::to_owned);
            }
            Some("session_info") => {
                peek.title = v.get("name").and_then(Value::as_str).map(str::to_owned)
            }
            Some("message") if prompt.is_none() => {
                let m = v.get("message");
                if m.and_then(|m| m.get("role")).and_then(Value::as_str) == Some("user") {
                    let mut r = Report::default();
                    prompt = Some(hotl_log::plain_text(&blocks(
                        m.and_then(|m| m.get("content")),
                        &mut r,
                        &mut Vec::new(),
                    )));
                }
            }
            _ => {}
        }
    }
    peek.title = peek.title.or(prompt);
    Some(peek)
}
