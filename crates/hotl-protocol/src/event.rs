//! The events an agent sends its front end: owned values, one per thing that happened, in
//! order, each in an [`Envelope`] naming the command and the child it came from.
//! `hotl -p --output-format stream-json` prints each as one JSON line (`docs/json.md` lists
//! them); every front end renders the same values.

use serde::Serialize;

use crate::command::CommandId;

/// One event, with the command and the child it came from.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Envelope {
    /// The command whose work produced it; absent for what happens between commands (a
    /// background child's end recorded while idle, tools that arrive late, the first events).
    #[serde(rename = "command_id", skip_serializing_if = "Option::is_none")]
    pub command: Option<CommandId>,
    /// The handle of the fork (or other delegated child) whose work produced it; absent for
    /// the session's own. Nested children carry the innermost handle.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub child: Option<String>,
    /// What happened.
    #[serde(flatten)]
    pub event: Event,
}

/// How [`Event::ToolsAdded`] reads, for a front end: the count and the first few names.
pub fn tools_added_line(tools: &[String]) -> String {
    const SHOWN: usize = 4;
    let mut names = tools
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if tools.len() > SHOWN {
        names.push_str(&format!(" and {} more", tools.len() - SHOWN));
    }
    let s = if tools.len() == 1 { "" } else { "s" };
    format!("{} tool{s} ready: {names}", tools.len())
}

/// What an agent reports. Serialized with a `type` tag (`"tool_use"`, `"notice"`, ...).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Event {
    /// The agent is ready: the first event, before any command runs.
    Init {
        /// The session's id (a new session's is given out now and its log written with the
        /// first message).
        session_id: String,
        /// Whether the session exists on disk already.
        saved: bool,
        /// Its working directory.
        cwd: String,
        /// The model asked.
        model: String,
        /// The tools the model can call, in order.
        tools: Vec<String>,
        /// The permission mode calls are decided under (`default`, `accept-edits`, `bypass`,
        /// `plan`): a front end shows it from the start.
        mode: String,
    },
    /// Tools arrived after [`Event::Init`] (an MCP server's, started after the front end's
    /// first frame): a session written from now on offers them too.
    ToolsAdded {
        /// Their names, in order.
        tools: Vec<String>,
    },
    /// The session was written for the first time (its first message).
    Created {
        /// Its id.
        session_id: String,
    },
    /// A model stream event, as it arrives.
    Model {
        /// The event.
        event: hotl_wire::Event,
    },
    /// A tool call is about to run (every call: built-in tools, moves, unknown names).
    ToolUse {
        /// The call id.
        id: String,
        /// The tool.
        name: String,
        /// Its arguments, exactly as the model wrote them (a JSON string holding the text
        /// when it is not JSON).
        input: hotl_log::ToolInput,
    },
    /// Output a running call printed, as it comes (a command's stdout and stderr): what a
    /// front end shows while the call runs. The result still carries the whole output.
    ToolOutput {
        /// The call id.
        id: String,
        /// The text printed since the last one.
        text: String,
    },
    /// A tool call finished (or was answered without running: refused, cancelled).
    ToolResult {
        /// The call id.
        id: String,
        /// The tool.
        name: String,
        /// Whether it failed.
        is_error: bool,
        /// What the model sees.
        content: String,
    },
    /// Something worth a line: a retry, a refusal, a recovery, a compaction.
    Notice {
        /// What to say.
        message: String,
    },
    /// A call needs the user's yes: answer with [`Command::Approve`](crate::Command::Approve)
    /// and this id. The turn waits; drawing and other commands do not.
    Approval {
        /// What to answer.
        id: u64,
        /// The tool.
        tool: String,
        /// The question, naming the call.
        question: String,
        /// What the call would do, shown before the question (empty when there is nothing
        /// more to show than the question says).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        preview: Vec<crate::PreviewLine>,
    },
    /// Where the session stands: sent after each step, each command and on request.
    Status(Status),
    /// A fork (or other delegated child) started; its events carry its handle until
    /// [`Event::ChildEnded`].
    ChildStarted {
        /// Its handle.
        handle: String,
        /// What it was asked to do.
        task: String,
        /// The agent it runs as: `fork` for a fork, else the spawned agent's name.
        agent: String,
    },
    /// A child finished.
    ChildEnded {
        /// Its handle.
        handle: String,
        /// Whether it finished its turn (not failed).
        ok: bool,
    },
    /// The agent is about to switch sessions; a `before_switch` hook may still cancel it
    /// (then the switch fails, and nothing changed).
    BeforeSwitch {
        /// Why.
        reason: SwitchReason,
        /// The session being left.
        from: String,
        /// The session switched to, when it is known already (a resume's; a new session's
        /// id once given out; a fork's only after it is made).
        #[serde(skip_serializing_if = "Option::is_none")]
        to: Option<String>,
    },
    /// The agent switched sessions: commands act on `to` from now on.
    Switch {
        /// Why.
        reason: SwitchReason,
        /// The session left.
        from: String,
        /// The session switched to.
        to: String,
        /// Whether it exists on disk (a new one is written with its first message).
        saved: bool,
        /// Its working directory.
        cwd: String,
        /// Its title, when it has one.
        #[serde(skip_serializing_if = "Option::is_none")]
        title: Option<String>,
        /// Its visible user turns.
        turns: usize,
        /// Its permission mode, as recorded (the one it runs with from now on).
        mode: String,
    },
    /// A command ended: how, with what it gave or why it failed. Every command ends with
    /// exactly one, carrying the command's id in its envelope.
    ///
    /// Serialized as the event that used to end the command (`turn_ended`, `move_ended`,
    /// `failed` with a `kind`, ...), so the JSON lines keep their shape.
    #[serde(untagged)]
    Done(crate::done::Done),
}

/// Why the agent switched sessions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SwitchReason {
    /// To a new, empty session (`/new`, and after `/drop`).
    New,
    /// To a fork of the current session (`/fork`).
    Fork,
    /// To another existing session (`/resume`).
    Resume,
}

impl SwitchReason {
    /// The word events and hooks use.
    pub fn name(self) -> &'static str {
        match self {
            SwitchReason::New => "new",
            SwitchReason::Fork => "fork",
            SwitchReason::Resume => "resume",
        }
    }
}

/// What a move run by command gave.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "move", rename_all = "snake_case")]
pub enum MoveResult {
    /// A span was folded.
    Folded {
        /// Its first stamp.
        since: u64,
        /// Its last stamp.
        until: u64,
        /// The handle it is archived under.
        handle: String,
        /// The note that replaces it.
        note: String,
        /// The files the span touched.
        files: Vec<String>,
    },
    /// Everything the model sees was compacted.
    Compacted {
        /// Compacted through this seq.
        until: u64,
        /// The handle recall and ask name it by (`compaction@t<until>`).
        handle: String,
    },
    /// Recall's hits, as the model would see them.
    Recalled {
        /// The rendered hits.
        text: String,
    },
    /// An archived thread's answer.
    Answered {
        /// The answer (with a `stale:` line when its files changed since).
        text: String,
    },
}

/// Where a session stands, for a status line.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Status {
    /// The session's id.
    pub session_id: String,
    /// About how many tokens the next request holds (0: unknown, e.g. right after a fold).
    pub context_used: u64,
    /// The model's context window in tokens (0: no limit known).
    pub context_window: u64,
    /// `context_used` as a percentage of the window.
    pub context_percent: u64,
    /// Todos marked done.
    pub todos_done: usize,
    /// Todos in all.
    pub todos: usize,
    /// The model that answered last (or the session's).
    pub model: Option<String>,
    /// The permission mode recorded last.
    pub mode: Option<String>,
    /// The reasoning effort asked, when one is set.
    pub effort: Option<String>,
    /// The sandbox commands run in (`workspace-write`, `read-only`, `off`), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<String>,
    /// Tokens this process spent on the session.
    pub usage: hotl_wire::Usage,
    /// Dollars this process spent (known prices only).
    pub cost: f64,
    /// The session had turns before this process opened it: `usage` and `cost` are this
    /// run's, not the session's (`hotl stats` counts everything).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub this_run: bool,
    /// No price is known for the model (a local server, say): `cost` says nothing.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unpriced: bool,
    /// Model calls this process made.
    pub requests: u32,
    /// The share of the last request's prompt read from the cache (0 to 1), when known.
    pub cache_hit: Option<f64>,
    /// Time this process spent waiting for the model (after each request body was built), in
    /// seconds.
    #[serde(rename = "model_seconds", serialize_with = "seconds")]
    pub model_time: std::time::Duration,
    /// Time this process spent in tools, in seconds.
    #[serde(rename = "tool_seconds", serialize_with = "seconds")]
    pub tool_time: std::time::Duration,
}

fn seconds<S: serde::Serializer>(d: &std::time::Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}
