//! `hotl sessions check`: "ok" and exit 0 on health; exit 1 with an explanation otherwise.

use std::io::Write;

use hotl_log::{Body, Record, encode_line};
use hotl_testkit::{FIXED_ID, FIXED_TS, TestResult};

use crate::common::{Env, OTHER_ID, path_str};

#[test]
fn a_healthy_log_is_ok() -> TestResult {
    let env = Env::new()?;
    env.import(&env.log_with_turns(FIXED_ID, 2))?;
    let out = env.run(&["sessions", "check", "1"]).ok();
    insta::assert_snapshot!(out, @"01JD0000000000000000000001 ok: 13 records, 0 ancestors");
    let all = env.run(&["sessions", "check"]).ok();
    assert!(all.stdout.contains(" ok: "), "{all}");
    Ok(())
}

#[test]
fn a_torn_tail_is_a_problem() -> TestResult {
    let env = Env::new()?;
    env.import(&env.log_with_turns(FIXED_ID, 1))?;
    let offset = env.log_bytes(FIXED_ID)?.len();
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(env.log_path(FIXED_ID))?;
    file.write_all(br#"{"seq":8,"ts":"2026"#)?;
    drop(file);
    let out = env.run(&["sessions", "check", FIXED_ID]).fails(1);
    // The offset depends on the length of the temp path recorded as cwd.
    let out = out
        .to_string()
        .replace(&format!("byte {offset},"), "byte [end],");
    insta::assert_snapshot!(out, @r"
        01JD0000000000000000000001 PROBLEMS: 7 records, 0 ancestors
          problem: line 8 (byte [end], 19 bytes) is torn: a write that never finished, most likely from a process killed while appending. Readers skip it; the next writer ends it with a newline, and nothing is truncated
        [exit status: 1]
    ");
    Ok(())
}

#[test]
fn a_corrupt_middle_line_is_a_problem() -> TestResult {
    let env = Env::new()?;
    let mut log = env.log_with_turns(FIXED_ID, 1);
    log.raw(b"{\"seq\": oops", false);
    log.turn("after");
    env.import(&log)?;
    let out = env.run(&["sessions", "check", "1"]).fails(1);
    assert!(out.stdout.contains("PROBLEMS"), "{out}");
    assert!(out.stdout.contains("problem: line 8 (byte"), "{out}");
    assert!(out.stdout.contains("does not parse"), "{out}");
    Ok(())
}

#[test]
fn a_decreasing_seq_is_a_problem() -> TestResult {
    let env = Env::new()?;
    let mut log = env.log_with_turns(FIXED_ID, 1);
    let stale = encode_line(&Record::new(3, FIXED_TS, Body::user_text("again")))?;
    log.raw(&stale, true);
    env.import(&log)?;
    let out = env.run(&["sessions", "check", "1"]).fails(1);
    assert!(out.stdout.contains("PROBLEMS"), "{out}");
    assert!(out.stdout.contains("seq 3 does not follow seq 7"), "{out}");
    Ok(())
}

#[test]
fn a_missing_ancestor_is_a_problem() -> TestResult {
    let env = Env::new()?;
    env.import(&env.log_with_turns(FIXED_ID, 1))?;
    let fork = env.run(&["sessions", "fork", "1"]).ok().line().to_owned();
    env.run(&["sessions", "check", &fork]).ok();
    std::fs::remove_file(env.log_path(FIXED_ID))?;
    let out = env.run(&["sessions", "check", &fork]).fails(1);
    assert!(out.stdout.contains("PROBLEMS"), "{out}");
    assert!(
        out.stdout.contains(FIXED_ID) && out.stdout.contains("missing"),
        "{out}"
    );
    Ok(())
}

#[test]
fn checking_everything_fails_when_one_log_is_bad() -> TestResult {
    let env = Env::new()?;
    env.import(&env.log_with_turns(FIXED_ID, 1))?;
    let mut bad = env.log_with_turns(OTHER_ID, 1);
    bad.raw(b"garbage", false);
    env.import(&bad)?;
    let out = env.run(&["sessions", "check"]).fails(1);
    assert!(out.stdout.contains(&format!("{FIXED_ID} ok")), "{out}");
    assert!(
        out.stdout.contains(&format!("{OTHER_ID} PROBLEMS")),
        "{out}"
    );
    Ok(())
}

/// `check` says how a session's view checkpoint stands: current after a fold wrote one, and
/// ignored (a note, not a problem) once it is damaged.
#[test]
fn check_tells_how_the_view_checkpoint_stands() -> TestResult {
    let env = Env::new()?;
    let fake = hotl_fakellm::FakeLlm::start(hotl_fakellm::Config::scripted([
        hotl_fakellm::Reply::text("One."),
        hotl_fakellm::Reply::text("Two."),
    ]))?;
    env.agent(&fake, &["-p", "one"]).ok();
    let id = env.only_session()?;
    let note = env.scratch(
        "note.txt",
        b"changed: nothing\nlearned: one\ndecided and rejected: none\nopen: none\nwhere: here",
    )?;
    env.run(&[
        "fold",
        &id,
        "--since",
        "t3",
        "--note-file",
        path_str(&note)?,
    ])
    .ok();
    env.agent(&fake, &["-r", &id, "-p", "two"]).ok();
    let out = env.run(&["sessions", "check", &id]).ok();
    assert!(
        out.stdout.contains("note: view checkpoint through t"),
        "{out}"
    );
    let file = env
        .home
        .join("index")
        .join("views")
        .join(format!("{id}.json"));
    std::fs::write(&file, b"not json")?;
    let out = env.run(&["sessions", "check", &id]).ok();
    assert!(
        out.stdout
            .contains("note: view checkpoint ignored (damaged"),
        "{out}"
    );
    Ok(())
}

#[test]
fn a_result_whose_call_line_was_deleted_is_a_problem() -> TestResult {
    let env = Env::new()?;
    env.import(&env.log_with_turns(FIXED_ID, 2))?;
    // The first model message that called a tool is gone; its result stays.
    let text = std::fs::read_to_string(env.log_path(FIXED_ID))?;
    let mut deleted = false;
    let kept: Vec<&str> = text
        .lines()
        .filter(|line| {
            let drop = !deleted && line.contains("\"tool_use\"") && line.contains("call_1");
            deleted |= drop;
            !drop
        })
        .collect();
    assert!(deleted, "{text}");
    std::fs::write(env.log_path(FIXED_ID), kept.join("\n") + "\n")?;
    let out = env.run(&["sessions", "check", FIXED_ID]).fails(1);
    assert!(
        out.stdout
            .contains("answers the call call_1, which no model message made"),
        "{out}"
    );
    Ok(())
}
