//! Lines already encoded, moving between this home and a copy of it elsewhere: a log's raw
//! bytes read out by range, whole lines from a copy appended to a log, a delegated session's
//! log adopted into a tree. Every write holds the tree lock, as any other does.

use std::io::{Read, Seek, SeekFrom, Write};
use std::sync::Arc;

use crate::error::{IoResultExt, LogError, Result};
use crate::fsutil;
use crate::record::Record;
use crate::store::{Store, is_session_id, seq_of};
use crate::write::Writer;

impl Store {
    /// The raw bytes of a session's log from byte `from` to `to` (or its end, when shorter).
    pub fn raw_range(&self, id: &str, from: u64, to: u64) -> Result<Vec<u8>> {
        self.need(id, from..to)?;
        let path = self.log_path(id);
        let mut file = std::fs::File::open(&path).map_err(|e| LogError::opening(id, &path, e))?;
        file.seek(SeekFrom::Start(from)).at(&path)?;
        let mut out = Vec::with_capacity(to.saturating_sub(from).min(1 << 26) as usize);
        file.take(to.saturating_sub(from))
            .read_to_end(&mut out)
            .at(&path)?;
        Ok(out)
    }
}

impl Writer {
    /// Appends whole lines written elsewhere (a copy of this session published by another
    /// machine), byte for byte, in one write and one sync. Every line must end in `\n`, and
    /// every seq they hold must come after the ones this log spent, so no seq repeats; lines
    /// that hold none (damaged ones, kept as they were) are allowed. The summary is kept
    /// current from the records, as an append keeps it; a line that is not one (or a revert)
    /// leaves it to the next reader to rebuild, which reads the whole lineage.
    pub fn append_encoded(&mut self, lines: &[u8]) -> Result<()> {
        if lines.is_empty() {
            return Ok(());
        }
        if lines.last() != Some(&b'\n') {
            return Err(self.refused("the lines do not end with a newline".to_owned()));
        }
        let mut last = None;
        for line in lines.split_inclusive(|&b| b == b'\n') {
            if let Some(seq) = seq_of(line) {
                if seq < self.next_seq() || last.is_some_and(|l| seq <= l) {
                    return Err(self.refused(format!(
                        "seq {seq} does not come after the log's (next is {})",
                        self.next_seq()
                    )));
                }
                last = Some(seq);
            }
        }
        self.end_torn()?;
        let records: Option<Vec<Record>> = lines
            .split_inclusive(|&b| b == b'\n')
            .map(|line| serde_json::from_slice::<Record>(line).ok())
            .collect();
        if records.is_none() {
            self.forget_summary();
        }
        if let Some(last) = last {
            self.spend_through(last);
        }
        let (file, _) = self.file_and_path();
        if let Err(e) = file.write_all(lines).and_then(|()| file.sync_data()) {
            self.forget_summary();
            let path = self.store().log_path(self.id());
            return Err(e).at(&path);
        }
        if let Some(records) = records {
            self.update_meta(&records, lines.len() as u64);
        }
        Ok(())
    }

    /// Adopts a session delegated inside this writer's tree whose log was written elsewhere:
    /// `bytes` become its log, atomically and complete. Refuses an id that is not a session
    /// id or that exists.
    pub fn adopt_delegated(&self, id: &str, bytes: &[u8]) -> Result<()> {
        let store = self.store();
        if !is_session_id(id) || store.exists(id) {
            return Err(LogError::Exists {
                what: format!("session {id}"),
            });
        }
        fsutil::create_private_dir(&store.tree_dir(self.root()))?;
        store.note_child(id, self.root());
        fsutil::write_atomic(&store.log_path(id), bytes)
    }

    /// Opens `id`, a session of this writer's tree, under its lock: as
    /// [`Writer::open_delegated`], for the root too.
    pub fn open_in_tree(&self, id: &str) -> Result<Writer> {
        if id == self.root() {
            return self.store().open_under(id, Arc::clone(self.tree_lock()));
        }
        self.open_delegated(id)
    }

    fn refused(&self, reason: String) -> LogError {
        LogError::NotALog {
            path: self.store().log_path(self.id()),
            reason,
        }
    }
}
