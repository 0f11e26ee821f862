//! `hotl sessions fork`: new id, untouched parent, cuts, names, inherited state, lineage.

use hotl_log::Body;
use hotl_testkit::{FIXED_ID, TestResult};

use crate::common::Env;

/// A three-turn session (each turn is 4 transcript items) in a fresh env.
fn three_turns() -> TestResult<Env> {
    let env = Env::new()?;
    env.import(&env.log_with_turns(FIXED_ID, 3))?;
    Ok(env)
}

#[test]
fn prints_the_new_id_and_leaves_the_parent_alone() -> TestResult {
    let env = three_turns()?;
    let path = env.log_path(FIXED_ID);
    let bytes = std::fs::read(&path)?;
    let mtime = std::fs::metadata(&path)?.modified()?;
    std::thread::sleep(std::time::Duration::from_millis(20));

    let out = env.run(&["sessions", "fork", "1"]).ok();
    let id = out.line();
    assert!(hotl_log::is_session_id(id), "{out}");
    assert_ne!(id, FIXED_ID);
    assert_eq!(std::fs::read(&path)?, bytes);
    assert_eq!(std::fs::metadata(&path)?.modified()?, mtime);

    let show = env.json(&["sessions", "show", id, "--json"])?;
    assert_eq!(show["turns"], 3);
    assert_eq!(show["parent"]["session"], FIXED_ID);
    let list = env.run(&["sessions", "list"]).ok();
    assert!(
        list.stdout.contains(&format!("↳ from {}", &FIXED_ID[..8])),
        "{list}"
    );
    Ok(())
}

#[test]
fn keep_turns_cuts_after_the_nth_turn() -> TestResult {
    let env = three_turns()?;
    let id = env
        .run(&["sessions", "fork", FIXED_ID, "--keep-turns", "2"])
        .ok()
        .line()
        .to_owned();
    assert_eq!(env.turns(&id)?, 2);
    let show = env.run(&["sessions", "show", &id]).ok();
    assert!(show.stdout.contains("· 2 turns ·"), "{show}");
    assert!(show.stdout.contains("user: message 2"), "{show}");
    assert!(!show.stdout.contains("message 3"), "{show}");
    assert_eq!(env.turns(FIXED_ID)?, 3);

    let too_many = env
        .run(&["sessions", "fork", FIXED_ID, "--keep-turns", "4"])
        .fails(1);
    assert!(too_many.stderr.contains("3 completed turns"), "{too_many}");
    Ok(())
}

#[test]
fn keep_off_a_boundary_names_the_nearest() -> TestResult {
    let env = three_turns()?;
    let out = env.run(&["sessions", "fork", "1", "--keep", "6"]).fails(1);
    insta::assert_snapshot!(out, @r"
        [stderr]
        hotl: --keep 6 is not on a turn boundary; nearest valid: --keep 4 or --keep 8
        [exit status: 1]
    ");
    let id = env
        .run(&["sessions", "fork", "1", "--keep", "8"])
        .ok()
        .line()
        .to_owned();
    assert_eq!(env.turns(&id)?, 2);
    Ok(())
}

#[test]
fn keep_and_keep_turns_together_is_a_usage_error() -> TestResult {
    let env = three_turns()?;
    let out = env
        .run(&["sessions", "fork", "1", "--keep", "4", "--keep-turns", "1"])
        .fails(2);
    assert!(out.stderr.contains("cannot be used with"), "{out}");
    assert_eq!(
        env.json(&["sessions", "list", "--json"])?
            .as_array()
            .map(Vec::len),
        Some(1)
    );
    Ok(())
}

#[test]
fn the_name_is_never_inherited_and_n_names_the_fork() -> TestResult {
    let env = Env::new()?;
    let mut log = env.log_with_turns(FIXED_ID, 1);
    log.record(Body::Name {
        name: Some("main".to_owned()),
    });
    env.import(&log)?;

    let plain = env
        .run(&["sessions", "fork", "main"])
        .ok()
        .line()
        .to_owned();
    let json = env.json(&["sessions", "show", &plain, "--json"])?;
    assert_eq!(json["name"], serde_json::Value::Null);

    let named = env
        .run(&["sessions", "fork", "main", "-n", "experiment"])
        .ok()
        .line()
        .to_owned();
    assert_eq!(
        env.json(&["sessions", "show", "experiment", "--json"])?["id"],
        named
    );

    let taken = env
        .run(&["sessions", "fork", "main", "--name", "experiment"])
        .fails(1);
    assert!(taken.stderr.contains("taken"), "{taken}");
    let bad = env.run(&["sessions", "fork", "main", "-n", "a/b"]).fails(1);
    assert!(bad.stderr.contains("invalid session name"), "{bad}");
    assert_eq!(
        env.json(&["sessions", "list", "--json"])?
            .as_array()
            .map(Vec::len),
        Some(3)
    );
    Ok(())
}

#[test]
fn modes_are_inherited_and_todos_only_at_the_head() -> TestResult {
    let env = Env::new()?;
    let mut log = env.log(FIXED_ID);
    log.turn("first");
    log.record(Body::Mode {
        permission: Some("accept-edits".to_owned()),
        plan: Some(true),
        effort: None,
        sandbox: None,
        model: None,
        provider: None,
    });
    log.todos(&[("write tests", "in_progress"), ("ship", "pending")]);
    log.turn("second");
    env.import(&log)?;

    let head = env.run(&["sessions", "fork", "1"]).ok().line().to_owned();
    let types = env.record_types(&head)?;
    assert!(types.iter().any(|t| t == "mode"), "{types:?}");
    assert!(types.iter().any(|t| t == "todos"), "{types:?}");
    let text = String::from_utf8(env.log_bytes(&head)?)?;
    assert!(
        text.contains("accept-edits") && text.contains("write tests"),
        "{text}"
    );

    let cut = env
        .run(&["sessions", "fork", FIXED_ID, "--keep-turns", "1"])
        .ok()
        .line()
        .to_owned();
    let types = env.record_types(&cut)?;
    assert!(types.iter().any(|t| t == "mode"), "{types:?}");
    assert!(!types.iter().any(|t| t == "todos"), "{types:?}");
    assert!(!types.iter().any(|t| t == "name"), "{types:?}");
    Ok(())
}

#[test]
fn a_missing_ancestor_is_named() -> TestResult {
    let env = three_turns()?;
    let child = env.run(&["sessions", "fork", "1"]).ok().line().to_owned();
    std::fs::remove_file(env.log_path(FIXED_ID))?;

    let out = env.run(&["sessions", "fork", &child]).fails(1);
    assert!(
        out.stderr.contains(&format!("ancestor {FIXED_ID}")) && out.stderr.contains("missing"),
        "{out}"
    );
    let cut = env
        .run(&["sessions", "fork", &child, "--keep-turns", "1"])
        .fails(1);
    assert!(
        cut.stderr.contains(&format!("ancestor {FIXED_ID}")) && cut.stderr.contains("missing"),
        "{cut}"
    );
    Ok(())
}

#[test]
fn a_missing_grandparent_is_named_with_its_child() -> TestResult {
    let env = three_turns()?;
    let child = env.run(&["sessions", "fork", "1"]).ok().line().to_owned();
    let grandchild = env
        .run(&["sessions", "fork", &child])
        .ok()
        .line()
        .to_owned();
    std::fs::remove_file(env.log_path(FIXED_ID))?;
    let out = env.run(&["sessions", "fork", &grandchild]).fails(1);
    assert!(
        out.stderr.contains(&format!(
            "ancestor {FIXED_ID} (parent of {child}) is missing"
        )),
        "{out}"
    );
    Ok(())
}

/// A fork only reads its parent: a parent made in a directory that is gone here (another
/// machine, a moved project) is forked into the current directory, which is said.
#[test]
fn a_parent_whose_directory_is_gone_is_forked_here() -> TestResult {
    let env = Env::new()?;
    let gone = env.root().join("moved-away");
    std::fs::create_dir_all(&gone)?;
    let mut log = hotl_testkit::LogBuilder::new(FIXED_ID, &gone.display().to_string());
    log.user("build it");
    log.assistant("built");
    env.import(&log)?;
    std::fs::remove_dir_all(&gone)?;
    let out = env.run(&["sessions", "fork", FIXED_ID]).ok();
    assert!(
        out.stderr
            .contains("does not exist here; the fork works in"),
        "{out}"
    );
    let fork = out.line().to_owned();
    let records = env.records(&fork)?;
    assert_eq!(records[0]["cwd"], env.cwd(), "{records:?}");
    Ok(())
}
