//! One writer per tree, across processes; readers are never blocked; a dead owner blocks nobody.

use hotl_log::{Body, LogError, SessionStart, Store};
use hotl_testkit::TestResult;

use crate::child::{spawn, wait_for};

#[test]
fn second_process_cannot_write_but_can_read_and_dead_owner_frees_the_tree() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = Store::new(dir.path());
    let mut writer = store.create(SessionStart::new("/p"), 1, vec![Body::user_text("hi")])?;
    let id = writer.id().to_owned();
    writer.append(Body::Clear)?;
    drop(writer);

    let (mut child, mut out) = spawn("holder", dir.path(), &id);
    wait_for(&mut out, "LOCKED").ok_or("the holder took the lock")?;

    let err = store.writer(&id).expect_err("the tree is owned");
    match &err {
        LogError::Locked { session, owner_pid } => {
            assert_eq!(session, &id);
            assert_eq!(*owner_pid, Some(child.id()));
        }
        other => panic!("expected Locked, got {other}"),
    }
    assert!(
        err.to_string().contains(&format!("pid {}", child.id())),
        "{err}"
    );
    assert_eq!(store.lineage(&id)?.own().len(), 3, "reading needs no lock");
    assert!(store.is_owned(&id));

    child.kill()?;
    child.wait()?;
    assert!(!store.is_owned(&id));
    store.writer(&id)?.append(Body::user_text("after"))?;
    assert_eq!(store.meta(&id)?.turns, 2);
    Ok(())
}

#[test]
fn in_process_second_writer_is_refused() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = Store::new(dir.path());
    let writer = store.create(SessionStart::new("/p"), 1, vec![])?;
    let err = store
        .writer(writer.id())
        .expect_err("held by the first writer");
    assert!(matches!(err, LogError::Locked { .. }), "{err}");
    Ok(())
}
