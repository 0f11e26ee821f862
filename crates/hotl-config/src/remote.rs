//! The remote store as a run uses it: `[remote]` opened with its key and the share's
//! redaction, and the run's background publisher handed to the agent.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use hotl_remote::{Bucket, Follower, Keys, Remote};

use crate::ConfigError;
use crate::file::{FileConfig, ShareConfig};

/// How long leaving a tree waits for its last publish and the lease's release.
pub const LEAVE_BOUND: Duration = Duration::from_secs(15);

/// The configured remote over `store`, opened: `None` when `[remote]` is not set. The key is
/// read (`HOTL_REMOTE_KEY`, else `key_file`) when `encrypt` is on; nothing is fetched yet.
pub fn open_remote(
    file: &FileConfig,
    store: &hotl_log::Store,
) -> hotl_remote::Result<Option<Remote>> {
    let Some(cfg) = &file.remote else {
        return Ok(None);
    };
    let mut cfg = cfg.clone();
    cfg.key_file = cfg.key_file.as_deref().map(expand_home);
    let keys = if cfg.encrypt {
        let env = hotl_sandbox::credentials::var("HOTL_REMOTE_KEY");
        Some(Keys::load(env.as_deref(), cfg.key_file.as_deref())?)
    } else {
        None
    };
    // The store's credentials were wiped from the environment block; the kept copy has them.
    let bucket = Bucket::open_with(&cfg, keys, &hotl_sandbox::credentials::var)?;
    let redactor = cfg.redact.then(|| file.share.redactor());
    Ok(Some(Remote::new(bucket, cfg, redactor, store.clone())))
}

impl ShareConfig {
    /// The redaction a share (and a redacted remote) applies: the built-in shapes, this
    /// environment's secret-looking variables, the configured secrets, and the home directory.
    pub fn redactor(&self) -> hotl_export::Redactor {
        let home = std::env::var("HOME").ok().filter(|h| !h.is_empty());
        hotl_export::Redactor::new(hotl_sandbox::credentials::vars(), &self.secrets, home)
    }
}

/// A `~/` in a configured path, expanded.
fn expand_home(path: &Path) -> PathBuf {
    match (path.strip_prefix("~"), std::env::var_os("HOME")) {
        (Ok(rest), Some(home)) => PathBuf::from(home).join(rest),
        _ => path.to_owned(),
    }
}

/// The agent's publisher: a run's [`Follower`].
#[derive(Debug)]
pub struct Publishing(pub Follower);

impl Publishing {
    /// The publisher the agent's settings take.
    pub fn of(follower: &Follower) -> Arc<dyn hotl_agent::Publisher> {
        Arc::new(Publishing(follower.clone()))
    }
}

impl hotl_agent::Publisher for Publishing {
    fn written(&self, root: &str) {
        self.0.written(root);
    }

    fn adopt(&self, root: &str) -> hotl_agent::PublishFuture<Result<(), String>> {
        let (follower, root) = (self.0.clone(), root.to_owned());
        Box::pin(async move {
            match follower.adopt(&root).await {
                Ok(None) => Ok(()),
                Ok(Some(why)) => {
                    tracing::warn!(root, "{why}");
                    Ok(())
                }
                Err(e) => Err(e.to_string()),
            }
        })
    }

    fn leave(&self, root: &str) -> hotl_agent::PublishFuture<()> {
        let (follower, root) = (self.0.clone(), root.to_owned());
        Box::pin(async move { follower.leave(&root, LEAVE_BOUND).await })
    }

    fn fenced(&self, root: &str) -> Option<String> {
        self.0.fenced(root)
    }
}

/// Where `hotl remote add` wrote the remote.
#[derive(Clone, Debug)]
pub struct RemoteAdded {
    /// The config file.
    pub path: PathBuf,
    /// Whether a `[remote]` table was there before (and is replaced).
    pub replaced: bool,
    /// The remote's name, else its URL.
    pub label: String,
    /// Its URL.
    pub url: String,
}

/// What `hotl remote add` says (whole lines).
impl std::fmt::Display for RemoteAdded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let verb = if self.replaced {
            "replaced [remote] with"
        } else {
            "added"
        };
        let (label, url, path) = (&self.label, &self.url, self.path.display());
        writeln!(f, "{verb} the remote {label} ({url}) in {path}")?;
        writeln!(f, "`hotl remote check` probes it")
    }
}

/// Writes `cfg` as `config.toml`'s `[remote]` (replacing one that is there, keeping the rest
/// of the file as written), after checking what can be checked without the network: the URL
/// reads as a store's, `encrypt` has a key, a key file is one hotl can use.
pub fn add_remote(cfg: &hotl_remote::RemoteConfig) -> crate::Result<RemoteAdded> {
    let refused = |e: hotl_remote::RemoteError| ConfigError::new(e.to_string());
    Bucket::open(cfg, None).map_err(refused)?;
    if cfg.encrypt && cfg.key_file.is_none() && std::env::var_os("HOTL_REMOTE_KEY").is_none() {
        return Err(ConfigError::new(
            "encrypt needs a key: --key-file FILE (head -c 32 /dev/urandom > FILE; chmod 600 FILE) or HOTL_REMOTE_KEY",
        ));
    }
    if let Some(file) = &cfg.key_file {
        hotl_remote::read_key_file(&expand_home(file)).map_err(refused)?;
    }
    let (path, replaced) = crate::file::edit(|doc| {
        let replaced = doc.contains_key("remote");
        doc.insert("remote", toml_edit::Item::Table(table_of(cfg)));
        replaced
    })?;
    Ok(RemoteAdded {
        path,
        replaced,
        label: cfg.label().to_owned(),
        url: cfg.url.clone(),
    })
}

/// `cfg` as a TOML table: what differs from the defaults, and the URL.
fn table_of(cfg: &hotl_remote::RemoteConfig) -> toml_edit::Table {
    let defaults = hotl_remote::RemoteConfig::new(&cfg.url);
    let mut table = toml_edit::Table::new();
    if let Some(name) = &cfg.name {
        table["name"] = toml_edit::value(name.as_str());
    }
    table["url"] = toml_edit::value(cfg.url.as_str());
    let texts = [
        ("endpoint", cfg.endpoint.clone()),
        ("region", cfg.region.clone()),
        (
            "publish",
            (cfg.publish != defaults.publish).then(|| cfg.publish.name().to_owned()),
        ),
        (
            "key_file",
            cfg.key_file.as_ref().map(|p| p.display().to_string()),
        ),
    ];
    for (key, text) in texts {
        if let Some(text) = text {
            table[key] = toml_edit::value(text);
        }
    }
    for (key, on) in [
        ("allow_http", cfg.allow_http),
        ("encrypt", cfg.encrypt),
        ("redact", cfg.redact),
    ] {
        if on {
            table[key] = toml_edit::value(true);
        }
    }
    if cfg.lease_ttl_sec != defaults.lease_ttl_sec {
        table["lease_ttl_sec"] =
            toml_edit::value(i64::try_from(cfg.lease_ttl_sec).unwrap_or(i64::MAX));
    }
    table
}
