//! Writing: the appender, new sessions, imports and forks. Every write holds the tree lock.

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::{IoResultExt, LogError, Result};
use crate::fsutil;
use crate::lock::TreeLock;
use crate::meta::SessionMeta;
use crate::read::{LoadReport, ReadOptions, read_from};
use crate::record::{Body, Pin, Record, SessionStart, encode_line};
use crate::store::{Store, is_session_id, new_session_id};

/// Appends records to one session's log while holding its tree lock.
///
/// Each record is one `write_all` of a whole line followed by `sync_data`, so a record that
/// `append` returned for is on disk. The metadata cache is kept current as records go in.
#[derive(Debug)]
pub struct Writer {
    store: Store,
    id: String,
    path: PathBuf,
    file: File,
    next_seq: u64,
    meta: Option<SessionMeta>,
    /// The root of the tree this session belongs to (its own id for a root).
    root: String,
    /// The tree's lock, shared with the sessions delegated inside the tree by this process.
    lock: Arc<TreeLock>,
    /// A write failed partway (a full disk): the log may end in part of a line, which the
    /// next append ends first so its own records are not glued to it.
    torn: bool,
}

impl Writer {
    /// Appends one record and returns it as written.
    pub fn append(&mut self, body: Body) -> Result<Record> {
        let mut records = self.append_all(vec![body])?;
        Ok(records.pop().expect("one record in, one out"))
    }

    /// Appends several records in one write and one sync (they land together or, if the
    /// process dies mid-write, the last may be torn like any line).
    pub fn append_all(&mut self, bodies: Vec<Body>) -> Result<Vec<Record>> {
        let stamp = self.store.clock().stamp();
        let mut bytes = Vec::new();
        let mut records = Vec::with_capacity(bodies.len());
        for (seq, body) in (self.next_seq..).zip(bodies) {
            let record = Record::new(seq, stamp.clone(), body);
            bytes.extend(encode_line(&record)?);
            records.push(record);
        }
        if self.torn {
            self.end_torn_line()?;
        }
        // The seqs are spent whatever happens: a failed write may leave whole records on disk
        // (and a torn line's seq is never reused).
        self.next_seq += records.len() as u64;
        if let Err(e) = self.file.write_all(&bytes) {
            // Part of a line may be on disk: readers skip it as torn, the next append ends it,
            // and the listing cache no longer knows where complete records end.
            self.torn = true;
            self.forget_meta();
            return Err(e).at(&self.path);
        }
        self.file.sync_data().at(&self.path)?;
        self.update_meta(&records, bytes.len() as u64);
        Ok(records)
    }

    /// Ends the partial line a failed write left, if it left one.
    fn end_torn_line(&mut self) -> Result<()> {
        use std::os::unix::fs::FileExt;
        let len = self.file.metadata().at(&self.path)?.len();
        let mut last = [b'\n'];
        if len > 0 {
            File::open(&self.path)
                .and_then(|f| f.read_exact_at(&mut last, len - 1))
                .at(&self.path)?;
        }
        if last[0] != b'\n' {
            self.file.write_all(b"\n").at(&self.path)?;
        }
        self.torn = false;
        Ok(())
    }

    /// Drops the listing cache, so the next reader rebuilds it from the log.
    fn forget_meta(&mut self) {
        self.meta = None;
        if let Err(e) = fsutil::remove_file_if_exists(&self.store.meta_path(&self.id)) {
            // A stale summary is caught by its size and mtime check; this only costs a
            // rebuild later.
            tracing::warn!(session = self.id, "a stale summary cache stays: {e}");
        }
    }

    pub(crate) fn update_meta(&mut self, records: &[Record], len: u64) {
        let Some(meta) = self.meta.as_mut() else {
            return;
        };
        if !records.iter().all(|r| meta.apply(r, true)) {
            // A revert needs the lineage to recount turns: let the next reader rebuild.
            self.forget_meta();
            return;
        }
        meta.complete_end += len;
        if let Ok(file) = self.file.metadata() {
            meta.stamp_file(&file);
            self.store.store_meta(meta);
        }
    }

    /// Ends a partial line a failed write left (for [`Writer::append_encoded`]).
    pub(crate) fn end_torn(&mut self) -> Result<()> {
        if self.torn {
            self.end_torn_line()?;
        }
        Ok(())
    }

    /// Drops the summary: lines appended as they are let the next reader rebuild it.
    pub(crate) fn forget_summary(&mut self) {
        self.forget_meta();
    }

    /// Spends every seq through `last`: the next record comes after it.
    pub(crate) fn spend_through(&mut self, last: u64) {
        self.next_seq = self.next_seq.max(last + 1);
    }

    /// The open log and its path.
    pub(crate) fn file_and_path(&mut self) -> (&mut File, &Path) {
        (&mut self.file, &self.path)
    }

    /// The store this writer writes in.
    pub(crate) fn store(&self) -> &Store {
        &self.store
    }

    /// The tree's lock this writer holds.
    pub(crate) fn tree_lock(&self) -> &Arc<TreeLock> {
        &self.lock
    }

    /// The seq the next record will get.
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// The session id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The root of the tree this session belongs to (its own id for a root session).
    pub fn root(&self) -> &str {
        &self.root
    }

    /// A pin at this session's head: its last record and the end of its log, for a session
    /// forked or delegated from it now.
    pub fn pin_head(&self) -> Result<Pin> {
        let offset = fs::metadata(&self.path).at(&self.path)?.len();
        self.store.pin(&self.id, self.next_seq - 1, offset)
    }

    /// Starts a session delegated inside this tree (a child of the `fork` tool or a subagent):
    /// forked at `pin`, with `state` as its first records after the `session` record. Its log
    /// lives in the root's tree directory and it is written under this writer's tree lock, so
    /// it needs no lock of its own; listings show it under its root, not among roots.
    pub fn delegate(
        &self,
        pin: Pin,
        cwd: &str,
        state: Vec<Body>,
        delegation: crate::record::Delegation,
    ) -> Result<Writer> {
        let start = self.store.forked_start(&pin, cwd, Some(delegation))?;
        let tree = Tree {
            root: self.root.clone(),
            lock: Arc::clone(&self.lock),
        };
        self.store
            .create_with(start, pin.seq + 1, state, None, Some(tree))
    }

    /// Creates a clean delegated session inside this writer's tree, under its lock: `start`
    /// inherits no history (no `parent` pin) and says in `delegated` who delegated it and at
    /// which seq (`at`); `state` follows it in the same write.
    pub fn delegate_clean(&self, start: SessionStart, state: Vec<Body>) -> Result<Writer> {
        if start.parent.is_some() || start.delegated.as_ref().is_none_or(|d| d.at.is_none()) {
            return Err(LogError::NotALog {
                path: self.store.log_path(&start.id),
                reason: "a clean delegated session has no parent pin and a delegated.at".to_owned(),
            });
        }
        let tree = Tree {
            root: self.root.clone(),
            lock: Arc::clone(&self.lock),
        };
        self.store
            .create_with(start, 1, state, Some(Inherited::default()), Some(tree))
    }

    /// Opens a session already delegated inside this writer's tree for appending, under this
    /// writer's lock (as recovery does for a fork a dead process left running). Refuses a
    /// session of another tree.
    pub fn open_delegated(&self, id: &str) -> Result<Writer> {
        if self.store.root_of(id) != self.root {
            return Err(LogError::NoSuchSession {
                query: format!("{id} (not in the tree of {})", self.root),
            });
        }
        self.store.open_writer(id, Arc::clone(&self.lock))
    }
}

/// A tree a new session is created in, and the lock held over it.
struct Tree {
    root: String,
    lock: Arc<TreeLock>,
}

impl Store {
    /// Opens a session for appending: takes its tree lock, terminates a torn last line with a
    /// newline (nothing is ever truncated), and continues the seq numbering.
    pub fn writer(&self, id: &str) -> Result<Writer> {
        let lock = Arc::new(self.lock(id)?);
        self.open_writer(id, lock)
    }

    /// Opens `id` for appending under `lock`, its tree's lock, already held.
    pub(crate) fn open_under(&self, id: &str, lock: Arc<TreeLock>) -> Result<Writer> {
        self.open_writer(id, lock)
    }

    fn open_writer(&self, id: &str, lock: Arc<TreeLock>) -> Result<Writer> {
        let path = self.log_path(id);
        if !path.is_file() {
            return Err(LogError::NoSuchSession {
                query: id.to_owned(),
            });
        }
        let mut meta = self.meta(id)?;
        let mut torn_seq = None;
        if meta.size > meta.complete_end {
            torn_seq = terminate_torn_tail(&path, meta.complete_end)?;
            meta = self.rebuild_meta(id)?;
        }
        let file = OpenOptions::new().append(true).open(&path).at(&path)?;
        let next_seq = meta.last_seq.max(torn_seq.unwrap_or(0)) + 1;
        Ok(Writer {
            store: self.clone(),
            id: id.to_owned(),
            path,
            file,
            next_seq,
            meta: Some(meta),
            root: self.root_of(id),
            lock,
            torn: false,
        })
    }

    /// Creates a new root session whose first record is `start` at
    /// `first_seq`, followed by `then`. Its id is `start.id` when that is a session id no
    /// session has (see [`new_session_id`]), else a new one. The file appears atomically,
    /// complete.
    pub fn create(&self, start: SessionStart, first_seq: u64, then: Vec<Body>) -> Result<Writer> {
        let inherited = start.parent.is_none().then(Inherited::default);
        self.create_with(start, first_seq, then, inherited, None)
    }

    /// Creates a session: a root with its own lock, or one delegated inside `tree`.
    fn create_with(
        &self,
        mut start: SessionStart,
        first_seq: u64,
        then: Vec<Body>,
        inherited: Option<Inherited>,
        tree: Option<Tree>,
    ) -> Result<Writer> {
        // A root may come with the id its caller already gave out (a front end names the
        // session before its first message); anything else gets a new one.
        let id = if tree.is_none() && is_session_id(&start.id) {
            start.id.clone()
        } else {
            new_session_id()
        };
        start.id.clone_from(&id);
        let clock = self.clock();
        let mut records = Vec::new();
        let mut bytes = Vec::new();
        for (seq, body) in
            (first_seq..).zip(std::iter::once(Body::Session(Box::new(start))).chain(then))
        {
            let record = Record::new(seq, clock.stamp(), body);
            bytes.extend(encode_line(&record)?);
            records.push(record);
        }
        fsutil::create_private_dir(&self.sessions_dir())?;
        let (root, lock) = match tree {
            Some(tree) => {
                fsutil::create_private_dir(&self.tree_dir(&tree.root))?;
                self.note_child(&id, &tree.root);
                (tree.root, tree.lock)
            }
            None => (id.clone(), Arc::new(self.lock(&id)?)),
        };
        self.publish(&id, &bytes)?;
        let path = self.log_path(&id);
        let file = OpenOptions::new().append(true).open(&path).at(&path)?;
        // The summary is known without reading anything: the records just written, plus what
        // the caller says the fork inherits. Without that, the next reader rebuilds it.
        let meta = match inherited {
            Some(inherited) => {
                let mut meta = crate::meta::summarize(&records, 0);
                meta.turns += inherited.turns;
                if meta.first_message.is_none() {
                    meta.first_message = inherited.first_message;
                }
                meta.complete_end = bytes.len() as u64;
                meta.stamp_file(&file.metadata().at(&path)?);
                self.store_meta(&meta);
                Some(meta)
            }
            None => None,
        };
        Ok(Writer {
            store: self.clone(),
            id,
            path,
            file,
            next_seq: first_seq + records.len() as u64,
            meta,
            root,
            lock,
            torn: false,
        })
    }

    /// Creates a session tree from lines already encoded, which carry their own timestamps and
    /// fields this version does not type (an imported session's provenance): the root log
    /// `root` = `(id, bytes)` and the logs delegated inside its tree. Every id must be a new
    /// session id. The children appear first and the root last, each atomically, so a root
    /// never shows without its tree (a tree whose root never appeared is stale for gc).
    pub fn create_encoded(
        &self,
        root: (&str, &[u8]),
        children: &[(String, Vec<u8>)],
    ) -> Result<()> {
        let (id, bytes) = root;
        for id in std::iter::once(id).chain(children.iter().map(|(c, _)| c.as_str())) {
            if !is_session_id(id) {
                return Err(LogError::NotALog {
                    path: self.log_path(id),
                    reason: format!("{id:?} is not a session id"),
                });
            }
            if self.exists(id) {
                return Err(LogError::Exists {
                    what: format!("session {id}"),
                });
            }
        }
        fsutil::create_private_dir(&self.sessions_dir())?;
        let _lock = self.lock(id)?;
        if !children.is_empty() {
            fsutil::create_private_dir(&self.tree_dir(id))?;
        }
        for (child, child_bytes) in children {
            self.note_child(child, id);
            self.publish(child, child_bytes)?;
        }
        self.publish(id, bytes)
    }

    /// Writes a complete new log for `id`, atomically. The caller holds its lock. Refuses an
    /// existing id.
    fn publish(&self, id: &str, bytes: &[u8]) -> Result<()> {
        let path = self.log_path(id);
        if path.exists() {
            return Err(LogError::Exists {
                what: format!("session {id}"),
            });
        }
        fsutil::write_atomic(&path, bytes)
    }

    /// Forks `parent` at `pin` into a new root session: nothing is copied and the parent is not
    /// written. `state` holds the records the fork starts with (modes, todos, title, name),
    /// decided by the caller; `inherited` what the history up to the pin amounts to, when the
    /// caller knows (the fork's summary is then ready without reading the parent).
    pub fn fork(
        &self,
        pin: Pin,
        cwd: &str,
        state: Vec<Body>,
        inherited: Option<Inherited>,
    ) -> Result<Writer> {
        let start = self.forked_start(&pin, cwd, None)?;
        self.create_with(start, pin.seq + 1, state, inherited, None)
    }

    /// The `session` record of a fork at `pin`: the parent's model, cache key and frozen
    /// prompt and tools, this working directory.
    fn forked_start(
        &self,
        pin: &Pin,
        cwd: &str,
        delegated: Option<crate::record::Delegation>,
    ) -> Result<SessionStart> {
        let parent = self.read_start(&pin.session)?;
        Ok(SessionStart {
            id: String::new(),
            cwd: cwd.to_owned(),
            model: parent.model,
            cache_key: parent.cache_key,
            system_blob: parent.system_blob,
            tools_blob: parent.tools_blob,
            parent: Some(pin.clone()),
            delegated,
        })
    }

    /// The `session` record of a log, read from its first line only.
    pub fn read_start(&self, id: &str) -> Result<SessionStart> {
        let path = self.log_path(id);
        let file = File::open(&path).map_err(|e| LogError::opening(id, &path, e))?;
        let mut reader = std::io::BufReader::new(file);
        let mut line = Vec::new();
        std::io::BufRead::read_until(&mut reader, b'\n', &mut line).at(&path)?;
        serde_json::from_slice::<Record>(&line)
            .ok()
            .and_then(|r| r.start().cloned())
            .ok_or_else(|| LogError::NotALog {
                path: path.clone(),
                reason: "first line is not a session record".to_owned(),
            })
    }

    /// Adopts a hotl log written elsewhere. Lines are kept byte for byte, damaged ones included;
    /// only a file with no valid `session` record is refused. With `new_id`, the session record
    /// is rewritten with a fresh id (its unknown fields kept); otherwise an existing id is
    /// refused.
    pub fn import(&self, path: &Path, new_id: bool) -> Result<Imported> {
        self.import_into(path, new_id, None)
    }

    /// [`Store::import`], with a log that records no working directory (an empty `cwd`, as
    /// an example shipped with hotl has: no machine's path) adopted into `cwd`: its session
    /// record is rewritten with it, like a new id.
    pub fn import_into(&self, path: &Path, new_id: bool, cwd: Option<&str>) -> Result<Imported> {
        let mut bytes = Vec::new();
        File::open(path)
            .at(path)?
            .read_to_end(&mut bytes)
            .at(path)?;
        // A log exported to stand alone carries its blobs after its records.
        let (mut bytes, carried) = crate::carried::take_blobs(&bytes, &self.blobs())?;
        let mut log = read_from(&bytes[..], ReadOptions::default()).at(path)?;
        log.report.skipped.extend(carried.refused);
        let Some(at) = log.records.iter().position(|r| r.start().is_some()) else {
            // Say why a session line was refused, when there was one (a pin that is a path).
            let why = log
                .report
                .skipped
                .iter()
                .find(|s| s.reason.starts_with("session record"))
                .map(|s| format!("line {}: {}", s.line, s.reason));
            return Err(LogError::NotALog {
                path: path.to_owned(),
                reason: why.unwrap_or_else(|| "no valid session record".to_owned()),
            });
        };
        let start = log.records[at].start().expect("found by start()");
        let span = log.spans[at];
        let mut id = start.id.clone();
        if !is_session_id(&id) && !new_id {
            return Err(LogError::NotALog {
                path: path.to_owned(),
                reason: format!("session id {id:?} is not a ULID; import with --new-id"),
            });
        }
        let adopt_cwd = cwd.filter(|_| start.cwd.is_empty());
        if new_id || adopt_cwd.is_some() {
            if new_id {
                id = new_session_id();
            }
            let line = &bytes[span.offset as usize..span.end as usize];
            // The record reader skips what it does not know without building it; a rewrite
            // must build it all, which can fail where reading did not (nesting over serde's
            // limit of 128 levels).
            let mut value: serde_json::Map<String, serde_json::Value> =
                serde_json::from_slice(line).map_err(|e| LogError::NotALog {
                    path: path.to_owned(),
                    reason: format!(
                        "line {}: the session record cannot be rewritten: {e}",
                        at + 1
                    ),
                })?;
            value.insert("id".to_owned(), serde_json::Value::String(id.clone()));
            if let Some(cwd) = adopt_cwd {
                value.insert("cwd".to_owned(), serde_json::Value::String(cwd.to_owned()));
            }
            let mut rewritten = serde_json::to_vec(&value)?;
            rewritten.push(b'\n');
            bytes.splice(span.offset as usize..span.end as usize, rewritten);
        }
        if !new_id && self.exists(&id) {
            return Err(LogError::Exists {
                what: format!("session {id} (import with --new-id to adopt a copy)"),
            });
        }
        if bytes.last().is_some_and(|&b| b != b'\n') {
            // A torn tail stays a (reported) damaged line rather than swallowing what comes next.
            bytes.push(b'\n');
        }
        fsutil::create_private_dir(&self.sessions_dir())?;
        let _lock = self.lock(&id)?;
        self.publish(&id, &bytes)?;
        drop(_lock);
        // Names stay unique: a copy beside its original, or another session of the same name,
        // takes a free one.
        let renamed = self.keep_name_unique(&id)?;
        Ok(Imported {
            id,
            report: log.report,
            blobs: carried.stored,
            renamed,
        })
    }
}

/// What a fork's history up to its pin amounts to, for its summary.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Inherited {
    /// Visible user turns up to the pin.
    pub turns: u64,
    /// The first user message, shortened as summaries keep it.
    pub first_message: Option<String>,
}

/// What an import adopted.
#[derive(Debug)]
pub struct Imported {
    /// The session id it has in this home.
    pub id: String,
    /// What reading the file skipped.
    pub report: LoadReport,
    /// Blobs the file carried, stored in this home.
    pub blobs: usize,
    /// The copy's name and the one it was given, when another session held it.
    pub renamed: Option<(String, String)>,
}

/// Appends the newline that turns a torn last line into an ordinary (skipped) one. Returns the
/// seq the torn line carries if it happens to parse, so numbering never repeats it.
fn terminate_torn_tail(path: &Path, complete_end: u64) -> Result<Option<u64>> {
    let mut file = OpenOptions::new()
        .read(true)
        .append(true)
        .open(path)
        .at(path)?;
    file.seek(SeekFrom::Start(complete_end)).at(path)?;
    let mut tail = Vec::new();
    file.read_to_end(&mut tail).at(path)?;
    if tail.last() == Some(&b'\n') || tail.is_empty() {
        return Ok(None);
    }
    file.write_all(b"\n").at(path)?;
    file.sync_data().at(path)?;
    Ok(serde_json::from_slice::<Record>(&tail).ok().map(|r| r.seq))
}

/// Removes a session's files. The caller holds the tree lock.
pub(crate) fn remove_session_files(store: &Store, id: &str) -> Result<()> {
    fsutil::remove_file_if_exists(&store.log_path(id))?;
    store.forget_hole(id)?;
    fsutil::remove_file_if_exists(&store.meta_path(id))?;
    let tree = store.tree_dir(id);
    if tree.is_dir() {
        fs::remove_dir_all(&tree).at(&tree)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A write that fails partway (here: part of a line on disk, then a full disk) is ended
    /// by the next append, whose records come after the seqs the failed write spent.
    #[test]
    fn a_write_that_failed_partway_is_ended_before_the_next_append() {
        let dir = tempfile::tempdir().expect("temp");
        let store = Store::new(dir.path());
        let mut writer = store
            .create(SessionStart::new("/p"), 1, vec![Body::user_text("one")])
            .expect("created");
        let id = writer.id().to_owned();
        let log = writer.file.try_clone().expect("clone");
        (&log)
            .write_all(b"{\"seq\":3,\"ts\"")
            .expect("a partial line");
        let Ok(full) = OpenOptions::new().write(true).open("/dev/full") else {
            return;
        };
        writer.file = full;
        assert!(writer.append(Body::user_text("lost")).is_err());
        writer.file = log;
        assert_eq!(writer.append(Body::user_text("two")).expect("kept").seq, 4);
        drop(writer);
        let read = store.read(&id).expect("read");
        let texts: Vec<(u64, String)> = read
            .records
            .iter()
            .filter_map(|r| match &r.body {
                Body::User { content } => {
                    Some((r.seq, content.iter().filter_map(|b| b.as_text()).collect()))
                }
                _ => None,
            })
            .collect();
        assert_eq!(texts, [(2, "one".to_owned()), (4, "two".to_owned())]);
        assert_eq!(read.report.skipped.len(), 1, "the torn line is reported");
        assert!(read.report.torn_tail.is_none());
        assert_eq!(store.meta(&id).expect("meta").last_seq, 4);
    }
}
