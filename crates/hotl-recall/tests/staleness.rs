//! Staleness: hits name the files their thread touched that changed since.

use hotl_recall::{Mode, Thread, staleness};
use hotl_testkit::{FIXED_ID, LogBuilder, TestResult};

use crate::common::{archive, content_hash, touch, turn_with};

#[test]
fn a_changed_or_deleted_file_is_stale_and_an_unchanged_one_is_not() -> TestResult {
    let dir = tempfile::tempdir()?;
    let root = dir.path();
    std::fs::write(root.join("a.rs"), "fn a() {}\n")?;
    std::fs::write(root.join("b.rs"), "fn b() {}\n")?;
    let mut b = LogBuilder::new(FIXED_ID, &root.to_string_lossy());
    let files = vec![
        touch("a.rs", "read", Some(&content_hash(b"fn a() {}\n"))),
        touch("b.rs", "edit", Some(&content_hash(b"fn b() {}\n"))),
    ];
    let (s, u) = turn_with(
        &mut b,
        "look at a and b",
        "checked a.rs and b.rs",
        files,
        "fine",
    );
    b.fold(s, u, "f1", "both fine");
    let a = archive(&b)?;
    let hits = a.search("checked", Mode::Ranked, 5)?;
    assert_eq!(hits.len(), 1);
    assert!(hits[0].stale.is_empty(), "{:?}", hits[0].stale);

    std::fs::write(root.join("a.rs"), "fn a() { changed }\n")?;
    let hits = a.search("checked", Mode::Ranked, 5)?;
    assert_eq!(hits[0].stale, ["a.rs"]);
    let shown = hotl_recall::render_hits(&hits);
    assert!(
        shown.ends_with("\n  stale: a.rs changed since\n"),
        "{shown}"
    );

    std::fs::remove_file(root.join("b.rs"))?;
    let hits = a.search("checked", Mode::Exact, 5)?;
    assert_eq!(hits[0].stale, ["a.rs", "b.rs"]);
    Ok(())
}

#[test]
fn the_last_touch_of_a_path_is_what_counts() -> TestResult {
    let dir = tempfile::tempdir()?;
    std::fs::write(dir.path().join("x.rs"), "new")?;
    let thread = Thread {
        handle: "h".into(),
        note: String::new(),
        since: 1,
        until: 2,
        files: vec![
            touch("x.rs", "read", Some(&content_hash(b"old"))),
            touch("x.rs", "edit", Some(&content_hash(b"new"))),
        ],
    };
    assert!(staleness(&thread, dir.path()).is_empty());
    let mut reversed = thread.clone();
    reversed.files.reverse();
    assert_eq!(staleness(&reversed, dir.path()), ["x.rs"]);
    Ok(())
}

#[test]
fn absent_then_and_now_is_not_stale_but_absent_then_present_now_is() -> TestResult {
    let dir = tempfile::tempdir()?;
    let thread = |path: &str| Thread {
        handle: "h".into(),
        note: String::new(),
        since: 1,
        until: 2,
        files: vec![touch(path, "delete", None)],
    };
    assert!(staleness(&thread("gone.rs"), dir.path()).is_empty());
    std::fs::write(dir.path().join("back.rs"), "x")?;
    assert_eq!(staleness(&thread("back.rs"), dir.path()), ["back.rs"]);
    // An absolute path ignores the root; a full 64-hex hash is compared as well.
    let abs = dir.path().join("back.rs");
    let full = blake3::hash(b"x").to_hex().to_string();
    let t = Thread {
        files: vec![touch(&abs.to_string_lossy(), "read", Some(&full))],
        ..thread("unused")
    };
    assert!(staleness(&t, std::path::Path::new("/nonexistent")).is_empty());
    Ok(())
}
