//! `hotl sessions import`: adopt a log; ids, damage and refusals.

use hotl_testkit::{FIXED_ID, FIXED_TS, TestResult};

use crate::common::{Env, path_str};

#[test]
fn prints_the_id_and_lists_the_session() -> TestResult {
    let env = Env::new()?;
    let file = env.scratch("log.jsonl", &env.log_with_turns(FIXED_ID, 2).text())?;
    let out = env.run(&["sessions", "import", path_str(&file)?]).ok();
    assert_eq!(out.stdout, format!("{FIXED_ID}\n"));
    assert!(out.stderr.is_empty(), "{out}");
    assert_eq!(env.log_bytes(FIXED_ID)?, std::fs::read(&file)?);
    let list = env.json(&["sessions", "list", "--json"])?;
    assert_eq!(list[0]["id"], FIXED_ID);
    assert_eq!(list[0]["turns"], 2);
    Ok(())
}

#[test]
fn an_existing_id_is_refused_unless_new_id() -> TestResult {
    let env = Env::new()?;
    let file = env.scratch("log.jsonl", &env.log_with_turns(FIXED_ID, 1).text())?;
    env.run(&["sessions", "import", path_str(&file)?]).ok();
    let before = env.log_bytes(FIXED_ID)?;

    let again = env.run(&["sessions", "import", path_str(&file)?]).fails(1);
    assert!(again.stderr.contains("already exists"), "{again}");
    assert!(again.stderr.contains("--new-id"), "{again}");
    assert_eq!(env.log_bytes(FIXED_ID)?, before);

    let copy = env
        .run(&["sessions", "import", path_str(&file)?, "--new-id"])
        .ok();
    let id = copy.line();
    assert_ne!(id, FIXED_ID);
    assert!(hotl_log::is_session_id(id), "{copy}");
    let json = env.json(&["sessions", "show", id, "--json"])?;
    assert_eq!(json["id"], id);
    assert_eq!(json["turns"], 1);
    assert_eq!(
        env.json(&["sessions", "list", "--json"])?
            .as_array()
            .map(Vec::len),
        Some(2)
    );
    Ok(())
}

#[test]
fn damaged_lines_are_kept_byte_for_byte_and_reported() -> TestResult {
    let env = Env::new()?;
    let mut log = env.log_with_turns(FIXED_ID, 1);
    let damaged: &[u8] = b"{\"seq\":8,\"ts\":\"\xff\xfe broken";
    log.raw(damaged, false);
    log.turn("after the damage");
    let file = env.scratch("damaged.jsonl", &log.text())?;

    let out = env.run(&["sessions", "import", path_str(&file)?]).ok();
    assert_eq!(out.line(), FIXED_ID);
    assert!(out.stderr.contains("imported with damage"), "{out}");
    assert!(out.stderr.contains("1 corrupt line"), "{out}");
    assert_eq!(env.log_bytes(FIXED_ID)?, log.text());
    assert_eq!(env.turns(FIXED_ID)?, 2);

    let copy = env
        .run(&["sessions", "import", path_str(&file)?, "--new-id"])
        .ok();
    let bytes = env.log_bytes(copy.line())?;
    let mut line = damaged.to_vec();
    line.push(b'\n');
    assert!(
        bytes.windows(line.len()).any(|w| w == line.as_slice()),
        "the damaged line survives --new-id"
    );
    Ok(())
}

#[test]
fn a_file_without_a_session_record_is_refused() -> TestResult {
    let env = Env::new()?;
    let user = format!(
        "{{\"seq\":1,\"ts\":\"{FIXED_TS}\",\"type\":\"user\",\"v\":\"0.1.0\",\"content\":[]}}\n"
    );
    for (name, bytes) in [
        ("user-only.jsonl", user.as_bytes()),
        ("garbage.jsonl", b"not a log at all\n".as_slice()),
        ("empty.jsonl", b"".as_slice()),
    ] {
        let file = env.scratch(name, bytes)?;
        let out = env.run(&["sessions", "import", path_str(&file)?]).fails(1);
        assert!(
            out.stderr.contains("not a hotl session log"),
            "{name}: {out}"
        );
        assert!(out.stdout.is_empty(), "{name}: {out}");
    }
    let missing = env
        .run(&["sessions", "import", "/nonexistent/log.jsonl"])
        .fails(1);
    assert!(
        missing.stderr.contains("/nonexistent/log.jsonl"),
        "{missing}"
    );
    assert_eq!(
        env.run(&["sessions", "list", "--all"]).ok().stdout,
        "no sessions\n"
    );
    Ok(())
}
