//! The system prompt: hotl's own instructions plus the project's, frozen at session start.

use std::path::Path;

/// hotl's own instructions.
pub(crate) const BASE: &str =
    "You are hotl, a coding agent working in the user's project through tools. \
Read before you change; make the smallest change that works; run the project's checks after \
changing code. Answer briefly. Paths are relative to the working directory. A stamp like [t42] \
starts each message and tool result.

Your context is a view of an append-only log. Fold finished work; recall before redoing or \
guessing (scope \"sessions\": earlier sessions); ask an archived thread when its note is not \
enough; fork log-heavy side work.";

/// The system blocks for a session in `cwd`: hotl's instructions, then `AGENTS.md` and
/// `CLAUDE.md` from the project root when present. Read once, when the session starts, and
/// frozen: resuming or forking sends the same bytes even if the files change.
pub fn system_blocks(cwd: &Path) -> Vec<String> {
    let mut blocks = vec![BASE.to_owned()];
    for name in ["AGENTS.md", "CLAUDE.md"] {
        if let Ok(text) = std::fs::read_to_string(cwd.join(name))
            && !text.trim().is_empty()
        {
            blocks.push(format!(
                "Project instructions from {name}:\n\n{}",
                text.trim_end()
            ));
        }
    }
    blocks
}
