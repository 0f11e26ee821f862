//! `hotl config`'s model: every setting a run resolves, each with where it came from (a flag,
//! the environment, the config file, or hotl's default), from the same resolution and the same
//! precedence a run uses.

use serde::Serialize;

use crate::Result;
use crate::file::FileConfig;
use crate::resolve::Overrides;

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
    let env = hotl_sandbox::credentials::var;
    let in_file = match path {
        Some(path) if path.exists() => format!("file {}", path.display()),
        _ => "file".to_owned(),
    };
    // Where a value came from: the first of flag, environment, file that gives one.
    let source = |flag: (&str, bool), var: Option<&str>, file_has: bool, default: &str| {
        if flag.1 {
            format!("flag {}", flag.0)
        } else if let Some(var) = var.filter(|v| env(v).is_some()) {
            format!("env {var}")
        } else if file_has {
            in_file.clone()
        } else {
            default.to_owned()
        }
    };
    let p = &file.provider;
    let (kind, url) = match &resolved.provider {
        hotl_agent::Provider::Http(http) => (
            match http.dialect() {
                hotl_wire::Dialect::Anthropic => "anthropic",
                hotl_wire::Dialect::OpenAiResponses => "openai",
                hotl_wire::Dialect::OpenAiChat => "openai-chat",
            },
            http.base().to_owned(),
        ),
        hotl_agent::Provider::Demo => ("demo", "(none: offline)".to_owned()),
    };
    let kind_default = if kind == "demo" {
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
    };
    let key_var = match kind {
        "anthropic" => Some("ANTHROPIC_API_KEY"),
        "openai" | "openai-chat" => Some("OPENAI_API_KEY"),
        _ => None,
    };
    let has_key = p.api_key.is_some() || key_var.is_some_and(|v| env(v).is_some());
    let setting = |key, value: String, source: String| Setting { key, value, source };
    let window = resolved
        .context_window
        .or_else(|| hotl_agent::known_context_window(&resolved.model));
    Ok(vec![
        setting(
            "provider.kind",
            kind.to_owned(),
            source(
                ("--provider", flags.provider.is_some()),
                Some("HOTL_PROVIDER"),
                p.kind.is_some(),
                &kind_default,
            ),
        ),
        setting(
            "provider.base_url",
            url,
            source(
                ("--base-url", flags.base_url.is_some()),
                Some("HOTL_BASE_URL"),
                p.base_url.is_some(),
                "default for the provider",
            ),
        ),
        setting(
            "provider.model",
            resolved.model.clone(),
            source(
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
                in_file.clone()
            } else {
                source(("", false), key_var, false, "none")
            },
        ),
        setting(
            "provider.context_window",
            window.map_or_else(
                || "asked of a local server, else 128000".to_owned(),
                |w| w.to_string(),
            ),
            source(
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
            source(
                ("--max-tokens", flags.max_tokens.is_some()),
                Some("HOTL_MAX_TOKENS"),
                p.max_tokens.is_some(),
                "default",
            ),
        ),
        setting(
            "provider.cache_breakpoints",
            resolved.explicit_breakpoints.to_string(),
            source(("", false), None, p.cache_breakpoints.is_some(), "default"),
        ),
        setting(
            "cache.cold_headless",
            humantime::format_duration(resolved.cold_headless).to_string(),
            source(
                ("", false),
                None,
                file.cache.cold_headless.is_some(),
                "default",
            ),
        ),
        setting(
            "cache.cold_console",
            humantime::format_duration(resolved.cold_console).to_string(),
            source(
                ("", false),
                None,
                file.cache.cold_console.is_some(),
                "default",
            ),
        ),
        setting(
            "tui.fullscreen",
            resolved.fullscreen.to_string(),
            source(("", false), None, file.tui.fullscreen.is_some(), "default"),
        ),
        setting(
            "provider.fast_model",
            p.fast_model
                .clone()
                .unwrap_or_else(|| "the model".to_owned()),
            source(("", false), None, p.fast_model.is_some(), "default"),
        ),
        setting(
            "session_title.enabled",
            resolved.title.is_some().to_string(),
            source(
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
            source(
                ("", false),
                None,
                file.session_title.max_chars.is_some(),
                "default",
            ),
        ),
        setting(
            "agents.max_depth",
            resolved.max_depth.to_string(),
            source(
                ("", false),
                None,
                file.agents.max_depth.is_some(),
                "default",
            ),
        ),
        setting(
            "agents.max_concurrent",
            resolved.max_concurrent.to_string(),
            source(
                ("", false),
                None,
                file.agents.max_concurrent.is_some(),
                "default",
            ),
        ),
        setting(
            "share.server",
            file.share
                .server
                .clone()
                .unwrap_or_else(|| "(none)".to_owned()),
            source(("", false), None, file.share.server.is_some(), "none"),
        ),
        setting(
            "share.command",
            file.share
                .command
                .clone()
                .unwrap_or_else(|| "(none)".to_owned()),
            source(("", false), None, file.share.command.is_some(), "none"),
        ),
        setting(
            "share.secrets",
            format!("{} configured", file.share.secrets.len()),
            source(("", false), None, !file.share.secrets.is_empty(), "none"),
        ),
        setting(
            "hooks",
            format!("{} configured", resolved.hooks.len()),
            source(("", false), None, !file.hooks.is_empty(), "none"),
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
            source(("", false), None, file.pricing.is_some(), "default"),
        ),
    ])
}
