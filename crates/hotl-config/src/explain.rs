//! `hotl config`'s model: every setting a run resolves, each with where it came from (a flag,
//! the environment, the config file, or hotl's default), from the same resolution and the same
//! precedence a run uses.

use hotl_sandbox::credentials::var as env;
use serde::Serialize;

use crate::Result;
use crate::file::FileConfig;
use crate::resolve::{Overrides, Resolved};

/// One setting as a run would see it.
#[derive(Debug, Serialize)]
pub struct Setting {
    /// Its key (`provider.model`).
    pub key: &'static str,
    /// Its value, as shown.
    pub value: String,
    /// Where it came from: `flag --model`, `env HOTL_MODEL`, `file PATH`, `default`.
    pub source: String,
}

/// Every setting a run resolves: the values from the same resolution a run makes, the sources
/// from the same precedence (flags, then the environment, then the file, then defaults).
pub fn explain(
    file: &FileConfig,
    path: Option<&std::path::Path>,
    flags: &Overrides,
) -> Result<Vec<Setting>> {
    let resolved = crate::resolve(crate::load_file()?, flags)?;
    let sources = Sources::new(path);
    // The order `hotl config` lists them in: the provider first, then the run, then the rest.
    let mut settings = provider_settings(file, flags, &resolved, &sources);
    settings.extend(limit_settings(file, flags, &resolved, &sources));
    settings.extend(run_settings(file, &resolved, &sources));
    settings.extend(share_settings(file, &resolved, &sources));
    settings.extend(remote_settings(file, &sources));
    Ok(settings)
}

/// Says where a value came from, given what the flags, environment and file hold.
struct Sources {
    /// How the config file is named as a source: with its path when it exists.
    in_file: String,
}

impl Sources {
    fn new(path: Option<&std::path::Path>) -> Self {
        let in_file = match path {
            Some(path) if path.exists() => format!("file {}", path.display()),
            _ => "file".to_owned(),
        };
        Sources { in_file }
    }

    /// The first of flag, environment, file that gives a value, else `default`.
    fn of(&self, flag: (&str, bool), var: Option<&str>, file_has: bool, default: &str) -> String {
        if flag.1 {
            format!("flag {}", flag.0)
        } else if let Some(var) = var.filter(|v| env(v).is_some()) {
            format!("env {var}")
        } else if file_has {
            self.in_file.clone()
        } else {
            default.to_owned()
        }
    }

    /// The source of a setting no flag or variable sets: the file, else `default`.
    fn file(&self, file_has: bool, default: &str) -> String {
        self.of(("", false), None, file_has, default)
    }
}

fn setting(key: &'static str, value: String, source: String) -> Setting {
    Setting { key, value, source }
}

/// The provider's kind as named in the config, and its base URL as shown.
fn provider_kind(resolved: &Resolved) -> (&'static str, String) {
    match &resolved.provider {
        hotl_agent::Provider::Http(http) => (
            match http.dialect() {
                hotl_wire::Dialect::Anthropic => "anthropic",
                hotl_wire::Dialect::OpenAiResponses => "openai",
                hotl_wire::Dialect::OpenAiChat => "openai-chat",
            },
            http.base().to_owned(),
        ),
        hotl_agent::Provider::Demo => ("demo", "(none: offline)".to_owned()),
    }
}

/// Why the provider is of its kind when nothing names it: what the environment holds.
fn kind_default(kind: &str) -> String {
    if kind == "demo" {
        "default: no key or base URL is set".to_owned()
    } else {
        format!(
            "derived: {}",
            if env("ANTHROPIC_API_KEY").is_some() || env("OPENAI_API_KEY").is_some() {
                "an API key is set"
            } else {
                "a base URL is set"
            }
        )
    }
}

/// The provider's settings: which one, where, which model, its key.
fn provider_settings(
    file: &FileConfig,
    flags: &Overrides,
    resolved: &Resolved,
    sources: &Sources,
) -> Vec<Setting> {
    let p = &file.provider;
    let (kind, url) = provider_kind(resolved);
    let key_var = match kind {
        "anthropic" => Some("ANTHROPIC_API_KEY"),
        "openai" | "openai-chat" => Some("OPENAI_API_KEY"),
        _ => None,
    };
    let has_key = p.api_key.is_some() || key_var.is_some_and(|v| env(v).is_some());
    vec![
        setting(
            "provider.kind",
            kind.to_owned(),
            sources.of(
                ("--provider", flags.provider.is_some()),
                Some("HOTL_PROVIDER"),
                p.kind.is_some(),
                &kind_default(kind),
            ),
        ),
        setting(
            "provider.base_url",
            url,
            sources.of(
                ("--base-url", flags.base_url.is_some()),
                Some("HOTL_BASE_URL"),
                p.base_url.is_some(),
                "default for the provider",
            ),
        ),
        setting(
            "provider.model",
            resolved.model.clone(),
            sources.of(
                ("--model", flags.model.is_some()),
                Some("HOTL_MODEL"),
                p.model.is_some(),
                "default for the provider",
            ),
        ),
        setting(
            "provider.api_key",
            if has_key {
                "set (not shown)"
            } else {
                "not set"
            }
            .to_owned(),
            if p.api_key.is_some() {
                sources.in_file.clone()
            } else {
                sources.of(("", false), key_var, false, "none")
            },
        ),
    ]
}

/// The provider's limits: the context window, the reply's length, cache breakpoints.
fn limit_settings(
    file: &FileConfig,
    flags: &Overrides,
    resolved: &Resolved,
    sources: &Sources,
) -> Vec<Setting> {
    let p = &file.provider;
    let window = resolved
        .context_window
        .or_else(|| hotl_agent::known_context_window(&resolved.model));
    vec![
        setting(
            "provider.context_window",
            window.map_or_else(
                || "asked of a local server, else 128000".to_owned(),
                |w| w.to_string(),
            ),
            sources.of(
                ("", false),
                Some("HOTL_CONTEXT_WINDOW"),
                p.context_window.is_some(),
                "default for the model family",
            ),
        ),
        setting(
            "provider.max_tokens",
            resolved.max_tokens.map_or_else(
                || "8192, less on a small window".to_owned(),
                |n| n.to_string(),
            ),
            sources.of(
                ("--max-tokens", flags.max_tokens.is_some()),
                Some("HOTL_MAX_TOKENS"),
                p.max_tokens.is_some(),
                "default",
            ),
        ),
        setting(
            "provider.cache_breakpoints",
            resolved.explicit_breakpoints.to_string(),
            sources.file(p.cache_breakpoints.is_some(), "default"),
        ),
    ]
}

/// How the run behaves past the provider: caching, the console, titles, agents.
fn run_settings(file: &FileConfig, resolved: &Resolved, sources: &Sources) -> Vec<Setting> {
    let p = &file.provider;
    vec![
        setting(
            "cache.cold_headless",
            humantime::format_duration(resolved.cold_headless).to_string(),
            sources.file(file.cache.cold_headless.is_some(), "default"),
        ),
        setting(
            "cache.cold_console",
            humantime::format_duration(resolved.cold_console).to_string(),
            sources.file(file.cache.cold_console.is_some(), "default"),
        ),
        setting(
            "tui.fullscreen",
            resolved.fullscreen.to_string(),
            sources.file(file.tui.fullscreen.is_some(), "default"),
        ),
        setting(
            "provider.fast_model",
            p.fast_model
                .clone()
                .unwrap_or_else(|| "the model".to_owned()),
            sources.file(p.fast_model.is_some(), "default"),
        ),
        setting(
            "session_title.enabled",
            resolved.title.is_some().to_string(),
            sources.of(
                ("", false),
                Some("HOTL_SESSION_TITLE"),
                file.session_title.enabled.is_some(),
                "default; off with the demo provider",
            ),
        ),
        setting(
            "session_title.max_chars",
            resolved
                .title
                .as_ref()
                .map_or(80, |t| t.max_chars)
                .to_string(),
            sources.file(file.session_title.max_chars.is_some(), "default"),
        ),
        setting(
            "agents.max_depth",
            resolved.max_depth.to_string(),
            sources.file(file.agents.max_depth.is_some(), "default"),
        ),
        setting(
            "agents.max_concurrent",
            resolved.max_concurrent.to_string(),
            sources.file(file.agents.max_concurrent.is_some(), "default"),
        ),
    ]
}

/// What is shared and run beside the session: sharing, hooks, pricing.
fn share_settings(file: &FileConfig, resolved: &Resolved, sources: &Sources) -> Vec<Setting> {
    let none = || "(none)".to_owned();
    vec![
        setting(
            "share.server",
            file.share.server.clone().unwrap_or_else(none),
            sources.file(file.share.server.is_some(), "none"),
        ),
        setting(
            "share.command",
            file.share.command.clone().unwrap_or_else(none),
            sources.file(file.share.command.is_some(), "none"),
        ),
        setting(
            "share.secrets",
            format!("{} configured", file.share.secrets.len()),
            sources.file(!file.share.secrets.is_empty(), "none"),
        ),
        setting(
            "hooks",
            format!("{} configured", resolved.hooks.len()),
            sources.file(!file.hooks.is_empty(), "none"),
        ),
        setting(
            "mcp_servers",
            mcp_servers(resolved),
            sources.file(!file.mcp_servers.is_empty(), "none"),
        ),
        setting(
            "pricing",
            format!(
                "built in{}",
                file.pricing
                    .as_ref()
                    .map(|p| format!(", {} model(s) from the file", p.len()))
                    .unwrap_or_default()
            ),
            sources.file(file.pricing.is_some(), "default"),
        ),
    ]
}

/// The MCP servers configured: each name with what it runs or where it is, `off` when
/// disabled; `(none)` when there are none.
fn mcp_servers(resolved: &Resolved) -> String {
    if resolved.mcp_servers.is_empty() {
        return "(none)".to_owned();
    }
    let shown: Vec<String> = resolved
        .mcp_servers
        .iter()
        .map(|(name, server)| {
            let what = match (&server.command, &server.url) {
                (Some(command), _) => std::iter::once(command.as_str())
                    .chain(server.args.iter().map(String::as_str))
                    .collect::<Vec<_>>()
                    .join(" "),
                (None, Some(url)) => url.clone(),
                (None, None) => "nothing to run".to_owned(),
            };
            let off = if server.enabled == Some(false) {
                ", off"
            } else {
                ""
            };
            format!("{name} ({what}{off})")
        })
        .collect();
    shown.join(", ")
}

/// `[remote]`'s settings: one row saying there is none, or its store and how it publishes.
fn remote_settings(file: &FileConfig, sources: &Sources) -> Vec<Setting> {
    let Some(remote) = &file.remote else {
        return vec![Setting {
            key: "remote",
            value: "(none)".to_owned(),
            source: "none".to_owned(),
        }];
    };
    let key = if !remote.encrypt {
        "off".to_owned()
    } else if env("HOTL_REMOTE_KEY").is_some() {
        "on (key from HOTL_REMOTE_KEY)".to_owned()
    } else {
        let file = remote.key_file.as_deref().map(std::path::Path::display);
        format!(
            "on (key from {})",
            file.map_or("nowhere".to_owned(), |f| f.to_string())
        )
    };
    let on = |b: bool| if b { "on" } else { "off" }.to_owned();
    [
        ("remote.url", format!("{} ({})", remote.url, remote.label())),
        ("remote.publish", remote.publish.name().to_owned()),
        ("remote.encrypt", key),
        ("remote.redact", on(remote.redact)),
        ("remote.lease_ttl_sec", remote.lease_ttl_sec.to_string()),
    ]
    .into_iter()
    .map(|(key, value)| Setting {
        key,
        value,
        source: sources.in_file.clone(),
    })
    .collect()
}
