//! The store itself: an `object_store` over S3, GCS, Azure, local files or memory, the
//! prefix hotl keeps its objects under, and the seal every object goes through when the
//! store is encrypted.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures_util::{StreamExt, TryStreamExt};
use object_store::path::Path as ObjectPath;
use object_store::{
    ClientOptions, GetOptions, GetRange, ObjectMeta, ObjectStore, ObjectStoreExt, PutMode,
    PutOptions, PutPayload, PutResult, RetryConfig,
};

use crate::config::RemoteConfig;
use crate::error::{RemoteError, Result};
use crate::key::Keys;
use crate::secrets;

/// One remote store: where its objects live and how they are sealed.
#[derive(Clone, Debug)]
pub struct Bucket {
    store: Arc<dyn ObjectStore>,
    /// hotl's objects are under this (no leading or trailing slash; empty: the bucket's
    /// root).
    prefix: String,
    /// The URL as configured, for messages.
    url: String,
    keys: Option<Keys>,
}

/// How a request is retried: a few times, briefly. Publishing waits for the next moment
/// rather than holding on to a store that does not answer.
fn retry() -> RetryConfig {
    RetryConfig {
        max_retries: 3,
        retry_timeout: Duration::from_secs(20),
        ..RetryConfig::default()
    }
}

fn client(cfg: &RemoteConfig) -> ClientOptions {
    ClientOptions::new()
        .with_allow_http(cfg.allow_http)
        .with_connect_timeout(Duration::from_secs(5))
        .with_timeout(Duration::from_secs(120))
}

impl Bucket {
    /// Opens the store `cfg` names, with credentials from the provider's standard
    /// environment. `keys` seal every object (when `encrypt` is on).
    pub fn open(cfg: &RemoteConfig, keys: Option<Keys>) -> Result<Bucket> {
        Bucket::open_with(cfg, keys, &|name| std::env::var(name).ok())
    }

    /// [`Bucket::open`] with the secret variables read through `secret`: a process that wiped
    /// its credentials from the environment block (so commands cannot read them) passes the
    /// copy it kept. The rest of the provider's configuration still comes from the environment.
    pub fn open_with(
        cfg: &RemoteConfig,
        keys: Option<Keys>,
        secret: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Bucket> {
        let (scheme, rest) = cfg.url.split_once("://").ok_or_else(|| {
            RemoteError::Config(format!(
                "[remote] url {:?} is not a store URL: use s3://bucket/prefix, gs://bucket/prefix, az://container/prefix or file:///dir",
                cfg.url
            ))
        })?;
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        // The store's HTTP client uses rustls with hotl's provider (ring), installed once.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let prefix = prefix.trim_matches('/').to_owned();
        let need_bucket = || {
            if bucket.is_empty() {
                Err(RemoteError::Config(format!(
                    "[remote] url {:?} names no bucket",
                    cfg.url
                )))
            } else {
                Ok(())
            }
        };
        let built: std::result::Result<Arc<dyn ObjectStore>, object_store::Error> = match scheme {
            "s3" => {
                need_bucket()?;
                let mut b = secrets::aws(object_store::aws::AmazonS3Builder::from_env(), secret)
                    .with_bucket_name(bucket)
                    .with_retry(retry())
                    .with_client_options(client(cfg))
                    .with_allow_http(cfg.allow_http);
                if let Some(region) = &cfg.region {
                    b = b.with_region(region);
                } else if std::env::var_os("AWS_REGION").is_none()
                    && std::env::var_os("AWS_DEFAULT_REGION").is_none()
                {
                    b = b.with_region("us-east-1");
                }
                if let Some(endpoint) = &cfg.endpoint {
                    // A self-hosted server (MinIO, a test server) serves buckets by path.
                    b = b
                        .with_endpoint(endpoint)
                        .with_virtual_hosted_style_request(false);
                }
                b.build().map(|s| Arc::new(s) as Arc<dyn ObjectStore>)
            }
            "gs" => {
                need_bucket()?;
                secrets::gcp(
                    object_store::gcp::GoogleCloudStorageBuilder::from_env(),
                    secret,
                )
                .with_bucket_name(bucket)
                .with_retry(retry())
                .with_client_options(client(cfg))
                .build()
                .map(|s| Arc::new(s) as Arc<dyn ObjectStore>)
            }
            "az" | "azure" => {
                need_bucket()?;
                secrets::azure(
                    object_store::azure::MicrosoftAzureBuilder::from_env(),
                    secret,
                )
                .with_container_name(bucket)
                .with_retry(retry())
                .with_client_options(client(cfg))
                .build()
                .map(|s| Arc::new(s) as Arc<dyn ObjectStore>)
            }
            "file" => {
                let dir = std::path::Path::new("/").join(rest.trim_start_matches('/'));
                std::fs::create_dir_all(&dir)
                    .map_err(|e| RemoteError::Config(format!("[remote] url {}: {e}", cfg.url)))?;
                return Ok(Bucket {
                    store: Arc::new(
                        object_store::local::LocalFileSystem::new_with_prefix(&dir)
                            .map_err(|e| RemoteError::store(format!("opening {}", cfg.url), e))?,
                    ),
                    prefix: String::new(),
                    url: cfg.url.clone(),
                    keys,
                });
            }
            other => {
                return Err(RemoteError::Config(format!(
                    "[remote] url {:?}: hotl does not know the scheme {other:?} (s3, gs, az, file)",
                    cfg.url
                )));
            }
        };
        let store = built.map_err(|e| RemoteError::store(format!("opening {}", cfg.url), e))?;
        Ok(Bucket {
            store,
            prefix,
            url: cfg.url.clone(),
            keys,
        })
    }

    /// A store already made (an in-memory one, a wrapper that injects faults), under `prefix`.
    pub fn from_store(
        store: Arc<dyn ObjectStore>,
        prefix: &str,
        url: &str,
        keys: Option<Keys>,
    ) -> Bucket {
        Bucket {
            store,
            prefix: prefix.trim_matches('/').to_owned(),
            url: url.to_owned(),
            keys,
        }
    }

    /// The URL, for messages.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The keys objects are sealed under, when the store is encrypted.
    pub fn keys(&self) -> Option<&Keys> {
        self.keys.as_ref()
    }

    /// The full path of `name` (relative to the prefix).
    pub(crate) fn path(&self, name: &str) -> ObjectPath {
        if self.prefix.is_empty() {
            ObjectPath::from(name)
        } else {
            ObjectPath::from(format!("{}/{name}", self.prefix))
        }
    }

    /// `name` relative to the prefix, from a listed path.
    pub(crate) fn relative(&self, path: &ObjectPath) -> String {
        let full = path.as_ref();
        if self.prefix.is_empty() {
            return full.to_owned();
        }
        full.strip_prefix(&self.prefix)
            .and_then(|r| r.strip_prefix('/'))
            .unwrap_or(full)
            .to_owned()
    }

    /// The name an object is shown by in messages.
    pub(crate) fn shown(&self, name: &str) -> String {
        format!("{}/{name}", self.url.trim_end_matches('/'))
    }

    /// Writes `bytes` at `name` in `mode`, as they are (the caller sealed them).
    pub(crate) async fn put_raw(
        &self,
        name: &str,
        bytes: Vec<u8>,
        mode: PutMode,
    ) -> std::result::Result<PutResult, object_store::Error> {
        let opts = PutOptions {
            mode,
            ..PutOptions::default()
        };
        self.store
            .put_opts(&self.path(name), PutPayload::from(bytes), opts)
            .await
    }

    /// Reads `name` as it is stored; `None` when it does not exist.
    pub(crate) async fn get_raw(&self, name: &str) -> Result<Option<(Bytes, ObjectMeta)>> {
        Ok(match self.get_if_changed(name, None).await? {
            Fetched::Got(bytes, meta) => Some((bytes, meta)),
            Fetched::Missing | Fetched::Unchanged => None,
        })
    }

    /// Reads `name` as it is stored unless its ETag is still `known`.
    pub(crate) async fn get_if_changed(&self, name: &str, known: Option<&str>) -> Result<Fetched> {
        let opts = GetOptions {
            if_none_match: known.map(str::to_owned),
            ..GetOptions::default()
        };
        let got = match self.store.get_opts(&self.path(name), opts).await {
            Ok(got) => got,
            Err(object_store::Error::NotModified { .. }) => return Ok(Fetched::Unchanged),
            Err(object_store::Error::NotFound { .. }) => return Ok(Fetched::Missing),
            Err(e) => {
                return Err(RemoteError::store(
                    format!("reading {}", self.shown(name)),
                    e,
                ));
            }
        };
        let meta = got.meta.clone();
        let bytes = got
            .bytes()
            .await
            .map_err(|e| RemoteError::store(format!("reading {}", self.shown(name)), e))?;
        Ok(Fetched::Got(bytes, meta))
    }

    /// The bytes of `name` in `range`, as stored.
    pub(crate) async fn get_range_raw(
        &self,
        name: &str,
        range: std::ops::Range<u64>,
    ) -> Result<Bytes> {
        let opts = GetOptions {
            range: Some(GetRange::Bounded(range)),
            ..GetOptions::default()
        };
        let got = self
            .store
            .get_opts(&self.path(name), opts)
            .await
            .map_err(|e| RemoteError::store(format!("reading {}", self.shown(name)), e))?;
        got.bytes()
            .await
            .map_err(|e| RemoteError::store(format!("reading {}", self.shown(name)), e))
    }

    /// What is stored at `name`; `None` when nothing is.
    pub(crate) async fn head(&self, name: &str) -> Result<Option<ObjectMeta>> {
        match self.store.head(&self.path(name)).await {
            Ok(meta) => Ok(Some(meta)),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(RemoteError::store(
                format!("reading {}", self.shown(name)),
                e,
            )),
        }
    }

    /// Every object under `prefix` (relative), in the store's order.
    pub(crate) async fn list(&self, prefix: &str) -> Result<Vec<ObjectMeta>> {
        let path = self.path(prefix.trim_end_matches('/'));
        self.store
            .list(Some(&path))
            .try_collect()
            .await
            .map_err(|e| RemoteError::store(format!("listing {}", self.shown(prefix)), e))
    }

    /// At most `n` of the objects under `prefix` (relative): one page of the store's listing,
    /// however many there are.
    pub(crate) async fn list_first(&self, prefix: &str, n: usize) -> Result<Vec<ObjectMeta>> {
        let path = self.path(prefix.trim_end_matches('/'));
        self.store
            .list(Some(&path))
            .take(n)
            .collect::<Vec<_>>()
            .await
            .into_iter()
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| RemoteError::store(format!("listing {}", self.shown(prefix)), e))
    }

    /// The objects under `prefix` (relative) whose names sort after `after`, in name order;
    /// every one when `after` is `None`.
    pub(crate) async fn list_after(
        &self,
        prefix: &str,
        after: Option<&str>,
    ) -> Result<Vec<ObjectMeta>> {
        let Some(after) = after else {
            return self.list(prefix).await;
        };
        let path = self.path(prefix.trim_end_matches('/'));
        self.store
            .list_with_offset(Some(&path), &self.path(after))
            .try_collect()
            .await
            .map_err(|e| RemoteError::store(format!("listing {}", self.shown(prefix)), e))
    }

    /// Removes `name`; gone already is fine.
    pub(crate) async fn delete(&self, name: &str) -> Result<()> {
        match self.store.delete(&self.path(name)).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(RemoteError::store(
                format!("removing {}", self.shown(name)),
                e,
            )),
        }
    }

    /// `plain` as it is stored at `name`: sealed under the store's key with the name bound
    /// in, or as it is when the store is not encrypted.
    pub(crate) fn seal(&self, name: &str, plain: &[u8]) -> Result<Vec<u8>> {
        match &self.keys {
            Some(keys) => hotl_export::seal::seal_keyed(plain, keys.seal_key(), name.as_bytes())
                .map_err(|e| RemoteError::Config(format!("sealing {name}: {e}"))),
            None => Ok(plain.to_vec()),
        }
    }

    /// The plain bytes of what [`Bucket::seal`] stored at `name`. A sealed object that does
    /// not open (another key, changed bytes, moved from another name) is damaged.
    pub(crate) fn unseal(&self, name: &str, stored: &[u8]) -> Result<Vec<u8>> {
        match &self.keys {
            Some(keys) => hotl_export::seal::open_keyed(stored, keys.seal_key(), name.as_bytes())
                .map_err(|_| RemoteError::Damaged {
                    name: self.shown(name),
                    why: "it does not open with this key (sealed under another key, or changed)"
                        .to_owned(),
                }),
            None => Ok(stored.to_vec()),
        }
    }

    /// The object name of the blob with content hash `hash`: the hash itself, or a keyed
    /// hash of it when the store is sealed (a plain hash would let anyone confirm a guess).
    pub(crate) fn blob_name(&self, hash: &str) -> String {
        match &self.keys {
            Some(keys) => crate::layout::blob(&keys.keyed_name(hash)),
            None => crate::layout::blob(hash),
        }
    }
}

/// An object read unless unchanged.
pub(crate) enum Fetched {
    /// Its ETag is the one the reader knows.
    Unchanged,
    /// There is none.
    Missing,
    /// Its bytes as stored, and what the store says of it.
    Got(Bytes, ObjectMeta),
}
