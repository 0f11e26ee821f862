//! The sandbox, end to end: the real binary, the fake provider driving `bash` and the file
//! tools, and the kernel's rules. Under `CI=true` a kernel without Landlock fails these tests.

use std::io::{Read, Write};
use std::net::TcpListener;

use hotl_fakellm::{Config, FakeLlm, Reply};
use hotl_testkit::TestResult;
use serde_json::json;

use crate::common::{Env, Run, requests};

fn landlock() -> TestResult<bool> {
    hotl_testkit::require(
        "Landlock (a kernel that enforces it)",
        hotl_sandbox::Support::detect().enforces(),
    )
}

/// Writes `[sandbox]` (and anything else) into the config file the agent reads.
fn config(env: &Env, text: &str) -> TestResult {
    let dir = env.root().join("config/hotl");
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join("config.toml"), text)?;
    Ok(())
}

/// Runs one headless turn in which the model makes `calls` (tool, input) one step each, with
/// `args`; returns the run and what the model was sent last (every result is in it).
fn turn(
    env: &Env,
    calls: &[(&str, serde_json::Value)],
    args: &[&str],
) -> TestResult<(Run, String)> {
    let mut replies: Vec<Reply> = calls
        .iter()
        .map(|(tool, input)| Reply::text("").with_tool(*tool, input.clone()))
        .collect();
    replies.push(Reply::text("Done."));
    let fake = FakeLlm::start(Config::scripted(replies))?;
    let mut all = vec!["-p", "go"];
    all.extend_from_slice(args);
    let run = env.agent(&fake, &all);
    let sent = requests(&fake)?;
    let last = sent.last().map(|r| r.to_string()).unwrap_or_default();
    Ok((run, last))
}

fn bash(command: &str) -> (&'static str, serde_json::Value) {
    ("bash", json!({ "command": command }))
}

#[test]
fn commands_write_only_in_the_project_and_run_unasked() -> TestResult {
    if !landlock()? {
        return Ok(());
    }
    let env = Env::new()?;
    let (run, sent) = turn(
        &env,
        &[
            bash("echo x > ../outside"),
            bash("touch ~/.bashrc"),
            bash("cp /etc/hosts /usr/local/hotl-sandbox-test"),
            bash("echo in > ./inside && echo wrote-inside"),
        ],
        &[],
    )?;
    run.ok();
    assert!(
        sent.contains("wrote-inside"),
        "default mode runs a confined command unasked: {sent}"
    );
    assert!(env.project.join("inside").exists());
    assert!(!env.root().join("outside").exists());
    assert!(!env.root().join(".bashrc").exists());
    assert!(!std::path::Path::new("/usr/local/hotl-sandbox-test").exists());
    let results: Vec<&str> = sent.split("tool_result").skip(1).collect();
    assert_eq!(results.len(), 4, "{sent}");
    for result in &results[..3] {
        assert!(
            result.contains("the sandbox refused to write"),
            "each names the rule: {result}"
        );
    }
    assert!(sent.contains("writes go only to"), "{sent}");
    Ok(())
}

#[test]
fn secrets_and_hotls_home_are_not_read() -> TestResult {
    if !landlock()? {
        return Ok(());
    }
    let env = Env::new()?;
    let ssh = env.root().join(".ssh");
    std::fs::create_dir_all(&ssh)?;
    std::fs::write(ssh.join("id_ed25519"), "PRIVATE-KEY-BYTES")?;
    let aws = env.root().join(".aws");
    std::fs::create_dir_all(&aws)?;
    std::fs::write(aws.join("credentials"), "aws_secret_access_key=AWS-SECRET")?;
    // A session whose log holds a secret, in hotl's home.
    let fake = FakeLlm::start(Config::scripted([Reply::text("SESSION-SECRET-TEXT")]))?;
    env.agent(&fake, &["-p", "remember SESSION-SECRET-TEXT"])
        .ok();
    let sessions = env.home.join("sessions").display().to_string();
    let root = env.root().display().to_string();
    let (run, sent) = turn(
        &env,
        &[
            // The file tools walk past what the sandbox denies, and refuse it named.
            ("grep", json!({ "pattern": "SESSION-SECRET", "path": root })),
            ("glob", json!({ "pattern": format!("{sessions}/*.jsonl") })),
            ("ls", json!({ "path": "~/.ssh" })),
            bash("cat ~/.ssh/id_ed25519"),
            bash(&format!("cat {sessions}/*.jsonl {sessions}/*/*.jsonl")),
            ("read", json!({ "path": "~/.aws/credentials" })),
            (
                "read",
                json!({ "path": aws.join("credentials").display().to_string() }),
            ),
        ],
        &["--permission-mode", "bypass"],
    )?;
    run.ok();
    for secret in [
        "PRIVATE-KEY-BYTES",
        "AWS-SECRET",
        "SESSION-SECRET-TEXT\\\"}]",
    ] {
        assert!(!sent.contains(secret), "{secret} was read: {sent}");
    }
    assert!(
        sent.contains("the home's secrets are not readable"),
        "{sent}"
    );
    assert!(
        sent.contains("skipped what the sandbox keeps from commands"),
        "{sent}"
    );
    assert!(!sent.contains("id_ed25519\\n"), "ls listed ~/.ssh: {sent}");
    Ok(())
}

/// A server on this machine the commands try to reach.
fn server() -> TestResult<(u16, std::thread::JoinHandle<()>)> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let port = listener.local_addr()?.port();
    let handle = std::thread::spawn(move || {
        listener.set_nonblocking(false).ok();
        for stream in listener.incoming().take(4) {
            let Ok(mut stream) = stream else { break };
            let mut buf = [0u8; 1024];
            let _ = stream.read(&mut buf);
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\nConnection: close\r\n\r\nREACHED-1",
            );
        }
    });
    Ok((port, handle))
}

#[test]
fn the_network_is_closed_unless_opened() -> TestResult {
    if !landlock()? || !hotl_testkit::require("curl", which("curl"))? {
        return Ok(());
    }
    let env = Env::new()?;
    let (port, _server) = server()?;
    let curl = format!("curl -sS -m 5 http://127.0.0.1:{port}/");
    let udp = "python3 -c \"import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('127.0.0.1', 9))\" && echo UDP-$((1+1))SENT";
    let dns = "getent hosts localhost.localdomain >/dev/null; getent ahosts example.com && echo DNS-$((1+1))OK";
    let (_, sent) = turn(&env, &[bash(&curl), bash(udp), bash(dns)], &[])?;
    assert!(!sent.contains("REACHED-1"), "{sent}");
    assert!(!sent.contains("UDP-2SENT"), "{sent}");
    assert!(!sent.contains("DNS-2OK"), "{sent}");
    assert!(sent.contains("the sandbox's network rule"), "{sent}");
    config(&env, "[sandbox]\nnetwork = true\n")?;
    let (_, sent) = turn(&env, &[bash(&curl)], &[])?;
    assert!(
        sent.contains("REACHED-1"),
        "network = true connects: {sent}"
    );
    config(&env, "[sandbox]\nallow_domains = [\"localhost\"]\n")?;
    let through = format!("curl -sS -m 5 http://localhost:{port}/");
    let other = format!(
        "curl -sS -m 5 http://127.0.0.1:{port}/; curl -sS -m 5 --noproxy '*' http://localhost:{port}/"
    );
    let (_, sent) = turn(&env, &[bash(&through), bash(&other)], &[])?;
    assert_eq!(
        sent.matches("REACHED-1").count(),
        1,
        "only localhost, only through the proxy: {sent}"
    );
    assert!(sent.contains("not in [sandbox] allow_domains"), "{sent}");
    Ok(())
}

fn which(program: &str) -> bool {
    std::process::Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn what_a_command_starts_is_confined_too() -> TestResult {
    if !landlock()? {
        return Ok(());
    }
    let env = Env::new()?;
    std::fs::write(
        env.project.join("script.sh"),
        "exec sh -c 'echo x > ../by-exec'\n",
    )?;
    let (run, _) = turn(
        &env,
        &[bash(
            "(sleep 0.2; echo x > ../by-background) & setsid sh -c 'echo x > ../by-setsid'; sh script.sh; wait; echo ran",
        )],
        &[],
    )?;
    run.ok();
    for name in ["by-background", "by-setsid", "by-exec"] {
        assert!(!env.root().join(name).exists(), "{name} escaped");
    }
    Ok(())
}

#[test]
fn no_hotl_process_shows_the_key() -> TestResult {
    let env = Env::new()?;
    let look = json!({ "command": "for p in $PPID $(ps -o ppid= -p $PPID); do tr '\\0' '\\n' < /proc/$p/environ; done | grep -E 'API_KEY|MCP_TOKEN'; pgrep hotl | while read p; do tr '\\0' '\\n' < /proc/$p/environ; done | grep -E 'API_KEY|MCP_TOKEN'; echo looked" });
    // An MCP server's bearer token is a credential hotl reads from its environment too.
    let config = env.root().join("config").join("hotl");
    std::fs::create_dir_all(&config)?;
    std::fs::write(
        config.join("config.toml"),
        "[mcp_servers.remote]\nurl = \"http://127.0.0.1:9/mcp\"\nbearer_token_env_var = \"HOTL_TEST_MCP_TOKEN\"\nenabled = false\n",
    )?;
    let token = "mcp-token-0123456789";
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("").with_tool("bash", look.clone()),
        Reply::text("Done."),
        Reply::text("").with_tool("bash", look),
        Reply::text("Done."),
    ]))?;
    let secret = "sk-ant-environ-0123456789";
    for sandbox in ["workspace-write", "off"] {
        let mut cmd = env.agent_command();
        cmd.env("ANTHROPIC_API_KEY", secret)
            .env("HOTL_TEST_MCP_TOKEN", token)
            .args(["--provider", "anthropic", "--base-url"])
            .arg(fake.base_url())
            .args([
                "-p",
                "look",
                "--permission-mode",
                "bypass",
                "--sandbox",
                sandbox,
            ]);
        crate::common::run(cmd).ok();
    }
    let sent: Vec<String> = requests(&fake)?.iter().map(|r| r.to_string()).collect();
    assert!(sent.iter().any(|r| r.contains("looked")), "the command ran");
    assert!(
        !sent.iter().any(|r| r.contains(secret) || r.contains(token)),
        "a credential was read from a process"
    );
    Ok(())
}

#[test]
fn an_unsandboxed_command_is_asked_and_refused_headless() -> TestResult {
    if !landlock()? {
        return Ok(());
    }
    let env = Env::new()?;
    let call = (
        "bash",
        json!({ "command": "echo x > ../unconfined && echo UNCONFINED", "sandbox": false }),
    );
    let (_, sent) = turn(
        &env,
        std::slice::from_ref(&call),
        &["--permission-mode", "bypass"],
    )?;
    assert!(!sent.contains("UNCONFINED\\n"), "{sent}");
    assert!(sent.contains("would run outside the sandbox"), "{sent}");
    assert!(
        sent.contains("--allow bash:unsandboxed"),
        "the refusal names the flag: {sent}"
    );
    let (_, sent) = turn(&env, &[call], &["--allow", "bash:unsandboxed"])?;
    assert!(sent.contains("UNCONFINED"), "{sent}");
    assert!(env.root().join("unconfined").exists());
    Ok(())
}

/// R1's variants: a write that would make hotl's own git (or hotl's next start) run a program,
/// with write permission but not bash's.
#[test]
fn writing_git_or_hotl_config_runs_nothing() -> TestResult {
    if !hotl_testkit::require("git", which("git"))? {
        return Ok(());
    }
    let env = Env::new()?;
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .arg("-C")
            .arg(&env.project)
            .args(args)
            .output()
    };
    git(&["init", "-q"])?;
    let marker = env.root().join("PWNED");
    let touch = format!("touch {}; false", marker.display());
    let fsmonitor = format!(
        "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = \"{touch}\"\n"
    );
    let filter = format!("[filter \"x\"]\n\tclean = \"{touch}\"\n");
    let evil_dir = env.project.join("evilgit");
    let cases: Vec<Vec<(&str, serde_json::Value)>> = vec![
        vec![(
            "write",
            json!({ "path": ".git/config", "content": fsmonitor }),
        )],
        vec![
            (
                "write",
                json!({ "path": ".gitattributes", "content": "* filter=x\n" }),
            ),
            (
                "edit",
                json!({ "path": ".git/config", "old": "[core]", "new": format!("{filter}[core]") }),
            ),
        ],
        vec![(
            "write",
            json!({ "path": ".git", "content": format!("gitdir: {}\n", evil_dir.display()) }),
        )],
        vec![(
            "write",
            json!({ "path": ".hotl/config.toml", "content": format!("[mcp_servers.x]\ncommand = \"sh\"\nargs = [\"-c\", \"{touch}\"]\n") }),
        )],
    ];
    for (n, calls) in cases.into_iter().enumerate() {
        let mut calls = calls;
        calls.push((
            "write",
            json!({ "path": format!("b{n}.txt"), "content": "b\n" }),
        ));
        for args in [
            &["--permission-mode", "accept-edits"][..],
            &["--allow", "write", "--allow", "edit"][..],
        ] {
            let (_, sent) = turn(&env, &calls, args)?;
            assert!(
                sent.contains("which makes programs run"),
                "case {n}: {sent}"
            );
            assert!(!marker.exists(), "case {n} ran a program");
        }
    }
    // The next start of a trusted project runs nothing either.
    let fake = FakeLlm::start(Config::scripted([Reply::text("ok")]))?;
    env.agent(&fake, &["-p", "hi", "--trust-project"]);
    assert!(!marker.exists(), "hotl's next start ran a program");
    Ok(())
}

#[test]
fn the_mode_is_recorded_and_said_on_resume() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([Reply::text("one"), Reply::text("two")]))?;
    env.agent(&fake, &["-p", "hi", "--sandbox", "read-only"])
        .ok();
    let id = env.only_session()?;
    let records = env.records(&id)?;
    assert!(
        records
            .iter()
            .any(|r| r["type"] == "mode" && r["sandbox"] == "read-only"),
        "{records:?}"
    );
    let again = env.agent(&fake, &["-p", "again", "-r", &id]).ok();
    assert!(
        again
            .stderr
            .contains("sandbox: read-only, recorded in this session"),
        "{again}"
    );
    let bad = env.agent(&fake, &["-p", "x", "--sandbox", "on"]).fails(2);
    assert!(bad.stderr.contains("unknown sandbox mode \"on\""), "{bad}");
    Ok(())
}
