//! Slash commands in the console (`/fold`, `/recall`, `/ask`, `/help`, unknown words), typed
//! into the real binary on a pseudo-terminal against the fake provider.

use hotl_fakellm::{Config, FakeLlm, Fault, Reply};
use hotl_testkit::TestResult;
use serde_json::json;

use crate::common::{Env, assert_calls_answered, console, console_typed, requests};

const NOTE: &str = "changed: set up the cache and linked libfoo\nlearned: the cache dir must be on a local disk (NFS is not supported)\ndecided and rejected: kept static linking\nopen: run the integration tests\nwhere: build.rs";

/// The context gauges of the status lines printed, in order.
fn gauges(stdout: &str) -> Vec<u64> {
    stdout
        .lines()
        .filter(|l| l.starts_with("── "))
        .filter_map(|l| l.trim_start_matches("── ").split('%').next()?.parse().ok())
        .collect()
}

/// The fold records of a session's log.
fn folds(env: &Env, id: &str) -> TestResult<Vec<serde_json::Value>> {
    Ok(env
        .records(id)?
        .into_iter()
        .filter(|r| r["type"] == "fold")
        .collect())
}

/// The seqs of a session's user records.
fn user_seqs(env: &Env, id: &str) -> TestResult<Vec<u64>> {
    Ok(env
        .records(id)?
        .iter()
        .filter(|r| r["type"] == "user")
        .filter_map(|r| r["seq"].as_u64())
        .collect())
}

#[test]
fn fold_recall_and_ask_from_the_console() -> TestResult {
    let env = Env::new()?;
    // A file large enough that reading it moves the context gauge.
    let big: String = (1..=1500)
        .map(|i| format!("line {i}: some build output that fills the context window\n"))
        .collect();
    std::fs::write(env.project.join("build.log"), big)?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("").with_tool("read", json!({ "path": "build.log" })),
        Reply::text("The cache dir must live on a local disk: NFS is not supported."),
        Reply::text("Linked libfoo statically."),
        // /fold: the model writes the note.
        Reply::text(NOTE),
        // /ask, in the second console.
        Reply::text("On a local disk; NFS is not supported."),
    ]))?;
    let input = "set up the cache\nnow link libfoo\n/fold t3\n/recall NFS local disk\n\
                 /recall --exact libfoo\n/exit\n";
    let Some(out) = console(&env, &fake, &[], input)? else {
        return Ok(());
    };
    let out = out.ok();
    let id = env.only_session()?;
    let folds = folds(&env, &id)?;
    assert_eq!(folds.len(), 1, "{out}");
    let fold = &folds[0];
    assert_eq!(fold["since"], 3, "the first user message: {fold}");
    assert_eq!(fold["note"], NOTE);
    let handle = fold["handle"].as_str().ok_or("a handle")?;
    let until = fold["until"].as_u64().ok_or("until")?;
    assert!(
        out.stdout.contains(&format!(
            "· folded t3..t{until} into handle {handle}\n{NOTE}\n── "
        )),
        "the handle, the span, the note, then the status line: {out}"
    );
    // Before the fold the gauge counted the file read; after, the span is a note.
    let gauges = gauges(&out.stdout);
    let (before, after) = (gauges[gauges.len() - 2], gauges[gauges.len() - 1]);
    assert!(before > after, "the gauge drops: {gauges:?}\n{out}");
    // Recall reads the archive: hits in the folded span, under the handle.
    let hits: Vec<&str> = out
        .stdout
        .lines()
        .map(|l| l.trim_start_matches("> "))
        .filter(|l| l.starts_with(&format!("[{handle} t")))
        .collect();
    assert!(
        hits.iter().any(|h| h.ends_with(
            "assistant] The cache dir must live on a local disk: NFS is not supported."
        )),
        "/recall NFS local disk: {out}"
    );
    assert!(
        hits.iter()
            .any(|h| h.ends_with("assistant] Linked libfoo statically.")),
        "/recall --exact libfoo: {out}"
    );
    // Two turns (three model calls) and the note; recall called no model.
    let sent = requests(&fake)?;
    assert_eq!(sent.len(), 4, "{out}");
    assert!(sent[3].to_string().contains("[fold] Write the note"));

    // A later console on the same session asks the thread.
    let out = console(
        &env,
        &fake,
        &["-c"],
        &format!("/ask {handle} where may the cache dir live?\n/exit\n"),
    )?
    .ok_or("script vanished")?
    .ok();
    assert!(
        out.stdout
            .contains("\nOn a local disk; NFS is not supported.\n── "),
        "the answer, then the status line: {out}"
    );
    let sent = requests(&fake)?;
    assert_eq!(sent.len(), 5);
    assert!(
        sent[4]
            .to_string()
            .contains("where may the cache dir live?")
    );
    let types = env.record_types(&id)?;
    assert!(types.iter().any(|t| t == "ask"), "{types:?}");
    assert_calls_answered(&env.records(&id)?);
    Ok(())
}

#[test]
fn fold_without_a_stamp_folds_the_current_episode() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("Done one."),
        Reply::text(NOTE),
        Reply::text("Done two."),
        Reply::text(NOTE),
    ]))?;
    let input = "first task\n/fold\nsecond task\n/fold\n/fold\n/exit\n";
    let Some(out) = console(&env, &fake, &[], input)? else {
        return Ok(());
    };
    let out = out.ok();
    let id = env.only_session()?;
    let users = user_seqs(&env, &id)?;
    let folds = folds(&env, &id)?;
    assert_eq!(folds.len(), 2, "{out}");
    assert_eq!(folds[0]["since"], users[0], "{out}");
    assert_eq!(
        folds[1]["since"], users[1],
        "the second episode starts after the first fold: {out}"
    );
    assert!(
        out.stdout.contains("· fold failed: nothing to fold"),
        "{out}"
    );
    assert_eq!(requests(&fake)?.len(), 4, "{out}");
    Ok(())
}

#[test]
fn fold_errors_print_one_line_and_the_console_goes_on() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("Done."),
        Reply::text(NOTE),
        Reply::text("Still here."),
    ]))?;
    let input = "/fold\ntask\n/fold tx\n/fold t999\n/fold t2\n/fold t3\n/fold t3\n\
                 /ask zzzz what?\n/ask zzzz\n/recall --fuzzy x\nstill there?\n/exit\n";
    let Some(out) = console(&env, &fake, &[], input)? else {
        return Ok(());
    };
    let out = out.ok();
    for expected in [
        "· no session yet: send a message first",
        "· \"tx\" is not a stamp; expected /fold t<seq>",
        "· fold failed: cannot fold from t999: t999 is past the end of the session",
        "· fold failed: cannot fold from t2: t2 is not a message",
        "· fold failed: cannot fold from t3: t3 is inside the earlier fold",
        "· ask failed: no archived thread has the handle \"zzzz\"",
        "· /ask needs a handle and a question",
        "· unknown flag --fuzzy",
        "Still here.",
    ] {
        assert!(out.stdout.contains(expected), "{expected:?} in:\n{out}");
    }
    let id = env.only_session()?;
    assert_eq!(folds(&env, &id)?.len(), 1, "{out}");
    // The turn, the note, the last turn: no failed command called the model.
    assert_eq!(requests(&fake)?.len(), 3, "{out}");
    Ok(())
}

#[test]
fn unknown_commands_never_reach_the_model_but_paths_do() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("A hosts file."),
        Reply::text("Help is on the way."),
    ]))?;
    let input = "/recall x\n/help\n/etc/hosts is weird\n/frobnicate now\n//help me\n/exit\n";
    let Some(out) = console(&env, &fake, &[], input)? else {
        return Ok(());
    };
    let out = out.ok();
    assert!(out.stdout.contains("· no session yet"), "{out}");
    assert!(
        out.stdout
            .contains("· unknown command /frobnicate; /help lists them"),
        "{out}"
    );
    for command in [
        "/fold [t<seq>]",
        "/recall [--exact|--regex] QUERY",
        "/ask HANDLE",
        "/exit",
    ] {
        assert!(
            out.stdout
                .lines()
                .any(|l| l.trim_start_matches("> ").starts_with(command)),
            "/help lists {command}: {out}"
        );
    }
    let sent = requests(&fake)?;
    assert_eq!(sent.len(), 2, "{out}");
    let last_user = |body: &serde_json::Value| -> String {
        body["messages"]
            .as_array()
            .and_then(|m| m.last())
            .map(|m| m["content"].to_string())
            .unwrap_or_default()
    };
    assert!(
        last_user(&sent[0]).contains("/etc/hosts is weird"),
        "{}",
        sent[0]
    );
    assert!(
        last_user(&sent[1]).contains("] /help me"),
        "the // escape sends one slash: {}",
        sent[1]
    );
    assert!(!sent.iter().any(|s| s.to_string().contains("frobnicate")));
    Ok(())
}

#[test]
fn ctrl_c_during_a_fold_drops_the_note_and_records_nothing() -> TestResult {
    let env = Env::new()?;
    let slow = Fault::split_seeded(5, 4).with_chunk_delay_ms(1_000);
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("Set up."),
        // The note streams slowly; Ctrl-C comes first.
        Reply::text(NOTE).with_fault(slow),
        Reply::text("Still here."),
    ]))?;
    let typed = [
        ("set up the cache\n", 0),
        ("/fold t3\n", 1_000),
        ("\x03", 1_500),
        ("are you there?\n", 500),
        ("/exit\n", 1_000),
    ];
    let Some(out) = console_typed(&env, &fake, &[], &typed)? else {
        return Ok(());
    };
    let out = out.ok();
    assert!(
        out.stdout
            .contains("· fold cancelled; nothing was recorded"),
        "{out}"
    );
    assert!(out.stdout.contains("Still here."), "{out}");
    let id = env.only_session()?;
    assert!(folds(&env, &id)?.is_empty(), "{out}");
    Ok(())
}

#[test]
fn compact_replaces_the_context_with_a_note_the_model_writes() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("Set up."),
        // /compact: the model writes the note.
        Reply::text(NOTE),
        Reply::text("Linked."),
    ]))?;
    let input = "set up the cache\n/compact now\n/compact\nnow link libfoo\n/exit\n";
    let Some(out) = console(&env, &fake, &[], input)? else {
        return Ok(());
    };
    let out = out.ok();
    assert!(out.stdout.contains("· /compact takes nothing"), "{out}");
    let id = env.only_session()?;
    let records = env.records(&id)?;
    let compaction = records
        .iter()
        .find(|r| r["type"] == "compaction")
        .ok_or("a compaction record")?;
    assert_eq!(compaction["summary"], NOTE);
    let until = compaction["until"].as_u64().ok_or("until")?;
    assert!(
        out.stdout
            .contains(&format!("· compacted through t{until};")),
        "{out}"
    );
    let sent = requests(&fake)?;
    assert_eq!(sent.len(), 3, "{out}");
    let after = sent[2]["messages"][0].to_string();
    assert!(
        after.contains(&format!("<compacted until=t{until}>")),
        "{after}"
    );
    assert!(
        after.contains("set up the cache"),
        "the user's words stay: {after}"
    );
    Ok(())
}

/// A recovery whose model call fails leaves the console running, as a failed turn does.
#[test]
fn a_failed_recovery_leaves_the_console_running() -> TestResult {
    let env = Env::new()?;
    env.import_interrupted()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("never").with_fault(Fault::status(400)),
        Reply::text("Here again."),
    ]))?;
    let Some(out) = console(
        &env,
        &fake,
        &["-r", hotl_testkit::FIXED_ID],
        "hello\n/exit\n",
    )?
    else {
        return Ok(());
    };
    let out = out.ok();
    assert!(out.stdout.contains("· error: provider error"), "{out}");
    assert!(out.stdout.contains("Here again."), "{out}");
    Ok(())
}

/// A pasted block (the terminal's bracketed paste) is one message, newlines and all, and a line
/// longer than the terminal's own 4 KiB line limit arrives whole.
#[test]
fn a_pasted_block_is_one_message_and_long_lines_arrive_whole() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("It prints nothing."),
        Reply::text("A long line."),
    ]))?;
    let long = "x".repeat(6_000);
    let input = format!("\x1b[200~explain this:\nfn main() {{}}\n\x1b[201~\n{long} end\n/exit\n");
    let Some(out) = console(&env, &fake, &[], &input)? else {
        return Ok(());
    };
    let out = out.ok();
    let sent = requests(&fake)?;
    assert_eq!(sent.len(), 2, "{out}");
    let first = sent[0]["messages"].to_string();
    assert!(first.contains("explain this:\\nfn main() {}"), "{first}");
    let second = sent[1]["messages"].to_string();
    assert!(
        second.contains(&format!("{long} end")),
        "the whole line: {}",
        second.len()
    );
    Ok(())
}

/// The console line that ends with `said` under a child's bar: the child's handle.
fn child_line<'a>(text: &'a str, said: &str) -> Option<&'a str> {
    text.lines()
        .find(|l| l.starts_with("  │ ") && l.ends_with(said))
        .and_then(|l| l["  │ ".len()..].split(' ').next())
}

/// A fork's child shows in the console under a bar with its handle, between "started" and
/// "finished", and the parent's answer starts on a line of its own.
#[test]
fn a_forks_work_is_shown_under_its_handle_between_its_start_and_end() -> TestResult {
    let env = Env::new()?;
    std::fs::write(env.project.join("main.rs"), "fn main() {}\n")?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("").with_tool("fork", json!({ "task": "read main.rs" })),
        Reply::text("Child reading.").with_tool("read", json!({ "path": "main.rs" })),
        Reply::text("Child report: main is empty."),
        Reply::text("Parent: the fork says it is empty."),
    ]))?;
    let Some(out) = console(&env, &fake, &[], "use a fork\n/exit\n")? else {
        return Ok(());
    };
    let out = out.ok();
    let text = out.stdout.replace('\r', "");
    let handle = child_line(&text, "Child reading.").ok_or(text.clone())?;
    assert!(text.contains(&format!("  │ {handle} → read ")), "{text}");
    assert_eq!(
        child_line(&text, "Child report: main is empty."),
        Some(handle)
    );
    assert!(
        text.contains(&format!("fork {handle} finished\n")),
        "{text}"
    );
    assert!(
        text.contains("\nParent: the fork says it is empty."),
        "{text}"
    );
    Ok(())
}

/// Two forks of one step run at once; what each says streams in pieces, yet every line the
/// console shows is one child's, under its own handle.
#[test]
fn forks_running_side_by_side_never_mix_within_a_line() -> TestResult {
    let env = Env::new()?;
    let pieces = || Fault::split_at([30, 60, 90, 120, 150, 180]).with_chunk_delay_ms(80);
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("")
            .with_tool("fork", json!({ "task": "TASK-ALPHA" }))
            .with_tool("fork", json!({ "task": "TASK-BETA" })),
        Reply::text("alpha one alpha one\nalpha two alpha two\n")
            .with_fault(pieces())
            .matching("TASK-ALPHA"),
        Reply::text("beta one beta one\nbeta two beta two\n")
            .with_fault(pieces())
            .matching("TASK-BETA"),
        Reply::text("Parent: both are back."),
    ]))?;
    let Some(out) = console(&env, &fake, &[], "two forks\n/exit\n")? else {
        return Ok(());
    };
    let text = out.ok().stdout.replace('\r', "");
    let alpha = child_line(&text, "alpha one alpha one").ok_or(text.clone())?;
    let beta = child_line(&text, "beta one beta one").ok_or(text.clone())?;
    assert_ne!(alpha, beta, "{text}");
    assert_eq!(
        child_line(&text, "alpha two alpha two"),
        Some(alpha),
        "{text}"
    );
    assert_eq!(child_line(&text, "beta two beta two"), Some(beta), "{text}");
    assert!(text.contains("\nParent: both are back."), "{text}");
    Ok(())
}

/// `/cost` prints what the session spent per turn and in total, as `hotl stats` does; before
/// the first message there is nothing to count.
#[test]
fn cost_prints_the_sessions_spending_per_turn() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("Hi."),
        Reply::text("Again."),
    ]))?;
    let Some(out) = console(&env, &fake, &[], "/cost\nhello\nmore\n/cost\n/exit\n")? else {
        return Ok(());
    };
    let out = out.ok();
    assert!(out.stdout.contains("nothing spent yet"), "{out}");
    let table = out
        .stdout
        .split_once(" turn      at  req")
        .ok_or_else(|| format!("no table: {out}"))?
        .1;
    assert!(table.contains("\n    1      t3    1 "), "{out}");
    assert!(table.contains("\n    2      t7    1 "), "{out}");
    assert!(table.contains("\ntotal            2 "), "{out}");
    Ok(())
}

/// `/dump` prints the session as the model sees it, copies it through the terminal (OSC 52)
/// and writes the next request's body beside it; before the first message there is nothing.
#[test]
fn dump_prints_copies_and_writes_the_body_beside() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([Reply::text("Hi.")]))?;
    let tmp = env.root().join("tmp");
    std::fs::create_dir_all(&tmp)?;
    let mut hotl = env.agent_command();
    hotl.env("TMPDIR", &tmp)
        .args(["--provider", "anthropic", "--base-url"])
        .arg(fake.base_url())
        .args(["--model", crate::common::MODEL]);
    let Some(out) = crate::common::in_pty(&env, &hotl, &[("/dump\nhello\n/dump\n/exit\n", 0)])?
    else {
        return Ok(());
    };
    let out = out.ok();
    assert!(
        out.stdout
            .contains("· no session yet: send a message first"),
        "{out}"
    );
    assert!(
        out.stdout.contains("=== system prompt ===") && out.stdout.contains("[t3] hello"),
        "{out}"
    );
    assert!(
        out.stdout.contains("\x1b]52;c;"),
        "copied with OSC 52: {out}"
    );
    let id = env.only_session()?;
    assert!(tmp.join(format!("hotl-llm-request-{id}.json")).exists());
    Ok(())
}

#[test]
fn an_approval_shows_the_change_before_asking_and_a_no_can_say_why() -> TestResult {
    let env = Env::new()?;
    std::fs::write(
        std::path::Path::new(&env.cwd()).join("notes.txt"),
        "old wording here\n",
    )?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("Editing.").with_tool(
            "edit",
            serde_json::json!({"path": "notes.txt", "old": "old wording here", "new": "new wording here"}),
        ),
        Reply::text("done"),
    ]))?;
    let typed = [
        ("reword it\n", 0),
        ("n\n", 800),
        ("the spec needs it\n", 300),
        ("/exit\n", 800),
    ];
    let Some(out) = console_typed(&env, &fake, &[], &typed)? else {
        return Ok(());
    };
    let out = out.ok();
    let diff = out
        .stdout
        .find("- old wording here")
        .ok_or(out.stdout.clone())?;
    let added = out
        .stdout
        .find("+ new wording here")
        .ok_or(out.stdout.clone())?;
    let question = out
        .stdout
        .find("edit notes.txt. Allow?")
        .ok_or(out.stdout.clone())?;
    assert!(diff < added && added < question, "{}", out.stdout);
    assert!(out.stdout.contains("why not?"), "{}", out.stdout);
    let last = crate::common::requests(&fake)?
        .pop()
        .ok_or("no request")?
        .to_string();
    assert!(last.contains("They said: the spec needs it"), "{last}");
    Ok(())
}

#[test]
fn revert_in_the_console_puts_the_files_back_with_the_conversation() -> TestResult {
    let env = Env::new()?;
    let (id, to) = crate::edit::session_that_changed_files(&env)?;
    let project = std::path::Path::new(&env.cwd()).to_owned();
    // t<to> ends the first turn: the second turn's message follows it.
    let show = env.run(&["sessions", "show", &id]).ok().stdout;
    let before = show
        .lines()
        .filter(|line| line.contains("] user: "))
        .filter_map(|line| line.trim_start().strip_prefix("[t")?.split(']').next())
        .filter_map(|seq| seq.parse::<u64>().ok())
        .find(|seq| *seq > to)
        .ok_or(show.clone())?;
    let fake = FakeLlm::start(Config::scripted([Reply::text("unused")]))?;
    let typed = [
        (format!("/revert t{before}\n"), 0),
        ("/revert undo\n".to_owned(), 1_500),
        ("/exit\n".to_owned(), 1_500),
    ];
    let typed: Vec<(&str, u64)> = typed.iter().map(|(t, ms)| (t.as_str(), *ms)).collect();
    let Some(out) = console_typed(&env, &fake, &["-r", &id], &typed)? else {
        return Ok(());
    };
    let out = out.ok();
    assert!(out.stdout.contains("notes.txt restored"), "{}", out.stdout);
    assert!(out.stdout.contains("new.txt removed"), "{}", out.stdout);
    // `/revert undo` puts the code back as the later turns left it; the conversation stays
    // reverted.
    assert!(
        out.stdout.contains("undid the last restore"),
        "{}",
        out.stdout
    );
    assert_eq!(
        std::fs::read_to_string(project.join("notes.txt"))?,
        "rewritten by the model\n"
    );
    assert!(project.join("new.txt").exists());
    assert_eq!(env.turns(&id)?, 1);
    Ok(())
}

/// `/model` is kept in the session: the status shows it at once, and a resume on the same
/// provider answers with it (said so), unless `--model` says otherwise.
#[test]
fn the_model_chosen_is_kept_by_a_resume() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("first"),
        Reply::text("second"),
        Reply::text("third"),
    ]))?;
    let Some(out) = console(&env, &fake, &[], "hello\n/model claude-opus-9\n/exit\n")? else {
        return Ok(());
    };
    assert!(out.stdout.contains("claude-opus-9"), "{out}");
    let id = env.only_session()?;
    // No --model: the session's choice answers.
    let mut cmd = env.agent_command();
    cmd.args(["--provider", "anthropic", "--base-url"])
        .arg(fake.base_url())
        .args(["-r", &id, "-p", "again"]);
    let resumed = crate::common::run(cmd).ok();
    assert!(
        resumed
            .stderr
            .contains("model: claude-opus-9, chosen in this session"),
        "{resumed}"
    );
    let flagged = env
        .agent_with(
            "anthropic",
            &fake,
            "claude-haiku-9",
            &["-r", &id, "-p", "once more"],
        )
        .ok();
    assert!(
        !flagged.stderr.contains("chosen in this session"),
        "{flagged}"
    );
    let sent = requests(&fake)?;
    let models: Vec<&str> = sent.iter().filter_map(|r| r["model"].as_str()).collect();
    assert_eq!(models[models.len() - 2], "claude-opus-9", "{models:?}");
    assert_eq!(models[models.len() - 1], "claude-haiku-9", "{models:?}");
    Ok(())
}
