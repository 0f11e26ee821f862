//! The lease: one holder, takeover after it runs out, release, and the fence a writer that
//! lost it runs into.

use hotl_remote::RemoteError;

use crate::support::{Cloud, TestResult};

#[tokio::test]
async fn a_held_tree_is_refused_naming_its_holder() -> TestResult {
    let cloud = Cloud::new();
    let (a, b) = (
        cloud.machine("laptop", 60, None),
        cloud.machine("box", 60, None),
    );
    let id = a.session(1);
    let lease = a.remote.acquire(&id).await?;
    assert_eq!(lease.body.epoch, 1);
    match b.remote.acquire(&id).await {
        Err(RemoteError::Held { root, holder }) => {
            assert_eq!(root, id);
            assert_eq!(
                (holder.host.as_str(), holder.pid),
                ("laptop", std::process::id())
            );
            let e = RemoteError::Held { root, holder }.to_string();
            assert!(e.contains("laptop") && e.contains("runs until"), "{e}");
        }
        other => panic!("expected Held, got {other:?}"),
    }
    // Its holder takes it again (a renewal), at the same epoch.
    assert_eq!(a.remote.acquire(&id).await?.body.epoch, 1);
    Ok(())
}

/// A process on the same machine sees that the holder died: it takes the lease at once,
/// where another machine waits for it to run out.
#[tokio::test]
async fn a_lease_whose_holder_died_on_this_machine_is_taken_at_once() -> TestResult {
    let mut gone = std::process::Command::new("true").spawn()?;
    let pid = gone.id();
    gone.wait()?;
    let cloud = Cloud::new();
    let dead = cloud.machine_as("laptop", pid, 60, None);
    let id = dead.session(1);
    dead.remote.acquire(&id).await?;
    let far = cloud.machine("box", 60, None);
    assert!(
        matches!(far.remote.acquire(&id).await, Err(RemoteError::Held { .. })),
        "another machine cannot tell the holder is gone"
    );
    let here = cloud.machine("laptop", 60, None);
    assert_eq!(here.remote.acquire(&id).await?.body.epoch, 2);
    Ok(())
}

#[tokio::test]
async fn a_released_lease_is_taken_at_once_with_the_next_epoch() -> TestResult {
    let cloud = Cloud::new();
    let (a, b) = (
        cloud.machine("laptop", 60, None),
        cloud.machine("box", 60, None),
    );
    let id = a.session(1);
    let lease = a.remote.acquire(&id).await?;
    a.remote.release(&lease).await?;
    assert_eq!(b.remote.acquire(&id).await?.body.epoch, 2);
    Ok(())
}

#[tokio::test]
async fn a_lease_that_ran_out_is_taken_over_and_its_old_holder_is_fenced() -> TestResult {
    let cloud = Cloud::new();
    let (a, b) = (
        cloud.machine("laptop", 1, None),
        cloud.machine("box", 1, None),
    );
    let id = a.session(3);
    let mut old = a.remote.acquire(&id).await?;
    a.remote.publish(&mut old).await?;
    // The laptop sleeps past its lease; the box takes the tree over, catches up, writes.
    tokio::time::sleep(std::time::Duration::from_millis(2700)).await;
    let mut new = b.remote.acquire(&id).await?;
    assert_eq!(new.body.epoch, 2);
    b.remote.pull(&id).await?;
    b.grow(&id, 2);
    b.remote.publish(&mut new).await?;
    // The laptop wakes and writes: its next publish is refused, and nothing it has is lost.
    a.grow(&id, 1);
    let before = a.log(&id);
    match a.remote.publish(&mut old).await {
        Err(RemoteError::Fenced { by, .. }) => assert!(by.contains("box"), "{by}"),
        other => panic!("expected Fenced, got {other:?}"),
    }
    assert_eq!(a.log(&id), before);
    // The store holds the box's history, whole and once.
    let c = cloud.machine("third", 1, None);
    c.remote.pull(&id).await?;
    assert_eq!(c.log(&id), b.log(&id));
    Ok(())
}

#[tokio::test]
async fn a_zombie_segment_is_refused_even_when_its_lease_write_raced() -> TestResult {
    // The fence holds by segment names alone: a writer whose renewal raced a takeover still
    // names its next segment as one the new holder wrote.
    let cloud = Cloud::new();
    let (a, b) = (
        cloud.machine("laptop", 1, None),
        cloud.machine("box", 1, None),
    );
    let id = a.session(2);
    let mut lease = a.remote.acquire(&id).await?;
    a.remote.publish(&mut lease).await?;
    tokio::time::sleep(std::time::Duration::from_millis(2700)).await;
    let mut taken = b.remote.acquire(&id).await?;
    b.remote.pull(&id).await?;
    b.grow(&id, 1);
    b.remote.publish(&mut taken).await?;
    // The laptop's lease object is made to look like its own again.
    let stale = a.remote.read_lease(&id).await?.expect("a lease");
    lease.version = stale.version;
    a.grow(&id, 1);
    let e = a.remote.publish(&mut lease).await;
    assert!(matches!(e, Err(RemoteError::Fenced { .. })), "{e:?}");
    Ok(())
}
