//! Worktrees for isolated children (`isolation: worktree`): a git worktree under
//! `<home>/worktrees/`, checked out at the working tree as a snapshot has it now (uncommitted
//! and untracked work included), where a child writes without touching the user's files. What
//! it did comes back as a patch, stored as a blob and beside the worktree, and is applied only
//! when the parent or the user asks.

use std::path::{Path, PathBuf};

use hotl_log::Blobs;

use super::{children, git};

/// A worktree a child works in.
#[derive(Clone, Debug)]
pub(crate) struct Worktree {
    /// Its top directory.
    pub(crate) dir: PathBuf,
    /// The child's working directory: where the parent's is, inside the worktree.
    pub(crate) cwd: PathBuf,
    /// The commit it was checked out at (the parent's working tree then).
    base: String,
    /// The top of the repository it belongs to.
    repo: PathBuf,
}

/// What a child's worktree came to, for its report.
pub(crate) struct Settled {
    /// What the report says of it.
    pub(crate) note: String,
    /// The patch's blob, when it changed something.
    pub(crate) patch_blob: Option<String>,
}

/// Runs git in `dir`; its stdout, or why it failed.
fn run_git(dir: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    let mut command = hotl_sandbox::git(dir);
    command
        .args(args)
        // A commit needs a name even where the user set none; these commits are hotl's own.
        .env("GIT_AUTHOR_NAME", "hotl")
        .env("GIT_AUTHOR_EMAIL", "hotl@localhost")
        .env("GIT_COMMITTER_NAME", "hotl")
        .env("GIT_COMMITTER_EMAIL", "hotl@localhost");
    let out = children::output(&mut command).map_err(|e| format!("git cannot run: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "git {} failed: {}",
            args.first().copied().unwrap_or(""),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(out.stdout)
}

impl Worktree {
    /// The top of the git work tree holding `cwd`, or why a worktree cannot be made there.
    pub(crate) fn repository(cwd: &Path) -> Result<PathBuf, String> {
        git::work_tree(cwd).ok_or_else(|| {
            format!(
                "{} is not inside a git work tree, so no worktree can be made for it",
                cwd.display()
            )
        })
    }

    /// Checks out the snapshot `tree` (a git tree of the repository whose top is `top`, taken
    /// of `cwd`) as a new worktree at `dir`, on no branch: the user's branches, index and
    /// files are untouched.
    pub(crate) fn create(
        cwd: &Path,
        top: &Path,
        tree: &str,
        dir: &Path,
    ) -> Result<Worktree, String> {
        let head = run_git(top, &["rev-parse", "--verify", "-q", "HEAD"])
            .ok()
            .map(|out| String::from_utf8_lossy(&out).trim().to_owned());
        let mut args = vec!["commit-tree", tree];
        if let Some(head) = &head {
            args.extend(["-p", head]);
        }
        args.extend([
            "-m",
            "hotl: the working tree an isolated child started from",
        ]);
        let base = String::from_utf8_lossy(&run_git(top, &args)?)
            .trim()
            .to_owned();
        if let Some(parent) = dir.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("{} cannot be made: {e}", parent.display()))?;
        }
        let target = dir.to_string_lossy();
        run_git(
            top,
            &["worktree", "add", "--detach", "--quiet", &target, &base],
        )?;
        let inside = cwd.strip_prefix(top).unwrap_or(Path::new(""));
        Ok(Worktree {
            dir: dir.to_owned(),
            cwd: dir.join(inside),
            base,
            repo: top.to_owned(),
        })
    }

    /// The binary patch of what changed in the worktree since it was made (new files
    /// included); `None` when nothing did.
    fn patch(&self) -> Result<Option<Vec<u8>>, String> {
        run_git(&self.dir, &["add", "-A"])?;
        // hotl's git sets every external diff program to nothing (running one fails), so the
        // patch is git's own diff: no external diff, no text conversion.
        let patch = run_git(
            &self.dir,
            &[
                "diff",
                "--no-ext-diff",
                "--no-textconv",
                "--cached",
                "--binary",
                &self.base,
            ],
        )?;
        Ok((!patch.is_empty()).then_some(patch))
    }

    /// Takes the patch once the child's run ended: stored as a blob and as `<dir>.patch`, the
    /// worktree kept for a look or a `continue`; a worktree where nothing changed is removed.
    pub(crate) fn settle(&self, blobs: &Blobs) -> Settled {
        let shown = self.dir.display();
        let patch = match self.patch() {
            Ok(Some(patch)) => patch,
            Ok(None) => {
                self.remove();
                return Settled {
                    note: format!("[it worked in its own worktree ({shown}) and changed no file]"),
                    patch_blob: None,
                };
            }
            Err(why) => {
                return Settled {
                    note: format!(
                        "[it worked in its own worktree ({shown}); its patch cannot be made: {why}]"
                    ),
                    patch_blob: None,
                };
            }
        };
        let files = patch
            .split(|b| *b == b'\n')
            .filter(|line| line.starts_with(b"diff --git "))
            .count();
        let file = self.dir.with_extension("patch");
        let written = std::fs::write(&file, &patch);
        let blob = blobs.put(&patch).ok();
        let note = match written {
            Ok(()) => format!(
                "[its changes ({files} file{}) are in its own worktree ({shown}), not in the working tree: `git apply {}` applies them, when you or the user want them]",
                if files == 1 { "" } else { "s" },
                file.display()
            ),
            Err(e) => format!(
                "[its changes ({files} files) are in its own worktree ({shown}), not in the working tree; the patch file cannot be written ({e}): `git -C {shown} diff {}` shows them]",
                self.base
            ),
        };
        Settled {
            note,
            patch_blob: blob,
        }
    }

    /// Removes the worktree (git forgets it too).
    fn remove(&self) {
        let dir = self.dir.to_string_lossy();
        if let Err(why) = run_git(&self.repo, &["worktree", "remove", "--force", &dir]) {
            tracing::warn!("the worktree {dir} cannot be removed: {why}");
        }
    }
}

/// The worktrees under `<home>/worktrees/` whose child is gone (no session left works in
/// them: its tree was collected), removed with their patch files unless `dry_run`; what was
/// (or would be) removed. A worktree some session still works in is kept, changes and all.
pub fn sweep_worktrees(store: &hotl_log::Store, dry_run: bool) -> Vec<PathBuf> {
    let dir = store.home().join("worktrees");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    // Only delegated children work in worktrees: their starts say where.
    let mut used: Vec<PathBuf> = Vec::new();
    for root in store.session_ids().unwrap_or_default() {
        for child in store.tree_children(&root).unwrap_or_default() {
            if let Ok(start) = store.read_start(&child)
                && Path::new(&start.cwd).starts_with(&dir)
            {
                used.push(PathBuf::from(start.cwd));
            }
        }
    }
    let mut removed = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if !path.is_dir() || used.iter().any(|cwd| cwd.starts_with(&path)) {
            continue;
        }
        if !dry_run {
            remove_orphan(&path);
        }
        removed.push(path);
    }
    removed
}

/// Removes a worktree nobody works in: through git when it is still one (so the repository
/// forgets it), else the directory; its patch file too.
fn remove_orphan(path: &Path) {
    let shown = path.to_string_lossy();
    let common = run_git(
        path,
        &["rev-parse", "--path-format=absolute", "--git-common-dir"],
    )
    .map(|out| PathBuf::from(String::from_utf8_lossy(&out).trim()));
    let through_git = common.is_ok_and(|common| {
        let mut command = hotl_sandbox::git(&common);
        command
            .arg("--git-dir")
            .arg(&common)
            .args(["worktree", "remove", "--force"])
            .arg(path);
        children::output(&mut command).is_ok_and(|o| o.status.success())
    });
    if !through_git && let Err(e) = std::fs::remove_dir_all(path) {
        tracing::warn!("the worktree {shown} cannot be removed: {e}");
    }
    let _ = std::fs::remove_file(path.with_extension("patch"));
}
