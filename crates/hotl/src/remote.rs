//! The remote store as the binary wires it: `[remote]` read from the config, the key, the
//! share's redaction, and a remote session found, pulled and opened wherever a reference
//! names one. Credentials come from the provider's environment, never from hotl.

use std::path::PathBuf;
use std::sync::Arc;

use hotl_remote::{Bucket, Keys, Remote, RemoteConfig};

use crate::ctx::Ctx;
use crate::error::CliError;

/// The variables that hold the remote's key and cloud credentials: kept from tools, hooks
/// and MCP servers when a remote is configured.
pub const SECRET_VARS: &[&str] = &[
    "HOTL_REMOTE_KEY",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AZURE_STORAGE_ACCOUNT_KEY",
    "AZURE_STORAGE_SAS_KEY",
    "AZURE_CLIENT_SECRET",
    "GOOGLE_SERVICE_ACCOUNT_KEY",
];

/// The configured remote, if any.
pub fn configured() -> Result<Option<RemoteConfig>, CliError> {
    Ok(crate::config::load_file()?.remote)
}

/// A `~/` in a configured path, expanded.
fn expand(path: &std::path::Path) -> PathBuf {
    match (path.strip_prefix("~"), std::env::var_os("HOME")) {
        (Ok(rest), Some(home)) => PathBuf::from(home).join(rest),
        _ => path.to_owned(),
    }
}

/// Opens the configured remote for `ctx`'s home; `None` when none is configured (or the home
/// is in memory: `--no-session` publishes nothing).
pub fn open(ctx: &Ctx) -> Result<Option<Arc<Remote>>, CliError> {
    if ctx.is_in_memory() {
        return Ok(None);
    }
    let Some(mut cfg) = configured()? else {
        return Ok(None);
    };
    cfg.key_file = cfg.key_file.as_deref().map(expand);
    let keys = if cfg.encrypt {
        let env = std::env::var("HOTL_REMOTE_KEY").ok();
        Some(Keys::load(env.as_deref(), cfg.key_file.as_deref())?)
    } else {
        None
    };
    let bucket = Bucket::open(&cfg, keys)?;
    let share = crate::config::load_file()?.share;
    let redactor = cfg.redact.then(|| crate::takeout::redactor(&share));
    Ok(Some(Arc::new(Remote::new(
        bucket,
        cfg,
        redactor,
        ctx.store.clone(),
    ))))
}

/// The configured remote, or an error saying how to configure one.
pub fn required(ctx: &Ctx) -> Result<Arc<Remote>, CliError> {
    open(ctx)?.ok_or_else(|| {
        CliError::user("no remote store is configured")
            .hint("`hotl remote add NAME s3://bucket/prefix` sets one in config.toml ([remote])")
    })
}

/// Runs the future `make` makes to its end on a runtime of its own, on a thread of its own:
/// callable from synchronous code and from inside another runtime alike.
pub fn block_on<T: Send, F: Future<Output = T>>(
    make: impl FnOnce() -> F + Send,
) -> Result<T, CliError> {
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map(|rt| rt.block_on(make()))
            })
            .join()
    })
    .map_err(|_| CliError::Internal("the remote store's work panicked".to_owned()))?
    .map_err(|e| CliError::Internal(format!("cannot start a runtime: {e}")))
}

/// A reference no local session matches, looked up in the remote store: the tree holding it
/// is pulled (with what it descends from) and the session's local summary returned. `None`
/// when no remote is configured or it holds no match.
pub fn find(ctx: &Ctx, query: &str) -> Result<Option<hotl_log::SessionMeta>, CliError> {
    if query.is_empty() || query.chars().all(|c| c.is_ascii_digit()) {
        // List numbers count in local listings only.
        return Ok(None);
    }
    let Some(remote) = open(ctx)? else {
        return Ok(None);
    };
    let found = block_on(|| async {
        let (root, id) = match remote.find(query).await {
            Ok(found) => found,
            Err(hotl_remote::RemoteError::NoMatch(_)) => return Ok(None),
            Err(e) => return Err(e),
        };
        let pulled = remote.pull(&root).await?;
        Ok(Some((id, pulled)))
    })??;
    let Some((id, pulled)) = found else {
        return Ok(None);
    };
    for problem in &pulled.problems {
        eprintln!("hotl: warning: {problem}");
    }
    ctx.note_pulled(&id);
    if !pulled.sessions.is_empty() {
        eprintln!(
            "hotl: pulled {} from {} ({} segments, {} blobs)",
            short(&id),
            remote.config().label(),
            pulled.segments,
            pulled.blobs
        );
    }
    Ok(Some(ctx.store.meta(&id)?))
}

fn short(id: &str) -> &str {
    id.get(..8).unwrap_or(id)
}

/// The background publisher of a run, on the run's runtime, when a remote is configured.
pub fn follower(ctx: &Ctx) -> Result<Option<hotl_remote::Follower>, CliError> {
    Ok(open(ctx)?.map(hotl_remote::Follower::start))
}

/// How long leaving waits for the last publish and the lease's release.
pub const LEAVE_BOUND: std::time::Duration = std::time::Duration::from_secs(15);

/// Takes `root`'s lease (after catching up) before a run writes the tree; `Held` becomes the
/// error a tree locked here is, so the console shows a read-only snapshot and `-p` exits 1.
/// Called from the run's runtime (multi-threaded).
pub fn adopt(follower: &hotl_remote::Follower, root: &str) -> Result<(), CliError> {
    let handle = tokio::runtime::Handle::current();
    let adopted = tokio::task::block_in_place(|| handle.block_on(follower.adopt(root)))?;
    if let Some(why) = adopted {
        eprintln!("hotl: warning: {why}");
    }
    Ok(())
}

/// The agent's publisher: the run's [`hotl_remote::Follower`].
#[derive(Debug)]
pub struct Publishing(pub hotl_remote::Follower);

impl hotl_agent::Publisher for Publishing {
    fn written(&self, root: &str) {
        self.0.written(root);
    }

    fn adopt(&self, root: &str) -> hotl_agent::PublishFuture<Result<(), String>> {
        let (follower, root) = (self.0.clone(), root.to_owned());
        Box::pin(async move {
            match follower.adopt(&root).await {
                Ok(None) => Ok(()),
                Ok(Some(why)) => {
                    tracing::warn!(root, "{why}");
                    Ok(())
                }
                Err(e) => Err(e.to_string()),
            }
        })
    }

    fn leave(&self, root: &str) -> hotl_agent::PublishFuture<()> {
        let (follower, root) = (self.0.clone(), root.to_owned());
        Box::pin(async move { follower.leave(&root, LEAVE_BOUND).await })
    }

    fn fenced(&self, root: &str) -> Option<String> {
        self.0.fenced(root)
    }
}
