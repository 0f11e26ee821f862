//! Session references: list number, id prefix, name, `@last`; ambiguity and no match.

use hotl_log::Body;
use hotl_testkit::{FIXED_ID, LogBuilder, TestResult};

use crate::common::{Env, OTHER_ID, THIRD_ID};

/// Here: FIXED_ID (older) and OTHER_ID named `auth` (newer). Elsewhere: THIRD_ID (newest).
fn three() -> TestResult<Env> {
    let env = Env::new()?;
    env.import(&env.log_with_turns(FIXED_ID, 1))?;
    let mut auth = env.log_with_turns(OTHER_ID, 1);
    auth.record(Body::Name {
        name: Some("auth".to_owned()),
    });
    env.import_at(&auth, "2026-11-02T08:00:00.000Z")?;
    let mut elsewhere = LogBuilder::new(THIRD_ID, "/elsewhere");
    elsewhere.turn("elsewhere");
    env.import_at(&elsewhere, "2026-11-02T10:00:00.000Z")?;
    Ok(env)
}

/// The id `sessions show <query>` picks.
fn shown(env: &Env, query: &str) -> TestResult<String> {
    let json = env.json(&["sessions", "show", query, "--json"])?;
    Ok(json["id"].as_str().ok_or("no id")?.to_owned())
}

#[test]
fn numbers_count_in_this_directory_listing() -> TestResult {
    let env = three()?;
    assert_eq!(shown(&env, "1")?, OTHER_ID);
    assert_eq!(shown(&env, "2")?, FIXED_ID);
    let out = env.run(&["sessions", "show", "3"]).fails(1);
    assert!(out.stderr.contains("no session matches '3'"), "{out}");
    Ok(())
}

#[test]
fn id_prefix_is_case_insensitive() -> TestResult {
    let env = three()?;
    assert_eq!(shown(&env, "01je")?, THIRD_ID);
    assert_eq!(shown(&env, "01JE0")?, THIRD_ID);
    assert_eq!(shown(&env, "01jd0000000000000000000001")?, FIXED_ID);
    Ok(())
}

#[test]
fn name_and_last() -> TestResult {
    let env = three()?;
    assert_eq!(shown(&env, "auth")?, OTHER_ID);
    assert_eq!(shown(&env, "@last")?, THIRD_ID);
    Ok(())
}

#[test]
fn ambiguous_prefix_lists_the_candidates() -> TestResult {
    let env = three()?;
    let out = env.run(&["sessions", "show", "01jd"]).fails(1);
    insta::assert_snapshot!(out, @r#"
        [stderr]
        hotl: '01jd' matches 2 sessions: 01JD0000000000000000000002 (auth) "message 1", 01JD0000000000000000000001 "message 1"
        hint: type more characters of the id
        [exit status: 1]
    "#);
    Ok(())
}

#[test]
fn no_match_exits_1_with_a_hint() -> TestResult {
    let env = three()?;
    let out = env.run(&["sessions", "show", "nothing-like-it"]).fails(1);
    insta::assert_snapshot!(out, @r"
        [stderr]
        hotl: no session matches 'nothing-like-it'
        hint: `hotl sessions list --all` shows every session
        [exit status: 1]
    ");
    let fork = env.run(&["sessions", "fork", "zzz"]).fails(1);
    assert!(fork.stderr.contains("hint:"), "{fork}");
    Ok(())
}

#[test]
fn a_reference_that_matches_nothing_is_the_only_thing_said() {
    let env = Env::new().expect("env");
    let out = env.run(&["-r", "nosuch", "-p", "hi"]);
    assert_eq!(out.code, 1, "{out}");
    assert!(out.stderr.contains("no session matches"), "{out}");
    assert!(!out.stderr.contains("demo model"), "{out}");
}

/// An imported copy does not take its original's name: it is given a free one and told so;
/// and a name two sessions hold (copied in by hand) is ambiguous, not the newer one's.
#[test]
fn names_stay_unique_across_imports() -> TestResult {
    let env = Env::new()?;
    let fake = crate::common::fake_answering(1)?;
    env.agent(&fake, &["-p", "hi"]).ok();
    let id = env.only_session()?;
    env.run(&["sessions", "rename", &id, "mywork"]).ok();
    let file = env
        .run(&[
            "sessions",
            "export",
            &id,
            "--format",
            "jsonl",
            "-o",
            "copy.jsonl",
        ])
        .ok();
    let copy = env
        .run(&["sessions", "import", file.line(), "--new-id"])
        .ok();
    assert!(
        copy.stderr
            .contains("\"mywork\" is another session's; this copy is named \"mywork-2\""),
        "{copy}"
    );
    assert!(
        env.run(&["sessions", "show", "mywork-2"])
            .ok()
            .stdout
            .contains(copy.line())
    );
    // Two logs holding one name, put in place by hand: the name is refused as ambiguous.
    let second = env
        .run(&["sessions", "import", file.line(), "--new-id"])
        .ok();
    let log = env.log_path(second.line());
    let mut text = std::fs::read_to_string(&log)?;
    text = text.replace("\"mywork-3\"", "\"mywork\"");
    std::fs::write(&log, text)?;
    let resumed = env.run(&["sessions", "show", "mywork"]).fails(1);
    assert!(
        resumed.stderr.contains("matches 2 sessions") || resumed.stderr.contains("ambiguous"),
        "{resumed}"
    );
    Ok(())
}
