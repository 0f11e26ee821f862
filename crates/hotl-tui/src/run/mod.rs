//! The UI on a real terminal: raw mode and its restoration (also on panic), the startup probe,
//! the loop that takes keys, pastes, resizes and agent events and draws frames (only when
//! something changed, at most 60 a second), and what the app asks of the host: resolving a
//! session reference, listing sessions, reading a session's transcript.

use std::io::{self, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use hotl_protocol::slash::Foreign;
use hotl_protocol::{Agent, SwitchTo};

use crate::cells::Entry;
use crate::picker;

mod clipboard;
mod editor;
mod event_loop;
mod follow;
mod history;
mod input;
mod metrics;
mod session_ops;
mod terminal;

use self::event_loop::Loop;
use self::terminal::Terminal;

/// What a host gives later: a future the UI's loop polls beside everything else.
pub type Later<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + 'a>>;

/// What the UI needs from the program that runs it: the session store's answers, phrased the
/// way the shell phrases them.
pub trait Host {
    /// A reference (list number, id prefix, name or `@last`) as a session id, or the error the
    /// shell would print.
    fn resolve(&self, query: &str) -> Result<String, String>;
    /// Sessions to resume, newest first; rows of this directory are `near`.
    fn sessions(&self) -> Vec<picker::Row>;
    /// The remote store's sessions, newest first, read away from the UI's loop (one row each,
    /// its value the session's id: resuming it pulls it here), or why they cannot be read;
    /// `None` when no remote store is configured.
    fn remote_sessions(&self) -> Option<Later<'_, Result<Vec<picker::Row>, String>>> {
        None
    }
    /// Sessions whose text (messages, tool outputs, notes, archives) holds `query`, one row
    /// each with its best matching line in the detail, this directory's first; searched away
    /// from the UI's loop. `None` when this host cannot search.
    fn search_sessions(&self, query: &str) -> Option<Later<'_, Result<Vec<picker::Row>, String>>> {
        let _ = query;
        None
    }
    /// A session's transcript.
    fn entries(&self, id: &str) -> Vec<Entry>;
    /// For each of the user messages `seqs` of session `id`, the files the turns from it on
    /// changed, as the working-tree snapshots show (what a revert there puts back). Empty
    /// lists by default.
    fn changed_from(&self, id: &str, seqs: &[u64]) -> Vec<Vec<String>> {
        let _ = id;
        vec![Vec::new(); seqs.len()]
    }
    /// [`Host::entries`], read away from the UI's loop (the pager of a long session): the
    /// loop keeps drawing and taking the agent's events meanwhile.
    fn entries_later(&self, id: &str) -> Later<'_, Vec<Entry>>;
    /// Session `id`'s lineage as a tree: its root and everything forked or delegated from it,
    /// one row each (the label drawn with the tree's branches).
    fn tree(&self, id: &str) -> Vec<picker::Row>;
    /// Searches session `id`'s archive as `/recall` does (no model call), rendered as the
    /// recall tool renders hits, or the error to say.
    fn recall(
        &self,
        id: &str,
        query: &str,
        mode: Option<&str>,
        limit: usize,
    ) -> Result<String, String>;
    /// How long session `id`'s log is (a read-only view follows it as it grows).
    fn log_size(&self, id: &str) -> Option<u64>;
    /// Opens session `id` for writing, once no other process holds it: the agent, or `None`
    /// while it is still held.
    fn open(&self, id: &str) -> Option<Agent>;
    /// Writes session `id` out (`/export [PATH]`): the lines to say, or the error.
    fn export(&self, id: &str, path: Option<&str>) -> Result<Vec<String>, String>;
    /// Shares session `id` (`/share`): the lines to say (the link last), or the error. The
    /// upload runs beside the UI's loop.
    fn share(&self, id: &str) -> Later<'_, Result<Vec<String>, String>>;
    /// `agent`'s sessions of this directory, newest first (`/resume @claude`): one row each,
    /// its value the file; or the line saying there are none and where they were looked for.
    fn foreign_sessions(&self, agent: Foreign) -> Result<Vec<picker::Row>, String>;
    /// Imports `agent`'s session that `query` names (a file, an id or its prefix) as a new
    /// session, or finds the one an earlier import of the unchanged file became: the switch
    /// to it and the lines to say (what was skipped), or the error.
    fn import_foreign(
        &self,
        agent: Foreign,
        query: &str,
    ) -> Result<(SwitchTo, Vec<String>), String>;
    /// Session `id`'s name, when it has one (what the goodbye tells to resume it by).
    fn session_name(&self, id: &str) -> Option<String>;
    /// Session `id`'s recorded working directory.
    fn session_dir(&self, id: &str) -> Option<String>;
    /// The directory hotl was started in.
    fn here(&self) -> String;
    /// `path` as the user reads it (the home as `~`).
    fn display_path(&self, path: &str) -> String;
    /// The front end is on session `id` now: remembered as this terminal's last session.
    fn switched_to(&self, id: &str);
}

/// Puts `text` on the clipboard through the terminal (OSC 52: works through tmux and ssh),
/// when stdout is one: the line console's copy.
pub fn copy_to_terminal(text: &str) {
    use base64::Engine as _;
    use std::io::IsTerminal;
    let mut out = io::stdout();
    if out.is_terminal() {
        let encoded = base64::engine::general_purpose::STANDARD.encode(text);
        let _ = write!(out, "\x1b]52;c;{encoded}\x07");
        let _ = out.flush();
    }
}

/// How the UI starts.
pub struct Options {
    /// Where the composer's history is kept (none: in memory only).
    pub history: Option<PathBuf>,
    /// `HOTL_TUI_METRICS`: a JSON line per frame goes here.
    pub metrics: Option<PathBuf>,
    /// How long the provider keeps the prompt cache.
    pub ttl: Duration,
    /// The context percentage at which a turn compacts.
    pub compact_at: u64,
    /// A first message to send.
    pub first: Option<String>,
    /// The session is on disk: what to show of it. A turn a dead process left open is
    /// finished.
    pub resumed: Option<Resumed>,
    /// Another process owns the session: show it read-only.
    pub read_only: Option<ReadOnly>,
    /// Open the resume picker first (`hotl -r` without a reference).
    pub pick: bool,
    /// The transcript in the alternate screen, with the mouse (`--fullscreen`).
    pub fullscreen: bool,
    /// When the program started, for the first-paint metric.
    pub started: Instant,
    /// How long the program took to open the session (start to open), for the metrics.
    pub opened: Option<Duration>,
    /// The session lives in memory only (`--no-session`): leaving says nothing was saved.
    pub ephemeral: bool,
    /// Draw without colours (`NO_COLOR`): bold, dim and reverse still mark what they mark.
    pub monochrome: bool,
    /// Notified once the first frame is on the screen (what waits for it, MCP servers, starts
    /// then).
    pub first_frame: Option<std::sync::Arc<tokio::sync::Notify>>,
    /// Notified when the process is told to end (SIGTERM): the UI leaves as when the user
    /// leaves (the turn and its children stopped and recorded, the terminal restored).
    pub terminated: Option<std::sync::Arc<tokio::sync::Notify>>,
}

impl Default for Options {
    /// A new session in memory terms: no history file, no metrics, no cache lifetime known,
    /// started now.
    fn default() -> Options {
        Options {
            history: None,
            metrics: None,
            ttl: Duration::ZERO,
            compact_at: hotl_protocol::COMPACT_AT_PERCENT,
            first: None,
            resumed: None,
            read_only: None,
            pick: false,
            fullscreen: false,
            started: Instant::now(),
            opened: None,
            ephemeral: false,
            monochrome: false,
            first_frame: None,
            terminated: None,
        }
    }
}

/// A session on disk, as the UI starts on it.
#[derive(Clone, Debug)]
pub struct Resumed {
    /// Its id.
    pub id: String,
    /// The end of its transcript, for the scrollback.
    pub tail: Vec<Entry>,
    /// How many items come before the tail (the pager reads them when it opens).
    pub hidden: usize,
}

/// A session another process owns, shown read-only.
#[derive(Clone, Debug)]
pub struct ReadOnly {
    /// Why (which process owns it), for the banner.
    pub why: String,
    /// How many transcript entries the log held when it was read: the view follows what
    /// comes after them.
    pub entries: usize,
}

/// How the UI ended.
#[derive(Debug)]
pub struct Ended {
    /// The session shown last.
    pub session: String,
    /// Whether it is on disk.
    pub saved: bool,
}

/// Runs the UI until the user leaves. `agent` is `None` for a read-only snapshot.
pub async fn run(agent: Option<Agent>, host: &dyn Host, options: Options) -> io::Result<Ended> {
    crate::ui::set_monochrome(options.monochrome);
    let terminal = Terminal::enter()?;
    let result = match Loop::new(agent, host, &options, &terminal) {
        Ok(ui) => ui.run(&terminal.typed).await,
        Err(e) => Err(e),
    };
    drop(terminal);
    result
}
