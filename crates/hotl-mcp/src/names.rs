//! MCP tool names made into hotl tool names: `mcp__<server>__<tool>`, every other character
//! than `A-Z a-z 0-9 _ -` made `_`, at most 64 characters (what providers accept). A name cut
//! to fit, or one that clashes with a name already taken, ends in a short hash of the raw
//! names, so the same server and tool always get the same name.

/// The longest tool name providers accept.
const MAX: usize = 64;

/// What every tool of `server` is named with, first: `mcp__<server>__` (for `--allow
/// mcp__<server>__*`).
pub fn tool_prefix(server: &str) -> String {
    format!("mcp__{}__", clean(server))
}

fn clean(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The hotl name for `server`'s tool `tool`, unique among `taken`.
pub fn tool_name(server: &str, tool: &str, taken: &[String]) -> String {
    let name = format!("{}{}", tool_prefix(server), clean(tool));
    if name.len() <= MAX && !taken.contains(&name) {
        return name;
    }
    let hash = blake3::hash(format!("{server}\0{tool}").as_bytes()).to_hex();
    let suffix = format!("_{}", &hash[..8]);
    let mut cut = name;
    cut.truncate(MAX - suffix.len());
    cut + &suffix
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_clean_short_and_unique() {
        assert_eq!(
            tool_name("fixture", "echo-text", &[]),
            "mcp__fixture__echo-text"
        );
        assert_eq!(tool_name("my srv", "a.b/c", &[]), "mcp__my_srv__a_b_c");
        let long = tool_name("server", &"x".repeat(100), &[]);
        assert_eq!(long.len(), 64);
        assert_eq!(long, tool_name("server", &"x".repeat(100), &[]), "stable");
        // Two raw names that clean to the same one.
        let first = tool_name("s", "a.b", &[]);
        let second = tool_name("s", "a/b", std::slice::from_ref(&first));
        assert_ne!(first, second);
        assert!(second.starts_with("mcp__s__a_b_"));
    }
}
