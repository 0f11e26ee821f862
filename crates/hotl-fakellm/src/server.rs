//! The server handle: binds 127.0.0.1, runs axum on its own thread and runtime (so blocking
//! tests cannot starve it), exposes capture, clock and script controls, stops on drop.

use std::net::SocketAddr;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use tokio::sync::oneshot;

use crate::capture::Captured;
use crate::clock::Clock;
use crate::config::Config;
use crate::error::{FakeError, Result};
use crate::fault::Fault;
use crate::handlers;
use crate::replay::Recording;
use crate::script::{Entry, Reply};
use crate::state::Shared;

/// A running fake provider. Dropping it stops the server (blocking briefly until its
/// thread exits), which works from sync and async code alike.
#[derive(Debug)]
pub struct FakeLlm {
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl FakeLlm {
    /// Starts a server for `config` (async convenience for tests).
    ///
    /// # Panics
    ///
    /// If the server cannot start (the port is taken, no threads left); use
    /// [`FakeLlm::start`] to get the error instead.
    pub async fn spawn(config: Config) -> FakeLlm {
        match FakeLlm::start(config) {
            Ok(fake) => fake,
            Err(e) => panic!("hotl-fakellm: {e}"),
        }
    }

    /// Starts a server for `config` from any context, returning once it accepts
    /// connections.
    pub fn start(config: Config) -> Result<FakeLlm> {
        let bind = format!("127.0.0.1:{}", config.port);
        let start_err = |source| FakeError::Start {
            addr: bind.clone(),
            source,
        };
        let std_listener = std::net::TcpListener::bind(&bind).map_err(start_err)?;
        std_listener.set_nonblocking(true).map_err(start_err)?;
        let addr = std_listener.local_addr().map_err(start_err)?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(start_err)?;
        let listener = {
            let _guard = runtime.enter();
            tokio::net::TcpListener::from_std(std_listener).map_err(start_err)?
        };
        let shared = Arc::new(Shared::new(config, Clock::new()));
        let app = Router::new()
            .route("/v1/messages", post(handlers::messages))
            .route("/v1/messages/count_tokens", post(handlers::count_tokens))
            .route("/v1/chat/completions", post(handlers::chat))
            .route("/v1/responses", post(handlers::responses))
            .route("/v1/models", get(handlers::models))
            .route("/props", get(handlers::props))
            .fallback(handlers::fallback)
            .layer(DefaultBodyLimit::max(64 * 1024 * 1024))
            .with_state(Arc::clone(&shared));
        let (stop, stopped) = oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name(format!("hotl-fakellm-{}", addr.port()))
            .spawn(move || {
                runtime.block_on(async move {
                    let serve = std::future::IntoFuture::into_future(axum::serve(listener, app));
                    tokio::select! {
                        result = serve => {
                            if let Err(e) = result {
                                eprintln!("hotl-fakellm: server stopped: {e}");
                            }
                        }
                        _ = stopped => {}
                    }
                });
                // Abort streams still in flight (slow chunks) instead of waiting for them.
                runtime.shutdown_timeout(Duration::from_millis(100));
            })
            .map_err(start_err)?;
        Ok(FakeLlm {
            addr,
            shared,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// `http://127.0.0.1:PORT`, without a trailing slash.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Every request received so far, in arrival order.
    pub fn captured(&self) -> Vec<Captured> {
        self.shared.captured()
    }

    /// The virtual clock that drives cache TTLs (shared; advance it from tests).
    pub fn clock(&self) -> Clock {
        self.shared.clock.clone()
    }

    /// Appends a scripted reply to the queue.
    pub fn push_reply(&self, reply: Reply) {
        self.shared.push_entry(Entry::Reply(reply));
    }

    /// Appends several scripted replies.
    pub fn push_replies(&self, replies: impl IntoIterator<Item = Reply>) {
        for r in replies {
            self.push_reply(r);
        }
    }

    /// Appends a recording's responses to the queue.
    pub fn push_replay(&self, recording: &Recording) {
        for e in recording.entries() {
            self.shared.push_entry(e);
        }
    }

    /// Applies `fault` to the next generation request only. An HTTP fault (`status`)
    /// consumes no reply; a stream fault renders the reply that request would get without
    /// consuming it, so a retry receives it whole.
    pub fn push_fault(&self, fault: Fault) {
        self.shared.push_fault(fault);
    }

    /// Applies `fault` to every later response whose reply has no fault of its own
    /// (`None` clears it).
    pub fn set_fault(&self, fault: Option<Fault>) {
        self.shared.set_fault(fault);
    }

    /// Refuses later requests of more than `tokens` prompt tokens with the dialect's "too
    /// long" error, consuming no reply (`None` lifts the limit).
    pub fn set_context_window(&self, tokens: Option<u64>) {
        self.shared.set_context_window(tokens);
    }

    /// Script entries not yet served (repeating entries count once).
    pub fn remaining(&self) -> usize {
        self.shared.remaining()
    }

    /// Empties both cache simulators.
    pub fn clear_caches(&self) {
        self.shared.clear_caches();
    }
}

impl Drop for FakeLlm {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
