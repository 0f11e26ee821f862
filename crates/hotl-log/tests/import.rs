//! Import: logs adopted byte for byte, ids checked, damage kept as it was.

use hotl_log::LogError;
use hotl_testkit::{FIXED_ID, LogBuilder, TestHome, TestResult};

#[test]
fn import_keeps_every_byte_including_unknown_fields_and_damage() -> TestResult {
    let home = TestHome::new();
    let mut log = LogBuilder::new(FIXED_ID, "/p");
    log.turn("hello");
    log.raw(
        br#"{"seq":8,"ts":"T","type":"future_kind","deep":{"a":[1,2]}}"#,
        false,
    );
    log.raw(b"not json at all", false);
    let id = home.import(&log)?;
    assert_eq!(id, FIXED_ID);
    assert_eq!(std::fs::read(home.store.layout().log(&id))?, log.text());
    Ok(())
}

#[test]
fn existing_id_is_refused_unless_new_id() -> TestResult {
    let home = TestHome::new();
    let mut log = LogBuilder::new(FIXED_ID, "/p");
    log.turn("hello");
    home.import(&log)?;
    let file = home.scratch().join("again.jsonl");
    log.write(&file)?;
    let err = home.store.import(&file, false).expect_err("id taken");
    assert!(matches!(err, LogError::Exists { .. }), "{err}");
    assert!(err.to_string().contains("--new-id"), "{err}");

    let copy = home.store.import(&file, true)?;
    assert_ne!(copy.id, FIXED_ID);
    let original = std::fs::read(&file)?;
    let adopted = std::fs::read(home.store.layout().log(&copy.id))?;
    // Only the session line changed: every later line is identical.
    let tail = |b: &[u8]| b.splitn(2, |&c| c == b'\n').nth(1).map(<[u8]>::to_vec);
    assert_eq!(tail(&original), tail(&adopted));
    assert_eq!(home.store.meta(&copy.id)?.turns, 1);
    Ok(())
}

#[test]
fn a_file_without_a_session_record_is_refused() -> TestResult {
    let home = TestHome::new();
    let file = home.scratch().join("x.jsonl");
    std::fs::write(
        &file,
        b"{\"seq\":1,\"ts\":\"T\",\"type\":\"user\",\"content\":[]}\ngarbage\n",
    )?;
    let err = home.store.import(&file, false).expect_err("no session");
    assert!(matches!(err, LogError::NotALog { .. }), "{err}");
    Ok(())
}

#[test]
fn a_session_id_that_is_not_a_ulid_needs_new_id() -> TestResult {
    let home = TestHome::new();
    let mut log = LogBuilder::new("../../etc/passwd", "/p");
    log.user("x");
    let file = home.scratch().join("evil.jsonl");
    log.write(&file)?;
    let err = home.store.import(&file, false).expect_err("not a ulid");
    assert!(err.to_string().contains("--new-id"), "{err}");
    let ok = home.store.import(&file, true)?;
    assert!(hotl_log::is_session_id(&ok.id));
    Ok(())
}

/// A pin is a file name in the end: one that is a path would make hotl read another file as
/// the session's history (and send it to the provider).
#[test]
fn a_pin_that_is_a_path_is_refused_naming_the_field() -> TestResult {
    let home = TestHome::new();
    let victim = home.scratch().join("victim");
    std::fs::create_dir_all(&victim)?;
    let mut secret = LogBuilder::new(FIXED_ID, "/elsewhere");
    secret.user("the secret history");
    secret.write(&victim.join("x.jsonl"))?;
    for pin in ["../../scratch/victim/x", "/etc/passwd"] {
        let file = home.scratch().join("evil.jsonl");
        std::fs::write(
            &file,
            format!(
                "{{\"seq\":5,\"ts\":\"T\",\"type\":\"session\",\"id\":\"01JD0000000000000000000009\",\"cwd\":\"/p\",\"parent\":{{\"session\":\"{pin}\",\"seq\":4,\"offset\":10,\"hash\":\"ab\"}}}}\n"
            ),
        )?;
        let err = home
            .store
            .import(&file, false)
            .expect_err("a path as a pin");
        let text = err.to_string();
        assert!(
            text.contains("`parent.session` is not a session id"),
            "{text}"
        );
        assert!(text.contains(pin), "{text}");
        assert!(home.store.session_ids()?.is_empty());
    }
    // So is every other id a session line names.
    let file = home.scratch().join("evil.jsonl");
    std::fs::write(
        &file,
        "{\"seq\":1,\"ts\":\"T\",\"type\":\"session\",\"id\":\"01JD0000000000000000000009\",\"cwd\":\"/p\",\"delegated\":{\"by\":\"../x\",\"description\":\"d\"}}\n",
    )?;
    let err = home
        .store
        .import(&file, false)
        .expect_err("a path as delegated.by");
    assert!(
        err.to_string()
            .contains("`delegated.by` is not a session id"),
        "{err}"
    );
    Ok(())
}

/// A session line whose unknown field nests deeper than JSON parsers build is read (the field
/// is skipped), and refused with a reason when it must be rewritten: never a panic.
#[test]
fn a_deeply_nested_unknown_field_is_refused_not_a_panic() -> TestResult {
    let home = TestHome::new();
    let deep = format!("{}1{}", "[".repeat(140), "]".repeat(140));
    let file = home.scratch().join("deep.jsonl");
    std::fs::write(
        &file,
        format!(
            "{{\"seq\":1,\"ts\":\"T\",\"type\":\"session\",\"id\":\"not-a-ulid\",\"cwd\":\"/p\",\"x\":{deep}}}\n"
        ),
    )?;
    let err = home.store.import(&file, true).expect_err("cannot rewrite");
    assert!(
        err.to_string()
            .contains("the session record cannot be rewritten"),
        "{err}"
    );
    assert!(home.store.session_ids()?.is_empty());
    Ok(())
}
