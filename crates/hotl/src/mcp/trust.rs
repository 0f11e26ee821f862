//! MCP servers a project declares in its own `.hotl/config.toml`: they run commands on this
//! machine, so they start only in a project the user trusted once (asked in a terminal; a
//! headless run needs `--trust-project`). Trusted projects are listed, one canonical path a
//! line, in `<home>/trusted-projects`.

use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::CliError;

/// What a project's config may say: only its MCP servers.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct ProjectConfig {
    mcp_servers: BTreeMap<String, hotl_mcp::ServerConfig>,
}

/// The MCP servers the project in `cwd` declares, when it is trusted (or the user trusts it
/// now); none when it declares none or is not trusted. `headless`: no question can be asked,
/// so only `trust` (`--trust-project`) or an earlier yes lets them run.
pub fn servers(
    home: &Path,
    cwd: &Path,
    headless: bool,
    trust: bool,
) -> Result<BTreeMap<String, hotl_mcp::ServerConfig>, CliError> {
    let path = cwd.join(".hotl").join("config.toml");
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
        Err(e) => return Err(CliError::user(format!("{}: {e}", path.display()))),
    };
    let project: ProjectConfig = toml::from_str(&text).map_err(|e| {
        CliError::user(format!("{}: {e}", path.display())).hint(
            "a project's config may only declare [mcp_servers.NAME]; the rest belongs in your own",
        )
    })?;
    if project.mcp_servers.is_empty() {
        return Ok(BTreeMap::new());
    }
    for (name, server) in &project.mcp_servers {
        server.check(name).map_err(CliError::user)?;
    }
    let root = cwd.canonicalize().unwrap_or_else(|_| cwd.to_owned());
    let list = home.join("trusted-projects");
    let trusted = std::fs::read_to_string(&list)
        .unwrap_or_default()
        .lines()
        .any(|line| Path::new(line) == root);
    if trusted || trust {
        if trust && !trusted {
            remember(&list, &root)?;
        }
        return Ok(project.mcp_servers);
    }
    let names: Vec<&str> = project.mcp_servers.keys().map(String::as_str).collect();
    if headless {
        eprintln!(
            "hotl: warning: this project's .hotl/config.toml declares MCP servers ({}); they run only in a trusted project: pass --trust-project",
            names.join(", ")
        );
        return Ok(BTreeMap::new());
    }
    eprint!(
        "This project's .hotl/config.toml declares MCP servers ({}), which run commands on this machine. Trust this project? [y/N] ",
        names.join(", ")
    );
    std::io::stderr().flush()?;
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer)?;
    if matches!(answer.trim(), "y" | "Y" | "yes") {
        remember(&list, &root)?;
        Ok(project.mcp_servers)
    } else {
        eprintln!("hotl: the project's MCP servers are not started");
        Ok(BTreeMap::new())
    }
}

/// Adds `root` to the trusted list.
fn remember(list: &PathBuf, root: &Path) -> Result<(), CliError> {
    if let Some(dir) = list.parent() {
        std::fs::create_dir_all(dir)?;
    }
    use std::os::unix::fs::OpenOptionsExt;
    // Private, as everything hotl writes in its home.
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(list)?;
    writeln!(file, "{}", root.display())?;
    Ok(())
}
