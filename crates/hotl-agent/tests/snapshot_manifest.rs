//! Working-tree snapshots outside git (content-hash manifests) and inside git work trees (git
//! trees through a private index): what a snapshot lists, when it gives up, and the patch
//! between two.

// The snapshotter is crate-internal (only the session uses it), so its source is compiled into
// this test binary (what only the crate's root uses goes unused here).
#[path = "../src/snapshot/mod.rs"]
#[allow(dead_code, unused_imports)]
mod snapshot;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use hotl_log::Blobs;
use hotl_testkit::TestResult;
use snapshot::{Limits, Snapshotter};

/// A project directory, a blob store and a snapshotter, all in a temporary directory.
struct Fixture {
    dir: tempfile::TempDir,
    project: PathBuf,
    blobs: Blobs,
    snap: Snapshotter,
}

impl Fixture {
    fn new() -> TestResult<Fixture> {
        Fixture::with_limits(Limits::default())
    }

    fn with_limits(limits: Limits) -> TestResult<Fixture> {
        let dir = tempfile::tempdir()?;
        let project = dir.path().join("project");
        fs::create_dir_all(&project)?;
        let home = dir.path().join("home");
        let snap = Snapshotter::with_limits(home.join("index/trees/s.index"), limits);
        Ok(Fixture {
            blobs: Blobs::new(home.join("blobs")),
            project,
            snap,
            dir,
        })
    }

    fn take(&mut self) -> Option<String> {
        self.snap.take(&self.project, &self.blobs)
    }

    fn diff(&self, from: &str, to: &str) -> TestResult<String> {
        let patch = Snapshotter::diff(&self.project, from, to, &self.blobs).ok_or("no patch")?;
        Ok(String::from_utf8(patch)?)
    }

    /// The paths a manifest snapshot lists, read from its stored JSON.
    fn listed(&self, id: &str) -> TestResult<Vec<String>> {
        let hash = id.strip_prefix("manifest:").ok_or("not a manifest id")?;
        let manifest: serde_json::Value = serde_json::from_slice(&self.blobs.get(hash)?)?;
        let files = manifest["files"].as_array().ok_or("no files")?;
        Ok(files
            .iter()
            .filter_map(|f| f["path"].as_str().map(str::to_owned))
            .collect())
    }
}

fn write(root: &Path, path: &str, text: &str) -> TestResult {
    let path = root.join(path);
    fs::create_dir_all(path.parent().ok_or("no parent")?)?;
    fs::write(path, text)?;
    Ok(())
}

#[cfg(unix)]
fn set_exec(path: &Path) -> TestResult {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(0o755))?;
    Ok(())
}

/// The tree every patch test starts from.
fn starting_tree(root: &Path) -> TestResult {
    write(root, "keep.txt", "one\ntwo\nthree\n")?;
    write(root, "gone.txt", "bye\n")?;
    write(root, "script.sh", "echo hi\n")?;
    write(root, "src/lib.rs", "pub fn f() {}\n")?;
    #[cfg(unix)]
    std::os::unix::fs::symlink("keep.txt", root.join("current"))?;
    Ok(())
}

/// Every file under `root` with its content (a link's: `-> target`) and executable bit.
fn contents(root: &Path) -> TestResult<Vec<(String, String, bool)>> {
    let mut out = Vec::new();
    for entry in ignore::WalkBuilder::new(root).hidden(false).build() {
        let entry = entry?;
        let meta = fs::symlink_metadata(entry.path())?;
        let rel = entry.path().strip_prefix(root)?.display().to_string();
        let text = if meta.is_symlink() {
            format!("-> {}", fs::read_link(entry.path())?.display())
        } else if meta.is_file() {
            fs::read_to_string(entry.path())?
        } else {
            continue;
        };
        #[cfg(unix)]
        let exec = std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o100 != 0;
        #[cfg(not(unix))]
        let exec = false;
        out.push((rel, text, exec && !meta.is_symlink()));
    }
    out.sort();
    Ok(out)
}

#[cfg(unix)]
#[test]
fn outside_git_the_patch_shows_every_change_and_applies() -> TestResult {
    let mut f = Fixture::new()?;
    starting_tree(&f.project)?;
    let before = f.take().ok_or("a snapshot")?;
    assert!(before.starts_with("manifest:"), "{before}");

    write(&f.project, "keep.txt", "one\nTWO\nthree\n")?;
    fs::remove_file(f.project.join("gone.txt"))?;
    write(&f.project, "new.txt", "fresh\n")?;
    set_exec(&f.project.join("script.sh"))?;
    fs::remove_file(f.project.join("current"))?;
    std::os::unix::fs::symlink("new.txt", f.project.join("current"))?;
    let after = f.take().ok_or("a snapshot")?;
    assert_ne!(before, after);

    let patch = f.diff(&before, &after)?;
    for expected in [
        "diff --git a/keep.txt b/keep.txt\n--- a/keep.txt\n+++ b/keep.txt\n@@ -1,3 +1,3 @@\n \
         one\n-two\n+TWO\n three\n",
        "diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\n--- a/gone.txt\n\
         +++ /dev/null\n@@ -1 +0,0 @@\n-bye\n",
        "diff --git a/new.txt b/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/new.txt\n\
         @@ -0,0 +1 @@\n+fresh\n",
        "diff --git a/script.sh b/script.sh\nold mode 100644\nnew mode 100755\n",
        "diff --git a/current b/current\ndeleted file mode 120000\n--- a/current\n\
         +++ /dev/null\n@@ -1 +0,0 @@\n-keep.txt\n\\ No newline at end of file\n\
         diff --git a/current b/current\nnew file mode 120000\n--- /dev/null\n+++ b/current\n\
         @@ -0,0 +1 @@\n+new.txt\n\\ No newline at end of file\n",
    ] {
        assert!(patch.contains(expected), "{expected}\nnot in:\n{patch}");
    }
    assert!(
        !patch.contains("src/lib.rs"),
        "unchanged files are left out"
    );
    assert!(f.diff(&before, &before)?.is_empty());
    // The changed paths, whichever tool changed them.
    assert_eq!(
        Snapshotter::changed(&f.project, &before, &after, &f.blobs).ok_or("changed paths")?,
        ["current", "gone.txt", "keep.txt", "new.txt", "script.sh"]
    );

    // `patch -p1` turns a copy of the old tree into the new one.
    if Command::new("patch").arg("--version").output().is_err() {
        println!("patch is not installed: not applying the patch");
        return Ok(());
    }
    let copy = f.dir.path().join("copy");
    fs::create_dir_all(&copy)?;
    starting_tree(&copy)?;
    let patch_file = f.dir.path().join("change.patch");
    fs::write(&patch_file, &patch)?;
    let out = Command::new("patch")
        .args(["-p1", "--batch", "--silent", "-i"])
        .arg(&patch_file)
        .current_dir(&copy)
        .output()?;
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(contents(&copy)?, contents(&f.project)?);
    Ok(())
}

#[test]
fn gitignored_files_are_not_in_the_manifest() -> TestResult {
    let mut f = Fixture::new()?;
    write(&f.project, ".gitignore", "secret.txt\nbuild/\n")?;
    write(&f.project, "secret.txt", "token\n")?;
    write(&f.project, "build/out.o", "obj")?;
    write(&f.project, "src/main.rs", "fn main() {}\n")?;
    let id = f.take().ok_or("a snapshot")?;
    assert_eq!(f.listed(&id)?, [".gitignore", "src/main.rs"]);
    Ok(())
}

#[test]
fn an_unchanged_tree_gives_the_same_id() -> TestResult {
    let mut f = Fixture::new()?;
    starting_tree(&f.project)?;
    let first = f.take().ok_or("a snapshot")?;
    assert_eq!(f.take().as_deref(), Some(&*first), "the same snapshotter");
    f.snap.settle_cache();
    assert_eq!(f.take().as_deref(), Some(&*first), "from its cache");
    let mut fresh = Snapshotter::new(f.dir.path().join("other.index"));
    assert_eq!(
        fresh.take(&f.project, &f.blobs).as_deref(),
        Some(&*first),
        "a fresh snapshotter"
    );
    Ok(())
}

#[test]
fn too_many_files_gives_none() -> TestResult {
    // The default limit is 20,000; creating that many files takes seconds on some machines.
    assert_eq!(Limits::default().max_files, 20_000);
    let limits = Limits {
        max_files: 100,
        ..Limits::default()
    };
    let mut f = Fixture::with_limits(limits)?;
    for i in 0..=limits.max_files {
        write(&f.project, &format!("d{}/f{i}", i % 7), "x")?;
    }
    assert!(f.take().is_none());
    assert!(!f.blobs.root().exists(), "nothing was read or stored");
    // Remembered: the next takes answer at once, even though the tree now fits.
    fs::remove_dir_all(f.project.join("d0"))?;
    for _ in 1..limits.retry_every {
        assert!(f.take().is_none());
    }
    assert!(
        f.take().is_some(),
        "walked again after {} takes",
        limits.retry_every
    );
    Ok(())
}

#[test]
fn a_large_file_is_listed_and_its_change_is_one_line() -> TestResult {
    let mut f = Fixture::new()?;
    let big = Limits::default().max_file_bytes as usize + 1;
    fs::write(f.project.join("big.bin"), vec![b'a'; big])?;
    let before = f.take().ok_or("a snapshot")?;
    assert_eq!(f.listed(&before)?, ["big.bin"]);
    fs::write(f.project.join("big.bin"), vec![b'b'; big])?;
    let after = f.take().ok_or("a snapshot")?;
    assert_eq!(
        f.diff(&before, &after)?,
        "diff --git a/big.bin b/big.bin\nBinary files a/big.bin and b/big.bin differ\n"
    );
    Ok(())
}

#[test]
fn inside_a_repository_with_no_commits_snapshots_are_git_trees() -> TestResult {
    let mut f = Fixture::new()?;
    let git = |args: &[&str]| {
        Command::new("git")
            .arg("-C")
            .arg(&f.project)
            .args(args)
            .output()
    };
    if !hotl_testkit::require(
        "git",
        git(&["init", "-q"]).is_ok_and(|o| o.status.success()),
    )? {
        return Ok(());
    }
    write(&f.project, "a.txt", "one\n")?;
    let before = f.take().ok_or("a snapshot")?;
    assert!(
        before.len() == 40 && before.bytes().all(|b| b.is_ascii_hexdigit()),
        "{before}"
    );
    write(&f.project, "a.txt", "two\n")?;
    let after = f.take().ok_or("a snapshot")?;
    let patch = f.diff(&before, &after)?;
    assert!(patch.contains("-one\n+two\n"), "{patch}");
    assert_eq!(
        Snapshotter::changed(&f.project, &before, &after, &f.blobs).ok_or("changed paths")?,
        ["a.txt"]
    );
    // The user's own index is untouched.
    assert!(!f.project.join(".git/index").exists());
    // A manifest and a git tree have no diff between them.
    let outside = f.dir.path().join("outside");
    fs::create_dir_all(&outside)?;
    let manifest = f.snap.take(&outside, &f.blobs).ok_or("a snapshot")?;
    assert!(Snapshotter::diff(&f.project, &manifest, &after, &f.blobs).is_none());
    Ok(())
}

/// The content a snapshot held, by path: from a manifest, and from a git tree (also for a
/// working directory below the repository's root), `None` for a path it does not hold.
#[test]
fn content_hashes_are_what_the_snapshot_held() -> TestResult {
    let hash = |text: &str| Some(blake3::hash(text.as_bytes()).to_hex().to_string());
    let paths = ["a.txt".to_owned(), "gone.txt".to_owned()];
    let mut f = Fixture::new()?;
    write(&f.project, "a.txt", "one\n")?;
    let manifest = f.take().ok_or("a snapshot")?;
    write(&f.project, "a.txt", "two\n")?;
    assert_eq!(
        Snapshotter::content_hashes(&f.project, &manifest, &paths, &f.blobs),
        Some(vec![hash("one\n"), None])
    );
    let repo = f.dir.path().join("repo");
    let sub = repo.join("sub");
    fs::create_dir_all(&sub)?;
    let init = Command::new("git")
        .arg("-C")
        .arg(&repo)
        .args(["init", "-q"])
        .status();
    if !hotl_testkit::require("git", init.is_ok_and(|s| s.success()))? {
        return Ok(());
    }
    write(&sub, "a.txt", "three\n")?;
    let tree = f.snap.take(&sub, &f.blobs).ok_or("a snapshot")?;
    write(&sub, "a.txt", "four\n")?;
    assert_eq!(
        Snapshotter::content_hashes(&sub, &tree, &paths, &f.blobs),
        Some(vec![hash("three\n"), None])
    );
    Ok(())
}

/// `take` on 5,000 small files: the first call, a second on the unchanged tree, and a third
/// after touching 10 files. Run with `--ignored --nocapture` to see the numbers.
#[test]
#[ignore = "a measurement, not a check"]
fn take_timings_on_5000_files() -> TestResult {
    let mut f = Fixture::new()?;
    for dir in 0..50 {
        for i in 0..100 {
            let text = format!("// file {dir}/{i}\nfn f{i}() -> u32 {{ {i} }}\n");
            write(&f.project, &format!("src/m{dir}/f{i}.rs"), &text)?;
        }
    }
    // Older than the cache's racy-write margin, as a tree is when a session starts.
    std::thread::sleep(std::time::Duration::from_millis(100));
    let time = |f: &mut Fixture| -> TestResult<(String, f64)> {
        let started = Instant::now();
        let id = f.take().ok_or("a snapshot")?;
        Ok((id, started.elapsed().as_secs_f64() * 1000.0))
    };
    let (first, cold) = time(&mut f)?;
    let (second, warm) = time(&mut f)?;
    assert_eq!(first, second);
    for i in 0..10 {
        write(&f.project, &format!("src/m{i}/f0.rs"), "// touched\n")?;
    }
    let (third, touched) = time(&mut f)?;
    assert_ne!(first, third);
    // A new snapshotter (an empty cache) over blobs already stored: every file read and hashed,
    // none written.
    f.snap = Snapshotter::new(f.dir.path().join("other.index"));
    let (_, stored) = time(&mut f)?;
    println!(
        "take on 5,000 files: first {cold:.1} ms, unchanged {warm:.1} ms, 10 touched \
         {touched:.1} ms, empty cache over stored blobs {stored:.1} ms"
    );
    Ok(())
}

/// Runs git in `dir`; `false` when git is not there or fails.
fn git_in(dir: &Path, args: &[&str]) -> bool {
    Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Inside git: a nested repository git cannot add does not stop snapshots, hotl's own home
/// inside the repository is left out, and so is a large untracked file; a file tracked though
/// ignored is in the tree; a deleted path with a space reads as gone; and patches and paths are
/// relative to a working directory below the root.
#[test]
fn git_snapshots_take_what_git_can_and_leave_out_what_they_should() -> TestResult {
    let dir = tempfile::tempdir()?;
    let repo = dir.path().join("repo");
    fs::create_dir_all(&repo)?;
    if !hotl_testkit::require("git", git_in(&repo, &["init", "-q"]))? {
        return Ok(());
    }
    write(&repo, ".gitignore", "*.cfg\nscratch/\n")?;
    write(&repo, "app.cfg", "port = 1\n")?;
    write(&repo, "top.txt", "top\n")?;
    write(&repo, "sub/s.txt", "s\n")?;
    write(&repo, "sub/gone both.txt", "bye\n")?;
    assert!(git_in(&repo, &["add", "-f", "app.cfg"]));
    assert!(git_in(&repo, &["add", "."]));
    assert!(git_in(&repo, &["commit", "-q", "-m", "start"]));
    // A nested repository with no commit: `git add` cannot add it.
    fs::create_dir_all(repo.join("nested"))?;
    assert!(git_in(&repo.join("nested"), &["init", "-q"]));
    write(&repo, "nested/n.txt", "n\n")?;
    let home = repo.join(".hotl");
    let blobs = Blobs::new(home.join("blobs"));
    let mut snap = Snapshotter::new(home.join("index/trees/s.index"));
    let cwd = repo.join("sub");
    let before = snap
        .take(&cwd, &blobs)
        .ok_or("a snapshot despite the nested repository")?;
    write(&repo, "app.cfg", "port = 2\n")?;
    write(&repo, "top.txt", "changed\n")?;
    write(&repo, "sub/s.txt", "s2\n")?;
    fs::remove_file(repo.join("sub/gone both.txt"))?;
    fs::write(repo.join("sub/data.bin"), vec![7u8; 2 << 20])?;
    write(&home, "sessions/log.jsonl", "{}\n")?;
    let after = snap.take(&cwd, &blobs).ok_or("a snapshot")?;
    // Relative to the working directory: what lies above it is not listed.
    let mut changed = Snapshotter::changed(&cwd, &before, &after, &blobs).ok_or("changed")?;
    changed.sort();
    assert_eq!(changed, ["gone both.txt", "s.txt"]);
    let patch =
        String::from_utf8(Snapshotter::diff(&cwd, &before, &after, &blobs).ok_or("patch")?)?;
    assert!(
        patch.contains("a/s.txt") && !patch.contains("top.txt"),
        "{patch}"
    );
    assert!(
        !patch.contains("data.bin") && !patch.contains(".hotl"),
        "{patch}"
    );
    let paths = ["gone both.txt".to_owned(), "s.txt".to_owned()];
    let hash = |text: &str| Some(blake3::hash(text.as_bytes()).to_hex().to_string());
    assert_eq!(
        Snapshotter::content_hashes(&cwd, &after, &paths, &blobs),
        Some(vec![None, hash("s2\n")])
    );
    // From the root, the tracked-but-ignored file is in the trees.
    let root_changed = Snapshotter::changed(&repo, &before, &after, &blobs).ok_or("changed")?;
    assert!(
        root_changed.contains(&"app.cfg".to_owned()),
        "{root_changed:?}"
    );
    // The user's index is untouched.
    assert!(git_in(&repo, &["diff", "--cached", "--quiet"]));
    // A working directory git ignores gets manifests instead.
    write(&repo, "scratch/x.txt", "x\n")?;
    let scratch = snap
        .take(&repo.join("scratch"), &blobs)
        .ok_or("a snapshot")?;
    assert!(scratch.starts_with("manifest:"), "{scratch}");
    Ok(())
}

/// A rewrite that puts the modification time back (`cp -p`, `rsync -a`, `touch -r`) is seen:
/// the change time is compared too.
#[test]
fn a_rewrite_with_its_old_modification_time_is_seen() -> TestResult {
    let mut f = Fixture::new()?;
    let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_600_000_000);
    write(&f.project, "ver.txt", "v1.2.3\n")?;
    fs::File::options()
        .write(true)
        .open(f.project.join("ver.txt"))?
        .set_modified(old)?;
    let before = f.take().ok_or("a snapshot")?;
    f.snap.settle_cache();
    // The ctime must move on: wait past the file system's timestamp granularity.
    std::thread::sleep(std::time::Duration::from_millis(20));
    write(&f.project, "ver.txt", "v1.2.4\n")?;
    fs::File::options()
        .write(true)
        .open(f.project.join("ver.txt"))?
        .set_modified(old)?;
    let after = f.take().ok_or("a snapshot")?;
    assert_eq!(
        Snapshotter::changed(&f.project, &before, &after, &f.blobs).ok_or("changed")?,
        ["ver.txt"]
    );
    Ok(())
}

/// An untracked file that grows past the limit is left out of later git snapshots, not frozen
/// at the content it had when small; a name with glob characters leaves out only itself.
#[test]
fn a_file_growing_past_the_limit_leaves_git_snapshots() -> TestResult {
    let mut f = Fixture::new()?;
    if !hotl_testkit::require("git", git_in(&f.project, &["init", "-q"]))? {
        return Ok(());
    }
    write(&f.project, "data.bin", "small")?;
    write(&f.project, "data1.bin", "one")?;
    let before = f.take().ok_or("a snapshot")?;
    fs::write(f.project.join("data.bin"), vec![b'x'; 2 << 20])?;
    fs::write(f.project.join("data[1].bin"), vec![b'y'; 2 << 20])?;
    write(&f.project, "data1.bin", "two")?;
    let after = f.take().ok_or("a snapshot")?;
    let paths = [
        "data.bin".to_owned(),
        "data1.bin".to_owned(),
        "data[1].bin".to_owned(),
    ];
    let hash = |text: &str| Some(blake3::hash(text.as_bytes()).to_hex().to_string());
    assert_eq!(
        Snapshotter::content_hashes(&f.project, &after, &paths, &f.blobs),
        Some(vec![None, hash("two"), None])
    );
    let mut changed =
        Snapshotter::changed(&f.project, &before, &after, &f.blobs).ok_or("changed")?;
    changed.sort();
    assert_eq!(changed, ["data.bin", "data1.bin"]);
    Ok(())
}
