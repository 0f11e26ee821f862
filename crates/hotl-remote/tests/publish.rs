//! Publishing and pulling: byte-identical copies, only new bytes moved, blobs once, forks
//! with their ancestors.

use hotl_log::Body;

use crate::support::{Cloud, TestResult};

#[tokio::test]
async fn a_pulled_session_is_the_published_one_byte_for_byte() -> TestResult {
    let cloud = Cloud::new();
    let (a, b) = (
        cloud.machine("laptop", 60, None),
        cloud.machine("box", 60, None),
    );
    let id = a.session(5);
    let mut lease = a.remote.acquire(&id).await?;
    let published = a.remote.publish(&mut lease).await?;
    assert_eq!((published.segments, published.sessions.len()), (1, 1));
    let pulled = b.remote.pull(&id).await?;
    assert_eq!(pulled.sessions, [id.as_str()]);
    assert_eq!(a.log(&id), b.log(&id));
    assert_eq!(b.store.meta(&id)?.turns, 5);
    // Nothing new: nothing moves.
    assert_eq!(b.remote.pull(&id).await?.segments, 0);
    assert_eq!(a.remote.publish(&mut lease).await?.segments, 0);
    Ok(())
}

#[tokio::test]
async fn a_second_push_moves_only_the_new_segment_and_a_pull_only_it() -> TestResult {
    let cloud = Cloud::new();
    let (a, b) = (
        cloud.machine("laptop", 60, None),
        cloud.machine("box", 60, None),
    );
    let id = a.session(50);
    let mut lease = a.remote.acquire(&id).await?;
    let first = a.remote.publish(&mut lease).await?;
    b.remote.pull(&id).await?;
    a.grow(&id, 2);
    let second = a.remote.publish(&mut lease).await?;
    assert_eq!(second.segments, 1);
    assert!(second.bytes < first.bytes / 5, "{second:?} after {first:?}");
    let pulled = b.remote.pull(&id).await?;
    assert_eq!(pulled.segments, 1);
    assert_eq!(a.log(&id), b.log(&id));
    Ok(())
}

#[tokio::test]
async fn blobs_go_once_and_come_back_checked() -> TestResult {
    let cloud = Cloud::new();
    let (a, b) = (
        cloud.machine("laptop", 60, None),
        cloud.machine("box", 60, None),
    );
    let big = a.store.blobs().put(b"a large tool output")?;
    let id = a.session(1);
    let mut writer = a.store.writer(&id)?;
    writer.append(Body::ToolResult {
        call: "c1".into(),
        content: vec![hotl_log::Block::text("short")],
        blob: Some(big.clone()),
        is_error: false,
        files: vec![],
    })?;
    drop(writer);
    let other = a.session(0);
    let mut writer = a.store.writer(&other)?;
    writer.append(Body::ToolResult {
        call: "c2".into(),
        content: vec![hotl_log::Block::text("short")],
        blob: Some(big.clone()),
        is_error: false,
        files: vec![],
    })?;
    drop(writer);
    let mut lease = a.remote.acquire(&id).await?;
    assert_eq!(a.remote.publish(&mut lease).await?.blobs, 1);
    let mut lease = a.remote.acquire(&other).await?;
    assert_eq!(a.remote.publish(&mut lease).await?.blobs, 0, "stored once");
    let pulled = b.remote.pull(&other).await?;
    assert_eq!(pulled.blobs, 1);
    assert_eq!(b.store.blobs().get(&big)?, b"a large tool output");
    Ok(())
}

#[tokio::test]
async fn a_fork_comes_with_its_parent_and_reads_through_its_pin() -> TestResult {
    let cloud = Cloud::new();
    let (a, b) = (
        cloud.machine("laptop", 60, None),
        cloud.machine("box", 60, None),
    );
    let parent = a.session(3);
    let pin = a.store.writer(&parent)?.pin_head()?;
    let fork = a
        .store
        .fork(pin, "/project", vec![Body::user_text("forked")], None)?;
    let fork_id = fork.id().to_owned();
    drop(fork);
    for root in [&parent, &fork_id] {
        let mut lease = a.remote.acquire(root).await?;
        a.remote.publish(&mut lease).await?;
    }
    let pulled = b.remote.pull(&fork_id).await?;
    assert_eq!(pulled.roots.len(), 2, "{pulled:?}");
    let lineage = b.store.lineage(&fork_id)?;
    assert!(lineage.problems.is_empty(), "{:?}", lineage.problems);
    assert_eq!(
        lineage.records.len(),
        a.store.lineage(&fork_id)?.records.len()
    );
    Ok(())
}

#[tokio::test]
async fn a_tree_comes_whole_and_its_children_grow() -> TestResult {
    let cloud = Cloud::new();
    let (a, b) = (
        cloud.machine("laptop", 60, None),
        cloud.machine("box", 60, None),
    );
    let root = a.session(2);
    let writer = a.store.writer(&root)?;
    let pin = writer.pin_head()?;
    let mut child = writer.delegate(
        pin,
        "/project",
        vec![Body::user_text("the task")],
        hotl_log::Delegation {
            by: root.clone(),
            agent: Some("fork".into()),
            description: "a task".into(),
            handle: Some("c0de".into()),
            call: None,
            at: None,
            agent_blob: None,
            background: false,
        },
    )?;
    let child_id = child.id().to_owned();
    let mut lease = a.remote.acquire(&root).await?;
    a.remote.publish(&mut lease).await?;
    b.remote.pull(&root).await?;
    assert_eq!(b.store.tree_children(&root)?, [child_id.as_str()]);
    child.append(Body::user_text("more work"))?;
    drop(child);
    drop(writer);
    a.remote.publish(&mut lease).await?;
    let pulled = b.remote.pull(&root).await?;
    assert_eq!(pulled.sessions, [child_id.as_str()]);
    assert_eq!(a.log(&child_id), b.log(&child_id));
    // The listing finds the child by its id prefix, in its tree.
    assert_eq!(
        b.remote.find(&child_id[..20]).await?,
        (root.clone(), child_id)
    );
    Ok(())
}
