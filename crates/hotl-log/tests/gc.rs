//! drop and gc: never a session a kept one descends from, never a referenced blob.

use std::time::{Duration, SystemTime};

use hotl_log::{Block, Body, Clock, Dropped, GcOptions, SessionStart, Store};
use hotl_testkit::TestResult;

const DAY: Duration = Duration::from_secs(24 * 3600);

fn store_at(dir: &std::path::Path, t: SystemTime) -> Store {
    Store::new(dir).with_clock(Clock::Fixed(t))
}

#[test]
fn gc_removes_old_sessions_but_keeps_ancestors_of_kept_ones_and_their_blobs() -> TestResult {
    let dir = tempfile::tempdir()?;
    let now = SystemTime::now();
    let old = store_at(dir.path(), now - 60 * DAY);

    // An old parent with a blob, a young fork of it, and an old unrelated session.
    let blob = old.blobs().put(b"big tool output")?;
    let stray = old.blobs().put(b"nobody references me")?;
    let mut parent = old.create(SessionStart::new("/p"), 1, vec![])?;
    parent.append(Body::user_text("explore"))?;
    parent.append(Body::ToolResult {
        call: "c1".into(),
        content: vec![Block::text("head…tail")],
        blob: Some(blob.clone()),
        is_error: false,
        files: vec![],
    })?;
    let parent_id = parent.id().to_owned();
    drop(parent);
    let mut lone = old.create(SessionStart::new("/p"), 1, vec![Body::user_text("old")])?;
    let lone_id = lone.id().to_owned();
    lone.append(Body::Clear)?;
    drop(lone);

    let young = store_at(dir.path(), now);
    let head = young.meta(&parent_id)?;
    let pin = young.pin(&parent_id, head.last_seq, head.complete_end)?;
    let fork_id = young
        .fork(pin, "/p", vec![Body::user_text("plan")], None)?
        .id()
        .to_owned();

    // Blobs younger than the grace period are spared; age them.
    for hash in [&blob, &stray] {
        let f = std::fs::File::options()
            .write(true)
            .open(young.blobs().path(hash))?;
        f.set_modified(now - 2 * DAY)?;
    }

    let dry = young.gc(GcOptions {
        dry_run: true,
        ..GcOptions::default()
    })?;
    assert_eq!(dry.sessions.len(), 1);
    assert!(young.exists(&lone_id), "a dry run removes nothing");
    assert!(young.blobs().path(&stray).exists());

    let report = young.gc(GcOptions::default())?;
    let removed: Vec<&str> = report.sessions.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(removed, [lone_id.as_str()]);
    assert_eq!(
        report.kept_for_descendants,
        std::slice::from_ref(&parent_id)
    );
    assert!(young.exists(&parent_id) && young.exists(&fork_id));
    assert!(
        young.blobs().path(&blob).exists(),
        "referenced by kept history"
    );
    assert!(!young.blobs().path(&stray).exists());
    assert!(!young.layout().meta(&lone_id).exists());
    assert!(!young.layout().lock(&lone_id).exists());
    Ok(())
}

#[test]
fn drop_deletes_a_leaf_and_tombstones_a_parent_until_gc_finds_no_descendant() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = Store::new(dir.path());
    let parent = store.create(SessionStart::new("/p"), 1, vec![Body::user_text("a")])?;
    let parent_id = parent.id().to_owned();
    drop(parent);
    let head = store.meta(&parent_id)?;
    let pin = store.pin(&parent_id, head.last_seq, head.complete_end)?;
    let child_id = store.fork(pin, "/p", vec![], None)?.id().to_owned();

    let bytes_before = std::fs::read(store.layout().log(&parent_id))?;
    assert_eq!(
        store.drop_session(&parent_id)?,
        Dropped::Tombstoned {
            descendants: vec![child_id.clone()]
        }
    );
    assert!(std::fs::read(store.layout().log(&parent_id))?.starts_with(&bytes_before));
    assert!(store.meta(&parent_id)?.dropped);
    assert!(
        hotl_log::listed(&store.list()?, None)
            .iter()
            .all(|m| m.id != parent_id)
    );
    assert_eq!(
        store.lineage(&child_id)?.own_start,
        2,
        "the child still reads it"
    );

    // gc keeps the tombstone while the child lives.
    let report = store.gc(GcOptions::default())?;
    assert!(report.sessions.is_empty());
    assert!(store.exists(&parent_id));

    assert_eq!(store.drop_session(&child_id)?, Dropped::Deleted);
    let report = store.gc(GcOptions::default())?;
    assert_eq!(report.sessions.len(), 1);
    assert_eq!(report.sessions[0].reason, "dropped");
    assert!(!store.exists(&parent_id));
    Ok(())
}

#[test]
fn gc_spares_sessions_owned_by_a_running_process() -> TestResult {
    let dir = tempfile::tempdir()?;
    let old = store_at(dir.path(), SystemTime::now() - 90 * DAY);
    let writer = old.create(SessionStart::new("/p"), 1, vec![Body::user_text("busy")])?;
    let report = Store::new(dir.path()).gc(GcOptions::default())?;
    assert_eq!(report.spared_owned, [writer.id().to_owned()]);
    assert!(old.exists(writer.id()));
    Ok(())
}

#[test]
fn gc_removes_derived_indexes_of_sessions_that_are_gone() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = Store::new(dir.path());
    let kept = store
        .create(SessionStart::new("/p"), 1, vec![Body::user_text("kept")])?
        .id()
        .to_owned();
    let gone = "01JD0000000000000000000009";
    for sub in ["recall", "trees"] {
        std::fs::create_dir_all(store.layout().index_dir().join(sub))?;
    }
    let stale = [
        store
            .layout()
            .index_dir()
            .join("recall")
            .join(format!("{gone}.idx")),
        store
            .layout()
            .index_dir()
            .join("recall")
            .join(format!("{gone}-00000000000000ab.seg")),
        store
            .layout()
            .index_dir()
            .join("trees")
            .join(format!("{gone}.index")),
        // A hole's marker whose log never appeared.
        store
            .layout()
            .sessions_dir()
            .join(format!("{gone}.jsonl.hole")),
    ];
    let live = store
        .layout()
        .index_dir()
        .join("recall")
        .join(format!("{kept}.idx"));
    for path in stale.iter().chain([&live]) {
        std::fs::write(path, b"x")?;
    }
    // A young hole marker may belong to a pull about to write its log: only an old one goes.
    std::fs::File::options()
        .write(true)
        .open(&stale[stale.len() - 1])?
        .set_modified(SystemTime::now() - 2 * DAY)?;
    let report = store.gc(GcOptions::default())?;
    for path in &stale {
        assert!(!path.exists(), "{}", path.display());
        assert!(report.derived.contains(path));
    }
    assert!(live.exists());
    // Only derived files went: what they took is still counted.
    assert_eq!(report.freed_bytes, stale.len() as u64);
    Ok(())
}

#[test]
fn gc_keeps_a_snapshot_manifest_and_the_file_contents_it_lists() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = Store::new(dir.path());
    let content = store.blobs().put(b"fn main() {}\n")?;
    let manifest = store.blobs().put(
        format!(
            "{{\"format\":\"hotl-manifest/1\",\"files\":[\n{{\"path\":\"src/main.rs\",\"mode\":\"100644\",\"size\":13,\"blob\":\"{content}\"}}\n]}}\n"
        )
        .as_bytes(),
    )?;
    let stray = store.blobs().put(b"an old file version nobody lists")?;
    let mut session = store.create(SessionStart::new("/p"), 1, vec![Body::user_text("go")])?;
    session.append(Body::Snapshot {
        tree: format!("manifest:{manifest}"),
    })?;
    drop(session);
    let report = store.gc(GcOptions {
        grace: Duration::ZERO,
        ..GcOptions::default()
    })?;
    let removed: Vec<&str> = report.blobs.iter().map(|(h, _)| h.as_str()).collect();
    assert_eq!(removed, vec![stray.as_str()]);
    assert!(store.blobs().get(&manifest).is_ok());
    assert!(store.blobs().get(&content).is_ok());
    Ok(())
}
