//! The store: a home directory of session logs, their caches and locks, and blobs.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use crate::blob::Blobs;
use crate::clock::Clock;
use crate::error::{IoResultExt, LogError, Result};
use crate::fsutil;
use crate::lock::TreeLock;
use crate::meta::{META_FORMAT, SessionMeta};
use crate::read::{Log, ReadOptions, read_log};

/// A hotl home: `sessions/`, `blobs/` and `index/` under one directory.
///
/// Nothing is created until something is written. Reading never takes a lock.
#[derive(Clone, Debug)]
pub struct Store {
    home: PathBuf,
    clock: Clock,
    /// Delegated sessions found so far, and the root whose tree holds each: a child's id
    /// does not say where it lives, and finding it means looking into tree directories.
    pub(crate) trees: Arc<Mutex<HashMap<String, String>>>,
    /// Logs looked through for their reverts (when their summary was stale): the length
    /// looked through and what it held. Logs only grow, so the next look starts there.
    reverts_seen: Arc<Mutex<HashMap<String, RevertsSeen>>>,
    /// What fetches the missing bytes of a log with a hole (see [`crate::Hole`]).
    pub(crate) filler: crate::hole::FillWith,
}

/// How far a log was looked through for reverts, and the (seq, to) of those found.
type RevertsSeen = (u64, Vec<(u64, u64)>);

/// The derived directory of view checkpoints.
const VIEWS: &str = "views";

impl Store {
    /// The store rooted at `home`.
    pub fn new(home: impl Into<PathBuf>) -> Self {
        Store {
            home: home.into(),
            clock: Clock::System,
            trees: Arc::default(),
            reverts_seen: Arc::default(),
            filler: crate::hole::FillWith::default(),
        }
    }

    /// Uses `clock` for record timestamps. The system clock by default.
    pub fn with_clock(mut self, clock: Clock) -> Self {
        self.clock = clock;
        self
    }

    /// The clock records are stamped with.
    pub fn clock(&self) -> Clock {
        self.clock
    }

    /// The home directory.
    pub fn home(&self) -> &Path {
        &self.home
    }

    /// `sessions/`.
    pub(crate) fn sessions_dir(&self) -> PathBuf {
        self.home.join("sessions")
    }

    /// `index/` (derived files of later layers).
    pub(crate) fn index_dir(&self) -> PathBuf {
        self.home.join("index")
    }

    /// A directory for a derived cache of a later layer (`index/<name>/`, not created here):
    /// deleting it loses nothing, since everything in it is rebuilt from the logs.
    pub fn derived_dir(&self, name: &str) -> PathBuf {
        self.index_dir().join(name)
    }

    /// Makes the home and the directories hotl keeps in it private (0700) where they are not,
    /// and the snapshot indexes (which list every path of a project) 0600: an older hotl, git,
    /// or another tool may have made them under a looser umask. Returns each path tightened
    /// with the mode it had; what cannot be changed is logged and left.
    pub fn tighten(&self) -> Vec<(PathBuf, u32)> {
        use std::os::unix::fs::PermissionsExt;
        let mut tightened = Vec::new();
        let mut tighten = |path: PathBuf, private: u32| {
            let Ok(meta) = fs::symlink_metadata(&path) else {
                return;
            };
            let mode = meta.permissions().mode() & 0o777;
            if meta.file_type().is_symlink() || mode & 0o077 == 0 {
                return;
            }
            match fs::set_permissions(&path, fs::Permissions::from_mode(private)) {
                Ok(()) => tightened.push((path, mode)),
                Err(e) => tracing::warn!("{} stays readable by others: {e}", path.display()),
            }
        };
        let index = self.index_dir();
        // The home itself only when it is plainly hotl's (`--home` may name a directory that
        // holds other things too).
        if self.sessions_dir().is_dir() {
            tighten(self.home.clone(), 0o700);
        }
        for dir in [
            self.sessions_dir(),
            self.home.join("blobs"),
            index.clone(),
            index.join("recall"),
            index.join("trees"),
            self.home.join("logs"),
        ] {
            tighten(dir, 0o700);
        }
        if let Ok(entries) = fs::read_dir(index.join("trees")) {
            for entry in entries.flatten() {
                tighten(entry.path(), 0o600);
            }
        }
        tightened
    }

    /// The blob store.
    pub fn blobs(&self) -> Blobs {
        Blobs::new(self.home.join("blobs"))
    }

    /// A session's log: `sessions/<id>.jsonl` for a root, `sessions/<root>/<id>.jsonl` for a
    /// session delegated inside a root's tree.
    pub(crate) fn log_path(&self, id: &str) -> PathBuf {
        match self.tree_of(id) {
            Some(root) => self.tree_dir(&root).join(format!("{id}.jsonl")),
            None => self.root_log_path(id),
        }
    }

    /// A session's metadata cache, next to its log.
    pub(crate) fn meta_path(&self, id: &str) -> PathBuf {
        match self.tree_of(id) {
            Some(root) => self.tree_dir(&root).join(format!("{id}.meta.json")),
            None => self.sessions_dir().join(format!("{id}.meta.json")),
        }
    }

    /// The lock of the tree a session belongs to (a delegated session shares its root's).
    pub(crate) fn lock_path(&self, id: &str) -> PathBuf {
        self.sessions_dir()
            .join(format!("{}.lock", self.root_of(id)))
    }

    /// A root session's tree directory (the logs of the sessions delegated inside it).
    pub(crate) fn tree_dir(&self, root: &str) -> PathBuf {
        self.sessions_dir().join(root)
    }

    /// The root of the tree `id` belongs to: `id` itself for a root session (or an unknown id).
    pub fn root_of(&self, id: &str) -> String {
        self.tree_of(id).unwrap_or_else(|| id.to_owned())
    }

    /// Whether a session with this id exists, root or delegated.
    pub fn exists(&self, id: &str) -> bool {
        self.log_path(id).is_file()
    }

    /// A root session's log, wherever the id lives.
    pub(crate) fn root_log_path(&self, id: &str) -> PathBuf {
        self.sessions_dir().join(format!("{id}.jsonl"))
    }

    /// The ids of every root session on disk, in no particular order.
    pub fn session_ids(&self) -> Result<Vec<String>> {
        log_ids(&self.sessions_dir())
    }

    /// Reads a session's own log. An unterminated last line counts as torn only when no process
    /// holds the tree (otherwise it may be a line being written).
    pub fn read(&self, id: &str) -> Result<Log> {
        self.read_limited(id, None)
    }

    /// The size of a root session's log (one `stat`: the id is not looked for in trees), for
    /// going over every root session ([`Store::session_ids`]).
    pub fn root_log_size(&self, id: &str) -> Result<u64> {
        let path = self.root_log_path(id);
        std::fs::metadata(&path)
            .map(|m| m.len())
            .map_err(|e| LogError::opening(id, &path, e))
    }

    /// The size of a session's log in bytes: how far [`Store::read_range`] can read.
    pub fn log_size(&self, id: &str) -> Result<u64> {
        let path = self.log_path(id);
        std::fs::metadata(&path)
            .map(|m| m.len())
            .map_err(|e| LogError::opening(id, &path, e))
    }

    /// [`pin_hash`](crate::pin_hash) of a session's log at byte `offset`: while it stays the
    /// same, the log up to `offset` is the one seen (logs only grow).
    pub fn log_hash(&self, id: &str, offset: u64) -> Result<String> {
        self.need(id, crate::lineage::pinned_bytes(offset))?;
        crate::lineage::pin_hash(&self.log_path(id), offset)
    }

    /// The complete lines of a session's log between byte offsets `from` (a line start) and
    /// `to`, read tolerantly: a line cut at `to` is left out, for a later read. What a derived
    /// index reads to catch up with a log that grew.
    pub fn read_range(&self, id: &str, from: u64, to: u64) -> Result<Log> {
        use std::io::{Read, Seek, SeekFrom};
        self.need(id, from..to)?;
        let path = self.log_path(id);
        let mut file = std::fs::File::open(&path).map_err(|e| LogError::opening(id, &path, e))?;
        file.seek(SeekFrom::Start(from)).at(&path)?;
        let span = to.saturating_sub(from);
        let reader = std::io::BufReader::with_capacity(1 << 16, file.take(span));
        crate::read::read_from(
            reader,
            ReadOptions {
                size_hint: span,
                ..ReadOptions::default()
            },
        )
        .at(&path)
    }

    /// Whether `pin` still holds: its session's log is at least as long as its offset and the
    /// bytes before the offset hash as they did (constant time, whatever the log's size).
    pub fn pin_holds(&self, pin: &crate::record::Pin) -> bool {
        let path = self.log_path(&pin.session);
        std::fs::metadata(&path).is_ok_and(|m| m.len() >= pin.offset)
            && self
                .need(&pin.session, crate::lineage::pinned_bytes(pin.offset))
                .is_ok()
            && crate::lineage::pin_hash(&path, pin.offset).is_ok_and(|h| h == pin.hash)
    }

    /// Replaces `file` in the derived directory `dir` (a cache: written atomically, not
    /// synced; losing it costs a rebuild).
    pub fn put_derived(&self, dir: &str, file: &str, bytes: &[u8]) -> Result<()> {
        let dir = self.derived_dir(dir);
        fsutil::create_private_dir(&dir)?;
        fsutil::write_derived(&dir.join(file), bytes)
    }

    /// Where session `id`'s view checkpoint lives (`index/views/<id>.json`): the agent writes
    /// and reads it, the remote store publishes it and opens a session from it. Its format
    /// is the agent's (docs/log-format.md).
    pub fn view_checkpoint_path(&self, id: &str) -> PathBuf {
        self.derived_dir(VIEWS).join(format!("{id}.json"))
    }

    /// Replaces session `id`'s view checkpoint (derived, like every file under `index/`).
    pub fn put_view_checkpoint(&self, id: &str, bytes: &[u8]) -> Result<()> {
        self.put_derived(VIEWS, &format!("{id}.json"), bytes)
    }

    /// Where a fork that sees everything up to `seq` pins in `id`'s own log: the offset just
    /// past the last line whose seq is at most `seq` (the end of the `session` line for a seq
    /// in inherited history). Seqs grow with offsets, so it is found by bisecting the file on
    /// line starts, then reading the last stretch: a few reads whatever the log's size.
    pub fn offset_through(&self, id: &str, seq: u64) -> Result<u64> {
        use std::io::{BufRead, Seek, SeekFrom};
        /// Below this many bytes, the stretch left is read line by line.
        const STRETCH: u64 = 64 * 1024;
        // Bisecting reads anywhere in the log.
        self.need_all(id)?;
        let path = self.log_path(id);
        let file = std::fs::File::open(&path).map_err(|e| LogError::opening(id, &path, e))?;
        let size = file.metadata().at(&path)?.len();
        let mut reader = std::io::BufReader::with_capacity(1 << 16, file);
        let mut line = Vec::new();
        // The first line starting at or after `pos` that holds a seq: (its start, its seq).
        let mut line_after = |pos: u64| -> Result<Option<(u64, u64)>> {
            reader.seek(SeekFrom::Start(pos)).at(&path)?;
            let mut start = pos;
            if pos > 0 {
                line.clear();
                start += reader.read_until(b'\n', &mut line).at(&path)? as u64;
            }
            loop {
                line.clear();
                let n = reader.read_until(b'\n', &mut line).at(&path)? as u64;
                if n == 0 || line.last() != Some(&b'\n') {
                    return Ok(None);
                }
                if let Some(found) = seq_of(&line) {
                    return Ok(Some((start, found)));
                }
                start += n;
            }
        };
        // Invariant: `lo` starts a line holding a seq at most `seq` (or is 0); every line at
        // or after `hi` holds a larger seq.
        let (mut lo, mut hi) = (0u64, size);
        while hi - lo > STRETCH {
            let mid = lo + (hi - lo) / 2;
            match line_after(mid)? {
                Some((start, found)) if start < hi && found <= seq => lo = start,
                _ => hi = mid,
            }
        }
        reader.seek(SeekFrom::Start(lo)).at(&path)?;
        let (mut offset, mut through) = (lo, lo);
        loop {
            line.clear();
            let n = reader.read_until(b'\n', &mut line).at(&path)? as u64;
            if n == 0 || line.last() != Some(&b'\n') {
                break;
            }
            offset += n;
            match seq_of(&line) {
                // The `session` line always counts: a cut in inherited history pins after it.
                Some(found) if found <= seq || through == 0 => through = offset,
                Some(_) => break,
                // A damaged line is skipped, as reading skips it.
                None => {}
            }
        }
        Ok(through)
    }

    /// [`Store::read_range`] from `from` to the log's end.
    pub fn read_after(&self, id: &str, from: u64) -> Result<Log> {
        let size = self.log_size(id)?;
        self.read_range(id, from, size)
    }

    pub(crate) fn read_limited(&self, id: &str, limit: Option<u64>) -> Result<Log> {
        let path = self.log_path(id);
        if !path.is_file() {
            return Err(LogError::NoSuchSession {
                query: id.to_owned(),
            });
        }
        self.need(id, 0..limit.unwrap_or(u64::MAX))?;
        let tail_is_live = limit.is_none() && TreeLock::is_held(&self.lock_path(id));
        read_log(
            &path,
            ReadOptions {
                limit,
                tail_is_live,
                ..ReadOptions::default()
            },
        )
    }

    /// Takes the tree lock of a root session, or says who holds it.
    pub fn lock(&self, id: &str) -> Result<TreeLock> {
        fsutil::create_private_dir(&self.sessions_dir())?;
        let path = self.lock_path(id);
        TreeLock::try_acquire(&path)?.ok_or_else(|| LogError::Locked {
            session: id.to_owned(),
            owner_pid: TreeLock::owner_pid(&path),
        })
    }

    /// Whether another process (or this one) is writing the tree right now.
    pub fn is_owned(&self, id: &str) -> bool {
        TreeLock::is_held(&self.lock_path(id))
    }

    /// A session's summary, from the cache when it is fresh, else rebuilt (and cached).
    pub fn meta(&self, id: &str) -> Result<SessionMeta> {
        let log_path = self.log_path(id);
        let file = fs::metadata(&log_path).map_err(|e| LogError::opening(id, &log_path, e))?;
        if let Some(cached) = self.cached_meta(id)
            && cached.is_fresh_for(&file)
        {
            return Ok(cached);
        }
        self.rebuild_meta(id)
    }

    /// The `revert` records of a session's own log, as (seq, to): from its summary when that
    /// is fresh, else by looking through the log for them alone, from where this process last
    /// looked (a revert makes the writer drop the summary, and rebuilding one reads and parses
    /// the whole lineage: too slow for a question asked on every recall).
    pub fn reverts(&self, id: &str) -> Result<Vec<(u64, u64)>> {
        let log_path = self.log_path(id);
        let file = fs::metadata(&log_path).map_err(|e| LogError::opening(id, &log_path, e))?;
        if let Some(cached) = self.cached_meta(id)
            && cached.is_fresh_for(&file)
        {
            return Ok(cached.reverts);
        }
        let mut seen = self.reverts_seen.lock().unwrap_or_else(|e| e.into_inner());
        let (from, mut reverts) = match seen.remove(id) {
            Some((len, reverts)) if len <= file.len() => (len, reverts),
            _ => (0, Vec::new()),
        };
        self.need(id, from..file.len())?;
        let mut log = fs::File::open(&log_path).map_err(|e| LogError::opening(id, &log_path, e))?;
        std::io::Seek::seek(&mut log, std::io::SeekFrom::Start(from)).at(&log_path)?;
        let mut reader = std::io::BufReader::with_capacity(1 << 20, log);
        // Any line with the string "revert" in it is parsed (a log written elsewhere may space
        // its JSON); escaped text inside other records never matches.
        let finder = memchr::memmem::Finder::new(br#""revert""#);
        let mut line = Vec::new();
        let mut end = from;
        loop {
            line.clear();
            let n = std::io::BufRead::read_until(&mut reader, b'\n', &mut line).at(&log_path)?;
            // A line still being written is looked at again next time.
            if n == 0 || line.last() != Some(&b'\n') {
                break;
            }
            end += n as u64;
            if finder.find(&line).is_some()
                && let Ok(record) = serde_json::from_slice::<crate::record::Record>(&line)
                && let crate::record::Body::Revert { to } = record.body
            {
                reverts.push((record.seq, to));
            }
        }
        seen.insert(id.to_owned(), (end, reverts.clone()));
        Ok(reverts)
    }

    fn cached_meta(&self, id: &str) -> Option<SessionMeta> {
        let bytes = fs::read(self.meta_path(id)).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    /// Recomputes a session's summary from its lineage and caches it.
    pub fn rebuild_meta(&self, id: &str) -> Result<SessionMeta> {
        let (meta, complete) = self.compute_meta(id)?;
        if complete {
            self.store_meta(&meta);
        }
        Ok(meta)
    }

    /// A session's summary from its lineage. The flag says whether it matches the file as it
    /// is now: the log may grow while it is read, and a summary stamped with the new size but
    /// built from fewer records would look fresh, so only a matching one may be cached.
    fn compute_meta(&self, id: &str) -> Result<(SessionMeta, bool)> {
        let log_path = self.log_path(id);
        let file = fs::metadata(&log_path).at(&log_path)?;
        let lineage = self.lineage(id)?;
        let mut meta = lineage.summarize();
        meta.stamp_file(&file);
        let complete = meta.size == lineage.own_bytes;
        Ok((meta, complete))
    }

    /// Writes a summary to the cache. Failure is harmless (the cache is rebuilt), so it is
    /// only logged: a read-only home still lists.
    pub fn store_meta(&self, meta: &SessionMeta) {
        let path = self.meta_path(&meta.id);
        let written = serde_json::to_vec(meta)
            .map_err(LogError::from)
            .and_then(|bytes| fsutil::write_derived(&path, &bytes));
        if let Err(e) = written {
            tracing::debug!(session = meta.id, "the summary cache is not written: {e}");
        }
    }

    /// The list cache: every summary in one file, so listing reads one file rather than one
    /// per session. Derived like the per-session caches, and checked against each log the same
    /// way.
    pub(crate) fn list_cache_path(&self) -> PathBuf {
        self.sessions_dir().join(LIST_CACHE)
    }

    /// Summaries of every root session, dropped ones included, newest activity first.
    ///
    /// Each summary comes from the list cache when it still matches its log, else from the
    /// session's own cache, else from its lineage; the list cache is then rewritten once.
    pub fn list(&self) -> Result<Vec<SessionMeta>> {
        let ids = self.session_ids()?;
        let mut cached = self.read_list_cache();
        let mut changed = false;
        let mut metas = Vec::with_capacity(ids.len());
        for id in ids {
            let path = self.root_log_path(&id);
            let file = match fs::metadata(&path) {
                Ok(file) => file,
                // Deleted between the directory read and now.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(e).at(&path),
            };
            if let Some(meta) = cached.remove(&id)
                && meta.is_fresh_for(&file)
            {
                metas.push(meta);
                continue;
            }
            changed = true;
            let fresh = self.cached_meta(&id).filter(|m| m.is_fresh_for(&file));
            let meta = match fresh {
                Some(meta) => meta,
                None => match self.compute_meta(&id) {
                    Ok((meta, _)) => meta,
                    // Empty or not a log: nothing to list.
                    Err(LogError::NotALog { .. } | LogError::NoSuchSession { .. }) => continue,
                    Err(e) => return Err(e),
                },
            };
            metas.push(meta);
        }
        if changed || !cached.is_empty() {
            self.write_list_cache(&metas);
        }
        metas.sort_by(|a, b| b.updated.cmp(&a.updated).then_with(|| b.id.cmp(&a.id)));
        Ok(metas)
    }

    fn read_list_cache(&self) -> HashMap<String, SessionMeta> {
        let Ok(bytes) = fs::read(self.list_cache_path()) else {
            return HashMap::new();
        };
        match serde_json::from_slice::<ListCache>(&bytes) {
            Ok(cache) if cache.format == META_FORMAT => cache
                .sessions
                .into_iter()
                .map(|m| (m.id.clone(), m))
                .collect(),
            _ => HashMap::new(),
        }
    }

    fn write_list_cache(&self, metas: &[SessionMeta]) {
        let cache = ListCacheRef {
            format: META_FORMAT,
            sessions: metas,
        };
        let written = serde_json::to_vec(&cache)
            .map_err(LogError::from)
            .and_then(|bytes| fsutil::write_derived(&self.list_cache_path(), &bytes));
        if let Err(e) = written {
            tracing::debug!("the list cache is not written: {e}");
        }
    }
}

/// The list cache's file name in `sessions/`.
const LIST_CACHE: &str = "list.cache.json";

#[derive(Deserialize)]
struct ListCache {
    format: u32,
    sessions: Vec<SessionMeta>,
}

#[derive(Serialize)]
struct ListCacheRef<'a> {
    format: u32,
    sessions: &'a [SessionMeta],
}

/// The names of the entries of `dir` (none when it does not exist), and whether each is a
/// directory.
pub(crate) fn session_entries(dir: &Path) -> Result<Vec<(String, bool)>> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).at(dir),
    };
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.at(dir)?;
        if let Ok(name) = entry.file_name().into_string() {
            out.push((name, entry.file_type().is_ok_and(|t| t.is_dir())));
        }
    }
    Ok(out)
}

/// The ids of the session logs (`<id>.jsonl`) in `dir`.
pub(crate) fn log_ids(dir: &Path) -> Result<Vec<String>> {
    Ok(session_entries(dir)?
        .into_iter()
        .filter_map(|(name, is_dir)| {
            let id = name.strip_suffix(".jsonl")?;
            (!is_dir && is_session_id(id)).then(|| id.to_owned())
        })
        .collect())
}

/// Whether `s` looks like a session id (a ULID: 26 Crockford base32 characters).
pub fn is_session_id(s: &str) -> bool {
    s.len() == 26
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b.is_ascii_uppercase() && !b"ILOU".contains(&b)))
}

/// A new session id.
pub fn new_session_id() -> String {
    ulid::Ulid::generate().to_string()
}

/// The seq of a log line, read from its start (hotl writes it first: `{"seq":N,`), else by
/// parsing the line; `None` for a line that holds none.
pub fn seq_of(line: &[u8]) -> Option<u64> {
    if let Some(rest) = line.strip_prefix(b"{\"seq\":") {
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        if digits > 0 && rest.get(digits) == Some(&b',') {
            return std::str::from_utf8(&rest[..digits]).ok()?.parse().ok();
        }
    }
    #[derive(Deserialize)]
    struct Seq {
        seq: u64,
    }
    serde_json::from_slice::<Seq>(line).ok().map(|s| s.seq)
}
