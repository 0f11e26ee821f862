//! What the archive holds: exactly what the view folded or compacted, and nothing live.

use hotl_log::{Block, Body};
use hotl_recall::{Archive, DocKind};
use hotl_testkit::{FIXED_ID, LogBuilder, TestResult};

use crate::common::{archive, records, turn_with, two_folds};

#[test]
fn folded_spans_become_threads_with_their_items_and_files() -> TestResult {
    let a = archive(&two_folds())?;
    let threads = a.threads();
    assert_eq!(threads.len(), 2);
    assert_eq!(threads[0].handle, "a1");
    assert_eq!(threads[0].note, "fixed TS2322 in the parser (parseInt)");
    assert_eq!((threads[0].since, threads[0].until), (3, 13));
    let files: Vec<(&str, &str)> = threads[0]
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.op.as_str()))
        .collect();
    assert_eq!(files, [("src/parse.ts", "read"), ("src/parse.ts", "edit")]);
    assert_eq!(threads[1].handle, "b2");
    assert!(threads[1].files.is_empty());
    assert_eq!(a.root(), std::path::Path::new("/project"));
    Ok(())
}

#[test]
fn documents_cover_user_assistant_tool_and_note_but_not_the_live_turn() -> TestResult {
    let a = archive(&two_folds())?;
    let docs = a.docs()?;
    let of = |handle: &str, kind: DocKind| {
        docs.iter()
            .filter(|d| d.handle == handle && d.kind == kind)
            .map(|d| (d.seq, d.text.as_str()))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        of("a1", DocKind::User),
        [(3, "the build fails, can you look?"), (9, "ok fix it")]
    );
    assert_eq!(of("a1", DocKind::ToolOutput).len(), 2);
    assert!(of("a1", DocKind::ToolOutput)[0].1.contains("TS2322"));
    // Tool calls are part of the assistant's document.
    assert_eq!(
        of("a1", DocKind::Assistant)[0],
        (4, "bash command: cargo build")
    );
    // The note is searchable too, shown at the thread's first seq.
    assert_eq!(
        of("b2", DocKind::Note),
        [(16, "login test: waits for the cookie now")]
    );
    assert!(!docs.iter().any(|d| d.text.contains("zanzibar")));
    assert!(!docs.iter().any(|d| d.text.contains("release notes")));
    Ok(())
}

#[test]
fn reasoning_is_its_own_document() -> TestResult {
    let mut b = LogBuilder::new(FIXED_ID, "/p");
    let u = b.user("think about it");
    b.record(Body::Assistant {
        content: vec![
            Block::Thinking {
                thinking: "maybe the cache key collides".into(),
                signature: None,
            },
            Block::text("the cache key collides"),
        ],
        model: None,
        stop: Some("end_turn".into()),
        stop_raw: None,
        usage: None,
    });
    let end = b.seq();
    b.fold(u, end, "c3", "cache key collision");
    let docs = archive(&b)?.docs()?;
    let kinds: Vec<DocKind> = docs.iter().map(|d| d.kind).collect();
    assert_eq!(
        kinds,
        [
            DocKind::User,
            DocKind::Assistant,
            DocKind::Reasoning,
            DocKind::Note
        ]
    );
    assert_eq!(docs[2].text, "maybe the cache key collides");
    Ok(())
}

#[test]
fn a_compaction_is_a_thread_named_by_its_end_and_keeps_folds_inside_it() -> TestResult {
    let mut b = LogBuilder::new(FIXED_ID, "/p");
    let (s1, u1) = turn_with(&mut b, "first task", "out one", vec![], "done one");
    b.fold(s1, u1, "f1", "first task done");
    let (_, u2) = turn_with(&mut b, "second task", "out two", vec![], "done two");
    b.record(Body::Compaction {
        until: u2,
        summary: "did two tasks".into(),
    });
    turn_with(&mut b, "third task", "out three", vec![], "done three");
    let a = archive(&b)?;
    let handles: Vec<&str> = a.threads().iter().map(|t| t.handle.as_str()).collect();
    let compaction = format!("compaction@t{u2}");
    assert_eq!(handles, [compaction.as_str(), "f1"]);
    assert_eq!(a.threads()[0].note, "did two tasks");
    assert_eq!((a.threads()[0].since, a.threads()[0].until), (s1, u2));
    let docs = a.docs()?;
    let owner = |text: &str| {
        docs.iter()
            .find(|d| d.text == text)
            .map(|d| d.handle.as_str())
    };
    assert_eq!(owner("first task"), Some("f1"));
    assert_eq!(owner("second task"), Some(compaction.as_str()));
    assert_eq!(owner("did two tasks"), Some(compaction.as_str()));
    assert_eq!(owner("third task"), None);
    Ok(())
}

#[test]
fn folds_the_view_ignores_are_not_archived() -> TestResult {
    let mut b = LogBuilder::new(FIXED_ID, "/p");
    let (s1, u1) = turn_with(&mut b, "one", "o", vec![], "a");
    let (_, u2) = turn_with(&mut b, "two", "o", vec![], "a");
    b.fold(s1, u1, "ok1", "kept");
    // Overlaps the first fold: the view reports and ignores it.
    b.fold(s1, u2, "bad2", "overlapping");
    let (s3, u3) = turn_with(&mut b, "three", "o", vec![], "a");
    b.fold(s3, u3, "gone3", "reverted away");
    // A revert to before that fold hides it.
    b.record(Body::Revert { to: u3 });
    let a = archive(&b)?;
    let handles: Vec<&str> = a.threads().iter().map(|t| t.handle.as_str()).collect();
    assert_eq!(handles, ["ok1"]);
    assert!(a.docs()?.iter().all(|d| d.handle == "ok1"));
    Ok(())
}

#[test]
fn a_log_without_folds_has_an_empty_archive() -> TestResult {
    let mut b = LogBuilder::new(FIXED_ID, "/p");
    b.turn("hello");
    let a = Archive::from_records(&records(&b)?, 0);
    assert!(a.threads().is_empty());
    assert_eq!(a.doc_count(), 0);
    assert!(a.search("hello", hotl_recall::Mode::Ranked, 10)?.is_empty());
    Ok(())
}
