//! Snapshots inside a git work tree: the tree as git would store it, written through a private
//! index, so the user's index and history stay untouched and a repository with no commits works
//! too. git already knows what is ignored and how to make a binary-safe patch, so inside a work
//! tree it does both.

use std::path::Path;
use std::process::{Command, Output};

/// Whether `cwd` is inside a git work tree (`false` too when git is missing, and inside a `.git`
/// directory or a bare repository, where git answers "false").
pub(super) fn inside_work_tree(cwd: &Path) -> bool {
    Command::new("git")
        .arg("-C")
        .arg(cwd)
        .args(["rev-parse", "--is-inside-work-tree"])
        .output()
        .is_ok_and(|o| o.status.success() && o.stdout.trim_ascii() == b"true")
}

/// The tree id of the whole work tree holding `cwd`, staged through the private index file
/// `index` (created with its directory when missing), or `None` when git fails.
pub(super) fn tree(cwd: &Path, index: &Path) -> Option<String> {
    if let Some(dir) = index.parent() {
        std::fs::create_dir_all(dir).ok()?;
    }
    let git = |args: &[&str]| -> Option<Output> {
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
    is_tree_id(&id).then_some(id)
}

/// The patch from tree `from` to tree `to` (binary-safe), or `None` when git cannot make it.
pub(super) fn diff(cwd: &Path, from: &str, to: &str) -> Option<Vec<u8>> {
    let out = Command::new("git")
        .arg("-C")
        .arg(cwd)
        .args(["diff-tree", "-p", "--binary", from, to])
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    Some(out.stdout)
}

/// The paths under `cwd` (relative to it) that differ between tree `from` and tree `to`, or
/// `None` when git cannot say.
pub(super) fn changed_paths(cwd: &Path, from: &str, to: &str) -> Option<Vec<String>> {
    let out = Command::new("git")
        .arg("-C")
        .arg(cwd)
        .args([
            "diff-tree",
            "-r",
            "--relative",
            "--name-only",
            "-z",
            "--no-renames",
            from,
            to,
        ])
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    Some(
        out.stdout
            .split(|&b| b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .collect(),
    )
}

/// The content of each of `paths` (relative to `cwd`) in tree `tree`, `None` for a path the
/// tree does not hold, read with one `git cat-file --batch`; `None` when git cannot say.
pub(super) fn contents(cwd: &Path, tree: &str, paths: &[String]) -> Option<Vec<Option<Vec<u8>>>> {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::process::Stdio;
    if paths.iter().any(|p| p.contains('\n')) {
        return None;
    }
    let mut child = Command::new("git")
        .arg("-C")
        .arg(cwd)
        .args(["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut input = child.stdin.take()?;
    // `./` makes each path relative to `cwd`, which may sit below the repository's root.
    let request: String = paths.iter().map(|p| format!("{tree}:./{p}\n")).collect();
    // Written from a thread: git answers while it reads, and a pipe holds only so much.
    let writer = std::thread::spawn(move || input.write_all(request.as_bytes()));
    let mut out = BufReader::new(child.stdout.take()?);
    let mut found = Vec::with_capacity(paths.len());
    for _ in paths {
        let mut header = String::new();
        out.read_line(&mut header).ok()?;
        let fields: Vec<&str> = header.split_whitespace().collect();
        match fields.as_slice() {
            [_, "blob", size] => {
                let size: usize = size.parse().ok()?;
                let mut content = vec![0; size + 1];
                out.read_exact(&mut content).ok()?;
                content.pop();
                found.push(Some(content));
            }
            [_, "missing"] => found.push(None),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    writer.join().ok()?.ok()?;
    child.wait().ok().filter(|s| s.success())?;
    Some(found)
}

/// Whether `id` looks like a git object id: 40 hex digits (SHA-1) or 64 (SHA-256 repositories).
pub(super) fn is_tree_id(id: &str) -> bool {
    matches!(id.len(), 40 | 64) && id.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tree_ids_are_40_or_64_hex_digits() {
        assert!(is_tree_id(&"a".repeat(40)));
        assert!(is_tree_id(&"0".repeat(64)));
        assert!(!is_tree_id(&"a".repeat(41)));
        assert!(!is_tree_id(&format!("manifest:{}", "a".repeat(64))));
        assert!(!is_tree_id(&"g".repeat(40)));
    }
}
