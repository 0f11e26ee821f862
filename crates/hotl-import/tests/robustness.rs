//! Damage never fails an import: torn last line, BOM, bad JSON, unknown types, zone-less
//! timestamps, a missing working directory; every skipped line is reported with its number.

use hotl_import::Source;
use serde_json::json;

use crate::common::*;

#[test]
fn damaged_claude_file_imports_and_reports_each_line() -> TestResult {
    let home = Home::new()?;
    let good = |uuid: &str, parent: Option<&str>, text: &str| {
        json!({"type": "user", "uuid": uuid, "parentUuid": parent, "sessionId": "s",
            "cwd": "/nowhere/at/all", "timestamp": "2026-01-01T00:00:00Z",
            "message": {"role": "user", "content": text}})
        .to_string()
    };
    let mut text = String::from("\u{feff}");
    text.push_str(&good("u1", None, "one"));
    text.push('\n');
    text.push_str("{not json\n\n");
    text.push_str(&json!({"type": "shiny-new-thing", "x": 1}).to_string());
    text.push('\n');
    text.push_str(
        &json!({"type": "user", "uuid": "u2", "parentUuid": "u1", "sessionId": "s",
        "timestamp": "2026-01-01T00:00:01", "message": {"role": "user", "content": "no zone"}})
        .to_string(),
    );
    text.push('\n');
    text.push_str(&good("u3", Some("u1"), "three"));
    text.push('\n');
    text.push_str("{\"type\":\"user\",\"uuid\":");
    let path = home.dir.path().join("s.jsonl");
    std::fs::write(&path, text)?;
    let opts = hotl_import::ImportOptions::default();
    let out = hotl_import::import_foreign(&home.store, Source::Claude, &path, &opts)?;
    let reported: Vec<(usize, &str)> = out
        .report
        .lines
        .iter()
        .map(|l| (l.line, l.kind.as_str()))
        .collect();
    assert_eq!(
        reported,
        [
            (2, "bad_json"),
            (4, "shiny-new-thing"),
            (5, "timestamp_without_zone"),
            (7, "torn_line")
        ]
    );
    assert!(out.cwd_missing);
    assert_eq!(out.cwd, "/nowhere/at/all");
    let records = home.records(&out.id)?;
    assert_eq!(count(&records, "user"), 2);
    let info = import_info(&records);
    assert!(info.notes.iter().any(|n| n.contains("does not exist")));
    assert_eq!(info.skipped.get("bad_json"), Some(&1));
    Ok(())
}

#[test]
fn unchanged_file_gives_the_same_session_changed_one_links_the_earlier() -> TestResult {
    let home = Home::new()?;
    let src = fixture(CC_2064);
    let copy = home.dir.path().join("proj").join("4c2ddfdc.jsonl");
    std::fs::create_dir_all(copy.parent().ok_or("parent")?)?;
    std::fs::copy(&src, &copy)?;
    let first = home.import(Source::Claude, &copy)?;
    assert!(!first.existing);
    let again = home.import(Source::Claude, &copy)?;
    assert!(again.existing);
    assert_eq!(again.id, first.id);
    assert_eq!(home.store.session_ids()?.len(), 1);
    let mut bytes = std::fs::read(&copy)?;
    bytes.extend_from_slice(
        json!({"type": "user", "uuid": "late", "parentUuid": null, "sessionId": "4c2ddfdc-b619-4525-8d03-1950fb1b0257",
            "timestamp": "2026-01-02T00:00:00Z", "message": {"role": "user", "content": "one more"}})
        .to_string()
        .as_bytes(),
    );
    bytes.push(b'\n');
    std::fs::write(&copy, bytes)?;
    let changed = home.import(Source::Claude, &copy)?;
    assert!(!changed.existing);
    assert_ne!(changed.id, first.id);
    assert_eq!(changed.previous.as_deref(), Some(first.id.as_str()));
    let records = home.records(&changed.id)?;
    assert_eq!(
        import_info(&records).previous.as_deref(),
        Some(first.id.as_str())
    );
    Ok(())
}

#[test]
fn an_empty_file_is_not_a_session() -> TestResult {
    let home = Home::new()?;
    let path = home.dir.path().join("e.jsonl");
    std::fs::write(&path, "\n")?;
    for source in Source::ALL {
        let err = home.import(source, &path).expect_err("refused");
        assert!(err.to_string().contains("is not a"), "{err}");
    }
    Ok(())
}
