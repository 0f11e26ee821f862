//! What every command needs from the environment: the store, the working directory, the clock
//! and standard output. Libraries get these as arguments; only this file reads the env.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use hotl_log::{Clock, SessionMeta, Store, parse_ts};

use crate::error::CliError;

/// The command context.
pub struct Ctx {
    pub store: Store,
    pub cwd: String,
    pub home_dir: Option<PathBuf>,
    /// `--all`: every project's sessions, for listings and list numbers.
    pub all: bool,
    /// `--no-session`: the home is this, in memory, gone when the command ends.
    memory: Option<crate::memory_home::MemoryHome>,
    /// Sessions this command pulled from the remote store (they open here, re-rooted).
    pulled: std::sync::Mutex<Vec<String>>,
    /// This command's background publisher, while it runs one (see `remote::following`).
    follower: std::sync::OnceLock<hotl_remote::Follower>,
    /// The remote store once opened (`None` inside: none is configured): one HTTP client and
    /// one check of the store per process, whoever asks.
    pub(crate) remote: std::sync::OnceLock<Option<std::sync::Arc<hotl_remote::Remote>>>,
}

impl Ctx {
    /// Resolves the home (`--home`, `$HOTL_HOME`, `$XDG_DATA_HOME/hotl`, `~/.local/share/hotl`)
    /// and the clock (`$HOTL_NOW`, an RFC 3339 instant, pins it for reproducible runs), and
    /// starts the log at the level `$HOTL_LOG` names.
    /// With `in_memory` (`--no-session`), the home is a private directory in memory instead,
    /// removed when the context is dropped: nothing reaches the user's.
    pub fn new(home: Option<PathBuf>, all: bool, in_memory: bool) -> Result<Ctx, CliError> {
        let env = |k: &str| {
            std::env::var_os(k)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        let home_dir = env("HOME");
        let memory = if in_memory {
            Some(crate::memory_home::MemoryHome::new()?)
        } else {
            None
        };
        let home = memory
            .as_ref()
            .map(|m| m.path().to_path_buf())
            .or(home)
            .or_else(|| env("HOTL_HOME"))
            .or_else(|| env("XDG_DATA_HOME").map(|d| d.join("hotl")))
            .or_else(|| home_dir.as_ref().map(|h| h.join(".local/share/hotl")))
            .ok_or_else(|| CliError::user("cannot find a home: set HOTL_HOME or pass --home"))?;
        if let Some(warning) =
            crate::logging::init(&home, std::env::var("HOTL_LOG").ok().as_deref())
        {
            eprintln!("hotl: {warning}");
        }
        let clock = match std::env::var("HOTL_NOW") {
            Ok(s) if !s.is_empty() => Clock::Fixed(
                parse_ts(&s).ok_or_else(|| CliError::user(format!("bad HOTL_NOW {s:?}")))?,
            ),
            _ => Clock::System,
        };
        let cwd = std::env::current_dir()
            .and_then(|d| d.canonicalize())
            .map(|d| d.to_string_lossy().into_owned())
            .unwrap_or_default();
        let store = Store::new(home)
            .with_clock(clock)
            .with_filler(crate::remote::filler());
        let tightened = store.tighten();
        if !tightened.is_empty() {
            let listed: Vec<String> = tightened
                .iter()
                .map(|(path, mode)| format!("{} (was {mode:o})", path.display()))
                .collect();
            eprintln!(
                "hotl: made private what others could read: {}",
                listed.join(", ")
            );
        }
        Ok(Ctx {
            store,
            cwd,
            home_dir,
            all,
            memory,
            pulled: std::sync::Mutex::default(),
            follower: std::sync::OnceLock::new(),
            remote: std::sync::OnceLock::new(),
        })
    }

    /// This command's background publisher, when it runs one.
    pub fn follower(&self) -> Option<&hotl_remote::Follower> {
        self.follower.get()
    }

    /// Makes `follower` this command's publisher (once).
    pub(crate) fn set_follower(&self, follower: hotl_remote::Follower) {
        let _ = self.follower.set(follower);
    }

    /// Notes that this command pulled `id` from the remote store.
    pub fn note_pulled(&self, id: &str) {
        self.pulled
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(id.to_owned());
    }

    /// Whether this command pulled `id` from the remote store.
    pub fn was_pulled(&self, id: &str) -> bool {
        self.pulled
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .any(|p| p == id)
    }

    /// Whether the home is in memory (`--no-session`).
    pub fn is_in_memory(&self) -> bool {
        self.memory.is_some()
    }

    /// The current instant.
    pub fn now(&self) -> SystemTime {
        self.store.clock().now()
    }

    /// Standard output, buffered, with control characters shown rather than sent: what is
    /// printed comes from logs, which may hold anything (see [`hotl_text::Plain`]).
    pub fn out(&self) -> io::BufWriter<hotl_text::Plain<io::StdoutLock<'static>>> {
        io::BufWriter::new(hotl_text::Plain::new(io::stdout().lock()))
    }

    /// Resolves a session reference against every session (numbers count in this directory's
    /// listing, or in every project's with `--all`).
    pub fn resolve(&self, query: &str) -> Result<SessionMeta, CliError> {
        self.find(query)?.ok_or_else(|| {
            hotl_log::LogError::NoSuchSession {
                query: query.to_owned(),
            }
            .into()
        })
    }

    /// [`Ctx::resolve`] for a command that changes a session or sends it away (`command`, as
    /// typed after `hotl`): without a terminal a list number is refused, since numbers shift
    /// as sessions start and a script's `2` may name another session by the time it runs;
    /// an id prefix, a name or `@last` is taken as meant.
    pub fn resolve_to_change(&self, query: &str, command: &str) -> Result<SessionMeta, CliError> {
        let meta = self.resolve(query)?;
        let by_number =
            !query.starts_with('0') && query.len() < 6 && query.parse::<usize>().is_ok();
        if by_number && !std::io::IsTerminal::is_terminal(&std::io::stdin()) {
            return Err(CliError::user(format!(
                "`{command} {query}` names a session by its list number, which shifts as \
                 sessions start; without a terminal it is refused"
            ))
            .hint(format!("name it by id: hotl {command} {}", meta.id)));
        }
        Ok(meta)
    }

    /// [`Ctx::resolve`], with `None` when nothing matches (an ambiguous reference is still an
    /// error: it names candidates).
    pub fn find(&self, query: &str) -> Result<Option<SessionMeta>, CliError> {
        let metas = self.store.list()?;
        let scope = (!self.all).then_some(self.cwd.as_str());
        match hotl_log::resolve(&metas, scope, query) {
            Ok(meta) => Ok(Some(meta.clone())),
            Err(hotl_log::LogError::NoSuchSession { .. }) => match self.find_delegated(query)? {
                Some(meta) => Ok(Some(meta)),
                // Not here: the remote store, when one is configured.
                None => crate::remote::find(self, query),
            },
            Err(e) => Err(e.into()),
        }
    }

    /// A session delegated inside some root's tree, by id prefix: listings show them under
    /// their roots, and numbers, names and `@last` address roots only.
    fn find_delegated(&self, query: &str) -> Result<Option<SessionMeta>, CliError> {
        let upper = query.to_ascii_uppercase();
        if upper.is_empty() || !upper.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return Ok(None);
        }
        let hits: Vec<String> = self
            .store
            .all_tree_children()?
            .into_iter()
            .map(|(id, _)| id)
            .filter(|id| id.starts_with(&upper))
            .collect();
        match hits.as_slice() {
            [] => Ok(None),
            [id] => Ok(Some(self.store.meta(id)?)),
            _ => Err(hotl_log::LogError::Ambiguous {
                query: query.to_owned(),
                candidates: hits,
            }
            .into()),
        }
    }

    /// `path` with the user's home shown as `~`.
    pub fn tilde(&self, path: &str) -> String {
        match &self.home_dir {
            Some(home) => match Path::new(path).strip_prefix(home) {
                Ok(rest) if rest.as_os_str().is_empty() => "~".to_owned(),
                Ok(rest) => format!("~/{}", rest.display()),
                Err(_) => path.to_owned(),
            },
            None => path.to_owned(),
        }
    }
}

/// Writes with `?` and turns a closed pipe into a quiet exit.
pub fn flush(mut out: impl Write) -> Result<(), CliError> {
    out.flush().map_err(CliError::from)
}

/// The runtime a command runs its async work on: two workers, since the work is mostly
/// waiting on the provider and on child processes.
pub fn runtime() -> Result<tokio::runtime::Runtime, CliError> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| CliError::Internal(format!("cannot start the runtime: {e}")))
}
