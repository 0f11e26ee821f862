//! Delegation under kills and beside `gc`: the children a killed process left (spawned,
//! continued, or delegating in turn) are settled and reported with their handles and
//! worktrees, `check` names a child left open, `gc` never
//! takes a starting child's worktree nor anything that is not hotl's own, and worktrees and
//! patches are private whatever the umask.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use hotl_fakellm::{Config, FakeLlm, Fault, Gate, Reply};
use hotl_testkit::TestResult;
use serde_json::json;

use crate::common::{Env, MODEL, requests};

/// Runs git in `dir` with a name set (the test's HOME has no git config).
fn git(dir: &Path, args: &[&str]) -> TestResult<String> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .output()?;
    if !out.status.success() {
        return Err(format!("git {args:?}: {}", String::from_utf8_lossy(&out.stderr)).into());
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A git repository at `dir` with one commit.
fn repository(dir: &Path) -> TestResult {
    std::fs::create_dir_all(dir)?;
    git(dir, &["init", "-q"])?;
    std::fs::write(dir.join("a.txt"), "one\n")?;
    git(dir, &["add", "a.txt"])?;
    git(dir, &["commit", "-q", "-m", "first"])?;
    Ok(())
}

/// The project's agent `fixer`: writes with bash in a worktree of its own, in the foreground.
fn define_fixer(env: &Env) -> TestResult {
    let agents = env.project.join(".hotl/agents");
    std::fs::create_dir_all(&agents)?;
    std::fs::write(
        agents.join("fixer.md"),
        "---\nname: fixer\ndescription: Fixes things apart.\ntools: [read, bash]\nisolation: worktree\n---\nYou fix things.\n",
    )?;
    Ok(())
}

/// Waits until the fake got a request containing `needle`.
fn wait_for_request(fake: &FakeLlm, needle: &str) -> TestResult {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !requests(fake)?
        .iter()
        .any(|r| r.to_string().contains(needle))
    {
        if Instant::now() > deadline {
            return Err(format!("no request with {needle:?} came").into());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(())
}

fn mode(path: &Path) -> TestResult<u32> {
    Ok(std::fs::symlink_metadata(path)?.permissions().mode() & 0o777)
}

#[test]
fn a_spawned_child_killed_with_its_process_is_settled_and_reported_with_its_handle() -> TestResult {
    let env = Env::new()?;
    repository(&env.project)?;
    define_fixer(&env)?;
    let gate = Gate::new();
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("")
            .with_tool(
                "spawn",
                json!({"agent": "fixer", "task": "FIX-TASK add b.txt"}),
            )
            .matching("fix it apart"),
        Reply::text("")
            .with_tool(
                "bash",
                json!({"command": "printf 'bee\\n' > b.txt && echo WROTE-B"}),
            )
            .matching("FIX-TASK"),
        // The child is still answering when its process dies.
        Reply::text("never finished")
            .with_fault(Fault::held(&gate))
            .matching("WROTE-B"),
    ]))?;
    let mut cmd = env.command_against("anthropic", &fake, MODEL);
    cmd.args(["-p", "fix it apart", "--permission-mode", "bypass"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut hotl = cmd.spawn()?;
    wait_for_request(&fake, "WROTE-B")?;
    hotl.kill()?;
    hotl.wait()?;

    // Left as it is, the child's run is open with nobody running it: check says so.
    let checked = env.run(&["sessions", "check"]);
    assert_ne!(checked.code, 0, "{checked}");
    assert!(
        checked
            .stdout
            .contains("still open though no process holds its tree"),
        "{checked}"
    );

    // The old turn is finished first (the model asked again), then the new message.
    let mut script = Config::scripted([
        Reply::text("The fixer was cut off."),
        Reply::text("I will continue it."),
    ]);
    script.id_seed = 1;
    let next = FakeLlm::start(script)?;
    let out = env.agent(&next, &["-c", "-p", "what happened to it?"]).ok();
    assert_eq!(out.stdout, "I will continue it.\n", "{out}");
    let listed = env.json(&["sessions", "list", "--json"])?;
    let child = &listed[0]["delegated"][0];
    let handle = child["handle"].as_str().ok_or("handle")?;
    let child_id = child["id"].as_str().ok_or("id")?;
    // The spawn call is answered with the child's handle, how to take it on, and where its
    // changes are.
    let first = requests(&next)?.first().ok_or("no request")?.to_string();
    assert!(
        first.contains(&format!("continue {handle} takes it on")),
        "{first}"
    );
    assert!(first.contains("git apply"), "{first}");
    // Its own run is closed, its log valid; the patch holds its change, private.
    let id = env.only_session()?;
    let log = std::fs::read_to_string(
        env.home
            .join("sessions")
            .join(&id)
            .join(format!("{child_id}.jsonl")),
    )?;
    assert!(log.contains("\"state\":\"interrupted\""), "{log}");
    let patches: Vec<PathBuf> = std::fs::read_dir(env.home.join("worktrees"))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "patch"))
        .collect();
    assert_eq!(patches.len(), 1, "{patches:?}");
    assert!(std::fs::read_to_string(&patches[0])?.contains("+bee"));
    assert_eq!(mode(&patches[0])?, 0o600);
    let checked = env.run(&["sessions", "check"]);
    assert_eq!(checked.code, 0, "the logs check clean: {checked}");
    drop(gate);
    Ok(())
}

/// A `git` ahead of the real one on PATH that notes, at `worktree add`, whether a session log
/// already names the worktree it is about to make.
fn spying_git(env: &Env) -> TestResult<(PathBuf, PathBuf)> {
    let real = String::from_utf8(
        std::process::Command::new("sh")
            .args(["-c", "command -v git"])
            .output()?
            .stdout,
    )?;
    let bin = env.home.with_file_name("spy-bin");
    std::fs::create_dir_all(&bin)?;
    let marker = env.home.with_file_name("spy-marker");
    let script = format!(
        "#!/bin/sh\ncase \" $* \" in *' worktree add '*)\n  for a; do t=\"$p\"; p=\"$a\"; done\n  if grep -rqF -- \"$t\" '{sessions}'; then echo logged >> '{marker}'; else echo unlogged >> '{marker}'; fi;;\nesac\nexec '{real}' \"$@\"\n",
        sessions = env.home.join("sessions").display(),
        marker = marker.display(),
        real = real.trim(),
    );
    let path = bin.join("git");
    std::fs::write(&path, script)?;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))?;
    Ok((bin, marker))
}

#[test]
fn a_childs_log_names_its_worktree_before_the_worktree_is_made() -> TestResult {
    let env = Env::new()?;
    repository(&env.project)?;
    define_fixer(&env)?;
    let (bin, marker) = spying_git(&env)?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("")
            .with_tool(
                "spawn",
                json!({"agent": "fixer", "task": "FIX-TASK nothing"}),
            )
            .matching("fix it apart"),
        Reply::text("Nothing to fix.").matching("FIX-TASK"),
        Reply::text("Done.").matching("Nothing to fix"),
    ]))?;
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = env.command_against("anthropic", &fake, MODEL);
    cmd.args(["-p", "fix it apart", "--permission-mode", "bypass"])
        .env("PATH", path);
    let out = crate::common::run(cmd).ok();
    assert_eq!(out.stdout, "Done.\n", "{out}");
    assert_eq!(std::fs::read_to_string(&marker)?, "logged\n");
    Ok(())
}

#[test]
fn gc_leaves_symlinks_and_other_repositories_worktrees_alone() -> TestResult {
    let env = Env::new()?;
    env.run(&["sessions", "list"]).ok();
    let other = env.home.with_file_name("other");
    repository(&other)?;
    let linked = env.home.with_file_name("linked");
    git(
        &other,
        &[
            "worktree",
            "add",
            "-q",
            "--detach",
            &linked.display().to_string(),
        ],
    )?;
    std::fs::write(linked.join("PRECIOUS.txt"), "keep me\n")?;
    let worktrees = env.home.join("worktrees");
    std::fs::create_dir_all(&worktrees)?;
    std::os::unix::fs::symlink(&linked, worktrees.join("link"))?;
    // A directory that claims another repository's worktree through its .git file.
    let claimed = worktrees.join("claimed");
    std::fs::create_dir_all(&claimed)?;
    std::fs::copy(linked.join(".git"), claimed.join(".git"))?;
    std::fs::write(claimed.join("MINE.txt"), "mine\n")?;
    // What a failed checkout leaves is hotl's to remove.
    let leftover = worktrees.join("leftover");
    std::fs::create_dir_all(&leftover)?;

    let swept = env.run(&["gc"]).ok();
    assert!(swept.stdout.contains("removed worktree"), "{swept}");
    assert!(!leftover.exists(), "{swept}");
    assert!(linked.join("PRECIOUS.txt").exists(), "{swept}");
    assert!(claimed.join("MINE.txt").exists(), "{swept}");
    assert!(worktrees.join("link").exists());
    let listed = git(&other, &["worktree", "list"])?;
    assert_eq!(listed.lines().count(), 2, "{listed}");
    Ok(())
}

#[test]
fn worktrees_are_private_whatever_the_umask() -> TestResult {
    let env = Env::new()?;
    repository(&env.project)?;
    define_fixer(&env)?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("")
            .with_tool(
                "spawn",
                json!({"agent": "fixer", "task": "FIX-TASK add b.txt"}),
            )
            .matching("fix it apart"),
        Reply::text("")
            .with_tool(
                "bash",
                json!({"command": "printf 'bee\\n' > b.txt && echo WROTE-B"}),
            )
            .matching("FIX-TASK"),
        Reply::text("Added b.txt.").matching("WROTE-B"),
        Reply::text("Done."),
    ]))?;
    let mut cmd = env.command_against("anthropic", &fake, MODEL);
    cmd.args(["-p", "fix it apart", "--permission-mode", "bypass"]);
    // umask 000 for hotl alone: sh sets it, then runs it.
    let program = cmd.get_program().to_owned();
    let mut sh = std::process::Command::new("sh");
    sh.arg("-c")
        .arg("umask 000 && exec \"$0\" \"$@\"")
        .arg(program)
        .args(cmd.get_args())
        .current_dir(cmd.get_current_dir().unwrap_or(&env.project));
    for (key, value) in cmd.get_envs() {
        match value {
            Some(value) => sh.env(key, value),
            None => sh.env_remove(key),
        };
    }
    let out = crate::common::run(sh).ok();
    assert_eq!(out.stdout, "Done.\n", "{out}");
    let worktrees = env.home.join("worktrees");
    assert_eq!(mode(&worktrees)?, 0o700);
    let mut patches = 0;
    for entry in std::fs::read_dir(&worktrees)?.flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "patch") {
            assert_eq!(mode(&path)?, 0o600, "{}", path.display());
            patches += 1;
        } else {
            assert_eq!(mode(&path)?, 0o700, "{}", path.display());
        }
    }
    assert_eq!(patches, 1);
    Ok(())
}

/// Kills the hotl process `cmd` runs once `fake` got a request containing `needle`.
fn kill_when(mut cmd: std::process::Command, fake: &FakeLlm, needle: &str) -> TestResult {
    cmd.stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut hotl = cmd.spawn()?;
    let waited = wait_for_request(fake, needle);
    hotl.kill()?;
    hotl.wait()?;
    waited
}

#[test]
fn a_continue_killed_with_its_process_is_answered_with_the_handle() -> TestResult {
    let env = Env::new()?;
    let gate = Gate::new();
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("")
            .with_tool("spawn", json!({"agent": "explore", "task": "LOOK-TASK"}))
            .matching("look first"),
        Reply::text("Looked: three files.").matching("LOOK-TASK"),
        Reply::text("It looked.").matching("three files"),
    ]))?;
    env.agent(&fake, &["-p", "look first"]).ok();
    let listed = env.json(&["sessions", "list", "--json"])?;
    let handle = listed[0]["delegated"][0]["handle"]
        .as_str()
        .ok_or("handle")?
        .to_owned();
    let child_id = listed[0]["delegated"][0]["id"]
        .as_str()
        .ok_or("id")?
        .to_owned();
    fake.push_replies([
        Reply::text("")
            .with_tool(
                "continue",
                json!({"handle": handle, "message": "MORE-TASK look again"}),
            )
            .matching("again please"),
        Reply::text("never")
            .with_fault(Fault::held(&gate))
            .matching("MORE-TASK"),
    ]);
    let mut cmd = env.command_against("anthropic", &fake, MODEL);
    cmd.args(["-c", "-p", "again please"]);
    kill_when(cmd, &fake, "MORE-TASK")?;

    let mut script = Config::scripted([Reply::text("It was cut off."), Reply::text("Noted.")]);
    script.id_seed = 1;
    let next = FakeLlm::start(script)?;
    env.agent(&next, &["-c", "-p", "and now?"]).ok();
    let first = requests(&next)?.first().ok_or("no request")?.to_string();
    assert!(
        first.contains(&format!("continue {handle} takes it on")),
        "{first}"
    );
    let id = env.only_session()?;
    let log = std::fs::read_to_string(
        env.home
            .join("sessions")
            .join(&id)
            .join(format!("{child_id}.jsonl")),
    )?;
    let last_run = log
        .lines()
        .rfind(|l| l.contains("\"type\":\"run\""))
        .ok_or("no run")?;
    assert!(last_run.contains("\"interrupted\""), "{log}");
    assert_eq!(env.run(&["sessions", "check"]).code, 0);
    drop(gate);
    Ok(())
}

#[test]
fn a_child_that_delegated_in_turn_is_closed_with_its_own_child() -> TestResult {
    let env = Env::new()?;
    let agents = env.project.join(".hotl/agents");
    std::fs::create_dir_all(&agents)?;
    std::fs::write(
        agents.join("lead.md"),
        "---\nname: lead\ndescription: Leads a search.\ntools: [read, spawn]\n---\nYou lead.\n",
    )?;
    let gate = Gate::new();
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("")
            .with_tool("spawn", json!({"agent": "lead", "task": "LEAD-TASK"}))
            .matching("lead it"),
        Reply::text("")
            .with_tool("spawn", json!({"agent": "explore", "task": "DEEP-TASK"}))
            .matching("LEAD-TASK"),
        Reply::text("never")
            .with_fault(Fault::held(&gate))
            .matching("DEEP-TASK"),
    ]))?;
    let mut cmd = env.command_against("anthropic", &fake, MODEL);
    cmd.args(["-p", "lead it"]);
    kill_when(cmd, &fake, "DEEP-TASK")?;
    let checked = env.run(&["sessions", "check"]);
    assert_ne!(checked.code, 0, "{checked}");

    let mut script = Config::scripted([Reply::text("Cut off."), Reply::text("Noted.")]);
    script.id_seed = 1;
    let next = FakeLlm::start(script)?;
    env.agent(&next, &["-c", "-p", "and now?"]).ok();
    let id = env.only_session()?;
    let dir = env.home.join("sessions").join(&id);
    let mut children = 0;
    for entry in std::fs::read_dir(&dir)? {
        let path = entry?.path();
        if path.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        children += 1;
        let log = std::fs::read_to_string(&path)?;
        let last_run = log
            .lines()
            .rfind(|l| l.contains("\"type\":\"run\""))
            .ok_or("no run")?;
        assert!(!last_run.contains("\"started\""), "left open: {log}");
    }
    assert_eq!(children, 2, "the lead and its explorer");
    let checked = env.run(&["sessions", "check"]);
    assert_eq!(checked.code, 0, "{checked}");
    drop(gate);
    Ok(())
}
