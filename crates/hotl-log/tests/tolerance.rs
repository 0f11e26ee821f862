//! Damaged input: everything readable is loaded, every problem is reported, nothing panics.

use hotl_log::{Body, Store};
use hotl_testkit::{FIXED_ID, LogBuilder, TestHome, TestResult};

#[test]
fn corrupt_lines_non_utf8_and_unknown_records_are_skipped_and_reported() -> TestResult {
    let home = TestHome::new();
    let mut log = LogBuilder::new(FIXED_ID, "/p");
    log.turn("first");
    log.raw(b"{\"seq\": 99, this is not json", false);
    log.raw(b"\xff\xfe\xfd garbage", false);
    log.raw(
        br#"{"seq":50,"ts":"T","type":"hologram","payload":{"x":1}}"#,
        false,
    );
    log.raw(
        br#"{"seq":51,"ts":"T","type":"user","content":[{"type":"text","text":"kept"}],"mood":"odd"}"#,
        false,
    );
    let id = home.import(&log)?;
    let lineage = home.store.lineage(&id)?;
    let report = &lineage.report;
    assert_eq!(report.skipped.len(), 2);
    assert_eq!(report.skipped[1].reason, "not valid UTF-8");
    assert_eq!(report.unknown.len(), 1);
    // session, 6 turn records, the unknown record (kept), the user with an unknown field
    assert_eq!(lineage.own().len(), 9);
    let summary = report.summary().ok_or("something was skipped")?;
    assert!(summary.contains("2 corrupt lines"), "{summary}");
    assert!(summary.contains("1 record of unknown type"), "{summary}");
    Ok(())
}

#[test]
fn duplicate_and_decreasing_seqs_load_and_are_reported() -> TestResult {
    let home = TestHome::new();
    let mut log = LogBuilder::new(FIXED_ID, "/p");
    log.user("a");
    log.raw(
        br#"{"seq":2,"ts":"T","type":"user","content":[{"type":"text","text":"dup"}]}"#,
        false,
    );
    log.raw(
        br#"{"seq":1,"ts":"T","type":"user","content":[{"type":"text","text":"back"}]}"#,
        false,
    );
    let id = home.import(&log)?;
    let lineage = home.store.lineage(&id)?;
    assert_eq!(lineage.own().len(), 4);
    assert_eq!(lineage.report.seq_problems.len(), 2);
    let check = home.store.check(&id)?;
    assert!(!check.is_healthy());
    // A writer continues after the largest seq seen.
    assert_eq!(home.store.writer(&id)?.next_seq(), 3);
    Ok(())
}

#[test]
fn a_fifty_megabyte_record_loads() -> TestResult {
    let home = TestHome::new();
    let mut log = LogBuilder::new(FIXED_ID, "/p");
    log.user(&"y".repeat(50 * 1024 * 1024));
    log.assistant("ok");
    let id = home.import(&log)?;
    let lineage = home.store.lineage(&id)?;
    assert_eq!(lineage.own().len(), 3);
    assert!(lineage.report.is_clean());
    Ok(())
}

#[test]
fn an_empty_file_is_refused_for_import_and_empty_logs_on_disk_do_not_break_listing() -> TestResult {
    let home = TestHome::new();
    let empty = home.scratch().join("empty.jsonl");
    std::fs::write(&empty, b"")?;
    let err = home
        .store
        .import(&empty, false)
        .expect_err("nothing to adopt");
    assert!(err.to_string().contains("no valid session record"), "{err}");

    std::fs::create_dir_all(home.store.layout().sessions_dir())?;
    std::fs::write(home.store.layout().log(FIXED_ID), b"")?;
    assert!(home.store.list()?.is_empty());
    Ok(())
}

#[test]
fn torn_tail_is_skipped_then_terminated_by_the_next_writer_without_truncation() -> TestResult {
    let home = TestHome::new();
    let mut log = LogBuilder::new(FIXED_ID, "/p");
    log.user("a");
    log.raw(
        br#"{"seq":3,"ts":"T","type":"user","content":[{"type":"te"#,
        true,
    );
    let id = home.import(&log)?;
    let path = home.store.layout().log(&id);
    let before = std::fs::read(&path)?;
    // import terminates the tail itself; simulate a torn write on disk.
    let torn = b"{\"seq\":3,\"ts\":\"T\",\"ty";
    let mut bytes = before.clone();
    bytes.extend_from_slice(torn);
    std::fs::write(&path, &bytes)?;

    let lineage = home.store.lineage(&id)?;
    let tail = lineage.report.torn_tail.clone().ok_or("torn tail seen")?;
    assert_eq!(tail.len, torn.len() as u64);
    let mut writer = home.store.writer(&id)?;
    writer.append(Body::user_text("b"))?;
    drop(writer);
    let after = std::fs::read(&path)?;
    assert!(after.starts_with(&bytes), "nothing was truncated");
    assert_eq!(after[bytes.len()], b'\n', "the torn line was terminated");
    let lineage = home.store.lineage(&id)?;
    assert!(lineage.report.torn_tail.is_none());
    assert_eq!(
        lineage.report.skipped.len(),
        2,
        "the import's and the new terminated line"
    );
    Ok(())
}

#[test]
fn a_torn_tail_that_parses_does_not_reuse_its_seq() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = Store::new(dir.path());
    let mut writer = store.create(hotl_log::SessionStart::new("/p"), 1, vec![])?;
    let id = writer.id().to_owned();
    writer.append(Body::user_text("a"))?;
    drop(writer);
    let path = store.layout().log(&id);
    let mut bytes = std::fs::read(&path)?;
    bytes.extend_from_slice(
        br#"{"seq":3,"ts":"T","type":"user","content":[{"type":"text","text":"whole"}]}"#,
    );
    std::fs::write(&path, &bytes)?;
    let mut writer = store.writer(&id)?;
    assert_eq!(writer.append(Body::Clear)?.seq, 4);
    Ok(())
}
