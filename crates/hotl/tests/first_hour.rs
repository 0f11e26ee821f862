//! What a new user trips over, following only the README: an inherited mode said out loud, the
//! example that works from a clone, piped input, a task typed where a session was expected,
//! list numbers, and a drop that asks first.

use std::io::Write;
use std::process::Stdio;

use hotl_fakellm::{Config, FakeLlm, Reply};
use hotl_testkit::TestResult;

use crate::common::{Env, fake_answering, requests};

/// `hotl --provider anthropic --base-url <fake> <args>` with `input` on stdin (a pipe).
fn piped(env: &Env, fake: &FakeLlm, args: &[&str], input: &str) -> TestResult<crate::common::Run> {
    let mut cmd = env.agent_command();
    cmd.args(["--provider", "anthropic", "--base-url"])
        .arg(fake.base_url())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn()?;
    child
        .stdin
        .take()
        .ok_or("no stdin")?
        .write_all(input.as_bytes())?;
    let out = child.wait_with_output()?;
    Ok(crate::common::Run {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    })
}

/// The last user message a request carried, as JSON text.
fn last_message(body: &serde_json::Value) -> String {
    body["messages"]
        .as_array()
        .and_then(|m| m.last())
        .map(|m| m["content"].to_string())
        .unwrap_or_default()
}

#[test]
fn a_recorded_bypass_is_said_on_every_resume() -> TestResult {
    let env = Env::new()?;
    let fake = fake_answering(4)?;
    let first = env
        .agent(&fake, &["-p", "hi", "--permission-mode", "bypass"])
        .ok();
    assert!(
        !first.stderr.contains("recorded in this session"),
        "{first}"
    );
    let said = "hotl: mode: bypass, recorded in this session; --permission-mode default to drop it";
    let resumed = env.agent(&fake, &["-c", "-p", "again"]).ok();
    assert!(resumed.stderr.contains(said), "{resumed}");
    // Given on the command line, the mode wins and is recorded: no more notice.
    let dropped = env
        .agent(
            &fake,
            &["-c", "-p", "once more", "--permission-mode", "default"],
        )
        .ok();
    assert!(
        !dropped.stderr.contains("recorded in this session"),
        "{dropped}"
    );
    let after = env.agent(&fake, &["-c", "-p", "and again"]).ok();
    assert!(
        !after.stderr.contains("recorded in this session"),
        "{after}"
    );
    Ok(())
}

/// The README's example works from a clone: it records no machine path, so it is adopted into
/// the directory it is imported from and can be forked and resumed there.
#[test]
fn the_readme_example_works_from_a_clone() -> TestResult {
    let env = Env::new()?;
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/hello.jsonl");
    let text = std::fs::read_to_string(example)?;
    assert!(
        !text.contains("/tmp/") && !text.contains("/home/"),
        "a machine path"
    );
    env.run(&["sessions", "import", example]).ok();
    let shown = env.json(&["sessions", "show", "example", "--json"])?;
    assert_eq!(
        shown["cwd"],
        env.cwd(),
        "adopted into the importing directory"
    );
    let fake = fake_answering(2)?;
    env.agent(&fake, &["--fork-from", "example", "-p", "go on"])
        .ok();
    env.agent(&fake, &["-r", "example", "-p", "and here"]).ok();
    Ok(())
}

/// A session whose directory is gone: a headless resume fails with a hint and writes nothing
/// (nobody is there to ask about moving it); a fork works here, where it is made.
#[test]
fn a_session_whose_directory_is_gone_is_forked_here_and_not_resumed_headless() -> TestResult {
    let env = Env::new()?;
    let mut log = hotl_testkit::LogBuilder::new(hotl_testkit::FIXED_ID, "/no/such/directory");
    log.turn("one");
    env.import(&log)?;
    let before = env.log_bytes(hotl_testkit::FIXED_ID)?;
    let fake = fake_answering(1)?;
    let out = env
        .agent(&fake, &["-r", hotl_testkit::FIXED_ID, "-p", "go on"])
        .fails(1);
    assert!(
        out.stderr.contains("no longer exists (/no/such/directory)")
            && out.stderr.contains("in a terminal"),
        "{out}"
    );
    assert_eq!(env.session_ids()?, [hotl_testkit::FIXED_ID], "{out}");
    assert_eq!(
        env.log_bytes(hotl_testkit::FIXED_ID)?,
        before,
        "nothing written"
    );
    assert!(requests(&fake)?.is_empty());
    let forked = env
        .agent(
            &fake,
            &["--fork-from", hotl_testkit::FIXED_ID, "-p", "go on"],
        )
        .ok();
    assert_eq!(forked.stdout, "ok 1\n", "{forked}");
    let fork = env
        .session_ids()?
        .into_iter()
        .find(|id| id != hotl_testkit::FIXED_ID)
        .ok_or("a fork")?;
    assert_eq!(env.records(&fork)?[0]["cwd"], env.cwd().as_str());
    Ok(())
}

#[test]
fn piped_stdin_goes_with_the_prompt() -> TestResult {
    let env = Env::new()?;
    let fake = fake_answering(2)?;
    piped(
        &env,
        &fake,
        &["-p", "summarize this"],
        "line one\nline two\n",
    )?;
    piped(&env, &fake, &["-p", "-"], "the whole prompt from stdin")?;
    let sent = requests(&fake)?;
    let first = last_message(&sent[0]);
    assert!(
        first.contains("summarize this\\n\\nline one\\nline two"),
        "{first}"
    );
    assert!(last_message(&sent[1]).contains("the whole prompt from stdin"));
    // /dev/null (every other test's stdin) is not read: the prompt goes alone.
    let alone = fake_answering(1)?;
    env.agent(&alone, &["-p", "just this"]).ok();
    let alone = last_message(&requests(&alone)?[0]);
    assert!(alone.contains("] just this\""), "nothing added: {alone}");
    Ok(())
}

#[test]
fn a_task_typed_where_a_session_was_expected_gets_a_hint() -> TestResult {
    let env = Env::new()?;
    let out = env.run(&["fix the bug"]).fails(1);
    assert!(
        out.stderr.contains("no session matches \"fix the bug\""),
        "{out}"
    );
    assert!(
        out.stderr
            .contains("hint: to run it as a task: hotl -p 'fix the bug'"),
        "{out}"
    );
    let list = env.run(&["list"]).fails(1);
    assert!(
        list.stderr.contains("did you mean `hotl sessions list`?"),
        "{list}"
    );
    // In a terminal, the console takes it as the first message.
    let fake = FakeLlm::start(Config::scripted([Reply::text("On it.")]))?;
    if let Some(out) = crate::common::console(&env, &fake, &["fix the failing test"], "/exit\n")? {
        assert_eq!(out.code, 0, "{out}");
        assert!(out.stdout.contains("On it."), "{out}");
        assert!(
            last_message(&requests(&fake)?[0]).contains("fix the failing test"),
            "{out}"
        );
    }
    Ok(())
}

#[test]
fn drop_asks_first_on_a_terminal() -> TestResult {
    let env = Env::new()?;
    env.import(&env.log_with_turns(hotl_testkit::FIXED_ID, 1))?;
    let ask = |answer: &str| -> TestResult<Option<crate::common::Run>> {
        crate::common::pty(&env, &["sessions", "drop", "1"], answer)
    };
    let Some(kept) = ask("n\n")? else {
        return Ok(());
    };
    assert!(kept.stdout.contains("? [y/N]"), "{kept}");
    assert!(kept.stdout.contains("is kept"), "{kept}");
    assert!(env.log_path(hotl_testkit::FIXED_ID).exists());
    let dropped = ask("y\n")?.ok_or("a pty")?;
    assert!(dropped.stdout.contains("dropped"), "{dropped}");
    assert!(!env.log_path(hotl_testkit::FIXED_ID).exists());
    Ok(())
}

/// `hotl <args>` with no provider keys in the environment.
fn keyless(env: &Env, args: &[&str]) -> crate::common::Run {
    let mut cmd = env.agent_command();
    cmd.args(args);
    crate::common::run(cmd)
}

#[test]
fn a_hosted_provider_without_a_key_is_refused_before_any_request() -> TestResult {
    let env = Env::new()?;
    for (provider, var) in [
        ("anthropic", "ANTHROPIC_API_KEY"),
        ("openai", "OPENAI_API_KEY"),
        ("openai-chat", "OPENAI_API_KEY"),
    ] {
        let run = keyless(&env, &["--provider", provider, "-p", "hi"]);
        assert_eq!(run.code, 1, "{run}");
        assert!(run.stderr.contains(&format!("{var} is not set")), "{run}");
        // Refused before a session was made.
        assert!(!env.home.join("sessions").exists(), "{run}");
    }
    // A server on this machine is used without a key, as llama.cpp or vLLM run.
    let fake = fake_answering(1)?;
    let url = fake.base_url();
    let run = keyless(
        &env,
        &["--provider", "openai-chat", "--base-url", &url, "-p", "hi"],
    );
    assert_eq!(run.stdout, "ok 1\n", "{run}");
    Ok(())
}

#[test]
fn the_demo_chosen_by_name_is_not_explained_as_a_missing_provider() -> TestResult {
    let env = Env::new()?;
    let chosen = keyless(&env, &["--provider", "demo", "-p", "hi"]);
    assert_eq!(chosen.code, 0, "{chosen}");
    assert!(
        !chosen.stderr.contains("no provider is configured"),
        "{chosen}"
    );
    let defaulted = keyless(&env, &["-p", "hi"]);
    assert_eq!(defaulted.code, 0, "{defaulted}");
    assert!(
        defaulted.stderr.contains("no provider is configured"),
        "{defaulted}"
    );
    Ok(())
}

#[test]
fn a_session_resumed_from_elsewhere_says_where_it_works() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("first"),
        Reply::text("Looking.").with_tool("bash", serde_json::json!({"command": "pwd"})),
        Reply::text("done"),
    ]))?;
    env.agent(&fake, &["-p", "hi"]).ok();
    let elsewhere = env.root().join("elsewhere");
    std::fs::create_dir_all(&elsewhere)?;
    let mut cmd = env.agent_command();
    cmd.current_dir(&elsewhere)
        .args(["--provider", "anthropic", "--base-url"])
        .arg(fake.base_url())
        .args(["-r", "@last", "--allow", "bash", "-p", "where are you?"]);
    let resumed = crate::common::run(cmd).ok();
    assert!(
        resumed.stderr.contains(
            "hotl: working in ~/project, the session's directory (you are in ~/elsewhere)"
        ),
        "{resumed}"
    );
    // And it does work there.
    let sent = requests(&fake)?;
    let pwd = sent[2].to_string();
    assert!(pwd.contains(&env.cwd()), "{pwd}");
    // From the session's own directory nothing is said.
    let here = env.agent(&fake, &["-r", "@last", "-p", "again"]);
    assert!(!here.stderr.contains("working in"), "{here}");
    Ok(())
}
