//! MCP servers a project declares in its own `.hotl/config.toml`: they run commands on this
//! machine, so they start only in a project the user trusted once (asked in a terminal; a
//! headless run needs `--trust-project`). Trusted projects are listed, one canonical path a
//! line, in `<home>/trusted-projects`.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::{ConfigError, Result};

/// What a project's config may say: only its MCP servers.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct ProjectConfig {
    mcp_servers: BTreeMap<String, hotl_mcp::ServerConfig>,
}

/// How a project is trusted for this run.
pub enum Trust<'a> {
    /// `--trust-project`: it is, and is remembered as trusted.
    Given,
    /// Nobody can be asked (headless, an editor): only an earlier yes lets its servers run.
    Remembered,
    /// Asked with the servers' names (a terminal): a yes is remembered.
    Ask(&'a mut dyn FnMut(&[&str]) -> std::io::Result<bool>),
}

/// The MCP servers the project in `cwd` declares, when it is trusted (or the user trusts it
/// now), and what to tell; none when it declares none or is not trusted.
pub fn project_servers(
    home: &Path,
    cwd: &Path,
    trust: Trust<'_>,
) -> Result<(BTreeMap<String, hotl_mcp::ServerConfig>, Vec<String>)> {
    let path = cwd.join(".hotl").join("config.toml");
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Default::default()),
        Err(e) => return Err(ConfigError::new(format!("{}: {e}", path.display()))),
    };
    let project: ProjectConfig = toml::from_str(&text).map_err(|e| {
        ConfigError::new(format!(
            "{}: {e}\n(a project's config may only declare [mcp_servers.NAME]; the rest belongs in your own)",
            path.display()
        ))
    })?;
    if project.mcp_servers.is_empty() {
        return Ok(Default::default());
    }
    for (name, server) in &project.mcp_servers {
        server.check(name).map_err(ConfigError::new)?;
    }
    let root = cwd.canonicalize().unwrap_or_else(|_| cwd.to_owned());
    let list = home.join("trusted-projects");
    let trusted = std::fs::read_to_string(&list)
        .unwrap_or_default()
        .lines()
        .any(|line| Path::new(line) == root);
    let given = matches!(trust, Trust::Given);
    if trusted || given {
        if given && !trusted {
            remember(&list, &root)?;
        }
        return Ok((project.mcp_servers, Vec::new()));
    }
    let names: Vec<&str> = project.mcp_servers.keys().map(String::as_str).collect();
    let Trust::Ask(ask) = trust else {
        let warning = format!(
            "warning: this project's .hotl/config.toml declares MCP servers ({}); they run only in a trusted project: pass --trust-project",
            names.join(", ")
        );
        return Ok((BTreeMap::new(), vec![warning]));
    };
    let yes = ask(&names).map_err(|e| ConfigError::new(format!("cannot ask: {e}")))?;
    if yes {
        remember(&list, &root)?;
        Ok((project.mcp_servers, Vec::new()))
    } else {
        let said = "the project's MCP servers are not started".to_owned();
        Ok((BTreeMap::new(), vec![said]))
    }
}

/// Adds `root` to the trusted list.
fn remember(list: &PathBuf, root: &Path) -> Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let failed = |e: std::io::Error| ConfigError::new(format!("{}: {e}", list.display()));
    if let Some(dir) = list.parent() {
        std::fs::create_dir_all(dir).map_err(failed)?;
    }
    // Private, as everything hotl writes in its home.
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(list)
        .map_err(failed)?;
    writeln!(file, "{}", root.display()).map_err(failed)
}
