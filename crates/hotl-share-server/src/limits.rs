//! What keeps a share server that anyone can reach from being filled: each client may upload
//! so many shares a minute, all shares together may take so many bytes, and a share older
//! than its time is gone (removed when it is asked for, and swept once a minute on uploads).

use std::collections::HashMap;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

/// The limits a server keeps to.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Uploads one client (by address) may make in a minute; 0 for no limit.
    pub uploads_per_minute: u32,
    /// Bytes all kept shares may take together; 0 for no limit.
    pub max_total_bytes: u64,
    /// How long a share is kept; `None` for ever.
    pub expire_after: Option<Duration>,
}

impl Default for Limits {
    /// 30 uploads a minute a client, 1 GiB in all, shares kept 30 days.
    fn default() -> Limits {
        Limits {
            uploads_per_minute: 30,
            max_total_bytes: 1 << 30,
            expire_after: Some(Duration::from_secs(30 * 24 * 3600)),
        }
    }
}

/// Why an upload is refused.
pub(crate) enum Refusal {
    /// The client used its uploads; it may try again after this long.
    Rate(Duration),
    /// The store is full.
    Full,
}

/// The limits with what they count: each client's allowance and the bytes kept.
pub(crate) struct Keeper {
    limits: Limits,
    dir: PathBuf,
    state: Mutex<State>,
}

struct State {
    /// Each client's uploads left and when they were last counted.
    clients: HashMap<IpAddr, (f64, Instant)>,
    /// The bytes the kept shares take.
    total: u64,
    /// When expired shares were last swept.
    swept: Instant,
}

impl Keeper {
    /// Limits over the shares in `dir`, expired ones removed now.
    pub(crate) fn new(limits: Limits, dir: &Path) -> Keeper {
        let keeper = Keeper {
            limits,
            dir: dir.to_owned(),
            state: Mutex::new(State {
                clients: HashMap::new(),
                total: 0,
                swept: Instant::now(),
            }),
        };
        let total = keeper.sweep();
        if let Ok(mut state) = keeper.state.lock() {
            state.total = total;
        }
        keeper
    }

    /// Takes an upload of `bytes` from `client`, counted as kept; why not.
    pub(crate) fn admit(&self, client: IpAddr, bytes: u64) -> Result<(), Refusal> {
        let Ok(mut state) = self.state.lock() else {
            return Err(Refusal::Full);
        };
        let now = Instant::now();
        if state.swept + Duration::from_secs(60) <= now {
            state.swept = now;
            drop(state);
            let total = self.sweep();
            state = self.state.lock().map_err(|_| Refusal::Full)?;
            state.total = total;
        }
        let per_minute = f64::from(self.limits.uploads_per_minute);
        if per_minute > 0.0 {
            // A bucket of a minute's uploads, refilled as the minute goes.
            let (left, since) = state
                .clients
                .get(&client)
                .copied()
                .unwrap_or((per_minute, now));
            let left = (left + now.duration_since(since).as_secs_f64() * per_minute / 60.0)
                .min(per_minute);
            if left < 1.0 {
                let wait = Duration::from_secs_f64((1.0 - left) * 60.0 / per_minute);
                state.clients.insert(client, (left, now));
                return Err(Refusal::Rate(wait));
            }
            state.clients.insert(client, (left - 1.0, now));
            // Clients that have their whole allowance back are forgotten.
            if state.clients.len() > 10_000 {
                state.clients.retain(|_, (left, since)| {
                    *left + now.duration_since(*since).as_secs_f64() * per_minute / 60.0
                        < per_minute
                });
            }
        }
        let max = self.limits.max_total_bytes;
        if max > 0 && state.total.saturating_add(bytes) > max {
            return Err(Refusal::Full);
        }
        state.total += bytes;
        Ok(())
    }

    /// An upload counted by [`Keeper::admit`] that was not kept after all.
    pub(crate) fn forget(&self, bytes: u64) {
        if let Ok(mut state) = self.state.lock() {
            state.total = state.total.saturating_sub(bytes);
        }
    }

    /// Whether the share at `path` has outlived its time (it is removed then).
    pub(crate) fn expired(&self, path: &Path) -> bool {
        let Some(keep) = self.limits.expire_after else {
            return false;
        };
        let Ok(meta) = std::fs::metadata(path) else {
            return false;
        };
        if !is_older(&meta, keep) {
            return false;
        }
        if std::fs::remove_file(path).is_ok() {
            self.forget(meta.len());
        }
        true
    }

    /// Removes the expired shares; the bytes the others take.
    fn sweep(&self) -> u64 {
        let mut total = 0;
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return 0;
        };
        for entry in entries.flatten() {
            let Ok(meta) = entry.metadata() else { continue };
            if !meta.is_file() {
                continue;
            }
            if self
                .limits
                .expire_after
                .is_some_and(|keep| is_older(&meta, keep))
                && std::fs::remove_file(entry.path()).is_ok()
            {
                continue;
            }
            total += meta.len();
        }
        total
    }
}

/// Whether a file was last written more than `keep` ago.
fn is_older(meta: &std::fs::Metadata, keep: Duration) -> bool {
    meta.modified()
        .ok()
        .and_then(|at| SystemTime::now().duration_since(at).ok())
        .is_some_and(|age| age > keep)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_gets_its_minute_of_uploads_and_the_store_fills_once() {
        let dir = tempfile::tempdir().unwrap();
        let keeper = Keeper::new(
            Limits {
                uploads_per_minute: 2,
                max_total_bytes: 250,
                expire_after: None,
            },
            dir.path(),
        );
        let one: IpAddr = "10.0.0.1".parse().unwrap();
        let two: IpAddr = "10.0.0.2".parse().unwrap();
        assert!(keeper.admit(one, 100).is_ok());
        assert!(keeper.admit(one, 100).is_ok());
        assert!(matches!(keeper.admit(one, 1), Err(Refusal::Rate(_))));
        assert!(matches!(keeper.admit(two, 100), Err(Refusal::Full)));
        keeper.forget(100);
        assert!(keeper.admit(two, 100).is_ok());
    }
}
