//! Snapshots outside git: a manifest of the working tree (every file's path, mode, size and
//! content hash), with each file's content and the manifest itself stored as blobs. Blobs are
//! content-addressed, so an unchanged file costs nothing to store again, and a cache of file
//! stats means an unchanged file is not even read again.
//!
//! # Format
//!
//! A manifest is JSON, one file per line, sorted by path (bytewise), so the same tree always
//! gives the same bytes and so the same snapshot id:
//!
//! ```text
//! {"format":"hotl-manifest/1","files":[
//! {"path":"bin/run","mode":"100755","size":20,"blob":"<blake3 hex>"},
//! {"path":"data/big.iso","mode":"100644","size":734003200,"hash":"<blake3 hex>"},
//! {"path":"latest","mode":"120000","size":8,"target":"bin/run"}
//! ]}
//! ```
//!
//! `path` is relative to the snapshot's root with `/` separators; `mode` is git's (`100644`,
//! `100755` when the owner may execute it, `120000` for a symbolic link). The content is one of
//! `blob` (stored: the blob's hash is the content's blake3 hash), `hash` (a file over the size
//! limit: its blake3 hash, content not stored) or `target` (a link's target; links are never
//! followed). Fields named `blob` are what hotl-log's `blob_refs` looks for, so a collector that
//! reads a manifest finds the contents it keeps alive.
//!
//! The walk honours `.gitignore` (even with no git repository), `.ignore` and git's global
//! excludes, includes hidden files, and skips the directories of other version control systems
//! (`.git`, `.hg`, `.jj`, `.svn`, `.bzr`). Paths that are not UTF-8 are left out, as are sockets,
//! fifos and devices, and files that cannot be read.
//!
//! # Limits
//!
//! A session started in a home directory must not grind through it after every step. A file over
//! [`Limits::max_file_bytes`] (1 MiB) is hashed but not stored. The snapshot gives up (no id) when
//! the tree holds more than [`Limits::max_files`] (20,000) files and links, more than
//! [`Limits::max_stored_bytes`] (100 MiB) to store, or more than [`Limits::max_large_bytes`]
//! (1 GiB) of large files to hash. These are counted from the directory walk, before anything is
//! read. After giving up, the next takes answer `None` at once, and the walk is tried again every
//! [`Limits::retry_every`] (50) takes, in case the tree shrank.
//!
//! # The stat cache
//!
//! A file whose path, size, modification time and inode are unchanged since the last take keeps
//! the hash read then. Like git's "racily clean" check, that is trusted only when the file was
//! last modified well before it was read (50 ms; 2 s when the file system keeps whole seconds),
//! since a write within the clock's granularity need not change the modification time.

use std::collections::{HashMap, HashSet};
use std::fs::{self, Metadata};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use hotl_log::Blobs;
use ignore::WalkBuilder;
use serde::{Deserialize, Serialize};

/// What a manifest snapshot id starts with; the manifest's blob hash follows.
pub(super) const ID_PREFIX: &str = "manifest:";
/// The format tag of the manifests this module writes and reads.
const FORMAT: &str = "hotl-manifest/1";
/// Files read and stored at once. Storing a blob waits on the disk (it is synced), so a few at
/// a time overlap those waits; a take with fewer than 32 files to read reads them in turn.
const READERS: usize = 4;
/// Directories of version control systems, never walked.
const VCS_DIRS: [&str; 5] = [".git", ".hg", ".jj", ".svn", ".bzr"];

/// How much of a tree a manifest snapshot takes on (see the module docs).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    /// The most files and links a snapshot lists. Default 20,000.
    pub(crate) max_files: usize,
    /// Files larger than this are hashed, not stored. Default 1 MiB.
    pub(crate) max_file_bytes: u64,
    /// The most bytes of stored files (each at most `max_file_bytes`). Default 100 MiB.
    pub(crate) max_stored_bytes: u64,
    /// The most bytes of larger files, which are read to be hashed. Default 1 GiB.
    pub(crate) max_large_bytes: u64,
    /// After giving up, walk again only every this many takes. Default 50.
    pub(crate) retry_every: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_files: 20_000,
            max_file_bytes: 1 << 20,
            max_stored_bytes: 100 << 20,
            max_large_bytes: 1 << 30,
            retry_every: 50,
        }
    }
}

/// A file's mode, as git writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(super) enum Mode {
    /// A regular file.
    #[serde(rename = "100644")]
    File,
    /// A regular file its owner may execute.
    #[serde(rename = "100755")]
    Exec,
    /// A symbolic link.
    #[serde(rename = "120000")]
    Link,
}

impl Mode {
    /// The mode as git writes it.
    pub(super) fn as_str(self) -> &'static str {
        match self {
            Mode::File => "100644",
            Mode::Exec => "100755",
            Mode::Link => "120000",
        }
    }
}

/// What a manifest knows of a file's content.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum Content {
    /// Stored: the blob with this hash (the content's blake3 hash).
    Blob(String),
    /// Over the size limit: the content's blake3 hash; the content is not stored.
    Hash(String),
    /// A symbolic link's target.
    Target(String),
}

/// One file or link of a manifest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Entry {
    /// Relative to the snapshot's root, `/`-separated.
    pub(super) path: String,
    /// The file's mode.
    pub(super) mode: Mode,
    /// Bytes of content, as the walk's stat saw them (of the target, for a link).
    pub(super) size: u64,
    /// The content, as one of `blob`, `hash` or `target`.
    #[serde(flatten)]
    pub(super) content: Content,
}

/// A manifest as stored.
#[derive(Deserialize)]
struct Stored {
    format: String,
    files: Vec<Entry>,
}

/// The manifest's bytes: the format described in the module docs. `entries` must be sorted.
pub(super) fn encode(entries: &[Entry]) -> Vec<u8> {
    let mut out = format!("{{\"format\":\"{FORMAT}\",\"files\":[\n").into_bytes();
    for (i, entry) in entries.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(b",\n");
        }
        serde_json::to_writer(&mut out, entry).expect("an entry has only strings and numbers");
    }
    out.extend_from_slice(b"\n]}\n");
    out
}

/// The entries of the manifest stored as blob `hash`, sorted by path, or `None` when the blob
/// is missing or is not a manifest this module wrote.
pub(super) fn load(blobs: &Blobs, hash: &str) -> Option<Vec<Entry>> {
    let bytes = blobs.get(hash).ok()?;
    let stored: Stored = serde_json::from_slice(&bytes).ok()?;
    if stored.format != FORMAT {
        return None;
    }
    let mut files = stored.files;
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Some(files)
}

/// What the cache remembers of a file: the stat it was read with, and its content.
struct Cached {
    size: u64,
    mtime: SystemTime,
    ctime: SystemTime,
    inode: u64,
    content: Content,
    /// Modified well before it was read, so the stat alone can vouch for it.
    clean: bool,
}

/// A file or link the walk found, before its content is known.
struct Found {
    path: String,
    abs: PathBuf,
    kind: FoundKind,
}

/// What the walk found: a regular file (with its stat) or a symbolic link.
enum FoundKind {
    File(Metadata),
    Link,
}

/// Why a take has no manifest.
enum Stop {
    /// Over a limit.
    TooBig,
    /// The root cannot be read, or a blob cannot be written.
    Failed,
}

/// Manifest snapshots of one working tree, with the stat cache and the memory of giving up.
pub(super) struct Manifests {
    limits: Limits,
    cache: HashMap<String, Cached>,
    /// Takes still to answer `None` at once after giving up.
    skip: u32,
}

impl Manifests {
    /// Snapshots within `limits`.
    pub(super) fn new(limits: Limits) -> Manifests {
        Manifests {
            limits,
            cache: HashMap::new(),
            skip: 0,
        }
    }

    /// The blob hash of the manifest of the tree at `cwd` now, never walking into `excluded`
    /// directories; `None` when the tree is over a limit (see the module docs) or a blob cannot
    /// be written.
    pub(super) fn take(
        &mut self,
        cwd: &Path,
        blobs: &Blobs,
        excluded: &[PathBuf],
    ) -> Option<String> {
        if self.skip > 0 {
            self.skip -= 1;
            return None;
        }
        match self.snapshot(cwd, blobs, excluded) {
            Ok(hash) => Some(hash),
            Err(Stop::TooBig) => {
                self.skip = self.limits.retry_every.saturating_sub(1);
                self.cache.clear();
                None
            }
            Err(Stop::Failed) => None,
        }
    }

    fn snapshot(
        &mut self,
        cwd: &Path,
        blobs: &Blobs,
        excluded: &[PathBuf],
    ) -> Result<String, Stop> {
        let start = SystemTime::now();
        let found = self.walk(cwd, excluded)?;
        // What the cache vouches for; the other files are read below, several at a time.
        let mut contents: Vec<Option<Content>> = found
            .iter()
            .map(|f| match &f.kind {
                // A cached blob must still be there: gc may have taken one no recorded
                // snapshot referenced.
                FoundKind::File(meta) => self
                    .cache
                    .get(&f.path)
                    .filter(|c| c.clean && Stat::of(meta).matches(c))
                    .filter(|c| match &c.content {
                        Content::Blob(hash) => blobs.path(hash).is_file(),
                        _ => true,
                    })
                    .map(|c| c.content.clone()),
                FoundKind::Link => None,
            })
            .collect();
        let todo: Vec<usize> = (0..found.len())
            .filter(|&i| contents[i].is_none() && matches!(found[i].kind, FoundKind::File(_)))
            .collect();
        for (i, content) in self.read_all(&found, &todo, blobs)? {
            contents[i] = content;
        }
        let mut cache = HashMap::with_capacity(found.len());
        let mut entries = Vec::with_capacity(found.len());
        for (f, content) in found.into_iter().zip(contents) {
            match f.kind {
                FoundKind::Link => {
                    let Ok(target) = fs::read_link(&f.abs) else {
                        continue;
                    };
                    let target = target.to_string_lossy().into_owned();
                    entries.push(Entry {
                        path: f.path,
                        mode: Mode::Link,
                        size: target.len() as u64,
                        content: Content::Target(target),
                    });
                }
                FoundKind::File(meta) => {
                    // Unreadable (gone, or not permitted): left out.
                    let Some(content) = content else { continue };
                    let stat = Stat::of(&meta);
                    let cached = Cached {
                        size: stat.size,
                        mtime: stat.mtime,
                        ctime: stat.ctime,
                        inode: stat.inode,
                        content: content.clone(),
                        clean: stat.settled_before(start),
                    };
                    cache.insert(f.path.clone(), cached);
                    entries.push(Entry {
                        path: f.path,
                        mode: if is_exec(&meta) {
                            Mode::Exec
                        } else {
                            Mode::File
                        },
                        size: stat.size,
                        content,
                    });
                }
            }
        }
        self.cache = cache;
        entries.sort_by(|a, b| a.path.cmp(&b.path));
        blobs.put(&encode(&entries)).map_err(|_| Stop::Failed)
    }

    /// Every file and link under `cwd` the snapshot lists, or `TooBig` as soon as a limit is
    /// passed.
    fn walk(&self, cwd: &Path, excluded: &[PathBuf]) -> Result<Vec<Found>, Stop> {
        let root = cwd.canonicalize().map_err(|_| Stop::Failed)?;
        let excluded: Vec<PathBuf> = excluded
            .iter()
            .map(|p| p.canonicalize().unwrap_or_else(|_| p.clone()))
            .collect();
        let walk = WalkBuilder::new(&root)
            .hidden(false)
            .require_git(false)
            .follow_links(false)
            .filter_entry(move |e| {
                let dir = e.file_type().is_some_and(|t| t.is_dir());
                !(dir
                    && (VCS_DIRS.iter().any(|v| e.file_name() == *v)
                        || excluded.iter().any(|x| x == e.path())))
            })
            .build();
        let (mut stored, mut large) = (0u64, 0u64);
        let mut found = Vec::new();
        for entry in walk {
            let Ok(entry) = entry else { continue };
            let Some(kind) = entry.file_type() else {
                continue;
            };
            let Some(path) = relative(&root, entry.path()) else {
                continue;
            };
            let kind = if kind.is_symlink() {
                FoundKind::Link
            } else if kind.is_file() {
                let Ok(meta) = entry.metadata() else { continue };
                if meta.len() <= self.limits.max_file_bytes {
                    stored += meta.len();
                } else {
                    large += meta.len();
                }
                FoundKind::File(meta)
            } else {
                continue;
            };
            found.push(Found {
                path,
                abs: entry.into_path(),
                kind,
            });
            if found.len() > self.limits.max_files
                || stored > self.limits.max_stored_bytes
                || large > self.limits.max_large_bytes
            {
                return Err(Stop::TooBig);
            }
        }
        Ok(found)
    }

    /// Reads the files `found[i]` for each `i` in `todo`, [`READERS`] at a time: each with its
    /// content, `None` when it cannot be read (gone, or not permitted).
    fn read_all(
        &self,
        found: &[Found],
        todo: &[usize],
        blobs: &Blobs,
    ) -> Result<Vec<(usize, Option<Content>)>, Stop> {
        let next = AtomicUsize::new(0);
        // Hashes stored during this take: two files with the same content must not be written
        // at once (they would share a temp file).
        let stored = Mutex::new(HashSet::new());
        let reader = || -> Result<Vec<(usize, Option<Content>)>, Stop> {
            let mut done = Vec::new();
            while let Some(&i) = todo.get(next.fetch_add(1, Ordering::Relaxed)) {
                let content = self.read(&found[i], blobs, &stored)?;
                done.push((i, content));
            }
            Ok(done)
        };
        let readers = READERS.min(todo.len().div_ceil(16));
        if readers <= 1 {
            return reader();
        }
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..readers).map(|_| scope.spawn(reader)).collect();
            let mut all = Vec::with_capacity(todo.len());
            for handle in handles {
                all.extend(handle.join().expect("reading files does not panic")?);
            }
            Ok(all)
        })
    }

    /// Reads one file: stored when small, hashed when large. `Ok(None)` when it cannot be read.
    fn read(
        &self,
        f: &Found,
        blobs: &Blobs,
        stored: &Mutex<HashSet<String>>,
    ) -> Result<Option<Content>, Stop> {
        let FoundKind::File(meta) = &f.kind else {
            return Ok(None);
        };
        if meta.len() <= self.limits.max_file_bytes {
            let Ok(bytes) = fs::read(&f.abs) else {
                return Ok(None);
            };
            // It may have grown since the stat; it is stored all the same.
            let hash = blake3::hash(&bytes).to_hex().to_string();
            let first = stored
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(hash.clone());
            if first {
                blobs.put_unsynced(&bytes).map_err(|_| Stop::Failed)?;
            }
            return Ok(Some(Content::Blob(hash)));
        }
        let Ok(file) = fs::File::open(&f.abs) else {
            return Ok(None);
        };
        let mut hasher = blake3::Hasher::new();
        if hasher.update_reader(file).is_err() {
            return Ok(None);
        }
        Ok(Some(Content::Hash(hasher.finalize().to_hex().to_string())))
    }

    /// Marks every cached file settled, as if it had been modified long ago (for tests).
    #[cfg(test)]
    pub(super) fn settle_cache(&mut self) {
        self.cache.values_mut().for_each(|c| c.clean = true);
    }
}

/// The parts of a file's stat the cache compares. The change time too, as git does: a
/// rewrite that puts the modification time back (`cp -p`, `rsync -a`, `touch -r`) still
/// changes it.
struct Stat {
    size: u64,
    mtime: SystemTime,
    ctime: SystemTime,
    inode: u64,
}

impl Stat {
    fn of(meta: &Metadata) -> Stat {
        let mtime = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
        #[cfg(unix)]
        let (inode, ctime) = {
            use std::os::unix::fs::MetadataExt;
            let ctime = u64::try_from(meta.ctime()).ok().map_or(mtime, |secs| {
                SystemTime::UNIX_EPOCH
                    + Duration::new(secs, u32::try_from(meta.ctime_nsec()).unwrap_or(0))
            });
            (meta.ino(), ctime)
        };
        #[cfg(not(unix))]
        let (inode, ctime) = (0, mtime);
        Stat {
            size: meta.len(),
            mtime,
            ctime,
            inode,
        }
    }

    fn matches(&self, c: &Cached) -> bool {
        self.size == c.size
            && self.mtime == c.mtime
            && self.ctime == c.ctime
            && self.inode == c.inode
    }

    /// Whether the file was last modified long enough before `read` (when its take started)
    /// that a later write must change its modification time.
    fn settled_before(&self, read: SystemTime) -> bool {
        let changed = self.mtime.max(self.ctime);
        let whole_seconds = changed
            .duration_since(SystemTime::UNIX_EPOCH)
            .is_ok_and(|d| d.subsec_nanos() == 0);
        let margin = if whole_seconds {
            Duration::from_secs(2)
        } else {
            Duration::from_millis(50)
        };
        changed
            .checked_add(margin)
            .is_some_and(|settled| settled < read)
    }
}

/// Whether the file's owner may execute it (git's test).
fn is_exec(meta: &Metadata) -> bool {
    #[cfg(unix)]
    {
        std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o100 != 0
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        false
    }
}

/// `path` relative to `root`, `/`-separated, or `None` when it is not UTF-8 (or is the root).
fn relative(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    let mut out = String::new();
    for part in rel.components() {
        if !out.is_empty() {
            out.push('/');
        }
        out.push_str(part.as_os_str().to_str()?);
    }
    (!out.is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A project directory and a blob store beside it.
    struct Tree {
        _dir: tempfile::TempDir,
        root: PathBuf,
        blobs: Blobs,
    }

    impl Tree {
        fn new() -> Tree {
            let dir = tempfile::tempdir().expect("tempdir");
            let root = dir.path().join("project");
            fs::create_dir_all(&root).expect("project dir");
            let blobs = Blobs::new(dir.path().join("blobs"));
            Tree {
                _dir: dir,
                root,
                blobs,
            }
        }

        fn write(&self, path: &str, text: &str) {
            let path = self.root.join(path);
            fs::create_dir_all(path.parent().expect("a parent")).expect("dirs");
            fs::write(path, text).expect("write");
        }

        fn entries(&self, m: &mut Manifests) -> Vec<Entry> {
            let hash = m.take(&self.root, &self.blobs, &[]).expect("a manifest");
            load(&self.blobs, &hash).expect("it loads")
        }
    }

    fn paths(entries: &[Entry]) -> Vec<&str> {
        entries.iter().map(|e| e.path.as_str()).collect()
    }

    #[test]
    fn the_format_is_one_sorted_entry_per_line() {
        let entries = [
            Entry {
                path: "a".into(),
                mode: Mode::Exec,
                size: 1,
                content: Content::Blob("b1".into()),
            },
            Entry {
                path: "big".into(),
                mode: Mode::File,
                size: 9,
                content: Content::Hash("h".into()),
            },
            Entry {
                path: "l".into(),
                mode: Mode::Link,
                size: 1,
                content: Content::Target("a".into()),
            },
        ];
        let bytes = encode(&entries);
        assert_eq!(
            String::from_utf8_lossy(&bytes),
            "{\"format\":\"hotl-manifest/1\",\"files\":[\n\
             {\"path\":\"a\",\"mode\":\"100755\",\"size\":1,\"blob\":\"b1\"},\n\
             {\"path\":\"big\",\"mode\":\"100644\",\"size\":9,\"hash\":\"h\"},\n\
             {\"path\":\"l\",\"mode\":\"120000\",\"size\":1,\"target\":\"a\"}\n]}\n"
        );
        let dir = tempfile::tempdir().expect("tempdir");
        let blobs = Blobs::new(dir.path().to_owned());
        let hash = blobs.put(&bytes).expect("stored");
        assert_eq!(load(&blobs, &hash).expect("loads"), entries);
        // hotl-log's collector finds the stored contents a manifest refers to.
        let mut refs = Vec::new();
        hotl_log::blob_refs(&serde_json::from_slice(&bytes).expect("json"), &mut refs);
        assert_eq!(refs, ["b1"]);
    }

    #[test]
    fn ignored_hidden_vcs_and_excluded_paths() {
        let t = Tree::new();
        t.write(".gitignore", "target/\n*.log\n");
        t.write(".ignore", "scratch.txt\n");
        t.write(".env", "SECRET=1\n");
        t.write("src/main.rs", "fn main() {}\n");
        t.write("target/debug/out", "x");
        t.write("run.log", "x");
        t.write("scratch.txt", "x");
        t.write(".hg/store", "x");
        t.write(".jj/repo", "x");
        t.write("home/blobs/aa/aaaa", "x");
        let mut m = Manifests::new(Limits::default());
        let hash = m
            .take(&t.root, &t.blobs, &[t.root.join("home")])
            .expect("a manifest");
        let entries = load(&t.blobs, &hash).expect("loads");
        assert_eq!(
            paths(&entries),
            [".env", ".gitignore", ".ignore", "src/main.rs"]
        );
    }

    #[cfg(unix)]
    #[test]
    fn links_are_recorded_not_followed_and_large_files_are_hashed_not_stored() {
        let t = Tree::new();
        t.write("dir/f.txt", "hello\n");
        std::os::unix::fs::symlink("dir", t.root.join("link")).expect("symlink");
        let big = vec![b'x'; 2048];
        fs::write(t.root.join("big.bin"), &big).expect("write");
        let mut m = Manifests::new(Limits {
            max_file_bytes: 1024,
            ..Limits::default()
        });
        let entries = t.entries(&mut m);
        assert_eq!(paths(&entries), ["big.bin", "dir/f.txt", "link"]);
        let hash = blake3::hash(&big).to_hex().to_string();
        assert_eq!(entries[0].content, Content::Hash(hash.clone()));
        assert!(t.blobs.get(&hash).is_err(), "a large file is not stored");
        assert_eq!(entries[2].mode, Mode::Link);
        assert_eq!(entries[2].content, Content::Target("dir".into()));
    }

    #[test]
    fn giving_up_is_remembered_until_the_retry() {
        let t = Tree::new();
        for i in 0..4 {
            t.write(&format!("f{i}"), "x");
        }
        let mut m = Manifests::new(Limits {
            max_files: 3,
            retry_every: 3,
            ..Limits::default()
        });
        assert!(m.take(&t.root, &t.blobs, &[]).is_none(), "over the limit");
        fs::remove_file(t.root.join("f0")).expect("remove");
        assert!(m.take(&t.root, &t.blobs, &[]).is_none(), "skipped");
        assert!(m.take(&t.root, &t.blobs, &[]).is_none(), "skipped");
        assert!(m.take(&t.root, &t.blobs, &[]).is_some(), "walked again");
    }

    #[test]
    fn the_stored_bytes_limit_gives_up_too() {
        let t = Tree::new();
        t.write("a", "12345");
        t.write("b", "12345");
        let mut m = Manifests::new(Limits {
            max_stored_bytes: 9,
            ..Limits::default()
        });
        assert!(m.take(&t.root, &t.blobs, &[]).is_none());
    }

    #[test]
    fn a_settled_file_with_the_same_stat_is_not_read_again() {
        let t = Tree::new();
        t.write("f", "old\n");
        let mut m = Manifests::new(Limits::default());
        let first = m.take(&t.root, &t.blobs, &[]).expect("a manifest");
        m.settle_cache();
        // What the cache says is what the next take lists: the file is not read again.
        let said = "0".repeat(64);
        m.cache.get_mut("f").expect("cached").content = Content::Hash(said.clone());
        let second = m.take(&t.root, &t.blobs, &[]).expect("a manifest");
        let entries = load(&t.blobs, &second).expect("loads");
        assert_eq!(entries[0].content, Content::Hash(said));
        // A rewrite that puts the modification time back changes the change time: read again.
        let path = t.root.join("f");
        let mtime = fs::metadata(&path)
            .and_then(|m| m.modified())
            .expect("mtime");
        std::thread::sleep(Duration::from_millis(20));
        let file = fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .expect("open");
        std::io::Write::write_all(&mut &file, b"new\n").expect("write");
        file.set_modified(mtime).expect("set mtime");
        drop(file);
        let third = m.take(&t.root, &t.blobs, &[]).expect("a manifest");
        assert_ne!(third, first);
        assert_ne!(third, second);
    }

    #[test]
    fn a_cached_file_whose_blob_is_gone_is_stored_again() {
        let t = Tree::new();
        t.write("f", "content\n");
        let mut m = Manifests::new(Limits::default());
        let first = m.take(&t.root, &t.blobs, &[]).expect("a manifest");
        m.settle_cache();
        let stored = blake3::hash(b"content\n").to_hex().to_string();
        // gc took the blob (no recorded snapshot referenced it).
        fs::remove_file(t.blobs.path(&stored)).expect("remove");
        assert_eq!(m.take(&t.root, &t.blobs, &[]).as_deref(), Some(&*first));
        assert_eq!(t.blobs.get(&stored).expect("stored again"), b"content\n");
    }

    #[test]
    fn a_just_modified_file_is_read_again() {
        let t = Tree::new();
        t.write("f", "old\n");
        let mut m = Manifests::new(Limits::default());
        m.take(&t.root, &t.blobs, &[]).expect("a manifest");
        assert!(m.cache.values().all(|c| !c.clean), "written just now");
    }

    #[test]
    fn whole_second_modification_times_need_a_longer_wait() {
        let at = |secs: u64, nanos: u32| Stat {
            size: 0,
            mtime: SystemTime::UNIX_EPOCH + Duration::new(secs, nanos),
            ctime: SystemTime::UNIX_EPOCH + Duration::new(secs, nanos),
            inode: 0,
        };
        let read = SystemTime::UNIX_EPOCH + Duration::from_secs(101);
        assert!(at(100, 5).settled_before(read));
        assert!(!at(100, 0).settled_before(read));
        assert!(at(98, 0).settled_before(read));
    }

    #[test]
    fn relative_paths_use_slashes() {
        let root = Path::new("/r");
        assert_eq!(
            relative(root, Path::new("/r/a/b.rs")).as_deref(),
            Some("a/b.rs")
        );
        assert_eq!(relative(root, root), None);
    }
}
