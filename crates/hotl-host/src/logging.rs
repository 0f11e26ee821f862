//! hotl's own log: what the best-effort paths met (a cache not written, a snapshot git could
//! not take, a request retried, an index rebuilt), in `<home>/logs/hotl.log`. The file is
//! private (0600, its directory 0700), made only when something is logged, and capped: past
//! [`CAP`] bytes it moves to `hotl.log.1` (replacing the one before) and a new one starts. The
//! level comes from `HOTL_LOG` (`error`, `warn`, `info`, `debug`, `trace`; `warn` when unset).
//! Below `trace`, nothing logs a header value, a key or the text of a message.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use tracing::level_filters::LevelFilter;
use tracing_subscriber::fmt::MakeWriter;

/// The most bytes the log holds before it moves aside.
pub const CAP: u64 = 8 * 1024 * 1024;

/// Starts logging to `home`'s log at the level `level` names (`HOTL_LOG`'s value). Returns a
/// warning for the user when the level is not one of the five.
pub fn init(home: &Path, level: Option<&str>) -> Option<String> {
    let (filter, warning) = match level.map(str::trim) {
        None | Some("") => (LevelFilter::WARN, None),
        Some(name) => match name.to_ascii_lowercase().as_str() {
            "error" => (LevelFilter::ERROR, None),
            "warn" => (LevelFilter::WARN, None),
            "info" => (LevelFilter::INFO, None),
            "debug" => (LevelFilter::DEBUG, None),
            "trace" => (LevelFilter::TRACE, None),
            "off" => (LevelFilter::OFF, None),
            _ => (
                LevelFilter::WARN,
                Some(format!(
                    "HOTL_LOG={name:?} is not a level (error, warn, info, debug, trace); logging \
                     warnings"
                )),
            ),
        },
    };
    let file = LogFile::new(home.join("logs").join("hotl.log"));
    // A second call (tests run commands in one process) keeps the first subscriber.
    let _ = tracing_subscriber::fmt()
        .with_max_level(filter)
        .with_ansi(false)
        .with_writer(file)
        .try_init();
    warning
}

/// The log file, opened when first written.
struct LogFile {
    path: PathBuf,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    file: Option<File>,
    /// Bytes in the file now.
    size: u64,
    /// Opening it failed (a read-only home): logging is off, silently.
    failed: bool,
}

impl LogFile {
    fn new(path: PathBuf) -> LogFile {
        LogFile {
            path,
            state: Mutex::default(),
        }
    }

    fn open(&self) -> io::Result<File> {
        if let Some(dir) = self.path.parent() {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)?;
        }
        OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(&self.path)
    }

    /// Writes one formatted line; a log that cannot be written loses the line, nothing else.
    fn write_line(&self, line: &[u8]) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if state.failed {
            return;
        }
        if state.file.is_none() || state.size + line.len() as u64 > CAP {
            if state.file.take().is_some() || self.size_on_disk() + line.len() as u64 > CAP {
                // Best effort: the older lines go to `.1`, replacing the ones before them.
                let _ = std::fs::rename(&self.path, self.path.with_extension("log.1"));
            }
            match self.open() {
                Ok(file) => {
                    state.size = file.metadata().map_or(0, |m| m.len());
                    state.file = Some(file);
                }
                Err(_) => {
                    state.failed = true;
                    return;
                }
            }
        }
        if let Some(file) = state.file.as_mut()
            && file.write_all(line).is_ok()
        {
            state.size += line.len() as u64;
        }
    }

    fn size_on_disk(&self) -> u64 {
        std::fs::metadata(&self.path).map_or(0, |m| m.len())
    }
}

/// What the formatter writes one event through.
struct LineWriter<'a>(&'a LogFile);

impl Write for LineWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write_line(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for LogFile {
    type Writer = LineWriter<'a>;

    fn make_writer(&'a self) -> Self::Writer {
        LineWriter(self)
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn the_log_is_private_made_when_written_and_capped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("logs").join("hotl.log");
        let log = LogFile::new(path.clone());
        assert!(!path.exists(), "nothing logged, no file");
        log.write_line(b"first\n");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let dir_mode = std::fs::metadata(path.parent().unwrap())
            .unwrap()
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(dir_mode, 0o700);
        let line = vec![b'x'; 1 << 20];
        for _ in 0..(CAP >> 20) + 1 {
            log.write_line(&line);
        }
        let size = std::fs::metadata(&path).unwrap().len();
        assert!(size <= CAP, "{size}");
        let older = std::fs::read(path.with_extension("log.1")).unwrap();
        assert!(older.starts_with(b"first\n"));
    }

    #[test]
    fn levels_are_named_and_a_bad_one_is_told() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(init(dir.path(), Some("debug")), None);
        let warning = init(dir.path(), Some("loud")).unwrap();
        assert!(
            warning.contains("HOTL_LOG=\"loud\" is not a level"),
            "{warning}"
        );
    }
}
