//! Agent definitions: what a delegated child is (its prompt, tools, model, permissions and
//! what it starts with), from Markdown files with a `---` header in `<project>/.hotl/agents/`
//! and `~/.config/hotl/agents/`, and the built-ins `general-purpose`, `explore` and `reviewer`.
//!
//! A definition is named by its file (`reviewer.md` is `reviewer`; a `name:` in the header
//! must say the same), so one directory never holds two of a name and a project file replaces
//! the user's or the built-in of its name. The header is a strict subset of YAML: an unknown
//! key is an error naming it, so a typo never widens what a child may do. [`load`] returns
//! what parsed and, apart, what did not.

mod builtin;
mod def;
mod frontmatter;
mod load;

pub use builtin::builtins;
pub use def::{AgentDef, Context, Isolation, MAX_NAME_LEN, Shape, Source, valid_name};
pub use load::{DefProblem, Loaded, load, project_agents_dir};

/// How many characters of a description [`description_list`] keeps.
const LIST_DESCRIPTION_CHARS: usize = 160;

/// The definitions as `- name: description` lines (each description's first line, cut at 160
/// characters) for the `spawn` tool's description: short, since it is frozen into every
/// session's tools.
pub fn description_list(defs: &[AgentDef]) -> String {
    let mut out = String::new();
    for def in defs {
        let line = def.description.lines().next().unwrap_or_default().trim();
        let mut cut: String = line.chars().take(LIST_DESCRIPTION_CHARS).collect();
        if cut.len() < line.len() {
            cut.push('…');
        }
        out.push_str(&format!("- {}: {cut}\n", def.name));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{builtins, description_list};

    #[test]
    fn the_description_list_is_one_short_line_each() {
        let mut defs = builtins();
        defs[0].description = format!("{}\nsecond line", "x".repeat(300));
        let list = description_list(&defs);
        let lines: Vec<&str> = list.lines().collect();
        assert_eq!(lines.len(), defs.len());
        assert!(lines[0].starts_with("- general-purpose: xxx") && lines[0].ends_with('…'));
        assert!(lines[0].chars().count() < 200, "{}", lines[0]);
        assert!(
            lines[1].starts_with("- explore: read-only code questions"),
            "{list}"
        );
        assert!(!list.contains("second line"));
    }
}
