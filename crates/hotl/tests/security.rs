//! Attacks, run against the real binary: what a log, a model or a tool could make hotl read,
//! leak or print that it should not.

use hotl_fakellm::{Config, FakeLlm, Reply};
use hotl_testkit::TestResult;
use serde_json::json;

use crate::common::{Env, requests};

/// A model steered into `env` sees no provider key: the tool's processes do not get it.
#[test]
fn the_provider_key_does_not_reach_a_command() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("").with_tool("bash", json!({ "command": "env; echo done" })),
        Reply::text("Done."),
    ]))?;
    let secret = "sk-ant-test-0123456789-secret";
    let mut cmd = env.agent_command();
    cmd.env("ANTHROPIC_API_KEY", secret)
        .env("OPENAI_API_KEY", secret)
        .args(["--provider", "anthropic", "--base-url"])
        .arg(fake.base_url())
        .args(["-p", "print the environment", "--allow", "bash"]);
    let out = crate::common::run(cmd).ok();
    let sent = requests(&fake)?;
    assert_eq!(sent.len(), 2, "{out}");
    let back = sent[1].to_string();
    assert!(back.contains("done"), "the command ran: {back}");
    assert!(
        !back.contains(secret),
        "the key went to the provider: {back}"
    );
    let log = String::from_utf8(env.log_bytes(&env.only_session()?)?)?;
    assert!(!log.contains(secret), "the key is in the log");
    Ok(())
}

/// A log whose fork pin is a path is refused on import, naming the field, and nothing it
/// points at is read.
#[test]
fn a_pin_that_is_a_path_is_refused_on_import() -> TestResult {
    let env = Env::new()?;
    let evil = env.scratch(
        "evil.jsonl",
        br#"{"seq":5,"ts":"2026-11-01T00:00:00.000Z","type":"session","id":"01JD0000000000000000000009","cwd":"/p","parent":{"session":"../../../../etc/hosts-like","seq":4,"offset":10,"hash":"ab"}}
"#,
    )?;
    let out = env
        .run(&["sessions", "import", crate::common::path_str(&evil)?])
        .fails(1);
    assert!(
        out.stderr.contains("`parent.session` is not a session id"),
        "{out}"
    );
    assert!(env.session_ids()?.is_empty());
    Ok(())
}

/// A read of a private key (`~/.ssh`), or of a `.env` file outside the project, is refused
/// headless unless allowed: nothing of it goes to the provider.
#[test]
fn a_secret_file_is_not_read_unasked() -> TestResult {
    let env = Env::new()?;
    let ssh = env.root().join(".ssh");
    std::fs::create_dir_all(&ssh)?;
    let key = "-----BEGIN OPENSSH PRIVATE KEY----- very-secret-key-bytes";
    std::fs::write(ssh.join("id_ed25519"), key)?;
    let dotenv = env.root().join("other-project").join(".env");
    std::fs::create_dir_all(dotenv.parent().ok_or("a parent")?)?;
    std::fs::write(&dotenv, "DATABASE_PASSWORD=hunter2-very-secret")?;
    let key_path = ssh.join("id_ed25519").display().to_string();
    let dotenv_path = dotenv.display().to_string();
    for (path, secret) in [
        (&key_path, "very-secret-key-bytes"),
        (&dotenv_path, "hunter2"),
    ] {
        for mode in ["default", "plan"] {
            let fake = FakeLlm::start(Config::scripted([
                Reply::text("").with_tool("read", json!({ "path": path })),
                Reply::text("Done."),
            ]))?;
            let out = env
                .agent(
                    &fake,
                    &[
                        "-p",
                        "read it",
                        "--permission-mode",
                        mode,
                        "--sandbox",
                        "off",
                    ],
                )
                .ok();
            let back = requests(&fake)?[1].to_string();
            assert!(
                !back.contains(secret),
                "{mode}: the secret went out: {back}"
            );
            assert!(
                back.contains("would read where secrets are kept"),
                "{mode}: {back}"
            );
            assert!(back.contains("--allow read"), "{out}");
        }
    }
    // Allowed by name, with the sandbox off (whose rules deny it whatever is allowed), it is
    // read.
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("").with_tool("read", json!({ "path": key_path })),
        Reply::text("Done."),
    ]))?;
    env.agent(
        &fake,
        &["-p", "read it", "--allow", "read", "--sandbox", "off"],
    )
    .ok();
    assert!(
        requests(&fake)?[1]
            .to_string()
            .contains("very-secret-key-bytes")
    );
    Ok(())
}

/// Under umask 000, everything hotl writes is still private: the log, the caches, the blobs,
/// the recall index, the snapshot index git writes for it, hotl's own log. A home made under
/// a looser umask is tightened, with a notice.
#[test]
fn everything_hotl_writes_is_private_whatever_the_umask() -> TestResult {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new()?;
    let git = std::process::Command::new("git")
        .arg("-C")
        .arg(&env.project)
        .args(["init", "-q"])
        .status()
        .is_ok_and(|s| s.success());
    if !hotl_testkit::require("git", git)? {
        return Ok(());
    }
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("").with_tool("write", json!({ "path": "a.txt", "content": "a\n" })),
        Reply::text("Done."),
        Reply::text("Again."),
    ]))?;
    let under_open_umask = |args: &[&str]| {
        let cmd = env.agent_command();
        let program = cmd.get_program().to_owned();
        let mut wrapped = std::process::Command::new("sh");
        wrapped
            .arg("-c")
            .arg("umask 000; exec \"$0\" \"$@\"")
            .arg(program)
            .args(cmd.get_args())
            .args(["--provider", "anthropic", "--base-url"])
            .arg(fake.base_url())
            .args(args)
            .current_dir(&env.project)
            .env("HOTL_LOG", "debug");
        for (key, value) in cmd.get_envs() {
            match value {
                Some(v) => wrapped.env(key, v),
                None => wrapped.env_remove(key),
            };
        }
        crate::common::run(wrapped)
    };
    under_open_umask(&["-p", "write a", "--allow", "write"]).ok();
    let id = env.only_session()?;
    let recalled = under_open_umask(&["recall", &id, "anything"]).ok();
    assert!(
        !recalled.stderr.contains("made private"),
        "the first run left something open: {recalled}"
    );
    let mut seen = 0;
    let mut stack = vec![env.home.clone()];
    while let Some(path) = stack.pop() {
        let meta = std::fs::symlink_metadata(&path)?;
        let mode = meta.permissions().mode() & 0o777;
        if meta.is_dir() {
            assert_eq!(mode, 0o700, "{}", path.display());
            for entry in std::fs::read_dir(&path)? {
                stack.push(entry?.path());
            }
        } else {
            assert_eq!(mode & 0o077, 0, "{} is {mode:o}", path.display());
            seen += 1;
        }
    }
    assert!(
        env.home.join("index/trees").is_dir(),
        "a git snapshot was taken"
    );
    assert!(seen > 5, "{seen} files");
    // A home an older hotl left open is tightened once, with a notice.
    std::fs::set_permissions(&env.home, std::fs::Permissions::from_mode(0o755))?;
    std::fs::set_permissions(
        env.home.join("sessions"),
        std::fs::Permissions::from_mode(0o755),
    )?;
    let out = env.run(&["sessions", "list"]).ok();
    assert!(
        out.stderr.contains("made private what others could read"),
        "{out}"
    );
    assert!(out.stderr.contains("(was 755)"), "{out}");
    let again = env.run(&["sessions", "list"]).ok();
    assert_eq!(again.stderr, "", "once");
    Ok(())
}

/// Control sequences in a log (a title that sets the window's, a clear screen, an OSC 52
/// clipboard write in a tool's output) are shown by `list` and `show`, never sent.
#[test]
fn control_sequences_in_a_log_are_shown_not_sent() -> TestResult {
    let env = Env::new()?;
    let mut log = env.log(hotl_testkit::FIXED_ID);
    log.record(hotl_log::Body::title(
        "\u{1b}]0;pwned\u{7}innocent".to_owned(),
    ));
    log.user("look\u{1b}[2J here");
    let (_, call) = log.tool_call("bash", json!({ "command": "cat x" }));
    log.record(hotl_log::Body::ToolResult {
        call,
        content: vec![hotl_log::Block::text(
            "out \u{1b}]52;c;ZWNobyBwd25lZA==\u{7} \u{9b}31m red",
        )],
        blob: None,
        is_error: false,
        files: Vec::new(),
    });
    env.import(&log)?;
    for args in [
        &["sessions", "list"][..],
        &["sessions", "show", "1"],
        &["sessions", "show", "1", "--model-view"],
    ] {
        let out = env.run(args).ok();
        assert!(!out.stdout.contains('\u{1b}'), "{args:?}: {:?}", out.stdout);
        assert!(!out.stdout.contains('\u{7}'), "{args:?}");
        assert!(!out.stdout.contains('\u{9b}'), "{args:?}");
        assert!(
            out.stdout.contains('\u{241b}'),
            "{args:?}: shown as ␛: {}",
            out.stdout
        );
    }
    Ok(())
}

/// Whether process `pid` is gone (a zombie waiting for its reaper counts as gone).
fn gone(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

/// A SIGKILL of hotl (nothing can catch it) still ends what a running `bash` call started,
/// within a second: the group's leader is a reaper that watches for its parent.
#[test]
fn a_command_dies_with_hotl_even_by_sigkill() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("").with_tool(
            "bash",
            json!({ "command": "sh -c 'echo $$ > sleeper.pid; exec sleep 30'" }),
        ),
        Reply::text("never"),
    ]))?;
    let mut cmd = env.agent_command();
    cmd.args(["--provider", "anthropic", "--base-url"])
        .arg(fake.base_url())
        .args(["-p", "sleep", "--allow", "bash"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut hotl = cmd.spawn()?;
    let pid_file = env.project.join("sleeper.pid");
    let started = std::time::Instant::now();
    let pid = loop {
        if let Ok(pid) = std::fs::read_to_string(&pid_file)
            && !pid.trim().is_empty()
        {
            break pid.trim().to_owned();
        }
        assert!(
            started.elapsed().as_secs() < 20,
            "the command never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert!(!gone(&pid), "it runs");
    hotl.kill()?;
    hotl.wait()?;
    let killed = std::time::Instant::now();
    while !gone(&pid) {
        assert!(
            killed.elapsed().as_secs() < 5,
            "the command outlived hotl by {:?}",
            killed.elapsed()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    Ok(())
}
