//! Configuration: `config.toml`, environment variables and flags, in rising precedence, turned
//! into the provider and settings a run uses.
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
//! ```

use std::path::PathBuf;
use std::time::Duration;

use hotl_agent::Provider;
use hotl_wire::{Dialect, HttpProvider, Pricing};
use serde::Deserialize;

use crate::error::CliError;

/// The file's shape. Every field is optional.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FileConfig {
    pub provider: ProviderConfig,
    pub pricing: Option<Pricing>,
    pub cache: CacheConfig,
    pub hooks: Vec<HookConfig>,
    pub tui: TuiConfig,
    /// `[mcp_servers.NAME]`: MCP servers whose tools sessions get.
    pub mcp_servers: std::collections::BTreeMap<String, hotl_mcp::ServerConfig>,
    /// `[share]`: where shares go and what else they hide.
    pub share: ShareConfig,
    /// `[agents]`: delegation's limits.
    pub agents: AgentsConfig,
    /// `[session_title]`: titles written after a root session's first answer.
    pub session_title: SessionTitleConfig,
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
    pub event: String,
    pub command: String,
    pub timeout_sec: Option<u64>,
    /// For `before_tool` and `after_tool`: the tools it is for (a name or a glob).
    pub matcher: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ProviderConfig {
    pub kind: Option<String>,
    pub base_url: Option<String>,
    pub model: Option<String>,
    pub api_key: Option<String>,
    pub cache_breakpoints: Option<bool>,
    pub context_window: Option<u64>,
    pub max_tokens: Option<u32>,
    /// A cheaper model for side work (session titles); the main model when unset.
    pub fast_model: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CacheConfig {
    pub cold_headless: Option<String>,
    pub cold_console: Option<String>,
}

/// Flags that override the file and the environment.
#[derive(Debug, Default, Clone)]
pub struct Overrides {
    pub provider: Option<String>,
    pub base_url: Option<String>,
    pub model: Option<String>,
    pub max_tokens: Option<u32>,
}

/// What a run talks to.
#[derive(Debug)]
pub struct Resolved {
    pub provider: Provider,
    pub model: String,
    pub pricing: Pricing,
    pub explicit_breakpoints: bool,
    /// The model's context window when configured (`HOTL_CONTEXT_WINDOW`, the file); else
    /// the agent's default for the model.
    pub context_window: Option<u64>,
    /// The output limit set (`--max-tokens`, `HOTL_MAX_TOKENS`, the file); `None`: the
    /// agent's default for the window.
    pub max_tokens: Option<u32>,
    pub cold_headless: Duration,
    pub cold_console: Duration,
    /// Set when no provider is configured and the offline demo answers.
    pub demo_notice: Option<&'static str>,
    /// The configured hooks.
    pub hooks: Vec<hotl_agent::Hook>,
    /// `[tui] fullscreen`.
    pub fullscreen: bool,
    /// The MCP servers configured.
    pub mcp_servers: std::collections::BTreeMap<String, hotl_mcp::ServerConfig>,
    /// `[agents] max_depth`.
    pub max_depth: usize,
    /// `[agents] max_concurrent`.
    pub max_concurrent: usize,
    /// How sessions are titled, unless `[session_title] enabled = false`.
    pub title: Option<hotl_agent::TitleSettings>,
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

/// Where secrets live, for the permission check on reads: `~/.ssh`, `~/.aws`, `~/.gnupg`,
/// `~/.netrc`, and hotl's own config file when it holds a key.
pub fn secret_paths(home_dir: Option<&std::path::Path>) -> Vec<PathBuf> {
    let mut secrets: Vec<PathBuf> = home_dir
        .map(|home| {
            hotl_sandbox::HOME_SECRETS
                .iter()
                .map(|name| home.join(name))
                .collect()
        })
        .unwrap_or_default();
    if let Some(config) = config_path()
        && std::fs::read_to_string(&config).is_ok_and(|text| text.contains("api_key"))
    {
        secrets.push(config);
    }
    secrets
}

/// Reads the config file (absent is fine; malformed is an error naming the file).
pub fn load_file() -> Result<FileConfig, CliError> {
    let Some(path) = config_path() else {
        return Ok(FileConfig::default());
    };
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            toml::from_str(&text).map_err(|e| CliError::user(format!("{}: {e}", path.display())))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(FileConfig::default()),
        Err(e) => Err(CliError::user(format!("{}: {e}", path.display()))),
    }
}

/// Resolves the provider: flags, then `HOTL_PROVIDER` / `HOTL_BASE_URL` / `HOTL_MODEL`, then the
/// file; keys from the file or `ANTHROPIC_API_KEY` / `OPENAI_API_KEY`. With neither a key nor a
/// base URL, the offline demo answers.
pub fn resolve(file: FileConfig, flags: &Overrides) -> Result<Resolved, CliError> {
    let env = hotl_sandbox::credentials::var;
    let kind = flags
        .provider
        .clone()
        .or_else(|| env("HOTL_PROVIDER"))
        .or(file.provider.kind.clone());
    let base_url = flags
        .base_url
        .clone()
        .or_else(|| env("HOTL_BASE_URL"))
        .or(file.provider.base_url.clone());
    let model = flags
        .model
        .clone()
        .or_else(|| env("HOTL_MODEL"))
        .or(file.provider.model.clone());
    let anthropic_key = file
        .provider
        .api_key
        .clone()
        .or_else(|| env("ANTHROPIC_API_KEY"));
    let openai_key = file
        .provider
        .api_key
        .clone()
        .or_else(|| env("OPENAI_API_KEY"));
    let dialect = match kind.as_deref() {
        Some("anthropic") => Some(Dialect::Anthropic),
        Some("openai") | Some("openai-responses") => Some(Dialect::OpenAiResponses),
        Some("openai-chat") => Some(Dialect::OpenAiChat),
        Some("demo") => None,
        Some(other) => {
            return Err(CliError::user(format!(
                "unknown provider {other:?}; use anthropic, openai, openai-chat or demo"
            )));
        }
        None if anthropic_key.is_some() => Some(Dialect::Anthropic),
        None if openai_key.is_some() => Some(Dialect::OpenAiResponses),
        None if base_url.is_some() => Some(Dialect::OpenAiChat),
        None => None,
    };
    let mut pricing = Pricing::builtin();
    if let Some(p) = file.pricing {
        pricing.merge(p);
    }
    let duration = |v: Option<String>, default: u64| -> Result<Duration, CliError> {
        match v {
            Some(text) => humantime::parse_duration(&text)
                .map_err(|e| CliError::user(format!("bad duration {text:?} in config: {e}"))),
            None => Ok(Duration::from_secs(default)),
        }
    };
    let hooks = hooks(file.hooks)?;
    for (name, server) in &file.mcp_servers {
        server.check(name).map_err(CliError::user)?;
    }
    let mcp_servers = file.mcp_servers;
    let fullscreen = file.tui.fullscreen.unwrap_or(false);
    let max_depth = file
        .agents
        .max_depth
        .unwrap_or(hotl_agent::DEFAULT_MAX_DEPTH);
    let max_concurrent = file
        .agents
        .max_concurrent
        .unwrap_or(hotl_agent::DEFAULT_MAX_CONCURRENT)
        .max(1);
    // HOTL_SESSION_TITLE=off|on overrides the file for a run.
    let titles_on = match std::env::var("HOTL_SESSION_TITLE").ok().as_deref() {
        Some("off" | "0" | "false") => false,
        Some("on" | "1" | "true") => true,
        _ => file.session_title.enabled != Some(false),
    };
    let title = titles_on.then(|| hotl_agent::TitleSettings {
        model: file.provider.fast_model.clone(),
        max_chars: file.session_title.max_chars.unwrap_or(80).clamp(8, 80),
    });
    let cold_headless = duration(file.cache.cold_headless, 300)?;
    let cold_console = duration(file.cache.cold_console, 3600)?;
    let explicit_breakpoints = file.provider.cache_breakpoints.unwrap_or(false);
    let context_window = match env("HOTL_CONTEXT_WINDOW") {
        Some(text) => Some(text.parse().map_err(|_| {
            CliError::user(format!(
                "HOTL_CONTEXT_WINDOW={text:?} is not a number of tokens"
            ))
        })?),
        None => file.provider.context_window,
    };
    let max_tokens = match flags.max_tokens {
        Some(n) => Some(n),
        None => match env("HOTL_MAX_TOKENS") {
            Some(text) => Some(text.parse().ok().filter(|&n: &u32| n > 0).ok_or_else(|| {
                CliError::user(format!(
                    "HOTL_MAX_TOKENS={text:?} is not a positive number of tokens"
                ))
            })?),
            None => file.provider.max_tokens,
        },
    };
    if max_tokens == Some(0) {
        return Err(CliError::user(
            "max_tokens = 0 in the config: an answer needs at least one token",
        ));
    }
    let Some(dialect) = dialect.filter(|_| kind.as_deref() != Some("demo")) else {
        return Ok(Resolved {
            provider: Provider::Demo,
            model: hotl_wire::DEMO_MODEL.to_owned(),
            pricing,
            explicit_breakpoints,
            context_window,
            max_tokens,
            cold_headless,
            cold_console,
            // Chosen by name, the demo needs no explanation.
            demo_notice: (kind.as_deref() != Some("demo")).then_some(
                "no provider is configured: using hotl's offline demo model (set ANTHROPIC_API_KEY or OPENAI_API_KEY, or --base-url, to use a real one)",
            ),
            hooks,
            fullscreen,
            mcp_servers,
            max_depth,
            max_concurrent,
            // The demo answers by rules: it cannot name a session.
            title: None,
        });
    };
    let (default_url, default_model, key, key_var) = match dialect {
        Dialect::Anthropic => (
            "https://api.anthropic.com",
            "claude-sonnet-4-5",
            anthropic_key,
            "ANTHROPIC_API_KEY",
        ),
        Dialect::OpenAiResponses | Dialect::OpenAiChat => (
            "https://api.openai.com",
            "gpt-5",
            openai_key,
            "OPENAI_API_KEY",
        ),
    };
    let url = base_url.unwrap_or_else(|| default_url.to_owned());
    // A keyless request to a hosted API can only come back 401; servers on this machine or a
    // private network (llama.cpp, vLLM, Ollama) commonly run without one.
    if key.is_none() && !hotl_wire::is_local(&url) {
        return Err(CliError::user(format!(
            "{key_var} is not set: {url} needs an API key (export {key_var}, or set api_key under [provider] in {})",
            config_path().map_or_else(|| "the config file".to_owned(), |p| p.display().to_string())
        )));
    }
    let http = HttpProvider::new(dialect, &url, key).map_err(|e| CliError::user(e.to_string()))?;
    Ok(Resolved {
        provider: Provider::Http(http),
        model: model.unwrap_or_else(|| default_model.to_owned()),
        pricing,
        explicit_breakpoints,
        context_window,
        max_tokens,
        cold_headless,
        cold_console,
        demo_notice: None,
        hooks,
        fullscreen,
        mcp_servers,
        max_depth,
        max_concurrent,
        title,
    })
}

/// The settings every run starts from: the model, its prices, its window and output limit.
pub async fn settings(resolved: &Resolved) -> hotl_agent::Settings {
    let mut settings = hotl_agent::Settings::new(resolved.model.clone());
    settings.pricing = resolved.pricing.clone();
    settings.explicit_breakpoints = resolved.explicit_breakpoints;
    settings.context_window = context_window(resolved, &resolved.model).await;
    settings.max_tokens = resolved.max_tokens;
    settings.max_depth = resolved.max_depth;
    settings.max_concurrent = resolved.max_concurrent;
    settings
}

/// The context window a turn compacts against: the one configured, else the model family's,
/// else the one an OpenAI-compatible server says it serves (llama.cpp, vLLM), else 128K. A
/// local server whose chat template drops tools is warned of on stderr: the model would never
/// call one, and nothing else would say why.
pub async fn context_window(resolved: &Resolved, model: &str) -> u64 {
    let served = match &resolved.provider {
        // Only a local server is asked (see `HttpProvider::served`).
        Provider::Http(http) if http.dialect() == hotl_wire::Dialect::OpenAiChat => {
            http.served(model).await
        }
        _ => hotl_wire::Served::default(),
    };
    if served.ignores_tools {
        eprintln!(
            "hotl: warning: this server's chat template ignores tools, so the model cannot call \
             any (llama.cpp: start llama-server with --jinja and a template that has a tools \
             section, e.g. --chat-template-file scripts/chatml-fence-tools.jinja)"
        );
    }
    resolved
        .context_window
        .or_else(|| hotl_agent::known_context_window(model))
        .or(served.context_window)
        .unwrap_or_else(|| hotl_agent::default_context_window(model))
}

/// The `[[hooks]]` entries, checked: every event must be one hotl runs hooks at.
fn hooks(entries: Vec<HookConfig>) -> Result<Vec<hotl_agent::Hook>, CliError> {
    entries
        .into_iter()
        .map(|entry| {
            let point = hotl_agent::HookPoint::from_name(&entry.event).ok_or_else(|| {
                let known: Vec<&str> = hotl_agent::HookPoint::ALL
                    .iter()
                    .map(|p| p.name())
                    .collect();
                CliError::user(format!(
                    "hook event {:?} in the config is not one of {}",
                    entry.event,
                    known.join(", ")
                ))
            })?;
            if entry.command.trim().is_empty() {
                return Err(CliError::user(format!(
                    "the {} hook in the config has an empty command",
                    entry.event
                )));
            }
            let matcher = match &entry.matcher {
                None => None,
                Some(_) if !point.is_about_a_tool() => {
                    return Err(CliError::user(format!(
                        "the {} hook in the config has a matcher, but only before_tool and \
                         after_tool hooks are about a tool",
                        entry.event
                    )));
                }
                Some(text) => Some(hotl_agent::ToolMatcher::new(text).map_err(|e| {
                    CliError::user(format!("the {} hook in the config: {e}", entry.event))
                })?),
            };
            Ok(hotl_agent::Hook {
                point,
                command: entry.command,
                timeout: entry
                    .timeout_sec
                    .map_or(hotl_agent::Hook::TIMEOUT, std::time::Duration::from_secs),
                matcher,
            })
        })
        .collect()
}
