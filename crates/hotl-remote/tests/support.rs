//! Test support: machines (homes) over one in-memory store, and a store wrapper that
//! injects faults: a put that fails before writing, one that fails after the write landed,
//! slow listings, a store gone off the network, and one that lets conditional writes through
//! as an S3 server without them does.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use futures_util::stream::BoxStream;
use hotl_log::{Body, SessionStart, Store};
use hotl_remote::{Bucket, Keys, Me, Remote, RemoteConfig};
use object_store::memory::InMemory;
use object_store::path::Path;
use object_store::{
    CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore,
    PutMode, PutMultipartOptions, PutOptions, PutPayload, PutResult,
};

pub type TestResult<T = ()> = Result<T, Box<dyn std::error::Error>>;

/// The faults to inject; each counter counts puts from 1, 0 is off.
#[derive(Debug, Default)]
pub struct Faults {
    /// The put with this number fails before anything is written.
    pub fail_put: AtomicUsize,
    /// The put with this number is written, then reported failed.
    pub land_then_fail: AtomicUsize,
    /// Puts so far.
    pub puts: AtomicUsize,
    /// Every request fails as if the network were down.
    pub offline: AtomicBool,
    /// Conditional writes are written as plain ones.
    pub lax: AtomicBool,
    /// Listings take this many milliseconds.
    pub slow_list_ms: AtomicUsize,
    /// Every read and listing so far: `get <path>`, `list <prefix>`.
    pub requests: std::sync::Mutex<Vec<String>>,
}

impl Faults {
    /// The requests recorded since the last call, which forgets them.
    pub fn take_requests(&self) -> Vec<String> {
        std::mem::take(&mut *self.requests.lock().expect("not poisoned"))
    }

    fn record(&self, request: String) {
        self.requests.lock().expect("not poisoned").push(request);
    }
}

/// An in-memory store with [`Faults`].
#[derive(Debug)]
pub struct Faulty {
    pub inner: Arc<InMemory>,
    pub faults: Arc<Faults>,
}

impl std::fmt::Display for Faulty {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Faulty")
    }
}

fn down() -> object_store::Error {
    object_store::Error::Generic {
        store: "faulty",
        source: "error sending request: Connection refused".into(),
    }
}

#[async_trait]
impl ObjectStore for Faulty {
    async fn put_opts(
        &self,
        location: &Path,
        payload: PutPayload,
        mut opts: PutOptions,
    ) -> object_store::Result<PutResult> {
        if self.faults.offline.load(Ordering::SeqCst) {
            return Err(down());
        }
        let n = self.faults.puts.fetch_add(1, Ordering::SeqCst) + 1;
        if self.faults.fail_put.load(Ordering::SeqCst) == n {
            return Err(down());
        }
        if self.faults.lax.load(Ordering::SeqCst) {
            opts.mode = PutMode::Overwrite;
        }
        let put = self.inner.put_opts(location, payload, opts).await?;
        if self.faults.land_then_fail.load(Ordering::SeqCst) == n {
            return Err(down());
        }
        Ok(put)
    }

    async fn put_multipart_opts(
        &self,
        location: &Path,
        opts: PutMultipartOptions,
    ) -> object_store::Result<Box<dyn MultipartUpload>> {
        self.inner.put_multipart_opts(location, opts).await
    }

    async fn get_opts(
        &self,
        location: &Path,
        options: GetOptions,
    ) -> object_store::Result<GetResult> {
        if self.faults.offline.load(Ordering::SeqCst) {
            return Err(down());
        }
        self.faults.record(format!("get {location}"));
        self.inner.get_opts(location, options).await
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, object_store::Result<Path>>,
    ) -> BoxStream<'static, object_store::Result<Path>> {
        if self.faults.offline.load(Ordering::SeqCst) {
            return Box::pin(futures_util::stream::once(async { Err(down()) }));
        }
        self.inner.delete_stream(locations)
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, object_store::Result<ObjectMeta>> {
        if self.faults.offline.load(Ordering::SeqCst) {
            return Box::pin(futures_util::stream::once(async { Err(down()) }));
        }
        let shown = prefix.map(|p| p.to_string()).unwrap_or_default();
        self.faults.record(format!("list {shown}"));
        let delay = self.faults.slow_list_ms.load(Ordering::SeqCst) as u64;
        let inner = self.inner.list(prefix);
        if delay == 0 {
            return inner;
        }
        Box::pin(futures_util::StreamExt::flatten(
            futures_util::stream::once(async move {
                tokio::time::sleep(Duration::from_millis(delay)).await;
                inner
            }),
        ))
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> object_store::Result<ListResult> {
        self.inner.list_with_delimiter(prefix).await
    }

    async fn copy_opts(
        &self,
        from: &Path,
        to: &Path,
        options: CopyOptions,
    ) -> object_store::Result<()> {
        self.inner.copy_opts(from, to, options).await
    }
}

/// One store that machines share.
pub struct Cloud {
    pub memory: Arc<InMemory>,
    pub faults: Arc<Faults>,
}

impl Cloud {
    pub fn new() -> Cloud {
        Cloud {
            memory: Arc::new(InMemory::new()),
            faults: Arc::new(Faults::default()),
        }
    }

    /// A machine: its own home, this store under `team/`, a lease of `ttl_sec`; its hotl
    /// process is this one.
    pub fn machine(&self, host: &str, ttl_sec: u64, keys: Option<Keys>) -> Machine {
        self.machine_as(host, std::process::id(), ttl_sec, keys)
    }

    /// [`Cloud::machine`] whose hotl process has the id `pid`.
    pub fn machine_as(&self, host: &str, pid: u32, ttl_sec: u64, keys: Option<Keys>) -> Machine {
        let dir = tempfile::tempdir().expect("a temp dir");
        let store = Store::new(dir.path().join("home"));
        let faulty = Arc::new(Faulty {
            inner: Arc::clone(&self.memory),
            faults: Arc::clone(&self.faults),
        });
        let bucket = Bucket::from_store(faulty, "team", "memory://team", keys.clone());
        let mut cfg = RemoteConfig::new("memory://team");
        cfg.lease_ttl_sec = ttl_sec;
        cfg.encrypt = keys.is_some();
        let me = Me {
            nonce: ulid::Ulid::generate().to_string(),
            host: host.to_owned(),
            pid,
        };
        let remote = Remote::new(bucket, cfg, None, store.clone()).with_me(me);
        Machine {
            _dir: dir,
            store,
            remote,
        }
    }

    /// Every object name in the store.
    pub async fn names(&self) -> Vec<String> {
        use futures_util::TryStreamExt;
        let metas: Vec<ObjectMeta> = self.memory.list(None).try_collect().await.expect("listed");
        let mut names: Vec<String> = metas.into_iter().map(|m| m.location.to_string()).collect();
        names.sort();
        names
    }

    /// Replaces the object `name` (full path) with `bytes`.
    pub async fn overwrite(&self, name: &str, bytes: Vec<u8>) {
        self.memory
            .put_opts(
                &Path::from(name),
                PutPayload::from(bytes),
                PutOptions::default(),
            )
            .await
            .expect("overwritten");
    }

    /// Removes the object `name` (full path).
    pub async fn memory_delete(&self, name: &str) {
        use object_store::ObjectStoreExt;
        self.memory
            .delete(&Path::from(name))
            .await
            .expect("removed");
    }

    /// The bytes of `name` (full path).
    pub async fn read(&self, name: &str) -> Vec<u8> {
        use object_store::ObjectStoreExt;
        self.memory
            .get(&Path::from(name))
            .await
            .expect("there")
            .bytes()
            .await
            .expect("read")
            .to_vec()
    }
}

/// One machine: a home and its view of the store.
pub struct Machine {
    _dir: tempfile::TempDir,
    pub store: Store,
    pub remote: Remote,
}

impl Machine {
    /// A new root session with `n` user messages.
    pub fn session(&self, n: usize) -> String {
        let mut writer = self
            .store
            .create(SessionStart::new("/project"), 1, vec![])
            .expect("created");
        for i in 0..n {
            writer
                .append(Body::user_text(format!("message {i}")))
                .expect("appended");
        }
        writer.id().to_owned()
    }

    /// Publishes the tree `root` under its lease, then lets the lease go.
    pub async fn publish(&self, root: &str) -> TestResult {
        let mut lease = self.remote.acquire(root).await?;
        self.remote.publish(&mut lease).await?;
        self.remote.release(&lease).await?;
        Ok(())
    }

    /// Appends `n` more user messages to `id`.
    pub fn grow(&self, id: &str, n: usize) {
        let mut writer = self.store.writer(id).expect("writable");
        for i in 0..n {
            writer
                .append(Body::user_text(format!("more {i}")))
                .expect("appended");
        }
    }

    /// The bytes of a session's log.
    pub fn log(&self, id: &str) -> Vec<u8> {
        std::fs::read(self.store.layout().log(id)).expect("a log")
    }
}
