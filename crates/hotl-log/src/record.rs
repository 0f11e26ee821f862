//! Typed log records: the envelope every line shares and the body that varies by `type`.
//!
//! The on-disk format is documented in `docs/log-format.md`. Decoding goes through one flat
//! struct ([`RecordWire`]) so a line is parsed in a single pass; fields this version does not know
//! are skipped (they stay in the file, which is never rewritten).

use std::borrow::Cow;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::block::Block;

/// The version string stamped on every record this build writes.
pub const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");

/// One line of a log.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// Position in the lineage; strictly increasing, and the model-visible stamp `t<seq>`.
    pub seq: u64,
    /// When it was written, RFC 3339 UTC with milliseconds.
    pub ts: String,
    /// The engine version that wrote it (diagnostics only).
    pub v: Option<String>,
    /// What the record says.
    pub body: Body,
}

impl Record {
    /// A record stamped with this engine's version.
    pub fn new(seq: u64, ts: impl Into<String>, body: Body) -> Self {
        Record {
            seq,
            ts: ts.into(),
            v: Some(ENGINE_VERSION.to_owned()),
            body,
        }
    }

    /// The record's `type` string.
    pub fn kind(&self) -> &str {
        self.body.kind()
    }
}

/// Where a fork starts: a position in its parent's log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pin {
    /// The parent session's id.
    pub session: String,
    /// The last parent seq the fork sees.
    pub seq: u64,
    /// How many bytes of the parent's log the fork reads.
    pub offset: u64,
    /// blake3 of the (up to) 4 KiB before `offset`; a mismatch means the ancestor changed.
    pub hash: String,
}

/// How a delegated (subagent) session was started.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Delegation {
    /// The session that delegated.
    pub by: String,
    /// The agent definition used, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The task description.
    #[serde(default)]
    pub description: String,
    /// The handle the delegating session knows this one by (a fork's, for recall and ask;
    /// unique within the tree).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handle: Option<String>,
    /// The delegating session's tool call this session answers (a fork call's id), so
    /// recovery can tell which open call a child belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<String>,
    /// For a clean delegated session (one that inherits no history, so has no `parent` pin):
    /// the seq of the delegating session it was started at, its position in that session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<u64>,
    /// Blob holding the agent definition the session runs under, as its file was when the
    /// session started (a resumed or continued run uses the same one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_blob: Option<String>,
    /// Started in the background: the delegating session records its end as a
    /// `child_finished` record (and settles it on reopen when the process died first).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub background: bool,
}

/// The first record of every log.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionStart {
    /// The session id (a ULID).
    pub id: String,
    /// The directory the session works in.
    pub cwd: String,
    /// The model configured when it started.
    pub model: Option<String>,
    /// Where a fork starts, or `None` for a fresh session.
    pub parent: Option<Pin>,
    /// Set for delegated sessions.
    pub delegated: Option<Delegation>,
    /// The provider-side prompt-cache key.
    pub cache_key: Option<String>,
    /// Blob holding the frozen system prompt.
    pub system_blob: Option<String>,
    /// Blob holding the frozen tool definitions.
    pub tools_blob: Option<String>,
}

impl SessionStart {
    /// A fresh (not forked, not delegated) session in `cwd`; the id is assigned on creation.
    pub fn new(cwd: impl Into<String>) -> Self {
        SessionStart {
            id: String::new(),
            cwd: cwd.into(),
            model: None,
            parent: None,
            delegated: None,
            cache_key: None,
            system_blob: None,
            tools_blob: None,
        }
    }
}

/// Normalised token usage of one response.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Uncached input tokens.
    #[serde(default)]
    pub input: u64,
    /// Input tokens read from the prompt cache.
    #[serde(default)]
    pub cache_read: u64,
    /// Input tokens written to the prompt cache.
    #[serde(default)]
    pub cache_write: u64,
    /// Of `cache_write`, tokens written with the one-hour lifetime, which are priced higher
    /// than five-minute writes (absent in logs written before hotl kept the split: all
    /// five-minute).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_write_1h: u64,
    /// Output tokens (including thinking).
    #[serde(default)]
    pub output: u64,
    /// Of `output`, tokens spent thinking.
    #[serde(default)]
    pub thinking: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// An assistant record's `stop` in hotl's words, whichever hotl wrote it: newer logs hold
/// hotl's word (`done`, `tool_use`, `truncated`, `continue`, `refused`, `error`,
/// `interrupted`), older ones the provider's (`end_turn`, `stop`, `max_tokens`, `length`,
/// `refusal`, `content_filter`, ...), named here as the provider meant it.
pub fn stop_name(stop: &str) -> &str {
    match stop {
        "end_turn" | "stop" | "stop_sequence" | "completed" => "done",
        "tool_calls" | "function_call" => "tool_use",
        "max_tokens" | "length" | "incomplete" | "model_context_window_exceeded" => "truncated",
        "refusal" | "content_filter" => "refused",
        "pause_turn" => "continue",
        other => other,
    }
}

/// A file a tool read or changed, with the content hash it saw or left.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FileTouch {
    /// The path, as the tool resolved it.
    pub path: String,
    /// `read`, `write`, `edit`, ...
    pub op: String,
    /// blake3 of the content after the operation, when the file exists.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
}

impl FileTouch {
    /// The op of a touch read from a bare path (older fold records): its content is unknown.
    pub const LISTED: &'static str = "listed";

    /// The hash a touch records of content `bytes`: the first 32 hex digits of its blake3.
    pub fn hash_of(bytes: &[u8]) -> String {
        blake3::hash(bytes).to_hex()[..32].to_owned()
    }

    /// [`FileTouch::hash_of`] the file at `path`, read as a stream (it may be large); `None`
    /// when it cannot be read.
    pub fn hash_file(path: &std::path::Path) -> Option<String> {
        Some(full_file_hash(path)?[..32].to_owned())
    }

    /// Whether the file at `path` differs now from content recorded as `recorded` (a hash as
    /// touches record it; any other length of the hex is compared as a prefix; `None`: the
    /// file was absent): changed, gone, or there now though absent then. An empty recorded
    /// hash tells nothing, so it counts as changed.
    pub fn changed_since(recorded: Option<&str>, path: &std::path::Path) -> bool {
        match (recorded, full_file_hash(path)) {
            (Some(hash), Some(now)) => hash.is_empty() || !now.starts_with(hash),
            (None, None) => false,
            _ => true,
        }
    }
}

/// The blake3 hex of a file's content, read as a stream; `None` when it cannot be read.
fn full_file_hash(path: &std::path::Path) -> Option<String> {
    let mut hasher = blake3::Hasher::new();
    hasher.update_reader(std::fs::File::open(path).ok()?).ok()?;
    Some(hasher.finalize().to_hex().to_string())
}

impl<'de> Deserialize<'de> for FileTouch {
    /// A touch object, or a bare path (older fold records listed paths only).
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Touch {
            path: String,
            op: String,
            #[serde(default)]
            hash: Option<String>,
        }
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Either {
            Touch(Touch),
            Path(String),
        }
        Ok(match Either::deserialize(d)? {
            Either::Touch(t) => FileTouch {
                path: t.path,
                op: t.op,
                hash: t.hash,
            },
            Either::Path(path) => FileTouch {
                path,
                op: FileTouch::LISTED.to_owned(),
                hash: None,
            },
        })
    }
}

/// One entry of the todo list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Todo {
    /// What to do.
    pub text: String,
    /// `pending`, `in_progress` or `done`.
    pub status: String,
}

/// The lifecycle state a `run` record announces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunState {
    /// The turn began.
    Started,
    /// The model finished answering.
    Finished,
    /// The user cancelled it.
    Cancelled,
    /// It stopped before the model finished: the process died (recorded on recovery), the
    /// provider failed, or the turn reached its step limit.
    Interrupted,
    /// A state this version does not know.
    Other(String),
}

impl RunState {
    /// The state as a `run` record writes it (`started`, `finished`, ...).
    pub fn as_str(&self) -> &str {
        match self {
            RunState::Started => "started",
            RunState::Finished => "finished",
            RunState::Cancelled => "cancelled",
            RunState::Interrupted => "interrupted",
            RunState::Other(s) => s,
        }
    }

    /// The state a `run` record's word names (an unknown word is kept as [`RunState::Other`]).
    pub fn parse(s: &str) -> Self {
        match s {
            "started" => RunState::Started,
            "finished" => RunState::Finished,
            "cancelled" => RunState::Cancelled,
            "interrupted" => RunState::Interrupted,
            other => RunState::Other(other.to_owned()),
        }
    }
}

/// A finished span replaced in the view by a note and a handle.
#[derive(Clone, Debug, PartialEq)]
pub struct Fold {
    /// First seq of the span (inclusive).
    pub since: u64,
    /// Last seq of the span (inclusive).
    pub until: u64,
    /// Short hex handle for recall and ask.
    pub handle: String,
    /// The note that stands in for the span.
    pub note: String,
    /// Files the span touched: what its tools reported, and what its working-tree diff shows
    /// (whichever tool changed it), each with the content hash the span left (none for a
    /// deleted file). Older logs list bare paths; they read as touches with op
    /// [`FileTouch::LISTED`] and no hash.
    pub files: Vec<FileTouch>,
    /// Blob with the span's diff, when it changed files.
    pub diff_blob: Option<String>,
}

/// Where an imported session came from: another agent's session file, converted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImportInfo {
    /// The agent that wrote the file: `claude-code`, `codex` or `pi`.
    pub source: String,
    /// The version of that agent the file names, when it names one.
    pub source_version: Option<String>,
    /// The session id the file names.
    pub source_id: Option<String>,
    /// The file read (canonical path).
    pub source_path: String,
    /// blake3 hex of the file's bytes as read (after decompression).
    pub blake3: String,
    /// Lines the file holds (non-blank).
    pub records_total: u64,
    /// What was left out, counted by kind (a record type, a block type, `bad_json`, ...).
    pub skipped: std::collections::BTreeMap<String, u64>,
    /// Anything else the conversion had to say (a missing directory, a compaction the source
    /// made in place, ...).
    pub notes: Vec<String>,
    /// The session an earlier import of the same file became, when the file has changed since.
    pub previous: Option<String>,
    /// The last seq the import wrote: records up to it are the foreign history, whose tool
    /// calls reach a model as text notes.
    pub until: u64,
}

/// What a record says, by `type`.
#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    /// `session`: the first record of a log.
    Session(Box<SessionStart>),
    /// `user`: a submitted user message (a stamp).
    User {
        /// The message.
        content: Vec<Block>,
    },
    /// `assistant`: one model response.
    Assistant {
        /// Text, thinking and tool_use blocks.
        content: Vec<Block>,
        /// The model that produced it.
        model: Option<String>,
        /// Why it stopped, in hotl's words: `done`, `tool_use`, `truncated`, `continue`,
        /// `refused`, `error`, or `interrupted` (the stream was cut after output began). Logs
        /// written before the provider's word moved to `stop_raw` hold the provider's word
        /// here; [`stop_name`] reads both.
        stop: Option<String>,
        /// The provider's own word for it (`end_turn`, `stop`, `max_tokens`, `refusal`, ...).
        stop_raw: Option<String>,
        /// Token usage.
        usage: Option<Usage>,
    },
    /// `tool_result`: a tool's answer (a stamp).
    ToolResult {
        /// The tool_use id it answers.
        call: String,
        /// What the model sees (large outputs: head, tail and a pointer).
        content: Vec<Block>,
        /// The full output, when it was too large to inline.
        blob: Option<String>,
        /// Whether the tool failed.
        is_error: bool,
        /// Files read or changed.
        files: Vec<FileTouch>,
    },
    /// `run`: turn lifecycle.
    Run {
        /// The run id.
        run: String,
        /// What happened.
        state: RunState,
    },
    /// `fold`: a finished span, folded.
    Fold(Box<Fold>),
    /// `revert`: records after `to` written before this leave the visible branch.
    Revert {
        /// The last seq that stays visible.
        to: u64,
    },
    /// `restore`: files were put back (a revert's code, or the undo of an earlier restore):
    /// the working tree went from snapshot `before` to snapshot `after`. Undoing it puts the
    /// files it changed back as `before` had them.
    Restore {
        /// The stamp the code was put back to; `None` for an undo.
        to: Option<u64>,
        /// The tree before (a snapshot id, as `snapshot` records them).
        before: String,
        /// The tree after.
        after: String,
    },
    /// `clear`: the model view restarts after this record.
    Clear,
    /// `compaction`: everything up to `until` summarised.
    Compaction {
        /// Last seq covered.
        until: u64,
        /// The summary that replaces it.
        summary: String,
    },
    /// `name`: the session's name (`None` removes it).
    Name {
        /// The new name.
        name: Option<String>,
    },
    /// `title`: a display title.
    Title {
        /// The title.
        title: String,
        /// What the request that wrote it spent, when a model wrote it (the session paid).
        usage: Option<Usage>,
        /// The model that wrote it.
        model: Option<String>,
    },
    /// `todos`: the whole todo list.
    Todos {
        /// The list.
        items: Vec<Todo>,
    },
    /// `mode`: permission mode, plan mode, reasoning effort, sandbox mode and the model
    /// chosen in the session (absent fields are unchanged).
    Mode {
        /// `default`, `accept-edits`, `bypass`, ...
        permission: Option<String>,
        /// Plan (read-only) mode.
        plan: Option<bool>,
        /// Reasoning effort: `low`, `medium` or `high`.
        effort: Option<String>,
        /// Sandbox mode: `read-only`, `workspace-write` or `off`.
        sandbox: Option<String>,
        /// The model chosen (`/model`), with `provider`: a resume on that provider uses it.
        model: Option<String>,
        /// The provider the model was chosen on (`anthropic`, `openai`, ...).
        provider: Option<String>,
    },
    /// `drop`: the session was dropped but is kept for its descendants.
    Drop,
    /// `snapshot`: the working tree after a step that may have changed files, so a fold can
    /// store the diff its span made.
    Snapshot {
        /// A git tree id (written through a private index) inside a git work tree, else
        /// `manifest:<blob hash>`: a blob listing each file's content blob (gc keeps both).
        tree: String,
    },
    /// `error`: what ended a turn that failed (a provider's error, a stream cut for good, the
    /// step limit), so the log says why the turn has no answer. Never sent to the model.
    Error {
        /// The provider's error type (`insufficient_quota`, `overloaded_error`, ...), or
        /// hotl's word for what failed (`stream`, `step_limit`, ...).
        error: String,
        /// What it said.
        message: String,
        /// The HTTP status the provider answered with, when it did.
        status: Option<u16>,
    },
    /// `ask`: one question put to an archived thread, and its answer (kept for the archive;
    /// only the answer enters the main line, as a tool result when the model asked).
    Ask {
        /// The thread's handle.
        handle: String,
        /// The question.
        question: String,
        /// The answer.
        answer: String,
        /// What answering cost.
        usage: Option<Usage>,
    },
    /// `fresh`: the provider side starts clean: requests carry this prompt-cache key from
    /// here on (resumes and forks too). The transcript and the model's view are unchanged.
    Fresh {
        /// The new key.
        cache_key: String,
    },
    /// `reroot`: the session moved to another working directory (its recorded one was gone);
    /// tools run in `cwd` from here on, and lists show it there.
    Reroot {
        /// The new working directory.
        cwd: String,
    },
    /// `import`: this session was converted from another agent's file (right after
    /// `session`).
    Import(Box<ImportInfo>),
    /// `child_finished`: a child that ran in the background ended; its report reaches this
    /// session's model from here (appended at a step boundary, or at once when idle).
    ChildFinished {
        /// The handle the child is known by.
        handle: String,
        /// The child's session id.
        child: String,
        /// `finished`, `failed`, `cancelled` or `interrupted`.
        state: String,
        /// Its final message (or what ended it).
        report: String,
        /// What it spent.
        usage: Option<Usage>,
        /// Its dollars, when its model is priced.
        cost: Option<f64>,
        /// The patch of what it changed in its own worktree (`isolation: worktree`), as a
        /// blob; applied only when asked.
        patch_blob: Option<String>,
    },
    /// Any other `type`: kept in the file, skipped by the projection.
    Unknown {
        /// The `type` it had.
        kind: String,
    },
}

impl Body {
    /// The record's `type` string.
    pub fn kind(&self) -> &str {
        match self {
            Body::Session(_) => "session",
            Body::User { .. } => "user",
            Body::Assistant { .. } => "assistant",
            Body::ToolResult { .. } => "tool_result",
            Body::Run { .. } => "run",
            Body::Fold(_) => "fold",
            Body::Revert { .. } => "revert",
            Body::Restore { .. } => "restore",
            Body::Clear => "clear",
            Body::Compaction { .. } => "compaction",
            Body::Name { .. } => "name",
            Body::Title { .. } => "title",
            Body::Todos { .. } => "todos",
            Body::Mode { .. } => "mode",
            Body::Drop => "drop",
            Body::Ask { .. } => "ask",
            Body::ChildFinished { .. } => "child_finished",
            Body::Snapshot { .. } => "snapshot",
            Body::Error { .. } => "error",
            Body::Fresh { .. } => "fresh",
            Body::Reroot { .. } => "reroot",
            Body::Import(_) => "import",
            Body::Unknown { kind } => kind,
        }
    }

    /// A `mode` record that changes the reasoning effort only.
    pub fn effort(effort: impl Into<String>) -> Self {
        Body::Mode {
            permission: None,
            plan: None,
            effort: Some(effort.into()),
            sandbox: None,
            model: None,
            provider: None,
        }
    }

    /// A `mode` record that changes the sandbox mode only.
    pub fn sandbox(mode: impl Into<String>) -> Self {
        Body::Mode {
            permission: None,
            plan: None,
            effort: None,
            sandbox: Some(mode.into()),
            model: None,
            provider: None,
        }
    }

    /// A `mode` record that records the model chosen on `provider` only.
    pub fn chosen_model(model: impl Into<String>, provider: impl Into<String>) -> Self {
        Body::Mode {
            permission: None,
            plan: None,
            effort: None,
            sandbox: None,
            model: Some(model.into()),
            provider: Some(provider.into()),
        }
    }

    /// A title nobody paid for (a fork's from its task, an import's).
    pub fn title(title: String) -> Self {
        Body::Title {
            title,
            usage: None,
            model: None,
        }
    }

    /// A user message made of one text block.
    pub fn user_text(text: impl Into<String>) -> Self {
        Body::User {
            content: vec![Block::text(text)],
        }
    }
}

/// The flat on-disk shape of every record type (see the module doc for why it is flat).
#[derive(Serialize, Deserialize)]
struct RecordWire<'a> {
    seq: u64,
    ts: Cow<'a, str>,
    #[serde(rename = "type")]
    kind: Cow<'a, str>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    v: Option<Cow<'a, str>>,
    // session
    #[serde(default, skip_serializing_if = "Option::is_none")]
    id: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    cwd: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    model: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    parent: Option<Cow<'a, Pin>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    delegated: Option<Cow<'a, Delegation>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    cache_key: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    system_blob: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tools_blob: Option<Cow<'a, str>>,
    // messages
    #[serde(default, skip_serializing_if = "Option::is_none")]
    content: Option<Cow<'a, [Block]>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    stop: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    stop_raw: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    usage: Option<Usage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    call: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    blob: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    is_error: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    files: Option<serde_json::Value>,
    // run
    #[serde(default, skip_serializing_if = "Option::is_none")]
    run: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    state: Option<Cow<'a, str>>,
    // fold, compaction, revert
    #[serde(default, skip_serializing_if = "Option::is_none")]
    since: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    until: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    handle: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    note: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    diff_blob: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    summary: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    to: Option<u64>,
    // state
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    title: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    items: Option<Cow<'a, [Todo]>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    permission: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sandbox: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    provider: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tree: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    before: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    question: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    answer: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    plan: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    effort: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    error: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    message: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    status: Option<u16>,
    // import
    #[serde(default, skip_serializing_if = "Option::is_none")]
    source: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    source_version: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    source_id: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    source_path: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    blake3: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    records_total: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    skipped: Option<Cow<'a, std::collections::BTreeMap<String, u64>>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    notes: Option<Cow<'a, [String]>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    previous: Option<Cow<'a, str>>,
    // child_finished
    #[serde(default, skip_serializing_if = "Option::is_none")]
    child: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    report: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    cost: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    patch_blob: Option<Cow<'a, str>>,
}

fn b(s: &str) -> Option<Cow<'_, str>> {
    Some(Cow::Borrowed(s))
}

fn ob(s: &Option<String>) -> Option<Cow<'_, str>> {
    s.as_deref().map(Cow::Borrowed)
}

impl<'a> RecordWire<'a> {
    fn envelope(r: &'a Record) -> Self {
        RecordWire {
            seq: r.seq,
            ts: Cow::Borrowed(&r.ts),
            kind: Cow::Borrowed(r.kind()),
            v: ob(&r.v),
            id: None,
            cwd: None,
            model: None,
            parent: None,
            delegated: None,
            cache_key: None,
            system_blob: None,
            tools_blob: None,
            content: None,
            stop: None,
            stop_raw: None,
            usage: None,
            call: None,
            blob: None,
            is_error: false,
            files: None,
            run: None,
            state: None,
            since: None,
            until: None,
            handle: None,
            note: None,
            diff_blob: None,
            summary: None,
            to: None,
            name: None,
            title: None,
            items: None,
            permission: None,
            sandbox: None,
            provider: None,
            plan: None,
            effort: None,
            tree: None,
            before: None,
            error: None,
            message: None,
            status: None,
            question: None,
            answer: None,
            source: None,
            source_version: None,
            source_id: None,
            source_path: None,
            blake3: None,
            records_total: None,
            skipped: None,
            notes: None,
            previous: None,
            child: None,
            report: None,
            cost: None,
            patch_blob: None,
        }
    }

    fn from_record(r: &'a Record) -> Self {
        let mut w = RecordWire::envelope(r);
        match &r.body {
            Body::Session(s) => {
                w.id = b(&s.id);
                w.cwd = b(&s.cwd);
                w.model = ob(&s.model);
                w.parent = s.parent.as_ref().map(Cow::Borrowed);
                w.delegated = s.delegated.as_ref().map(Cow::Borrowed);
                w.cache_key = ob(&s.cache_key);
                w.system_blob = ob(&s.system_blob);
                w.tools_blob = ob(&s.tools_blob);
            }
            Body::User { content } => w.content = Some(Cow::Borrowed(content)),
            Body::Assistant {
                content,
                model,
                stop,
                stop_raw,
                usage,
            } => {
                w.content = Some(Cow::Borrowed(content));
                w.model = ob(model);
                w.stop = ob(stop);
                w.stop_raw = ob(stop_raw);
                w.usage = *usage;
            }
            Body::ToolResult {
                call,
                content,
                blob,
                is_error,
                files,
            } => {
                w.call = b(call);
                w.content = Some(Cow::Borrowed(content));
                w.blob = ob(blob);
                w.is_error = *is_error;
                if !files.is_empty() {
                    w.files = serde_json::to_value(files).ok();
                }
            }
            Body::Run { run, state } => {
                w.run = b(run);
                w.state = b(state.as_str());
            }
            Body::Fold(f) => {
                w.since = Some(f.since);
                w.until = Some(f.until);
                w.handle = b(&f.handle);
                w.note = b(&f.note);
                if !f.files.is_empty() {
                    w.files = serde_json::to_value(&f.files).ok();
                }
                w.diff_blob = ob(&f.diff_blob);
            }
            Body::Revert { to } => w.to = Some(*to),
            Body::Restore { to, before, after } => {
                w.to = *to;
                w.before = b(before);
                w.tree = b(after);
            }
            Body::Compaction { until, summary } => {
                w.until = Some(*until);
                w.summary = b(summary);
            }
            Body::Name { name } => w.name = ob(name),
            Body::Title {
                title,
                usage,
                model,
            } => {
                w.title = b(title);
                w.usage = *usage;
                w.model = ob(model);
            }
            Body::Todos { items } => w.items = Some(Cow::Borrowed(items)),
            Body::Mode {
                permission,
                plan,
                effort,
                sandbox,
                model,
                provider,
            } => {
                w.permission = ob(permission);
                w.sandbox = ob(sandbox);
                w.model = ob(model);
                w.provider = ob(provider);
                w.plan = *plan;
                w.effort = ob(effort);
            }
            Body::Ask {
                handle,
                question,
                answer,
                usage,
            } => {
                w.handle = b(handle);
                w.question = b(question);
                w.answer = b(answer);
                w.usage = *usage;
            }
            Body::Snapshot { tree } => w.tree = b(tree),
            Body::ChildFinished {
                handle,
                child,
                state,
                report,
                usage,
                cost,
                patch_blob,
            } => {
                w.handle = b(handle);
                w.child = b(child);
                w.state = b(state);
                w.report = b(report);
                w.usage = *usage;
                w.cost = *cost;
                w.patch_blob = patch_blob.as_deref().and_then(b);
            }
            Body::Error {
                error,
                message,
                status,
            } => {
                w.error = b(error);
                w.message = b(message);
                w.status = *status;
            }
            Body::Fresh { cache_key } => w.cache_key = b(cache_key),
            Body::Reroot { cwd } => w.cwd = b(cwd),
            Body::Import(i) => {
                w.source = b(&i.source);
                w.source_version = ob(&i.source_version);
                w.source_id = ob(&i.source_id);
                w.source_path = b(&i.source_path);
                w.blake3 = b(&i.blake3);
                w.records_total = Some(i.records_total);
                w.skipped = Some(Cow::Borrowed(&i.skipped));
                if !i.notes.is_empty() {
                    w.notes = Some(Cow::Borrowed(&i.notes));
                }
                w.previous = ob(&i.previous);
                w.until = Some(i.until);
            }
            Body::Clear | Body::Drop | Body::Unknown { .. } => {}
        }
        w
    }

    fn into_record(self) -> Result<Record, String> {
        fn need<T>(v: Option<T>, kind: &str, field: &str) -> Result<T, String> {
            v.ok_or_else(|| format!("{kind} record without `{field}`"))
        }
        fn own(v: Option<Cow<'_, str>>) -> Option<String> {
            v.map(Cow::into_owned)
        }
        fn files<T: serde::de::DeserializeOwned>(
            v: Option<serde_json::Value>,
        ) -> Result<Vec<T>, String> {
            match v {
                None => Ok(Vec::new()),
                Some(v) => serde_json::from_value(v).map_err(|e| format!("bad `files`: {e}")),
            }
        }
        // Ids read from a log become file names: anything but a session id (a path, say)
        // would let a log name another file as its history.
        fn session_id(id: &str, field: &str) -> Result<(), String> {
            if crate::store::is_session_id(id) {
                return Ok(());
            }
            let shown: String = id.chars().take(60).collect();
            Err(format!(
                "session record: `{field}` is not a session id (26 characters of Crockford base32): {shown:?}"
            ))
        }
        let kind = self.kind.as_ref();
        // (A log's own `id` is checked where it names a file: an import without `--new-id`.)
        if kind == "session"
            && let Some(pin) = &self.parent
        {
            session_id(&pin.session, "parent.session")?;
        }
        if kind == "session"
            && let Some(delegated) = &self.delegated
        {
            session_id(&delegated.by, "delegated.by")?;
        }
        let body = match kind {
            "session" => Body::Session(Box::new(SessionStart {
                id: need(own(self.id), kind, "id")?,
                cwd: own(self.cwd).unwrap_or_default(),
                model: own(self.model),
                parent: self.parent.map(Cow::into_owned),
                delegated: self.delegated.map(Cow::into_owned),
                cache_key: own(self.cache_key),
                system_blob: own(self.system_blob),
                tools_blob: own(self.tools_blob),
            })),
            "user" => Body::User {
                content: need(self.content, kind, "content")?.into_owned(),
            },
            "assistant" => Body::Assistant {
                content: need(self.content, kind, "content")?.into_owned(),
                model: own(self.model),
                stop: own(self.stop),
                stop_raw: own(self.stop_raw),
                usage: self.usage,
            },
            "tool_result" => Body::ToolResult {
                call: need(own(self.call), kind, "call")?,
                content: self.content.map(Cow::into_owned).unwrap_or_default(),
                blob: own(self.blob),
                is_error: self.is_error,
                files: files(self.files)?,
            },
            "run" => Body::Run {
                run: own(self.run).unwrap_or_default(),
                state: RunState::parse(&need(self.state, kind, "state")?),
            },
            "fold" => Body::Fold(Box::new(Fold {
                since: need(self.since, kind, "since")?,
                until: need(self.until, kind, "until")?,
                handle: need(own(self.handle), kind, "handle")?,
                note: own(self.note).unwrap_or_default(),
                files: files(self.files)?,
                diff_blob: own(self.diff_blob),
            })),
            "revert" => Body::Revert {
                to: need(self.to, kind, "to")?,
            },
            "restore" => Body::Restore {
                to: self.to,
                before: need(own(self.before), kind, "before")?,
                after: need(own(self.tree), kind, "tree")?,
            },
            "clear" => Body::Clear,
            "compaction" => Body::Compaction {
                until: need(self.until, kind, "until")?,
                summary: own(self.summary).unwrap_or_default(),
            },
            "name" => Body::Name {
                name: own(self.name),
            },
            "title" => Body::Title {
                title: need(own(self.title), kind, "title")?,
                usage: self.usage,
                model: own(self.model),
            },
            "todos" => Body::Todos {
                items: self.items.map(Cow::into_owned).unwrap_or_default(),
            },
            "mode" => Body::Mode {
                permission: own(self.permission),
                plan: self.plan,
                effort: own(self.effort),
                sandbox: own(self.sandbox),
                model: own(self.model),
                provider: own(self.provider),
            },
            "drop" => Body::Drop,
            "fresh" => Body::Fresh {
                cache_key: need(own(self.cache_key), kind, "cache_key")?,
            },
            "reroot" => Body::Reroot {
                cwd: need(own(self.cwd), kind, "cwd")?,
            },
            "snapshot" => Body::Snapshot {
                tree: need(own(self.tree), kind, "tree")?,
            },
            "error" => Body::Error {
                error: need(own(self.error), kind, "error")?,
                message: own(self.message).unwrap_or_default(),
                status: self.status,
            },
            "child_finished" => Body::ChildFinished {
                handle: need(own(self.handle), kind, "handle")?,
                child: own(self.child).unwrap_or_default(),
                state: own(self.state).unwrap_or_else(|| "finished".to_owned()),
                report: own(self.report).unwrap_or_default(),
                usage: self.usage,
                cost: self.cost,
                patch_blob: own(self.patch_blob),
            },
            "ask" => Body::Ask {
                handle: need(own(self.handle), kind, "handle")?,
                question: own(self.question).unwrap_or_default(),
                answer: own(self.answer).unwrap_or_default(),
                usage: self.usage,
            },
            "import" => Body::Import(Box::new(ImportInfo {
                source: need(own(self.source), kind, "source")?,
                source_version: own(self.source_version),
                source_id: own(self.source_id),
                source_path: own(self.source_path).unwrap_or_default(),
                blake3: own(self.blake3).unwrap_or_default(),
                records_total: self.records_total.unwrap_or_default(),
                skipped: self.skipped.map(Cow::into_owned).unwrap_or_default(),
                notes: self.notes.map(Cow::into_owned).unwrap_or_default(),
                previous: own(self.previous),
                until: self.until.unwrap_or_default(),
            })),
            _ => Body::Unknown {
                kind: self.kind.into_owned(),
            },
        };
        Ok(Record {
            seq: self.seq,
            ts: self.ts.into_owned(),
            v: own(self.v),
            body,
        })
    }
}

impl Serialize for Record {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        RecordWire::from_record(self).serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Record {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        RecordWire::deserialize(deserializer)?
            .into_record()
            .map_err(serde::de::Error::custom)
    }
}

/// Encodes a record as one log line, newline included.
pub fn encode_line(record: &Record) -> crate::Result<Vec<u8>> {
    let mut line = serde_json::to_vec(record)?;
    line.push(b'\n');
    Ok(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Arguments a model wrote across lines stay one record on one line.
    #[test]
    fn tool_arguments_written_across_lines_encode_as_one_line() {
        let input = crate::ToolInput::from_json("{\n    \"path\": \"a\\nb\"\r\n  }").unwrap();
        assert_eq!(input.get(), r#"{     "path": "a\nb"    }"#);
        let body = Body::Assistant {
            content: vec![crate::Block::ToolUse {
                id: "c1".into(),
                name: "read".into(),
                input,
            }],
            model: None,
            stop: None,
            stop_raw: None,
            usage: None,
        };
        let line = encode_line(&Record::new(3, "2026-01-01T00:00:00.000Z", body)).unwrap();
        assert_eq!(line.iter().filter(|&&b| b == b'\n').count(), 1);
        let back: Record = serde_json::from_slice(&line).unwrap();
        assert!(matches!(&back.body, Body::Assistant { content, .. }
            if matches!(&content[0], crate::Block::ToolUse { input, .. }
                if input.parse::<serde_json::Value>().unwrap()["path"] == "a\nb")));
    }

    fn rt(body: Body) {
        let r = Record::new(7, "2026-01-01T00:00:00.000Z", body);
        let line = encode_line(&r).unwrap();
        let back: Record = serde_json::from_slice(&line).unwrap();
        assert_eq!(back, r);
    }

    #[test]
    fn every_record_type_round_trips() {
        rt(Body::Session(Box::new(SessionStart {
            id: "01J".into(),
            cwd: "/p".into(),
            model: Some("m".into()),
            parent: Some(Pin {
                session: "01H00000000000000000000000".into(),
                seq: 4,
                offset: 99,
                hash: "ab".into(),
            }),
            delegated: None,
            cache_key: Some("k".into()),
            system_blob: None,
            tools_blob: None,
        })));
        rt(Body::user_text("hello"));
        rt(Body::Session(Box::new(SessionStart {
            delegated: Some(Delegation {
                by: "01H00000000000000000000000".into(),
                agent: Some("Explore".into()),
                description: "look".into(),
                handle: None,
                call: Some("toolu_1".into()),
                at: Some(7),
                agent_blob: None,
                background: false,
            }),
            ..SessionStart::new("/p")
        })));
        rt(Body::Import(Box::new(ImportInfo {
            source: "claude-code".into(),
            source_version: Some("2.1.7".into()),
            source_id: Some("e9fb".into()),
            source_path: "/x/e9fb.jsonl".into(),
            blake3: "ab".into(),
            records_total: 50,
            skipped: [("summary".to_owned(), 1)].into_iter().collect(),
            notes: vec!["n".into()],
            previous: Some("01H00000000000000000000000".into()),
            until: 40,
        })));
        rt(Body::Assistant {
            content: vec![Block::text("hi")],
            model: Some("m".into()),
            stop: Some("end_turn".into()),
            stop_raw: None,
            usage: Some(Usage {
                input: 1,
                ..Usage::default()
            }),
        });
        rt(Body::ToolResult {
            call: "c1".into(),
            content: vec![Block::text("ok")],
            blob: Some("ff".into()),
            is_error: true,
            files: vec![FileTouch {
                path: "a.rs".into(),
                op: "read".into(),
                hash: None,
            }],
        });
        rt(Body::Run {
            run: "r1".into(),
            state: RunState::Interrupted,
        });
        rt(Body::Fold(Box::new(Fold {
            since: 2,
            until: 5,
            handle: "b2e4".into(),
            note: "it builds".into(),
            files: vec![FileTouch {
                path: "a.rs".into(),
                op: "changed".into(),
                hash: Some("00ff".into()),
            }],
            diff_blob: None,
        })));
        rt(Body::Revert { to: 3 });
        rt(Body::Restore {
            to: Some(3),
            before: "t1".into(),
            after: "t2".into(),
        });
        rt(Body::Restore {
            to: None,
            before: "t2".into(),
            after: "t1".into(),
        });
        // Older fold records list bare paths.
        let legacy: Record = serde_json::from_str(
            r#"{"seq":4,"ts":"T","type":"fold","since":2,"until":3,"handle":"ab","note":"n","files":["a.rs"]}"#,
        )
        .expect("a legacy fold reads");
        match legacy.body {
            Body::Fold(f) => assert_eq!(
                f.files,
                vec![FileTouch {
                    path: "a.rs".into(),
                    op: FileTouch::LISTED.into(),
                    hash: None,
                }]
            ),
            other => panic!("{other:?}"),
        }
        rt(Body::Clear);
        rt(Body::Fresh {
            cache_key: "01JD-fresh".into(),
        });
        rt(Body::Reroot {
            cwd: "/new/place".into(),
        });
        rt(Body::Compaction {
            until: 9,
            summary: "s".into(),
        });
        rt(Body::Name {
            name: Some("n".into()),
        });
        rt(Body::title("t".into()));
        rt(Body::Title {
            title: "t".into(),
            usage: Some(Usage {
                input: 9,
                output: 4,
                ..Usage::default()
            }),
            model: Some("m".into()),
        });
        rt(Body::Todos {
            items: vec![Todo {
                text: "x".into(),
                status: "pending".into(),
            }],
        });
        rt(Body::Mode {
            permission: Some("plan".into()),
            plan: Some(true),
            effort: None,
            sandbox: Some("read-only".into()),
            model: None,
            provider: None,
        });
        rt(Body::Drop);
        rt(Body::Snapshot {
            tree: "4b825dc642cb6eb9a060e54bf8d69288fbee4904".into(),
        });
        rt(Body::ChildFinished {
            handle: "kid1".into(),
            child: "01JD0000000000000000000002".into(),
            state: "finished".into(),
            report: "found it".into(),
            usage: Some(Usage {
                input: 10,
                ..Usage::default()
            }),
            cost: Some(0.25),
            patch_blob: Some("ab".repeat(32)),
        });
        rt(Body::Ask {
            handle: "b2e4".into(),
            question: "why?".into(),
            answer: "because".into(),
            usage: None,
        });
    }

    #[test]
    fn envelope_fields_come_first() {
        let line = encode_line(&Record::new(1, "T", Body::Clear)).unwrap();
        let text = String::from_utf8(line).unwrap();
        assert!(
            text.starts_with(r#"{"seq":1,"ts":"T","type":"clear","v":""#),
            "{text}"
        );
    }

    #[test]
    fn unknown_types_and_fields_are_tolerated() {
        let r: Record =
            serde_json::from_str(r#"{"seq":3,"ts":"T","type":"hologram","x":{"deep":[1]}}"#)
                .unwrap();
        assert_eq!(r.kind(), "hologram");
        let r: Record =
            serde_json::from_str(r#"{"seq":3,"ts":"T","type":"clear","future_field":true}"#)
                .unwrap();
        assert_eq!(r.body, Body::Clear);
    }
}
