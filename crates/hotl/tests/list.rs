//! `hotl sessions list`: numbering, columns, scope, JSON, and caches that must not matter.

use hotl_log::Body;
use hotl_testkit::{FIXED_ID, TestResult};

use crate::common::{Env, FOURTH_ID, THIRD_ID, redact};

/// Three sessions here (one named, one a fork) and one elsewhere.
fn populated() -> TestResult<(Env, String)> {
    let env = Env::new()?;
    let mut named = env.log_with_turns(FIXED_ID, 2);
    named.record(Body::Name {
        name: Some("auth".to_owned()),
    });
    env.import(&named)?;
    env.import_at(
        &env.log_with_turns(FOURTH_ID, 1),
        "2026-11-02T09:00:00.000Z",
    )?;
    let mut elsewhere = hotl_testkit::LogBuilder::new(THIRD_ID, "/elsewhere");
    elsewhere.turn("somewhere else");
    env.import(&elsewhere)?;
    let fork = env
        .run(&["sessions", "fork", "auth"])
        .ok()
        .line()
        .to_owned();
    Ok((env, fork))
}

#[test]
fn numbered_newest_first_with_every_column() -> TestResult {
    let (env, fork) = populated()?;
    let out = env.run(&["sessions", "list"]).ok();
    insta::assert_snapshot!(redact(&out.stdout, &[(&fork, "FORK")]), @r"
        #  id        name  title                                       active  turns  cwd
        1  [FORK]--        message 1 (fork)                          just now      2  ~/project  ↳ from 01JD0000
        2  01JF0000        message 1                                   3h ago      1  ~/project
        3  01JD0000  auth  message 1                                   1d ago      2  ~/project
    ");
    Ok(())
}

#[test]
fn all_lists_every_project() -> TestResult {
    let (env, fork) = populated()?;
    let out = env.run(&["sessions", "list", "--all"]).ok();
    insta::assert_snapshot!(redact(&out.stdout, &[(&fork, "FORK")]), @r"
        #  id        name  title                                       active  turns  cwd
        1  [FORK]--        message 1 (fork)                          just now      2  ~/project  ↳ from 01JD0000
        2  01JF0000        message 1                                   3h ago      1  ~/project
        3  01JE0000        somewhere else                              1d ago      1  /elsewhere
        4  01JD0000  auth  message 1                                   1d ago      2  ~/project
    ");
    Ok(())
}

#[test]
fn default_scope_is_this_directory() -> TestResult {
    let env = Env::new()?;
    let mut elsewhere = hotl_testkit::LogBuilder::new(THIRD_ID, "/elsewhere");
    elsewhere.turn("somewhere else");
    env.import(&elsewhere)?;
    let out = env.run(&["sessions", "list"]).ok();
    insta::assert_snapshot!(out, @r"
        no sessions in this directory
        (`hotl sessions list --all` shows every project's)
    ");
    let all = env.run(&["sessions", "list", "--all"]).ok();
    assert!(all.stdout.contains("01JE0000"), "{all}");
    Ok(())
}

#[test]
fn empty_home_lists_nothing() -> TestResult {
    let env = Env::new()?;
    let out = env.run(&["sessions", "list", "--all"]).ok();
    assert_eq!(out.stdout, "no sessions\n");
    let json = env.json(&["sessions", "list", "--json"])?;
    assert_eq!(json, serde_json::json!([]));
    Ok(())
}

#[test]
fn json_is_an_array_of_sessions() -> TestResult {
    let (env, fork) = populated()?;
    let json = env.json(&["sessions", "list", "--json"])?;
    let rows = json.as_array().ok_or("not an array")?;
    assert_eq!(rows.len(), 3);
    for row in rows {
        for key in ["id", "name", "title", "parent", "updated", "cwd", "turns"] {
            assert!(row.get(key).is_some(), "{key} missing in {row}");
        }
        assert_eq!(row["cwd"], env.cwd().as_str());
    }
    let ids: Vec<&str> = rows.iter().filter_map(|r| r["id"].as_str()).collect();
    assert_eq!(ids, [fork.as_str(), FOURTH_ID, FIXED_ID]);
    assert_eq!(rows[0]["parent"], FIXED_ID);
    assert_eq!(rows[0]["turns"], 2);
    assert_eq!(rows[0]["updated"], crate::common::NOW);
    assert_eq!(rows[1]["parent"], serde_json::Value::Null);
    assert_eq!(rows[2]["name"], "auth");
    assert_eq!(rows[2]["title"], "message 1");
    let all = env.json(&["sessions", "list", "--all", "--json"])?;
    assert_eq!(all.as_array().map(Vec::len), Some(4));
    Ok(())
}

#[test]
fn deleted_or_garbage_caches_change_nothing() -> TestResult {
    let (env, fork) = populated()?;
    let before = env.run(&["sessions", "list", "--all"]).ok().stdout;
    let before_json = env
        .run(&["sessions", "list", "--all", "--json"])
        .ok()
        .stdout;
    let sessions = env.home.join("sessions");
    let list_cache = sessions.join("list.cache.json");
    assert!(list_cache.is_file(), "the list cache was written");
    let ids = [FIXED_ID, FOURTH_ID, THIRD_ID, fork.as_str()];

    for entry in std::fs::read_dir(&sessions)? {
        let path = entry?.path();
        if path.to_string_lossy().ends_with(".meta.json") {
            std::fs::remove_file(&path)?;
        }
    }
    std::fs::remove_file(&list_cache)?;
    assert_eq!(env.run(&["sessions", "list", "--all"]).ok().stdout, before);

    for id in ids {
        std::fs::write(sessions.join(format!("{id}.meta.json")), b"{ not json")?;
    }
    std::fs::write(&list_cache, b"\x00\x01garbage")?;
    assert_eq!(env.run(&["sessions", "list", "--all"]).ok().stdout, before);
    for id in ids {
        std::fs::write(sessions.join(format!("{id}.meta.json")), b"{\"id\": 7}")?;
    }
    std::fs::write(&list_cache, b"{\"format\": 1, \"sessions\": 3}")?;
    assert_eq!(
        env.run(&["sessions", "list", "--all", "--json"])
            .ok()
            .stdout,
        before_json
    );
    Ok(())
}
