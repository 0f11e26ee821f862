//! The files `@` can name: the working directory walked once (respecting `.gitignore` and
//! hidden files, as git would list them), matched against what follows the `@`.

use std::path::{Path, PathBuf};

/// The most files walked: a huge tree is cut short rather than stalling the composer.
const MAX_FILES: usize = 20_000;
/// Matches the popup shows.
pub const SHOWN: usize = 8;

/// The files under a directory, relative to it.
#[derive(Debug, Default)]
pub struct Files {
    root: Option<PathBuf>,
    /// Each path, with its lowercase form (made once, not on every key).
    paths: Vec<(String, String)>,
}

impl Files {
    /// Files under `root`, walked on first use.
    pub fn new(root: PathBuf) -> Files {
        Files {
            root: Some(root),
            paths: Vec::new(),
        }
    }

    /// Paths matching `query` (every character in order, case-insensitive), best first:
    /// a match in the file name beats one in the directories, a shorter path a longer one.
    pub fn matching(&mut self, query: &str) -> Vec<String> {
        if let Some(root) = self.root.take() {
            self.paths = walk(&root);
        }
        let query = query.to_lowercase();
        let mut hits: Vec<(usize, &String)> = self
            .paths
            .iter()
            .filter_map(|(path, lower)| score(lower, &query).map(|s| (s, path)))
            .collect();
        hits.sort_by(|a, b| {
            a.0.cmp(&b.0)
                .then(a.1.len().cmp(&b.1.len()))
                .then(a.1.cmp(b.1))
        });
        hits.into_iter()
            .take(SHOWN)
            .map(|(_, p)| p.clone())
            .collect()
    }
}

fn walk(root: &Path) -> Vec<(String, String)> {
    let mut paths = Vec::new();
    for entry in ignore::WalkBuilder::new(root).build().flatten() {
        if paths.len() >= MAX_FILES {
            break;
        }
        if entry.file_type().is_some_and(|t| t.is_file())
            && let Ok(relative) = entry.path().strip_prefix(root)
        {
            let path = relative.to_string_lossy().into_owned();
            let lower = path.to_lowercase();
            paths.push((path, lower));
        }
    }
    paths
}

/// Lower is better; `None` when `query` is not a subsequence of `lower` (both lowercase).
fn score(lower: &str, query: &str) -> Option<usize> {
    let name_start = lower.rfind('/').map_or(0, |i| i + 1);
    if lower[name_start..].contains(query) {
        return Some(0);
    }
    if lower.contains(query) {
        return Some(1);
    }
    let mut chars = lower.chars();
    query
        .chars()
        .all(|q| chars.by_ref().any(|c| c == q))
        .then_some(2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_beat_directories_and_ignored_files_are_left_out() {
        let dir = std::env::temp_dir().join(format!("hotl-files-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("src/parse")).expect("dirs");
        std::fs::create_dir_all(dir.join("target")).expect("dirs");
        for f in [
            "src/main.rs",
            "src/parse/mod.rs",
            "main_notes.md",
            "target/main.o",
        ] {
            std::fs::write(dir.join(f), "x").expect("file");
        }
        std::fs::write(dir.join(".gitignore"), "target/\n").expect("ignore");
        std::fs::create_dir_all(dir.join(".git")).expect("git");
        let mut files = Files::new(dir.clone());
        assert_eq!(files.matching("main"), ["src/main.rs", "main_notes.md"]);
        assert_eq!(files.matching("prs"), ["src/parse/mod.rs"]);
        assert!(files.matching("main.o").is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
