//! The neutral stream: what any provider's streamed response decodes to.

use serde::Serialize;

use crate::usage::Usage;

/// Identifies one tool call within a response while it streams: the Anthropic block `index`,
/// the Chat `tool_calls[].index`, or the Responses `item_id`.
pub type CallKey = String;

/// One decoded event of a streamed response, in arrival order.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// The response began; the provider's message id and model, when it said.
    Start {
        /// Provider message / response id.
        id: Option<String>,
        /// The model that answers.
        model: Option<String>,
    },
    /// A piece of answer text.
    TextDelta {
        /// The text.
        text: String,
    },
    /// A piece of reasoning text (or its summary).
    ThinkingDelta {
        /// The text.
        text: String,
    },
    /// A reasoning block ended; what must be sent back with it unchanged.
    ThinkingDone {
        /// Anthropic's signature.
        signature: Option<String>,
        /// OpenAI's encrypted reasoning content, or Anthropic's redacted data.
        encrypted: Option<String>,
    },
    /// A tool call began.
    ToolCallStart {
        /// Which call the following argument fragments belong to.
        key: CallKey,
        /// The call id the result must answer.
        id: String,
        /// The tool's name.
        name: String,
    },
    /// A fragment of a tool call's JSON arguments.
    ToolCallArgs {
        /// The call.
        key: CallKey,
        /// The fragment, to be concatenated in order.
        fragment: String,
    },
    /// A tool call's arguments are complete.
    ToolCallEnd {
        /// The call.
        key: CallKey,
    },
    /// Token usage so far (later usage replaces earlier).
    Usage(Usage),
    /// The response ended.
    Stop {
        /// Why, normalised.
        reason: StopReason,
        /// The provider's own word for it.
        raw: Option<String>,
    },
    /// The provider reported an error inside the stream.
    Error {
        /// The provider's error type (`overloaded_error`, `server_error`, ...).
        kind: String,
        /// Its message.
        message: String,
        /// Whether asking again may succeed.
        retryable: bool,
    },
}

/// Why a response ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// The model finished its answer.
    Done,
    /// The model wants tool results.
    ToolUse,
    /// Cut off by the output limit or the context window.
    Truncated,
    /// The server wants the request sent again to let a server tool finish.
    Continue,
    /// The model refused, or a content filter stopped it.
    Refused,
    /// The provider failed the response.
    Error,
}

impl StopReason {
    /// The word hotl records and prints for it: `done`, `tool_use`, `truncated`, `continue`,
    /// `refused`, `error` (as it serializes).
    pub fn name(self) -> &'static str {
        match self {
            StopReason::Done => "done",
            StopReason::ToolUse => "tool_use",
            StopReason::Truncated => "truncated",
            StopReason::Continue => "continue",
            StopReason::Refused => "refused",
            StopReason::Error => "error",
        }
    }
}
