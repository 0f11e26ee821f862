//! The remote store as the binary wires it: opened from `[remote]`, a remote session found,
//! pulled and opened wherever a reference names one, a tree's lease taken before a run writes
//! it, and the remote commands' reports printed. Credentials come from the provider's
//! environment, never from hotl.

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use hotl_remote::report::{Report, Shown};
use hotl_remote::{Remote, RemoteError};

use crate::ctx::{Ctx, flush};
use crate::error::CliError;

/// Opens the configured remote for `ctx`'s home, once per command (finding a session and
/// publishing it share one client); `None` when none is configured (or the home is in memory:
/// `--no-session` publishes nothing).
pub fn open(ctx: &Ctx) -> Result<Option<Arc<Remote>>, CliError> {
    if ctx.is_in_memory() {
        return Ok(None);
    }
    if let Some(opened) = ctx.remote.get() {
        return Ok(opened.clone());
    }
    let opened = hotl_config::open_remote(&hotl_config::load_file()?, &ctx.store)?.map(Arc::new);
    Ok(ctx.remote.get_or_init(|| opened).clone())
}

/// Runs `work` on the configured remote (an error says how to configure one) and prints what
/// it reports: its JSON with `json`, else its text, its warnings on stderr. Exit status 1 when
/// it did not do all it was asked.
pub fn report<R, F>(
    ctx: &Ctx,
    json: bool,
    work: impl FnOnce(Arc<Remote>) -> F + Send,
) -> Result<ExitCode, CliError>
where
    R: Report + Send,
    F: Future<Output = Result<R, RemoteError>> + Send,
{
    let remote = open(ctx)?.ok_or_else(|| {
        CliError::user("no remote store is configured")
            .hint("`hotl remote add NAME s3://bucket/prefix` sets one in config.toml ([remote])")
    })?;
    let report = block_on(|| work(remote))??;
    let mut out = ctx.out();
    if json {
        serde_json::to_writer_pretty(&mut out, &report)?;
        writeln!(out)?;
    } else {
        let shown = Shown {
            now: ctx.now(),
            home: ctx.home_dir.clone(),
        };
        write!(out, "{}", report.text(&shown))?;
    }
    flush(out)?;
    for warning in report.warnings() {
        eprintln!("hotl: {warning}");
    }
    Ok(if report.ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
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

/// What fills a log's hole ([`hotl_log::Hole`]) from the configured remote store: the
/// configuration is read when a hole is first read, so commands that read none pay nothing.
pub fn filler() -> hotl_log::Filler {
    Arc::new(|store: &hotl_log::Store, id: &str| {
        let file = hotl_config::load_file().map_err(|e| e.to_string())?;
        let remote = hotl_config::open_remote(&file, store)
            .map_err(|e| e.to_string())?
            .ok_or("no remote store is configured ([remote] in config.toml)")?;
        tracing::info!(
            session = id,
            "fetching the archived part of a log from the store"
        );
        let pulled = block_on(|| remote.fill(id))
            .map_err(|e| e.to_string())?
            .map_err(|e| e.to_string())?;
        tracing::info!(
            session = id,
            segments = pulled.segments,
            bytes = pulled.bytes,
            "the archived part of a log is fetched"
        );
        Ok(())
    })
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
    let Some((id, pulled)) = block_on(|| remote.find_and_pull(query))?? else {
        return Ok(None);
    };
    for problem in &pulled.problems {
        eprintln!("hotl: warning: {problem}");
    }
    ctx.note_pulled(&id);
    if !pulled.sessions.is_empty() {
        let left = if pulled.left_in_store > 0 {
            format!(
                "; its archive, {}, stays in the store until something reads it",
                hotl_text::human_bytes(pulled.left_in_store)
            )
        } else {
            String::new()
        };
        eprintln!(
            "hotl: pulled {} from {} ({} segments, {} blobs{left})",
            id.get(..8).unwrap_or(&id),
            remote.config().label(),
            pulled.segments,
            pulled.blobs
        );
    }
    Ok(Some(ctx.store.meta(&id)?))
}

/// Runs `run` with this command's background publisher (when a remote is configured;
/// [`Ctx::follower`]): what the run writes is published beside it, and on its way out what is
/// pending is published and every lease let go.
pub async fn following<T>(
    ctx: &Ctx,
    run: impl Future<Output = Result<T, CliError>>,
) -> Result<T, CliError> {
    if let Some(remote) = open(ctx)? {
        ctx.set_follower(hotl_remote::Follower::start(remote));
    }
    let result = run.await;
    if let Some(follower) = ctx.follower() {
        follower.finish(hotl_config::LEAVE_BOUND).await;
    }
    result
}

/// Takes the lease of session `id`'s tree (after catching up) before a run writes it, when
/// this command publishes; `Held` becomes the error a tree locked here is, so the console
/// shows a read-only snapshot and `-p` exits 1. Called from the run's runtime
/// (multi-threaded).
pub fn adopt(ctx: &Ctx, id: &str) -> Result<(), CliError> {
    let Some(follower) = ctx.follower() else {
        return Ok(());
    };
    let root = ctx.store.root_of(id);
    let handle = tokio::runtime::Handle::current();
    let adopted = tokio::task::block_in_place(|| handle.block_on(follower.adopt(&root)))?;
    if let Some(why) = adopted {
        eprintln!("hotl: warning: {why}");
    }
    Ok(())
}
