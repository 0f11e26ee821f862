//! Lineage: forks read their parents up to a pin, never copy, never write them.

use hotl_log::{Body, LineageProblem, MAX_ANCESTORS, Store};
use hotl_testkit::{FIXED_ID, LogBuilder, TestHome, TestResult};

fn fork_at(store: &Store, parent: &str, seq: u64) -> TestResult<String> {
    let lineage = store.lineage(parent)?;
    let pin = store.pin(parent, seq, lineage.offset_for(seq))?;
    Ok(store.fork(pin, "/p", vec![], None)?.id().to_owned())
}

#[test]
fn fork_reads_parent_to_the_pin_and_leaves_it_untouched() -> TestResult {
    let home = TestHome::new();
    let mut log = LogBuilder::new(FIXED_ID, "/p");
    log.turn("one");
    let cut = log.seq();
    log.turn("two");
    let parent = home.import(&log)?;
    let path = home.store.layout().log(&parent);
    let bytes = std::fs::read(&path)?;
    let mtime = std::fs::metadata(&path)?.modified()?;

    let child = fork_at(&home.store, &parent, cut)?;
    assert_eq!(std::fs::read(&path)?, bytes);
    assert_eq!(std::fs::metadata(&path)?.modified()?, mtime);

    let lineage = home.store.lineage(&child)?;
    assert!(lineage.problems.is_empty(), "{:?}", lineage.problems);
    assert_eq!(lineage.own_start, cut as usize);
    assert_eq!(lineage.records[lineage.own_start].seq, cut + 1);
    assert_eq!(home.store.meta(&child)?.turns, 1);

    // The parent keeps working; the fork does not see it.
    home.store
        .writer(&parent)?
        .append(Body::user_text("three"))?;
    assert_eq!(home.store.lineage(&child)?.own_start, cut as usize);
    assert_eq!(home.store.meta(&child)?.turns, 1);
    Ok(())
}

#[test]
fn fork_of_a_fork_cut_inside_inherited_history() -> TestResult {
    let home = TestHome::new();
    let mut log = LogBuilder::new(FIXED_ID, "/p");
    log.turn("one");
    let early = log.seq();
    log.turn("two");
    let root = home.import(&log)?;
    let mid = fork_at(&home.store, &root, log.seq())?;
    home.store
        .writer(&mid)?
        .append(Body::user_text("mid's own"))?;
    let leaf = fork_at(&home.store, &mid, early)?;
    let lineage = home.store.lineage(&leaf)?;
    assert_eq!(lineage.ancestors, [mid.clone(), root.clone()]);
    assert!(
        lineage.records[..lineage.own_start]
            .iter()
            .all(|r| r.seq <= early)
    );
    assert_eq!(home.store.meta(&leaf)?.turns, 1);
    Ok(())
}

#[test]
fn missing_and_changed_ancestors_are_named() -> TestResult {
    let home = TestHome::new();
    let mut log = LogBuilder::new(FIXED_ID, "/p");
    log.turn("one");
    let root = home.import(&log)?;
    let child = fork_at(&home.store, &root, log.seq())?;

    // Rewrite a byte before the pin: the ancestor changed.
    let path = home.store.layout().log(&root);
    let mut bytes = std::fs::read(&path)?;
    let at = bytes.len() - 10;
    bytes[at] = b'#';
    std::fs::write(&path, &bytes)?;
    let problems = home.store.lineage(&child)?.problems;
    assert!(problems.contains(&LineageProblem::ChangedAncestor {
        ancestor: root.clone(),
        child: child.clone()
    }));

    std::fs::remove_file(&path)?;
    let lineage = home.store.lineage(&child)?;
    assert_eq!(
        lineage.problems,
        [LineageProblem::MissingAncestor {
            ancestor: root.clone(),
            child: child.clone()
        }]
    );
    assert!(lineage.problems[0].to_string().contains(&root));
    assert_eq!(lineage.own_start, 0, "own records still load");
    let check = home.store.check(&child)?;
    assert!(!check.is_healthy());
    Ok(())
}

#[test]
fn lineage_deeper_than_the_limit_sheds_the_oldest_history_with_a_warning() -> TestResult {
    let home = TestHome::new();
    let mut log = LogBuilder::new(FIXED_ID, "/p");
    log.turn("root");
    let mut id = home.import(&log)?;
    let mut ids = vec![id.clone()];
    for n in 0..MAX_ANCESTORS + 2 {
        let head = home.store.meta(&id)?;
        let pin = home.store.pin(&id, head.last_seq, head.complete_end)?;
        let mut writer = home.store.fork(pin, "/p", vec![], None)?;
        writer.append(Body::user_text(format!("gen {n}")))?;
        id = writer.id().to_owned();
        ids.push(id.clone());
    }
    let lineage = home.store.lineage(&id)?;
    assert_eq!(lineage.ancestors.len(), MAX_ANCESTORS);
    let deep = lineage
        .problems
        .iter()
        .find(|p| matches!(p, LineageProblem::TooDeep { .. }))
        .ok_or("too deep reported")?;
    assert!(deep.to_string().contains("start a fresh session"), "{deep}");
    assert!(!home.store.check(&id)?.is_healthy());
    Ok(())
}

#[test]
fn a_fork_told_what_it_inherits_has_a_ready_summary_equal_to_a_rebuild() -> TestResult {
    let home = TestHome::new();
    let mut log = LogBuilder::new(FIXED_ID, "/p");
    log.turn("first question");
    log.turn("second");
    let parent = home.import(&log)?;
    let head = home.store.meta(&parent)?;
    let pin = home.store.pin(&parent, head.last_seq, head.complete_end)?;
    let inherited = hotl_log::Inherited {
        turns: head.turns,
        first_message: head.first_message.clone(),
    };
    let mut writer = home.store.fork(
        pin,
        "/p",
        vec![Body::title("t (fork)".into())],
        Some(inherited),
    )?;
    writer.append(Body::user_text("third"))?;
    let id = writer.id().to_owned();
    drop(writer);
    let ready = home.store.meta(&id)?;
    let rebuilt = home.store.rebuild_meta(&id)?;
    assert_eq!(ready, rebuilt);
    assert_eq!(ready.turns, 3);
    Ok(())
}

/// `offset_through` finds, by bisecting the file, the pin offset reading the whole log gives,
/// for every seq of a log far larger than its last stretch (damaged lines included).
#[test]
fn offset_through_bisects_to_where_the_lineage_pins() -> TestResult {
    let home = TestHome::new();
    let mut log = LogBuilder::new(FIXED_ID, "/p");
    for i in 0..400 {
        log.turn(&format!("turn {i} {}", "padding ".repeat(40)));
    }
    let id = home.import(&log)?;
    let path = home.store.layout().log(&id);
    // A damaged line in the middle, as a crash might leave one.
    let mut text = std::fs::read_to_string(&path)?;
    let middle = text.len() / 2;
    let at = middle + text[middle..].find('\n').ok_or("a line end")? + 1;
    text.insert_str(at, "{\"seq\":not a number\n");
    std::fs::write(&path, text)?;
    let lineage = home.store.lineage(&id)?;
    assert!(std::fs::metadata(&path)?.len() > 512 * 1024);
    let last = log.seq();
    for seq in (0..=last + 2).step_by(7).chain([1, 2, last - 1, last]) {
        assert_eq!(
            home.store.offset_through(&id, seq)?,
            lineage.offset_for(seq),
            "t{seq}"
        );
    }
    Ok(())
}
