//! The config file's shape (`config.toml`: every table and key optional, an unknown key an
//! error), where it lives, and reading it.

use std::path::PathBuf;

use hotl_wire::Pricing;
use serde::Deserialize;

use crate::{ConfigError, Result};

/// The file's shape. Every field is optional.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FileConfig {
    /// `[provider]`: who answers.
    pub provider: ProviderConfig,
    /// `[pricing."MODEL"]`: prices besides the built-in table.
    pub pricing: Option<Pricing>,
    /// `[cache]`: when a forked parent's cache is said to be cold.
    pub cache: CacheConfig,
    /// `[[hooks]]`: commands run at points of a session's life.
    pub hooks: Vec<HookConfig>,
    /// `[tui]`: how the terminal UI draws.
    pub tui: TuiConfig,
    /// `[mcp_servers.NAME]`: MCP servers whose tools sessions get.
    pub mcp_servers: std::collections::BTreeMap<String, hotl_mcp::ServerConfig>,
    /// `[share]`: where shares go and what else they hide.
    pub share: ShareConfig,
    /// `[agents]`: delegation's limits.
    pub agents: AgentsConfig,
    /// `[session_title]`: titles written after a root session's first answer.
    pub session_title: SessionTitleConfig,
    /// `[remote]`: the object store sessions are published to and pulled from.
    pub remote: Option<hotl_remote::RemoteConfig>,
    /// `[sandbox]`: what commands may read, write and reach.
    pub sandbox: hotl_sandbox::Config,
}

/// `[session_title]`.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SessionTitleConfig {
    /// Whether consoles and editors title new sessions (default true).
    pub enabled: Option<bool>,
    /// The longest title (default and at most 80, the log's limit).
    pub max_chars: Option<usize>,
}

/// `[agents]`: how far delegation goes.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AgentsConfig {
    /// How deep children may go (a root's children are at depth 1; forks count).
    pub max_depth: Option<usize>,
    /// How many background children of a session run at once.
    pub max_concurrent: Option<usize>,
}

/// `[share]`: sharing sessions.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ShareConfig {
    /// The share server (`hotl share-server`) uploads go to, e.g. `https://share.example.com`.
    pub server: Option<String>,
    /// An executable given the exported page's path; what it prints is the link (no fallback
    /// when it fails).
    pub command: Option<String>,
    /// More secrets to redact, besides the built-in credential shapes and secret-looking
    /// environment variables.
    pub secrets: Vec<String>,
    /// How long the share server may take to take an upload and answer, in seconds (20 by
    /// default).
    pub timeout_sec: Option<u64>,
}

/// `[tui]`: how the terminal UI draws.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TuiConfig {
    /// The transcript in the alternate screen, scrolled and clicked in (`--fullscreen`).
    pub fullscreen: Option<bool>,
}

/// One `[[hooks]]` entry: a command run at a point of a session's life.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HookConfig {
    /// The point it runs at (`session_start`, `before_tool`, ...).
    pub event: String,
    /// The command (`sh -c`).
    pub command: String,
    /// How long it may take, in seconds.
    pub timeout_sec: Option<u64>,
    /// For `before_tool` and `after_tool`: the tools it is for (a name or a glob).
    pub matcher: Option<String>,
}

/// `[provider]`: who answers.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ProviderConfig {
    /// `anthropic`, `openai`, `openai-chat` or `demo`.
    pub kind: Option<String>,
    /// A server root or a URL ending in `/v1`.
    pub base_url: Option<String>,
    /// The model.
    pub model: Option<String>,
    /// The API key (the provider's environment variable otherwise).
    pub api_key: Option<String>,
    /// OpenAI's explicit cache breakpoints.
    pub cache_breakpoints: Option<bool>,
    /// The model's context window, in tokens.
    pub context_window: Option<u64>,
    /// The most tokens one answer may take.
    pub max_tokens: Option<u32>,
    /// A cheaper model for side work (session titles); the main model when unset.
    pub fast_model: Option<String>,
}

/// `[cache]`: when a forked parent's prompt cache is said to be cold.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CacheConfig {
    /// For headless runs (a duration, `5m`).
    pub cold_headless: Option<String>,
    /// For the console and the terminal UI (`1h`).
    pub cold_console: Option<String>,
}

/// Where the config file lives: `$XDG_CONFIG_HOME/hotl/config.toml`, else
/// `~/.config/hotl/config.toml`.
pub fn config_path() -> Option<PathBuf> {
    let env = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    env("XDG_CONFIG_HOME")
        .or_else(|| env("HOME").map(|h| h.join(".config")))
        .map(|d| d.join("hotl").join("config.toml"))
}

/// Every variable hotl reads a credential from: the providers', clouds', share and remote
/// keys, and the bearer tokens the configured MCP servers name (`bearer_token_env_var`). What
/// `main` wipes from the environment block before anything else runs.
pub fn credential_vars() -> Vec<String> {
    let mut names: Vec<String> = hotl_sandbox::credentials::CREDENTIAL_VARS
        .iter()
        .chain(hotl_remote::SECRET_VARS)
        .map(|v| (*v).to_owned())
        .collect();
    names.sort();
    names.dedup();
    if let Ok(file) = load_file() {
        names.extend(
            file.mcp_servers
                .values()
                .filter_map(|server| server.bearer_token_env_var.clone()),
        );
    }
    names
}

/// Reads the config file (absent is fine; malformed is an error naming the file).
pub fn load_file() -> Result<FileConfig> {
    let Some(path) = config_path() else {
        return Ok(FileConfig::default());
    };
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            toml::from_str(&text).map_err(|e| ConfigError::new(format!("{}: {e}", path.display())))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(FileConfig::default()),
        Err(e) => Err(ConfigError::new(format!("{}: {e}", path.display()))),
    }
}

/// Edits the config file as a document (an empty one when there is none yet), keeping what it
/// holds as written (comments, order), and writes it back whole; returns its path and what
/// `change` returned.
pub fn edit<T>(change: impl FnOnce(&mut toml_edit::DocumentMut) -> T) -> Result<(PathBuf, T)> {
    let path = config_path().ok_or_else(|| {
        ConfigError::new("no config path: neither XDG_CONFIG_HOME nor HOME is set")
    })?;
    let at = |e: &dyn std::fmt::Display| ConfigError::new(format!("{}: {e}", path.display()));
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(at(&e)),
    };
    let mut doc = text.parse::<toml_edit::DocumentMut>().map_err(|e| at(&e))?;
    let changed = change(&mut doc);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| at(&e))?;
    }
    hotl_log::write_file_atomic(&path, doc.to_string().as_bytes()).map_err(|e| at(&e))?;
    Ok((path, changed))
}
