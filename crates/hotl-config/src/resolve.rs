//! Resolution: flags over the environment over the file, into what a run talks to.

use std::path::PathBuf;
use std::time::Duration;

use hotl_agent::Provider;
use hotl_wire::{Dialect, HttpProvider, Pricing};

use crate::file::{FileConfig, HookConfig, ProviderConfig, SessionTitleConfig, config_path};
use crate::{ConfigError, Result};

/// Flags that override the file and the environment.
#[derive(Debug, Default, Clone)]
pub struct Overrides {
    /// `--provider`.
    pub provider: Option<String>,
    /// `--base-url`.
    pub base_url: Option<String>,
    /// `--model`.
    pub model: Option<String>,
    /// `--max-tokens`.
    pub max_tokens: Option<u32>,
}

/// What a run talks to.
#[derive(Debug)]
pub struct Resolved {
    /// Who answers.
    pub provider: Provider,
    /// The model asked.
    pub model: String,
    /// What models cost.
    pub pricing: Pricing,
    /// OpenAI's explicit cache breakpoints.
    pub explicit_breakpoints: bool,
    /// The model's context window when configured (`HOTL_CONTEXT_WINDOW`, the file); else
    /// the agent's default for the model.
    pub context_window: Option<u64>,
    /// The output limit set (`--max-tokens`, `HOTL_MAX_TOKENS`, the file); `None`: the
    /// agent's default for the window.
    pub max_tokens: Option<u32>,
    /// When a forked parent's cache is cold, headless.
    pub cold_headless: Duration,
    /// When a forked parent's cache is cold, in the console and the terminal UI.
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

/// Resolves the provider: flags, then `HOTL_PROVIDER` / `HOTL_BASE_URL` / `HOTL_MODEL`, then the
/// file; keys from the file or `ANTHROPIC_API_KEY` / `OPENAI_API_KEY`. With neither a key nor a
/// base URL, the offline demo answers.
pub fn resolve(file: FileConfig, flags: &Overrides) -> Result<Resolved> {
    let choice = Choice::new(&file, flags);
    let dialect = choice.dialect()?;
    let mut resolved = with_demo(file, flags)?;
    let Some(dialect) = dialect.filter(|_| choice.kind.as_deref() != Some("demo")) else {
        // Chosen by name, the demo needs no explanation.
        resolved.demo_notice = (choice.kind.as_deref() != Some("demo")).then_some(
            "no provider is configured: using hotl's offline demo model (set ANTHROPIC_API_KEY or OPENAI_API_KEY, or --base-url, to use a real one)",
        );
        // The demo answers by rules: it cannot name a session.
        resolved.title = None;
        return Ok(resolved);
    };
    let (http, model) = choice.http(dialect)?;
    resolved.provider = Provider::Http(http);
    resolved.model = model;
    Ok(resolved)
}

/// The provider as chosen by the flags, the environment and the file, before it is checked.
struct Choice {
    /// The provider named, if one is.
    kind: Option<String>,
    base_url: Option<String>,
    model: Option<String>,
    /// The key an Anthropic provider would send: the file's, else the environment's.
    anthropic_key: Option<String>,
    /// The key an OpenAI provider would send.
    openai_key: Option<String>,
}

impl Choice {
    fn new(file: &FileConfig, flags: &Overrides) -> Self {
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
        Choice {
            kind,
            base_url,
            model,
            anthropic_key,
            openai_key,
        }
    }

    /// The dialect the provider speaks: as named, else derived from which key or base URL is
    /// set; `None` for the demo.
    fn dialect(&self) -> Result<Option<Dialect>> {
        Ok(match self.kind.as_deref() {
            Some("anthropic") => Some(Dialect::Anthropic),
            Some("openai") | Some("openai-responses") => Some(Dialect::OpenAiResponses),
            Some("openai-chat") => Some(Dialect::OpenAiChat),
            Some("demo") => None,
            Some(other) => {
                return Err(ConfigError::new(format!(
                    "unknown provider {other:?}; use anthropic, openai, openai-chat or demo"
                )));
            }
            None if self.anthropic_key.is_some() => Some(Dialect::Anthropic),
            None if self.openai_key.is_some() => Some(Dialect::OpenAiResponses),
            None if self.base_url.is_some() => Some(Dialect::OpenAiChat),
            None => None,
        })
    }

    /// The HTTP provider speaking `dialect`, and the model it is asked for: the dialect's
    /// defaults where nothing was chosen.
    fn http(self, dialect: Dialect) -> Result<(HttpProvider, String)> {
        let (default_url, default_model, key, key_var) = match dialect {
            Dialect::Anthropic => (
                "https://api.anthropic.com",
                "claude-sonnet-4-5",
                self.anthropic_key,
                "ANTHROPIC_API_KEY",
            ),
            Dialect::OpenAiResponses | Dialect::OpenAiChat => (
                "https://api.openai.com",
                "gpt-5",
                self.openai_key,
                "OPENAI_API_KEY",
            ),
        };
        let url = self.base_url.unwrap_or_else(|| default_url.to_owned());
        // A keyless request to a hosted API can only come back 401; servers on this machine or a
        // private network (llama.cpp, vLLM, Ollama) commonly run without one.
        if key.is_none() && !hotl_wire::is_local(&url) {
            return Err(ConfigError::new(format!(
                "{key_var} is not set: {url} needs an API key (export {key_var}, or set api_key under [provider] in {})",
                config_path()
                    .map_or_else(|| "the config file".to_owned(), |p| p.display().to_string())
            )));
        }
        let http =
            HttpProvider::new(dialect, &url, key).map_err(|e| ConfigError::new(e.to_string()))?;
        let model = self.model.unwrap_or_else(|| default_model.to_owned());
        Ok((http, model))
    }
}

/// Every setting but the provider, checked, with the offline demo answering: [`resolve`] puts
/// the provider chosen in its place.
fn with_demo(file: FileConfig, flags: &Overrides) -> Result<Resolved> {
    let mut pricing = Pricing::builtin();
    if let Some(p) = file.pricing {
        pricing.merge(p);
    }
    let hooks = hooks(file.hooks)?;
    for (name, server) in &file.mcp_servers {
        server.check(name).map_err(ConfigError::new)?;
    }
    let title = title(&file.session_title, &file.provider);
    let cold_headless = duration(file.cache.cold_headless, 300)?;
    let cold_console = duration(file.cache.cold_console, 3600)?;
    let context_window = context_window(&file.provider)?;
    let max_tokens = max_tokens(&file.provider, flags)?;
    Ok(Resolved {
        provider: Provider::Demo,
        model: hotl_wire::DEMO_MODEL.to_owned(),
        pricing,
        explicit_breakpoints: file.provider.cache_breakpoints.unwrap_or(false),
        context_window,
        max_tokens,
        cold_headless,
        cold_console,
        demo_notice: None,
        hooks,
        fullscreen: file.tui.fullscreen.unwrap_or(false),
        mcp_servers: file.mcp_servers,
        max_depth: file
            .agents
            .max_depth
            .unwrap_or(hotl_agent::DEFAULT_MAX_DEPTH),
        max_concurrent: file
            .agents
            .max_concurrent
            .unwrap_or(hotl_agent::DEFAULT_MAX_CONCURRENT)
            .max(1),
        title,
    })
}

/// How sessions are titled, unless turned off.
fn title(
    titles: &SessionTitleConfig,
    provider: &ProviderConfig,
) -> Option<hotl_agent::TitleSettings> {
    // HOTL_SESSION_TITLE=off|on overrides the file for a run.
    let titles_on = match std::env::var("HOTL_SESSION_TITLE").ok().as_deref() {
        Some("off" | "0" | "false") => false,
        Some("on" | "1" | "true") => true,
        _ => titles.enabled != Some(false),
    };
    titles_on.then(|| hotl_agent::TitleSettings {
        model: provider.fast_model.clone(),
        max_chars: titles.max_chars.unwrap_or(80).clamp(8, 80),
    })
}

/// A duration from the file in humantime's words, else `default` seconds.
fn duration(v: Option<String>, default: u64) -> Result<Duration> {
    match v {
        Some(text) => humantime::parse_duration(&text)
            .map_err(|e| ConfigError::new(format!("bad duration {text:?} in config: {e}"))),
        None => Ok(Duration::from_secs(default)),
    }
}

/// The context window set by `HOTL_CONTEXT_WINDOW`, else the file.
fn context_window(provider: &ProviderConfig) -> Result<Option<u64>> {
    Ok(
        match hotl_sandbox::credentials::var("HOTL_CONTEXT_WINDOW") {
            Some(text) => Some(text.parse().map_err(|_| {
                ConfigError::new(format!(
                    "HOTL_CONTEXT_WINDOW={text:?} is not a number of tokens"
                ))
            })?),
            None => provider.context_window,
        },
    )
}

/// The output limit set by `--max-tokens`, else `HOTL_MAX_TOKENS`, else the file; never zero.
fn max_tokens(provider: &ProviderConfig, flags: &Overrides) -> Result<Option<u32>> {
    let max_tokens = match flags.max_tokens {
        Some(n) => Some(n),
        None => match hotl_sandbox::credentials::var("HOTL_MAX_TOKENS") {
            Some(text) => Some(text.parse().ok().filter(|&n: &u32| n > 0).ok_or_else(|| {
                ConfigError::new(format!(
                    "HOTL_MAX_TOKENS={text:?} is not a positive number of tokens"
                ))
            })?),
            None => provider.max_tokens,
        },
    };
    if max_tokens == Some(0) {
        return Err(ConfigError::new(
            "max_tokens = 0 in the config: an answer needs at least one token",
        ));
    }
    Ok(max_tokens)
}

/// The `[[hooks]]` entries, checked: every event must be one hotl runs hooks at.
fn hooks(entries: Vec<HookConfig>) -> Result<Vec<hotl_agent::Hook>> {
    entries
        .into_iter()
        .map(|entry| {
            let point = hotl_agent::HookPoint::from_name(&entry.event).ok_or_else(|| {
                let known: Vec<&str> = hotl_agent::HookPoint::ALL
                    .iter()
                    .map(|p| p.name())
                    .collect();
                ConfigError::new(format!(
                    "hook event {:?} in the config is not one of {}",
                    entry.event,
                    known.join(", ")
                ))
            })?;
            if entry.command.trim().is_empty() {
                return Err(ConfigError::new(format!(
                    "the {} hook in the config has an empty command",
                    entry.event
                )));
            }
            let matcher = match &entry.matcher {
                None => None,
                Some(_) if !point.is_about_a_tool() => {
                    return Err(ConfigError::new(format!(
                        "the {} hook in the config has a matcher, but only before_tool and \
                         after_tool hooks are about a tool",
                        entry.event
                    )));
                }
                Some(text) => Some(hotl_agent::ToolMatcher::new(text).map_err(|e| {
                    ConfigError::new(format!("the {} hook in the config: {e}", entry.event))
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
