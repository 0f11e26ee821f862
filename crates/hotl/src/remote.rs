//! The remote store as the binary wires it: `[remote]` read from the config, the key, the
//! share's redaction, and a remote session found, pulled and opened wherever a reference
//! names one. Credentials come from the provider's environment, never from hotl.

use std::sync::Arc;

use hotl_remote::Remote;

use crate::ctx::Ctx;
use crate::error::CliError;

/// Opens the configured remote for `ctx`'s home; `None` when none is configured (or the home
/// is in memory: `--no-session` publishes nothing).
pub fn open(ctx: &Ctx) -> Result<Option<Arc<Remote>>, CliError> {
    if ctx.is_in_memory() {
        return Ok(None);
    }
    Ok(hotl_config::open_remote(&hotl_config::load_file()?, &ctx.store)?.map(Arc::new))
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
