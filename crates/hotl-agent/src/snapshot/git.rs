//! Working-tree snapshots: after a step that may have changed files, the tree as git would
//! store it, written through a private index (the user's index and history are untouched, and
//! a repository with no commits works too). A fold stores the diff between the tree before its
//! span and the tree now. No tool can say which files `bash` changed; the tree can.

use std::path::Path;
use std::process::Command;

/// The tree id of the working tree at `cwd`, or `None` outside a git work tree (or when git
/// is missing). `index` is the private index file to stage through.
pub fn tree(cwd: &Path, index: &Path) -> Option<String> {
    let inside = Command::new("git")
        .arg("-C")
        .arg(cwd)
        .args(["rev-parse", "--is-inside-work-tree"])
        .output()
        .ok()?;
    if !inside.status.success() {
        return None;
    }
    if let Some(dir) = index.parent() {
        std::fs::create_dir_all(dir).ok()?;
    }
    let git = |args: &[&str]| {
        Command::new("git")
            .arg("-C")
            .arg(cwd)
            .args(args)
            .env("GIT_INDEX_FILE", index)
            .output()
            .ok()
            .filter(|o| o.status.success())
    };
    git(&["add", "-A", "--", ":/"])?;
    let out = git(&["write-tree"])?;
    let id = String::from_utf8(out.stdout).ok()?.trim().to_owned();
    (!id.is_empty()).then_some(id)
}

/// The patch from tree `from` to tree `to` (binary-safe), or `None` when git cannot make it.
pub fn diff(cwd: &Path, from: &str, to: &str) -> Option<Vec<u8>> {
    let out = Command::new("git")
        .arg("-C")
        .arg(cwd)
        .args(["diff-tree", "-p", "--binary", from, to])
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    Some(out.stdout)
}
