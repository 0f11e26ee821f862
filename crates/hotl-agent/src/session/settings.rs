//! How a turn runs: the model, its limits, the prompt-cache lifetime, prices, permissions.

use hotl_wire::{Pricing, Reasoning, Ttl};

use crate::permission::Policy;

/// How a turn runs.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The model asked.
    pub model: String,
    /// Output limit per response.
    pub max_tokens: u32,
    /// Prompt-cache lifetime: 5 minutes headless, 1 hour in the console.
    pub ttl: Ttl,
    /// Prices, for the cost counter.
    pub pricing: Pricing,
    /// Permissions.
    pub policy: Policy,
    /// Model calls per turn before giving up.
    pub max_steps: usize,
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
}

/// The environment variables hotl reads provider keys from.
pub const PROVIDER_KEY_VARS: &[&str] = &["ANTHROPIC_API_KEY", "OPENAI_API_KEY"];

impl Settings {
    /// Defaults for `model`.
    pub fn new(model: impl Into<String>) -> Self {
        let model = model.into();
        Settings {
            context_window: super::compact::default_context_window(&model),
            model,
            max_tokens: 8192,
            ttl: Ttl::FiveMinutes,
            pricing: Pricing::builtin(),
            policy: Policy::default(),
            max_steps: 200,
            reasoning: None,
            effort: None,
            explicit_breakpoints: false,
            hidden_env: PROVIDER_KEY_VARS.iter().map(|v| (*v).to_owned()).collect(),
            reaper: None,
            hooks: std::sync::Arc::from([]),
            ephemeral: false,
        }
    }
}
