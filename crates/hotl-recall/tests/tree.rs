//! Recall over the whole tree: earlier asks, and the work of forks (delegated sessions), next
//! to folded spans.

use hotl_log::{Block, Body, Delegation, FileTouch, Fold, RunState, Store, Writer};
use hotl_recall::{Mode, RecallError, open_archive, open_index, render_hits, search_archive};
use hotl_testkit::{FIXED_ID, LogBuilder, TestResult};

use crate::common::{content_hash, home_with, summary, touch, turn_with, two_folds};

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
    // Stale as the fold it asked is (`/project/src/parse.ts` does not exist).
    assert_eq!(
        render_hits(&hits),
        format!(
            "[a1 t{} ask] src/parse.ts, line 12: the quokka counter\n  stale: src/parse.ts changed since\n",
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
    let mut child = delegate_child(store, parent, handle)?;
    for text in work {
        child.append(Body::user_text(*text))?;
    }
    Ok(child.id().to_owned())
}

/// Delegates a child of `parent` at its head with `handle`; returns its writer.
fn delegate_child(store: &Store, parent: &Writer, handle: &str) -> TestResult<Writer> {
    let id = parent.id();
    let lineage = store.lineage(id)?;
    let seq = parent.next_seq() - 1;
    let pin = store.pin(id, seq, lineage.offset_for(seq))?;
    let child = parent.delegate(
        pin,
        "/project",
        vec![],
        Delegation {
            by: id.to_owned(),
            agent: Some("fork".to_owned()),
            description: format!("task of {handle}: audit the linker flags"),
            handle: Some(handle.to_owned()),
            call: None,
            at: None,
            agent_blob: None,
            background: false,
        },
    )?;
    Ok(child)
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
    let dir = home.store.layout().index_dir().join("recall");
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

/// One turn appended through `w`, as `turn_with` writes it; returns (user seq, last seq).
fn writer_turn(
    w: &mut Writer,
    user: &str,
    output: &str,
    files: Vec<FileTouch>,
    answer: &str,
) -> TestResult<(u64, u64)> {
    let run = format!("run_{}", w.next_seq());
    w.append(Body::Run {
        run: run.clone(),
        state: RunState::Started,
    })?;
    let u = w.append(Body::user_text(user))?.seq;
    let call = format!("call_{}", w.next_seq());
    w.append(Body::Assistant {
        content: vec![Block::ToolUse {
            id: call.clone(),
            name: "bash".to_owned(),
            input: serde_json::json!({"command": "cargo build"}).into(),
        }],
        model: None,
        stop: Some("tool_use".to_owned()),
        stop_raw: None,
        usage: None,
    })?;
    w.append(Body::ToolResult {
        call,
        content: vec![Block::text(output)],
        blob: None,
        is_error: false,
        files,
    })?;
    w.append(Body::Assistant {
        content: vec![Block::text(answer)],
        model: None,
        stop: Some("end_turn".to_owned()),
        stop_raw: None,
        usage: None,
    })?;
    let last = w.append(Body::Run {
        run,
        state: RunState::Finished,
    })?;
    Ok((u, last.seq))
}

fn fold(since: u64, until: u64, handle: &str, note: &str) -> Body {
    Body::Fold(Box::new(Fold {
        since,
        until,
        handle: handle.to_owned(),
        note: note.to_owned(),
        files: vec![],
        diff_blob: None,
    }))
}

/// The seqs a child with its own fold was written with.
struct Inner {
    child: String,
    /// The fold's span: its user message and its tool result.
    user: u64,
    tool: u64,
    /// The user message after the fold, on the fork's own line.
    after: u64,
    /// The ask put to the inner fold from inside the fork.
    ask: u64,
}

/// `two_folds` with a child `f00d` that folds a turn of its own (`in1`, touching
/// `gills.rs`), then works on, then asks the fold a question.
fn inner_fold(store: &Store, root: &Writer) -> TestResult<Inner> {
    let mut child = delegate_child(store, root, "f00d")?;
    let (u, end) = writer_turn(
        &mut child,
        "inside the fold: look at the axolotl",
        "the axolotl lives in lake xochimilco",
        vec![touch("gills.rs", "edit", Some("00"))],
        "axolotl checked",
    )?;
    child.append(fold(u, end, "in1", "looked at the axolotl gills"))?;
    let after = child
        .append(Body::user_text("outside the fold: the pangolin"))?
        .seq;
    let ask = child
        .append(ask(
            "in1",
            "where does it live?",
            "in the lake, said the capuchin",
        ))?
        .seq;
    Ok(Inner {
        child: child.id().to_owned(),
        user: u,
        tool: u + 2,
        after,
        ask,
    })
}

#[test]
fn a_fold_inside_a_fork_is_its_own_thread_under_its_handle() -> TestResult {
    let b = two_folds();
    let (home, id) = home_with(&b)?;
    let root = home.store.writer(&id)?;
    let inner = inner_fold(&home.store, &root)?;
    drop(root);
    let archive = open_archive(&home.store, &id)?;
    let handles: Vec<&str> = archive
        .threads()
        .iter()
        .map(|t| t.handle.as_str())
        .collect();
    assert_eq!(handles, ["a1", "b2", "f00d", "in1", "in1"]);
    let fork = &archive.threads()[2];
    let in1 = &archive.threads()[3];
    assert_eq!(in1.note, "looked at the axolotl gills");
    assert_eq!(in1.since, inner.user);
    assert_eq!(in1.files, [touch("gills.rs", "edit", Some("00"))]);
    // The fork's thread keeps its task and every touch of its own log.
    assert_eq!(fork.note, "task of f00d: audit the linker flags");
    assert_eq!(fork.files, in1.files);
    // A line inside the fold's span is the fold's; one outside it is the fork's.
    let inside = archive.search("xochimilco", Mode::Exact, 5)?;
    assert_eq!(
        summary(&inside),
        [(
            "in1".to_owned(),
            inner.tool,
            "tool".to_owned(),
            "the axolotl lives in lake xochimilco".to_owned()
        )]
    );
    let outside = archive.search("pangolin", Mode::Ranked, 5)?;
    assert_eq!(
        summary(&outside),
        [(
            "f00d".to_owned(),
            inner.after,
            "user".to_owned(),
            "outside the fold: the pangolin".to_owned()
        )]
    );
    // The inner note is found under the inner handle, stamped with its span's start; the
    // task stays the fork's note.
    let note = archive.search("gills", Mode::Ranked, 5)?;
    assert_eq!((note[0].handle.as_str(), note[0].seq), ("in1", inner.user));
    assert_eq!(note[0].kind.to_string(), "note");
    let task = archive.search("audit the linker", Mode::Exact, 5)?;
    assert_eq!((task[0].handle.as_str(), task[0].seq), ("f00d", fork.since));
    // The ask inside the fork is under the handle it asked, and stale as that fold is
    // (`/project/gills.rs` does not exist).
    let asked = archive.search("capuchin", Mode::Exact, 5)?;
    assert_eq!((asked[0].handle.as_str(), asked[0].seq), ("in1", inner.ask));
    assert_eq!(asked[0].kind.to_string(), "ask");
    assert_eq!(asked[0].stale, ["gills.rs"]);
    assert_eq!(
        archive.stale_files("in1"),
        Some(vec!["gills.rs".to_owned()])
    );
    // In memory, the same.
    let own = home.store.read(&inner.child)?;
    let mut mem = open_index(&home.store, &id)?;
    mem.add_delegated(
        "f00d",
        "task of f00d: audit the linker flags",
        &own.records,
        None,
    );
    assert_eq!(mem.threads(), archive.threads());
    assert_eq!(mem.docs()?, archive.docs()?);
    Ok(())
}

/// A hit as two archives must agree on: (handle, seq, kind, line).
type Row = (String, u64, String, String);

/// Every query the inner-fold tests compare archives by.
fn fork_queries(archive: &hotl_recall::Archive) -> TestResult<Vec<Vec<Row>>> {
    let mut out = Vec::new();
    for (q, mode) in [
        ("xochimilco", Mode::Exact),
        ("pangolin", Mode::Ranked),
        ("axolotl gills", Mode::Ranked),
        ("audit", Mode::Ranked),
        ("capuchin", Mode::Exact),
        ("the", Mode::Ranked),
        (r"^\w+ \w+$", Mode::Regex),
    ] {
        out.push(summary(&archive.search(q, mode, 20)?));
    }
    Ok(out)
}

#[test]
fn a_forks_inner_threads_come_back_the_same_from_its_cache_and_an_old_cache_is_rebuilt()
-> TestResult {
    let b = two_folds();
    let (home, id) = home_with(&b)?;
    let root = home.store.writer(&id)?;
    let inner = inner_fold(&home.store, &root)?;
    drop(root);
    let dir = home.store.layout().index_dir().join("recall");
    let head = dir.join(format!("{}.fork.json", inner.child));
    let first = open_archive(&home.store, &id)?;
    let written = std::fs::read(&head)?;
    let second = open_archive(&home.store, &id)?;
    assert_eq!(
        std::fs::read(&head)?,
        written,
        "the second open is served by the cache"
    );
    assert_eq!(second.threads(), first.threads());
    assert_eq!(second.docs()?, first.docs()?);
    assert_eq!(fork_queries(&second)?, fork_queries(&first)?);
    assert_eq!(fork_queries(&first)?[0][0].0, "in1");
    // What the header says is what the archive holds: the cache is what serves.
    let mut marked: serde_json::Value = serde_json::from_slice(&written)?;
    marked["threads"][1]["note"] = "from the cache".into();
    std::fs::write(&head, serde_json::to_vec(&marked)?)?;
    assert_eq!(
        open_archive(&home.store, &id)?.threads()[3].note,
        "from the cache"
    );
    std::fs::write(&head, &written)?;

    // A header of the first format (one thread, no owners) is indexed again.
    let header: serde_json::Value = serde_json::from_slice(&written)?;
    assert_eq!(header["format"], 4);
    let old = serde_json::json!({
        "format": 1,
        "size": header["size"],
        "hash": header["hash"],
        "thread": header["threads"][0],
    });
    std::fs::write(&head, serde_json::to_vec(&old)?)?;
    let rebuilt = open_archive(&home.store, &id)?;
    assert_eq!(rebuilt.threads(), first.threads());
    assert_eq!(fork_queries(&rebuilt)?, fork_queries(&first)?);
    let header: serde_json::Value = serde_json::from_slice(&std::fs::read(&head)?)?;
    assert_eq!(header["format"], 4);
    // So is one of this shape claiming the old format, or owners that do not fit.
    for damage in ["format", "owners"] {
        let mut header = header.clone();
        match damage {
            "format" => header["format"] = 1.into(),
            _ => header["owners"] = serde_json::json!([[0, 1]]),
        }
        std::fs::write(&head, serde_json::to_vec(&header)?)?;
        let again = open_archive(&home.store, &id)?;
        assert_eq!(fork_queries(&again)?, fork_queries(&first)?, "{damage}");
        assert_eq!(std::fs::read(&head)?, written, "{damage}: rewritten");
    }
    Ok(())
}

#[test]
fn an_earlier_ask_is_as_stale_as_the_thread_it_asked() -> TestResult {
    let dir = tempfile::tempdir()?;
    let cwd = dir.path();
    std::fs::write(cwd.join("a.rs"), "fn a() {}\n")?;
    let mut b = LogBuilder::new(FIXED_ID, &cwd.to_string_lossy());
    let (s, u) = turn_with(
        &mut b,
        "look at a",
        "checked a.rs",
        vec![touch("a.rs", "read", Some(&content_hash(b"fn a() {}\n")))],
        "fine",
    );
    b.fold(s, u, "f1", "a is fine");
    let (s, u) = turn_with(&mut b, "and the docs", "read the docs", vec![], "ok");
    b.fold(s, u, "d2", "docs read");
    b.record(ask(
        "f1",
        "what did a.rs hold?",
        "one function, the wallaby",
    ));
    let (home, id) = home_with(&b)?;
    let archive = open_archive(&home.store, &id)?;
    assert!(
        archive.search("wallaby", Mode::Exact, 5)?[0]
            .stale
            .is_empty()
    );
    assert_eq!(archive.stale_files("f1"), Some(vec![]));

    std::fs::write(cwd.join("a.rs"), "fn a() { changed }\n")?;
    let hits = archive.search("wallaby", Mode::Exact, 5)?;
    assert_eq!(
        (hits[0].handle.as_str(), hits[0].kind.name()),
        ("f1", "ask")
    );
    assert_eq!(hits[0].stale, ["a.rs"]);
    assert_eq!(archive.stale_files("f1"), Some(vec!["a.rs".to_owned()]));
    // A thread that touched nothing has nothing stale; an unknown handle is not there.
    assert_eq!(archive.stale_files("d2"), Some(vec![]));
    assert_eq!(archive.stale_files("zz9"), None);
    Ok(())
}

/// Overwrites the postings region of segment file `path` with 0xff: it still opens, and a
/// ranked search reading it finds the damage.
fn damage_postings(path: &std::path::Path) -> TestResult {
    let mut bytes = std::fs::read(path)?;
    let footer = bytes.len() - 8 - 14 * 8;
    let field = |i: usize| -> usize {
        let at = footer + i * 8;
        u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes")) as usize
    };
    let (at, len) = (field(4), field(5));
    assert!(len > 0, "a segment with postings");
    bytes[at..at + len].fill(0xff);
    std::fs::write(path, &bytes)?;
    Ok(())
}

/// The segment files in `dir` whose names start with `prefix`.
fn segments(dir: &std::path::Path, prefix: &str) -> TestResult<Vec<std::path::PathBuf>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with(prefix) && name.ends_with(".seg") {
            out.push(path);
        }
    }
    Ok(out)
}

#[test]
fn a_segment_damaged_under_a_search_is_rebuilt_and_searched_again_in_one_call() -> TestResult {
    let b = two_folds();
    let (home, id) = home_with(&b)?;
    let root = home.store.writer(&id)?;
    let inner = inner_fold(&home.store, &root)?;
    drop(root);
    let dir = home.store.layout().index_dir().join("recall");
    let expect = |q: &str| -> TestResult<Vec<_>> {
        Ok(summary(&open_archive(&home.store, &id)?.search(
            q,
            Mode::Ranked,
            5,
        )?))
    };
    let ts = expect("ts2322")?;
    let axolotl = expect("axolotl")?;
    assert_eq!(ts[0].0, "a1");
    assert_eq!(axolotl[0].0, "in1");

    // The damage is only found by the search: alone, it fails (and deletes the file).
    let main_seg = &segments(&dir, &format!("{id}-"))?[0];
    damage_postings(main_seg)?;
    let err = open_archive(&home.store, &id)?
        .search("ts2322", Mode::Ranked, 5)
        .unwrap_err();
    assert!(matches!(err, RecallError::Corrupt { .. }), "{err:?}");
    assert!(!main_seg.exists());

    // search_archive rebuilds and answers in the same call, for the session's index...
    open_archive(&home.store, &id)?;
    damage_postings(&segments(&dir, &format!("{id}-"))?[0])?;
    let (archive, hits) = search_archive(&home.store, &id, "ts2322", Mode::Ranked, 5)?;
    assert_eq!(summary(&hits), ts);
    assert_eq!(archive.threads().len(), 5);
    // ...and for a fork's cached segment.
    let fork_seg = &segments(&dir, &format!("{}.fork-", inner.child))?[0];
    damage_postings(fork_seg)?;
    let (_, hits) = search_archive(&home.store, &id, "axolotl", Mode::Ranked, 5)?;
    assert_eq!(summary(&hits), axolotl);
    // Other errors still fail it.
    assert!(matches!(
        search_archive(&home.store, &id, "(", Mode::Regex, 5),
        Err(RecallError::InvalidRegex { .. })
    ));
    Ok(())
}

/// Exact and regex hits are newest first across the session and its forks: a fork's work
/// counts where it was pinned, between the spans folded before and after it.
#[test]
fn exact_hits_order_a_forks_work_where_it_was_pinned() -> TestResult {
    let mut b = LogBuilder::new(FIXED_ID, "/project");
    let (u, end) = turn_with(&mut b, "first kiwi", "kiwi early", vec![], "done");
    b.fold(u, end, "e1", "the early kiwi");
    let (home, id) = home_with(&b)?;
    let mut root = home.store.writer(&id)?;
    fork_child(&home.store, &root, "f1", &["kiwi in the fork"])?;
    let user = root.append(Body::user_text("late kiwi"))?.seq;
    let answer = root
        .append(Body::Assistant {
            content: vec![Block::text("kiwi late")],
            model: None,
            stop: Some("end_turn".into()),
            stop_raw: None,
            usage: None,
        })?
        .seq;
    root.append(Body::Fold(Box::new(Fold {
        since: user,
        until: answer,
        handle: "l1".into(),
        note: "the late kiwi".into(),
        files: vec![],
        diff_blob: None,
    })))?;
    drop(root);
    let archive = open_archive(&home.store, &id)?;
    for mode in [Mode::Exact, Mode::Regex] {
        let hits = archive.search("kiwi", mode, 20)?;
        let handles: Vec<&str> = hits.iter().map(|h| h.handle.as_str()).collect();
        let first = |h: &str| handles.iter().position(|x| *x == h).expect("a hit");
        let last = |h: &str| handles.iter().rposition(|x| *x == h).expect("a hit");
        assert!(last("l1") < first("f1"), "{handles:?}");
        assert!(last("f1") < first("e1"), "{handles:?}");
        // A limit keeps the newest.
        let two = archive.search("kiwi", mode, 2)?;
        assert!(
            two.iter().all(|h| h.handle == "l1"),
            "{}",
            render_hits(&two)
        );
    }
    Ok(())
}
