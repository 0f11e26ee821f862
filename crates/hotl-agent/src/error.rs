//! The agent's error type.

use hotl_log::LogError;
use hotl_protocol::FailureKind;
use hotl_wire::WireError;

/// What can stop a turn.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AgentError {
    /// The store failed (or another process owns the session).
    #[error(transparent)]
    Log(#[from] LogError),
    /// The provider failed after its retries.
    #[error(transparent)]
    Wire(#[from] WireError),
    /// The stream broke after the answer began (what arrived is kept; never retried
    /// silently): the provider was reached, so this is not a connection that failed to open.
    #[error("the connection to the provider broke mid-answer (what arrived is kept): {}", broke_how(.0))]
    BrokeMidAnswer(WireError),
    /// A cut or fold that does not fit the view.
    #[error(transparent)]
    View(#[from] hotl_view::ViewError),
    /// The model could not write a note that can be used (one missing the template's lines,
    /// cut at the output limit, longer than its span, or a tool call instead).
    /// It says why, and how to write the note instead (with the session and the span).
    #[error("the model's fold note was refused: {0}")]
    BadNote(String),
    /// A fold that cannot be made as asked.
    #[error("{0}")]
    Fold(String),
    /// A search of the archive that could not be made.
    #[error("{0}")]
    Recall(String),
    /// Compaction could not be done.
    #[error("cannot compact: {0}")]
    Compaction(String),
    /// Compaction cannot make room in the context window: nothing is left to compact, or
    /// what it keeps fills the window.
    #[error("cannot compact: {0}")]
    WindowFull(String),
    /// The system prompt and tool definitions alone do not fit the model's window: no
    /// conversation can (a local server started with a small context).
    #[error(
        "the system prompt and tool definitions alone take ~{tokens} tokens, more than the \
         server's {window}-token window: start the server with a larger context (llama-server \
         -c, Ollama num_ctx), or use a model with a larger window"
    )]
    PromptTooLarge {
        /// About how many tokens they take.
        tokens: u64,
        /// The window.
        window: u64,
    },
    /// No archived thread has this handle.
    #[error(
        "no archived thread has the handle {handle:?} ({})",
        if known.is_empty() { "nothing is archived yet".to_owned() } else { format!("known: {known}") }
    )]
    NoThread {
        /// The handle asked for.
        handle: String,
        /// The handles there are.
        known: String,
    },
    /// The session's working directory is gone.
    #[error("the session's working directory {0} does not exist")]
    MissingCwd(String),
    /// A fork of a session that has no user message yet.
    #[error("session {0} has no user message to fork from")]
    NothingToFork(String),
    /// A fork of a session whose lineage lost an ancestor.
    #[error("cannot fork: ancestor {ancestor} (parent of {child}) is missing")]
    MissingAncestor {
        /// The ancestor that is gone.
        ancestor: String,
        /// The session that names it as its parent.
        child: String,
    },
    /// A move run by command before the session has a first message.
    #[error("no session yet: send a message first")]
    NoSession,
    /// An operation on the session that cannot be done now (resuming a session it is in, a
    /// fork of a session held only in memory, ...): what to tell the user.
    #[error("{0}")]
    Refused(String),
    /// A `before_switch` hook cancelled a switch: what it said.
    #[error("the switch was cancelled by a before_switch hook: {0}")]
    SwitchCancelled(String),
    /// A blocking task (a snapshot, a search) panicked or was cancelled.
    #[error("internal error: {0}")]
    Task(String),
    /// A request would carry no message at all (a fork whose parent is gone, say): it is not
    /// sent.
    #[error("nothing to send the model: the conversation is empty ({0})")]
    EmptyConversation(String),
    /// The model made the same call (same tool, arguments and result) too many times in a
    /// row: the loop guard stopped the turn.
    #[error(
        "the turn was stopped: the model called {tool} {times} times in a row with the same \
         arguments and got the same result each time (a model stuck in a loop; try again with \
         a more specific request, or a stronger model)"
    )]
    Looping {
        /// The tool it kept calling.
        tool: String,
        /// How many times in a row.
        times: usize,
    },
    /// The model kept calling tools past the step limit.
    #[error("the turn stopped after {0} steps without a final answer")]
    TooManySteps(usize),
}

impl AgentError {
    /// What kind of failure this is, for a front end that decides on it (an editor's stop
    /// reason, an exit status) without reading the message.
    pub fn kind(&self) -> FailureKind {
        match self {
            AgentError::Wire(WireError::Provider { .. }) => FailureKind::Provider,
            AgentError::Wire(WireError::Transport { .. }) => FailureKind::Connection,
            AgentError::Wire(_) | AgentError::BrokeMidAnswer(_) => FailureKind::Stream,
            AgentError::TooManySteps(_) => FailureKind::StepLimit,
            AgentError::Looping { .. } => FailureKind::Loop,
            AgentError::WindowFull(_) | AgentError::PromptTooLarge { .. } => FailureKind::Window,
            AgentError::Log(_) => FailureKind::Store,
            AgentError::NoSession => FailureKind::NoSession,
            AgentError::Task(_) => FailureKind::Other,
            AgentError::View(_)
            | AgentError::BadNote(_)
            | AgentError::Fold(_)
            | AgentError::Recall(_)
            | AgentError::Compaction(_)
            | AgentError::NoThread { .. }
            | AgentError::MissingCwd(_)
            | AgentError::NothingToFork(_)
            | AgentError::MissingAncestor { .. }
            | AgentError::Refused(_)
            | AgentError::SwitchCancelled(_)
            | AgentError::EmptyConversation(_) => FailureKind::Refused,
        }
    }

    /// What an `error` record says of this error: the provider's error type or hotl's word
    /// for what failed, the message, the HTTP status when there was one.
    pub fn failure(&self) -> (String, String, Option<u16>) {
        match self {
            AgentError::Wire(WireError::Provider {
                kind,
                message,
                status,
                ..
            }) => (kind.clone(), message.clone(), *status),
            AgentError::BrokeMidAnswer(cause) => {
                ("stream".to_owned(), self.to_string(), cause.status())
            }
            AgentError::Wire(WireError::Interrupted { cause, .. }) => {
                ("stream".to_owned(), cause.to_string(), cause.status())
            }
            AgentError::Wire(e @ WireError::Transport { .. }) => {
                ("connection".to_owned(), e.to_string(), None)
            }
            AgentError::Wire(e) if e.is_interrupted() => ("stream".to_owned(), e.to_string(), None),
            AgentError::Wire(e) => ("stream".to_owned(), e.to_string(), e.status()),
            AgentError::TooManySteps(_) => ("step_limit".to_owned(), self.to_string(), None),
            AgentError::Looping { .. } => ("loop".to_owned(), self.to_string(), None),
            AgentError::WindowFull(_) | AgentError::PromptTooLarge { .. } => {
                ("window".to_owned(), self.to_string(), None)
            }
            AgentError::Log(_) => ("store".to_owned(), self.to_string(), None),
            AgentError::EmptyConversation(_) => ("empty".to_owned(), self.to_string(), None),
            other => ("error".to_owned(), other.to_string(), None),
        }
    }
}

/// What broke a stream, without the words of a connection that never opened.
fn broke_how(cause: &WireError) -> String {
    match cause {
        WireError::Transport { message, .. } => message.clone(),
        other => other.to_string(),
    }
}

/// The agent's result type.
pub type Result<T, E = AgentError> = std::result::Result<T, E>;
