//! Listing the store from the listing object and the end of the journal: a home that knows
//! the object lists no summaries, late journal entries are found, removed trees leave, a
//! damaged object is made again, and a sealed one says nothing.

use std::time::Duration;

use hotl_remote::{GcOptions, Keys};

use crate::support::{Cloud, Machine, TestResult};

async fn roots(m: &Machine) -> TestResult<Vec<String>> {
    let (trees, problems) = m.remote.list_trees().await?;
    assert!(problems.is_empty(), "{problems:?}");
    let mut roots: Vec<String> = trees.into_iter().map(|t| t.root).collect();
    roots.sort();
    Ok(roots)
}

fn sorted(mut ids: Vec<String>) -> Vec<String> {
    ids.sort();
    ids
}

fn summaries_listed(requests: &[String]) -> bool {
    requests.iter().any(|r| r == "list team/summaries")
}

fn summaries_read(requests: &[String]) -> usize {
    requests
        .iter()
        .filter(|r| r.starts_with("get team/summaries/"))
        .count()
}

#[tokio::test]
async fn a_known_listing_reads_only_what_changed() -> TestResult {
    let cloud = Cloud::new();
    let a = cloud.machine("laptop", 60, None);
    let b = cloud.machine("box", 60, None);
    let first = a.session(1);
    a.publish(&first).await?;
    // No listing object yet: every summary is listed once, and the object written.
    assert_eq!(roots(&b).await?, std::slice::from_ref(&first));
    assert!(summaries_listed(&cloud.faults.take_requests()));
    assert!(cloud.names().await.contains(&"team/listing".to_owned()));

    let second = a.session(1);
    a.publish(&second).await?;
    cloud.faults.take_requests();
    assert_eq!(
        roots(&b).await?,
        sorted(vec![first.clone(), second.clone()])
    );
    let requests = cloud.faults.take_requests();
    assert!(!summaries_listed(&requests), "{requests:?}");
    assert_eq!(summaries_read(&requests), 1, "{requests:?}");

    // Unchanged: nothing read but the object's tag and the journal's end.
    assert_eq!(roots(&b).await?.len(), 2);
    let requests = cloud.faults.take_requests();
    assert_eq!(summaries_read(&requests), 0, "{requests:?}");

    // A home that never listed reads the object, not every summary.
    let c = cloud.machine("ci", 60, None);
    assert_eq!(roots(&c).await?.len(), 2);
    let requests = cloud.faults.take_requests();
    assert!(!summaries_listed(&requests), "{requests:?}");
    assert!(summaries_read(&requests) <= 1, "{requests:?}");
    Ok(())
}

#[tokio::test]
async fn the_object_is_rewritten_once_it_falls_behind() -> TestResult {
    let cloud = Cloud::new();
    let a = cloud.machine("laptop", 60, None);
    let b = cloud.machine("box", 60, None);
    a.publish(&a.session(1)).await?;
    assert_eq!(roots(&b).await?.len(), 1);
    let mut made = Vec::new();
    for _ in 0..20 {
        let root = a.session(1);
        a.publish(&root).await?;
        made.push(root);
    }
    assert_eq!(roots(&b).await?.len(), 21);
    // b brought the object up to date: a new home reads (almost) no summary.
    let c = cloud.machine("ci", 60, None);
    cloud.faults.take_requests();
    assert_eq!(roots(&c).await?.len(), 21);
    let requests = cloud.faults.take_requests();
    assert!(summaries_read(&requests) <= 1, "{requests:?}");
    Ok(())
}

/// A journal entry that lands after the object was made, named by a time before its point,
/// is still read.
#[tokio::test]
async fn a_late_journal_entry_is_read() -> TestResult {
    let cloud = Cloud::new();
    let a = cloud.machine("laptop", 60, None);
    let b = cloud.machine("box", 60, None);
    a.publish(&a.session(1)).await?;
    assert_eq!(roots(&b).await?.len(), 1);
    let late = a.session(1);
    a.publish(&late).await?;
    let names = cloud.names().await;
    let entry = names
        .iter()
        .find(|n| n.starts_with("team/changes/") && n.ends_with(&late))
        .expect("a journal entry")
        .clone();
    let ms: u64 = entry["team/changes/".len()..][..16].parse()?;
    cloud.memory_delete(&entry).await;
    cloud
        .overwrite(
            &format!("team/changes/{:016}-{late}", ms - 20_000),
            Vec::new(),
        )
        .await;
    assert_eq!(roots(&b).await?.len(), 2);
    Ok(())
}

#[tokio::test]
async fn removed_trees_leave_and_a_damaged_object_is_made_again() -> TestResult {
    let cloud = Cloud::new();
    let a = cloud.machine("laptop", 60, None);
    let b = cloud.machine("box", 60, None);
    let root = a.session(1);
    a.publish(&root).await?;
    assert_eq!(roots(&b).await?, std::slice::from_ref(&root));
    let opts = GcOptions {
        older_than: Duration::ZERO,
        grace: Duration::ZERO,
        dry_run: false,
    };
    let report = a.remote.gc(opts).await?;
    assert_eq!(report.trees.len(), 1);
    assert!(roots(&b).await?.is_empty());

    let other = a.session(1);
    a.publish(&other).await?;
    cloud
        .overwrite("team/listing", b"not a listing".to_vec())
        .await;
    let c = cloud.machine("ci", 60, None);
    assert_eq!(roots(&c).await?, std::slice::from_ref(&other));
    assert_ne!(cloud.read("team/listing").await, b"not a listing");
    assert_eq!(roots(&b).await?, [other]);
    Ok(())
}

#[tokio::test]
async fn a_sealed_listing_says_nothing() -> TestResult {
    let cloud = Cloud::new();
    let keys = Keys::derive(&[9; 32]);
    let a = cloud.machine("laptop", 60, Some(keys.clone()));
    let b = cloud.machine("box", 60, Some(keys));
    let root = a.session(1);
    a.publish(&root).await?;
    assert_eq!(roots(&b).await?, [root]);
    let listing = cloud.read("team/listing").await;
    let text = String::from_utf8_lossy(&listing);
    assert!(!text.contains("/project") && !text.contains("message 0"));
    let stranger = cloud.machine("stranger", 60, Some(Keys::derive(&[1; 32])));
    assert!(stranger.remote.list_trees().await.is_err());
    Ok(())
}

#[tokio::test]
async fn gc_trims_the_journal_the_object_covers() -> TestResult {
    let cloud = Cloud::new();
    let a = cloud.machine("laptop", 60, None);
    let root = a.session(1);
    a.publish(&root).await?;
    let old = format!("team/changes/{:016}-{root}", 1_000);
    cloud.overwrite(&old, Vec::new()).await;
    let opts = GcOptions {
        older_than: Duration::from_secs(3600),
        grace: Duration::ZERO,
        dry_run: false,
    };
    let report = a.remote.gc(opts).await?;
    assert_eq!(report.journal_entries, 1);
    let names = cloud.names().await;
    assert!(!names.contains(&old), "{names:?}");
    assert!(names.iter().any(|n| n.starts_with("team/changes/")));
    Ok(())
}
