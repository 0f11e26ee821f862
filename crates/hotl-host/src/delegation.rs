//! The agents a session may consult: the definitions in `<project>/.hotl/agents/` and the
//! user's `~/.config/hotl/agents/` (with the built-ins), made into the standard tools plus
//! `spawn`. Definitions that cannot be read are said once, by file, and left out.

use std::path::Path;

use hotl_agent::ToolSet;

/// The standard tools and `spawn` over the definitions in effect for `cwd`; what was left out,
/// a line per file.
pub fn tools(cwd: &Path) -> (ToolSet, Vec<String>) {
    let project = cwd.join(".hotl").join("agents");
    let user = hotl_config::config_path().and_then(|p| p.parent().map(|d| d.join("agents")));
    let loaded = hotl_agent::agents::load(Some(&project), user.as_deref());
    let problems = loaded
        .problems
        .iter()
        .map(|p| format!("{}: {} (left out)", p.path.display(), p.why))
        .collect();
    (
        hotl_agent::with_agents(hotl_agent::standard_tools(), loaded.defs),
        problems,
    )
}
