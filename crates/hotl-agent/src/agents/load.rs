//! Finding definitions: the built-ins, then the user's directory, then the project's, a later
//! one replacing an earlier one of the same name; a file that does not parse is reported and
//! left out while the rest load.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::builtin::builtins;
use super::def::{AgentDef, Source};

/// Where a project keeps its definitions: `<project>/.hotl/agents`.
pub fn project_agents_dir(project: &Path) -> PathBuf {
    project.join(".hotl").join("agents")
}

/// A definition file left out, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DefProblem {
    /// The file (or the directory, when it could not be read).
    pub path: PathBuf,
    /// The name it would have had (the file's stem; empty for a directory).
    pub name: String,
    /// What is wrong with it.
    pub why: String,
}

/// What [`load`] found.
#[derive(Clone, Debug, Default)]
pub struct Loaded {
    /// The definitions in effect, by name.
    pub defs: Vec<AgentDef>,
    /// The files left out.
    pub problems: Vec<DefProblem>,
}

impl Loaded {
    /// The definition named `name`.
    pub fn get(&self, name: &str) -> Option<&AgentDef> {
        self.defs.iter().find(|d| d.name == name)
    }
}

/// Loads the built-in definitions, then the `*.md` files of `user_dir`, then those of
/// `project_dir` (each directory itself, such as [`project_agents_dir`]; a missing one is
/// skipped). A project definition replaces a user or built-in one of the same name, a user
/// one a built-in one. A file that does not parse is reported in `problems` and left out (a
/// same-named definition from further down stays in effect). Files are read in name order and
/// `defs` comes out sorted by name.
pub fn load(project_dir: Option<&Path>, user_dir: Option<&Path>) -> Loaded {
    let mut defs: BTreeMap<String, AgentDef> = builtins()
        .into_iter()
        .map(|d| (d.name.clone(), d))
        .collect();
    let mut problems = Vec::new();
    let dirs = [
        user_dir.map(|d| (d, Source::User as fn(PathBuf) -> Source)),
        project_dir.map(|d| (d, Source::Project as fn(PathBuf) -> Source)),
    ];
    for (dir, source) in dirs.into_iter().flatten() {
        for path in files(dir, &mut problems) {
            let name = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let parsed = std::fs::read(&path)
                .map_err(|e| format!("cannot read it: {e}"))
                .and_then(|bytes| AgentDef::parse(&name, &bytes, source(path.clone())));
            match parsed {
                Ok(def) => {
                    defs.insert(def.name.clone(), def);
                }
                Err(why) => problems.push(DefProblem { path, name, why }),
            }
        }
    }
    Loaded {
        defs: defs.into_values().collect(),
        problems,
    }
}

/// The `*.md` files of `dir` in name order; nothing when it does not exist.
fn files(dir: &Path, problems: &mut Vec<DefProblem>) -> Vec<PathBuf> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
        Err(e) => {
            problems.push(DefProblem {
                path: dir.to_owned(),
                name: String::new(),
                why: format!("cannot read the directory: {e}"),
            });
            return Vec::new();
        }
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "md") && !p.is_dir())
        .collect();
    paths.sort();
    paths
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::{load, project_agents_dir};
    use crate::agents::Source;

    fn write(dir: &Path, name: &str, text: &str) {
        std::fs::create_dir_all(dir).expect("dir");
        std::fs::write(dir.join(name), text).expect("write");
    }

    #[test]
    fn project_overrides_user_overrides_builtin() {
        let tmp = tempfile::tempdir().expect("tmp");
        let user = tmp.path().join("user");
        let project = project_agents_dir(&tmp.path().join("p"));
        write(
            &user,
            "reviewer.md",
            "---\ndescription: the user's reviewer\ncontext: reviewer\n---\nUser prompt.\n",
        );
        write(
            &user,
            "explore.md",
            "---\ndescription: the user's explore\n---\n",
        );
        write(
            &project,
            "reviewer.md",
            "---\ndescription: the project's reviewer\ncontext: reviewer\n---\nProject prompt.\n",
        );
        write(&project, "notes.txt", "not a definition");
        let loaded = load(Some(&project), Some(&user));
        assert!(loaded.problems.is_empty(), "{:?}", loaded.problems);
        let names: Vec<&str> = loaded.defs.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["explore", "general-purpose", "reviewer"]);
        let reviewer = loaded.get("reviewer").expect("reviewer");
        assert_eq!(reviewer.description, "the project's reviewer");
        assert_eq!(reviewer.prompt, "Project prompt.");
        assert_eq!(
            reviewer.source,
            Source::Project(project.join("reviewer.md"))
        );
        assert_eq!(
            reviewer.bytes,
            std::fs::read(project.join("reviewer.md")).expect("read")
        );
        let explore = loaded.get("explore").expect("explore");
        assert_eq!(explore.description, "the user's explore");
        assert_eq!(explore.source, Source::User(user.join("explore.md")));
        assert_eq!(
            loaded.get("general-purpose").expect("gp").source,
            Source::BuiltIn
        );
    }

    #[test]
    fn a_bad_file_is_reported_by_name_and_the_rest_load() {
        let tmp = tempfile::tempdir().expect("tmp");
        let project = tmp.path().join("agents");
        write(&project, "b-good.md", "---\ndescription: fine\n---\nHi.\n");
        write(
            &project,
            "a-bad.md",
            "---\ntool: [read]\ndescription: x\n---\n",
        );
        write(&project, "c-good.md", "---\ndescription: also fine\n---\n");
        write(&project, "reviewer.md", "no header at all\n");
        let loaded = load(Some(&project), None);
        let names: Vec<&str> = loaded.defs.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(
            names,
            ["b-good", "c-good", "explore", "general-purpose", "reviewer"]
        );
        assert_eq!(
            loaded.get("reviewer").expect("reviewer").source,
            Source::BuiltIn,
            "the bad project file leaves the built-in in effect"
        );
        let problems: Vec<(&str, &str)> = loaded
            .problems
            .iter()
            .map(|p| (p.name.as_str(), p.why.as_str()))
            .collect();
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert_eq!(problems[0].0, "a-bad");
        assert!(problems[0].1.contains("unknown key `tool`"), "{problems:?}");
        assert_eq!(loaded.problems[0].path, project.join("a-bad.md"));
        assert_eq!(problems[1].0, "reviewer");
        assert!(problems[1].1.contains("no frontmatter"), "{problems:?}");
    }

    #[test]
    fn missing_directories_are_nothing() {
        let tmp = tempfile::tempdir().expect("tmp");
        let loaded = load(Some(&tmp.path().join("none")), Some(&tmp.path().join("no")));
        assert!(loaded.problems.is_empty());
        assert_eq!(loaded.defs.len(), 3);
    }
}
