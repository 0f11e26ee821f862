//! Ctrl-C and SIGTERM during a run. Ctrl-C cancels the turn; SIGTERM (a supervisor, CI, a
//! closing terminal multiplexer) cancels it too and then asks the front end to leave, as the
//! user leaving would, so the cancellation is recorded before the process ends.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::Notify;

/// The run's signals, watched beside it from [`Signals::watch`] on.
#[derive(Clone, Debug)]
pub struct Signals {
    /// Told when SIGTERM arrives: the console and the terminal UI leave on it.
    pub terminated: Arc<Notify>,
    by_signal: Arc<AtomicBool>,
}

impl Signals {
    /// Watches Ctrl-C and SIGTERM until the runtime ends; each cancels through `canceller`.
    pub fn watch(canceller: hotl_agent::Canceller) -> Signals {
        let signals = Signals {
            terminated: Arc::new(Notify::new()),
            by_signal: Arc::new(AtomicBool::new(false)),
        };
        let mut terminate = signal(SignalKind::terminate()).ok();
        let watched = signals.clone();
        tokio::spawn(async move {
            loop {
                let asked = tokio::select! {
                    c = tokio::signal::ctrl_c() => c.is_ok(),
                    t = async {
                        match terminate.as_mut() {
                            Some(t) => t.recv().await,
                            None => std::future::pending().await,
                        }
                    } => {
                        watched.by_signal.store(true, Ordering::SeqCst);
                        watched.terminated.notify_one();
                        t.is_some()
                    }
                };
                if !asked {
                    break;
                }
                canceller.cancel();
            }
        });
        signals
    }

    /// Whether SIGTERM ended the run (its exit code is then 143, the shell's 128 + 15).
    pub fn terminated_by_signal(&self) -> bool {
        self.by_signal.load(Ordering::SeqCst)
    }
}
