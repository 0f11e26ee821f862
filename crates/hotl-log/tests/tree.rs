//! Session trees: delegated sessions live in their root's tree directory, share its lock,
//! stay out of root listings, and go (or stay) with their root.

use hotl_log::{Block, Body, Delegation, Dropped, GcOptions, LogError, Store, Writer};
use hotl_testkit::{FIXED_ID, LogBuilder, TestHome, TestResult};

fn delegation(by: &str, handle: &str) -> Delegation {
    Delegation {
        by: by.to_owned(),
        agent: Some("fork".to_owned()),
        description: format!("task {handle}"),
        handle: Some(handle.to_owned()),
        call: None,
        at: None,
        agent_blob: None,
        background: false,
    }
}

/// A child delegated by `parent` at its head.
fn delegate(store: &Store, parent: &Writer, handle: &str) -> TestResult<Writer> {
    let id = parent.id();
    let lineage = store.lineage(id)?;
    let seq = parent.next_seq() - 1;
    let pin = store.pin(id, seq, lineage.offset_for(seq))?;
    Ok(parent.delegate(pin, "/p", vec![], delegation(id, handle))?)
}

fn root_with_a_turn(home: &TestHome) -> TestResult<Writer> {
    let mut log = LogBuilder::new(FIXED_ID, "/p");
    log.turn("one");
    let id = home.import(&log)?;
    Ok(home.store.writer(&id)?)
}

#[test]
fn a_delegated_session_lives_in_its_roots_tree_and_shares_its_lock() -> TestResult {
    let home = TestHome::new();
    let root = root_with_a_turn(&home)?;
    let mut child = delegate(&home.store, &root, "a1b2")?;
    child.append(Body::user_text("the child's own"))?;

    let path = home.store.layout().log(child.id());
    assert_eq!(
        path,
        home.store
            .layout()
            .tree_dir(root.id())
            .join(format!("{}.jsonl", child.id()))
    );
    assert!(path.is_file());
    assert_eq!(child.root(), root.id());
    // A fresh store (another process) finds it too.
    let other = Store::new(home.path());
    assert_eq!(other.root_of(child.id()), root.id());
    assert!(other.exists(child.id()));
    assert_eq!(
        other.layout().lock(child.id()),
        other.layout().lock(root.id())
    );
    // Not a root: listings leave it out; the tree lists it.
    assert_eq!(other.session_ids()?, vec![root.id().to_owned()]);
    assert_eq!(other.list()?.len(), 1);
    assert_eq!(other.tree_children(root.id())?, vec![child.id().to_owned()]);
    assert_eq!(
        other.all_tree_children()?,
        vec![(child.id().to_owned(), root.id().to_owned())]
    );
    // Its lineage is the root's history to the pin, then its own.
    let lineage = other.lineage(child.id())?;
    assert!(lineage.problems.is_empty(), "{:?}", lineage.problems);
    assert_eq!(lineage.ancestors, vec![root.id().to_owned()]);
    assert_eq!(lineage.own().len(), 2);
    let start = other.read_start(child.id())?;
    assert_eq!(start.delegated, Some(delegation(root.id(), "a1b2")));
    assert!(other.meta(child.id())?.delegated);
    assert!(
        other
            .layout()
            .meta(child.id())
            .starts_with(other.layout().tree_dir(root.id()))
    );
    // The tree is owned while the root's writer lives: nobody else may write either session.
    assert!(other.is_owned(child.id()));
    assert!(matches!(
        other.writer(child.id()),
        Err(LogError::Locked { .. })
    ));
    drop(child);
    drop(root);
    assert!(!other.is_owned(FIXED_ID));
    // Once free, the child can be reopened for writing (as recovery after a crash does).
    let mut reopened = other.writer(&other.tree_children(FIXED_ID)?[0])?;
    reopened.append(Body::user_text("after a restart"))?;
    Ok(())
}

#[test]
fn a_child_delegated_by_a_child_stays_in_the_same_tree() -> TestResult {
    let home = TestHome::new();
    let root = root_with_a_turn(&home)?;
    let mut child = delegate(&home.store, &root, "c1")?;
    child.append(Body::user_text("child"))?;
    let grandchild = delegate(&home.store, &child, "c2")?;
    assert_eq!(grandchild.root(), root.id());
    let mut ids = home.store.tree_children(root.id())?;
    ids.sort();
    let mut want = vec![child.id().to_owned(), grandchild.id().to_owned()];
    want.sort();
    assert_eq!(ids, want);
    let lineage = Store::new(home.path()).lineage(grandchild.id())?;
    assert_eq!(
        lineage.ancestors,
        vec![child.id().to_owned(), root.id().to_owned()]
    );
    Ok(())
}

#[test]
fn a_delegated_session_is_reopened_under_its_roots_writer_and_no_other() -> TestResult {
    let home = TestHome::new();
    let root = root_with_a_turn(&home)?;
    let child = delegate(&home.store, &root, "e5")?;
    let child_id = child.id().to_owned();
    drop(child);
    // The root's writer holds the tree: the child reopens under it, not on its own.
    assert!(matches!(
        home.store.writer(&child_id),
        Err(LogError::Locked { .. })
    ));
    let mut again = root.open_delegated(&child_id)?;
    let record = again.append(Body::user_text("resumed"))?;
    assert!(record.seq > root.next_seq() - 1);
    // A root of its own is not in this tree.
    let mut other = LogBuilder::new("01JD0000000000000000000002", "/p");
    other.turn("elsewhere");
    let other_id = home.import(&other)?;
    assert!(matches!(
        root.open_delegated(&other_id),
        Err(LogError::NoSuchSession { .. })
    ));
    Ok(())
}

#[test]
fn gc_removes_a_tree_with_its_root_but_keeps_what_a_kept_session_needs() -> TestResult {
    let home = TestHome::new();
    let root = root_with_a_turn(&home)?;
    let mut child = delegate(&home.store, &root, "d1")?;
    // A blob only the child references.
    let blob = home
        .store
        .blobs()
        .put(b"a large output only the child saw")?;
    let (call, input) = ("call_1".to_owned(), serde_json::json!({"command": "make"}));
    child.append(Body::Assistant {
        content: vec![Block::ToolUse {
            id: call.clone(),
            name: "bash".to_owned(),
            input: input.into(),
        }],
        model: None,
        stop: Some("tool_use".into()),
        stop_raw: None,
        usage: None,
    })?;
    child.append(Body::ToolResult {
        call,
        content: vec![Block::text("head … tail")],
        blob: Some(blob.clone()),
        is_error: false,
        files: vec![],
    })?;
    let child_id = child.id().to_owned();
    drop(child);
    drop(root);
    let all = GcOptions {
        older_than: std::time::Duration::from_secs(3600 * 24 * 365 * 100),
        grace: std::time::Duration::ZERO,
        dry_run: false,
    };
    // Nothing is old: the child's blob is referenced by a kept tree.
    let report = home.store.gc(all)?;
    assert!(report.sessions.is_empty());
    assert!(report.blobs.is_empty(), "{:?}", report.blobs);
    assert!(home.store.blobs().get(&blob).is_ok());

    // A root forked from the child keeps the child's whole tree when the root is dropped.
    let lineage = home.store.lineage(&child_id)?;
    let last = lineage.own().last().expect("records").seq;
    let pin = home.store.pin(&child_id, last, lineage.offset_for(last))?;
    let fork = home.store.fork(pin, "/p", vec![], None)?;
    let fork_id = fork.id().to_owned();
    drop(fork);
    match home.store.drop_session(FIXED_ID)? {
        Dropped::Tombstoned { descendants } => assert_eq!(descendants, vec![fork_id.clone()]),
        other => panic!("expected a tombstone, got {other:?}"),
    }
    let report = home.store.gc(all)?;
    assert!(report.sessions.is_empty(), "{:?}", report.sessions);
    assert!(Store::new(home.path()).exists(&child_id));
    assert!(
        Store::new(home.path())
            .lineage(&fork_id)?
            .problems
            .is_empty()
    );

    // Without the fork, the dropped root goes, and its tree and the child's blob with it.
    assert_eq!(home.store.drop_session(&fork_id)?, Dropped::Deleted);
    let report = home.store.gc(all)?;
    assert_eq!(report.sessions.len(), 1, "{:?}", report.sessions);
    assert!(!home.store.layout().tree_dir(FIXED_ID).exists());
    assert!(!Store::new(home.path()).exists(&child_id));
    assert!(home.store.blobs().get(&blob).is_err());
    Ok(())
}

#[test]
fn dropping_a_delegated_session_a_sibling_pins_into_keeps_it() -> TestResult {
    let home = TestHome::new();
    let root = root_with_a_turn(&home)?;
    let mut child = delegate(&home.store, &root, "aa")?;
    child.append(Body::user_text("child work"))?;
    let mut grandchild = delegate(&home.store, &child, "bb")?;
    grandchild.append(Body::user_text("grandchild work"))?;
    let (child_id, grandchild_id) = (child.id().to_owned(), grandchild.id().to_owned());
    drop((grandchild, child, root));
    let store = Store::new(home.path());
    match store.drop_session(&child_id)? {
        Dropped::Tombstoned { descendants } => assert_eq!(descendants, vec![grandchild_id.clone()]),
        other => panic!("expected a tombstone, got {other:?}"),
    }
    assert!(store.lineage(&grandchild_id)?.problems.is_empty());
    Ok(())
}

#[test]
fn gc_keeps_an_old_root_whose_delegated_session_was_worked_on_today() -> TestResult {
    use hotl_log::{Clock, SessionStart};
    use std::time::{Duration, SystemTime};
    let dir = tempfile::tempdir()?;
    let now = SystemTime::now();
    let old =
        Store::new(dir.path()).with_clock(Clock::Fixed(now - Duration::from_secs(60 * 86400)));
    let root = old.create(SessionStart::new("/p"), 1, vec![Body::user_text("go")])?;
    let child_id = delegate(&old, &root, "cc")?.id().to_owned();
    drop(root);
    // Today the child is resumed and worked in.
    let young = Store::new(dir.path()).with_clock(Clock::Fixed(now));
    young
        .writer(&child_id)?
        .append(Body::user_text("fresh work"))?;
    let report = young.gc(GcOptions::default())?;
    assert!(report.sessions.is_empty(), "{:?}", report.sessions);
    assert!(young.exists(&child_id));
    Ok(())
}

/// A delegated session pinned on a branch a revert left behind is not visible; the reverts
/// are found whether the root's summary is fresh or was dropped (as a revert drops it).
#[test]
fn a_child_pinned_on_a_reverted_branch_is_hidden_summary_or_not() -> TestResult {
    let home = TestHome::new();
    let store = &home.store;
    let mut root = root_with_a_turn(&home)?;
    let kept = root.next_seq() - 1;
    root.append(Body::user_text("a second turn"))?;
    let child = delegate(store, &root, "c0de")?;
    drop(child);
    let id = root.id().to_owned();
    assert_eq!(store.visible_delegated(&id)?.len(), 1);
    root.append(Body::Revert { to: kept })?;
    assert_eq!(store.reverts(&id)?, [(kept + 2, kept)]);
    assert!(
        store.visible_delegated(&id)?.is_empty(),
        "pinned after the revert's target"
    );
    // From a fresh summary as well.
    store.rebuild_meta(&id)?;
    assert!(store.visible_delegated(&id)?.is_empty());
    // A later branch's child is visible again, and the look-through picks up new reverts.
    root.append(Body::user_text("a new branch"))?;
    let again = delegate(store, &root, "beef")?;
    drop(again);
    let seen: Vec<String> = store
        .visible_delegated(&id)?
        .into_iter()
        .filter_map(|d| d.delegation.handle)
        .collect();
    assert_eq!(seen, ["beef"]);
    Ok(())
}

/// A clean delegated session (no inherited history, its position in `delegated.at`) created
/// from encoded lines inside a new root's tree.
fn clean_tree(store: &Store, revert_after: bool) -> TestResult<(String, String)> {
    use hotl_log::{Record, SessionStart, encode_line, new_session_id};
    let (root, child) = (new_session_id(), new_session_id());
    let mut root_lines = Vec::new();
    let mut start = SessionStart::new("/p");
    start.id.clone_from(&root);
    let mut bodies = vec![Body::Session(Box::new(start)), Body::user_text("one")];
    bodies.push(Body::user_text("spawned here"));
    if revert_after {
        bodies.push(Body::Revert { to: 2 });
    }
    for (seq, body) in (1..).zip(bodies) {
        root_lines.extend(encode_line(&Record::new(
            seq,
            "2026-01-01T00:00:00.000Z",
            body,
        ))?);
    }
    let mut start = SessionStart::new("/p");
    start.id.clone_from(&child);
    start.delegated = Some(Delegation {
        by: root.clone(),
        agent: Some("Explore".into()),
        description: "look around".into(),
        handle: None,
        call: Some("toolu_1".into()),
        at: Some(3),
        agent_blob: None,
        background: false,
    });
    let mut child_lines = Vec::new();
    for (seq, body) in (1..).zip([Body::Session(Box::new(start)), Body::user_text("task")]) {
        child_lines.extend(encode_line(&Record::new(
            seq,
            "2026-01-01T00:00:00.000Z",
            body,
        ))?);
    }
    store.create_encoded((&root, &root_lines), &[(child.clone(), child_lines)])?;
    Ok((root, child))
}

#[test]
fn a_clean_delegated_session_is_listed_at_its_position_and_goes_with_its_tree() -> TestResult {
    let home = TestHome::new();
    let (root, child) = clean_tree(&home.store, false)?;
    let store = Store::new(home.path());
    assert_eq!(store.root_of(&child), root);
    assert_eq!(store.session_ids()?, vec![root.clone()]);
    let visible = store.visible_delegated(&root)?;
    assert_eq!(visible.len(), 1, "{visible:?}");
    assert_eq!(
        (visible[0].pinned_in.as_str(), visible[0].pinned_at),
        (root.as_str(), 3)
    );
    // Its own lineage is its own log alone: nothing inherited.
    let lineage = store.lineage(&child)?;
    assert!(lineage.problems.is_empty());
    assert_eq!(lineage.records.len(), 2);
    // The child lives in the tree: gc keeps it while the root is kept, and it goes with it.
    let all = GcOptions {
        older_than: std::time::Duration::from_secs(3600 * 24 * 365 * 100),
        grace: std::time::Duration::ZERO,
        dry_run: false,
    };
    assert!(store.gc(all)?.sessions.is_empty());
    assert!(store.exists(&child));
    assert_eq!(store.drop_session(&root)?, Dropped::Deleted);
    assert!(!Store::new(home.path()).exists(&child));
    // An id already taken is refused.
    let (root2, _) = clean_tree(&home.store, false)?;
    let again = home
        .store
        .create_encoded((&root2, b"{}\n"), &[])
        .expect_err("exists");
    assert!(matches!(again, LogError::Exists { .. }), "{again:?}");
    Ok(())
}

#[test]
fn a_clean_delegated_session_on_a_reverted_branch_is_hidden() -> TestResult {
    let home = TestHome::new();
    let (root, _) = clean_tree(&home.store, true)?;
    assert!(Store::new(home.path()).visible_delegated(&root)?.is_empty());
    Ok(())
}
