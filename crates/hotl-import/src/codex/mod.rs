//! Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-…-<thread>.jsonl[.zst]`) converted
//! into hotl records.
//!
//! A rollout is linear. Its `response_item` lines are what the model saw; `event_msg` lines
//! repeat them for the UI (taken only for what the items lack: usage, titles, rollbacks).
//! Everything one model call produced (reasoning, messages, calls) becomes one assistant
//! record, closed by the `token_count` event that reports the call's usage; the cached part of
//! the input is taken out of `input`, since hotl counts it in `cache_read`.

mod items;

use std::collections::HashMap;

use hotl_log::{Block, Body, Usage};
use serde_json::{Map, Value};

use crate::draft::{Draft, Entry, src};
use crate::lines::{Line, str_of};
use crate::report::Report;
use crate::time::{TsError, normalize};

pub(crate) use items::peek;

/// What converting a rollout gave.
#[derive(Debug, Default)]
pub(crate) struct Conversion {
    pub draft: Draft,
    pub session_id: Option<String>,
    pub version: Option<String>,
    pub cwd: Option<String>,
    /// A spawned sub-agent's rollout names the thread that spawned it.
    pub parent_thread: Option<String>,
    /// Whether the session recorded Codex's base instructions (its system prompt, which
    /// hotl does not adopt: a continued session runs with hotl's).
    pub instructions: bool,
}

/// One model call being gathered.
struct Call {
    blocks: Vec<Block>,
    ts: String,
    line: usize,
    phases: Vec<Value>,
}

struct Walk<'r> {
    report: &'r mut Report,
    out: Conversion,
    call: Option<Call>,
    results: Vec<Entry>,
    model: Option<String>,
    ts: String,
    /// The seqs of the user prompts on the visible branch (for rollbacks).
    prompts: Vec<u64>,
    /// The index of the last assistant entry that still waits for its usage.
    unpaid: Option<usize>,
    /// A `web_search_end` call id not yet matched to its `web_search_call` item.
    search_ids: Vec<String>,
    /// Lines of user items the next `user_message` event confirms as typed.
    typed: HashMap<usize, bool>,
    legacy: bool,
}

/// Converts the lines of one rollout.
pub(crate) fn convert(lines: Vec<Line>, report: &mut Report) -> Conversion {
    let legacy = lines
        .first()
        .is_some_and(|l| !l.obj.contains_key("payload") && !l.obj.contains_key("type"));
    let typed = typed_prompts(&lines, legacy);
    let mut walk = Walk {
        report,
        out: Conversion::default(),
        call: None,
        results: Vec::new(),
        model: None,
        ts: String::new(),
        prompts: Vec::new(),
        unpaid: None,
        search_ids: Vec::new(),
        typed,
        legacy,
    };
    let mut meta_seen = false;
    for Line { no, obj } in lines {
        if let Some(ts) = str_of(&obj, "timestamp") {
            match normalize(ts) {
                Ok(ts) => walk.ts = ts,
                Err(TsError::NoZone) => {
                    let why = format!("a line whose timestamp names no zone ({ts})");
                    walk.report.skip_line(no, "timestamp_without_zone", why);
                    continue;
                }
                Err(TsError::Malformed) => {
                    let why = format!("a line with an unreadable timestamp ({ts})");
                    walk.report.skip_line(no, "bad_timestamp", why);
                    continue;
                }
            }
        }
        if legacy {
            if !meta_seen {
                meta_seen = true;
                walk.session_meta(&obj);
                continue;
            }
            if obj.contains_key("record_type") {
                walk.report.skip_line(no, "state", "a legacy state line");
                continue;
            }
            walk.item(no, &obj);
            continue;
        }
        let kind = str_of(&obj, "type").unwrap_or("").to_owned();
        let empty = Map::new();
        let payload = obj
            .get("payload")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        match kind.as_str() {
            "session_meta" if !meta_seen => {
                meta_seen = true;
                walk.session_meta(payload);
            }
            "session_meta" => walk.report.skip_line(
                no,
                "session_meta",
                "a later session_meta (a fork's or spawn's copy)",
            ),
            "response_item" => walk.item(no, payload),
            "event_msg" => walk.event(no, payload),
            "turn_context" => walk.turn_context(payload),
            "compacted" => walk.compacted(no, payload),
            other => {
                let why = format!("unknown line type {other:?}");
                walk.report.skip_line(no, other, why);
            }
        }
    }
    walk.flush(None);
    let ts = walk.ts.clone();
    walk.out.draft.finish(&ts);
    walk.out
}

/// Which user items were typed: in current rollouts, each typed prompt is followed by a
/// `user_message` event before the next item; injected context (AGENTS.md, the environment)
/// is not. Legacy files have no events: every user item counts, bar known wrappers.
fn typed_prompts(lines: &[Line], legacy: bool) -> HashMap<usize, bool> {
    let mut out = HashMap::new();
    let has_events = lines.iter().any(|l| {
        str_of(&l.obj, "type") == Some("event_msg")
            && l.obj
                .get("payload")
                .and_then(|p| p.get("type"))
                .and_then(Value::as_str)
                == Some("user_message")
    });
    for (i, line) in lines.iter().enumerate() {
        let item = if legacy {
            &line.obj
        } else if str_of(&line.obj, "type") == Some("response_item") {
            match line.obj.get("payload").and_then(Value::as_object) {
                Some(p) => p,
                None => continue,
            }
        } else {
            continue;
        };
        if str_of(item, "type") != Some("message") || str_of(item, "role") != Some("user") {
            continue;
        }
        let text = items::text_of(item.get("content"));
        let mut typed = !items::injected(&text);
        if typed && has_events && !legacy {
            typed = lines[i + 1..]
                .iter()
                .take_while(|l| str_of(&l.obj, "type") != Some("response_item"))
                .any(|l| {
                    l.obj
                        .get("payload")
                        .and_then(|p| p.get("type"))
                        .and_then(Value::as_str)
                        == Some("user_message")
                });
        }
        out.insert(line.no, typed);
    }
    out
}

impl Walk<'_> {
    fn session_meta(&mut self, meta: &Map<String, Value>) {
        self.out.session_id = str_of(meta, "id").map(str::to_owned);
        self.out.version = str_of(meta, "cli_version").map(str::to_owned);
        self.out.cwd = str_of(meta, "cwd").map(str::to_owned);
        self.out.instructions =
            meta.contains_key("base_instructions") || meta.contains_key("instructions");
        self.out.parent_thread = meta
            .get("source")
            .and_then(|s| s.get("subagent"))
            .and_then(|s| s.get("thread_spawn"))
            .and_then(|s| s.get("parent_thread_id"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        if let Some(from) = str_of(meta, "forked_from_id") {
            self.report.note(format!(
                "forked in Codex from thread {from}; only this file is imported"
            ));
        }
        if self.ts.is_empty()
            && let Some(ts) = str_of(meta, "timestamp").and_then(|t| normalize(t).ok())
        {
            self.ts = ts;
        }
    }

    fn turn_context(&mut self, ctx: &Map<String, Value>) {
        if let Some(model) = str_of(ctx, "model") {
            self.model = Some(model.to_owned());
        }
        if let (Some(cwd), Some(first)) = (str_of(ctx, "cwd"), self.out.cwd.as_deref())
            && cwd != first
        {
            self.report.note(format!(
                "the working directory changed during the session (to {cwd})"
            ));
        }
    }

    fn item(&mut self, no: usize, item: &Map<String, Value>) {
        let kind = str_of(item, "type").unwrap_or("");
        match kind {
            "message" => match str_of(item, "role").unwrap_or("") {
                "user" => self.user(no, item),
                "assistant" => {
                    let text = items::text_of(item.get("content"));
                    let phase = item.get("phase").cloned();
                    self.call(no).blocks.push(Block::text(text));
                    if let Some(phase) = phase {
                        self.call(no).phases.push(phase);
                    }
                }
                role => {
                    let kind = format!("message/{role}");
                    let why = format!("a {role} message (Codex's instructions, not the user's)");
                    self.report.skip_line(no, &kind, why);
                }
            },
            "reasoning" => {
                let summary = items::reasoning_text(item);
                if summary.is_empty() {
                    self.report.skip_line(
                        no,
                        "reasoning/encrypted",
                        "reasoning with no readable text (encrypted)",
                    );
                } else {
                    self.call(no).blocks.push(Block::Thinking {
                        thinking: summary,
                        signature: None,
                    });
                }
            }
            "function_call" | "custom_tool_call" | "local_shell_call" | "tool_search_call" => {
                let block = items::tool_use(item, no);
                self.call(no).blocks.push(block);
            }
            "web_search_call" => {
                let id = if self.search_ids.is_empty() {
                    format!("web_search-{no}")
                } else {
                    self.search_ids.remove(0)
                };
                let action = item.get("action").cloned().unwrap_or(Value::Null);
                let query = action
                    .get("query")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                self.call(no).blocks.push(Block::ToolUse {
                    id: id.clone(),
                    name: "web_search".to_owned(),
                    input: action.into(),
                });
                self.results.push(Entry {
                    body: items::result(id, vec![Block::text(format!("searched: {query}"))], false),
                    ts: self.ts.clone(),
                    src: Some(src(None, no, vec![])),
                });
            }
            "function_call_output" | "custom_tool_call_output" | "tool_search_output" => {
                let (content, is_error) = items::output(item);
                let call = str_of(item, "call_id").unwrap_or_default().to_owned();
                self.results.push(Entry {
                    body: items::result(call.clone(), content, is_error),
                    ts: self.ts.clone(),
                    src: Some(src(Some(&call), no, vec![])),
                });
                // The call is over once its output is in (later items are the next call's);
                // an output after its call was written goes out at once.
                self.flush(None);
            }
            other => {
                let kind = format!("response_item/{other}");
                let why = format!("a {other} item");
                self.report.skip_line(no, &kind, why);
            }
        }
    }

    fn user(&mut self, no: usize, item: &Map<String, Value>) {
        if self.typed.get(&no) == Some(&false) {
            self.report.skip_line(
                no,
                "message/injected",
                "injected context (AGENTS.md, environment), not typed by the user",
            );
            return;
        }
        let content = items::user_blocks(item.get("content"));
        if content.is_empty() {
            self.report
                .skip_line(no, "message/empty", "an empty user message");
            return;
        }
        self.flush(None);
        let seq = self
            .out
            .draft
            .user(content, &self.ts.clone(), Some(src(None, no, vec![])));
        self.prompts.push(seq);
    }

    fn event(&mut self, no: usize, event: &Map<String, Value>) {
        let kind = str_of(event, "type").unwrap_or("");
        match kind {
            "token_count" => match event.get("info").and_then(|i| i.get("last_token_usage")) {
                Some(last) => self.flush(Some(items::usage(last))),
                None => self.report.skip_line(
                    no,
                    "event_msg/token_count",
                    "a token_count with no usage",
                ),
            },
            "thread_name_updated" => {
                if let Some(name) = str_of(event, "thread_name") {
                    self.out.draft.title = Some(name.to_owned());
                }
            }
            "thread_rolled_back" => self.rollback(no, event),
            "web_search_end" => {
                if let Some(id) = str_of(event, "call_id") {
                    self.search_ids.push(id.to_owned());
                }
            }
            _ if self.legacy => {}
            other => {
                let kind = format!("event_msg/{other}");
                let why = format!("a {other} event (the UI's copy or a UI event)");
                self.report.skip_line(no, &kind, why);
            }
        }
    }

    /// `thread_rolled_back{num_turns}`: the last turns left the conversation. hotl keeps them
    /// as a reverted branch.
    fn rollback(&mut self, no: usize, event: &Map<String, Value>) {
        self.flush(None);
        let turns = event.get("num_turns").and_then(Value::as_u64).unwrap_or(1) as usize;
        if turns == 0 || self.prompts.is_empty() {
            self.report.skip_line(
                no,
                "event_msg/thread_rolled_back",
                "a rollback with nothing to roll back",
            );
            return;
        }
        let keep = self.prompts.len().saturating_sub(turns);
        let to = self.prompts[keep] - 1;
        self.prompts.truncate(keep);
        let ts = self.ts.clone();
        self.out.draft.revert(to, &ts);
    }

    fn compacted(&mut self, no: usize, c: &Map<String, Value>) {
        self.flush(None);
        let summary = match str_of(c, "message") {
            Some(m) if !m.is_empty() => m.to_owned(),
            _ => "compacted remotely by Codex; the summary is not readable".to_owned(),
        };
        let until = self.out.draft.last_seq();
        let ts = self.ts.clone();
        self.out
            .draft
            .compaction(until, summary, &ts, Some(src(None, no, vec![])));
    }

    /// The model call being gathered (one is opened when none is).
    fn call(&mut self, no: usize) -> &mut Call {
        self.call.get_or_insert_with(|| Call {
            blocks: Vec::new(),
            ts: self.ts.clone(),
            line: no,
            phases: Vec::new(),
        })
    }

    /// Writes the gathered call (with `usage` when a `token_count` closed it), then the tool
    /// results waiting for it.
    fn flush(&mut self, usage: Option<Usage>) {
        if let Some(call) = self.call.take() {
            let has_calls = call
                .blocks
                .iter()
                .any(|b| matches!(b, Block::ToolUse { .. }));
            let mut more = Vec::new();
            if !call.phases.is_empty() {
                more.push(("phase", Value::from(call.phases)));
            }
            self.out.draft.push(
                Body::Assistant {
                    content: call.blocks,
                    model: self.model.clone(),
                    stop: Some(if has_calls { "tool_use" } else { "done" }.to_owned()),
                    stop_raw: None,
                    usage,
                },
                &call.ts,
                Some(src(None, call.line, more)),
            );
            self.unpaid = usage.is_none().then(|| self.out.draft.entries.len() - 1);
        } else if let (Some(usage), Some(at)) = (usage, self.unpaid.take())
            && let Some(Entry {
                body: Body::Assistant { usage: slot, .. },
                ..
            }) = self.out.draft.entries.get_mut(at)
        {
            // Its outputs came before the count: the count is still this call's.
            *slot = Some(usage);
        }
        let results: Vec<((), Entry)> = std::mem::take(&mut self.results)
            .into_iter()
            .map(|e| ((), e))
            .collect();
        self.out.draft.push_results(results);
    }
}
