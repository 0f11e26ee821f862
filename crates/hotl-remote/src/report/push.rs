//! `hotl sessions push`: trees published now, each under its lease, only what the store lacks.

use std::sync::Arc;
use std::time::Duration;

use hotl_text::plural;
use serde::Serialize;

use super::{Failed, Report, Shown, short};
use crate::error::Result;
use crate::follow::Follower;
use crate::publish::Published;
use crate::remote::Remote;

/// How long a push waits, at its end, for the leases it took to be let go.
const LEAVE_BOUND: Duration = Duration::from_secs(30);

/// What `hotl sessions push` did.
#[derive(Clone, Debug, Serialize)]
pub struct PushReport {
    /// The store (its name, else its URL).
    pub remote: String,
    /// Each tree published (one with nothing new sent nothing).
    pub pushed: Vec<Published>,
    /// Trees that could not be published.
    pub failed: Vec<Failed>,
}

impl Remote {
    /// Publishes `roots` in order, each under its lease (taken and let go here); a tree that
    /// fails does not stop the others.
    pub async fn push(self: &Arc<Self>, roots: Vec<String>) -> PushReport {
        let follower = Follower::start(Arc::clone(self));
        let mut report = PushReport {
            remote: self.cfg.label().to_owned(),
            pushed: Vec::new(),
            failed: Vec::new(),
        };
        for root in roots {
            match follower.publish_now(&root).await {
                Ok(published) => report.pushed.push(published),
                Err(e) => report.failed.push(Failed {
                    root,
                    error: e.to_string(),
                }),
            }
        }
        follower.finish(LEAVE_BOUND).await;
        report
    }
}

/// The trees of `id` and of everything it descends from, oldest first: a fork published
/// without its parent would have no history elsewhere.
pub fn lineage_roots(store: &hotl_log::Store, id: &str) -> Result<Vec<String>> {
    let mut roots = vec![store.root_of(id)];
    let mut pin = store.read_start(id)?.parent;
    while let Some(p) = pin.take() {
        let root = store.root_of(&p.session);
        if roots.contains(&root) || roots.len() > hotl_log::MAX_ANCESTORS {
            break;
        }
        roots.push(root);
        pin = store.read_start(&p.session).ok().and_then(|s| s.parent);
    }
    roots.reverse();
    Ok(roots)
}

impl Report for PushReport {
    fn text(&self, _: &Shown) -> String {
        let mut out = String::new();
        for p in &self.pushed {
            if p.segments == 0 && p.blobs == 0 {
                out += &format!("{} is up to date in {}\n", short(&p.root), self.remote);
            } else {
                out += &format!(
                    "pushed {} to {}: {} ({} bytes), {} ({} bytes)\n",
                    short(&p.root),
                    self.remote,
                    plural(p.segments, "segment"),
                    p.bytes,
                    plural(p.blobs, "blob"),
                    p.blob_bytes
                );
            }
        }
        out
    }

    fn warnings(&self) -> Vec<String> {
        self.failed
            .iter()
            .map(|f| format!("{} not pushed: {}", short(&f.root), f.error))
            .collect()
    }

    fn ok(&self) -> bool {
        self.failed.is_empty()
    }
}
