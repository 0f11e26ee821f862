//! The MCP client against the fixture server over stdio: tools listed and named, calls that
//! answer, fail, time out and return large results, a server that dies started again once,
//! and a required server that does not start.

use std::collections::BTreeMap;
use std::sync::Arc;

use hotl_log::ToolInput;
use hotl_mcp::{ServerConfig, Started, start_all};
use hotl_testkit::TestResult;
use hotl_tool::{Invocation, ToolCtx};

fn fixture(name: &str) -> (String, ServerConfig) {
    (
        name.to_owned(),
        ServerConfig {
            command: Some(fixture_bin()),
            args: vec!["stdio".to_owned()],
            tool_timeout_sec: Some(1),
            ..ServerConfig::default()
        },
    )
}

fn start(
    configs: BTreeMap<String, ServerConfig>,
) -> TestResult<(tokio::runtime::Runtime, Started)> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let dir = std::env::temp_dir();
    let started = runtime.block_on(start_all(&configs, &dir, Arc::from([])))?;
    Ok((runtime, started))
}

/// Runs the tool named `name` with `input`; its output's text and whether it failed.
fn call(
    runtime: &tokio::runtime::Runtime,
    started: &Started,
    name: &str,
    input: &str,
) -> TestResult<(String, bool)> {
    call_in(runtime, started, name, input, 1)
}

/// [`call`] in turn `turn`.
fn call_in(
    runtime: &tokio::runtime::Runtime,
    started: &Started,
    name: &str,
    input: &str,
    turn: u64,
) -> TestResult<(String, bool)> {
    let tool = started
        .tools
        .iter()
        .find(|t| t.name() == name)
        .ok_or_else(|| format!("no tool {name}"))?;
    let dir = tempfile::tempdir()?;
    let ctx = ToolCtx {
        turn,
        cwd: dir.path().to_owned(),
        blobs: hotl_log::Store::new(dir.path()).blobs(),
        todos: Vec::new(),
        hidden_env: Arc::from([]),
        reaper: None,
        sandbox: None,
        progress: None,
    };
    let input = ToolInput::from_json(input)?;
    let invocation = Invocation::new("call_1", &input, &ctx)?;
    let output = runtime.block_on(tool.run(invocation));
    Ok((output.content, output.is_error))
}

#[test]
fn a_stdio_server_s_tools_are_named_listed_and_called() -> TestResult {
    let (runtime, started) = start([fixture("fixture")].into())?;
    let names: Vec<&str> = started.tools.iter().map(|t| t.name()).collect();
    assert!(names.contains(&"mcp__fixture__echo-text"), "{names:?}");
    assert!(names.contains(&"mcp__fixture__many-lines"), "{names:?}");
    // A tool the server marks read-only runs beside a step's other reads; its permission is a
    // command's all the same (another program's tool), and an unmarked one runs alone.
    let tool = |name: &str| started.tools.iter().find(|t| t.name() == name).cloned();
    let peek = tool("mcp__fixture__peek").ok_or("peek")?;
    let echo_text = tool("mcp__fixture__echo-text").ok_or("echo")?;
    assert!(peek.runs_alongside() && !echo_text.runs_alongside());
    assert_eq!(peek.kind(), hotl_tool::ToolKind::External);
    assert!(!peek.reads_only(), "an MCP tool is not a reviewer's read");
    assert_eq!(
        started.instructions,
        vec![(
            "fixture".to_owned(),
            "The fixture's tools echo, wait, fail and exit on request.".to_owned()
        )]
    );
    let echo = started
        .tools
        .iter()
        .find(|t| t.name() == "mcp__fixture__echo-text")
        .ok_or("echo")?
        .definition();
    assert!(
        echo.description.starts_with("[MCP server fixture] "),
        "{}",
        echo.description
    );
    assert!(echo.input_schema.get().contains("\"text\""));

    assert_eq!(
        call(
            &runtime,
            &started,
            "mcp__fixture__echo-text",
            r#"{"text": "hi"}"#
        )?,
        ("echo: hi".to_owned(), false)
    );
    let (failed, is_error) = call(&runtime, &started, "mcp__fixture__fail", "{}")?;
    assert!(is_error && failed.contains("fails on purpose"), "{failed}");
    // Past tool_timeout_sec (1 s): cancelled, said so.
    let (slow, is_error) = call(&runtime, &started, "mcp__fixture__slow", r#"{"ms": 5000}"#)?;
    assert!(
        is_error && slow.contains("did not answer within 1 s"),
        "{slow}"
    );
    // A large result goes to a blob; the model sees its head and tail.
    let (lines, _) = call(
        &runtime,
        &started,
        "mcp__fixture__many-lines",
        r#"{"count": 2000}"#,
    )?;
    assert!(
        lines.contains("line 1\n") && lines.contains("line 2000"),
        "{lines}"
    );
    assert!(lines.contains("of 2000 omitted; read blob:"), "{lines}");
    Ok(())
}

#[test]
fn a_server_that_dies_is_started_again_once_a_turn_then_its_calls_fail() -> TestResult {
    let (runtime, started) = start([fixture("fixture")].into())?;
    let (died, is_error) = call(&runtime, &started, "mcp__fixture__exit", "{}")?;
    assert!(is_error, "{died}");
    // Started again for the next call.
    assert_eq!(
        call(
            &runtime,
            &started,
            "mcp__fixture__echo-text",
            r#"{"text": "back"}"#
        )?,
        ("echo: back".to_owned(), false)
    );
    call(&runtime, &started, "mcp__fixture__exit", "{}")?;
    let (gone, is_error) = call(
        &runtime,
        &started,
        "mcp__fixture__echo-text",
        r#"{"text": "again"}"#,
    )?;
    assert!(
        is_error && gone.contains("already started again once in this turn"),
        "{gone}"
    );
    // The next turn may start it again.
    let next = call_in(
        &runtime,
        &started,
        "mcp__fixture__echo-text",
        r#"{"text": "next"}"#,
        2,
    )?;
    assert_eq!(next, ("echo: next".to_owned(), false));
    Ok(())
}

#[test]
fn servers_that_do_not_start_are_told_and_a_required_one_stops_the_start() -> TestResult {
    let broken = ServerConfig {
        command: Some("/nonexistent/mcp-server".to_owned()),
        ..ServerConfig::default()
    };
    let disabled = ServerConfig {
        enabled: Some(false),
        ..broken.clone()
    };
    let only_echo = ServerConfig {
        enabled_tools: Some(vec!["echo-text".to_owned()]),
        ..fixture("x").1
    };
    let (_runtime, started) = start(
        [
            ("broken".to_owned(), broken.clone()),
            ("off".to_owned(), disabled),
            ("some".to_owned(), only_echo),
        ]
        .into(),
    )?;
    assert_eq!(started.failed.len(), 1);
    assert_eq!(started.failed[0].0, "broken");
    let names: Vec<&str> = started.tools.iter().map(|t| t.name()).collect();
    assert_eq!(names, ["mcp__some__echo-text"]);

    let required = ServerConfig {
        required: true,
        ..broken
    };
    let err = start([("needed".to_owned(), required)].into())
        .err()
        .ok_or("a required server that fails stops the start")?;
    assert!(
        err.to_string()
            .contains("the MCP server needed is required"),
        "{err}"
    );
    Ok(())
}

/// The same server over streamable HTTP: its tools listed and called, a bearer token sent.
#[test]
fn a_streamable_http_server_s_tools_are_called() -> TestResult {
    use std::io::BufRead;
    let mut server = std::process::Command::new(fixture_bin())
        .args(["http", "--port", "0"])
        .stdout(std::process::Stdio::piped())
        .spawn()?;
    let mut line = String::new();
    std::io::BufReader::new(server.stdout.take().ok_or("stdout")?).read_line(&mut line)?;
    let url = line.trim().trim_start_matches("listening ").to_owned();
    let config = ServerConfig {
        url: Some(url),
        bearer_token_env_var: Some("PATH".to_owned()),
        ..ServerConfig::default()
    };
    let result = start([("remote".to_owned(), config)].into()).and_then(|(runtime, started)| {
        call(
            &runtime,
            &started,
            "mcp__remote__echo-text",
            r#"{"text": "over http"}"#,
        )
    });
    server.kill()?;
    server.wait()?;
    assert_eq!(result?, ("echo: over http".to_owned(), false));
    Ok(())
}

/// The reference server, `@modelcontextprotocol/server-everything` from npm, over stdio, when
/// `node` is here (CI requires it). Its `get-env` tool is never called: it prints the
/// environment.
#[test]
fn the_reference_server_everything_answers_over_stdio() -> TestResult {
    let node = std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !hotl_testkit::require("node", node)? {
        return Ok(());
    }
    let config = ServerConfig {
        command: Some("npx".to_owned()),
        args: [
            "-y",
            "@modelcontextprotocol/server-everything@2026.8.31",
            "stdio",
        ]
        .map(str::to_owned)
        .to_vec(),
        // The first run fetches the package.
        startup_timeout_sec: Some(180),
        tool_timeout_sec: Some(30),
        ..ServerConfig::default()
    };
    let (runtime, started) = start([("everything".to_owned(), config)].into())?;
    let names: Vec<&str> = started.tools.iter().map(|t| t.name()).collect();
    assert!(names.contains(&"mcp__everything__echo"), "{names:?}");
    assert!(names.contains(&"mcp__everything__get-sum"), "{names:?}");
    let (echo, is_error) = call(
        &runtime,
        &started,
        "mcp__everything__echo",
        r#"{"message": "hello"}"#,
    )?;
    assert!(!is_error && echo.contains("hello"), "{echo}");
    let (sum, is_error) = call(
        &runtime,
        &started,
        "mcp__everything__get-sum",
        r#"{"a": 2, "b": 3}"#,
    )?;
    assert!(!is_error && sum.contains('5'), "{sum}");
    let (image, _) = call(&runtime, &started, "mcp__everything__get-tiny-image", "{}")?;
    // The image is kept as a blob and named where it was, with its type and size.
    assert!(
        image.contains("[image image/png, ") && image.contains("kept as blob:"),
        "{image}"
    );
    Ok(())
}

/// The fixture server's binary, built beside the tests (`cargo build -p hotl-mcp-fixture`;
/// `.ci/run` builds it first: a test run builds only test harnesses).
fn fixture_bin() -> String {
    let exe = std::env::current_exe().expect("the test binary has a path");
    // target/<profile>/deps/<test> -> target/<profile>/hotl-mcp-fixture
    let bin = exe
        .parent()
        .and_then(|deps| deps.parent())
        .map(|dir| dir.join("hotl-mcp-fixture"))
        .expect("the test binary is in target/<profile>/deps");
    assert!(
        bin.is_file(),
        "{} is missing: cargo build -p hotl-mcp-fixture",
        bin.display()
    );
    bin.display().to_string()
}

/// A server that does not answer in time (as `npx -y` does while it downloads its package on
/// first use) is told with what to raise.
#[test]
fn a_slow_start_says_which_timeout_to_raise() -> TestResult {
    let slow = ServerConfig {
        command: Some("sleep".to_owned()),
        args: vec!["30".to_owned()],
        startup_timeout_sec: Some(1),
        ..ServerConfig::default()
    };
    let (_runtime, started) = start([("slow".to_owned(), slow)].into())?;
    assert_eq!(started.failed.len(), 1);
    let why = &started.failed[0].1;
    assert!(
        why.contains("did not start within 1 s") && why.contains("startup_timeout_sec"),
        "{why}"
    );
    Ok(())
}
