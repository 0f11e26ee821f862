//! The neutral request: what any dialect serialises. Messages borrow from the view.

use hotl_view::MessageRef;
use serde_json::value::RawValue;

/// A tool the model may call. The schema is kept as the exact JSON text it was frozen with.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct ToolDef {
    /// The tool's name.
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// JSON Schema of its input.
    pub input_schema: Box<RawValue>,
}

impl ToolDef {
    /// A tool definition from its parts; fails when `schema` is not JSON (a schema that came
    /// from elsewhere, an MCP server's say). The schema's text is kept exactly as given.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        schema: &str,
    ) -> Result<ToolDef, serde_json::Error> {
        Ok(ToolDef {
            name: name.into(),
            description: description.into(),
            input_schema: RawValue::from_string(schema.to_owned())?,
        })
    }
}

impl PartialEq for ToolDef {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
            && self.description == other.description
            && self.input_schema.get() == other.input_schema.get()
    }
}

/// Which tools the model may or must call.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ToolChoice {
    /// The model decides. The default.
    #[default]
    Auto,
    /// The model must call some tool.
    Any,
    /// The model may not call tools.
    None,
    /// The model must call this tool.
    Tool(String),
}

/// How long a prompt-cache entry lives (Anthropic).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Ttl {
    /// Five minutes, refreshed on every hit. The default, and the headless choice.
    #[default]
    FiveMinutes,
    /// One hour: worth its write premium when a person pauses between turns.
    OneHour,
}

/// Prompt-cache settings of a request.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CacheConfig {
    /// Lifetime of the entries this request writes (Anthropic).
    pub ttl: Ttl,
    /// Routing key (OpenAI `prompt_cache_key`): the session's cache key.
    pub key: Option<String>,
    /// Index of the message that starts the current episode, anchored with a breakpoint so a
    /// later fold's `since` stays readable from cache. None by default.
    pub episode_anchor: Option<usize>,
    /// OpenAI explicit breakpoints (GPT-5.6 and later): a marker on the last block of every
    /// durable user message and tool result. Off by default: earlier models cache implicitly.
    pub explicit_breakpoints: bool,
    /// Place no Anthropic breakpoints at all.
    pub disabled: bool,
}

/// Extended thinking / reasoning.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reasoning {
    /// Anthropic budgeted thinking (`budget_tokens`).
    Budget(u32),
    /// An effort level (`low`, `medium`, `high`), for dialects that take one.
    Effort(String),
}

/// Everything one model call sends.
#[derive(Clone, Debug)]
pub struct Request<'a> {
    /// The model.
    pub model: String,
    /// System prompt blocks, frozen for the session.
    pub system: Vec<String>,
    /// Tool definitions, frozen for the session.
    pub tools: Vec<ToolDef>,
    /// The conversation: the model view.
    pub messages: Vec<MessageRef<'a>>,
    /// Per-request text (todo reminder, turn context) added after the last breakpoint, at the
    /// end of the last user message, so it never disturbs the cached prefix.
    pub dynamic: Vec<String>,
    /// Output limit.
    pub max_tokens: u32,
    /// Tool choice.
    pub tool_choice: ToolChoice,
    /// Reasoning settings.
    pub reasoning: Option<Reasoning>,
    /// Prompt-cache settings.
    pub cache: CacheConfig,
    /// Stream the response.
    pub stream: bool,
    /// A key under which the encoder may reuse message bytes from the previous request. The
    /// caller promises that under one key the messages only grow at the end (change the key
    /// after a fold, a revert or a clear). `None`: encode everything.
    pub reuse_key: Option<String>,
}

impl<'a> Request<'a> {
    /// A streaming request for `model` with default settings.
    pub fn new(model: impl Into<String>, messages: Vec<MessageRef<'a>>) -> Self {
        Request {
            model: model.into(),
            system: Vec::new(),
            tools: Vec::new(),
            messages,
            dynamic: Vec::new(),
            max_tokens: 8192,
            tool_choice: ToolChoice::Auto,
            reasoning: None,
            cache: CacheConfig::default(),
            stream: true,
            reuse_key: None,
        }
    }
}
