//! Pulling a session without its archive: the view and the tail fetched, the middle left as
//! a hole until something reads it, publishing going on from the tail, and a damaged middle
//! refused with the hole kept.

use hotl_log::{LogError, Pin};
use hotl_remote::Pulled;

use crate::support::{Cloud, Machine, TestResult};

/// Grows `id` by `n` messages of about 20 KiB each (so the pin's 4 KiB fall in one segment).
fn grow_big(m: &Machine, id: &str, n: usize) {
    let mut writer = m.store.writer(id).expect("writable");
    for i in 0..n {
        writer
            .append(hotl_log::Body::user_text(format!(
                "{i} {}",
                "x".repeat(20_000)
            )))
            .expect("appended");
    }
}

/// A session of `a` published in three segments with a view checkpoint pinned at the end of
/// the second (`at_end`: where a checkpoint written when a session is let go, after its last
/// publish, sits) or inside the third.
async fn published_with_view(a: &Machine, at_end: bool) -> TestResult<(String, Pin)> {
    let root = a.session(3);
    grow_big(a, &root, 4);
    a.publish(&root).await?;
    grow_big(a, &root, 4);
    a.publish(&root).await?;
    if !at_end {
        grow_big(a, &root, 2);
    }
    let pin = a.store.writer(&root)?.pin_head()?;
    let checkpoint = serde_json::json!({"format": "test", "id": root, "pin": pin, "view": []});
    a.store
        .put_view_checkpoint(&root, checkpoint.to_string().as_bytes())?;
    grow_big(a, &root, 2);
    a.publish(&root).await?;
    Ok((root, pin))
}

/// A session published from `a` with its view, then pulled lazily by `b`.
struct Lazily {
    cloud: Cloud,
    a: Machine,
    b: Machine,
    root: String,
    pin: Pin,
    pulled: Pulled,
}

async fn lazily(at_end: bool) -> TestResult<Lazily> {
    let cloud = Cloud::new();
    let a = cloud.machine("laptop", 60, None);
    let (root, pin) = published_with_view(&a, at_end).await?;
    let b = cloud.machine("box", 60, None);
    let pulled = b.remote.pull_lazily(&root).await?.ok_or("pulled lazily")?;
    Ok(Lazily {
        cloud,
        a,
        b,
        root,
        pin,
        pulled,
    })
}

#[tokio::test]
async fn a_session_opens_from_its_view_and_tail_and_fills_when_read() -> TestResult {
    let Lazily {
        a,
        b,
        root,
        pin,
        pulled,
        ..
    } = lazily(false).await?;
    assert!(pulled.left_in_store > 100_000, "{pulled:?}");
    let whole = a.log(&root);
    assert!(pulled.bytes < whole.len() as u64 / 2, "{pulled:?}");
    let hole = b.store.hole(&root).ok_or("a hole")?;
    assert!(hole.from > 0 && hole.to <= pin.offset);
    // What opening from the checkpoint reads works without the middle.
    assert_eq!(b.store.log_hash(&root, pin.offset)?, pin.hash);
    assert_eq!(b.store.read_after(&root, pin.offset)?.records.len(), 2);
    assert_eq!(b.store.read_start(&root)?.id, root);
    assert_eq!(b.store.meta(&root)?.last_seq, a.store.meta(&root)?.last_seq);
    assert!(std::fs::read(b.store.view_checkpoint_path(&root)).is_ok());
    // A whole read is refused, never read as zeros.
    assert!(matches!(b.store.read(&root), Err(LogError::Hole { .. })));

    let filled = b.remote.fill(&root).await?;
    assert!(filled.segments >= 1);
    assert!(b.store.hole(&root).is_none());
    assert_eq!(b.log(&root), whole);
    assert_eq!(b.store.read(&root)?.records.len(), 16);
    Ok(())
}

#[tokio::test]
async fn a_view_pinned_at_a_segments_end_needs_no_segment_before_it() -> TestResult {
    let Lazily {
        a,
        b,
        root,
        pin,
        pulled,
        ..
    } = lazily(true).await?;
    assert_eq!(pulled.segments, 1, "{pulled:?}");
    assert_eq!(b.store.log_hash(&root, pin.offset)?, pin.hash);
    b.remote.fill(&root).await?;
    assert_eq!(b.log(&root), a.log(&root));
    Ok(())
}

#[tokio::test]
async fn publishing_goes_on_from_the_tail() -> TestResult {
    let Lazily { a, b, root, .. } = lazily(false).await?;
    b.grow(&root, 2);
    b.publish(&root).await?;
    assert!(b.store.hole(&root).is_some(), "publishing read no archive");
    a.remote.pull(&root).await?;
    let (a_log, b_log) = (a.log(&root), b.log(&root));
    assert_eq!(a_log.len(), b_log.len());
    let hole = b.store.hole(&root).ok_or("a hole")?;
    assert_eq!(a_log[hole.to as usize..], b_log[hole.to as usize..]);
    Ok(())
}

#[tokio::test]
async fn catching_up_keeps_the_archive_in_the_store() -> TestResult {
    let Lazily { a, b, root, .. } = lazily(false).await?;
    a.grow(&root, 3);
    a.publish(&root).await?;
    let pulled = b.remote.pull(&root).await?;
    assert_eq!(pulled.segments, 1, "{pulled:?}");
    assert!(
        b.store.hole(&root).is_some(),
        "the catch-up read no archive"
    );
    assert_eq!(b.store.meta(&root)?.last_seq, a.store.meta(&root)?.last_seq);
    b.remote.fill(&root).await?;
    assert_eq!(b.log(&root), a.log(&root));
    Ok(())
}

#[tokio::test]
async fn a_damaged_archive_is_refused_and_the_hole_kept() -> TestResult {
    let Lazily { cloud, b, root, .. } = lazily(false).await?;
    let first = cloud
        .names()
        .await
        .into_iter()
        .find(|n| n.starts_with(&format!("team/trees/{root}/{root}/0")))
        .ok_or("a segment")?;
    let mut bytes = cloud.read(&first).await;
    let last = bytes.len() - 2;
    bytes[last] ^= 1;
    cloud.overwrite(&first, bytes).await;
    let err = b.remote.fill(&root).await.expect_err("damaged");
    assert!(err.to_string().contains(&first), "{err}");
    assert!(b.store.hole(&root).is_some());
    Ok(())
}

#[tokio::test]
async fn without_a_view_nothing_is_pulled_lazily() -> TestResult {
    let cloud = Cloud::new();
    let a = cloud.machine("laptop", 60, None);
    let root = a.session(3);
    a.publish(&root).await?;
    let b = cloud.machine("box", 60, None);
    assert!(b.remote.pull_lazily(&root).await?.is_none());
    assert!(!b.store.exists(&root));
    Ok(())
}

/// A view that is not one, or whose pinned bytes do not hash as its pin says, is not used:
/// nothing is written lazily, and the whole pull still works.
#[tokio::test]
async fn a_damaged_or_lying_view_falls_back_to_a_whole_pull() -> TestResult {
    let cloud = Cloud::new();
    let a = cloud.machine("laptop", 60, None);
    let (root, _) = published_with_view(&a, false).await?;
    let name = format!("team/trees/{root}/{root}/view");
    let view: serde_json::Value = serde_json::from_slice(&cloud.read(&name).await)?;
    let mut lying = view.clone();
    lying["before"] = serde_json::json!("bm90IHRoZSBsb2c=");
    for bad in [b"not a view".to_vec(), serde_json::to_vec(&lying)?] {
        cloud.overwrite(&name, bad).await;
        let b = cloud.machine("box", 60, None);
        assert!(b.remote.pull_lazily(&root).await?.is_none());
        assert!(!b.store.exists(&root));
        b.remote.pull(&root).await?;
        assert_eq!(b.log(&root), a.log(&root));
        assert!(b.store.hole(&root).is_none());
    }
    Ok(())
}
