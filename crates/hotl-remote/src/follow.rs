//! Following a session's tree while this process writes it: the lease taken (and the local
//! copy brought up to date) before the first write, renewed every third of its time to live,
//! what was written published in the background at the moments the agent names (a turn's
//! end, a move, a child's end), and the lease let go when the process leaves the tree. Nothing
//! here ever holds a turn up: the agent only sends a word, and a store that cannot be reached
//! is tried again at the next moment.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Notify;

use crate::config::Publish;
use crate::error::{RemoteError, Result};
use crate::lease::Lease;
use crate::remote::Remote;

/// The background publisher of one process (see the module docs). Cheap to clone.
#[derive(Clone, Debug)]
pub struct Follower {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    remote: Arc<Remote>,
    /// Leases this process holds, by root.
    held: tokio::sync::Mutex<HashMap<String, Lease>>,
    /// Trees written since their last publish.
    pending: Mutex<BTreeSet<String>>,
    /// Every tree written while following: published once more on the way out.
    touched: Mutex<BTreeSet<String>>,
    /// Trees this process lost, and the words that say so.
    fenced: Mutex<HashMap<String, String>>,
    /// Wakes the background task.
    wake: Notify,
    /// Tells the background task to stop after what it is doing.
    stop: std::sync::atomic::AtomicBool,
    /// The background task.
    task: Mutex<Option<tokio::task::JoinHandle<()>>>,
}

impl Follower {
    /// Starts following on the current runtime.
    pub fn start(remote: Arc<Remote>) -> Follower {
        let follower = Follower {
            inner: Arc::new(Inner {
                remote,
                held: tokio::sync::Mutex::default(),
                pending: Mutex::default(),
                touched: Mutex::default(),
                fenced: Mutex::default(),
                wake: Notify::new(),
                stop: std::sync::atomic::AtomicBool::new(false),
                task: Mutex::new(None),
            }),
        };
        let background = follower.clone();
        let task = tokio::spawn(async move { background.run().await });
        *lock(&follower.inner.task) = Some(task);
        follower
    }

    /// The remote.
    pub fn remote(&self) -> &Arc<Remote> {
        &self.inner.remote
    }

    /// Takes `root`'s lease before this process writes the tree, after bringing the local
    /// copy up to date with what other machines published. `Held` names the machine that
    /// holds it. A store that cannot be reached is not an error here: the tree is written
    /// locally and the lease is taken at the next publish (`Ok(Some(why))` says so).
    pub async fn adopt(&self, root: &str) -> Result<Option<String>> {
        let remote = &self.inner.remote;
        let taken = async {
            remote.writable().await?;
            let lease = remote.acquire(root).await?;
            match remote.pull(root).await {
                Ok(pulled) if !pulled.problems.is_empty() => {
                    tracing::warn!(root, "catching up: {}", pulled.problems.join("; "));
                }
                Ok(_) | Err(RemoteError::NoMatch(_)) => {}
                Err(e) => {
                    // Writing behind the store is what the lease is there to prevent.
                    remote.release(&lease).await.ok();
                    return Err(e);
                }
            }
            Ok(lease)
        };
        match taken.await {
            Ok(lease) => {
                self.inner.held.lock().await.insert(root.to_owned(), lease);
                lock(&self.inner.fenced).remove(root);
                Ok(None)
            }
            Err(e) if e.is_unreachable() => {
                let why = format!(
                    "the remote store cannot be reached, so this session is not published until it can be: {e}"
                );
                lock(&self.inner.pending).insert(root.to_owned());
                Ok(Some(why))
            }
            Err(e) => Err(e),
        }
    }

    /// Something worth publishing was written to `root`'s tree: published in the
    /// background (with `publish = "turn"`).
    pub fn written(&self, root: &str) {
        if self.inner.remote.config().publish != Publish::Turn {
            return;
        }
        if lock(&self.inner.fenced).contains_key(root) {
            return;
        }
        lock(&self.inner.pending).insert(root.to_owned());
        lock(&self.inner.touched).insert(root.to_owned());
        self.inner.wake.notify_one();
    }

    /// Why this process may no longer write `root`'s tree, when it lost the lease.
    pub fn fenced(&self, root: &str) -> Option<String> {
        lock(&self.inner.fenced).get(root).cloned()
    }

    /// This process leaves `root`'s tree: what is pending is published, and the lease let
    /// go, at most within `bound`.
    pub async fn leave(&self, root: &str, bound: Duration) {
        let work = async {
            let pending = lock(&self.inner.pending).remove(root);
            // A publish the background had under way may have been cut short: once more.
            if pending || lock(&self.inner.touched).remove(root) {
                self.publish_one(root).await;
            }
            if let Some(lease) = self.inner.held.lock().await.remove(root)
                && let Err(e) = self.inner.remote.release(&lease).await
            {
                tracing::warn!(root, "the lease is not let go (it runs out by itself): {e}");
            }
        };
        if tokio::time::timeout(bound, work).await.is_err() {
            tracing::warn!(
                root,
                "leaving the tree took too long: its lease runs out by itself"
            );
        }
    }

    /// Publishes `root` now, taking its lease when this process does not hold it (a tree
    /// it made). What `hotl sessions push` and the background both do.
    pub async fn publish_now(&self, root: &str) -> Result<crate::publish::Published> {
        let remote = &self.inner.remote;
        if let Some(why) = self.fenced(root) {
            return Err(RemoteError::Config(why));
        }
        let mut held = self.inner.held.lock().await;
        if !held.contains_key(root) {
            remote.writable().await?;
            let lease = remote.acquire(root).await?;
            held.insert(root.to_owned(), lease);
        }
        let lease = held.get_mut(root).expect("inserted above");
        match remote.publish(lease).await {
            Ok(published) => Ok(published),
            Err(e @ RemoteError::Fenced { .. }) => {
                held.remove(root);
                lock(&self.inner.fenced).insert(root.to_owned(), e.to_string());
                Err(e)
            }
            Err(e) => Err(e),
        }
    }

    /// Publishes what is pending and lets every lease go, at most within `bound` (on exit).
    pub async fn finish(&self, bound: Duration) {
        // The background stops after what it is doing: cut short mid-write, a lease would
        // be left at a version this process does not know.
        self.inner
            .stop
            .store(true, std::sync::atomic::Ordering::SeqCst);
        self.inner.wake.notify_one();
        let task = lock(&self.inner.task).take();
        if let Some(task) = task
            && tokio::time::timeout(bound, task).await.is_err()
        {
            tracing::warn!("the background publisher did not stop in time");
        }
        let roots: Vec<String> = {
            let held = self.inner.held.lock().await;
            let pending = lock(&self.inner.pending);
            let touched = lock(&self.inner.touched);
            held.keys()
                .chain(pending.iter())
                .chain(touched.iter())
                .cloned()
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect()
        };
        let work = async {
            for root in roots {
                self.leave(&root, bound).await;
            }
        };
        if tokio::time::timeout(bound, work).await.is_err() {
            tracing::warn!("publishing on exit took too long: the rest is published next time");
        }
    }

    async fn publish_one(&self, root: &str) {
        match self.publish_now(root).await {
            Ok(published) if published.segments > 0 => {
                tracing::info!(root, segments = published.segments, "published");
            }
            Ok(_) => {}
            Err(e) if e.is_unreachable() => {
                // Tried again at the next moment.
                lock(&self.inner.pending).insert(root.to_owned());
                tracing::info!(root, "not published (the store is not reachable): {e}");
            }
            Err(e) => tracing::warn!(root, "not published: {e}"),
        }
    }

    /// The background: publishes what is pending when woken, renews leases every third of
    /// their time to live.
    async fn run(&self) {
        let ttl = self.inner.remote.config().lease_ttl();
        let tick = ttl / 3;
        loop {
            tokio::select! {
                () = self.inner.wake.notified() => {}
                () = tokio::time::sleep(tick) => {}
            }
            if self.inner.stop.load(std::sync::atomic::Ordering::SeqCst) {
                return;
            }
            let pending: Vec<String> = std::mem::take(&mut *lock(&self.inner.pending))
                .into_iter()
                .collect();
            for root in pending {
                self.publish_one(&root).await;
            }
            self.renew_due(tick).await;
        }
    }

    async fn renew_due(&self, tick: Duration) {
        let mut held = self.inner.held.lock().await;
        let mut lost = Vec::new();
        for (root, lease) in held.iter_mut() {
            if lease.renewed.elapsed() < tick {
                continue;
            }
            match self.inner.remote.renew(lease).await {
                Ok(()) => {}
                Err(e @ RemoteError::Fenced { .. }) => {
                    lock(&self.inner.fenced).insert(root.clone(), e.to_string());
                    lost.push(root.clone());
                }
                Err(e) => tracing::info!(root, "the lease is not renewed (tried again): {e}"),
            }
        }
        for root in lost {
            held.remove(&root);
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
