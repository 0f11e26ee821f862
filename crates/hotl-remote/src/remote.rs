//! A remote as one home uses it: the store, this process's identity as a lease holder, the
//! redaction applied before anything leaves, and what this home remembers of the store.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use object_store::PutMode;
use serde::{Deserialize, Serialize};

use crate::bucket::Bucket;
use crate::config::RemoteConfig;
use crate::error::{RemoteError, Result};
use crate::layout;

/// The marker's format.
pub const MARKER_FORMAT: &str = "hotl-remote/1";

/// The marker object: this prefix holds hotl's sessions, sealed or not, and under which key.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Marker {
    /// `MARKER_FORMAT`.
    pub format: String,
    /// Whether every object is sealed.
    pub sealed: bool,
    /// The key's fingerprint, when sealed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
}

/// This process as a lease holder.
#[derive(Clone, Debug)]
pub struct Me {
    /// Unique to this process.
    pub nonce: String,
    /// The machine's name.
    pub host: String,
    /// The process id.
    pub pid: u32,
}

impl Me {
    /// This process.
    pub fn here() -> Me {
        Me {
            nonce: ulid::Ulid::generate().to_string(),
            host: hostname(),
            pid: std::process::id(),
        }
    }
}

/// The machine's name, as leases and listings show it: `HOTL_HOSTNAME` (for tests that stand
/// two machines on one, and containers whose host name says nothing), else the kernel's host
/// name, else `/etc/hostname`, else `localhost`.
pub fn hostname() -> String {
    std::env::var("HOTL_HOSTNAME")
        .ok()
        .or_else(|| std::fs::read_to_string("/proc/sys/kernel/hostname").ok())
        .or_else(|| std::fs::read_to_string("/etc/hostname").ok())
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".to_owned())
}

/// One remote store as this home uses it.
pub struct Remote {
    pub(crate) bucket: Bucket,
    pub(crate) cfg: RemoteConfig,
    pub(crate) redactor: Option<Arc<hotl_export::Redactor>>,
    pub(crate) me: Me,
    pub(crate) store: hotl_log::Store,
    /// This machine's clock minus the store's, in milliseconds, once measured.
    skew: tokio::sync::OnceCell<i64>,
    /// The marker, once checked for writing.
    marker: tokio::sync::OnceCell<()>,
}

impl std::fmt::Debug for Remote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Remote")
            .field("url", &self.cfg.url)
            .field("me", &self.me)
            .finish_non_exhaustive()
    }
}

impl Remote {
    /// `bucket` as `store`'s remote, configured by `cfg`. `redactor` is applied to what is
    /// published when `cfg.redact` is on.
    pub fn new(
        bucket: Bucket,
        cfg: RemoteConfig,
        redactor: Option<hotl_export::Redactor>,
        store: hotl_log::Store,
    ) -> Remote {
        Remote {
            bucket,
            redactor: redactor.filter(|_| cfg.redact).map(Arc::new),
            cfg,
            me: Me::here(),
            store,
            skew: tokio::sync::OnceCell::new(),
            marker: tokio::sync::OnceCell::new(),
        }
    }

    /// Uses `me` as this process's identity (tests stand two machines in one process).
    pub fn with_me(mut self, me: Me) -> Remote {
        self.me = me;
        self
    }

    /// The settings.
    pub fn config(&self) -> &RemoteConfig {
        &self.cfg
    }

    /// The store.
    pub fn bucket(&self) -> &Bucket {
        &self.bucket
    }

    /// The local home.
    pub fn local(&self) -> &hotl_log::Store {
        &self.store
    }

    /// This process as a lease holder.
    pub fn me(&self) -> &Me {
        &self.me
    }

    /// The derived directory (under the home's `index/`) where this home keeps what it
    /// knows of the store: deleting it costs reading the store again.
    pub(crate) fn state_name(&self) -> String {
        let key = blake3::hash(format!("{}\n{:?}", self.cfg.url, self.cfg.endpoint).as_bytes())
            .to_hex()[..16]
            .to_owned();
        format!("remote/{key}")
    }

    /// Reads the marker: `None` when the prefix holds none.
    pub async fn marker(&self) -> Result<Option<Marker>> {
        let Some((bytes, _)) = self.bucket.get_raw(layout::MARKER).await? else {
            return Ok(None);
        };
        let marker: Marker = serde_json::from_slice(&bytes)
            .ok()
            .filter(|m: &Marker| m.format == MARKER_FORMAT)
            .ok_or_else(|| RemoteError::Damaged {
                name: self.bucket.shown(layout::MARKER),
                why: format!("it is not a {MARKER_FORMAT} marker"),
            })?;
        self.check_key(&marker)?;
        Ok(Some(marker))
    }

    /// Whether this home's key (or its lack) fits the store's marker.
    fn check_key(&self, marker: &Marker) -> Result<()> {
        let url = &self.cfg.url;
        match (marker.sealed, self.bucket.keys()) {
            (true, None) => Err(RemoteError::Config(format!(
                "{url} holds sealed sessions: set [remote] encrypt = true with its key (key_file or HOTL_REMOTE_KEY)"
            ))),
            (true, Some(keys)) if marker.key.as_deref() != Some(&keys.fingerprint()) => {
                Err(RemoteError::Config(format!(
                    "{url} was sealed under another key (its key's fingerprint is {}, this one's {}): use the key it was sealed with",
                    marker.key.as_deref().unwrap_or("unknown"),
                    keys.fingerprint()
                )))
            }
            (false, Some(_)) => Err(RemoteError::Config(format!(
                "[remote] encrypt = true, but {url} holds sessions that are not sealed: use another prefix for sealed sessions"
            ))),
            _ => Ok(()),
        }
    }

    /// Makes sure the prefix is hotl's before anything is written: the marker is there and
    /// fits, or the prefix is empty and the marker is written now. A prefix holding other
    /// objects and no marker is refused, naming what to do.
    pub async fn claim(&self) -> Result<()> {
        self.marker
            .get_or_try_init(|| async {
                if self.marker().await?.is_some() {
                    return Ok(());
                }
                let others = self.foreign_objects().await?;
                if let Some(example) = others {
                    return Err(RemoteError::Config(format!(
                        "{} holds objects that are not hotl's ({example}, and no {}): give hotl a prefix of its own, such as {}/hotl",
                        self.cfg.url,
                        layout::MARKER,
                        self.cfg.url.trim_end_matches('/')
                    )));
                }
                let marker = Marker {
                    format: MARKER_FORMAT.to_owned(),
                    sealed: self.bucket.keys().is_some(),
                    key: self.bucket.keys().map(|k| k.fingerprint()),
                };
                let bytes = serde_json::to_vec(&marker).expect("a marker serializes");
                match self.bucket.put_raw(layout::MARKER, bytes, PutMode::Create).await {
                    Ok(_) => Ok(()),
                    // Another machine wrote it first: it must fit too.
                    Err(object_store::Error::AlreadyExists { .. }) => {
                        self.marker().await.map(|_| ())
                    }
                    Err(e) => Err(RemoteError::store(
                        format!("writing {}", self.bucket.shown(layout::MARKER)),
                        e,
                    )),
                }
            })
            .await
            .map(|_| ())
    }

    /// The first object under the prefix that is not hotl's, when there is one.
    async fn foreign_objects(&self) -> Result<Option<String>> {
        let listed = self.bucket.list("").await?;
        Ok(listed
            .iter()
            .map(|m| self.bucket.relative(&m.location))
            .find(|name| {
                ![
                    layout::TREES,
                    layout::SUMMARIES,
                    layout::BLOBS,
                    layout::CHANGES,
                    "probes/",
                    "clocks/",
                ]
                .iter()
                .any(|p| name.starts_with(p))
                    && name != layout::MARKER
                    && name != layout::LISTING
            }))
    }

    /// This machine's clock minus the store's, in milliseconds: measured once, by writing an
    /// object and reading the time the store gave it.
    pub async fn skew_ms(&self) -> Result<i64> {
        self.skew
            .get_or_try_init(|| async {
                let name = layout::clock(&self.me.nonce);
                let before = SystemTime::now();
                self.bucket
                    .put_raw(&name, b"clock".to_vec(), PutMode::Overwrite)
                    .await
                    .map_err(|e| {
                        RemoteError::store(format!("writing {}", self.bucket.shown(&name)), e)
                    })?;
                let after = SystemTime::now();
                let meta = self.bucket.head(&name).await?;
                self.bucket.delete(&name).await?;
                let Some(meta) = meta else {
                    return Ok(0);
                };
                let stored = SystemTime::from(meta.last_modified);
                let mid = before + after.duration_since(before).unwrap_or_default() / 2;
                Ok(millis_between(stored, mid))
            })
            .await
            .copied()
    }
}

/// `later - earlier` in milliseconds, negative when `later` is earlier.
pub(crate) fn millis_between(earlier: SystemTime, later: SystemTime) -> i64 {
    match later.duration_since(earlier) {
        Ok(d) => d.as_millis() as i64,
        Err(e) => -(e.duration().as_millis() as i64),
    }
}

/// `t` shifted by `ms` milliseconds.
pub(crate) fn shift(t: SystemTime, ms: i64) -> SystemTime {
    if ms >= 0 {
        t + Duration::from_millis(ms as u64)
    } else {
        t - Duration::from_millis(ms.unsigned_abs())
    }
}
