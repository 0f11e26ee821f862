//! The persisted index: the same hits as in memory, incremental updates, and rebuilds.

use hotl_log::{Body, LogError};
use hotl_recall::{Archive, Mode, RecallError, index_path, open_index};
use hotl_testkit::{LogBuilder, TestResult};

use crate::common::{home_with, records, summary, turn_with, two_folds};

const QUERIES: &[(&str, Mode)] = &[
    ("ts2322", Mode::Ranked),
    ("error number", Mode::Ranked),
    ("thread timeout cookie", Mode::Ranked),
    ("build", Mode::Ranked),
    ("zanzibar", Mode::Ranked),
    ("parse", Mode::Exact),
    ("e", Mode::Exact),
    (r"^\w+ \w+$", Mode::Regex),
];

fn assert_same(disk: &Archive, mem: &Archive) -> TestResult {
    assert_eq!(disk.threads(), mem.threads());
    assert_eq!(disk.docs()?, mem.docs()?);
    assert_eq!(disk.root(), mem.root());
    for &(q, mode) in QUERIES {
        let d = disk.search(q, mode, 20)?;
        let m = mem.search(q, mode, 20)?;
        assert_eq!(summary(&d), summary(&m), "{q:?} {mode:?}");
        for (x, y) in d.iter().zip(&m) {
            assert!((x.score - y.score).abs() < 1e-9, "{q:?}: {x:?} vs {y:?}");
        }
    }
    Ok(())
}

fn in_memory(b: &LogBuilder) -> TestResult<Archive> {
    Ok(Archive::from_records(&records(b)?, 0))
}

fn segment_files(dir: &std::path::Path) -> TestResult<usize> {
    Ok(std::fs::read_dir(dir)?
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".seg"))
        .count())
}

#[test]
fn the_persisted_index_gives_the_same_hits_as_in_memory() -> TestResult {
    let b = two_folds();
    let (home, id) = home_with(&b)?;
    let built = open_index(&home.store, &id)?;
    let idx = index_path(&home.store, &id);
    assert!(idx.is_file());
    assert_same(&built, &in_memory(&b)?)?;
    // Opened again: loaded, not rebuilt.
    let before = std::fs::metadata(&idx)?.modified()?;
    let loaded = open_index(&home.store, &id)?;
    assert_eq!(std::fs::metadata(&idx)?.modified()?, before);
    assert_same(&loaded, &in_memory(&b)?)?;
    Ok(())
}

#[test]
fn an_appended_fold_is_indexed_incrementally() -> TestResult {
    let mut b = two_folds();
    let (home, id) = home_with(&b)?;
    open_index(&home.store, &id)?;
    let dir = home.store.layout().index_dir().join("recall");
    assert_eq!(segment_files(&dir)?, 1);
    // The live turn at the end and a new one get folded; the log only grows.
    let (s, u) = turn_with(
        &mut b,
        "check the axolotl cache",
        "axolotl: 3 entries",
        vec![],
        "ok",
    );
    b.fold(s - 6, u, "c3", "looked at the axolotl cache");
    b.write(&home.store.layout().log(&id))?;
    let updated = open_index(&home.store, &id)?;
    assert_eq!(segment_files(&dir)?, 2, "one new segment, the old one kept");
    let hits = updated.search("axolotl", Mode::Ranked, 10)?;
    assert!(
        hits.iter().all(|h| h.handle == "c3") && hits.len() >= 3,
        "{hits:?}"
    );
    // The turn that was live when the index was built is now in the fold, found by its text.
    let hits = updated.search("zanzibar", Mode::Exact, 10)?;
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].handle, "c3");
    assert_same(&updated, &in_memory(&b)?)?;
    assert_same(&open_index(&home.store, &id)?, &in_memory(&b)?)?;
    Ok(())
}

#[test]
fn many_updates_keep_few_segments_and_the_same_hits() -> TestResult {
    let mut b = two_folds();
    let (home, id) = home_with(&b)?;
    open_index(&home.store, &id)?;
    for i in 0..20 {
        let (s, u) = turn_with(&mut b, &format!("task number {i}"), "tick", vec![], "done");
        b.fold(s, u, &format!("t{i}"), &format!("task {i}"));
        b.write(&home.store.layout().log(&id))?;
        open_index(&home.store, &id)?;
    }
    let dir = home.store.layout().index_dir().join("recall");
    assert!(segment_files(&dir)? <= 8, "{}", segment_files(&dir)?);
    assert_same(&open_index(&home.store, &id)?, &in_memory(&b)?)?;
    Ok(())
}

#[test]
fn a_large_session_is_indexed_in_parallel_segments_with_the_same_hits() -> TestResult {
    let mut b = two_folds();
    // Past the size where a rebuild splits the work (20,000 records).
    for i in 0..3_500 {
        let (s, u) = turn_with(
            &mut b,
            &format!("task {i}"),
            &format!("out {}", i % 97),
            vec![],
            "ok",
        );
        if i % 10 == 9 {
            b.fold(s - 54, u, &format!("f{i}"), &format!("ten tasks to {i}"));
        }
    }
    let (home, id) = home_with(&b)?;
    let disk = open_index(&home.store, &id)?;
    if std::thread::available_parallelism().map_or(1, |n| n.get()) > 1 {
        assert!(disk.stats().segments > 1, "{:?}", disk.stats());
    }
    assert_same(&disk, &in_memory(&b)?)?;
    let hits = disk.search("out 42", Mode::Exact, 100)?;
    assert_eq!(hits.len(), 36, "every 97th of 3,500 outputs");
    Ok(())
}

#[test]
fn a_revert_appended_later_unarchives_the_fold() -> TestResult {
    let mut b = two_folds();
    let (home, id) = home_with(&b)?;
    assert_eq!(open_index(&home.store, &id)?.threads().len(), 2);
    b.record(Body::Revert { to: 20 }); // before b2's fold record (21)
    b.write(&home.store.layout().log(&id))?;
    let a = open_index(&home.store, &id)?;
    assert_eq!(a.threads().len(), 1);
    assert_same(&a, &in_memory(&b)?)?;
    Ok(())
}

#[test]
fn a_garbage_index_file_is_rebuilt() -> TestResult {
    let b = two_folds();
    let (home, id) = home_with(&b)?;
    let idx = index_path(&home.store, &id);
    std::fs::create_dir_all(idx.parent().unwrap())?;
    std::fs::write(&idx, b"not an index at all")?;
    assert_same(&open_index(&home.store, &id)?, &in_memory(&b)?)?;
    assert!(std::fs::read(&idx)?.starts_with(b"hotlridx"));
    // A truncated one, too.
    let bytes = std::fs::read(&idx)?;
    std::fs::write(&idx, &bytes[..bytes.len() / 2])?;
    assert_same(&open_index(&home.store, &id)?, &in_memory(&b)?)?;
    Ok(())
}

#[test]
fn a_damaged_or_missing_segment_is_rebuilt() -> TestResult {
    let b = two_folds();
    let (home, id) = home_with(&b)?;
    open_index(&home.store, &id)?;
    let dir = home.store.layout().index_dir().join("recall");
    let seg = std::fs::read_dir(&dir)?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "seg"))
        .expect("a segment");
    let mut bytes = std::fs::read(&seg)?;
    let n = bytes.len();
    bytes[n - 30..].fill(0xAB);
    std::fs::write(&seg, &bytes)?;
    assert_same(&open_index(&home.store, &id)?, &in_memory(&b)?)?;
    assert!(!seg.exists(), "the damaged segment was replaced");
    for entry in std::fs::read_dir(&dir)? {
        let path = entry?.path();
        if path.extension().is_some_and(|x| x == "seg") {
            std::fs::remove_file(path)?;
        }
    }
    assert_same(&open_index(&home.store, &id)?, &in_memory(&b)?)?;
    Ok(())
}

#[test]
fn damage_anywhere_in_a_segment_never_panics_and_is_repaired() -> TestResult {
    let b = two_folds();
    let (home, id) = home_with(&b)?;
    let mem = in_memory(&b)?;
    let dir = home.store.layout().index_dir().join("recall");
    let mut found_by_search = 0;
    for step in 0..150 {
        open_index(&home.store, &id)?;
        let seg = std::fs::read_dir(&dir)?
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .find(|p| p.extension().is_some_and(|x| x == "seg"))
            .expect("a segment");
        let mut bytes = std::fs::read(&seg)?;
        let at = bytes.len() * step / 150;
        bytes[at] ^= 0x5a;
        let near = (at + 7).min(bytes.len() - 1);
        bytes[near] ^= 0xff;
        std::fs::write(&seg, &bytes)?;
        // Opening either refuses the damage and rebuilds, or only a search can find it: then
        // it says so and the next open rebuilds.
        let damaged = open_index(&home.store, &id)?;
        let mut failed = false;
        for &(q, mode) in QUERIES {
            match damaged.search(q, mode, 20) {
                Ok(_) => {}
                Err(RecallError::Corrupt { .. }) => failed = true,
                Err(e) => return Err(e.into()),
            }
        }
        if failed {
            found_by_search += 1;
            assert_same(&open_index(&home.store, &id)?, &mem)?;
        }
        std::fs::remove_dir_all(&dir)?;
    }
    assert!(found_by_search > 0, "no damage reached the postings");
    Ok(())
}

#[test]
fn a_log_that_changed_under_the_index_is_reindexed() -> TestResult {
    let b = two_folds();
    let (home, id) = home_with(&b)?;
    open_index(&home.store, &id)?;
    // A different log of the same id (not an append): the watermark no longer fits.
    let mut other = LogBuilder::new(&id, "/elsewhere");
    let (s, u) = turn_with(&mut other, "a different story", "kiwi", vec![], "ok");
    other.fold(s, u, "k1", "kiwi");
    other.write(&home.store.layout().log(&id))?;
    let a = open_index(&home.store, &id)?;
    assert_eq!(a.threads().len(), 1);
    assert_same(&a, &in_memory(&other)?)?;
    Ok(())
}

#[test]
fn a_fork_archives_what_its_inherited_history_folded() -> TestResult {
    let b = two_folds();
    let (home, id) = home_with(&b)?;
    let size = std::fs::metadata(home.store.layout().log(&id))?.len();
    let pin = home.store.pin(&id, b.seq(), size)?;
    let mut writer = home.store.fork(pin, "/project", vec![], None)?;
    writer.append(Body::user_text("and in the fork?"))?;
    let fork = writer.id().to_owned();
    drop(writer);
    let lineage = home.store.lineage(&fork)?;
    let mem = Archive::from_records(&lineage.records, lineage.own_start);
    let disk = open_index(&home.store, &fork)?;
    assert_eq!(disk.threads().len(), 2);
    assert_same(&disk, &mem)?;
    Ok(())
}

#[test]
fn an_unknown_session_is_an_error() {
    let home = hotl_testkit::TestHome::new();
    let err = open_index(&home.store, hotl_testkit::FIXED_ID).unwrap_err();
    assert!(
        matches!(err, RecallError::Log(LogError::NoSuchSession { .. })),
        "{err:?}"
    );
}
