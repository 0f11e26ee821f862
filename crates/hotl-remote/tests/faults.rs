//! Faults: writes that fail before or after they land, a store gone off the network,
//! damaged, cut short, replaced and foreign objects, a prefix holding another tool's objects.

use std::sync::atomic::Ordering;

use hotl_remote::{Keys, RemoteError};

use crate::support::{Cloud, TestResult};

#[tokio::test]
async fn a_put_that_failed_is_sent_again_and_nothing_twice() -> TestResult {
    let cloud = Cloud::new();
    let (a, b) = (
        cloud.machine("laptop", 60, None),
        cloud.machine("box", 60, None),
    );
    let id = a.session(3);
    let mut lease = a.remote.acquire(&id).await?;
    a.remote.publish(&mut lease).await?;
    a.grow(&id, 1);
    // The renewal is put 1 of the next publish, the segment put 2.
    let base = cloud.faults.puts.load(Ordering::SeqCst);
    cloud.faults.fail_put.store(base + 2, Ordering::SeqCst);
    assert!(a.remote.publish(&mut lease).await.is_err());
    let published = a.remote.publish(&mut lease).await?;
    assert_eq!(published.segments, 1);
    b.remote.pull(&id).await?;
    assert_eq!(a.log(&id), b.log(&id));
    Ok(())
}

#[tokio::test]
async fn a_put_that_landed_before_it_failed_is_not_sent_twice() -> TestResult {
    let cloud = Cloud::new();
    let (a, b) = (
        cloud.machine("laptop", 60, None),
        cloud.machine("box", 60, None),
    );
    let id = a.session(3);
    let mut lease = a.remote.acquire(&id).await?;
    a.remote.publish(&mut lease).await?;
    a.grow(&id, 1);
    let base = cloud.faults.puts.load(Ordering::SeqCst);
    cloud
        .faults
        .land_then_fail
        .store(base + 2, Ordering::SeqCst);
    assert!(a.remote.publish(&mut lease).await.is_err());
    let segments = |names: &[String]| {
        names
            .iter()
            .filter(|n| n.contains(&format!("{id}/{id}/")))
            .count()
    };
    assert_eq!(segments(&cloud.names().await), 2);
    // The next publish finds its own segment there: not fenced, nothing sent again.
    let published = a.remote.publish(&mut lease).await?;
    assert_eq!(published.segments, 0);
    assert_eq!(segments(&cloud.names().await), 2);
    b.remote.pull(&id).await?;
    assert_eq!(a.log(&id), b.log(&id));
    Ok(())
}

#[tokio::test]
async fn a_store_off_the_network_says_so_and_the_next_publish_resumes() -> TestResult {
    let cloud = Cloud::new();
    let (a, b) = (
        cloud.machine("laptop", 60, None),
        cloud.machine("box", 60, None),
    );
    let id = a.session(2);
    let mut lease = a.remote.acquire(&id).await?;
    a.remote.publish(&mut lease).await?;
    a.grow(&id, 2);
    cloud.faults.offline.store(true, Ordering::SeqCst);
    let e = a.remote.publish(&mut lease).await.expect_err("offline");
    assert!(e.is_unreachable(), "{e}");
    // A pull while it is down writes nothing.
    let before = b.store.list()?.len();
    assert!(b.remote.pull(&id).await.is_err());
    assert_eq!(b.store.list()?.len(), before);
    cloud.faults.offline.store(false, Ordering::SeqCst);
    assert_eq!(a.remote.publish(&mut lease).await?.segments, 1);
    b.remote.pull(&id).await?;
    assert_eq!(a.log(&id), b.log(&id));
    Ok(())
}

/// The full name of a session's first segment.
fn first_segment(id: &str) -> String {
    format!("team/{}", hotl_remote::layout::segment(id, id, 1))
}

#[tokio::test]
async fn damaged_cut_and_replaced_segments_are_named_and_never_loaded() -> TestResult {
    let cloud = Cloud::new();
    let a = cloud.machine("laptop", 60, None);
    let id = a.session(4);
    let other = a.session(4);
    for root in [&id, &other] {
        let mut lease = a.remote.acquire(root).await?;
        a.remote.publish(&mut lease).await?;
    }
    let name = first_segment(&id);
    let good = cloud.read(&name).await;
    let mut flipped = good.clone();
    let at = flipped.len() - 10;
    flipped[at] ^= 0x20;
    let cut = good[..good.len() - 7].to_vec();
    let replaced = cloud.read(&first_segment(&other)).await;
    for (what, bytes) in [
        ("changed", flipped),
        ("cut short", cut),
        ("another name", replaced),
    ] {
        cloud.overwrite(&name, bytes).await;
        let b = cloud.machine("box", 60, None);
        let e = b.remote.pull(&id).await.expect_err(what).to_string();
        assert!(e.contains(&id) && e.contains(what), "{what}: {e}");
        assert!(!b.store.exists(&id), "{what}: nothing loaded");
    }
    Ok(())
}

#[tokio::test]
async fn the_local_copy_wins_over_a_store_that_went_another_way() -> TestResult {
    let cloud = Cloud::new();
    let (a, b) = (
        cloud.machine("laptop", 60, None),
        cloud.machine("box", 60, None),
    );
    let id = a.session(2);
    let mut lease = a.remote.acquire(&id).await?;
    a.remote.publish(&mut lease).await?;
    b.remote.pull(&id).await?;
    // The box writes on its own (no lease), the laptop publishes more.
    b.grow(&id, 3);
    a.grow(&id, 1);
    a.remote.publish(&mut lease).await?;
    let before = b.log(&id);
    let pulled = b.remote.pull(&id).await?;
    assert!(
        pulled.problems.iter().any(|p| p.contains("on its own")),
        "{pulled:?}"
    );
    assert_eq!(b.log(&id), before);
    Ok(())
}

#[tokio::test]
async fn a_prefix_holding_other_objects_is_refused_naming_the_fix() -> TestResult {
    let cloud = Cloud::new();
    cloud
        .overwrite("team/backups/db.tar", b"not hotl's".to_vec())
        .await;
    let a = cloud.machine("laptop", 60, None);
    let id = a.session(1);
    let e = a
        .remote
        .acquire(&id)
        .await
        .expect_err("refused")
        .to_string();
    assert!(
        e.contains("not hotl's") && e.contains("backups/db.tar") && e.contains("/hotl"),
        "{e}"
    );
    assert_eq!(cloud.names().await, ["team/backups/db.tar"]);
    Ok(())
}

#[tokio::test]
async fn a_store_sealed_under_another_key_is_named_before_anything_is_read() -> TestResult {
    let cloud = Cloud::new();
    let a = cloud.machine("laptop", 60, Some(Keys::derive(&[1; 32])));
    let id = a.session(1);
    let mut lease = a.remote.acquire(&id).await?;
    a.remote.publish(&mut lease).await?;
    let wrong = cloud.machine("box", 60, Some(Keys::derive(&[2; 32])));
    let e = wrong
        .remote
        .pull(&id)
        .await
        .expect_err("another key")
        .to_string();
    assert!(e.contains("another key"), "{e}");
    let none = cloud.machine("box", 60, None);
    let e = none.remote.pull(&id).await.expect_err("no key").to_string();
    assert!(e.contains("encrypt = true"), "{e}");
    assert!(!wrong.store.exists(&id) && !none.store.exists(&id));
    // A segment sealed under another key, put in place of one: damaged, named.
    let other_cloud = Cloud::new();
    let stranger = other_cloud.machine("x", 60, Some(Keys::derive(&[2; 32])));
    stranger.store.import(&a.store.layout().log(&id), false)?;
    let mut lease = stranger.remote.acquire(&id).await?;
    stranger.remote.publish(&mut lease).await?;
    let foreign = other_cloud.read(&first_segment(&id)).await;
    cloud.overwrite(&first_segment(&id), foreign).await;
    let right = cloud.machine("box", 60, Some(Keys::derive(&[1; 32])));
    match right.remote.pull(&id).await {
        Err(e @ RemoteError::Damaged { .. }) => {
            assert!(e.to_string().contains("does not open with this key"), "{e}")
        }
        other => panic!("expected Damaged, got {other:?}"),
    }
    assert!(!right.store.exists(&id));
    Ok(())
}
