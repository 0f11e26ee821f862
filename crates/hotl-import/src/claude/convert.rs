//! One Claude Code transcript into a [`Draft`]: the walk in file order (see the module above).

use std::collections::HashMap;

use hotl_log::{Block, Body, Todo, Usage};
use serde_json::{Map, Value};

use super::blocks::{assistant_blocks, user_blocks};
use crate::draft::{Draft, Entry, src};
use crate::lines::{Line, str_of};
use crate::report::Report;
use crate::time::{TsError, normalize};

/// Which records a file's conversation is made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// A session: sidechain records (sub-agents' copies) are not its conversation.
    Session,
    /// A sub-agent's transcript: every record is a sidechain one.
    SubAgent,
}

/// A `Task` (or `Agent`) call: where a sub-agent was started.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct TaskCall {
    /// The seq of the assistant record holding the call.
    pub seq: u64,
    /// `subagent_type`.
    pub agent: Option<String>,
    /// `description` (else the prompt's first line).
    pub description: String,
}

/// What converting a transcript gave.
#[derive(Debug, Default)]
pub(crate) struct Conversion {
    pub draft: Draft,
    pub session_id: Option<String>,
    pub version: Option<String>,
    pub cwd: Option<String>,
    /// Sidechain records met in [`Mode::Session`] (all of them, in a sub-agent's file).
    pub sidechain: usize,
    /// Task calls by call id.
    pub tasks: HashMap<String, TaskCall>,
    /// Agent ids to the call that started them (`toolUseResult.agentId`, or the result's
    /// `agentId: <id>` line).
    pub agents: HashMap<String, String>,
}

/// A response being reassembled from its streamed chunks.
struct Open {
    message_id: String,
    blocks: Vec<Block>,
    model: Option<String>,
    stop_raw: Option<String>,
    usage: Option<Usage>,
    ts: String,
    uuids: Vec<String>,
    line: usize,
    signatures: Vec<String>,
}

/// A compaction boundary waiting for its summary.
struct Boundary {
    until: u64,
    uuid: Option<String>,
    line: usize,
    pre_tokens: Option<Value>,
    ts: String,
}

/// The walk's state.
struct Walk<'r> {
    mode: Mode,
    report: &'r mut Report,
    out: Conversion,
    open: Option<Open>,
    /// Tool results waiting for the response they answer to be complete, with their uuid.
    results: Vec<(Option<String>, Entry)>,
    boundary: Option<Boundary>,
    /// Every record's parent (compaction boundaries: their logical parent).
    parents: HashMap<String, String>,
    /// The seq each converted record's uuid ended up in.
    seqs: HashMap<String, u64>,
    /// The last converted record: where the conversation stands.
    head: Option<String>,
    /// Title candidates: custom-title > ai-title > summary.
    titles: [Option<String>; 3],
    ts: String,
}

/// Converts the lines of one transcript.
pub(crate) fn convert(lines: Vec<Line>, mode: Mode, report: &mut Report) -> Conversion {
    let mut walk = Walk {
        mode,
        report,
        out: Conversion::default(),
        open: None,
        results: Vec::new(),
        boundary: None,
        parents: HashMap::new(),
        seqs: HashMap::new(),
        head: None,
        titles: [None, None, None],
        ts: String::new(),
    };
    for line in super::order::branch_order(lines) {
        walk.line(line);
    }
    walk.flush();
    walk.end_boundary();
    let [custom, ai, summary] = std::mem::take(&mut walk.titles);
    walk.out.draft.title = custom.or(ai).or(summary);
    let ts = walk.ts.clone();
    walk.out.draft.finish(&ts);
    walk.out
}

/// Record types read for what they say about the session, not its conversation.
const IGNORED: &[&str] = &[
    "file-history-snapshot",
    "file-history-delta",
    "progress",
    "queue-operation",
    "last-prompt",
    "pr-link",
    "permission-mode",
    "agent-setting",
    "agent-name",
    "bridge-session",
    "worktree-state",
];

impl Walk<'_> {
    fn line(&mut self, line: Line) {
        let Line { no, mut obj } = line;
        let kind = str_of(&obj, "type").unwrap_or("").to_owned();
        match kind.as_str() {
            "summary" => {
                self.titles[2] = str_of(&obj, "summary").map(str::to_owned);
                return;
            }
            "custom-title" => {
                self.titles[0] = str_of(&obj, "customTitle").map(str::to_owned);
                return;
            }
            "ai-title" => {
                self.titles[1] = str_of(&obj, "aiTitle").map(str::to_owned);
                return;
            }
            _ => {}
        }
        if let Some(uuid) = str_of(&obj, "uuid") {
            let parent = str_of(&obj, "logicalParentUuid").or(str_of(&obj, "parentUuid"));
            if let Some(parent) = parent {
                self.parents.insert(uuid.to_owned(), parent.to_owned());
            }
        }
        if IGNORED.contains(&kind.as_str()) {
            self.report.skip_line(no, &kind, kind.clone());
            return;
        }
        if !matches!(
            kind.as_str(),
            "user" | "assistant" | "system" | "attachment"
        ) {
            let why = format!("unknown record type {kind:?}");
            self.report.skip_line(no, &kind, why);
            return;
        }
        let sidechain = obj.get("isSidechain").and_then(Value::as_bool) == Some(true);
        if sidechain && self.mode == Mode::Session {
            self.out.sidechain += 1;
            self.out.session_id = self
                .out
                .session_id
                .take()
                .or_else(|| str_of(&obj, "sessionId").map(str::to_owned));
            self.report.skip_line(
                no,
                "sidechain",
                "a sub-agent's record (its own file has it)",
            );
            return;
        }
        if let Some(ts) = str_of(&obj, "timestamp") {
            match normalize(ts) {
                Ok(ts) => self.ts = ts,
                Err(TsError::NoZone) => {
                    let why = format!("a record whose timestamp names no zone ({ts})");
                    self.report.skip_line(no, "timestamp_without_zone", why);
                    return;
                }
                Err(TsError::Malformed) => {
                    let why = format!("a record with an unreadable timestamp ({ts})");
                    self.report.skip_line(no, "bad_timestamp", why);
                    return;
                }
            }
        }
        for (key, slot) in [
            ("sessionId", &mut self.out.session_id),
            ("version", &mut self.out.version),
            ("cwd", &mut self.out.cwd),
        ] {
            if slot.is_none() {
                *slot = str_of(&obj, key).map(str::to_owned);
            }
        }
        if let Some(todos) = obj.get("todos").and_then(todo_list) {
            self.out.draft.todos = Some(todos);
        }
        match kind.as_str() {
            "assistant" => self.assistant(no, &mut obj),
            "user" => self.user(no, &mut obj),
            "system" => self.system(no, &obj),
            _ => self.attachment(no, &obj),
        }
    }

    fn assistant(&mut self, no: usize, obj: &mut Map<String, Value>) {
        self.end_boundary();
        let mut message = obj.remove("message").unwrap_or(Value::Null);
        let uuid = str_of(obj, "uuid").map(str::to_owned);
        if obj.get("isApiErrorMessage").and_then(Value::as_bool) == Some(true) {
            self.flush();
            let mut signatures = Vec::new();
            let content = message
                .get_mut("content")
                .map(Value::take)
                .unwrap_or(Value::Null);
            let blocks = assistant_blocks(&content, self.report, &mut signatures);
            let body = Body::Assistant {
                content: blocks,
                model: None,
                stop: Some("error".to_owned()),
                stop_raw: None,
                usage: None,
            };
            let seq = self
                .out
                .draft
                .push(body, &self.ts, Some(src(uuid.as_deref(), no, vec![])));
            self.converted(uuid, seq);
            return;
        }
        let message_id = message
            .get("id")
            .and_then(Value::as_str)
            .map_or_else(|| format!("line-{no}"), str::to_owned);
        if self.open.as_ref().map(|o| o.message_id.as_str()) != Some(message_id.as_str()) {
            self.flush();
            self.open = Some(Open {
                message_id,
                blocks: Vec::new(),
                model: None,
                stop_raw: None,
                usage: None,
                ts: self.ts.clone(),
                uuids: Vec::new(),
                line: no,
                signatures: Vec::new(),
            });
        }
        let open = self.open.as_mut().expect("opened above");
        let content = message
            .get_mut("content")
            .map(Value::take)
            .unwrap_or(Value::Null);
        let blocks = assistant_blocks(&content, self.report, &mut open.signatures);
        for block in &blocks {
            if let Block::ToolUse { id, name, input } = block {
                let input: Value = input.parse().unwrap_or(Value::Null);
                if name == "TodoWrite"
                    && let Some(todos) = input.get("todos").and_then(todo_list)
                {
                    self.out.draft.todos = Some(todos);
                }
                if matches!(name.as_str(), "Task" | "Agent") {
                    let description = input
                        .get("description")
                        .and_then(Value::as_str)
                        .or_else(|| input.get("prompt").and_then(Value::as_str))
                        .unwrap_or_default();
                    self.out.tasks.insert(
                        id.clone(),
                        TaskCall {
                            seq: 0,
                            agent: input
                                .get("subagent_type")
                                .and_then(Value::as_str)
                                .map(str::to_owned),
                            description: description.lines().next().unwrap_or("").to_owned(),
                        },
                    );
                }
            }
        }
        open.blocks.extend(blocks);
        if let Some(model) = message.get("model").and_then(Value::as_str) {
            open.model = Some(model.to_owned());
        }
        if let Some(stop) = message.get("stop_reason").and_then(Value::as_str) {
            open.stop_raw = Some(stop.to_owned());
        }
        // Every chunk repeats the response's usage (the last one is final): counted once.
        if let Some(usage) = message.get("usage") {
            open.usage = Some(usage_of(usage));
        }
        if let Some(uuid) = uuid {
            open.uuids.push(uuid);
        }
    }

    fn user(&mut self, no: usize, obj: &mut Map<String, Value>) {
        let uuid = str_of(obj, "uuid").map(str::to_owned);
        let content = obj
            .get_mut("message")
            .and_then(|m| m.get_mut("content"))
            .map(Value::take)
            .unwrap_or(Value::Null);
        if obj.get("isCompactSummary").and_then(Value::as_bool) == Some(true) {
            let summary = match &content {
                Value::String(s) => s.clone(),
                other => hotl_log::plain_text(&user_blocks(other, self.report)),
            };
            self.compaction(no, uuid, summary);
            return;
        }
        self.end_boundary();
        if obj.get("isMeta").and_then(Value::as_bool) == Some(true) {
            self.report
                .skip_line(no, "user/meta", "injected context (isMeta)");
            return;
        }
        let has_results = content.as_array().is_some_and(|items| {
            items
                .iter()
                .any(|i| i.get("type").and_then(Value::as_str) == Some("tool_result"))
        });
        if has_results {
            self.results(no, obj, uuid, &content);
            return;
        }
        if let Some(text) = content.as_str()
            && let Some(wrapper) = injected(text)
        {
            let why = format!("a {wrapper} wrapper (not typed by the user)");
            self.report.skip_line(no, "user/command", why);
            return;
        }
        let blocks = user_blocks(&content, self.report);
        if blocks.is_empty() {
            self.report
                .skip_line(no, "user/empty", "an empty user message");
            return;
        }
        self.prompt(no, uuid, blocks);
    }

    /// A message the user typed: where it hangs says whether it rewound the conversation.
    fn prompt(&mut self, no: usize, uuid: Option<String>, blocks: Vec<Block>) {
        self.flush();
        if let Some(uuid) = &uuid
            && let Some(at) = self.converted_ancestor(uuid)
            && self.head.as_deref() != Some(at.as_str())
        {
            let to = self.out.draft.last_seq().min(self.seqs[&at]);
            let ts = self.ts.clone();
            self.out.draft.revert(to, &ts);
        }
        let seq = self
            .out
            .draft
            .user(blocks, &self.ts, Some(src(uuid.as_deref(), no, vec![])));
        self.converted(uuid, seq);
    }

    /// A user record holding tool results: one hotl result per block, text beside them kept
    /// in the last one.
    fn results(
        &mut self,
        no: usize,
        obj: &mut Map<String, Value>,
        uuid: Option<String>,
        content: &Value,
    ) {
        let tool_use_result = obj.remove("toolUseResult");
        let items = content.as_array().map(Vec::as_slice).unwrap_or_default();
        let mut made: Vec<Entry> = Vec::new();
        let mut beside = Vec::new();
        for item in items {
            if item.get("type").and_then(Value::as_str) != Some("tool_result") {
                beside.extend(user_blocks(&Value::Array(vec![item.clone()]), self.report));
                continue;
            }
            let call = item
                .get("tool_use_id")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let blocks = user_blocks(item.get("content").unwrap_or(&Value::Null), self.report);
            if let Some(agent) = tool_use_result
                .as_ref()
                .and_then(|r| r.get("agentId"))
                .and_then(Value::as_str)
                .map(str::to_owned)
                .or_else(|| agent_tail(&blocks))
            {
                self.out.agents.entry(agent).or_insert_with(|| call.clone());
            }
            let mut more = vec![];
            if let Some(r) = &tool_use_result {
                more.push(("tool_use_result", r.clone()));
            }
            made.push(Entry {
                body: Body::ToolResult {
                    call,
                    content: blocks,
                    blob: None,
                    is_error: item.get("is_error").and_then(Value::as_bool) == Some(true),
                    files: Vec::new(),
                },
                ts: self.ts.clone(),
                src: Some(src(uuid.as_deref(), no, more)),
            });
        }
        if let Some(Entry {
            body: Body::ToolResult { content, .. },
            ..
        }) = made.last_mut()
        {
            content.extend(beside);
        }
        for entry in made {
            self.results.push((uuid.clone(), entry));
        }
        // Results wait for the response they answer to be complete (its chunks can come
        // after them); a result with nothing open goes out at once.
        if self.open.is_none() {
            self.flush();
        }
    }

    fn system(&mut self, no: usize, obj: &Map<String, Value>) {
        let subtype = str_of(obj, "subtype").unwrap_or("");
        if subtype == "compact_boundary" {
            self.flush();
            self.end_boundary();
            let until = str_of(obj, "logicalParentUuid")
                .and_then(|p| self.converted_ancestor_of(p))
                .map_or(self.out.draft.last_seq(), |at| self.seqs[&at]);
            self.boundary = Some(Boundary {
                until,
                uuid: str_of(obj, "uuid").map(str::to_owned),
                line: no,
                pre_tokens: obj
                    .get("compactMetadata")
                    .and_then(|m| m.get("preTokens"))
                    .cloned(),
                ts: self.ts.clone(),
            });
            return;
        }
        if subtype == "microcompact_boundary" {
            self.report
                .note("Claude Code cleared old tool results in place (microcompact); imported as the file holds them");
        }
        let kind = format!("system/{subtype}");
        self.report.skip_line(no, &kind, kind.clone());
    }

    fn attachment(&mut self, no: usize, obj: &Map<String, Value>) {
        let attachment = obj.get("attachment");
        let kind = attachment
            .and_then(|a| a.get("type"))
            .and_then(Value::as_str)
            .unwrap_or("");
        if kind == "queued_command"
            && let Some(prompt) = attachment
                .and_then(|a| a.get("prompt"))
                .and_then(Value::as_str)
        {
            self.report.note(
                "a prompt queued while Claude Code was working is imported as a user message",
            );
            self.prompt(
                no,
                str_of(obj, "uuid").map(str::to_owned),
                vec![Block::text(prompt)],
            );
            return;
        }
        let kind = format!("attachment/{kind}");
        self.report.skip_line(no, &kind, kind.clone());
    }

    /// The summary after a compaction boundary.
    fn compaction(&mut self, no: usize, uuid: Option<String>, summary: String) {
        self.flush();
        let boundary = self.boundary.take();
        let until = boundary
            .as_ref()
            .map_or(self.out.draft.last_seq(), |b| b.until);
        let mut more = Vec::new();
        if let Some(tokens) = boundary.as_ref().and_then(|b| b.pre_tokens.clone()) {
            more.push(("pre_tokens", tokens));
        }
        let ts = self.ts.clone();
        self.out
            .draft
            .compaction(until, summary, &ts, Some(src(uuid.as_deref(), no, more)));
        let seq = self.out.draft.last_seq();
        if let Some(b) = boundary {
            self.converted(b.uuid, seq);
        }
        self.converted(uuid, seq);
    }

    /// A boundary no summary followed: the compaction is still recorded.
    fn end_boundary(&mut self) {
        if let Some(b) = self.boundary.take() {
            let summary = "(compacted by Claude Code; no summary was recorded)".to_owned();
            self.out.draft.compaction(
                b.until,
                summary,
                &b.ts,
                Some(src(b.uuid.as_deref(), b.line, vec![])),
            );
            let seq = self.out.draft.last_seq();
            self.converted(b.uuid, seq);
        }
    }

    /// Writes the response being reassembled, then the results waiting for it.
    fn flush(&mut self) {
        if let Some(open) = self.open.take() {
            let has_calls = open
                .blocks
                .iter()
                .any(|b| matches!(b, Block::ToolUse { .. }));
            let stop = match open.stop_raw.as_deref() {
                Some(raw) => hotl_log::stop_name(raw).to_owned(),
                None if has_calls => "tool_use".to_owned(),
                None => "done".to_owned(),
            };
            let mut more = Vec::new();
            if !open.signatures.is_empty() {
                more.push(("signatures", Value::from(open.signatures)));
            }
            let body = Body::Assistant {
                content: open.blocks,
                model: open.model,
                stop: Some(stop),
                stop_raw: open.stop_raw,
                usage: open.usage,
            };
            let seq = self.out.draft.push(
                body,
                &open.ts,
                Some(src(Some(&open.message_id), open.line, more)),
            );
            if let Some(Entry {
                body: Body::Assistant { content, .. },
                ..
            }) = self.out.draft.entries.last()
            {
                for block in content {
                    if let Block::ToolUse { id, .. } = block
                        && let Some(task) = self.out.tasks.get_mut(id)
                    {
                        task.seq = seq;
                    }
                }
            }
            for uuid in open.uuids {
                self.seqs.insert(uuid.clone(), seq);
                self.head = Some(uuid);
            }
        }
        let results = std::mem::take(&mut self.results);
        for (uuid, seq) in self.out.draft.push_results(results) {
            self.converted(uuid, seq);
        }
    }

    fn converted(&mut self, uuid: Option<String>, seq: u64) {
        if let Some(uuid) = uuid {
            self.seqs.insert(uuid.clone(), seq);
            self.head = Some(uuid);
        }
    }

    /// The nearest converted record above `uuid` (through records that were not converted).
    fn converted_ancestor(&self, uuid: &str) -> Option<String> {
        self.converted_ancestor_of(self.parents.get(uuid)?)
    }

    /// `uuid` itself when it was converted, else its nearest converted ancestor.
    fn converted_ancestor_of(&self, uuid: &str) -> Option<String> {
        let mut at = uuid;
        for _ in 0..10_000 {
            if self.seqs.contains_key(at) {
                return Some(at.to_owned());
            }
            at = self.parents.get(at)?;
        }
        None
    }
}

/// `input_tokens`, `cache_read_input_tokens`, `cache_creation_input_tokens`, `output_tokens`.
fn usage_of(usage: &Value) -> Usage {
    let n = |k: &str| usage.get(k).and_then(Value::as_u64).unwrap_or(0);
    Usage {
        input: n("input_tokens"),
        cache_read: n("cache_read_input_tokens"),
        cache_write: n("cache_creation_input_tokens"),
        // Claude Code records the writes' lifetimes apart; the hour's are priced higher.
        cache_write_1h: usage
            .pointer("/cache_creation/ephemeral_1h_input_tokens")
            .and_then(Value::as_u64)
            .unwrap_or(0),
        output: n("output_tokens"),
        thinking: 0,
    }
}

/// A TodoWrite list (`[{content, status, activeForm}]`) as hotl's.
fn todo_list(v: &Value) -> Option<Vec<Todo>> {
    let items = v.as_array()?;
    Some(
        items
            .iter()
            .filter_map(|t| {
                let text = t.get("content").and_then(Value::as_str)?;
                let status = match t.get("status").and_then(Value::as_str) {
                    Some("completed") => "done",
                    Some("in_progress") => "in_progress",
                    _ => "pending",
                };
                Some(Todo {
                    text: text.to_owned(),
                    status: status.to_owned(),
                })
            })
            .collect(),
    )
}

/// The wrapper a user record's text is, when Claude Code wrote it rather than the user.
pub(super) fn injected(text: &str) -> Option<&'static str> {
    let t = text.trim_start();
    [
        ("<command-name>", "slash command"),
        ("<command-message>", "slash command"),
        ("<local-command-stdout>", "local command output"),
        ("<local-command-stderr>", "local command output"),
        ("<local-command-caveat>", "local command caveat"),
        (
            "Caveat: The messages below were generated",
            "local command caveat",
        ),
        ("<system-reminder>", "system reminder"),
    ]
    .into_iter()
    .find(|(prefix, _)| t.starts_with(prefix))
    .map(|(_, what)| what)
}

/// The agent id a Task result's text ends with (`agentId: a485154 (…)`).
fn agent_tail(blocks: &[Block]) -> Option<String> {
    let text = hotl_log::plain_text(blocks);
    let at = text.rfind("agentId: ")?;
    let id: String = text[at + 9..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect();
    (!id.is_empty()).then_some(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrappers_and_agent_tails() {
        assert_eq!(
            injected("<command-name>/clear</command-name>"),
            Some("slash command")
        );
        assert_eq!(injected("fix the bug"), None);
        assert_eq!(
            agent_tail(&[Block::text("done\nagentId: a485154 (for resuming)")]),
            Some("a485154".to_owned())
        );
    }
}
