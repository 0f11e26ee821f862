//! Logs whose middle is elsewhere. A session opened from a copy kept elsewhere (a remote
//! store) needs only what its view needs to open: its first line and the end of its log from
//! its view checkpoint on. Such a log is written at its full length with the archived middle
//! left as a hole (a sparse file), and a marker beside it, `<log>.hole`, says which bytes are
//! missing and where they are. The marker is written before the log appears and removed only
//! after the hole is filled and synced, so a log with a hole never exists unmarked.
//!
//! Every read of a log asks [`Store::need`] for the bytes it reads first: bytes outside the
//! hole are read as always; bytes inside it are fetched through the filler the front end
//! set ([`Store::with_filler`]) and the read goes on, or, with no filler, the read fails with
//! [`LogError::Hole`], naming what fetches them. Nothing ever reads the hole's zeros as
//! records.

use std::io::{Seek, SeekFrom, Write};
use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::atomic::Atomic;
use crate::error::{IoResultExt, LogError, Result};
use crate::fsutil;
use crate::store::Store;

/// What fills a session's hole: called with the store and the session's id; returns once the
/// hole is filled (see [`Store::fill_hole`]) or says why it could not be.
/// Unwind-safe, as the store is: a panic while filling leaves the hole as it was.
pub type Filler = Arc<
    dyn Fn(&Store, &str) -> std::result::Result<(), String>
        + Send
        + Sync
        + std::panic::RefUnwindSafe
        + std::panic::UnwindSafe,
>;

/// The store's filler, when the front end set one.
#[derive(Clone, Default)]
pub(crate) struct FillWith(Option<Filler>);

impl std::fmt::Debug for FillWith {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "a filler" } else { "none" })
    }
}

/// The bytes of a log that are missing, and where they are kept.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hole {
    /// The first missing byte.
    pub from: u64,
    /// One past the last.
    pub to: u64,
    /// Where they are, in a message's words (a remote store's name).
    pub source: String,
}

impl Store {
    /// This store, filling holes with `filler` whenever a read needs their bytes.
    pub fn with_filler(mut self, filler: Filler) -> Store {
        self.filler = FillWith(Some(filler));
        self
    }

    /// The marker of a session's hole.
    fn hole_path(&self, id: &str) -> PathBuf {
        let mut path = self.log_path(id).into_os_string();
        path.push(".hole");
        PathBuf::from(path)
    }

    /// The hole in a session's log, when it has one.
    pub fn hole(&self, id: &str) -> Option<Hole> {
        let bytes = std::fs::read(self.hole_path(id)).ok()?;
        match serde_json::from_slice(&bytes) {
            Ok(hole) => Some(hole),
            // A marker that does not parse still marks a hole: all of the log but its end
            // would be suspect, so the whole log counts as missing.
            Err(_) => Some(Hole {
                from: 0,
                to: u64::MAX,
                source: "the store it came from".to_owned(),
            }),
        }
    }

    /// Makes sure the bytes `range` of a session's log can be read: nothing to do outside a
    /// hole; inside one, the filler fetches them (or the read is refused).
    pub fn need(&self, id: &str, range: Range<u64>) -> Result<()> {
        let Some(hole) = self.hole(id) else {
            return Ok(());
        };
        if range.end <= hole.from || range.start >= hole.to {
            return Ok(());
        }
        let Some(filler) = &self.filler.0 else {
            return Err(LogError::Hole {
                id: id.to_owned(),
                hole,
            });
        };
        filler(self, id).map_err(|why| LogError::HoleNotFilled {
            id: id.to_owned(),
            why,
        })?;
        match self.hole(id) {
            None => Ok(()),
            Some(hole) => Err(LogError::Hole {
                id: id.to_owned(),
                hole,
            }),
        }
    }

    /// [`Store::need`] for the whole log.
    pub(crate) fn need_all(&self, id: &str) -> Result<()> {
        self.need(id, 0..u64::MAX)
    }

    /// Removes a session's hole marker, with its log.
    pub(crate) fn forget_hole(&self, id: &str) -> Result<()> {
        fsutil::remove_file_if_exists(&self.hole_path(id))
    }

    /// Creates a root session's log with a hole: `first` (its first line) at the start,
    /// `tail` at `at` (whole lines after it, maybe part of one before), the bytes between
    /// missing and kept at `source`. The marker is written
    /// first, the log appears atomically and complete but for the hole. Refuses an id that
    /// exists.
    pub fn create_with_hole(
        &self,
        id: &str,
        first: &[u8],
        at: u64,
        tail: &[u8],
        source: &str,
    ) -> Result<()> {
        if !crate::store::is_session_id(id) || self.exists(id) {
            return Err(LogError::Exists {
                what: format!("session {id}"),
            });
        }
        if first.last() != Some(&b'\n') || (first.len() as u64) >= at || tail.last() != Some(&b'\n')
        {
            return Err(LogError::NotALog {
                path: self.log_path(id),
                reason:
                    "a log with a hole needs a whole first line before it and whole lines after"
                        .to_owned(),
            });
        }
        let hole = Hole {
            from: first.len() as u64,
            to: at,
            source: source.to_owned(),
        };
        let path = self.log_path(id);
        if let Some(dir) = path.parent() {
            fsutil::create_private_dir(dir)?;
        }
        let marker = serde_json::to_vec(&hole)?;
        fsutil::write_atomic(&self.hole_path(id), &marker)?;
        let written = Atomic::PRIVATE
            .write_with(&path, |file| {
                file.write_all(first)?;
                file.flush()?;
                file.get_ref().set_len(at)?;
                file.seek(SeekFrom::Start(at))?;
                file.write_all(tail)
            })
            .map(|_| ())
            .at(&path);
        if written.is_err() {
            let _ = std::fs::remove_file(self.hole_path(id));
        }
        written
    }

    /// Keeps `meta` (made where the whole log is) as the summary of a log with a hole, which
    /// cannot be summarised here without its middle: stamped with the file as it is now.
    pub fn keep_summary(&self, mut meta: crate::SessionMeta) -> Result<()> {
        let path = self.log_path(&meta.id);
        let file = std::fs::metadata(&path).at(&path)?;
        meta.stamp_file(&file);
        meta.complete_end = meta.size;
        self.store_meta(&meta);
        Ok(())
    }

    /// Fills a session's hole with `bytes`, which must be exactly its length, then removes
    /// the marker: the log is whole again.
    pub fn fill_hole(&self, id: &str, bytes: &[u8]) -> Result<()> {
        let Some(hole) = self.hole(id) else {
            return Ok(());
        };
        let path = self.log_path(id);
        if hole.to.saturating_sub(hole.from) != bytes.len() as u64 {
            return Err(LogError::NotALog {
                path,
                reason: format!(
                    "{} bytes do not fill the hole of bytes {}..{}",
                    bytes.len(),
                    hole.from,
                    hole.to
                ),
            });
        }
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .at(&path)?;
        file.seek(SeekFrom::Start(hole.from)).at(&path)?;
        file.write_all(bytes).at(&path)?;
        file.sync_all().at(&path)?;
        fsutil::remove_file_if_exists(&self.hole_path(id))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Body, SessionStart};

    /// A session of 21 records in `store`: its id and its log's bytes.
    fn made(store: &Store) -> (String, Vec<u8>) {
        let mut writer = store
            .create(SessionStart::new("/p"), 1, vec![])
            .expect("created");
        for i in 0..20 {
            writer
                .append(Body::user_text(format!("message {i}")))
                .expect("appended");
        }
        let id = writer.id().to_owned();
        drop(writer);
        let bytes = std::fs::read(store.log_path(&id)).expect("a log");
        (id, bytes)
    }

    fn line_ends(bytes: &[u8]) -> Vec<usize> {
        bytes
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .map(|(i, _)| i + 1)
            .collect()
    }

    /// A session made in `source`, copied into `store` with a hole from its first line's end
    /// to the end of its tenth line. Bind `_dirs` to keep both homes while the test runs.
    struct Holed {
        _dirs: [tempfile::TempDir; 2],
        source: Store,
        store: Store,
        id: String,
        bytes: Vec<u8>,
        first_end: usize,
        at: usize,
    }

    fn holed() -> Holed {
        let dirs = [0, 1].map(|_| tempfile::tempdir().expect("a dir"));
        let source = Store::new(dirs[1].path());
        let (id, bytes) = made(&source);
        let ends = line_ends(&bytes);
        let (first_end, at) = (ends[0], ends[10]);
        let store = Store::new(dirs[0].path());
        store
            .create_with_hole(&id, &bytes[..first_end], at as u64, &bytes[at..], "team")
            .expect("created");
        Holed {
            _dirs: dirs,
            source,
            store,
            id,
            bytes,
            first_end,
            at,
        }
    }

    #[test]
    fn a_hole_is_refused_without_a_filler_and_filled_with_one() {
        let Holed {
            _dirs,
            store,
            id,
            bytes,
            first_end,
            at,
            ..
        } = holed();
        assert_eq!(store.log_size(&id).expect("a size"), bytes.len() as u64);
        // The end and the first line read; the middle does not.
        assert!(store.read_after(&id, at as u64).is_ok());
        assert_eq!(store.read_start(&id).expect("a start").id, id);
        match store.read(&id) {
            Err(LogError::Hole { hole, .. }) => {
                assert_eq!((hole.from, hole.to), (first_end as u64, at as u64));
            }
            other => panic!("read through a hole: {other:?}"),
        }
        let middle = bytes[first_end..at].to_vec();
        let filler: Filler = Arc::new(move |store: &Store, id: &str| {
            store.fill_hole(id, &middle).map_err(|e| e.to_string())
        });
        let store = store.with_filler(filler);
        let log = store.read(&id).expect("filled, then read");
        assert_eq!(log.records.len(), 21);
        assert!(store.hole(&id).is_none());
        assert_eq!(std::fs::read(store.log_path(&id)).expect("a log"), bytes);
    }

    /// Lines from elsewhere appended to a log with a hole keep its summary current: no
    /// reader needs to rebuild it, which would read the hole.
    #[test]
    fn lines_appended_from_elsewhere_keep_the_summary_without_the_hole() {
        let Holed {
            _dirs,
            source,
            store,
            id,
            bytes,
            ..
        } = holed();
        store
            .keep_summary(source.meta(&id).expect("a summary"))
            .expect("kept");
        let mut writer = source.writer(&id).expect("writable");
        writer
            .append(Body::user_text("from elsewhere"))
            .expect("appended");
        drop(writer);
        let grown = std::fs::read(source.log_path(&id)).expect("a log");
        let mut writer = store.writer(&id).expect("writable");
        writer
            .append_encoded(&grown[bytes.len()..])
            .expect("appended");
        drop(writer);
        let meta = store
            .meta(&id)
            .expect("fresh, not rebuilt through the hole");
        assert_eq!(meta.last_seq, source.meta(&id).expect("a summary").last_seq);
        assert!(store.hole(&id).is_some());
    }

    #[test]
    fn a_fill_of_the_wrong_length_is_refused() {
        let Holed {
            _dirs, store, id, ..
        } = holed();
        assert!(store.fill_hole(&id, b"short\n").is_err());
        assert!(store.hole(&id).is_some());
    }
}
