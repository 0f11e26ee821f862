//! Finding a directory's git work tree and git directory by reading files, never by running
//! git (whose configuration may name programs).

use std::path::{Path, PathBuf};

/// The work tree `dir` is in and its git directory; `(dir, None)` outside a repository.
pub fn locate(dir: &Path) -> (PathBuf, Option<PathBuf>) {
    for ancestor in dir.ancestors() {
        let dot_git = ancestor.join(".git");
        let Ok(meta) = std::fs::symlink_metadata(&dot_git) else {
            continue;
        };
        if meta.is_dir() {
            return (ancestor.to_owned(), Some(dot_git));
        }
        if meta.is_file()
            && let Some(git_dir) = gitdir_of(&dot_git)
        {
            return (ancestor.to_owned(), Some(git_dir));
        }
    }
    (dir.to_owned(), None)
}

/// The directory a `.git` file names (`gitdir: PATH`, relative to the file's directory).
fn gitdir_of(file: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(file).ok()?;
    let named = text.lines().next()?.strip_prefix("gitdir:")?.trim();
    let base = file.parent()?;
    base.join(named).canonicalize().ok()
}

/// The common directory of `git_dir` (a linked worktree's names it in `commondir`).
pub fn common_dir(git_dir: &Path) -> PathBuf {
    match std::fs::read_to_string(git_dir.join("commondir")) {
        Ok(text) => {
            let named = text.trim();
            git_dir
                .join(named)
                .canonicalize()
                .unwrap_or_else(|_| git_dir.join(named))
        }
        Err(_) => git_dir.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repository_a_linked_worktree_and_no_repository() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let repo = root.join("repo");
        std::fs::create_dir_all(repo.join(".git/worktrees/w")).unwrap();
        std::fs::create_dir_all(repo.join("src/deep")).unwrap();
        std::fs::write(repo.join(".git/worktrees/w/commondir"), "../..\n").unwrap();
        assert_eq!(
            locate(&repo.join("src/deep")),
            (repo.clone(), Some(repo.join(".git")))
        );
        let tree = root.join("w");
        std::fs::create_dir_all(&tree).unwrap();
        std::fs::write(
            tree.join(".git"),
            format!("gitdir: {}\n", repo.join(".git/worktrees/w").display()),
        )
        .unwrap();
        let (found, git_dir) = locate(&tree);
        assert_eq!(found, tree);
        let git_dir = git_dir.unwrap();
        assert_eq!(git_dir, repo.join(".git/worktrees/w"));
        assert_eq!(common_dir(&git_dir), repo.join(".git"));
        let plain = root.join("plain");
        std::fs::create_dir_all(&plain).unwrap();
        assert_eq!(locate(&plain).0, plain);
    }
}
