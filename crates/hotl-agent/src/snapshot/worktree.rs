//! Worktrees for isolated children (`isolation: worktree`): a git worktree under
//! `<home>/worktrees/`, checked out at the working tree as a snapshot has it now (uncommitted
//! and untracked work included), where a child writes without touching the user's files. What
//! it did comes back as a patch, stored as a blob and beside the worktree, and is applied only
//! when the parent or the user asks.

use std::path::{Path, PathBuf};

use hotl_log::Blobs;

use super::{children, git};

/// A worktree a child works in: planned first (the child's log names it before it exists, so
/// no `gc` can take it for an orphan), then made where the child starts.
#[derive(Clone, Debug)]
pub(crate) struct Worktree {
    /// Its top directory.
    pub(crate) dir: PathBuf,
    /// The child's working directory: where the parent's is, inside the worktree.
    pub(crate) cwd: PathBuf,
    /// The commit it was checked out at (the parent's working tree then); empty until made.
    base: String,
    /// The top of the repository it belongs to.
    repo: PathBuf,
    /// The snapshot tree it is to be checked out at, until it is made.
    tree: Option<String>,
}
/// What a child's worktree came to, for its report.
pub(crate) struct Settled {
    /// What the report says of it.
    pub(crate) note: String,
    /// The patch's blob, when it changed something.
    pub(crate) patch_blob: Option<String>,
}

/// A worktree checked out at the code session `id` had at `seq` (the last snapshot then, or
/// the first after it; the tree as it is now when there is none), for a fork that works
/// beside the current tree: its top directory and the working directory in it that stands for
/// `cwd`.
pub(crate) fn worktree_at(
    store: &hotl_log::Store,
    id: &str,
    cwd: &Path,
    seq: u64,
) -> Result<(PathBuf, PathBuf), String> {
    let top = Worktree::repository(cwd)?;
    let lineage = store.lineage(id).map_err(|e| e.to_string())?;
    let tree = match super::rewind::tree_at(&lineage.records, seq) {
        Some(tree) => tree.to_owned(),
        None => super::Snapshotter::new(store.derived_dir("trees").join(format!("{id}.index")))
            .take(cwd, &store.blobs())
            .ok_or("the working tree cannot be snapshotted")?,
    };
    if tree.starts_with(super::manifest::ID_PREFIX) {
        return Err("the session's snapshots are not git trees (it works outside git)".to_owned());
    }
    let name = format!("fork-{}", hotl_log::new_session_id().to_ascii_lowercase());
    let dir = store.home().join("worktrees").join(name);
    let mut worktree = Worktree::plan(cwd, &top, &tree, &dir);
    worktree.make()?;
    // The project's top is the worktree's: no trailing separator on its path.
    let cwd = worktree.cwd.components().collect();
    Ok((worktree.dir, cwd))
}

/// Runs git in `dir`; its stdout, or why it failed.
fn run_git(dir: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    let mut command = super::children::git(dir);
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

    /// The worktree at `dir` for the snapshot `tree` (a git tree of the repository whose top
    /// is `top`, taken of `cwd`), not made yet: [`Worktree::make`] checks it out.
    pub(crate) fn plan(cwd: &Path, top: &Path, tree: &str, dir: &Path) -> Worktree {
        let inside = cwd.strip_prefix(top).unwrap_or(Path::new(""));
        Worktree {
            dir: dir.to_owned(),
            cwd: dir.join(inside),
            base: String::new(),
            repo: top.to_owned(),
            tree: Some(tree.to_owned()),
        }
    }

    /// Whether it is still to be made.
    pub(crate) fn is_planned(&self) -> bool {
        self.tree.is_some()
    }

    /// Checks the planned worktree out, on no branch: the user's branches, index and files
    /// are untouched. Its directory and `worktrees/` are private to the user (0700) whatever
    /// the umask: the patch it leads to is what the user is told to apply.
    pub(crate) fn make(&mut self) -> Result<(), String> {
        let Some(tree) = self.tree.clone() else {
            return Ok(());
        };
        let top = &self.repo;
        let head = run_git(top, &["rev-parse", "--verify", "-q", "HEAD"])
            .ok()
            .map(|out| String::from_utf8_lossy(&out).trim().to_owned());
        let mut args = vec!["commit-tree", tree.as_str()];
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
        private_dir(&self.dir)?;
        let target = self.dir.to_string_lossy();
        run_git(
            top,
            &["worktree", "add", "--detach", "--quiet", &target, &base],
        )?;
        self.base = base;
        self.tree = None;
        Ok(())
    }

    /// The worktree a child whose working directory is `cwd` worked in, when it works under
    /// `<home>/worktrees/` and that worktree is still there: for settling a child a dead
    /// process left.
    pub(crate) fn of_child(home: &Path, cwd: &Path) -> Option<Worktree> {
        let root = home.join("worktrees");
        let name = cwd.strip_prefix(&root).ok()?.components().next()?;
        let dir = root.join(name);
        if !is_ours(&dir) {
            return None;
        }
        let common = run_git(
            &dir,
            &["rev-parse", "--path-format=absolute", "--git-common-dir"],
        )
        .ok()?;
        let common = PathBuf::from(String::from_utf8_lossy(&common).trim());
        let repo = common.parent()?.to_owned();
        // The commit it was made at is the oldest entry of its HEAD's reflog (a child may
        // have committed since); HEAD when git kept no reflog.
        let base = run_git(&dir, &["reflog", "--format=%H", "HEAD"])
            .ok()
            .and_then(|out| {
                String::from_utf8_lossy(&out)
                    .lines()
                    .last()
                    .map(str::to_owned)
            })
            .or_else(|| {
                run_git(&dir, &["rev-parse", "HEAD"])
                    .ok()
                    .map(|out| String::from_utf8_lossy(&out).trim().to_owned())
            })?;
        Some(Worktree {
            dir,
            cwd: cwd.to_owned(),
            base,
            repo,
            tree: None,
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
        if self.is_planned() {
            return Settled {
                note: format!("[its worktree ({shown}) was never made]"),
                patch_blob: None,
            };
        }
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
        // Private whatever the umask: it is what the user is told to apply.
        let written = hotl_log::Atomic::PRIVATE.write(&file, &patch);
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

/// Makes `dir` (and `worktrees/` above it) private to the user (0700), whatever the umask;
/// an existing `worktrees/` made looser before is tightened.
fn private_dir(dir: &Path) -> Result<(), String> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true).mode(0o700);
    builder
        .create(dir)
        .map_err(|e| format!("{} cannot be made: {e}", dir.display()))?;
    for made in [Some(dir), dir.parent()].into_iter().flatten() {
        std::fs::set_permissions(made, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| format!("{} cannot be made private: {e}", made.display()))?;
    }
    Ok(())
}

/// Whether `dir` is a real directory (not a symlink) that is a worktree checked out exactly
/// there: its `.git` file names a git dir whose `gitdir` names this `.git` back. A link or a
/// copy of another repository's worktree is not.
fn is_ours(dir: &Path) -> bool {
    let real_dir = std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir());
    let Some(admin) = admin_dir(dir).filter(|_| real_dir) else {
        return false;
    };
    let Ok(back) = std::fs::read_to_string(admin.join("gitdir")) else {
        return false;
    };
    let back = Path::new(back.trim());
    match (back.canonicalize(), dir.join(".git").canonicalize()) {
        (Ok(back), Ok(here)) => back == here,
        _ => false,
    }
}

/// The git dir a worktree's `.git` file (a real file, not a link) names.
fn admin_dir(dir: &Path) -> Option<PathBuf> {
    let dot_git = dir.join(".git");
    if !std::fs::symlink_metadata(&dot_git).is_ok_and(|m| m.is_file()) {
        return None;
    }
    let text = std::fs::read_to_string(&dot_git).ok()?;
    Some(dir.join(text.strip_prefix("gitdir:")?.trim()))
}

/// Whether `dir` is what a checkout that failed, or a repository that is gone, left: a real
/// directory with no `.git`, or whose `.git` file names a git dir that no longer exists.
fn is_leftover(dir: &Path) -> bool {
    if !std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir()) {
        return false;
    }
    match std::fs::symlink_metadata(dir.join(".git")) {
        Err(_) => true,
        Ok(m) if m.is_file() => admin_dir(dir).is_some_and(|admin| !admin.exists()),
        Ok(_) => false,
    }
}

/// The worktrees under `<home>/worktrees/` whose child is gone (no session left works in
/// them: its tree was collected), removed with their patch files unless `dry_run`; what was
/// (or would be) removed. A worktree some session still works in is kept, changes and all.
/// Only real directories are touched: a symlink, or a worktree whose git dir says it lives
/// elsewhere, is left alone.
pub fn sweep_worktrees(store: &hotl_log::Store, dry_run: bool) -> Vec<PathBuf> {
    let dir = store.home().join("worktrees");
    // Listed before the sessions: a child's log names its worktree before the worktree is
    // made, so every worktree seen here has its child among the sessions read next.
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
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
    for path in entries {
        let real_dir = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir());
        if !real_dir || used.iter().any(|cwd| cwd.starts_with(&path)) {
            continue;
        }
        // A directory that is no worktree at all is what a failed checkout left; one that is
        // a worktree must be hotl's own, checked out right here.
        let leftover = is_leftover(&path);
        if !leftover && !is_ours(&path) {
            continue;
        }
        if !dry_run {
            remove_orphan(&path, leftover);
        }
        removed.push(path);
    }
    removed
}

/// Removes a worktree nobody works in: through git (so the repository forgets it), or, for a
/// `leftover` that never became one, the directory; its patch file too.
fn remove_orphan(path: &Path, leftover: bool) {
    let shown = path.to_string_lossy();
    let common = run_git(
        path,
        &["rev-parse", "--path-format=absolute", "--git-common-dir"],
    )
    .map(|out| PathBuf::from(String::from_utf8_lossy(&out).trim()));
    let through_git = !leftover
        && common.is_ok_and(|common| {
            let mut command = super::children::git(&common);
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
