//! How a turn runs (`Settings`) and the side that watches it (`Ui`, fed `Progress`).

use hotl_wire::{Event, Pricing, Reasoning, Ttl};

use crate::permission::Policy;
use crate::tool::ToolOutput;

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
    /// OpenAI explicit prompt-cache breakpoints (GPT-5.6 and later).
    pub explicit_breakpoints: bool,
    /// The model's context window in tokens: a turn compacts before a request that would
    /// come near it (0: never).
    pub context_window: u64,
}

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
            explicit_breakpoints: false,
        }
    }
}

/// What the agent reports while it works.
#[derive(Debug)]
pub enum Progress<'a> {
    /// A model event, as it streams.
    Model(&'a Event),
    /// A tool call is about to run.
    ToolStart {
        /// The call id.
        id: &'a str,
        /// The tool.
        name: &'a str,
        /// Its arguments (JSON text).
        input: &'a str,
    },
    /// A tool call finished.
    ToolDone {
        /// The call id.
        id: &'a str,
        /// The tool.
        name: &'a str,
        /// What it returned.
        output: &'a ToolOutput,
    },
    /// Something worth a line (a retry, a refusal, a recovery).
    Notice(&'a str),
}

/// The side that shows progress and answers permission questions.
pub trait Ui: Send {
    /// Shows progress.
    fn progress(&mut self, progress: Progress<'_>);
    /// Asks the user; `false` when nobody can answer. The default refuses.
    fn confirm(&mut self, _question: &str) -> bool {
        false
    }
    /// The progress that follows, until [`Ui::fork_done`], is a fork's child's (forks nest).
    fn fork_started(&mut self, _handle: &str) {}
    /// The child of the latest [`Ui::fork_started`] is done.
    fn fork_done(&mut self, _handle: &str) {}
}
