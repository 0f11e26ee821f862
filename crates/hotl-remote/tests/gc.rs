//! gc of the store keeps what a kept tree descends from and its blobs, spares held trees
//! and young blobs.

use std::time::Duration;

use hotl_log::Body;
use hotl_remote::GcOptions;

use crate::support::{Cloud, TestResult};

#[tokio::test]
async fn old_trees_go_but_a_kept_forks_parent_and_its_blobs_stay() -> TestResult {
    let cloud = Cloud::new();
    let a = cloud.machine("laptop", 60, None);
    let blob = a.store.blobs().put(b"the parent's output")?;
    let parent = a.session(1);
    let mut writer = a.store.writer(&parent)?;
    writer.append(Body::ToolResult {
        call: "c".into(),
        content: vec![],
        blob: Some(blob.clone()),
        is_error: false,
        files: vec![],
    })?;
    let pin = writer.pin_head()?;
    drop(writer);
    let lonely = a.session(1);
    let fork = a
        .store
        .fork(pin, "/project", vec![Body::user_text("on")], None)?
        .id()
        .to_owned();
    for root in [&parent, &lonely, &fork] {
        a.publish(root).await?;
    }
    // Everything is "old" next to a zero age, but the fork is held by another process.
    let other = cloud.machine("box", 60, None);
    let held = other.remote.acquire(&fork).await?;
    let opts = GcOptions {
        older_than: Duration::ZERO,
        grace: Duration::ZERO,
        dry_run: false,
    };
    let report = a.remote.gc(opts).await?;
    let gone: Vec<&str> = report.trees.iter().map(|t| t.root.as_str()).collect();
    assert_eq!(gone, [lonely.as_str()]);
    assert_eq!(report.spared_held, [fork.as_str()]);
    assert_eq!(report.kept_for_descendants, [parent.as_str()]);
    let names = cloud.names().await;
    // Only its journal entries name it (removed by a gc once a day old).
    assert!(
        !names
            .iter()
            .any(|n| n.contains(&lonely) && !n.starts_with("team/changes/")),
        "{names:?}"
    );
    assert!(
        names.iter().any(|n| n.ends_with(&blob)),
        "the parent's blob stays"
    );
    drop(held);
    Ok(())
}
