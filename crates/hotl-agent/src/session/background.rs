//! Children running in the background: each reports its end here, and the session appends it
//! as a `child_finished` record at its next step boundary, at once when it is idle, or, in a
//! headless run, after waiting for them at the end of its turn.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use hotl_log::Body;
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore, watch};

use super::delegate::ChildRun;
use super::{Session, Totals};
use crate::context::Context;
use crate::error::Result;
use hotl_protocol::Event;

/// How a background child ended.
#[derive(Clone, Debug)]
pub(crate) struct Finished {
    pub handle: String,
    pub child: String,
    pub state: &'static str,
    pub report: String,
    pub totals: Totals,
    /// The patch of what it changed in its own worktree.
    pub patch_blob: Option<String>,
}

/// The session's side of its background children: how many run, and the ends not yet
/// recorded.
#[derive(Clone, Debug, Default)]
pub(crate) struct Background {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    running: AtomicUsize,
    done: Mutex<Vec<Finished>>,
    arrived: Notify,
    /// What stops each running child, by handle.
    stops: Mutex<HashMap<String, watch::Sender<bool>>>,
    /// The slots children run in (`[agents] max_concurrent`), made with the first child.
    slots: std::sync::OnceLock<Arc<Semaphore>>,
}

impl Background {
    /// One more child runs, stopped through the receiver this returns (which `cancel`
    /// and the parent's own cancellation both reach).
    pub(crate) fn started(&self, handle: &str) -> watch::Receiver<bool> {
        self.inner.running.fetch_add(1, Ordering::SeqCst);
        let (stop, stopped) = watch::channel(false);
        self.inner
            .stops
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(handle.to_owned(), stop);
        stopped
    }

    /// The slots children run in, made with `max` the first time.
    fn slots(&self, max: usize) -> &Arc<Semaphore> {
        self.inner
            .slots
            .get_or_init(|| Arc::new(Semaphore::new(max.max(1))))
    }

    /// A slot to run in, once one is free (`max` slots in all).
    pub(crate) async fn slot(&self, max: usize) -> Option<OwnedSemaphorePermit> {
        Arc::clone(self.slots(max)).acquire_owned().await.ok()
    }

    /// Whether every slot is taken now (by children in the background or in the foreground).
    pub(crate) fn all_taken(&self, max: usize) -> bool {
        self.slots(max).available_permits() == 0
    }

    /// Stops the running child `handle`; `false` when no child of that handle runs.
    pub(crate) fn cancel(&self, handle: &str) -> bool {
        let stops = self
            .inner
            .stops
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        match stops.get(handle) {
            Some(stop) => {
                let _ = stop.send(true);
                true
            }
            None => false,
        }
    }

    /// The handles of the children running now.
    pub(crate) fn running_handles(&self) -> Vec<String> {
        let mut handles: Vec<String> = self
            .inner
            .stops
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .keys()
            .cloned()
            .collect();
        handles.sort();
        handles
    }

    /// A child ended (called from its task).
    pub(crate) fn finished(&self, finished: Finished) {
        self.inner
            .stops
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&finished.handle);
        self.inner
            .done
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(finished);
        self.inner.running.fetch_sub(1, Ordering::SeqCst);
        // A permit is kept when nobody waits yet: no end is missed.
        self.inner.arrived.notify_one();
    }

    /// Children still running.
    pub(crate) fn running(&self) -> usize {
        self.inner.running.load(Ordering::SeqCst)
    }

    fn take(&self) -> Vec<Finished> {
        std::mem::take(
            &mut *self
                .inner
                .done
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }

    pub(crate) fn has_done(&self) -> bool {
        !self
            .inner
            .done
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_empty()
    }

    /// Resolves when an end is waiting to be recorded (never, while nothing runs or waits).
    pub(crate) async fn arrival(&self) {
        loop {
            if self.has_done() {
                return;
            }
            if self.running() == 0 {
                std::future::pending::<()>().await;
            }
            self.inner.arrived.notified().await;
        }
    }
}

impl Session {
    /// Runs `child` in a task of its own, in a slot, stopped by `cancel` or by this session's
    /// cancellation; its end is queued for this session to record. Returns what to add to the
    /// call's answer when it must wait for a slot.
    pub(crate) fn run_in_background(&self, child: ChildRun, cx: &Context) -> String {
        let runs = self.background.clone();
        let max = cx.settings.max_concurrent;
        // Every slot held by a child started before (one in the background counts from its
        // start, before its task takes the slot): this one waits.
        let queued = runs.running() >= max || runs.all_taken(max);
        let handle = child.handle().to_owned();
        // Its own stop (`cancel`), which this session's cancellation also pulls.
        let stopped = runs.started(&handle);
        let (stop, child_stopped) = watch::channel(false);
        let parent = cx.clone();
        let mut own = stopped.clone();
        tokio::spawn(async move {
            tokio::select! {
                () = parent.cancelled() => {}
                _ = own.wait_for(|s| *s) => {}
                () = stop.closed() => return,
            }
            let _ = stop.send(true);
        });
        let child = child.stopped_by(child_stopped);
        let events = cx.events.clone();
        let blobs = self.store.blobs();
        tokio::spawn(async move {
            // Beyond the slots, a child waits its turn (cancelled meanwhile, it never runs).
            let ran = child.run(runs.clone(), max).await;
            events.send(Event::ChildEnded {
                handle,
                ok: ran.is_ok(),
            });
            runs.finished(ran.into_finished(&blobs));
        });
        if queued {
            format!(
                " (every one of the {max} slots is taken: it starts when one frees, [agents] max_concurrent)"
            )
        } else {
            String::new()
        }
    }

    /// The session's background children.
    pub(crate) fn background(&self) -> &Background {
        &self.background
    }

    /// Records the background children that ended since last asked, each a `child_finished`
    /// record; how many.
    pub(crate) fn deliver_finished(&mut self) -> Result<usize> {
        let done = self.background.take();
        let n = done.len();
        for f in done {
            self.totals.add(&f.totals);
            let t = &f.totals;
            self.append(Body::ChildFinished {
                handle: f.handle,
                child: f.child,
                state: f.state.to_owned(),
                report: f.report,
                usage: Some(t.usage.to_log()),
                cost: Some(t.cost),
                patch_blob: f.patch_blob,
            })?;
        }
        Ok(n)
    }

    /// Waits for every background child to end and records their ends; how many.
    pub(crate) async fn wait_background(&mut self) -> Result<usize> {
        let mut n = self.deliver_finished()?;
        while self.background.running() > 0 {
            self.background.arrival().await;
            n += self.deliver_finished()?;
        }
        Ok(n)
    }
}

impl Session {
    /// Settles the background children a dead process left: each background child of this
    /// session whose spawn was answered but whose end was never recorded here
    /// gets it now: `interrupted` (its own open run closed so) when it was still running,
    /// else what it last said. Called when a session is opened, before it is used; how many.
    pub(crate) fn reconcile_background(&mut self) -> Result<usize> {
        let id = self.writer.id().to_owned();
        // Most sessions never ran a child in the background: then the log is not read again
        // (opening a long session reads only its checkpoint and what follows).
        let background: Vec<hotl_log::Delegated> = self
            .store
            .visible_delegated(&id)?
            .into_iter()
            .filter(|c| c.delegation.by == id && c.delegation.background)
            .collect();
        if background.is_empty() {
            return Ok(0);
        }
        let own = self.store.read(&id)?.records;
        let mut answered: std::collections::HashSet<&str> = std::collections::HashSet::new();
        let mut reported: std::collections::HashSet<&str> = std::collections::HashSet::new();
        for record in &own {
            match &record.body {
                Body::ToolResult { call, .. } => {
                    answered.insert(call.as_str());
                }
                Body::ChildFinished { handle, .. } => {
                    reported.insert(handle.as_str());
                }
                _ => {}
            }
        }
        let mut ends = Vec::new();
        let quiet = crate::events::Events::discard();
        for child in background {
            let d = &child.delegation;
            let (Some(handle), Some(call)) = (d.handle.as_deref(), d.call.as_deref()) else {
                continue;
            };
            // A spawn never answered did not start in this session's eyes (its recovery
            // answers it); an end already recorded is settled.
            if !answered.contains(call) || reported.contains(handle) {
                continue;
            }
            // Closed `interrupted` when it was still running (its open calls and its own
            // children too), its worktree's patch taken.
            let settled = self.settle_child(&child, &quiet);
            ends.push(Body::ChildFinished {
                handle: settled.handle,
                child: child.id.clone(),
                state: settled.state.to_owned(),
                report: settled.report,
                usage: None,
                cost: None,
                patch_blob: settled.patch_blob,
            });
        }
        let n = ends.len();
        if n > 0 {
            self.append_all(ends)?;
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn end(handle: &str) -> Finished {
        Finished {
            handle: handle.to_owned(),
            child: String::new(),
            state: "finished",
            report: String::new(),
            totals: Totals::default(),
            patch_blob: None,
        }
    }

    #[tokio::test]
    async fn slots_hold_children_back_and_cancel_reaches_the_running_one() {
        let background = Background::default();
        let first = background.slot(1).await.expect("a free slot");
        let waiting = {
            let background = background.clone();
            tokio::spawn(async move { background.slot(1).await.is_some() })
        };
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished(), "the second waits for the slot");
        drop(first);
        assert!(waiting.await.expect("joined"), "and runs once it is free");

        let stopped = background.started("kid1");
        assert_eq!(background.running_handles(), ["kid1"]);
        assert!(!background.cancel("nobody"));
        assert!(background.cancel("kid1"));
        assert!(*stopped.borrow());
        background.finished(end("kid1"));
        assert!(background.running_handles().is_empty());
        assert_eq!(background.running(), 0);
        assert!(background.has_done());
    }
}
