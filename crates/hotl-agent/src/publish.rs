//! Where a session's tree is published beyond this machine, as the agent sees it: told when
//! something worth publishing was written (a turn's end, a move, a child's end), asked before
//! it writes a tree it switches to, told when it leaves one, and asked whether this process
//! may still write. The agent never waits on the publishing itself.

use std::future::Future;
use std::pin::Pin;

/// A future a [`Publisher`] answers with.
pub type PublishFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// What the agent tells the place its trees are published to (see the module docs).
pub trait Publisher: Send + Sync + std::fmt::Debug {
    /// Something worth publishing was written to `root`'s tree. Returns at once.
    fn written(&self, root: &str);

    /// The agent is about to write `root`'s tree (a session switched to): `Err` says why it
    /// may not (another machine holds it).
    fn adopt(&self, root: &str) -> PublishFuture<Result<(), String>>;

    /// The agent left `root`'s tree: what is pending is published and the tree let go.
    fn leave(&self, root: &str) -> PublishFuture<()>;

    /// Why this process may no longer write `root`'s tree (another took it over), if so.
    fn fenced(&self, root: &str) -> Option<String>;
}
