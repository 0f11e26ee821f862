//! How a turn runs: the model, its limits, the prompt-cache lifetime, prices, permissions.

use hotl_wire::{Pricing, Reasoning, Ttl};

use crate::permission::Policy;

/// How a turn runs.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The model asked.
    pub model: String,
    /// The output limit per response the user set (`--max-tokens`, `HOTL_MAX_TOKENS`,
    /// `[provider] max_tokens`). `None`: [`DEFAULT_MAX_TOKENS`], and at most a quarter of a
    /// window under 32K tokens. Either way a request never asks more than the window leaves
    /// after the request itself (see [`Settings::output_limit`]).
    pub max_tokens: Option<u32>,
    /// Prompt-cache lifetime: 5 minutes headless, 1 hour in the console.
    pub ttl: Ttl,
    /// Prices, for the cost counter.
    pub pricing: Pricing,
    /// Permissions.
    pub policy: Policy,
    /// Model calls per turn before giving up.
    pub max_steps: usize,
    /// How deep delegation may go: a root's children are at depth 1, theirs at 2
    /// (`[agents] max_depth`, forks included).
    pub max_depth: usize,
    /// How many background children of a session run at once (`[agents] max_concurrent`);
    /// more wait for a slot.
    pub max_concurrent: usize,
    /// Wait for background children at the end of a turn and give the model one more step
    /// with their reports (headless runs: nothing would be there to receive them later).
    pub wait_background: bool,
    /// Title a root session after its first answer (consoles and editors; never headless).
    pub title: Option<super::TitleSettings>,
    /// Reasoning settings.
    pub reasoning: Option<Reasoning>,
    /// The level of reasoning effort `reasoning` was made from (`low`, `medium`, `high`),
    /// when one was asked.
    pub effort: Option<String>,
    /// OpenAI explicit prompt-cache breakpoints (GPT-5.6 and later).
    pub explicit_breakpoints: bool,
    /// The model's context window in tokens: a turn compacts before a request that would
    /// come near it (0: never).
    pub context_window: u64,
    /// One tool result takes at most this fraction (1/N) of the room the window leaves after
    /// the system prompt and tools, the rest in a blob (0: only the tools' own caps).
    pub result_share: u64,
    /// Environment variables tools' processes do not get: where provider keys are read from.
    /// [`PROVIDER_KEY_VARS`] by default; add any other the keys came from.
    pub hidden_env: std::sync::Arc<[String]>,
    /// A program that leads each `bash` command's process group and ends it when this
    /// process dies, however it dies (`hotl --reap-group`); `None` runs the shell directly
    /// (its children may then outlive a process killed with SIGKILL).
    pub reaper: Option<std::sync::Arc<std::path::Path>>,
    /// The user's hooks, run at the points of a session's life they name.
    pub hooks: std::sync::Arc<[crate::hooks::Hook]>,
    /// The session lives only in memory (`--no-session`): nothing outside this process can
    /// resume or fork it, so switching to a fork or to a saved session is refused.
    pub ephemeral: bool,
    /// Where the trees this agent writes are published beyond this machine, if anywhere.
    pub publisher: Option<std::sync::Arc<dyn crate::publish::Publisher>>,
}

/// The output limit asked when none is set.
pub const DEFAULT_MAX_TOKENS: u32 = 8192;

/// The least a request asks for: a window too full to leave this much is one compaction or
/// a refusal away, and asking less would only cut the answer short.
const LEAST_OUTPUT: u64 = 256;

/// Windows under this many tokens keep three quarters for the request by default: a weak
/// model on a small window otherwise runs away for minutes and leaves no room for the next.
const SMALL_WINDOW: u64 = 32_768;

/// The environment variables hotl reads provider keys from.
pub const PROVIDER_KEY_VARS: &[&str] = &["ANTHROPIC_API_KEY", "OPENAI_API_KEY"];

/// The default `[agents] max_concurrent`.
pub const DEFAULT_MAX_CONCURRENT: usize = 4;

/// The default `[agents] max_depth`.
pub const DEFAULT_MAX_DEPTH: usize = 2;

/// By default a tool result takes at most a quarter of the room the window leaves.
pub const DEFAULT_RESULT_SHARE: u64 = 4;

impl Settings {
    /// The output limit for a request of about `request_tokens`: the one set (else the
    /// default, at most a quarter of a small window), never more than the window leaves after
    /// the request (with a tenth of it as margin: the estimate is counted in bytes), and never
    /// less than a small floor.
    pub fn output_limit(&self, request_tokens: u64) -> u32 {
        let window = self.context_window;
        let mut limit = u64::from(self.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS));
        if window == 0 {
            return limit as u32;
        }
        if self.max_tokens.is_none() && window < SMALL_WINDOW {
            limit = limit.min(window / 4);
        }
        let left = window.saturating_sub(request_tokens + request_tokens / 10);
        limit.min(left).max(LEAST_OUTPUT.min(limit)) as u32
    }

    /// Defaults for `model`.
    pub fn new(model: impl Into<String>) -> Self {
        let model = model.into();
        Settings {
            context_window: super::compact::default_context_window(&model),
            result_share: DEFAULT_RESULT_SHARE,
            model,
            max_tokens: None,
            ttl: Ttl::FiveMinutes,
            pricing: Pricing::builtin(),
            policy: Policy::default(),
            max_steps: 200,
            max_depth: DEFAULT_MAX_DEPTH,
            title: None,
            wait_background: false,
            max_concurrent: DEFAULT_MAX_CONCURRENT,
            reasoning: None,
            effort: None,
            explicit_breakpoints: false,
            hidden_env: hidden_env(),
            reaper: None,
            hooks: std::sync::Arc::from([]),
            ephemeral: false,
            publisher: None,
        }
    }
}

/// The environment variables a tool's processes never see (a command like `env` would put them
/// in the log and send them to the provider): the provider keys.
pub fn hidden_env() -> std::sync::Arc<[String]> {
    PROVIDER_KEY_VARS.iter().map(|v| (*v).to_owned()).collect()
}
