//! `hotl sessions drop` and `hotl gc`: leaves go, parents of kept forks stay.

use hotl_testkit::{FIXED_ID, LogBuilder, TestResult};

use crate::common::{Env, OTHER_ID, THIRD_ID};

#[test]
fn dropping_a_leaf_deletes_it() -> TestResult {
    let env = Env::new()?;
    env.import(&env.log_with_turns(FIXED_ID, 1))?;
    // By list number with nobody to ask: refused (numbers shift as sessions start).
    let refused = env.run(&["sessions", "drop", "1"]).fails(1);
    assert!(
        refused.stderr.contains("shifts as sessions start"),
        "{refused}"
    );
    assert!(
        refused
            .stderr
            .contains(&format!("hotl sessions drop {FIXED_ID} --yes")),
        "{refused}"
    );
    assert!(env.log_path(FIXED_ID).exists());
    let out = env.run(&["sessions", "drop", "1", "--yes"]).ok();
    assert_eq!(out.stdout, format!("dropped {FIXED_ID}\n"));
    assert!(!env.log_path(FIXED_ID).exists());
    assert_eq!(
        env.run(&["sessions", "list", "--all"]).ok().stdout,
        "no sessions\n"
    );
    env.run(&["sessions", "show", FIXED_ID]).fails(1);
    Ok(())
}

#[test]
fn a_parent_is_tombstoned_until_gc_finds_no_descendant() -> TestResult {
    let env = Env::new()?;
    env.import(&env.log_with_turns(FIXED_ID, 2))?;
    let fork = env.run(&["sessions", "fork", "1"]).ok().line().to_owned();

    let out = env.run(&["sessions", "drop", FIXED_ID]).ok();
    assert!(out.stdout.contains("hidden from lists"), "{out}");
    assert!(out.stdout.contains(&fork), "{out}");
    assert!(env.log_path(FIXED_ID).is_file());
    assert_eq!(
        env.record_types(FIXED_ID)?.last().map(String::as_str),
        Some("drop")
    );
    let list = env.json(&["sessions", "list", "--all", "--json"])?;
    let ids: Vec<&str> = list
        .as_array()
        .ok_or("array")?
        .iter()
        .filter_map(|r| r["id"].as_str())
        .collect();
    assert_eq!(ids, [fork.as_str()]);
    let show = env.run(&["sessions", "show", FIXED_ID]).ok();
    assert!(
        show.stdout.contains("dropped (kept for its descendants)"),
        "{show}"
    );
    env.run(&["sessions", "show", &FIXED_ID[..6]]).fails(1);
    // The fork still reads its history through the tombstoned parent.
    assert_eq!(env.turns(&fork)?, 2);

    let gc = env.run(&["gc"]).ok();
    assert!(
        gc.stdout
            .contains(&format!("kept {FIXED_ID}: a kept session descends from it")),
        "{gc}"
    );
    assert!(env.log_path(FIXED_ID).is_file());

    env.run(&["sessions", "drop", &fork]).ok();
    assert!(!env.log_path(&fork).exists());
    let gc = env.run(&["gc"]).ok();
    assert!(
        gc.stdout
            .contains(&format!("removed session {FIXED_ID} (dropped,")),
        "{gc}"
    );
    assert!(!env.log_path(FIXED_ID).exists());
    assert_eq!(
        env.run(&["sessions", "list", "--all"]).ok().stdout,
        "no sessions\n"
    );
    Ok(())
}

/// Far in the future: FIXED_ID (old) with a young fork, OTHER_ID (old), THIRD_ID (young).
fn aged() -> TestResult<(Env, String)> {
    let mut env = Env::new()?;
    env.now = "2027-06-01T00:00:00.000Z".to_owned();
    env.import(&env.log_with_turns(FIXED_ID, 1))?;
    env.import(&env.log_with_turns(OTHER_ID, 1))?;
    let mut young = LogBuilder::new(THIRD_ID, &env.cwd());
    young.turn("recent");
    env.import_at(&young, "2027-05-30T00:00:00.000Z")?;
    let fork = env
        .run(&["sessions", "fork", FIXED_ID])
        .ok()
        .line()
        .to_owned();
    Ok((env, fork))
}

fn listed(env: &Env) -> TestResult<Vec<String>> {
    let list = env.json(&["sessions", "list", "--all", "--json"])?;
    Ok(list
        .as_array()
        .ok_or("array")?
        .iter()
        .filter_map(|r| r["id"].as_str().map(str::to_owned))
        .collect())
}

#[test]
fn gc_dry_run_lists_and_removes_nothing() -> TestResult {
    let (env, _fork) = aged()?;
    let before = listed(&env)?;
    assert_eq!(before.len(), 4);
    let out = env.run(&["gc", "--older-than", "30d", "--dry-run"]).ok();
    assert!(
        out.stdout
            .contains(&format!("would remove session {OTHER_ID} (old,")),
        "{out}"
    );
    assert!(
        out.stdout
            .contains(&format!("kept {FIXED_ID}: a kept session descends from it")),
        "{out}"
    );
    assert!(out.stdout.contains("dry run: 1 session,"), "{out}");
    assert!(env.log_path(OTHER_ID).is_file());
    assert_eq!(listed(&env)?, before);
    // What it says would be freed is what the run frees, and it counts every file: at least
    // the log's bytes, never 0.
    let log_bytes = std::fs::metadata(env.log_path(OTHER_ID))?.len();
    let freed = |text: &str| -> TestResult<u64> {
        let last = text.lines().last().ok_or("no summary")?;
        let number = last
            .rsplit("; ")
            .next()
            .and_then(|t| t.strip_suffix(" bytes"))
            .ok_or(format!("no byte count in {last:?}"))?;
        Ok(number.parse()?)
    };
    let would = freed(&out.stdout)?;
    assert!(
        would >= log_bytes && log_bytes > 0,
        "{would} < {log_bytes}:\n{out}"
    );
    let done = env.run(&["gc", "--older-than", "30d"]).ok();
    assert_eq!(freed(&done.stdout)?, would, "{done}");
    let json = env.json(&["gc", "--json"])?;
    assert_eq!(json["freed_bytes"], 0, "{json}");
    Ok(())
}

#[test]
fn gc_removes_old_sessions_but_keeps_parents_of_young_forks() -> TestResult {
    let (env, fork) = aged()?;
    let out = env.run(&["gc", "--older-than", "30d"]).ok();
    assert!(
        out.stdout
            .contains(&format!("removed session {OTHER_ID} (old,")),
        "{out}"
    );
    assert!(out.stdout.contains("done: 1 session,"), "{out}");
    assert!(!env.log_path(OTHER_ID).exists());
    for kept in [FIXED_ID, THIRD_ID, fork.as_str()] {
        assert!(env.log_path(kept).is_file(), "{kept} was removed:\n{out}");
    }
    let mut left = listed(&env)?;
    left.sort();
    let mut want = vec![FIXED_ID.to_owned(), THIRD_ID.to_owned(), fork.clone()];
    want.sort();
    assert_eq!(left, want);
    assert_eq!(env.turns(&fork)?, 1);

    // A long enough --older-than keeps everything.
    let none = env.run(&["gc", "--older-than", "1000d"]).ok();
    assert!(none.stdout.contains("done: 0 sessions,"), "{none}");
    let bad = env.run(&["gc", "--older-than", "soon"]).fails(2);
    assert!(bad.stderr.contains("30d"), "{bad}");
    Ok(())
}
