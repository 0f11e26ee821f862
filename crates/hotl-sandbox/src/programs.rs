//! Files that make a program run when written: git's configuration, hooks and attributes
//! (filters run on `git add` and `git status`), a `.git` file naming another git directory,
//! submodules, hotl's project configuration (it starts MCP servers), direnv's `.envrc`.
//! Writing one is as much as running a command, so it is asked like one.

use std::path::{Component, Path};

/// Why writing `path` is as much as running a command, or `None`.
pub fn runs_programs(path: &Path) -> Option<&'static str> {
    let names: Vec<&str> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(name) => name.to_str(),
            _ => None,
        })
        .collect();
    let last = names.last().copied().unwrap_or_default();
    if names.contains(&".git") {
        return Some(
            "git's own files (configuration, hooks, the .git file) name programs git runs",
        );
    }
    if names.contains(&".hotl") {
        return Some("hotl's project configuration starts programs (MCP servers, hooks)");
    }
    match last {
        ".gitattributes" => Some("git attributes name filters git runs"),
        ".gitmodules" => Some("submodules name programs and repositories git runs and fetches"),
        ".envrc" => Some("direnv runs .envrc when a shell enters the directory"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_hotl_and_attribute_files() {
        for path in [
            "/p/.git/config",
            "/p/.git",
            "/p/sub/.git/hooks/pre-commit",
            "/p/.gitattributes",
            "/p/a/.gitmodules",
            "/p/.hotl/config.toml",
            "/p/.envrc",
        ] {
            assert!(runs_programs(Path::new(path)).is_some(), "{path}");
        }
        for path in [
            "/p/src/main.rs",
            "/p/.github/workflows/ci.yml",
            "/p/.gitignore",
            "/p/git/x",
        ] {
            assert!(runs_programs(Path::new(path)).is_none(), "{path}");
        }
    }
}
