//! `rename`, `revert`, `clear`: each appends exactly one record; the log only grows.

use hotl_testkit::{FIXED_ID, TestResult};

use crate::common::{Env, OTHER_ID};

/// Asserts `after` is `before` plus exactly one line whose record type is `kind`.
#[track_caller]
fn appended_one(env: &Env, before: &[u8], kind: &str) -> TestResult {
    let after = env.log_bytes(FIXED_ID)?;
    assert!(
        after.starts_with(before),
        "the log was rewritten, not appended to"
    );
    let added = &after[before.len()..];
    assert_eq!(
        added.iter().filter(|&&b| b == b'\n').count(),
        1,
        "one line added"
    );
    assert_eq!(added.last(), Some(&b'\n'));
    let types = env.record_types(FIXED_ID)?;
    assert_eq!(types.last().map(String::as_str), Some(kind));
    Ok(())
}

#[test]
fn rename_appends_one_name_record() -> TestResult {
    let env = Env::new()?;
    env.import(&env.log_with_turns(FIXED_ID, 1))?;
    let before = env.log_bytes(FIXED_ID)?;
    let out = env.run(&["sessions", "rename", FIXED_ID, "auth-work"]).ok();
    assert_eq!(out.stdout, format!("renamed {FIXED_ID} to auth-work\n"));
    appended_one(&env, &before, "name")?;
    let json = env.json(&["sessions", "show", "auth-work", "--json"])?;
    assert_eq!(json["name"], "auth-work");
    Ok(())
}

#[test]
fn rename_refuses_bad_names() -> TestResult {
    let env = Env::new()?;
    env.import(&env.log_with_turns(FIXED_ID, 1))?;
    let before = env.log_bytes(FIXED_ID)?;
    for name in ["a/b", "..", "x..y", "tab\there", "bell\u{7}", "new\nline"] {
        let out = env.run(&["sessions", "rename", FIXED_ID, name]).fails(1);
        assert!(
            out.stderr.contains("invalid session name"),
            "{name:?}: {out}"
        );
    }
    let out = env.run(&["sessions", "rename", FIXED_ID, "a/b"]).fails(1);
    insta::assert_snapshot!(out, @r#"
        [stderr]
        hotl: invalid session name "a/b": it contains a path separator
        [exit status: 1]
    "#);
    assert_eq!(env.log_bytes(FIXED_ID)?, before);
    Ok(())
}

#[test]
fn rename_refuses_a_name_another_live_session_has() -> TestResult {
    let env = Env::new()?;
    env.import(&env.log_with_turns(FIXED_ID, 1))?;
    env.import(&env.log_with_turns(OTHER_ID, 1))?;
    env.run(&["sessions", "rename", OTHER_ID, "taken"]).ok();
    let before = env.log_bytes(FIXED_ID)?;
    let out = env.run(&["sessions", "rename", FIXED_ID, "taken"]).fails(1);
    assert!(out.stderr.contains("is taken by session"), "{out}");
    assert!(out.stderr.contains(OTHER_ID), "{out}");
    assert_eq!(env.log_bytes(FIXED_ID)?, before);
    // Renaming a session to its own name is no conflict.
    env.run(&["sessions", "rename", OTHER_ID, "taken"]).ok();
    Ok(())
}

#[test]
fn a_dropped_session_frees_its_name() -> TestResult {
    let env = Env::new()?;
    env.import(&env.log_with_turns(FIXED_ID, 1))?;
    env.run(&["sessions", "rename", FIXED_ID, "main"]).ok();
    let fork = env
        .run(&["sessions", "fork", "main"])
        .ok()
        .line()
        .to_owned();
    let out = env.run(&["sessions", "drop", "main"]).ok();
    assert!(out.stdout.contains("hidden from lists"), "{out}");
    env.run(&["sessions", "rename", &fork, "main"]).ok();
    assert_eq!(
        env.json(&["sessions", "show", "main", "--json"])?["id"],
        fork
    );
    Ok(())
}

#[test]
fn revert_appends_one_record_and_drops_later_turns_from_the_view() -> TestResult {
    let env = Env::new()?;
    env.import(&env.log_with_turns(FIXED_ID, 3))?;
    let show = env.run(&["sessions", "show", "1"]).ok();
    assert!(show.stdout.contains("── end of turn 1 · t7 ──"), "{show}");
    let before = env.log_bytes(FIXED_ID)?;

    let out = env
        .run(&["sessions", "revert", FIXED_ID, "--to", "t7"])
        .ok();
    assert!(out.stdout.contains("1 turn kept"), "{out}");
    appended_one(&env, &before, "revert")?;
    assert_eq!(env.turns(FIXED_ID)?, 1);
    let show = env.run(&["sessions", "show", "1"]).ok();
    assert!(show.stdout.contains("message 1"), "{show}");
    assert!(!show.stdout.contains("message 2"), "{show}");
    // The revert is marked where it happened, and the kept turn keeps its stamp.
    assert!(
        show.stdout.contains(
            "── end of turn 1 · t7 ──\n⟲ reverted to t7 (2 later turns hidden; the log keeps them)"
        ),
        "{show}"
    );
    let shown = env.json(&["sessions", "show", "1", "--json"])?;
    assert_eq!(shown["reverts"][0]["to"], 7, "{shown}");
    assert_eq!(shown["reverts"][0]["hidden_turns"], 2, "{shown}");
    let list = env.json(&["sessions", "list", "--json"])?;
    assert_eq!(list[0]["turns"], 1);
    Ok(())
}

#[test]
fn revert_off_a_boundary_names_the_nearest() -> TestResult {
    let env = Env::new()?;
    env.import(&env.log_with_turns(FIXED_ID, 3))?;
    let before = env.log_bytes(FIXED_ID)?;
    let out = env
        .run(&["sessions", "revert", FIXED_ID, "--to", "t10"])
        .fails(1);
    insta::assert_snapshot!(out, @r"
        [stderr]
        hotl: t10 is not on a turn boundary; nearest valid: t7 or t13
        [exit status: 1]
    ");
    let head = env
        .run(&["sessions", "revert", FIXED_ID, "--to", "t19"])
        .fails(1);
    assert!(head.stderr.contains("nothing to revert"), "{head}");
    let garbage = env
        .run(&["sessions", "revert", FIXED_ID, "--to", "yesterday"])
        .fails(1);
    assert!(garbage.stderr.contains("not a stamp"), "{garbage}");
    assert_eq!(env.log_bytes(FIXED_ID)?, before);
    assert_eq!(env.turns(FIXED_ID)?, 3);
    Ok(())
}

#[test]
fn clear_empties_the_model_view_but_not_the_transcript() -> TestResult {
    let env = Env::new()?;
    env.import(&env.log_with_turns(FIXED_ID, 2))?;
    let model = env.run(&["sessions", "show", "1", "--model-view"]).ok();
    assert!(model.stdout.contains("[t3] message 1"), "{model}");
    let before = env.log_bytes(FIXED_ID)?;

    let out = env.run(&["sessions", "clear", FIXED_ID]).ok();
    assert!(
        out.stdout
            .starts_with(&format!("cleared {FIXED_ID} at t14")),
        "{out}"
    );
    appended_one(&env, &before, "clear")?;

    let model = env.run(&["sessions", "show", "1", "--model-view"]).ok();
    assert!(!model.stdout.contains("message 1"), "{model}");
    assert!(!model.stdout.contains("message 2"), "{model}");
    assert!(!model.stdout.contains("[t"), "{model}");
    let json = env.json(&["sessions", "show", "1", "--model-view", "--json"])?;
    assert_eq!(json["messages"], serde_json::json!([]));

    let show = env.run(&["sessions", "show", "1"]).ok();
    for text in [
        "[t3] user: message 1",
        "[t9] user: message 2",
        "context cleared at t14",
    ] {
        assert!(show.stdout.contains(text), "{text:?} missing:\n{show}");
    }
    Ok(())
}

/// A session whose second turn wrote two files (one new) with the model's tools.
pub(crate) fn session_that_changed_files(env: &Env) -> TestResult<(String, u64)> {
    let project = std::path::Path::new(&env.cwd()).to_owned();
    std::fs::write(project.join("notes.txt"), "as it was\n")?;
    let fake = hotl_fakellm::FakeLlm::start(hotl_fakellm::Config::scripted([
        hotl_fakellm::Reply::text("Looked."),
        hotl_fakellm::Reply::text("Writing.").with_tool(
            "write",
            serde_json::json!({"path": "notes.txt", "content": "rewritten by the model\n"}),
        ),
        hotl_fakellm::Reply::text("More.").with_tool(
            "bash",
            serde_json::json!({"command": "echo made > new.txt"}),
        ),
        hotl_fakellm::Reply::text("Done."),
    ]))?;
    env.agent(&fake, &["-p", "look", "--sandbox", "off"]).ok();
    let id = env.only_session()?;
    env.agent(
        &fake,
        &[
            "-r",
            &id,
            "-p",
            "change them",
            "--permission-mode",
            "bypass",
            "--sandbox",
            "off",
        ],
    )
    .ok();
    assert_eq!(
        std::fs::read_to_string(project.join("notes.txt"))?,
        "rewritten by the model\n"
    );
    assert!(project.join("new.txt").exists());
    let show = env.run(&["sessions", "show", &id]).ok().stdout;
    let end_of_first = show
        .split("── end of turn 1 · t")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|seq| seq.parse::<u64>().ok())
        .ok_or(show.clone())?;
    Ok((id, end_of_first))
}

#[test]
fn revert_puts_back_the_files_the_later_turns_changed() -> TestResult {
    let env = Env::new()?;
    let (id, to) = session_that_changed_files(&env)?;
    let project = std::path::Path::new(&env.cwd()).to_owned();
    let out = env
        .run(&["sessions", "revert", &id, "--to", &format!("t{to}")])
        .ok();
    assert!(out.stdout.contains("1 turn kept"), "{out}");
    assert!(out.stdout.contains("notes.txt restored"), "{out}");
    assert!(out.stdout.contains("new.txt removed"), "{out}");
    assert_eq!(
        std::fs::read_to_string(project.join("notes.txt"))?,
        "as it was\n"
    );
    assert!(!project.join("new.txt").exists());
    assert_eq!(env.turns(&id)?, 1);
    Ok(())
}

#[test]
fn revert_keeps_a_file_changed_since_and_conversation_leaves_the_files_alone() -> TestResult {
    let env = Env::new()?;
    let (id, to) = session_that_changed_files(&env)?;
    let project = std::path::Path::new(&env.cwd()).to_owned();
    // --conversation: the files stay as the model left them.
    let out = env
        .run(&[
            "sessions",
            "revert",
            &id,
            "--to",
            &format!("t{to}"),
            "--conversation",
        ])
        .ok();
    assert!(!out.stdout.contains("restored"), "{out}");
    assert_eq!(
        std::fs::read_to_string(project.join("notes.txt"))?,
        "rewritten by the model\n"
    );
    // Someone edits a file after hotl last saw it: --code puts back the rest, keeps theirs.
    std::fs::write(project.join("notes.txt"), "the user's own edit\n")?;
    let out = env
        .run(&[
            "sessions",
            "revert",
            &id,
            "--to",
            &format!("t{to}"),
            "--code",
        ])
        .ok();
    assert!(
        out.stdout
            .contains("notes.txt kept: changed since hotl last saw it"),
        "{out}"
    );
    assert!(out.stdout.contains("new.txt removed"), "{out}");
    assert_eq!(
        std::fs::read_to_string(project.join("notes.txt"))?,
        "the user's own edit\n"
    );
    Ok(())
}

/// A code restore is recorded, so it can be undone: the files go back as the later turns left
/// them; one the user changed after the restore is kept; a second undo redoes the restore.
#[test]
fn a_restore_is_recorded_and_undone() -> TestResult {
    let env = Env::new()?;
    let (id, to) = session_that_changed_files(&env)?;
    let project = std::path::Path::new(&env.cwd()).to_owned();
    let run = env.run(&["sessions", "revert", &id, "--undo"]).fails(1);
    assert!(run.stderr.contains("nothing to undo"), "{run}");
    let out = env
        .run(&[
            "sessions",
            "revert",
            &id,
            "--to",
            &format!("t{to}"),
            "--code",
        ])
        .ok();
    assert!(out.stdout.contains("/revert undo"), "{out}");
    assert!(env.record_types(&id)?.contains(&"restore".to_owned()));
    assert_eq!(
        std::fs::read_to_string(project.join("notes.txt"))?,
        "as it was\n"
    );
    let out = env.run(&["sessions", "revert", &id, "--undo"]).ok();
    assert!(out.stdout.contains("notes.txt restored"), "{out}");
    assert!(out.stdout.contains("new.txt restored"), "{out}");
    assert_eq!(
        std::fs::read_to_string(project.join("notes.txt"))?,
        "rewritten by the model\n"
    );
    assert_eq!(std::fs::read_to_string(project.join("new.txt"))?, "made\n");
    // The undo is a restore too: undoing it puts the code back again, but a file the user
    // changed meanwhile is theirs.
    std::fs::write(project.join("new.txt"), "the user's\n")?;
    let out = env.run(&["sessions", "revert", &id, "--undo"]).ok();
    assert!(out.stdout.contains("notes.txt restored"), "{out}");
    assert!(out.stdout.contains("new.txt kept: changed since"), "{out}");
    assert_eq!(
        std::fs::read_to_string(project.join("notes.txt"))?,
        "as it was\n"
    );
    assert_eq!(
        std::fs::read_to_string(project.join("new.txt"))?,
        "the user's\n"
    );
    let run = env
        .run(&["sessions", "revert", &id, "--undo", "--to", "t3"])
        .fails(2);
    assert!(run.stderr.contains("cannot be used with"), "{run}");
    Ok(())
}

/// A fork from a past turn can take the code of that point into a new git worktree, leaving
/// the current tree as it is; the fork works there.
#[test]
fn a_fork_into_a_worktree_checks_out_the_code_of_its_point() -> TestResult {
    let env = Env::new()?;
    let project = std::path::Path::new(&env.cwd()).to_owned();
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(&project)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@t")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@t")
            .output()
    };
    git(&["init", "-q"])?;
    std::fs::write(project.join("notes.txt"), "as it was\n")?;
    git(&["add", "."])?;
    git(&["commit", "-qm", "start"])?;
    let (id, _) = session_that_changed_files(&env)?;
    let out = env
        .run(&["sessions", "fork", &id, "--keep-turns", "1", "--worktree"])
        .ok();
    let mut lines = out.stdout.lines();
    let fork = lines.next().ok_or("the fork's id")?.to_owned();
    let dir = std::path::PathBuf::from(lines.next().ok_or("the worktree")?);
    assert!(dir.starts_with(&env.home), "{out}");
    // The worktree has the code after the first turn; the project keeps the later turns'.
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt"))?,
        "as it was\n"
    );
    assert!(!dir.join("new.txt").exists());
    assert_eq!(
        std::fs::read_to_string(project.join("notes.txt"))?,
        "rewritten by the model\n"
    );
    let listed = env.json(&["sessions", "list", "--all", "--json"])?;
    let row = listed
        .as_array()
        .ok_or("array")?
        .iter()
        .find(|r| r["id"] == fork.as_str())
        .ok_or("the fork is listed")?;
    assert_eq!(row["cwd"], dir.to_string_lossy().as_ref(), "{row}");
    // Outside git there is no worktree to make: said, and nothing is forked.
    let plain = Env::new()?;
    let (plain_id, _) = session_that_changed_files(&plain)?;
    let run = plain
        .run(&[
            "sessions",
            "fork",
            &plain_id,
            "--keep-turns",
            "1",
            "--worktree",
        ])
        .fails(1);
    assert!(run.stderr.contains("no worktree for the fork"), "{run}");
    assert_eq!(plain.session_ids()?.len(), 1);
    Ok(())
}

/// A command that changes a session takes no list number without a terminal (numbers shift as
/// sessions start: a script's `1` may name another session by then); reading ones do, and an
/// id or a name is taken as meant.
#[test]
fn writing_commands_refuse_list_numbers_off_a_terminal() -> TestResult {
    let env = Env::new()?;
    env.import(&env.log_with_turns(FIXED_ID, 2))?;
    let before = env.log_bytes(FIXED_ID)?;
    for args in [
        vec!["sessions", "rename", "1", "x"],
        vec!["sessions", "clear", "1"],
        vec!["sessions", "revert", "1", "--to", "t1"],
        vec!["fold", "1"],
        vec!["compact", "1"],
    ] {
        let out = env.run(&args).fails(1);
        assert!(
            out.stderr.contains("names a session by its list number")
                && out.stderr.contains(FIXED_ID),
            "{args:?}: {out}"
        );
    }
    assert_eq!(env.log_bytes(FIXED_ID)?, before, "nothing was written");
    env.run(&["sessions", "show", "1"]).ok();
    env.run(&["recall", "1", "anything"]).ok();
    env.run(&["sessions", "rename", FIXED_ID, "named"]).ok();
    env.run(&["sessions", "clear", "named"]).ok();
    Ok(())
}
