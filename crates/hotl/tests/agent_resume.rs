//! Resuming: every way to name the session appends to the same log; usage counts only this
//! process; a model switch is named; an interrupted turn is finished first; the frozen system
//! prompt; a session another process owns.

use hotl_fakellm::{Config, FakeLlm, Reply};
use hotl_testkit::{FIXED_ID, TestResult};

use crate::common::{
    Env, LockHolder, MODEL, assert_calls_answered, fake_answering, redact, requests, sent_results,
};

/// Starts a session with one turn; returns its id.
fn first_turn(env: &Env, fake: &FakeLlm) -> TestResult<String> {
    let out = env
        .agent(fake, &["-p", "first", "--output-format", "json"])
        .ok();
    Ok(out.json()?["session_id"]
        .as_str()
        .ok_or("no session_id")?
        .to_owned())
}

/// Sums the usage the log records on assistant answers (log form: `cache_write` is both TTLs).
fn logged_usage(records: &[serde_json::Value]) -> [u64; 4] {
    let mut sum = [0; 4];
    for r in records.iter().filter(|r| r["type"] == "assistant") {
        for (i, key) in ["input", "cache_read", "cache_write", "output"]
            .iter()
            .enumerate()
        {
            sum[i] += r["usage"][*key].as_u64().unwrap_or(0);
        }
    }
    sum
}

/// The usage of `--output-format json`, in the log's form.
fn reported_usage(json: &serde_json::Value) -> [u64; 4] {
    let u = &json["usage"];
    let n = |k: &str| u[k].as_u64().unwrap_or(0);
    [
        n("input"),
        n("cache_read"),
        n("cache_write_5m") + n("cache_write_1h"),
        n("output"),
    ]
}

#[test]
fn every_way_to_resume_appends_to_the_same_log() -> TestResult {
    let env = Env::new()?;
    let fake = fake_answering(5)?;
    let id = first_turn(&env, &fake)?;
    let resumes: [Vec<&str>; 4] = [
        vec!["-r", &id, "-p", "second"],
        vec![&id[..10], "-p", "third"],
        // `hotl resume <ref> -p` is refused (see the ignored test below); flags first work.
        vec!["-p", "fourth", "resume", &id],
        vec!["-c", "-p", "fifth"],
    ];
    for (i, args) in resumes.iter().enumerate() {
        let before = env.log_bytes(&id)?;
        let out = env.agent(&fake, args);
        let out = out.ok();
        assert_eq!(out.stdout, format!("ok {}\n", i + 2), "{args:?}: {out}");
        let after = env.log_bytes(&id)?;
        assert!(
            after.len() > before.len() && after.starts_with(&before),
            "{args:?} appends"
        );
        assert_eq!(env.session_ids()?, vec![id.clone()], "{args:?}");
        assert_eq!(env.turns(&id)?, i as u64 + 2, "{args:?}");
    }
    // Each request carried the whole conversation so far.
    let sent = requests(&fake)?;
    assert_eq!(sent.len(), 5);
    for (i, body) in sent.iter().enumerate() {
        assert_eq!(
            body["messages"].as_array().map(Vec::len),
            Some(2 * i + 1),
            "request {i}"
        );
    }
    Ok(())
}

#[test]
fn resume_subcommand_takes_the_run_flags_after_the_ref() -> TestResult {
    let env = Env::new()?;
    let fake = fake_answering(2)?;
    let id = first_turn(&env, &fake)?;
    let out = env.agent(&fake, &["resume", &id, "-p", "second"]).ok();
    assert_eq!(out.stdout, "ok 2\n", "{out}");
    assert_eq!(env.turns(&id)?, 2);
    Ok(())
}

#[test]
fn continue_with_no_session_here_starts_a_new_one() -> TestResult {
    let mut env = Env::new()?;
    let fake = fake_answering(4)?;
    let out = env.agent(&fake, &["-c", "-p", "hello"]).ok();
    assert_eq!(out.stdout, "ok 1\n", "{out}");
    let ids = env.session_ids()?;
    assert_eq!(ids.len(), 1);

    // A second session, newer: -c picks it.
    env.now = "2026-11-02T13:00:00.000Z".to_owned();
    env.agent(&fake, &["-p", "newer"]).ok();
    let ids_now = env.session_ids()?;
    let newer = ids_now
        .iter()
        .find(|i| !ids.contains(i))
        .ok_or("no new session")?
        .clone();
    env.now = "2026-11-02T14:00:00.000Z".to_owned();
    env.agent(&fake, &["-c", "-p", "continue"]).ok();
    assert_eq!(env.turns(&newer)?, 2);
    assert_eq!(env.turns(&ids[0])?, 1);

    // Sessions of another directory do not count.
    let other = env.root().join("other");
    std::fs::create_dir_all(&other)?;
    let mut cmd = env.agent_command();
    cmd.current_dir(&other)
        .args(["--provider", "anthropic", "--base-url"])
        .arg(fake.base_url())
        .args(["--model", MODEL, "-c", "-p", "elsewhere"]);
    crate::common::run(cmd).ok();
    assert_eq!(env.session_ids()?.len(), 3);
    Ok(())
}

#[test]
fn usage_and_cost_count_only_this_processs_requests() -> TestResult {
    let env = Env::new()?;
    let fake = fake_answering(2)?;
    let id = first_turn(&env, &fake)?;
    let before = env.records(&id)?.len();
    let out = env
        .agent(
            &fake,
            &["-r", &id, "-p", "again", "--output-format", "json"],
        )
        .ok();
    let json = out.json()?;
    let records = env.records(&id)?;
    assert_eq!(reported_usage(&json), logged_usage(&records[before..]));
    assert_ne!(reported_usage(&json), logged_usage(&records));
    let cost = json["cost_usd"].as_f64().ok_or("no cost")?;
    assert!(cost > 0.0, "{json}");
    Ok(())
}

#[test]
fn a_model_switch_is_named_in_one_line() -> TestResult {
    let env = Env::new()?;
    let fake = fake_answering(3)?;
    let id = first_turn(&env, &fake)?;
    let same = env.agent(&fake, &["-r", &id, "-p", "same"]).ok();
    assert_eq!(same.stderr, "", "{same}");
    let switched = env
        .agent_with(
            "anthropic",
            &fake,
            "claude-opus-4-8",
            &["-r", &id, "-p", "switch"],
        )
        .ok();
    insta::assert_snapshot!(switched, @r#"
        ok 3
        [stderr]
        hotl: the model changed: this transcript was produced by claude-sonnet-5; continuing with claude-opus-4-8
        "#);
    assert_eq!(switched.stderr.lines().count(), 1, "{switched}");
    assert!(switched.stderr.contains(MODEL), "{switched}");
    assert!(switched.stderr.contains("claude-opus-4-8"), "{switched}");
    assert_eq!(requests(&fake)?[2]["model"], "claude-opus-4-8");
    Ok(())
}

#[test]
fn an_interrupted_turn_is_finished_before_the_new_prompt() -> TestResult {
    let env = Env::new()?;
    let call = env.import_interrupted()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("Finished the old turn."),
        Reply::text("Next done."),
    ]))?;
    let out = env
        .agent(
            &fake,
            &["-r", FIXED_ID, "-p", "next", "--output-format", "json"],
        )
        .ok();
    assert_eq!(out.json()?["result"], "Next done.", "{out}");

    let sent = requests(&fake)?;
    assert_eq!(sent.len(), 2);
    let results = sent_results(&sent[0]);
    let answer = results
        .iter()
        .find(|r| r.call == call)
        .ok_or("the open call is answered in the first request")?;
    assert!(
        answer.text.contains("interrupted: may have partly run"),
        "{answer:?}"
    );
    assert_eq!(answer.is_error, Some(true));
    let last_text = |body: &serde_json::Value| {
        body["messages"]
            .as_array()
            .and_then(|m| m.last())
            .map(|m| m["content"].to_string())
            .unwrap_or_default()
    };
    assert!(!last_text(&sent[0]).contains("next"), "{}", sent[0]);
    assert!(last_text(&sent[1]).contains("next"), "{}", sent[1]);

    let records = env.records(FIXED_ID)?;
    assert_calls_answered(&records);
    let runs: Vec<(String, String)> = records
        .iter()
        .filter(|r| r["type"] == "run")
        .map(|r| {
            (
                r["run"].as_str().unwrap_or_default().to_owned(),
                r["state"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    let open: Vec<&str> = runs
        .iter()
        .filter(|(run, _)| run == "run_open")
        .map(|(_, s)| s.as_str())
        .collect();
    assert_eq!(open[0], "started");
    assert!(open.contains(&"interrupted"), "{runs:?}");
    assert_eq!(runs.last().map(|r| r.1.as_str()), Some("finished"));
    assert_eq!(
        env.json(&["sessions", "show", FIXED_ID, "--json"])?["open_turn"],
        false
    );
    Ok(())
}

/// A revert past the turn a dead process left open leaves nothing to finish: the next prompt
/// is the only request, after the kept turn.
#[test]
fn a_turn_left_open_then_reverted_is_not_finished() -> TestResult {
    let env = Env::new()?;
    env.import_interrupted()?;
    let out = env
        .command()
        .args(["sessions", "revert", FIXED_ID, "--to", "t7"])
        .output()?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fake = FakeLlm::start(Config::scripted([Reply::text("Next done.")]))?;
    let out = env.agent(&fake, &["-r", FIXED_ID, "-p", "next"]).ok();
    assert_eq!(out.stdout, "Next done.\n", "{out}");
    assert!(!out.stderr.contains("finishing the turn"), "{out}");
    let sent = requests(&fake)?;
    assert_eq!(sent.len(), 1);
    let text = sent[0]["messages"].to_string();
    assert!(
        text.contains("next") && !text.contains("do the thing"),
        "{text}"
    );
    Ok(())
}

#[test]
fn usage_counts_the_recovery_requests_too() -> TestResult {
    let env = Env::new()?;
    env.import_interrupted()?;
    let before = env.records(FIXED_ID)?.len();
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("Finished the old turn."),
        Reply::text("Next done."),
    ]))?;
    let out = env
        .agent(
            &fake,
            &["-r", FIXED_ID, "-p", "next", "--output-format", "json"],
        )
        .ok();
    let records = env.records(FIXED_ID)?;
    assert_eq!(
        reported_usage(&out.json()?),
        logged_usage(&records[before..])
    );
    Ok(())
}

#[test]
fn agents_md_is_read_at_session_start_and_frozen() -> TestResult {
    let env = Env::new()?;
    std::fs::write(
        env.project.join("AGENTS.md"),
        "Always answer in haiku (alpha).\n",
    )?;
    let fake = fake_answering(3)?;
    let id = first_turn(&env, &fake)?;
    std::fs::write(
        env.project.join("AGENTS.md"),
        "Always answer in prose (beta).\n",
    )?;
    env.agent(&fake, &["-r", &id, "-p", "again"]).ok();
    env.agent(&fake, &["-p", "a new session"]).ok();

    let sent = requests(&fake)?;
    let system = |i: usize| sent[i]["system"].to_string();
    assert!(system(0).contains("(alpha)"), "{}", system(0));
    assert_eq!(
        system(1),
        system(0),
        "the resumed session sends the same system"
    );
    assert_eq!(sent[1]["tools"], sent[0]["tools"]);
    assert!(system(2).contains("(beta)"), "a new session reads it again");
    assert!(!system(2).contains("(alpha)"));
    Ok(())
}

#[test]
fn a_session_owned_by_another_process_is_refused_with_its_pid() -> TestResult {
    let env = Env::new()?;
    let fake = fake_answering(2)?;
    let id = first_turn(&env, &fake)?;
    let before = env.log_bytes(&id)?;
    let Some(holder) = LockHolder::hold(&env, &id)? else {
        return Ok(());
    };
    let out = env.agent(&fake, &["-r", &id, "-p", "mine now"]);
    assert_ne!(out.code, 0, "{out}");
    assert!(
        out.stderr.contains(&format!("pid {}", holder.pid())),
        "{out}"
    );
    let shown =
        redact(&out.to_string(), &[(&id, "ID")]).replace(&holder.pid().to_string(), "[PID]");
    insta::assert_snapshot!(shown, @r#"
        [stderr]
        hotl: session [ID]---------------------- is owned by another hotl process (pid [PID])
        hint: it can still be read (`hotl sessions show`); it becomes writable when that process exits
        [exit status: 1]
        "#);
    assert_eq!(requests(&fake)?.len(), 1, "no request was sent");
    assert_eq!(env.log_bytes(&id)?, before);
    drop(holder);
    env.agent(&fake, &["-r", &id, "-p", "mine now"]).ok();
    Ok(())
}
