//! MCP servers from the config, end to end: the fixture server's tools reach the model under
//! `mcp__fixture__…`, its instructions join a new session's prompt, calls ask as commands do
//! (headless refuses without `--allow`, plan mode always), and a resumed session's tool block
//! is byte for byte the one it started with.

use hotl_fakellm::{Config, FakeLlm, Reply};
use hotl_testkit::TestResult;
use serde_json::{Value, json};

use crate::common::{Env, requests};

/// The fixture MCP server, built beside `hotl` (`.ci/run` builds it before the tests: a test
/// run builds only test harnesses).
pub(crate) fn fixture() -> TestResult<String> {
    let hotl = std::path::Path::new(env!("CARGO_BIN_EXE_hotl"));
    let path = hotl.with_file_name("hotl-mcp-fixture");
    if !path.exists() {
        return Err(format!(
            "{} is missing: cargo build -p hotl-mcp-fixture",
            path.display()
        )
        .into());
    }
    Ok(path.display().to_string())
}

fn configure(env: &Env, extra: &str) -> TestResult {
    let dir = env.root().join("config").join("hotl");
    std::fs::create_dir_all(&dir)?;
    std::fs::write(
        dir.join("config.toml"),
        format!(
            "[mcp_servers.fixture]\ncommand = {:?}\nargs = [\"stdio\"]\n{extra}",
            fixture()?
        ),
    )?;
    Ok(())
}

fn tools_of(request: &Value) -> String {
    request["tools"].to_string()
}

fn result_text(env: &Env, id: &str) -> TestResult<Vec<(String, bool)>> {
    Ok(env
        .records(id)?
        .into_iter()
        .filter(|r| r["type"] == "tool_result")
        .map(|r| {
            (
                r["content"][0]["text"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                r["is_error"] == true,
            )
        })
        .collect())
}

#[test]
fn an_mcp_tool_reaches_the_model_asks_first_and_survives_a_resume_unchanged() -> TestResult {
    let env = Env::new()?;
    configure(&env, "")?;
    let echo = || Reply::default().with_tool("mcp__fixture__echo-text", json!({"text": "hi"}));
    let fake = FakeLlm::start(Config::scripted([
        echo(),
        Reply::text("Refused."),
        echo(),
        // The server says its tools changed: the session's stay as they were.
        Reply::default().with_tool("mcp__fixture__touch-tools", json!({})),
        Reply::text("Echoed."),
    ]))?;
    // Headless without --allow: refused, as a command would be.
    let out = env.agent(&fake, &["-p", "echo hi"]).ok();
    assert_eq!(out.stdout, "Refused.\n", "{out}");
    let id = env.only_session()?;
    let results = result_text(&env, &id)?;
    assert!(
        results[0].1 && results[0].0.contains("--allow"),
        "{results:?}"
    );

    let out = env
        .agent(
            &fake,
            &["-r", &id, "-p", "again", "--allow", "mcp__fixture__*"],
        )
        .ok();
    assert_eq!(out.stdout, "Echoed.\n", "{out}");
    let results = result_text(&env, &id)?;
    assert_eq!(results[1], ("echo: hi".to_owned(), false), "{results:?}");

    let sent = requests(&fake)?;
    assert!(tools_of(&sent[0]).contains("\"name\":\"mcp__fixture__echo-text\""));
    assert!(tools_of(&sent[0]).contains("[MCP server fixture]"));
    assert!(
        sent[0]["system"]
            .to_string()
            .contains("Instructions from the MCP server fixture"),
        "the server's instructions join the frozen prompt"
    );
    // The resumed run's tool block is the one the session froze, also after the server said
    // its list changed.
    assert_eq!(tools_of(&sent[0]), tools_of(&sent[2]));
    assert_eq!(tools_of(&sent[0]), tools_of(&sent[4]));
    assert!(results[2] == ("notified".to_owned(), false), "{results:?}");
    Ok(())
}

#[test]
fn plan_mode_refuses_mcp_tools_and_a_required_server_that_fails_stops_the_start() -> TestResult {
    let env = Env::new()?;
    configure(&env, "approval = \"allow\"\n")?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::default().with_tool("mcp__fixture__echo-text", json!({"text": "hi"})),
        Reply::text("Planned."),
        Reply::default().with_tool("mcp__fixture__echo-text", json!({"text": "yes"})),
        Reply::text("Allowed."),
    ]))?;
    env.agent(&fake, &["-p", "plan it", "--permission-mode", "plan"])
        .ok();
    let id = env.only_session()?;
    let results = result_text(&env, &id)?;
    assert!(
        results[0].1 && results[0].0.contains("plan mode"),
        "{results:?}"
    );
    // approval = "allow": runs without --allow.
    let out = env.agent(&fake, &["-r", &id, "-p", "now do it"]).ok();
    assert_eq!(out.stdout, "Allowed.\n", "{out}");

    let dir = env.root().join("config").join("hotl");
    std::fs::write(
        dir.join("config.toml"),
        "[mcp_servers.gone]\ncommand = \"/nonexistent/server\"\nrequired = true\n",
    )?;
    let out = env.agent(&fake, &["-p", "hi"]);
    assert_eq!(out.code, 1, "{out}");
    assert!(
        out.stderr
            .contains("the MCP server gone is required and did not start"),
        "{out}"
    );
    std::fs::write(
        dir.join("config.toml"),
        "[mcp_servers.gone]\ncommand = \"/nonexistent/server\"\n",
    )?;
    let fake = FakeLlm::start(Config::scripted([Reply::text("Fine.")]))?;
    let out = env.agent(&fake, &["-p", "hi"]).ok();
    assert!(
        out.stderr
            .contains("warning: the MCP server gone did not start"),
        "{out}"
    );
    Ok(())
}

#[test]
fn mcp_add_list_check_and_remove_edit_the_config_keeping_its_comments() -> TestResult {
    let env = Env::new()?;
    let dir = env.root().join("config").join("hotl");
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("config.toml");
    std::fs::write(&path, "# mine\n[provider]\nmodel = \"m\"  # keep this\n")?;
    let run = |args: &[&str]| {
        let mut cmd = env.agent_command();
        cmd.args(args);
        crate::common::run(cmd)
    };
    let fixture = fixture()?;
    run(&["mcp", "add", "fixture", "--", &fixture, "stdio"]).ok();
    run(&["mcp", "add", "broken", "--", "/nonexistent/server"]).ok();
    let dup = run(&["mcp", "add", "broken", "--", "x"]).fails(1);
    assert!(dup.stderr.contains("already configured"), "{dup}");
    let text = std::fs::read_to_string(&path)?;
    assert!(
        text.starts_with("# mine\n") && text.contains("# keep this"),
        "{text}"
    );

    let list = run(&["mcp", "list"]).ok();
    assert!(list.stdout.contains("fixture  running"), "{list}");
    assert!(
        list.stdout
            .contains("  mcp__fixture__echo-text  (echo-text)"),
        "{list}"
    );
    assert!(list.stdout.contains("broken  failed"), "{list}");
    let check = run(&["mcp", "check"]).fails(1);
    assert!(check.stderr.contains("did not start: broken"), "{check}");
    run(&["mcp", "check", "fixture"]).ok();

    run(&["mcp", "remove", "broken"]).ok();
    run(&["mcp", "check"]).ok();
    let gone = run(&["mcp", "remove", "broken"]).fails(1);
    assert!(gone.stderr.contains("no MCP server named broken"), "{gone}");
    let text = std::fs::read_to_string(&path)?;
    assert!(
        text.contains("# keep this") && !text.contains("broken"),
        "{text}"
    );
    Ok(())
}

/// A project's own `.hotl/config.toml` may declare MCP servers; they start only once the
/// project is trusted (`--trust-project` headless, remembered after).
#[test]
fn a_project_s_servers_start_only_once_it_is_trusted() -> TestResult {
    let env = Env::new()?;
    let dir = env.project.join(".hotl");
    std::fs::create_dir_all(&dir)?;
    std::fs::write(
        dir.join("config.toml"),
        format!(
            "[mcp_servers.proj]\ncommand = {:?}\nargs = [\"stdio\"]\n",
            fixture()?
        ),
    )?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("one"),
        Reply::text("two"),
        Reply::text("three"),
    ]))?;
    let untrusted = env.agent(&fake, &["-p", "hi"]).ok();
    assert!(
        untrusted.stderr.contains("pass --trust-project"),
        "{untrusted}"
    );
    env.agent(&fake, &["-p", "hi", "--trust-project"]).ok();
    env.agent(&fake, &["-p", "hi"]).ok();
    let sent = requests(&fake)?;
    assert!(
        !tools_of(&sent[0]).contains("mcp__proj__"),
        "not before trust"
    );
    assert!(tools_of(&sent[1]).contains("mcp__proj__echo-text"));
    assert!(
        tools_of(&sent[2]).contains("mcp__proj__echo-text"),
        "remembered"
    );

    std::fs::write(dir.join("config.toml"), "[provider]\nmodel = \"evil\"\n")?;
    let refused = env.agent(&fake, &["-p", "hi"]).fails(1);
    assert!(
        refused.stderr.contains(".hotl/config.toml") && refused.stderr.contains("provider"),
        "{refused}"
    );
    Ok(())
}

/// A fork inherits its parent's MCP tools: its requests carry the parent's tool block, and
/// its calls reach the server the parent started.
#[test]
fn a_fork_inherits_the_parent_s_mcp_tools() -> TestResult {
    let env = Env::new()?;
    configure(&env, "approval = \"allow\"\n")?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("").with_tool("fork", json!({ "task": "echo through the server" })),
        Reply::default().with_tool("mcp__fixture__echo-text", json!({"text": "from the fork"})),
        Reply::text("The fork echoed."),
        Reply::text("Done."),
    ]))?;
    let out = env.agent(&fake, &["-p", "fork and echo"]).ok();
    assert_eq!(out.stdout, "Done.\n", "{out}");
    let sent = requests(&fake)?;
    assert_eq!(sent.len(), 4);
    assert_eq!(
        tools_of(&sent[0]),
        tools_of(&sent[1]),
        "the fork's tool block"
    );
    assert!(
        sent[2]["messages"]
            .to_string()
            .contains("echo: from the fork"),
        "{}",
        sent[2]["messages"]
    );
    assert!(sent[3]["messages"].to_string().contains("The fork echoed."));
    Ok(())
}

/// Configures the misbehaving Python server (`tests/data/evil_mcp.py`) in `mode`, writing
/// its pids to `<root>/pids`; `false` when there is no python3 (and CI is not set).
fn configure_evil(env: &Env, mode: &str, extra: &str) -> TestResult<bool> {
    let python = std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !hotl_testkit::require("python3", python)? {
        return Ok(false);
    }
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/evil_mcp.py");
    let dir = env.root().join("config").join("hotl");
    std::fs::create_dir_all(&dir)?;
    std::fs::write(
        dir.join("config.toml"),
        format!(
            "[mcp_servers.evil]\ncommand = \"python3\"\nargs = [{:?}, {:?}, {mode:?}]\n{extra}",
            script.display().to_string(),
            env.root().join("pids").display().to_string(),
        ),
    )?;
    Ok(true)
}

/// Waits until every pid the evil server wrote is gone (or a zombie), within 10 s.
fn all_gone(env: &Env) -> TestResult {
    let pids = std::fs::read_to_string(env.root().join("pids"))?;
    assert!(!pids.trim().is_empty(), "the server never started");
    for pid in pids.lines() {
        let proc = std::path::Path::new("/proc").join(pid.trim());
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while proc.exists()
            && !std::fs::read_to_string(proc.join("stat")).is_ok_and(|s| s.contains(") Z"))
        {
            if std::time::Instant::now() > deadline {
                return Err(format!("process {pid} outlived hotl").into());
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
    Ok(())
}

#[test]
fn a_server_hung_in_a_call_and_deaf_to_its_input_ends_with_hotl() -> TestResult {
    let env = Env::new()?;
    if !configure_evil(&env, "hang-call", "tool_timeout_sec = 1\n")? {
        return Ok(());
    }
    let fake = FakeLlm::start(Config::scripted([
        Reply::default().with_tool("mcp__evil__get", json!({})),
        Reply::text("It hung."),
    ]))?;
    let out = env
        .agent(&fake, &["-p", "get it", "--allow", "mcp__evil__*"])
        .ok();
    assert_eq!(out.stdout, "It hung.\n", "{out}");
    let results = result_text(&env, &env.only_session()?)?;
    assert!(
        results[0].0.contains("did not answer within 1 s"),
        "{results:?}"
    );
    all_gone(&env)
}

#[test]
fn a_server_that_never_lists_its_tools_ends_with_hotl() -> TestResult {
    let env = Env::new()?;
    if !configure_evil(&env, "hang-list", "startup_timeout_sec = 1\n")? {
        return Ok(());
    }
    let fake = FakeLlm::start(Config::scripted([Reply::text("No tools.")]))?;
    let out = env.agent(&fake, &["-p", "hello"]).ok();
    assert_eq!(out.stdout, "No tools.\n", "{out}");
    assert!(out.stderr.contains("did not start"), "{out}");
    all_gone(&env)
}

#[test]
fn a_result_over_sixteen_mebibytes_is_said_to_be_too_large() -> TestResult {
    let env = Env::new()?;
    if !configure_evil(&env, "big", "tool_timeout_sec = 30\n")? {
        return Ok(());
    }
    let fake = FakeLlm::start(Config::scripted([
        Reply::default().with_tool("mcp__evil__get", json!({})),
        Reply::text("Too big."),
    ]))?;
    let out = env
        .agent(&fake, &["-p", "get it", "--allow", "mcp__evil__*"])
        .ok();
    assert_eq!(out.stdout, "Too big.\n", "{out}");
    let results = result_text(&env, &env.only_session()?)?;
    assert!(results[0].1, "{results:?}");
    assert!(results[0].0.contains("larger than 16 MiB"), "{results:?}");
    Ok(())
}

#[test]
fn mcp_list_shows_a_servers_names_without_their_escapes() -> TestResult {
    let env = Env::new()?;
    if !configure_evil(&env, "odd-name", "")? {
        return Ok(());
    }
    let out = env.agent_command().args(["mcp", "list"]).output()?;
    let stdout = String::from_utf8(out.stdout)?;
    assert!(out.status.success(), "{stdout}");
    assert!(
        !stdout.contains('\u{1b}') && !stdout.contains('\u{7}'),
        "{stdout:?}"
    );
    assert!(!stdout.contains('\u{202e}'), "{stdout:?}");
    assert!(
        stdout.lines().all(|l| !l.starts_with("fake line")),
        "a name cannot fake a line: {stdout:?}"
    );
    assert!(stdout.contains("(get\u{241b}]52;"), "{stdout:?}");
    all_gone(&env)
}

/// `hotl config` lists the MCP servers configured, with what each runs, and says which is off.
#[test]
fn config_lists_the_mcp_servers() -> TestResult {
    let env = Env::new()?;
    let none = env.run(&["config"]).ok();
    assert!(
        none.stdout
            .lines()
            .any(|l| l.starts_with("mcp_servers") && l.contains("(none)")),
        "{none}"
    );
    env.run(&[
        "mcp",
        "add",
        "files",
        "--",
        "npx",
        "-y",
        "server-filesystem",
        ".",
    ])
    .ok();
    env.run(&["mcp", "add", "remote", "--url", "https://example.com/mcp"])
        .ok();
    let out = env.run(&["config"]).ok();
    let line = out
        .stdout
        .lines()
        .find(|l| l.starts_with("mcp_servers"))
        .ok_or("no mcp_servers row")?;
    assert!(
        line.contains("files (npx -y server-filesystem .)")
            && line.contains("remote (https://example.com/mcp)"),
        "{line}"
    );
    Ok(())
}
