//! Appending: seqs continue, the file only grows, the cache follows along.

use hotl_log::{Body, SessionStart, Store};
use hotl_testkit::TestResult;

#[test]
fn appends_continue_numbering_and_only_grow_the_file() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = Store::new(dir.path());
    let mut writer = store.create(SessionStart::new("/p"), 1, vec![Body::user_text("one")])?;
    let id = writer.id().to_owned();
    assert_eq!(writer.next_seq(), 3);
    let before = std::fs::read(store.layout().log(&id))?;
    let r = writer.append(Body::user_text("two"))?;
    assert_eq!(r.seq, 3);
    drop(writer);
    let after = std::fs::read(store.layout().log(&id))?;
    assert!(after.starts_with(&before) && after.len() > before.len());

    let mut writer = store.writer(&id)?;
    assert_eq!(writer.append(Body::Clear)?.seq, 4);
    drop(writer);
    let meta = store.meta(&id)?;
    assert_eq!((meta.turns, meta.records, meta.last_seq), (2, 4, 4));
    Ok(())
}

#[test]
fn cache_written_by_the_writer_is_fresh_and_equals_a_rebuild() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = Store::new(dir.path());
    let mut writer = store.create(SessionStart::new("/p"), 1, vec![])?;
    let id = writer.id().to_owned();
    writer.append(Body::user_text("hello there"))?;
    writer.append(Body::Name {
        name: Some("n".into()),
    })?;
    writer.append(Body::Revert { to: 1 })?;
    writer.append(Body::user_text("again"))?;
    drop(writer);
    let cached = store.meta(&id)?;
    let rebuilt = store.rebuild_meta(&id)?;
    assert_eq!(cached, rebuilt);
    assert_eq!(cached.turns, 1, "the revert hid the first message");
    assert_eq!(cached.display_title(), "again");
    Ok(())
}

#[test]
fn session_files_are_private() -> TestResult {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir()?;
    let store = Store::new(dir.path().join("home"));
    let writer = store.create(SessionStart::new("/p"), 1, vec![])?;
    let mode = |p: &std::path::Path| -> TestResult<u32> {
        Ok(std::fs::metadata(p)?.permissions().mode() & 0o777)
    };
    assert_eq!(mode(&store.layout().log(writer.id()))?, 0o600);
    assert_eq!(mode(&store.layout().sessions_dir())?, 0o700);
    Ok(())
}
