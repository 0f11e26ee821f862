//! The definitions compiled into hotl (`general-purpose`, `explore`, `reviewer`): Markdown
//! files beside this one, parsed by the same parser as the user's, so each is an example of
//! the format.

use super::def::{AgentDef, Source};

/// The built-in files: name and text.
const FILES: &[(&str, &str)] = &[
    (
        "general-purpose",
        include_str!("builtin/general-purpose.md"),
    ),
    ("explore", include_str!("builtin/explore.md")),
    ("reviewer", include_str!("builtin/reviewer.md")),
];

/// The built-in definitions, by name.
pub fn builtins() -> Vec<AgentDef> {
    FILES
        .iter()
        .map(|(name, text)| {
            AgentDef::parse(name, text.as_bytes(), Source::BuiltIn)
                .expect("the built-in definitions parse (tested)")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::builtins;
    use crate::agents::{Context, Shape};

    #[test]
    fn the_builtins_parse_and_have_the_shapes_they_promise() {
        let defs = builtins();
        let by = |n: &str| defs.iter().find(|d| d.name == n).expect(n).clone();
        let general = by("general-purpose");
        assert_eq!(general.prompt, "");
        assert_eq!(general.model, None);
        assert_eq!(general.tools, None);
        assert_eq!(general.shape(false), Ok(Shape::Fork));
        assert!(general.allows("write") && general.allows("bash"));

        let explore = by("explore");
        assert_eq!(explore.context, Some(Context::Clean));
        assert_eq!(explore.shape(true), Ok(Shape::Clean));
        for tool in ["read", "ls", "glob", "grep", "recall", "ask"] {
            assert!(explore.allows(tool), "{tool}");
        }
        for tool in ["write", "edit", "bash", "fork", "mcp__srv__x"] {
            assert!(!explore.allows(tool), "{tool}");
        }
        assert!(explore.prompt.contains("path"), "{}", explore.prompt);

        let reviewer = by("reviewer");
        assert_eq!(reviewer.shape(false), Ok(Shape::Reviewer));
        assert!(reviewer.shape(true).is_err());
        assert!(reviewer.allows("read") && !reviewer.allows("edit") && !reviewer.allows("bash"));
        for words in [
            "diff",
            "path:line",
            "severity",
            "verdict",
            "other agent's words",
        ] {
            assert!(reviewer.prompt.contains(words), "{words}");
        }
    }
}
