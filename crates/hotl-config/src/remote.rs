//! The remote store as a run uses it: `[remote]` opened with its key and the share's
//! redaction, and the run's background publisher handed to the agent.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use hotl_remote::{Bucket, Follower, Keys, Remote};

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
        let env = std::env::var("HOTL_REMOTE_KEY").ok();
        Some(Keys::load(env.as_deref(), cfg.key_file.as_deref())?)
    } else {
        None
    };
    let bucket = Bucket::open(&cfg, keys)?;
    let redactor = cfg.redact.then(|| file.share.redactor());
    Ok(Some(Remote::new(bucket, cfg, redactor, store.clone())))
}

impl ShareConfig {
    /// The redaction a share (and a redacted remote) applies: the built-in shapes, this
    /// environment's secret-looking variables, the configured secrets, and the home directory.
    pub fn redactor(&self) -> hotl_export::Redactor {
        let home = std::env::var("HOME").ok().filter(|h| !h.is_empty());
        hotl_export::Redactor::new(std::env::vars(), &self.secrets, home)
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
