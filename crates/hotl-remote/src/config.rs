//! The `[remote]` settings: where the store is, how sessions are published there, and what
//! is done to them before they leave the machine. Credentials are never part of them.

use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

/// The default lease: renewed every third of it, taken over once it ran out.
pub const DEFAULT_LEASE_TTL_SEC: u64 = 60;

/// When sessions are published.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Publish {
    /// At every turn's end, fold, compaction, delegated child's end and on exit, in the
    /// background.
    #[default]
    Turn,
    /// Only on `hotl sessions push`.
    Manual,
}

impl std::str::FromStr for Publish {
    type Err = String;

    /// `turn` or `manual`.
    fn from_str(name: &str) -> Result<Publish, String> {
        match name {
            "turn" => Ok(Publish::Turn),
            "manual" => Ok(Publish::Manual),
            other => Err(format!(
                "{other:?} is not a way to publish: use turn or manual"
            )),
        }
    }
}

impl Publish {
    /// Its name in `config.toml`.
    pub fn name(self) -> &'static str {
        match self {
            Publish::Turn => "turn",
            Publish::Manual => "manual",
        }
    }
}

/// `[remote]` in `config.toml`.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct RemoteConfig {
    /// The name listings show (what `hotl remote add NAME URL` named it).
    #[serde(default)]
    pub name: Option<String>,
    /// `s3://bucket/prefix`, `gs://bucket/prefix`, `az://container/prefix` or `file:///dir`.
    pub url: String,
    /// An S3-compatible server's endpoint (MinIO, R2, a local test server).
    #[serde(default)]
    pub endpoint: Option<String>,
    /// The S3 region (else `AWS_REGION`, else `us-east-1`).
    #[serde(default)]
    pub region: Option<String>,
    /// Allows plain `http://` endpoints (a local MinIO or test server).
    #[serde(default)]
    pub allow_http: bool,
    /// How long a lease lasts unless renewed, in seconds.
    #[serde(default = "default_ttl")]
    pub lease_ttl_sec: u64,
    /// When sessions are published.
    #[serde(default)]
    pub publish: Publish,
    /// Seal everything published with AES-256-GCM under the key from `key_file` or
    /// `HOTL_REMOTE_KEY`.
    #[serde(default)]
    pub encrypt: bool,
    /// The file holding the key (32 raw bytes, 64 hex characters, or base64 of 32 bytes);
    /// refused when others can read it.
    #[serde(default)]
    pub key_file: Option<PathBuf>,
    /// Redact what is published as a share is redacted (credentials, secret-looking
    /// variables' values, the home directory).
    #[serde(default)]
    pub redact: bool,
}

fn default_ttl() -> u64 {
    DEFAULT_LEASE_TTL_SEC
}

impl RemoteConfig {
    /// A remote at `url` with every other setting at its default.
    pub fn new(url: impl Into<String>) -> RemoteConfig {
        RemoteConfig {
            name: None,
            url: url.into(),
            endpoint: None,
            region: None,
            allow_http: false,
            lease_ttl_sec: DEFAULT_LEASE_TTL_SEC,
            publish: Publish::Turn,
            encrypt: false,
            key_file: None,
            redact: false,
        }
    }

    /// The lease's time to live.
    pub fn lease_ttl(&self) -> Duration {
        Duration::from_secs(self.lease_ttl_sec.max(1))
    }

    /// The name listings show: the configured one, else the URL.
    pub fn label(&self) -> &str {
        self.name.as_deref().unwrap_or(&self.url)
    }
}
