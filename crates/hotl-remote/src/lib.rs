//! hotl's sessions on object storage the user owns (S3, GCS, Azure, R2, MinIO, a directory):
//! a store beside the home's, not a service.
//!
//! It owns the remote layout ([`layout`]), publishing a tree's logs as immutable segments and
//! its blobs by content ([`Remote::publish`]), pulling what a home lacks, checked, and never
//! half ([`Remote::pull`]), the tree's lease across machines with conditional writes and an
//! epoch ([`Remote::acquire`], [`Lease`]), sealing with the share's AES-256-GCM under the
//! user's key ([`Keys`]), redaction with the share's redactor, listings from cached summaries
//! ([`Remote::list_trees`]: one listing object and the end of a journal), the store's gc and `hotl remote check`'s probes. The
//! [`Follower`] publishes in the background while a session is written. It never decides what
//! a session shows and never prints; the home stays the truth for what it holds, and
//! everything derived stays local.
//!
//! The key choice: the store holds only what cannot be made again (logs and blobs), written
//! once and never changed; the only object ever replaced is a tree's lease (and the summary
//! listings read), and only by its holder. Segments are named by the first seq they cover, so
//! a writer that lost its lease names its next segment as one that exists, and the store
//! refuses it.
//!
//! ```
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! use std::sync::Arc;
//! use hotl_remote::{Bucket, Remote, RemoteConfig};
//!
//! let home = tempfile::tempdir().unwrap();
//! let store = hotl_log::Store::new(home.path());
//! let mut writer = store.create(hotl_log::SessionStart::new("/p"), 1, vec![]).unwrap();
//! writer.append(hotl_log::Body::user_text("hello")).unwrap();
//! let root = writer.id().to_owned();
//! drop(writer);
//!
//! let memory = Arc::new(object_store::memory::InMemory::new());
//! let bucket = Bucket::from_store(memory, "team", "memory://team", None);
//! let remote = Remote::new(bucket, RemoteConfig::new("memory://team"), None, store);
//! let mut lease = remote.acquire(&root).await.unwrap();
//! let published = remote.publish(&mut lease).await.unwrap();
//! assert_eq!(published.segments, 1);
//! # });
//! ```

#![deny(missing_docs)]

mod blobs;
mod bucket;
mod check;
mod config;
mod error;
mod follow;
mod gc;
mod key;
pub mod layout;
mod lease;
mod listing;
mod publish;
mod pull;
mod recall;
mod redact;
mod remote;
pub mod report;
mod secrets;
pub mod segment;
mod state;
mod summary;
mod view;

pub use crate::blobs::refs_in;
pub use crate::bucket::Bucket;
pub use crate::check::{Probe, Report as CheckReport};
pub use crate::config::{DEFAULT_LEASE_TTL_SEC, Publish, RemoteConfig};
pub use crate::error::{Holder, RemoteError, Result};
pub use crate::follow::Follower;
pub use crate::gc::{GcOptions, GcReport, RemovedBlob, RemovedTree};
pub use crate::key::{KEY_LEN, Keys, read_key_file};
pub use crate::lease::{Lease, LeaseBody, Seen};
pub use crate::publish::Published;
pub use crate::pull::Pulled;
pub use crate::recall::{RecallHit, RecallReport};
pub use crate::remote::{Marker, Me, Remote, hostname};
pub use crate::summary::TreeSummary;

/// The variables that hold the remote's key and cloud credentials: kept from tools, hooks and
/// MCP servers when a remote is configured.
pub const SECRET_VARS: &[&str] = &[
    "HOTL_REMOTE_KEY",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AZURE_STORAGE_ACCOUNT_KEY",
    "AZURE_STORAGE_SAS_KEY",
    "AZURE_CLIENT_SECRET",
    "GOOGLE_SERVICE_ACCOUNT_KEY",
];
