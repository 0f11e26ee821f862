//! The four moves through the binary, in one story: a build loop that fails three times and
//! then passes, folded by the model; a later task that needs a caveat only the folded span
//! held, found by recall; the same question put to the thread by `hotl ask`; and a fork.

use hotl_fakellm::{Config, FakeLlm, Reply, Tokenizer};
use hotl_testkit::TestResult;
use serde_json::json;

use crate::common::{Env, MODEL, assert_calls_answered, requests, run};

const NOTE: &str = "changed: build.rs links libfoo\nlearned: the build passes; caveat: the cache dir must be on a local disk\ndecided and rejected: kept static linking\nopen: run the integration tests\nwhere: build.rs";

#[test]
fn loop_fold_recall_ask_and_fork_through_the_binary() -> TestResult {
    let env = Env::new()?;
    let bash = |cmd: &str| Reply::text("").with_tool("bash", json!({ "command": cmd }));
    let fake = FakeLlm::start(Config::scripted([
        // 1. The build loop, then the fold.
        bash("echo 'error: cache dir on NFS is not supported; use a local disk' >&2; exit 1"),
        bash("echo 'error: linker cannot find libfoo' >&2; exit 1"),
        bash("echo 'error: linker cannot find libfoo (again)' >&2; exit 1"),
        bash("echo 'Finished dev profile'"),
        Reply::text("").with_tool("fold", json!({ "since": "t3", "note": NOTE })),
        Reply::text("The build passes; the loop is folded."),
        // 2. A task needing the caveat: recall finds it.
        Reply::text("").with_tool("recall", json!({ "query": "NFS local disk" })),
        Reply::text("Use a local disk for the cache dir: NFS is not supported."),
        // 3. `hotl ask` puts a question to the thread.
        Reply::text("libfoo was missing from the linker path."),
        // 4. A fork does a task and reports back.
        Reply::text("").with_tool("fork", json!({ "task": "list what the build loop tried" })),
        Reply::text("The loop tried three builds before the fourth passed."),
        Reply::text("The fork reports three failed builds before success."),
        // 5. `hotl ask` puts a question to the fork.
        Reply::text("The second and third builds failed at the linker."),
    ]))?;

    let first = env
        .agent(&fake, &["-p", "make the build pass", "--allow", "bash"])
        .ok();
    assert_eq!(
        first.stdout, "The build passes; the loop is folded.\n",
        "{first}"
    );
    let id = env.only_session()?;
    let shown = env.run(&["sessions", "show", &id]).ok().stdout;
    assert!(shown.contains("⋯ folded "), "{shown}");
    let handle = shown
        .split("⋯ folded ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .ok_or("a handle")?
        .to_owned();

    let second = env
        .agent(&fake, &["-c", "-p", "where may the cache dir live?"])
        .ok();
    assert_eq!(
        second.stdout,
        "Use a local disk for the cache dir: NFS is not supported.\n"
    );
    let sent = requests(&fake)?;
    let after_recall = sent.last().ok_or("requests")?.to_string();
    assert!(
        after_recall.contains("NFS is not supported"),
        "recall found the caveat"
    );
    assert!(
        after_recall.contains(&format!("[{handle} t")),
        "{after_recall}"
    );

    // The shell reaches the same archive.
    let recalled = env
        .run(&["recall", &id, "libfoo", "--mode", "exact"])
        .ok()
        .stdout;
    assert!(recalled.contains("linker cannot find libfoo"), "{recalled}");
    let hits = env.json(&["recall", &id, "libfoo", "--mode", "exact", "--json"])?;
    // Newest first: the fold's note (written after its span), then the span's outputs.
    assert_eq!(hits[0]["handle"], handle.as_str(), "{hits}");
    assert_eq!(hits[0]["kind"], "note", "{hits}");
    assert_eq!(hits[1]["kind"], "tool", "{hits}");
    assert_eq!(hits[1]["line"], "error: linker cannot find libfoo (again)");

    let asked = env
        .agent(&fake, &["ask", &id, &handle, "what was missing?"])
        .ok();
    assert_eq!(
        asked.stdout, "libfoo was missing from the linker path.\n",
        "{asked}"
    );
    let ask_request = requests(&fake)?.last().ok_or("requests")?.to_string();
    assert!(
        ask_request.contains("linker cannot find libfoo"),
        "the thread's own context"
    );

    let forked = env
        .agent(&fake, &["-c", "-p", "what did the loop try?"])
        .ok();
    assert_eq!(
        forked.stdout, "The fork reports three failed builds before success.\n",
        "{forked}"
    );
    let last = requests(&fake)?.last().ok_or("requests")?.to_string();
    assert!(
        last.contains("The loop tried three builds"),
        "the fork's report came back"
    );

    // One root session; the fork's child is listed under it, in its tree, with its handle.
    let listed = env.json(&["sessions", "list", "--json"])?;
    assert_eq!(listed.as_array().map(Vec::len), Some(1));
    let child = &listed[0]["delegated"][0];
    assert_eq!(child["task"], "list what the build loop tried", "{listed}");
    assert_eq!(child["agent"], "fork");
    let fork_handle = child["handle"].as_str().ok_or("a fork handle")?.to_owned();
    let child_id = child["id"].as_str().ok_or("a child id")?.to_owned();
    assert!(
        env.home
            .join("sessions")
            .join(&id)
            .join(format!("{child_id}.jsonl"))
            .is_file()
    );
    let table = env.run(&["sessions", "list"]).ok().stdout;
    assert!(
        table.contains(&format!(
            "└ fork {fork_handle} · list what the build loop tried"
        )),
        "{table}"
    );
    let root_shown = env.run(&["sessions", "show", &id]).ok().stdout;
    assert!(
        root_shown.contains(&format!("↳ fork {fork_handle} (t"))
            && root_shown.contains(&format!(
                "list what the build loop tried · session {child_id}"
            )),
        "{root_shown}"
    );
    // The child is addressed by id prefix, and shows its own work.
    let shown = env.run(&["sessions", "show", &child_id[..12]]).ok().stdout;
    assert!(shown.contains("The loop tried three builds"), "{shown}");
    assert!(
        shown.contains(&format!(
            "fork {fork_handle} of {id}: list what the build loop tried"
        )),
        "{shown}"
    );
    let shown = env.json(&["sessions", "show", &child_id, "--json"])?;
    assert_eq!(
        shown["delegated"]["handle"],
        fork_handle.as_str(),
        "{shown}"
    );
    assert_eq!(shown["delegated"]["by"], id.as_str());
    // Its work is recalled from the parent, under its handle...
    let recalled = env.run(&["recall", &id, "three builds"]).ok().stdout;
    assert!(
        recalled.contains(&format!("[{fork_handle} t")) && recalled.contains("three builds"),
        "{recalled}"
    );
    // ...and a question put to it is answered from its own context.
    let asked = env
        .agent(
            &fake,
            &[
                "ask",
                &id,
                &fork_handle,
                "which builds failed at the linker?",
            ],
        )
        .ok();
    assert_eq!(
        asked.stdout,
        "The second and third builds failed at the linker.\n"
    );
    let fork_ask = requests(&fake)?.last().ok_or("requests")?.to_string();
    assert!(
        fork_ask.contains("The loop tried three builds") && fork_ask.contains("which builds"),
        "{fork_ask}"
    );

    assert_calls_answered(&env.records(&id)?);
    let types = env.record_types(&id)?;
    assert!(types.iter().any(|t| t == "fold"));
    assert_eq!(types.iter().filter(|t| *t == "ask").count(), 2);
    Ok(())
}

#[test]
fn fold_from_the_shell_without_a_note_has_the_model_write_it() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("Done."),
        // The first note misses lines: it is sent back once with what is missing.
        Reply::text("changed: nothing"),
        Reply::text(NOTE),
    ]))?;
    env.agent(&fake, &["-p", "say done"]).ok();
    let id = env.only_session()?;
    let out = env.agent(&fake, &["fold", &id, "--since", "t3"]).ok();
    assert!(out.stdout.contains("into handle "), "{out}");
    let sent = requests(&fake)?;
    assert_eq!(sent.len(), 3);
    assert!(
        sent[2].to_string().contains("Your last note was refused"),
        "{}",
        sent[2]
    );
    let records = env.records(&id)?;
    let fold = records
        .iter()
        .find(|r| r["type"] == "fold")
        .ok_or("a fold record")?;
    assert_eq!(fold["note"], NOTE);
    Ok(())
}

/// Two steps printing about 8 KB each (just under the 2,000 tokens a result shows whole, with
/// the fake's 4-byte tokens, on top of a first request of about 1,300: the requests are about
/// 1,300, 3,300 and 5,300 tokens), after `quokkaword` and `wombatword`; the note a compaction
/// asks for; the answer `Built.`.
fn build_loop() -> Config {
    build_steps(&["quokkaword", "wombatword"], 7900)
}

/// `words.len()` steps each printing its word and `bytes` more, the note a compaction asks
/// for, and the answer `Built.`. On a small window each step stays under the share of the
/// room one result may take, so it takes several to come near the window.
fn build_steps(words: &[&str], bytes: usize) -> Config {
    let step = |word: &str| {
        Reply::text("").with_tool(
            "bash",
            json!({ "command": format!("echo {word}; head -c {bytes} /dev/zero | tr '\\0' y | fold -w 1000") }),
        )
    };
    Config::scripted(
        words
            .iter()
            .map(|w| step(w))
            .chain([Reply::text(NOTE), Reply::text("Built.")]),
    )
}

/// Steps that stay under a 5,000- and a 6,000-token window's share for one result. The tests
/// using them size their steps (3,000 bytes) for hotl's own fixed prompt, about 5 KB: when it
/// changes much, the step after which a window is passed changes with it.
const SMALL_STEPS: [&str; 5] = [
    "quokkaword",
    "wombatword",
    "numbatword",
    "dingoword",
    "bilbyword",
];

/// A turn that comes near the window (`HOTL_CONTEXT_WINDOW`) compacts before its next request
/// and goes on from the note; the compacted span stays searchable.
#[test]
fn a_long_turn_compacts_near_the_configured_window() -> TestResult {
    let env = Env::new()?;
    // The fifth request would pass 85% of 5,000.
    let fake =
        FakeLlm::start(build_steps(&SMALL_STEPS[..4], 3000).with_tokenizer(Tokenizer::Bytes4))?;
    let mut cmd = env.command_against("anthropic", &fake, MODEL);
    cmd.args(["-p", "build it", "--allow", "bash"])
        .env("HOTL_CONTEXT_WINDOW", "5000");
    let out = run(cmd).ok();
    assert_eq!(out.stdout, "Built.\n", "{out}");
    let id = env.only_session()?;
    let records = env.records(&id)?;
    assert_calls_answered(&records);
    let compactions: Vec<_> = records
        .iter()
        .filter(|r| r["type"] == "compaction")
        .collect();
    assert_eq!(compactions.len(), 1, "{records:?}");
    assert_eq!(compactions[0]["summary"], NOTE);
    let sent = requests(&fake)?;
    assert_eq!(sent.len(), 6);
    let after = sent[5].to_string();
    assert!(after.contains("<compacted until=t") && !after.contains("yyyyyyyy"));
    let hits = env.command().args(["recall", &id, "quokkaword"]).output()?;
    let hits = String::from_utf8(hits.stdout)?;
    assert!(hits.starts_with("[compaction@t"), "{hits}");
    // A window that is not a number is refused, naming the variable.
    let mut bad = env.command_against("anthropic", &fake, MODEL);
    bad.args(["-p", "hi"]).env("HOTL_CONTEXT_WINDOW", "lots");
    let bad = run(bad);
    assert_ne!(bad.code, 0);
    assert!(bad.stderr.contains("HOTL_CONTEXT_WINDOW"), "{bad}");
    Ok(())
}

/// A server with a smaller window than hotl was told (here a configured 128K) refuses the
/// request as too long (OpenAI's `context_length_exceeded`): the turn compacts, says so, and
/// finishes.
#[test]
fn a_request_the_server_refuses_as_too_long_compacts_and_the_turn_finishes() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(
        build_loop()
            .with_tokenizer(Tokenizer::Bytes4)
            .with_context_window(4_600),
    )?;
    let mut cmd = env.agent_command();
    cmd.args(["--provider", "openai-chat", "--base-url"])
        .arg(fake.base_url())
        .args([
            "--model",
            "qwen2.5-coder",
            "-p",
            "build it",
            "--allow",
            "bash",
        ])
        .env("HOTL_CONTEXT_WINDOW", "128000");
    let out = run(cmd).ok();
    assert_eq!(out.stdout, "Built.\n", "{out}");
    assert!(
        out.stderr
            .contains("longer than the model's context window"),
        "{out}"
    );
    let id = env.only_session()?;
    let records = env.records(&id)?;
    assert_calls_answered(&records);
    assert_eq!(
        records.iter().filter(|r| r["type"] == "compaction").count(),
        1,
        "{records:?}"
    );
    let sent = requests(&fake)?;
    assert_eq!(sent.len(), 5, "the refused request, the note, the answer");
    assert!(!sent[3].to_string().contains("quokkaword"), "left out");
    Ok(())
}

/// A fork made on a branch a revert left behind is gone with it, as a fold there is: not shown,
/// not recalled, not askable.
#[test]
fn a_fork_on_a_reverted_branch_is_gone_with_it() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("Hello."),
        Reply::text("").with_tool("fork", json!({ "task": "look for the pineapple" })),
        Reply::text("found the pineapple in the crate"),
        Reply::text("The fork found it."),
    ]))?;
    env.agent(&fake, &["-p", "say hello"]).ok();
    let id = env.only_session()?;
    env.agent(&fake, &["-r", &id, "-p", "find the pineapple"])
        .ok();
    let recall = |env: &Env| -> TestResult<String> {
        let out = env.command().args(["recall", &id, "pineapple"]).output()?;
        Ok(String::from_utf8(out.stdout)?)
    };
    assert!(
        recall(&env)?.contains("found the pineapple"),
        "the fork is archived"
    );
    let first_end = env
        .records(&id)?
        .iter()
        .filter(|r| r["type"] == "run" && r["state"] == "finished")
        .filter_map(|r| r["seq"].as_u64())
        .next()
        .ok_or("the first turn's end")?;
    let out = env
        .command()
        .args(["sessions", "revert", &id, "--to", &format!("t{first_end}")])
        .output()?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let hits = recall(&env)?;
    assert!(!hits.contains("pineapple in the crate"), "{hits}");
    let shown = env.command().args(["sessions", "show", &id]).output()?;
    let shown = String::from_utf8(shown.stdout)?;
    assert!(!shown.contains("↳ fork"), "{shown}");
    Ok(())
}

/// A local server says what window it serves (llama.cpp's `/props`): hotl compacts before the
/// request that would not fit, so the server never refuses one.
#[test]
fn a_local_servers_own_window_is_asked_and_compaction_comes_first() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(
        build_steps(&SMALL_STEPS, 3000)
            .with_tokenizer(Tokenizer::Bytes4)
            .with_context_window(6_000),
    )?;
    let out = env
        .agent_with(
            "openai-chat",
            &fake,
            "qwen2.5-coder",
            &["-p", "build it", "--allow", "bash"],
        )
        .ok();
    assert_eq!(out.stdout, "Built.\n", "{out}");
    assert!(!out.stderr.contains("refused"), "{out}");
    let id = env.only_session()?;
    let records = env.records(&id)?;
    assert_eq!(
        records.iter().filter(|r| r["type"] == "compaction").count(),
        1,
        "{records:?}"
    );
    // Five steps, the note, the answer: nothing refused.
    assert_eq!(requests(&fake)?.len(), 7, "{out}");
    Ok(())
}

/// `hotl ask` takes the rest of the line as the question and a unique prefix of a handle;
/// an empty question, or an empty prompt, is refused before any model call.
#[test]
fn ask_takes_the_rest_of_the_line_and_a_handle_prefix() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("Done."),
        Reply::text("It said done."),
    ]))?;
    env.agent(&fake, &["-p", "say done"]).ok();
    let id = env.only_session()?;
    let note = env.root().join("note.txt");
    std::fs::write(&note, NOTE)?;
    let folded = env
        .command()
        .args(["fold", &id, "--since", "t3", "--note-file"])
        .arg(&note)
        .output()?;
    let folded = String::from_utf8(folded.stdout)?;
    let handle = folded
        .split("into handle ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .ok_or(format!("a handle in {folded:?}"))?
        .to_owned();
    // The provider flags after the question are flags, not words of it.
    let mut ask = env.agent_command();
    ask.args(["ask", &id, &handle[..2], "what", "did", "it", "say?"])
        .args(["--provider", "anthropic", "--base-url"])
        .arg(fake.base_url())
        .args(["--model", MODEL]);
    let out = run(ask).ok();
    assert_eq!(out.stdout, "It said done.\n", "{out}");
    let sent = requests(&fake)?;
    let asked = sent[1].to_string();
    assert!(
        asked.contains("what did it say?") && !asked.contains("--model"),
        "{asked}"
    );
    let empty = env.agent(&fake, &["ask", &id, &handle, ""]);
    assert_ne!(empty.code, 0);
    assert!(empty.stderr.contains("the question is empty"), "{empty}");
    let empty = env.agent(&fake, &["-p", " "]);
    assert!(empty.stderr.contains("the prompt is empty"), "{empty}");
    assert_eq!(requests(&fake)?.len(), 2, "no model call for either");
    // An unknown handle is told before the provider is set up: here the provider could not
    // be (a hosted API, no key), and the handle is what the user hears about.
    let mut unknown = env.command();
    unknown.env_remove("ANTHROPIC_API_KEY").args([
        "ask",
        &id,
        "zzzz",
        "anything?",
        "--provider",
        "anthropic",
    ]);
    let unknown = run(unknown);
    assert_ne!(unknown.code, 0, "{unknown}");
    assert!(
        unknown.stderr.contains("zzzz") && unknown.stderr.contains(&handle),
        "{unknown}"
    );
    assert!(!unknown.stderr.contains("API_KEY"), "{unknown}");
    Ok(())
}

#[test]
fn compact_from_the_shell_with_the_models_note_or_a_note_file() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("Done."),
        Reply::text(NOTE),
        Reply::text("Next done."),
    ]))?;
    env.agent(&fake, &["-p", "say done"]).ok();
    let id = env.only_session()?;
    let out = env.agent(&fake, &["compact", &id]).ok();
    assert!(
        out.stdout.starts_with(&format!("compacted {id} through t")),
        "{out}"
    );
    let sent = requests(&fake)?;
    assert_eq!(sent.len(), 2);
    assert!(sent[1].to_string().contains("[compaction]"), "{}", sent[1]);
    let summaries = |env: &Env| -> TestResult<Vec<String>> {
        Ok(env
            .records(&id)?
            .iter()
            .filter(|r| r["type"] == "compaction")
            .filter_map(|r| r["summary"].as_str().map(str::to_owned))
            .collect())
    };
    assert_eq!(summaries(&env)?, [NOTE]);
    // The next turn goes on from the note.
    env.agent(&fake, &["-r", &id, "-p", "next"]).ok();
    let sent = requests(&fake)?;
    assert!(
        sent[2]["messages"][0]
            .to_string()
            .contains("<compacted until=t")
    );

    // A person's note, checked against the template; no model call.
    let bad = env.root().join("bad.txt");
    std::fs::write(&bad, "changed: x\n")?;
    let refused = env.agent(&fake, &["compact", &id, "--note-file"]);
    assert_ne!(refused.code, 0);
    let refused = env
        .command()
        .args(["compact", &id, "--note-file"])
        .arg(&bad)
        .output()?;
    assert!(!refused.status.success());
    assert!(String::from_utf8(refused.stderr)?.contains("learned:"));
    let good = env.root().join("note.txt");
    std::fs::write(&good, NOTE)?;
    let ok = env
        .command()
        .args(["compact", &id, "--note-file"])
        .arg(&good)
        .output()?;
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    // No model was asked, so none "changed".
    assert!(
        !String::from_utf8_lossy(&ok.stderr).contains("the model changed"),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    assert_eq!(summaries(&env)?, [NOTE, NOTE]);
    assert_eq!(requests(&fake)?.len(), 3, "no model call for a note file");
    Ok(())
}

/// `hotl fold` without `--since` folds the current episode, as `/fold` does, and prints the
/// note with the handle.
#[test]
fn fold_from_the_shell_defaults_to_the_current_episode() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([Reply::text("Done.")]))?;
    env.agent(&fake, &["-p", "say done"]).ok();
    let id = env.only_session()?;
    let note = env.root().join("note.txt");
    std::fs::write(&note, NOTE)?;
    let out = env
        .command()
        .args(["fold", &id, "--note-file"])
        .arg(&note)
        .output()?;
    let stdout = String::from_utf8(out.stdout)?;
    assert!(stdout.starts_with("folded t3..t"), "{stdout}");
    assert!(
        stdout.contains(NOTE.lines().next().unwrap_or("")),
        "{stdout}"
    );
    // Nothing new since: said, not folded again.
    let again = env
        .command()
        .args(["fold", &id, "--note-file"])
        .arg(&note)
        .output()?;
    assert!(!again.status.success());
    assert!(String::from_utf8(again.stderr)?.contains("nothing to fold"));
    Ok(())
}
