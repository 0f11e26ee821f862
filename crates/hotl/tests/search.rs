//! `hotl search` end to end: every session's text, grouped by session, scoped to this
//! directory or widened, JSON, an index kept up to date between runs, gc, and bad input.

use hotl_testkit::TestResult;

use crate::common::Env;

const A: &str = "01J0000000000000000000000A";
const B: &str = "01J0000000000000000000000B";

/// A session in `dir` whose one turn prints `output` from a tool.
fn session(env: &Env, id: &str, user: &str, output: &str) -> TestResult<String> {
    let mut log = env.log(id);
    log.turn(user);
    let (_, call) = log.tool_call("bash", serde_json::json!({"command": "make test"}));
    log.record(hotl_log::Body::ToolResult {
        call,
        content: vec![hotl_log::Block::text(output)],
        blob: None,
        is_error: false,
        files: vec![],
    });
    log.assistant("done");
    env.import(&log)
}

#[test]
fn finds_what_was_said_grouped_by_session_and_keeps_up_with_new_sessions() -> TestResult {
    let env = Env::new()?;
    let a = session(
        &env,
        A,
        "why is the deploy stuck",
        "ticket KUMQUAT-4242 still open",
    )?;
    let shown = env.run(&["search", "kumquat"]).ok().stdout;
    let lines: Vec<&str> = shown.lines().collect();
    assert!(lines[0].starts_with(&a[..8]), "{shown}");
    assert!(lines[0].contains("why is the deploy stuck"), "{shown}");
    assert!(
        lines[1].contains("tool: ticket KUMQUAT-4242 still open"),
        "{shown}"
    );
    // A session made after the index was built is found on the next search.
    let b = session(&env, B, "look at kumquat again", "all green")?;
    let json = env.json(&["search", "kumquat", "--json"])?;
    let ids: Vec<&str> = json
        .as_array()
        .ok_or("array")?
        .iter()
        .filter_map(|s| s["id"].as_str())
        .collect();
    assert_eq!(ids.len(), 2, "{json}");
    assert!(
        ids.contains(&a.as_str()) && ids.contains(&b.as_str()),
        "{json}"
    );
    let first = &json[0];
    assert!(first["hits"][0]["seq"].as_u64().is_some(), "{json}");
    assert!(
        first["cwd"].as_str().is_some_and(|c| c == env.cwd()),
        "{json}"
    );
    // Exact and regex.
    let exact = env.run(&["search", "--exact", "KUMQUAT-42"]).ok().stdout;
    assert!(exact.contains("KUMQUAT-4242"), "{exact}");
    let regex = env
        .run(&["search", "--regex", r"KUMQUAT-\d{4}"])
        .ok()
        .stdout;
    assert!(regex.contains("KUMQUAT-4242"), "{regex}");
    Ok(())
}

#[test]
fn this_directory_unless_told_otherwise() -> TestResult {
    let env = Env::new()?;
    session(&env, A, "here", "marmalade here")?;
    let elsewhere = env.root().join("elsewhere");
    std::fs::create_dir_all(&elsewhere)?;
    let mut log = hotl_testkit::LogBuilder::new(B, &elsewhere.to_string_lossy());
    log.turn("marmalade elsewhere");
    env.import(&log)?;
    let here = env.json(&["search", "marmalade", "--json"])?;
    assert_eq!(here.as_array().map(Vec::len), Some(1), "{here}");
    let all = env.json(&["search", "marmalade", "--all", "--json"])?;
    assert_eq!(all.as_array().map(Vec::len), Some(2), "{all}");
    let there = env.json(&[
        "search",
        "marmalade",
        "--project",
        &elsewhere.to_string_lossy(),
        "--json",
    ])?;
    assert_eq!(
        there[0]["cwd"],
        elsewhere.to_string_lossy().as_ref(),
        "{there}"
    );
    let none = env.run(&["search", "nothing-like-this"]).ok().stdout;
    assert!(none.contains("nothing found"), "{none}");
    assert!(none.contains("--all"), "{none}");
    // The session's records are stamped 2025: --since filters by last activity.
    let later = env.json(&[
        "search",
        "marmalade",
        "--all",
        "--since",
        "2999-01-01",
        "--json",
    ])?;
    assert_eq!(later.as_array().map(Vec::len), Some(0), "{later}");
    Ok(())
}

#[test]
fn bad_input_is_refused_with_why_and_a_dropped_session_is_not_shown() -> TestResult {
    let env = Env::new()?;
    let a = session(&env, A, "q", "persimmon")?;
    let long = "word ".repeat(2_000);
    let run = env.run(&["search", &long]).fails(1);
    assert!(run.stderr.contains("at most 4096"), "{run}");
    let run = env.run(&["search", "--regex", "("]).fails(1);
    assert!(run.stderr.contains("invalid regex"), "{run}");
    let run = env.run(&["search", "x", "--since", "someday"]).fails(2);
    assert!(run.stderr.contains("--since"), "{run}");
    let run = env
        .run(&["search", "x", "--all", "--project", "/tmp"])
        .fails(2);
    assert!(run.stderr.contains("give one"), "{run}");
    // A damaged index is rebuilt, not reported.
    let manifest = env.home.join("index/search/manifest.json");
    assert!(manifest.exists());
    std::fs::write(&manifest, b"{\"format\": 1, \"sour")?;
    let found = env.run(&["search", "persimmon"]).ok().stdout;
    assert!(found.contains("persimmon"), "{found}");
    env.run(&["sessions", "drop", &a, "--yes"]).ok();
    let gone = env.run(&["search", "persimmon"]).ok().stdout;
    assert!(gone.contains("nothing found"), "{gone}");
    Ok(())
}

/// The model's `recall` with `scope: "sessions"` finds what another session said, marked as
/// another session's; this session's own tree is left out.
#[test]
fn the_model_recalls_across_sessions() -> TestResult {
    use hotl_fakellm::{Config, FakeLlm, Reply};
    let env = Env::new()?;
    let earlier = session(
        &env,
        A,
        "the deploy is stuck",
        "ticket KUMQUAT-4242: the fix is to bump the lease",
    )?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("").with_tool(
            "recall",
            serde_json::json!({ "query": "kumquat lease", "scope": "sessions" }),
        ),
        Reply::text("An earlier session bumped the lease."),
    ]))?;
    let run = env
        .agent(&fake, &["-p", "did we solve KUMQUAT before?"])
        .ok();
    assert_eq!(
        run.stdout, "An earlier session bumped the lease.\n",
        "{run}"
    );
    let requests = crate::common::requests(&fake)?;
    let last = requests.last().ok_or("requests")?.to_string();
    assert!(
        last.contains(&format!("other session {}", &earlier[..10])),
        "{last}"
    );
    assert!(last.contains("the fix is to bump the lease"), "{last}");
    // Only the earlier session's text: this one's own question is not a hit.
    assert!(!last.contains("[t1 user] did we solve"), "{last}");
    Ok(())
}
