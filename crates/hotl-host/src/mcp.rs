//! A run's MCP servers, the terminal's part: a project that declares servers is trusted by a
//! question on the terminal (or `--trust-project`), and what starting them says goes to stderr.

use std::collections::BTreeMap;
use std::io::{BufRead, Write};

use hotl_config::Trust;

use crate::ctx::Ctx;
use crate::error::CliError;

/// The servers the project here declares, when it is trusted: `--trust-project` trusts it,
/// a terminal asks, `headless` (nobody to ask) takes only an earlier yes.
pub fn project_servers(
    ctx: &Ctx,
    headless: bool,
    trust_project: bool,
) -> Result<BTreeMap<String, hotl_mcp::ServerConfig>, CliError> {
    let mut ask = |names: &[&str]| -> std::io::Result<bool> {
        eprint!(
            "This project's .hotl/config.toml declares MCP servers ({}), which run commands on this machine. Trust this project? [y/N] ",
            names.join(", ")
        );
        std::io::stderr().flush()?;
        let mut answer = String::new();
        std::io::stdin().lock().read_line(&mut answer)?;
        Ok(matches!(answer.trim(), "y" | "Y" | "yes"))
    };
    let trust = match (trust_project, headless) {
        (true, _) => Trust::Given,
        (false, true) => Trust::Remembered,
        (false, false) => Trust::Ask(&mut ask),
    };
    let (servers, said) =
        hotl_config::project_servers(ctx.store.home(), std::path::Path::new(&ctx.cwd), trust)?;
    tell(&said);
    Ok(servers)
}

/// Says what starting servers told, on stderr.
pub fn tell(notices: &[String]) {
    for notice in notices {
        eprintln!("hotl: {notice}");
    }
}
