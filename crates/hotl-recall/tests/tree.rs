//! Recall over the whole tree: earlier asks, and the work of forks (delegated sessions), next
//! to folded spans.

use hotl_log::{Body, Delegation, Store, Writer};
use hotl_recall::{Mode, open_archive, open_index, render_hits};
use hotl_testkit::TestResult;

use crate::common::{home_with, summary, touch, turn_with, two_folds};

fn ask(handle: &str, question: &str, answer: &str) -> Body {
    Body::Ask {
        handle: handle.to_owned(),
        question: question.to_owned(),
        answer: answer.to_owned(),
        usage: None,
    }
}

#[test]
fn an_earlier_ask_is_found_under_the_handle_it_asked_and_indexed_incrementally() -> TestResult {
    let b = two_folds();
    let (home, id) = home_with(&b)?;
    // Indexed before the ask exists, then brought up to date.
    assert!(
        open_index(&home.store, &id)?
            .search("quokka", Mode::Ranked, 5)?
            .is_empty()
    );
    let mut writer = home.store.writer(&id)?;
    let record = writer.append(ask(
        "a1",
        "which file held the TS2322 error?",
        "src/parse.ts, line 12: the quokka counter",
    ))?;
    drop(writer);
    let archive = open_archive(&home.store, &id)?;
    let hits = archive.search("quokka", Mode::Ranked, 5)?;
    assert_eq!(
        render_hits(&hits),
        format!(
            "[a1 t{} ask] src/parse.ts, line 12: the quokka counter\n",
            record.seq
        )
    );
    let exact = archive.search("WHICH FILE HELD", Mode::Exact, 5)?;
    assert_eq!(summary(&exact)[0].2, "ask");
    // The ask is a thread of its own, after the spans.
    let last = archive.threads().last().expect("threads");
    assert_eq!(
        (last.handle.as_str(), last.note.as_str()),
        ("a1", "which file held the TS2322 error?")
    );
    // A fold after the ask still updates without losing it.
    let mut b2 = two_folds();
    b2.record(ask(
        "a1",
        "which file held the TS2322 error?",
        "src/parse.ts, line 12: the quokka counter",
    ));
    let (u, end) = turn_with(&mut b2, "tidy up", "removed tmp/", vec![], "tidied");
    b2.fold(u, end, "c3", "tidied the tree");
    let (home2, id2) = home_with(&b2)?;
    let hits = open_archive(&home2.store, &id2)?.search("quokka tidied", Mode::Ranked, 5)?;
    let handles: Vec<&str> = hits.iter().map(|h| h.handle.as_str()).collect();
    assert!(
        handles.contains(&"a1") && handles.contains(&"c3"),
        "{handles:?}"
    );
    Ok(())
}

/// Delegates a child of `parent` at its head with `handle`, writes `work` into it.
fn fork_child(store: &Store, parent: &Writer, handle: &str, work: &[&str]) -> TestResult<String> {
    let id = parent.id();
    let lineage = store.lineage(id)?;
    let seq = parent.next_seq() - 1;
    let pin = store.pin(id, seq, lineage.offset_for(seq))?;
    let mut child = parent.delegate(
        pin,
        "/project",
        vec![],
        Delegation {
            by: id.to_owned(),
            agent: Some("fork".to_owned()),
            description: format!("task of {handle}: audit the linker flags"),
            handle: Some(handle.to_owned()),
            call: None,
        },
    )?;
    for text in work {
        child.append(Body::user_text(*text))?;
    }
    Ok(child.id().to_owned())
}

#[test]
fn a_forks_work_is_one_thread_under_its_handle_for_the_sessions_that_can_see_it() -> TestResult {
    let b = two_folds();
    let (home, id) = home_with(&b)?;
    let root = home.store.writer(&id)?;
    fork_child(
        &home.store,
        &root,
        "f00d",
        &["the linker wants -fuse-ld=mold for the wombat target"],
    )?;
    let archive = open_archive(&home.store, &id)?;
    let hits = archive.search("wombat linker", Mode::Ranked, 5)?;
    assert_eq!(hits[0].handle, "f00d", "{}", render_hits(&hits));
    assert!(hits[0].line.contains("-fuse-ld=mold"), "{}", hits[0].line);
    // The task is the thread's note, and it is searchable too.
    let fork = archive
        .threads()
        .iter()
        .find(|t| t.handle == "f00d")
        .expect("the fork's thread");
    assert_eq!(fork.note, "task of f00d: audit the linker flags");
    assert_eq!(
        archive.search("audit", Mode::Exact, 5)?[0].kind.to_string(),
        "note"
    );
    // Folded spans are still there.
    assert_eq!(
        archive.search("TS2322", Mode::Exact, 1)?[0].handle,
        "a1",
        "folds stay searchable"
    );
    // The persisted index alone does not hold it (it is the session's own line).
    assert!(
        open_index(&home.store, &id)?
            .search("wombat", Mode::Ranked, 5)?
            .is_empty()
    );
    Ok(())
}

#[test]
fn a_fork_of_a_fork_is_visible_from_the_root_and_a_later_fork_is_not_visible_from_an_earlier_cut()
-> TestResult {
    let mut b = two_folds();
    let early = b.seq();
    turn_with(
        &mut b,
        "later work",
        "ok",
        vec![touch("a.rs", "edit", None)],
        "done",
    );
    let (home, id) = home_with(&b)?;
    // A root fork of the session cut before the later work.
    let lineage = home.store.lineage(&id)?;
    let pin = home.store.pin(&id, early, lineage.offset_for(early))?;
    let cut = home.store.fork(pin, "/project", vec![], None)?;
    let cut_id = cut.id().to_owned();
    drop(cut);

    let root = home.store.writer(&id)?;
    let child = fork_child(&home.store, &root, "c1", &["child found the capybara"])?;
    let child_writer = home.store.writer(&child);
    // The root's writer holds the tree: the child cannot be opened separately...
    assert!(child_writer.is_err());
    drop(root);
    // ...but once the root is free, a grandchild can be delegated from the child.
    let child_writer = home.store.writer(&child)?;
    fork_child(
        &home.store,
        &child_writer,
        "g2",
        &["grandchild saw the okapi"],
    )?;
    drop(child_writer);

    let from_root = open_archive(&Store::new(home.path()), &id)?;
    assert_eq!(
        from_root.search("capybara", Mode::Exact, 5)?[0].handle,
        "c1"
    );
    assert_eq!(from_root.search("okapi", Mode::Exact, 5)?[0].handle, "g2");
    // The child sees its own child, not itself.
    let from_child = open_archive(&home.store, &child)?;
    assert_eq!(from_child.search("okapi", Mode::Exact, 5)?.len(), 1);
    assert!(from_child.search("capybara", Mode::Exact, 5)?.is_empty());
    // A fork cut before the fork was made does not see it.
    let from_cut = open_archive(&home.store, &cut_id)?;
    assert!(from_cut.search("capybara", Mode::Exact, 5)?.is_empty());
    assert!(from_cut.search("okapi", Mode::Exact, 5)?.is_empty());
    Ok(())
}

#[test]
fn a_forks_index_is_cached_and_rebuilt_when_its_log_grows_or_the_cache_is_damaged() -> TestResult {
    let b = two_folds();
    let (home, id) = home_with(&b)?;
    let root = home.store.writer(&id)?;
    let child = fork_child(&home.store, &root, "c4c4", &["first finding: the narwhal"])?;
    drop(root);
    let dir = home.store.index_dir().join("recall");
    let head = dir.join(format!("{child}.fork.json"));
    let seg_of = |dir: &std::path::Path| -> std::path::PathBuf {
        let segs: Vec<_> = std::fs::read_dir(dir)
            .expect("index dir")
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with(&format!("{child}.fork-")))
            })
            .collect();
        assert_eq!(segs.len(), 1, "one cached segment: {segs:?}");
        segs[0].clone()
    };
    assert_eq!(
        open_archive(&home.store, &id)?.search("narwhal", Mode::Exact, 5)?[0].handle,
        "c4c4"
    );
    let seg = seg_of(&dir);
    assert!(seg.is_file() && head.is_file());
    let cached_at = std::fs::metadata(&seg)?.modified()?;
    // Opened again, the cache serves.
    open_archive(&home.store, &id)?;
    assert_eq!(std::fs::metadata(&seg)?.modified()?, cached_at);
    // The fork's log grows: its new work is found.
    home.store
        .writer(&child)?
        .append(Body::user_text("second finding: the dugong"))?;
    assert_eq!(
        open_archive(&home.store, &id)?.search("dugong", Mode::Exact, 5)?[0].handle,
        "c4c4"
    );
    // The older segment is gone; a damaged cache is rebuilt.
    let seg = seg_of(&dir);
    std::fs::write(&seg, b"garbage")?;
    let archive = open_archive(&home.store, &id)?;
    assert_eq!(archive.search("narwhal", Mode::Exact, 5)?.len(), 1);
    assert_eq!(archive.search("dugong", Mode::Exact, 5)?.len(), 1);
    Ok(())
}
