//! The tree's lease: one writer per tree across machines. Taken by creating the lease object
//! only if it does not exist, renewed and released by replacing it only if it is still the
//! version this process wrote (its ETag), taken over once it ran out (on the store's clock)
//! with the epoch one higher. A store that lets either conditional write through cannot hold
//! leases: `hotl remote check` says so and hotl uses it read-only.

use std::time::{Instant, SystemTime};

use object_store::{ObjectMeta, PutMode, UpdateVersion};
use serde::{Deserialize, Serialize};

use crate::error::{Holder, RemoteError, Result};
use crate::layout;
use crate::remote::{Remote, millis_between, shift};

/// The lease object's format.
pub const FORMAT: &str = "hotl-lease/1";

/// How long past a lease's end its taker waits more, for the store's clock being read in
/// whole seconds.
const MARGIN_MS: i64 = 1500;

/// What the lease object holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaseBody {
    /// `FORMAT`.
    pub format: String,
    /// The tree.
    pub root: String,
    /// The holding process's nonce.
    pub holder: String,
    /// Its machine.
    pub host: String,
    /// Its pid.
    pub pid: u32,
    /// Raised by one at every takeover.
    pub epoch: u64,
    /// How long it lasts from its last write, in milliseconds.
    pub ttl_ms: u64,
    /// When it was written, on the holder's clock.
    pub written_at: String,
    /// The holder let it go.
    #[serde(default)]
    pub released: bool,
}

/// A lease this process holds.
#[derive(Clone, Debug)]
pub struct Lease {
    /// What the store holds.
    pub body: LeaseBody,
    /// The version this process wrote (what the next write must match).
    pub version: UpdateVersion,
    /// When it was last written, on this machine's monotonic clock.
    pub renewed: Instant,
}

/// The lease as the store holds it.
#[derive(Clone, Debug)]
pub struct Seen {
    /// Its content (`None`: it does not read as a lease; it is judged by its age alone).
    pub body: Option<LeaseBody>,
    /// Its version.
    pub version: UpdateVersion,
    /// What the store says of it.
    pub meta: ObjectMeta,
}

impl Remote {
    /// The tree's lease as stored; `None` when there is none.
    pub async fn read_lease(&self, root: &str) -> Result<Option<Seen>> {
        let name = layout::lease(root);
        let Some((bytes, meta)) = self.bucket.get_raw(&name).await? else {
            return Ok(None);
        };
        let body = self
            .bucket
            .unseal(&name, &bytes)
            .ok()
            .and_then(|plain| serde_json::from_slice::<LeaseBody>(&plain).ok())
            .filter(|b| b.format == FORMAT && b.root == root);
        if body.is_none() {
            tracing::warn!(
                root,
                "the tree's lease does not read as one: judged by its age"
            );
        }
        Ok(Some(Seen {
            body,
            version: UpdateVersion {
                e_tag: meta.e_tag.clone(),
                version: meta.version.clone(),
            },
            meta,
        }))
    }

    /// When a lease seen in the store runs out, on this machine's clock.
    async fn ends_at(&self, seen: &Seen) -> Result<SystemTime> {
        let ttl = seen
            .body
            .as_ref()
            .map_or(self.cfg.lease_ttl().as_millis() as i64, |b| b.ttl_ms as i64);
        let skew = self.skew_ms().await?;
        Ok(shift(SystemTime::from(seen.meta.last_modified), ttl + skew))
    }

    /// Who holds a lease seen in the store, in a message's words.
    async fn holder_of(&self, seen: &Seen) -> Result<Holder> {
        let until = hotl_log::format_ts(self.ends_at(seen).await?);
        Ok(match &seen.body {
            Some(b) => Holder {
                host: b.host.clone(),
                pid: b.pid,
                until,
            },
            None => Holder {
                host: "an unknown machine".to_owned(),
                pid: 0,
                until,
            },
        })
    }

    fn body(&self, root: &str, epoch: u64, released: bool) -> LeaseBody {
        LeaseBody {
            format: FORMAT.to_owned(),
            root: root.to_owned(),
            holder: self.me.nonce.clone(),
            host: self.me.host.clone(),
            pid: self.me.pid,
            epoch,
            ttl_ms: self.cfg.lease_ttl().as_millis() as u64,
            written_at: hotl_log::format_ts(SystemTime::now()),
            released,
        }
    }

    async fn write_lease(
        &self,
        body: LeaseBody,
        mode: PutMode,
    ) -> std::result::Result<Lease, object_store::Error> {
        let name = layout::lease(&body.root);
        let plain = serde_json::to_vec(&body).expect("a lease serializes");
        let sealed = self
            .bucket
            .seal(&name, &plain)
            .map_err(|e| object_store::Error::Generic {
                store: "seal",
                source: e.to_string().into(),
            })?;
        let put = self.bucket.put_raw(&name, sealed, mode).await?;
        Ok(Lease {
            body,
            version: UpdateVersion::from(put),
            renewed: Instant::now(),
        })
    }

    /// Takes the tree's lease: creates it when there is none, takes it over when it was
    /// released or ran out (epoch + 1), renews it when this process holds it. `Held` names
    /// the holder when another does.
    pub async fn acquire(&self, root: &str) -> Result<Lease> {
        self.claim().await?;
        let name = layout::lease(root);
        let failed = |e| RemoteError::store(format!("writing {}", self.bucket.shown(&name)), e);
        // Each turn of the loop follows another writer's move; a handful settles any race.
        for _ in 0..8 {
            let Some(seen) = self.read_lease(root).await? else {
                match self
                    .write_lease(self.body(root, 1, false), PutMode::Create)
                    .await
                {
                    Ok(lease) => return Ok(lease),
                    Err(object_store::Error::AlreadyExists { .. }) => continue,
                    Err(e) => return Err(self.no_lease(failed(e))),
                }
            };
            let epoch = seen.body.as_ref().map_or(0, |b| b.epoch);
            let mine = seen
                .body
                .as_ref()
                .is_some_and(|b| b.holder == self.me.nonce && !b.released);
            let free = seen
                .body
                .as_ref()
                .is_some_and(|b| b.released || self.is_gone_here(b))
                || millis_between(self.ends_at(&seen).await?, SystemTime::now()) > MARGIN_MS;
            if !mine && !free {
                return Err(RemoteError::Held {
                    root: root.to_owned(),
                    holder: self.holder_of(&seen).await?,
                });
            }
            let next = if mine { epoch } else { epoch + 1 };
            let mode = PutMode::Update(seen.version.clone());
            match self.write_lease(self.body(root, next, false), mode).await {
                Ok(lease) => return Ok(lease),
                Err(object_store::Error::Precondition { .. }) => continue,
                Err(e) => return Err(self.no_lease(failed(e))),
            }
        }
        let seen = self.read_lease(root).await?;
        Err(match seen {
            Some(seen) => RemoteError::Held {
                root: root.to_owned(),
                holder: self.holder_of(&seen).await?,
            },
            None => RemoteError::Config(format!(
                "the lease of {root} keeps changing: another process is taking it"
            )),
        })
    }

    /// Whether the lease's holder was a process on this machine that is gone (it died, or
    /// left without reaching the store): its lease is taken over at once rather than when it
    /// runs out. A machine known only as `localhost` is not told apart from others. Should two
    /// machines share a name, the one that loses its lease this way is fenced: it writes no
    /// more, and nothing it wrote is lost.
    fn is_gone_here(&self, body: &LeaseBody) -> bool {
        let here = body.host == self.me.host && body.host != "localhost";
        let alive = || {
            let pid = i32::try_from(body.pid)
                .ok()
                .and_then(rustix::process::Pid::from_raw);
            pid.is_some_and(|pid| match rustix::process::test_kill_process(pid) {
                Ok(()) => true,
                // Someone else's process by that id: alive.
                Err(e) => e == rustix::io::Errno::PERM,
            })
        };
        here && body.holder != self.me.nonce && !alive()
    }

    /// Whether another process holds the tree's lease now (not released, not run out).
    pub async fn held_by_another(&self, root: &str) -> Result<bool> {
        let Some(seen) = self.read_lease(root).await? else {
            return Ok(false);
        };
        if seen
            .body
            .as_ref()
            .is_some_and(|b| b.released || b.holder == self.me.nonce || self.is_gone_here(b))
        {
            return Ok(false);
        }
        Ok(millis_between(self.ends_at(&seen).await?, SystemTime::now()) <= MARGIN_MS)
    }

    /// A store that cannot write leases conditionally is read-only for hotl.
    fn no_lease(&self, e: RemoteError) -> RemoteError {
        match e {
            RemoteError::Store { detail, .. }
                if detail.contains("not implemented") || detail.contains("NotImplemented") =>
            {
                RemoteError::ReadOnly {
                    url: self.cfg.url.clone(),
                    why: "it cannot replace an object only if it is unchanged (no conditional update), so it cannot hold a tree's lease".to_owned(),
                }
            }
            other => other,
        }
    }

    /// Renews a lease this process holds. `Fenced` when another process took it meanwhile.
    pub async fn renew(&self, lease: &mut Lease) -> Result<()> {
        let body = self.body(&lease.body.root, lease.body.epoch, false);
        match self
            .write_lease(body, PutMode::Update(lease.version.clone()))
            .await
        {
            Ok(renewed) => {
                *lease = renewed;
                Ok(())
            }
            Err(object_store::Error::Precondition { .. }) => {
                // An earlier write of this process may have landed without its answer: the
                // lease is still this process's when the store says so.
                if let Ok(Some(seen)) = self.read_lease(&lease.body.root).await
                    && let Some(body) = &seen.body
                    && body.holder == self.me.nonce
                    && body.epoch == lease.body.epoch
                    && !body.released
                {
                    lease.version = seen.version;
                    return Box::pin(self.renew(lease)).await;
                }
                Err(self.fenced(&lease.body.root).await)
            }
            Err(e) => Err(RemoteError::store(
                format!("renewing the lease of {}", lease.body.root),
                e,
            )),
        }
    }

    /// The error of a process whose lease another took.
    pub(crate) async fn fenced(&self, root: &str) -> RemoteError {
        let by = match self.read_lease(root).await {
            Ok(Some(seen)) => match self.holder_of(&seen).await {
                Ok(h) => format!("hotl on {} (pid {})", h.host, h.pid),
                Err(_) => "another hotl process".to_owned(),
            },
            _ => "another hotl process".to_owned(),
        };
        RemoteError::Fenced {
            root: root.to_owned(),
            by,
        }
    }

    /// Lets a lease go: the next process takes it at once. One another process took
    /// meanwhile is left to it.
    pub async fn release(&self, lease: &Lease) -> Result<()> {
        let body = self.body(&lease.body.root, lease.body.epoch, true);
        match self
            .write_lease(body, PutMode::Update(lease.version.clone()))
            .await
        {
            Ok(_) | Err(object_store::Error::Precondition { .. }) => Ok(()),
            Err(e) => Err(RemoteError::store(
                format!("releasing the lease of {}", lease.body.root),
                e,
            )),
        }
    }
}
