//! Snapshots inside a git work tree: the tree as git would store it, written through a private
//! index, so the user's index and history stay untouched and a repository with no commits works
//! too. git already knows what is ignored and how to make a binary-safe patch, so inside a work
//! tree it does both.
//!
//! The objects a snapshot needs go into the repository's object store like any `git add`
//! (unreachable from any ref, so a later `git gc` may prune them after its grace period; a
//! fold's diff is kept in hotl's own blobs when the fold is made). Untracked files over
//! [`MAX_UNTRACKED`] are left out, as outside git, so a large data file does not copy itself
//! into `.git/objects` after every step.

use std::path::{Path, PathBuf};
use std::process::Output;

use super::children;

/// Untracked files larger than this are not snapshotted.
pub(super) const MAX_UNTRACKED: u64 = 1 << 20;

/// The nearest `.git` entry (a directory, or the file a linked work tree or submodule has) in
/// `cwd` or above it: while it stays the same, so does what [`work_tree`] says.
pub(super) fn nearest_git_entry(cwd: &Path) -> Option<PathBuf> {
    cwd.ancestors()
        .map(|dir| dir.join(".git"))
        .find(|entry| entry.symlink_metadata().is_ok())
}

/// The top of the git work tree holding `cwd`, or `None` outside one (also when git is
/// missing, inside a `.git` directory or a bare repository, and when `cwd` is a directory git
/// ignores: nothing under it would be snapshotted, so the content-hash manifests do it).
pub(super) fn work_tree(cwd: &Path) -> Option<PathBuf> {
    let out = children::output(children::git(cwd).args([
        "rev-parse",
        "--is-inside-work-tree",
        "--show-toplevel",
    ]))
    .ok()
    .filter(|o| o.status.success())?;
    let text = String::from_utf8(out.stdout).ok()?;
    let mut lines = text.lines();
    if lines.next() != Some("true") {
        return None;
    }
    let top = PathBuf::from(lines.next()?);
    let ignored = children::output(children::git(cwd).args(["check-ignore", "-q", "."]))
        .is_ok_and(|o| o.status.success());
    (!ignored).then_some(top)
}

/// The tree id of the whole work tree `top` holding `cwd`, staged through the private index
/// file `index` (created with its directory when missing, from `HEAD` when there is one, so
/// files tracked though ignored are in it), leaving out `excluded` paths and untracked files
/// over [`MAX_UNTRACKED`]; `None` when git fails. A file git cannot add (unreadable, a nested
/// repository with no commit) is left out and the rest is snapshotted.
pub(super) fn tree(cwd: &Path, top: &Path, index: &Path, excluded: &[PathBuf]) -> Option<String> {
    if let Some(dir) = index.parent() {
        // It lists every path of the project: private whatever the umask.
        std::os::unix::fs::DirBuilderExt::mode(std::fs::DirBuilder::new().recursive(true), 0o700)
            .create(dir)
            .inspect_err(|e| tracing::warn!("{} cannot be made: {e}", dir.display()))
            .ok()?;
    }
    // Pathspecs go on stdin (there may be many), NUL-separated and literal (a name may hold
    // glob characters).
    let git = |args: &[&str], pathspecs: Option<&[String]>| -> Option<Output> {
        let mut command = children::git(cwd);
        command.args(args).env("GIT_INDEX_FILE", index);
        let Some(pathspecs) = pathspecs else {
            return children::output(&mut command)
                .inspect_err(|e| tracing::warn!("git {} cannot run: {e}", args.join(" ")))
                .ok();
        };
        command
            .args(["--pathspec-from-file=-", "--pathspec-file-nul"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut child = children::spawn(&mut command)
            .inspect_err(|e| tracing::warn!("git {} cannot run: {e}", args.join(" ")))
            .ok()?;
        let input: Vec<u8> = pathspecs.join("\0").into_bytes();
        let mut stdin = child.child().stdin.take()?;
        let writer = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, &input));
        let output = child.wait_with_output().ok()?;
        writer.join().ok()?.ok()?;
        Some(output)
    };
    clear_stale_lock(index);
    if !index.exists() {
        // No HEAD yet (no commits) is fine: the add below stages everything.
        let _ = git(&["read-tree", "HEAD"], None);
    }
    // Compared and named as git names the top: symlinks resolved.
    let mut leave_out: Vec<PathBuf> = excluded
        .iter()
        .map(|p| p.canonicalize().unwrap_or_else(|_| p.clone()))
        .filter(|p| p.starts_with(top))
        .collect();
    let large = large_untracked(cwd, top);
    if !large.is_empty() {
        // One staged while it was small goes too: left out, not frozen at its old content.
        let specs: Vec<String> = large
            .iter()
            .map(|p| format!(":(literal){}", p.display()))
            .collect();
        let _ = git(
            &["rm", "--cached", "-f", "-q", "--ignore-unmatch"],
            Some(&specs),
        );
    }
    leave_out.extend(large);
    let mut specs = vec![":/".to_owned()];
    specs.extend(
        leave_out
            .iter()
            .map(|p| format!(":(exclude,literal){}", p.display())),
    );
    let added = git(&["add", "-A", "--ignore-errors"], Some(&specs))?;
    // Files it could not add are reported as errors and the rest staged; a fatal error means
    // the index may not show the tree.
    if !added.status.success() && String::from_utf8_lossy(&added.stderr).contains("fatal:") {
        private(index);
        return None;
    }
    let out = git(&["write-tree"], None).filter(|o| o.status.success());
    // git writes the index (`add`, and `write-tree` for its cache) with the umask's mode; it is
    // hotl's, so it is made private.
    private(index);
    let out = out?;
    let id = String::from_utf8(out.stdout).ok()?.trim().to_owned();
    is_tree_id(&id).then_some(id)
}

/// A git killed while it worked on hotl's index `index` leaves its lock, and maybe the index
/// written with the umask's mode: the lock goes (the git that held it is gone), the index is
/// made private.
pub(super) fn after_killed(index: &Path) {
    let mut lock = index.as_os_str().to_owned();
    lock.push(".lock");
    let _ = std::fs::remove_file(PathBuf::from(lock));
    private(index);
}

/// A lock on hotl's own index older than this was left by a git that died with its hotl
/// (SIGKILL, a power cut): no snapshot git runs this long.
const STALE_LOCK: std::time::Duration = std::time::Duration::from_secs(600);

/// Removes `index`'s lock when it is stale ([`STALE_LOCK`]).
fn clear_stale_lock(index: &Path) {
    let mut lock = index.as_os_str().to_owned();
    lock.push(".lock");
    let lock = PathBuf::from(lock);
    let stale = std::fs::metadata(&lock)
        .and_then(|m| m.modified())
        .is_ok_and(|at| at.elapsed().is_ok_and(|age| age > STALE_LOCK));
    if stale && std::fs::remove_file(&lock).is_ok() {
        tracing::info!(
            "removed a stale lock left by a git that died: {}",
            lock.display()
        );
    }
}

/// Makes `file` readable by its owner only, when it is not already.
fn private(file: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let Ok(meta) = std::fs::metadata(file) else {
        return;
    };
    if meta.permissions().mode() & 0o077 != 0
        && let Err(e) = std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o600))
    {
        tracing::warn!("{} stays readable by others: {e}", file.display());
    }
}

/// Files of the work tree the user's index does not track (and git does not ignore) over
/// [`MAX_UNTRACKED`], as absolute paths.
fn large_untracked(cwd: &Path, top: &Path) -> Vec<PathBuf> {
    let Ok(out) = children::output(children::git(cwd).args([
        "ls-files",
        "-z",
        "--others",
        "--exclude-standard",
        "--full-name",
        "--",
        ":/",
    ])) else {
        return Vec::new();
    };
    out.stdout
        .split(|&b| b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| top.join(String::from_utf8_lossy(p).as_ref()))
        .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.len() > MAX_UNTRACKED))
        .collect()
}

/// The patch from tree `from` to tree `to` (binary-safe), or `None` when git cannot make it.
pub(super) fn diff(cwd: &Path, from: &str, to: &str) -> Option<Vec<u8>> {
    let out = children::output(
        children::git(cwd)
            // Paths relative to `cwd`, as the changed paths and the manifests name them.
            .args(["diff-tree", "-p", "--binary", "--relative", from, to]),
    )
    .ok()
    .filter(|o| o.status.success())?;
    Some(out.stdout)
}

/// The paths under `cwd` (relative to it) that differ between tree `from` and tree `to`, or
/// `None` when git cannot say.
pub(super) fn changed_paths(cwd: &Path, from: &str, to: &str) -> Option<Vec<String>> {
    let out = children::output(children::git(cwd).args([
        "diff-tree",
        "-r",
        "--relative",
        "--name-only",
        "-z",
        "--no-renames",
        from,
        to,
    ]))
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
    let mut known = children::spawn(
        children::git(cwd)
            .args(["cat-file", "--batch"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null()),
    )
    .ok()?;
    let child = known.child();
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
        // `<object> blob <size>` or `<object> missing`, where the object names a path that
        // may hold spaces: read from the right.
        let fields: Vec<&str> = header.trim_end().rsplitn(3, ' ').collect();
        match fields.as_slice() {
            ["missing", _] | ["missing", _, _] => found.push(None),
            [size, "blob", _] => {
                let size: usize = size.parse().ok()?;
                let mut content = vec![0; size + 1];
                out.read_exact(&mut content).ok()?;
                content.pop();
                found.push(Some(content));
            }
            // Dropped, the process is ended.
            _ => return None,
        }
    }
    writer.join().ok()?.ok()?;
    known
        .wait_with_output()
        .ok()
        .filter(|o| o.status.success())?;
    Some(found)
}

/// Whether `id` looks like a git object id: 40 hex digits (SHA-1) or 64 (SHA-256 repositories).
pub(super) fn is_tree_id(id: &str) -> bool {
    matches!(id.len(), 40 | 64) && id.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A git killed mid-snapshot leaves a lock and an index with the umask's mode: both are
    /// put right, so the next snapshot is not refused and no warning follows.
    #[test]
    fn a_killed_gits_lock_goes_and_its_index_is_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let index = dir.path().join("s.index");
        std::fs::write(&index, b"index").unwrap();
        std::fs::set_permissions(&index, std::fs::Permissions::from_mode(0o644)).unwrap();
        let lock = dir.path().join("s.index.lock");
        std::fs::write(&lock, b"").unwrap();
        clear_stale_lock(&index);
        assert!(lock.exists(), "a fresh lock may be a live git's");
        after_killed(&index);
        assert!(!lock.exists());
        let mode = std::fs::metadata(&index).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn tree_ids_are_40_or_64_hex_digits() {
        assert!(is_tree_id(&"a".repeat(40)));
        assert!(is_tree_id(&"0".repeat(64)));
        assert!(!is_tree_id(&"a".repeat(41)));
        assert!(!is_tree_id(&format!("manifest:{}", "a".repeat(64))));
        assert!(!is_tree_id(&"g".repeat(40)));
    }
}
