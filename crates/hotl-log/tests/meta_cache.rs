//! The metadata cache may be deleted, stale or garbage at any time: it is rebuilt silently.

use hotl_log::Body;
use hotl_testkit::{FIXED_ID, LogBuilder, TestHome, TestResult};

fn home_with_session() -> TestResult<(TestHome, String)> {
    let home = TestHome::new();
    let mut log = LogBuilder::new(FIXED_ID, "/p");
    log.turn("one");
    log.turn("two");
    let id = home.import(&log)?;
    Ok((home, id))
}

#[test]
fn deleted_cache_is_rebuilt() -> TestResult {
    let (home, id) = home_with_session()?;
    let first = home.store.meta(&id)?;
    std::fs::remove_file(home.store.layout().meta(&id))?;
    assert_eq!(home.store.meta(&id)?, first);
    assert!(home.store.layout().meta(&id).exists(), "and written back");
    Ok(())
}

#[test]
fn garbage_cache_is_rebuilt() -> TestResult {
    let (home, id) = home_with_session()?;
    let first = home.store.meta(&id)?;
    for garbage in [
        &b"\x00\xffnot json"[..],
        b"{}",
        b"",
        br#"{"format":1,"id":"X"}"#,
    ] {
        std::fs::write(home.store.layout().meta(&id), garbage)?;
        assert_eq!(home.store.meta(&id)?, first);
        assert_eq!(home.store.list()?.len(), 1);
    }
    Ok(())
}

#[test]
fn stale_cache_is_rebuilt_when_the_log_grows_behind_its_back() -> TestResult {
    let (home, id) = home_with_session()?;
    assert_eq!(home.store.meta(&id)?.turns, 2);
    // Another tool appends without updating the cache.
    let path = home.store.layout().log(&id);
    let mut bytes = std::fs::read(&path)?;
    bytes.extend_from_slice(
        br#"{"seq":99,"ts":"2026-11-02T00:00:00.000Z","type":"user","content":[{"type":"text","text":"x"}]}"#,
    );
    bytes.push(b'\n');
    std::fs::write(&path, &bytes)?;
    let meta = home.store.meta(&id)?;
    assert_eq!(meta.turns, 3);
    assert_eq!(meta.updated, "2026-11-02T00:00:00.000Z");
    Ok(())
}

#[test]
fn a_stale_cache_with_a_plausible_shape_is_not_trusted() -> TestResult {
    let (home, id) = home_with_session()?;
    let mut meta = home.store.meta(&id)?;
    meta.turns = 42;
    meta.size += 1;
    std::fs::write(home.store.layout().meta(&id), serde_json::to_vec(&meta)?)?;
    assert_eq!(home.store.meta(&id)?.turns, 2);
    home.store.writer(&id)?.append(Body::Clear)?;
    assert_eq!(home.store.meta(&id)?.turns, 2);
    Ok(())
}

#[test]
fn list_cache_garbage_or_stale_is_rebuilt() -> TestResult {
    let (home, id) = home_with_session()?;
    let listed = home.store.list()?;
    assert!(home.store.layout().list_cache().exists());
    std::fs::write(home.store.layout().list_cache(), b"\x01garbage")?;
    assert_eq!(home.store.list()?, listed);
    // A writer updates the session's own cache; the list picks it up over its stale entry.
    home.store.writer(&id)?.append(Body::user_text("third"))?;
    assert_eq!(home.store.list()?[0].turns, 3);
    std::fs::remove_file(home.store.layout().meta(&id))?;
    std::fs::remove_file(home.store.layout().list_cache())?;
    assert_eq!(home.store.list()?[0].turns, 3);
    Ok(())
}
