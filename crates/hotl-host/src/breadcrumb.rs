//! Breadcrumbs: the session each terminal last used, so `hotl -c` in two terminals of one
//! project continues each one's own work rather than whichever session was written last. A
//! terminal is known by its device (`ttyname` of stdin, else of stderr); its breadcrumb is one
//! file under `<home>/breadcrumbs/` (0600) holding a session id. A breadcrumb that is damaged,
//! names no session, or names a dropped one is ignored.

use std::fs;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use hotl_log::{SessionMeta, Store};

/// The controlling terminal's device path (`/dev/pts/3`), from stdin or else stderr; `None`
/// without one.
pub fn terminal() -> Option<PathBuf> {
    // `/dev/tty` names whichever terminal opened it, not one in particular.
    let device = |fd: u8| {
        fs::read_link(format!("/proc/self/fd/{fd}"))
            .ok()
            .filter(|p| p != Path::new("/dev/tty"))
    };
    if std::io::stdin().is_terminal()
        && let Some(path) = device(0)
    {
        return Some(path);
    }
    if std::io::stderr().is_terminal() {
        return device(2);
    }
    None
}

/// The breadcrumb file of `terminal` in `store`'s home.
fn file(store: &Store, terminal: &Path) -> PathBuf {
    let name: String = terminal
        .to_string_lossy()
        .trim_start_matches('/')
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    store.home().join("breadcrumbs").join(name)
}

/// Remembers that this terminal used session `id` (nothing without a terminal). Losing a
/// breadcrumb costs only a worse guess later, so a failure is logged, not raised.
pub fn remember(store: &Store, id: &str) {
    let Some(terminal) = terminal() else {
        return;
    };
    let path = file(store, &terminal);
    if let Err(e) = write_private(&path, id) {
        tracing::warn!("cannot leave a breadcrumb in {}: {e}", path.display());
    }
}

fn write_private(path: &Path, id: &str) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    if let Some(dir) = path.parent() {
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
    }
    // Written whole to a temporary name and renamed: a reader never sees half an id.
    let tmp = path.with_extension("tmp");
    let mut out = fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&tmp)?;
    writeln!(out, "{id}")?;
    drop(out);
    fs::rename(&tmp, path)
}

/// The session this terminal last used, as its root (a delegated child's breadcrumb leads to
/// the session that delegated it); `None` without a terminal or a usable breadcrumb.
pub fn recall(store: &Store) -> Option<SessionMeta> {
    let path = file(store, &terminal()?);
    let text = fs::read_to_string(&path).ok()?;
    let id = text.trim();
    if !hotl_log::is_session_id(id) || !store.exists(id) {
        return None;
    }
    let meta = store.meta(&store.root_of(id)).ok()?;
    (!meta.dropped).then_some(meta)
}
