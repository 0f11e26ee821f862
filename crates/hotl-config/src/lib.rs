//! hotl's configuration: `config.toml`, environment variables and flags, in rising precedence,
//! resolved into what a run talks to ([`Resolved`]: the provider, the model, prices, hooks,
//! MCP servers, limits), and the one place a run's [`Settings`](hotl_agent::Settings) are
//! assembled for where it runs ([`Launch`]: the terminal, headless, an editor).
//!
//! It reads the file and the environment, never the terminal; errors are [`ConfigError`]s
//! naming the file or variable at fault.
//!
//! ```toml
//! # ~/.config/hotl/config.toml
//! [provider]
//! kind = "anthropic"          # anthropic | openai | openai-chat
//! base_url = "https://api.anthropic.com"
//! model = "claude-sonnet-4-5"
//! cache_breakpoints = false   # OpenAI explicit breakpoints (GPT-5.6 and later)
//! context_window = 200000     # tokens; a turn compacts near it (default: by model family)
//! fast_model = "claude-haiku-4-5"  # side work (session titles); default: the model
//! max_tokens = 4096           # the most one answer may take (default: 8192, a quarter of a
//!                             # window under 32K; never more than the window leaves)
//!
//! [pricing."my-model"]        # $/Mtok; cache multipliers optional
//! input = 1.0
//! output = 4.0
//!
//! [cache]
//! cold_headless = "5m"        # when hotl warns that a forked parent's cache has expired
//! cold_console = "1h"
//!
//! [tui]
//! fullscreen = true           # the transcript in the alternate screen, with the mouse
//!
//! [session_title]
//! enabled = true              # consoles and editors title a new session after its first
//!                             # answer (HOTL_SESSION_TITLE=off|on overrides it for a run)
//! max_chars = 80              # (the title is written by [provider] fast_model, else the model)
//!
//! [agents]
//! max_depth = 2               # how deep delegated children may go (forks count)
//! max_concurrent = 4          # background children running at once; more wait for a slot
//!
//! [share]
//! server = "https://share.example.com"   # where `hotl sessions share` uploads (hotl share-server)
//! command = "/usr/local/bin/my-share"    # or: an executable given the page's path, printing the link
//! secrets = ["a-value-to-redact"]        # redacted besides the built-in credential shapes
//!
//! [remote]                    # sessions on object storage (docs/config.md)
//! url = "s3://bucket/hotl"    # also gs://, az://, file://
//! endpoint = "http://127.0.0.1:9000"     # an S3-compatible server; allow_http = true for http
//! publish = "turn"            # or "manual": only `hotl sessions push`
//! encrypt = true              # sealed with AES-256-GCM under key_file or HOTL_REMOTE_KEY
//! key_file = "~/.config/hotl/remote.key"
//! ```

#![deny(missing_docs)]

mod explain;
mod file;
mod launch;
mod mcp;
mod remote;
mod resolve;
mod trust;

pub use crate::explain::{Setting, explain};
pub use crate::file::{
    AgentsConfig, CacheConfig, FileConfig, HookConfig, ProviderConfig, SessionTitleConfig,
    ShareConfig, TuiConfig, config_path, credential_vars, edit, load_file,
};
pub use crate::launch::{Launch, Surface, context_window};
pub use crate::mcp::{Servers, Started};
pub use crate::remote::{LEAVE_BOUND, Publishing, RemoteAdded, add_remote, open_remote};
pub use crate::resolve::{Overrides, Resolved, resolve, secret_paths};
pub use crate::trust::{Trust, project_servers};

/// A configuration that cannot be used: what is wrong, naming the file or variable at fault.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(pub String);

impl ConfigError {
    pub(crate) fn new(message: impl Into<String>) -> ConfigError {
        ConfigError(message.into())
    }
}

/// This crate's result.
pub type Result<T, E = ConfigError> = std::result::Result<T, E>;
