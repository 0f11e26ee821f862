//! `hotl remote check`'s probes against a store that does what leases need, one that lets
//! conditional writes through (as some S3 servers do), and one without conditional updates.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use hotl_remote::{Bucket, Remote, RemoteConfig, RemoteError};

use crate::support::{Cloud, TestResult};

#[tokio::test]
async fn a_store_that_keeps_its_conditions_passes_every_probe() -> TestResult {
    let cloud = Cloud::new();
    let a = cloud.machine("laptop", 60, None);
    let report = a.remote.check().await?;
    assert!(report.ok(), "{report:?}");
    let names: Vec<&str> = report.probes.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "list",
            "write",
            "read",
            "range",
            "create_once",
            "stale_update"
        ]
    );
    assert!(
        !cloud.names().await.iter().any(|n| n.contains("probes/")),
        "probes are removed"
    );
    Ok(())
}

#[tokio::test]
async fn a_store_that_accepts_what_it_should_refuse_is_caught_and_used_read_only() -> TestResult {
    let cloud = Cloud::new();
    cloud.faults.lax.store(true, Ordering::SeqCst);
    let a = cloud.machine("laptop", 60, None);
    let report = a.remote.check().await?;
    assert!(!report.ok());
    let failed: Vec<&str> = report
        .probes
        .iter()
        .filter(|p| !p.ok)
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(failed, ["create_once", "stale_update"]);
    assert!(
        a.remote
            .read_only()
            .is_some_and(|why| why.contains("second create"))
    );
    let id = a.session(1);
    let follower = hotl_remote::Follower::start(Arc::new(a.remote));
    match follower.adopt(&id).await {
        Err(RemoteError::ReadOnly { why, .. }) => assert!(why.contains("create_once"), "{why}"),
        other => panic!("expected read-only, got {other:?}"),
    }
    Ok(())
}

#[tokio::test]
async fn a_directory_store_cannot_hold_leases_and_says_why() -> TestResult {
    let dir = tempfile::tempdir()?;
    let home = tempfile::tempdir()?;
    let url = format!("file://{}", dir.path().display());
    let cfg = RemoteConfig::new(&url);
    let bucket = Bucket::open(&cfg, None)?;
    let remote = Remote::new(bucket, cfg, None, hotl_log::Store::new(home.path()));
    let report = remote.check().await?;
    let stale = report
        .probes
        .iter()
        .find(|p| p.name == "stale_update")
        .expect("probed");
    assert!(!stale.ok, "{report:?}");
    assert!(
        report
            .probes
            .iter()
            .find(|p| p.name == "create_once")
            .is_some_and(|p| p.ok)
    );
    Ok(())
}

#[test]
fn urls_hotl_cannot_use_are_refused_by_name() {
    for (url, words) in [
        ("bucket/prefix", "not a store URL"),
        ("ftp://x/y", "scheme \"ftp\""),
        ("s3://", "names no bucket"),
    ] {
        let e = Bucket::open(&RemoteConfig::new(url), None)
            .expect_err(url)
            .to_string();
        assert!(e.contains(words), "{url}: {e}");
    }
    let _ = Arc::new(());
}
