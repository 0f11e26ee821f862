//! The index of every session: what it finds and how, incremental updates, scopes, damage,
//! dropped and deleted sessions, and the bad queries it refuses.

use std::fs;

use hotl_log::{Body, Fold};
use hotl_recall::{DocKind, Mode, RecallError, Scope, SessionIndex, search_sessions};
use hotl_testkit::{LogBuilder, TestHome, TestResult};

use crate::common::{touch, turn_with};

const A: &str = "01J0000000000000000000000A";
const B: &str = "01J0000000000000000000000B";

/// A session in `cwd` with one turn whose tool prints `output`.
fn session(id: &str, cwd: &str, user: &str, output: &str) -> LogBuilder {
    let mut b = LogBuilder::new(id, cwd);
    turn_with(&mut b, user, output, vec![], "done");
    b
}

fn write(home: &TestHome, b: &LogBuilder) -> TestResult {
    fs::create_dir_all(home.store.layout().sessions_dir())?;
    b.write(&home.store.layout().log(&b.id))?;
    Ok(())
}

fn everywhere() -> Scope {
    Scope::default()
}

#[test]
fn a_word_inside_an_identifier_is_found_in_the_session_that_said_it() -> TestResult {
    let home = TestHome::new();
    write(
        &home,
        &session(
            A,
            "/p/one",
            "deploy the thing",
            "ticket KUMQUAT-4242 closed",
        ),
    )?;
    write(
        &home,
        &session(B, "/p/two", "tidy the docs", "nothing to report"),
    )?;
    let (found, refreshed) =
        search_sessions(&home.store, "kumquat", Mode::Ranked, &everywhere(), 10)?;
    assert_eq!(refreshed.sessions, 2);
    assert_eq!(found.hits.len(), 1, "{found:?}");
    let hit = &found.hits[0];
    assert_eq!(hit.session, A);
    assert_eq!(hit.project, "/p/one");
    assert_eq!(hit.kind, DocKind::ToolOutput);
    assert_eq!(hit.line, "ticket KUMQUAT-4242 closed");
    // Exact and regex find it too, ignoring case only in exact mode.
    let exact =
        SessionIndex::open(&home.store)?.search("kumquat-42", Mode::Exact, &everywhere(), 10)?;
    assert_eq!(exact.hits.len(), 1);
    let index = SessionIndex::open(&home.store)?;
    assert_eq!(
        index
            .search(r"KUMQUAT-\d+", Mode::Regex, &everywhere(), 10)?
            .hits
            .len(),
        1
    );
    assert_eq!(
        index
            .search(r"kumquat-\d+", Mode::Regex, &everywhere(), 10)?
            .hits
            .len(),
        0
    );
    Ok(())
}

#[test]
fn a_grown_log_is_indexed_from_where_it_stopped_and_an_unchanged_one_is_not_read() -> TestResult {
    let home = TestHome::new();
    let mut a = session(A, "/p", "first", "alpha output");
    write(&home, &a)?;
    write(&home, &session(B, "/p", "other", "beta output"))?;
    let first = SessionIndex::open(&home.store)?;
    assert_eq!(first.refreshed().sessions, 2);
    let size = home.store.log_size(A)?;
    turn_with(&mut a, "second", "gamma-ray burst", vec![], "ok");
    write(&home, &a)?;
    let second = SessionIndex::open(&home.store)?;
    assert_eq!(second.refreshed().sessions, 1, "only the grown log is read");
    assert_eq!(second.refreshed().bytes, home.store.log_size(A)? - size);
    let hits = second
        .search("gamma", Mode::Ranked, &everywhere(), 10)?
        .hits;
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].session, A);
    // The first documents are still there, once.
    assert_eq!(
        second
            .search("alpha", Mode::Ranked, &everywhere(), 10)?
            .hits
            .len(),
        1
    );
    let third = SessionIndex::open(&home.store)?;
    assert_eq!(third.refreshed().sessions, 0);
    assert_eq!(third.stats().sessions, 2);
    Ok(())
}

#[test]
fn a_replaced_log_is_indexed_again_and_its_old_text_is_gone() -> TestResult {
    let home = TestHome::new();
    write(&home, &session(A, "/p", "hello", "old-words quince"))?;
    SessionIndex::open(&home.store)?;
    // Same id, different (longer) content: the indexed prefix no longer hashes the same.
    let mut other = session(A, "/p", "HELLO", "new-words medlar");
    turn_with(&mut other, "more", "and more", vec![], "ok");
    write(&home, &other)?;
    let index = SessionIndex::open(&home.store)?;
    assert!(
        index
            .search("quince", Mode::Ranked, &everywhere(), 10)?
            .hits
            .is_empty()
    );
    assert_eq!(
        index
            .search("medlar", Mode::Ranked, &everywhere(), 10)?
            .hits
            .len(),
        1
    );
    assert_eq!(index.stats().sessions, 1);
    Ok(())
}

#[test]
fn scopes_narrow_by_project_time_and_leave_sessions_out() -> TestResult {
    let home = TestHome::new();
    write(
        &home,
        &session(A, "/work/app", "x", "shared-term persimmon"),
    )?;
    write(
        &home,
        &session(B, "/work/app-other", "y", "shared-term persimmon"),
    )?;
    let index = SessionIndex::open(&home.store)?;
    let search = |scope: Scope| -> TestResult<Vec<String>> {
        let mut ids: Vec<String> = index
            .search("persimmon", Mode::Ranked, &scope, 10)?
            .hits
            .into_iter()
            .map(|h| h.session)
            .collect();
        ids.sort();
        Ok(ids)
    };
    assert_eq!(search(everywhere())?, [A, B]);
    let project = |p: &str| Scope {
        project: Some(p.into()),
        ..Scope::default()
    };
    // A directory and what is below it, not a sibling that shares its prefix.
    assert_eq!(search(project("/work/app"))?, [A]);
    assert_eq!(search(project("/work/app/"))?, [A]);
    assert_eq!(search(project("/work"))?, [A, B]);
    let later = Scope {
        since: Some("2999-01-01T00:00:00Z".into()),
        ..Scope::default()
    };
    assert!(search(later)?.is_empty());
    let earlier = Scope {
        since: Some("2000-01-01".into()),
        ..Scope::default()
    };
    assert_eq!(search(earlier)?, [A, B]);
    let without_a = Scope {
        leave_out: vec![A.into()],
        ..Scope::default()
    };
    assert_eq!(search(without_a)?, [B]);
    Ok(())
}

#[test]
fn a_hit_in_a_folded_span_names_its_thread_and_what_changed_since() -> TestResult {
    let home = TestHome::new();
    let dir = tempfile::tempdir()?;
    let cwd = dir.path().to_string_lossy().into_owned();
    fs::write(dir.path().join("lib.rs"), "changed since")?;
    let mut b = LogBuilder::new(A, &cwd);
    let (s, u) = turn_with(
        &mut b,
        "fix the tamarind bug",
        "tamarind overflow at lib.rs:3",
        vec![touch("lib.rs", "edit", Some("00"))],
        "fixed",
    );
    // As hotl folds: the span's last touch of each file.
    b.record(Body::Fold(Box::new(Fold {
        since: s,
        until: u,
        handle: "f1".into(),
        note: "fixed the overflow".into(),
        files: vec![touch("lib.rs", "edit", Some("00"))],
        diff_blob: None,
    })));
    turn_with(&mut b, "and now?", "tamarind nothing", vec![], "fine");
    write(&home, &b)?;
    let (found, _) = search_sessions(
        &home.store,
        "tamarind overflow",
        Mode::Ranked,
        &everywhere(),
        10,
    )?;
    let hit = &found.hits[0];
    assert_eq!(hit.thread.as_deref(), Some("f1"));
    assert_eq!(hit.stale, ["lib.rs"]);
    let (found, _) = search_sessions(
        &home.store,
        "tamarind nothing",
        Mode::Ranked,
        &everywhere(),
        10,
    )?;
    let live = &found.hits[0];
    assert_eq!(live.line, "tamarind nothing");
    assert!(live.thread.is_none() && live.stale.is_empty(), "{live:?}");
    Ok(())
}

#[test]
fn dropped_and_deleted_sessions_are_not_shown_and_compaction_removes_them() -> TestResult {
    let home = TestHome::new();
    let mut a = session(A, "/p", "x", "loquat one");
    write(&home, &a)?;
    write(&home, &session(B, "/p", "y", "loquat two"))?;
    let index = SessionIndex::open(&home.store)?;
    assert_eq!(
        index
            .search("loquat", Mode::Ranked, &everywhere(), 10)?
            .hits
            .len(),
        2
    );
    a.record(Body::Drop);
    write(&home, &a)?;
    let index = SessionIndex::open(&home.store)?;
    let hits = index
        .search("loquat", Mode::Ranked, &everywhere(), 10)?
        .hits;
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].session, B);
    fs::remove_file(home.store.layout().log(B))?;
    let index = SessionIndex::open(&home.store)?;
    assert!(
        index
            .search("loquat", Mode::Exact, &everywhere(), 10)?
            .hits
            .is_empty()
    );
    let freed = SessionIndex::compact(&home.store)?;
    assert!(freed > 0, "compaction freed nothing");
    let index = SessionIndex::open(&home.store)?;
    assert_eq!(index.stats().sessions, 0);
    assert_eq!(index.stats().docs, 0);
    Ok(())
}

#[test]
fn a_damaged_or_half_written_index_is_rebuilt_and_searched() -> TestResult {
    let home = TestHome::new();
    write(&home, &session(A, "/p", "x", "guava inside"))?;
    SessionIndex::open(&home.store)?;
    let dir = home.store.derived_dir("search");
    // A half-written manifest.
    let manifest = dir.join("manifest.json");
    let bytes = fs::read(&manifest)?;
    fs::write(&manifest, &bytes[..bytes.len() / 2])?;
    let (found, refreshed) =
        search_sessions(&home.store, "guava", Mode::Ranked, &everywhere(), 10)?;
    assert_eq!(refreshed.sessions, 1, "rebuilt");
    assert_eq!(found.hits.len(), 1);
    // A half-written segment, and one overwritten with other bytes: rebuilt, searched.
    for (k, entry) in fs::read_dir(&dir)?.enumerate() {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "seg") {
            let bytes = fs::read(&path)?;
            if k % 2 == 0 {
                fs::write(&path, &bytes[..bytes.len() / 2])?;
            } else {
                fs::write(&path, vec![0x5a; bytes.len()])?;
            }
        }
    }
    let (found, refreshed) =
        search_sessions(&home.store, "guava", Mode::Ranked, &everywhere(), 10)?;
    assert_eq!(refreshed.sessions, 1, "rebuilt");
    assert_eq!(found.hits.len(), 1);
    // A segment that is gone: rebuilt too.
    for entry in fs::read_dir(&dir)? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "seg") {
            fs::remove_file(path)?;
        }
    }
    let (found, _) = search_sessions(&home.store, "guava", Mode::Exact, &everywhere(), 10)?;
    assert_eq!(found.hits.len(), 1);
    Ok(())
}

#[test]
fn an_unreadable_log_is_named_and_the_rest_are_searched() -> TestResult {
    let home = TestHome::new();
    write(&home, &session(A, "/p", "x", "papaya here"))?;
    write(&home, &session(B, "/p", "y", "papaya there"))?;
    // A log that cannot be opened: a link to nowhere.
    let bad = home.store.layout().log("01J0000000000000000000000C");
    std::os::unix::fs::symlink("/nonexistent/hotl-log", &bad)?;
    let (found, refreshed) =
        search_sessions(&home.store, "papaya", Mode::Ranked, &everywhere(), 10)?;
    assert_eq!(found.hits.len(), 2);
    assert_eq!(refreshed.problems.len(), 1, "{refreshed:?}");
    assert!(
        refreshed.problems[0].starts_with("01J0000000000000000000000C"),
        "{refreshed:?}"
    );
    Ok(())
}

#[test]
fn bad_queries_are_refused_with_why() -> TestResult {
    let home = TestHome::new();
    write(&home, &session(A, "/p", "x", "plain text"))?;
    let index = SessionIndex::open(&home.store)?;
    let long = "word ".repeat(2_000);
    let e = index
        .search(&long, Mode::Ranked, &everywhere(), 10)
        .unwrap_err();
    assert!(
        matches!(e, RecallError::QueryTooLong { chars: 10_000, .. }),
        "{e}"
    );
    assert!(e.to_string().contains("at most 4096"), "{e}");
    // A regex that would compile to more than the bound.
    let e = index
        .search(r"\w{1000}\w{1000}", Mode::Regex, &everywhere(), 10)
        .unwrap_err();
    assert!(matches!(e, RecallError::InvalidRegex { .. }), "{e}");
    assert!(e.to_string().contains("size limit"), "{e}");
    let e = index
        .search("(", Mode::Regex, &everywhere(), 10)
        .unwrap_err();
    assert!(matches!(e, RecallError::InvalidRegex { .. }), "{e}");
    let e = index
        .search("--- ...", Mode::Ranked, &everywhere(), 10)
        .unwrap_err();
    assert!(matches!(e, RecallError::EmptyQuery { .. }), "{e}");
    Ok(())
}

#[test]
fn two_processes_updating_at_once_leave_one_consistent_index() -> TestResult {
    let home = TestHome::new();
    for i in 0..8 {
        let id = format!("01J{:020}{i:03}", 0);
        write(&home, &session(&id, "/p", "q", &format!("fig number{i}")))?;
    }
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|_| s.spawn(|| SessionIndex::open(&home.store).map(|i| i.stats())))
            .collect();
        for h in handles {
            let stats = h.join().expect("no panic").expect("opens");
            assert_eq!(stats.sessions, 8);
        }
    });
    let index = SessionIndex::open(&home.store)?;
    assert_eq!(
        index
            .search("fig", Mode::Ranked, &everywhere(), 20)?
            .hits
            .len(),
        8
    );
    Ok(())
}
