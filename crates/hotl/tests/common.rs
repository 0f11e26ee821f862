//! The e2e harness: a temp home and project, the real binary with a pinned clock, and logs
//! whose `cwd` is the project so the default listing finds them.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use hotl_testkit::{FIXED_ID, FIXED_TS, LogBuilder, TestResult};

/// What every run is pinned to: one day after `hotl_testkit::FIXED_TS`.
pub const NOW: &str = "2026-11-02T12:00:00.000Z";

/// A second valid id sharing the `01JD` prefix with `FIXED_ID`.
pub const OTHER_ID: &str = "01JD0000000000000000000002";

/// A third id with a prefix of its own.
pub const THIRD_ID: &str = "01JE0000000000000000000003";

/// A fourth id with a prefix of its own.
pub const FOURTH_ID: &str = "01JF0000000000000000000004";

/// One run of the binary.
pub struct Run {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

impl Run {
    /// Panics (with everything the run printed) unless it exited 0.
    #[track_caller]
    pub fn ok(self) -> Self {
        assert_eq!(self.code, 0, "expected success:\n{self}");
        self
    }

    /// Panics (with everything the run printed) unless it exited with `code`.
    #[track_caller]
    pub fn fails(self, code: i32) -> Self {
        assert_eq!(self.code, code, "expected exit {code}:\n{self}");
        self
    }

    /// stdout, trimmed: what commands that print an id print.
    pub fn line(&self) -> &str {
        self.stdout.trim()
    }
}

/// stdout, then stderr and the exit status when they say anything: the snapshot form.
impl fmt::Display for Run {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.stdout)?;
        if !self.stderr.is_empty() {
            write!(f, "[stderr]\n{}", self.stderr)?;
        }
        if self.code != 0 {
            write!(f, "[exit status: {}]", self.code)?;
        }
        Ok(())
    }
}

/// A temp dir holding the hotl home (`home/`), the project the binary runs in (`project/`)
/// and scratch files. `HOME` is the temp dir itself, so the project shows as `~/project`.
pub struct Env {
    _dir: tempfile::TempDir,
    root: PathBuf,
    pub home: PathBuf,
    pub project: PathBuf,
    pub now: String,
}

impl Env {
    pub fn new() -> TestResult<Env> {
        let dir = tempfile::tempdir()?;
        let root = dir.path().canonicalize()?;
        let home = root.join("home");
        let project = root.join("project");
        std::fs::create_dir_all(&project)?;
        Ok(Env {
            _dir: dir,
            root,
            home,
            project,
            now: NOW.to_owned(),
        })
    }

    /// The temp dir (canonical).
    pub fn root(&self) -> PathBuf {
        self.root.clone()
    }

    /// The project directory as hotl records it (canonical).
    pub fn cwd(&self) -> String {
        self.project.to_string_lossy().into_owned()
    }

    /// The binary with a clean environment: `--home`, pinned clock, run in the project.
    pub fn command(&self) -> Command {
        let mut cmd = self.command_without_home();
        cmd.arg("--home").arg(&self.home);
        cmd
    }

    /// The binary with a pinned clock, run in the project, with no `--home`, `HOTL_HOME` or
    /// `XDG_DATA_HOME` (`HOME` is the temp dir).
    pub fn command_without_home(&self) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_hotl"));
        cmd.current_dir(&self.project)
            .env_remove("HOTL_HOME")
            .env_remove("XDG_DATA_HOME")
            .env("HOME", self.root())
            .env("HOTL_NOW", &self.now)
            .env("NO_COLOR", "1")
            // A title request would take a scripted reply; the tests of titles turn it on.
            .env("HOTL_SESSION_TITLE", "off")
            .stdin(Stdio::null());
        cmd
    }

    /// Runs `hotl <args>` to completion.
    pub fn run(&self, args: &[&str]) -> Run {
        let mut cmd = self.command();
        cmd.args(args);
        run(cmd)
    }

    /// A log builder whose session starts in the project directory.
    pub fn log(&self, id: &str) -> LogBuilder {
        LogBuilder::new(id, &self.cwd())
    }

    /// A log with `turns` complete turns, messages "message 1", "message 2", ...
    pub fn log_with_turns(&self, id: &str, turns: usize) -> LogBuilder {
        let mut log = self.log(id);
        for i in 0..turns {
            log.turn(&format!("message {}", i + 1));
        }
        log
    }

    /// Writes `bytes` to a scratch file and returns its path.
    pub fn scratch(&self, name: &str, bytes: &[u8]) -> TestResult<PathBuf> {
        let path = self.root.join(name);
        std::fs::write(&path, bytes)?;
        Ok(path)
    }

    /// Imports `log` through the binary; returns the id it printed.
    pub fn import(&self, log: &LogBuilder) -> TestResult<String> {
        let file = self.scratch(&format!("{}.jsonl", log.id), &log.text())?;
        let run = self.run(&["sessions", "import", path_str(&file)?]).ok();
        Ok(run.line().to_owned())
    }

    /// Imports `log` with every record stamped `ts` instead of `FIXED_TS`.
    pub fn import_at(&self, log: &LogBuilder, ts: &str) -> TestResult<String> {
        let text = String::from_utf8(log.text())?.replace(FIXED_TS, ts);
        let file = self.scratch(&format!("{}.{ts}.jsonl", log.id), text.as_bytes())?;
        let run = self.run(&["sessions", "import", path_str(&file)?]).ok();
        Ok(run.line().to_owned())
    }

    /// A session's log file (a delegated child's lives in its root's tree directory).
    pub fn log_path(&self, id: &str) -> PathBuf {
        let sessions = self.home.join("sessions");
        let own = sessions.join(format!("{id}.jsonl"));
        if own.exists() {
            return own;
        }
        std::fs::read_dir(&sessions)
            .into_iter()
            .flatten()
            .flatten()
            .map(|tree| tree.path().join(format!("{id}.jsonl")))
            .find(|path| path.exists())
            .unwrap_or(own)
    }

    /// A session's log bytes.
    pub fn log_bytes(&self, id: &str) -> TestResult<Vec<u8>> {
        Ok(std::fs::read(self.log_path(id))?)
    }

    /// The `type` of every record line of a session's own log (unparsable lines as `?`),
    /// working-tree snapshots left out: they depend on the project, not on the turn.
    pub fn record_types(&self, id: &str) -> TestResult<Vec<String>> {
        let text = String::from_utf8(self.log_bytes(id)?)?;
        Ok(text
            .lines()
            .map(|line| {
                serde_json::from_str::<serde_json::Value>(line)
                    .ok()
                    .and_then(|v| v["type"].as_str().map(str::to_owned))
                    .unwrap_or_else(|| "?".to_owned())
            })
            .filter(|t| t != "snapshot")
            .collect())
    }

    /// Parses stdout of `hotl <args>` (which must succeed) as JSON.
    pub fn json(&self, args: &[&str]) -> TestResult<serde_json::Value> {
        let run = self.run(args).ok();
        Ok(serde_json::from_str(&run.stdout)?)
    }

    /// Turns of a session as `sessions show --json` counts them.
    pub fn turns(&self, session: &str) -> TestResult<u64> {
        let json = self.json(&["sessions", "show", session, "--json"])?;
        json["turns"]
            .as_u64()
            .ok_or_else(|| "no turns in show --json".into())
    }
}

/// Runs a prepared command to completion.
pub fn run(mut cmd: Command) -> Run {
    let out = cmd.output().expect("the hotl binary runs");
    Run {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    }
}

/// A path as an argument.
pub fn path_str(path: &Path) -> TestResult<&str> {
    path.to_str().ok_or_else(|| "non-UTF-8 temp path".into())
}

/// Replaces each generated id, and its 8-character short form, with a label padded to the same
/// width (so columns stay aligned): `[FORK]--------------------`, `[FORK]--`.
pub fn redact(text: &str, ids: &[(&str, &str)]) -> String {
    let mut out = text.to_owned();
    for (id, label) in ids {
        let label = format!("[{label}]");
        out = out.replace(id, &format!("{label:-<w$}", w = id.len()));
        out = out.replace(&id[..8], &format!("{label:-<8}"));
    }
    out
}

// The agent against the fake provider (`hotl-fakellm`, in process on loopback).

/// The model agent runs ask for: the fake serves it and hotl knows its price.
pub const MODEL: &str = "claude-sonnet-5";

impl Run {
    /// stdout parsed as one JSON document (`--output-format json`).
    pub fn json(&self) -> TestResult<serde_json::Value> {
        serde_json::from_str(&self.stdout)
            .map_err(|e| format!("stdout is not one JSON document ({e}):\n{self}").into())
    }
}

impl Env {
    /// The binary for agent runs: like [`Env::command`], without API keys or `HOTL_*` provider
    /// settings, and with `XDG_CONFIG_HOME` an empty dir so no config file is read.
    pub fn agent_command(&self) -> Command {
        let mut cmd = self.command();
        for key in [
            "ANTHROPIC_API_KEY",
            "OPENAI_API_KEY",
            "HOTL_PROVIDER",
            "HOTL_BASE_URL",
            "HOTL_MODEL",
            "HOTL_CONTEXT_WINDOW",
            "HOTL_MAX_TOKENS",
        ] {
            cmd.env_remove(key);
        }
        cmd.env("XDG_CONFIG_HOME", self.root.join("config"));
        cmd
    }

    /// `hotl --provider anthropic --base-url <fake> --model MODEL <args>`.
    pub fn agent(&self, fake: &hotl_fakellm::FakeLlm, args: &[&str]) -> Run {
        self.agent_with("anthropic", fake, MODEL, args)
    }

    /// `hotl --provider <provider> --base-url <fake> --model <model> <args>`.
    pub fn agent_with(
        &self,
        provider: &str,
        fake: &hotl_fakellm::FakeLlm,
        model: &str,
        args: &[&str],
    ) -> Run {
        let mut cmd = self.command_against(provider, fake, model);
        cmd.args(args);
        run(cmd)
    }

    /// The command `hotl --provider <provider> --base-url <fake> --model <model>`, to add
    /// arguments to.
    pub fn command_against(
        &self,
        provider: &str,
        fake: &hotl_fakellm::FakeLlm,
        model: &str,
    ) -> Command {
        let mut cmd = self.agent_command();
        cmd.args(["--provider", provider, "--base-url"])
            .arg(fake.base_url())
            .args(["--model", model]);
        cmd
    }

    /// Every line of a session's own log, parsed (the agent writes whole lines only).
    pub fn records(&self, id: &str) -> TestResult<Vec<serde_json::Value>> {
        let text = String::from_utf8(self.log_bytes(id)?)?;
        text.lines()
            .map(|line| {
                serde_json::from_str(line).map_err(|e| format!("bad log line {line:?}: {e}").into())
            })
            .collect()
    }

    /// The `child_finished` records of a session's own log.
    pub fn child_ends(&self, id: &str) -> TestResult<Vec<serde_json::Value>> {
        Ok(self
            .records(id)?
            .into_iter()
            .filter(|r| r["type"] == "child_finished")
            .collect())
    }

    /// The id of the only session in the home (panics if there are more or none).
    #[track_caller]
    pub fn only_session(&self) -> TestResult<String> {
        let ids = self.session_ids()?;
        assert_eq!(ids.len(), 1, "{ids:?}");
        Ok(ids[0].clone())
    }

    /// Imports session `FIXED_ID`: one whole turn, then a turn a dead process left open (run
    /// started, the message, a `bash` call and no result). Returns the open call's id.
    pub fn import_interrupted(&self) -> TestResult<String> {
        let mut log = self.log(FIXED_ID);
        log.turn("earlier");
        log.record(hotl_log::Body::Run {
            run: "run_open".to_owned(),
            state: hotl_log::RunState::Started,
        });
        log.user("do the thing");
        let (_, call) = log.tool_call("bash", serde_json::json!({"command": "echo partial"}));
        assert_eq!(self.import(&log)?, FIXED_ID);
        Ok(call)
    }

    /// The ids of every session log in the home, sorted.
    pub fn session_ids(&self) -> TestResult<Vec<String>> {
        let dir = self.home.join("sessions");
        if !dir.exists() {
            return Ok(Vec::new());
        }
        let mut ids = Vec::new();
        for entry in std::fs::read_dir(dir)? {
            let name = entry?.file_name().to_string_lossy().into_owned();
            if let Some(id) = name.strip_suffix(".jsonl") {
                ids.push(id.to_owned());
            }
        }
        ids.sort();
        Ok(ids)
    }
}

/// A fake that answers "ok 1", "ok 2", ... to `n` requests.
pub fn fake_answering(n: usize) -> TestResult<hotl_fakellm::FakeLlm> {
    Ok(hotl_fakellm::FakeLlm::start(
        hotl_fakellm::Config::scripted(
            (1..=n).map(|i| hotl_fakellm::Reply::text(format!("ok {i}"))),
        ),
    )?)
}

/// The bodies of the generation requests (messages, chat completions, responses) the fake
/// received, in order.
pub fn requests(fake: &hotl_fakellm::FakeLlm) -> TestResult<Vec<serde_json::Value>> {
    use hotl_fakellm::Endpoint;
    fake.captured()
        .iter()
        .filter(|c| {
            matches!(
                c.endpoint,
                Endpoint::Messages | Endpoint::ChatCompletions | Endpoint::Responses
            )
        })
        .map(|c| {
            c.json()
                .ok_or_else(|| format!("request {} is not JSON", c.seq).into())
        })
        .collect()
}

/// Panics unless every `tool_use` of every assistant record is answered by a `tool_result`
/// before the next assistant or user record, and every `tool_result` answers an open call:
/// the shape every provider requires when the log is sent again.
#[track_caller]
pub fn assert_calls_answered(records: &[serde_json::Value]) {
    let mut open: Vec<String> = Vec::new();
    for r in records {
        match r["type"].as_str() {
            Some("assistant") | Some("user") => {
                assert!(open.is_empty(), "unanswered calls {open:?} before {r}");
                if let Some(blocks) = r["content"].as_array() {
                    open = blocks
                        .iter()
                        .filter(|b| b["type"] == "tool_use")
                        .filter_map(|b| b["id"].as_str().map(str::to_owned))
                        .collect();
                }
            }
            Some("tool_result") => {
                let call = r["call"].as_str().unwrap_or_default();
                assert!(
                    open.iter().any(|c| c == call),
                    "a result for {call:?}, which is not an open call: {r}"
                );
                open.retain(|c| c != call);
            }
            _ => {}
        }
    }
}

/// A tool result as a request carried it, in any dialect.
#[derive(Debug)]
pub struct SentResult {
    /// The call it answers.
    pub call: String,
    /// Its text (blocks joined).
    pub text: String,
    /// Anthropic's `is_error` (the OpenAI dialects have none).
    pub is_error: Option<bool>,
}

/// Every tool result a request body carries: Anthropic `tool_result` blocks, Chat `tool`
/// messages, Responses `function_call_output` items.
pub fn sent_results(body: &serde_json::Value) -> Vec<SentResult> {
    let text_of = |v: &serde_json::Value| match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    };
    let mut out = Vec::new();
    let items = body["messages"]
        .as_array()
        .or_else(|| body["input"].as_array())
        .cloned()
        .unwrap_or_default();
    for item in &items {
        if item["role"] == "tool" {
            out.push(SentResult {
                call: item["tool_call_id"].as_str().unwrap_or_default().to_owned(),
                text: text_of(&item["content"]),
                is_error: None,
            });
        } else if item["type"] == "function_call_output" {
            out.push(SentResult {
                call: item["call_id"].as_str().unwrap_or_default().to_owned(),
                text: text_of(&item["output"]),
                is_error: None,
            });
        } else if let Some(blocks) = item["content"].as_array() {
            for b in blocks.iter().filter(|b| b["type"] == "tool_result") {
                out.push(SentResult {
                    call: b["tool_use_id"].as_str().unwrap_or_default().to_owned(),
                    text: text_of(&b["content"]),
                    is_error: b["is_error"].as_bool(),
                });
            }
        }
    }
    out
}

/// A separate process holding an exclusive `flock` on a session's lock file with its pid
/// written in it, as a running hotl would. Killed on drop.
pub struct LockHolder {
    child: std::process::Child,
}

impl LockHolder {
    /// Takes `<home>/sessions/<id>.lock`; `None` when this system has no `flock(1)`.
    pub fn hold(env: &Env, id: &str) -> TestResult<Option<LockHolder>> {
        let has_flock = Command::new("flock")
            .arg("--version")
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !hotl_testkit::require("flock(1)", has_flock)? {
            return Ok(None);
        }
        let lock = env.home.join("sessions").join(format!("{id}.lock"));
        let child = Command::new("sh")
            .arg("-c")
            .arg(r#"echo $$ > "$1" && exec flock "$1" cat"#)
            .arg("sh")
            .arg(&lock)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()?;
        let holder = LockHolder { child };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while Command::new("flock")
            .arg("-n")
            .arg(&lock)
            .arg("true")
            .status()?
            .success()
        {
            if std::time::Instant::now() > deadline {
                return Err("the holder never took the lock".into());
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        Ok(Some(holder))
    }

    /// The holder's pid (written in the lock file).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for LockHolder {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Runs the console (`hotl <args>` without `-p`) on a pseudo-terminal made by `script(1)`,
/// typing `input`; `None` when there is no `script`. stdout comes with `\r\n` made `\n`.
pub fn console(
    env: &Env,
    fake: &hotl_fakellm::FakeLlm,
    args: &[&str],
    input: &str,
) -> TestResult<Option<Run>> {
    console_typed(env, fake, args, &[(input, 0)])
}

/// [`console`] with more environment variables for hotl.
pub fn console_with_env(
    env: &Env,
    fake: &hotl_fakellm::FakeLlm,
    args: &[&str],
    vars: &[(&str, &str)],
    input: &str,
) -> TestResult<Option<Run>> {
    let mut hotl = env.command_against("anthropic", fake, MODEL);
    for (key, value) in vars {
        hotl.env(key, value);
    }
    hotl.args(args);
    in_pty(env, &hotl, &[(input, 0)])
}

/// [`console`], typing each piece of input after waiting its milliseconds (a `\x03` piece is
/// Ctrl-C: the terminal turns it into SIGINT).
pub fn console_typed(
    env: &Env,
    fake: &hotl_fakellm::FakeLlm,
    args: &[&str],
    pieces: &[(&str, u64)],
) -> TestResult<Option<Run>> {
    let mut hotl = env.command_against("anthropic", fake, MODEL);
    hotl.args(args);
    in_pty(env, &hotl, pieces)
}

/// `hotl <args>` (with the test's home) on a pseudo-terminal, typing `input`; `None` when
/// there is no `script`.
pub fn pty(env: &Env, args: &[&str], input: &str) -> TestResult<Option<Run>> {
    let mut hotl = env.command();
    hotl.args(args);
    in_pty(env, &hotl, &[(input, 0)])
}

/// Runs `hotl` on a pseudo-terminal made by `script(1)`, typing each piece of input after
/// waiting its milliseconds; `None` when there is no `script`.
pub fn in_pty(
    env: &Env,
    hotl: &std::process::Command,
    pieces: &[(&str, u64)],
) -> TestResult<Option<Run>> {
    let Some(mut cmd) = in_script(env, hotl, "")? else {
        return Ok(None);
    };
    // These tests type into the line console; the terminal UI has tests of its own.
    cmd.env("HOTL_NO_TUI", "1");
    let out = typing(cmd, pieces)?;
    Ok(Some(Run {
        stdout: String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n"),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    }))
}

/// `hotl` to run on a new pseudo-terminal made by `script(1)`, whose shell runs `setup` first
/// (`stty cols 100 rows 30; `, say): hotl's arguments and environment, the project as its
/// directory, its ends piped; `None` when there is no `script`.
pub fn in_script(
    env: &Env,
    hotl: &std::process::Command,
    setup: &str,
) -> TestResult<Option<std::process::Command>> {
    use std::process::{Command, Stdio};
    let has_script = Command::new("script")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !hotl_testkit::require("script(1)", has_script)? {
        return Ok(None);
    }
    let quoted: Vec<String> = std::iter::once(hotl.get_program())
        .chain(hotl.get_args())
        .map(|a| format!("'{}'", a.to_string_lossy()))
        .collect();
    // `exec`: the shell `script` starts must not stay between the terminal and hotl, or a
    // Ctrl-C typed into the terminal may also end the shell, which then reports status 130
    // although hotl went on and exited 0.
    let mut cmd = Command::new("script");
    cmd.args([
        "-qec",
        &format!("{setup}exec {}", quoted.join(" ")),
        "/dev/null",
    ]);
    for (key, value) in hotl.get_envs() {
        match value {
            Some(v) => cmd.env(key, v),
            None => cmd.env_remove(key),
        };
    }
    cmd.current_dir(&env.project)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    Ok(Some(cmd))
}

/// Runs `cmd`, typing each piece into its stdin after waiting its milliseconds, then closing
/// it; what it printed.
pub fn typing(
    mut cmd: std::process::Command,
    pieces: &[(&str, u64)],
) -> TestResult<std::process::Output> {
    use std::io::{Read, Write};
    let mut child = cmd.spawn()?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    // Read what it writes while typing: a full pipe would stop the program mid-draw (a
    // terminal UI writes a frame for every change) until the typing is over.
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    for (piece, wait_ms) in pieces {
        std::thread::sleep(std::time::Duration::from_millis(*wait_ms));
        stdin.write_all(piece.as_bytes())?;
        stdin.flush()?;
    }
    drop(stdin);
    let status = child.wait()?;
    Ok(std::process::Output {
        status,
        stdout: stdout.join().map_err(|_| "the stdout reader panicked")?,
        stderr: stderr.join().map_err(|_| "the stderr reader panicked")?,
    })
}

/// An Anthropic stream whose only block is a call of `tool` whose arguments, `partial`, are
/// not JSON (as a model streams them when it goes wrong).
pub fn bad_arguments_sse(tool: &str, partial: &str) -> String {
    let event = |name: &str, data: serde_json::Value| format!("event: {name}\ndata: {data}\n\n");
    [
        event(
            "message_start",
            serde_json::json!({"type": "message_start", "message": {"id": "msg_bad", "type": "message", "role": "assistant", "model": "claude-sonnet-5", "content": [], "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 10, "output_tokens": 1}}}),
        ),
        event(
            "content_block_start",
            serde_json::json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_bad", "name": tool, "input": {}}}),
        ),
        event(
            "content_block_delta",
            serde_json::json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": ""}}),
        ),
        event(
            "content_block_delta",
            serde_json::json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": partial}}),
        ),
        event(
            "content_block_stop",
            serde_json::json!({"type": "content_block_stop", "index": 0}),
        ),
        event(
            "message_delta",
            serde_json::json!({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null}, "usage": {"output_tokens": 9}}),
        ),
        event("message_stop", serde_json::json!({"type": "message_stop"})),
    ]
    .concat()
}

/// A separate process holding an exclusive `flock` on a lock file, with its pid written in
/// the file as hotl's own writers do. Released when its stdin closes; killed on drop.
pub struct Holder {
    child: std::process::Child,
}

impl Holder {
    pub fn spawn(lock: &std::path::Path) -> TestResult<Holder> {
        let child = std::process::Command::new("sh")
            .arg("-c")
            .arg(r#"echo $$ > "$1" && exec flock "$1" cat"#)
            .arg("sh")
            .arg(lock)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .spawn()?;
        let holder = Holder { child };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        // `flock -n` fails while someone else holds the lock.
        while std::process::Command::new("flock")
            .arg("-n")
            .arg(lock)
            .arg("true")
            .status()?
            .success()
        {
            if std::time::Instant::now() > deadline {
                return Err("the holder never took the lock".into());
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        Ok(holder)
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Closes its stdin: `cat` ends, `flock` exits and the lock is released.
    pub fn release(mut self) -> TestResult {
        drop(self.child.stdin.take());
        let status = self.child.wait()?;
        assert!(status.success(), "holder: {status}");
        Ok(())
    }
}

impl Drop for Holder {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Whether flock(1) is here.
pub fn has_flock() -> bool {
    std::process::Command::new("flock")
        .arg("--version")
        .stdout(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Sends SIGTERM to the hotl process that holds a session lock in `env`'s home, once `fake`
/// has received a request containing `seen` and `settle_ms` more have passed; whether it was
/// sent. Blocks: run it beside the typing (`std::thread::scope`).
pub fn terminate_when(env: &Env, fake: &hotl_fakellm::FakeLlm, seen: &str, settle_ms: u64) -> bool {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !fake.captured().iter().any(|r| r.body_text().contains(seen)) {
        if std::time::Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    std::thread::sleep(std::time::Duration::from_millis(settle_ms));
    let pid = std::fs::read_dir(env.home.join("sessions"))
        .ok()
        .and_then(|dir| {
            dir.flatten()
                .filter(|f| f.path().extension().is_some_and(|e| e == "lock"))
                .find_map(|f| hotl_log::TreeLock::owner_pid(&f.path()))
        });
    let Some(pid) = pid else {
        return false;
    };
    std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .is_ok_and(|s| s.success())
}

/// A fake whose model, told "go look", starts an `explore` child in the background that would
/// answer only after 20 s, then says "It runs in the background." once told it started.
pub fn slow_background_child() -> TestResult<hotl_fakellm::FakeLlm> {
    use hotl_fakellm::{Config, Fault, Reply};
    Ok(hotl_fakellm::FakeLlm::start(Config::scripted([
        Reply::text("")
            .with_tool(
                "spawn",
                serde_json::json!({"agent": "explore", "task": "SLOW-TASK read it all", "background": true}),
            )
            .matching("go look"),
        Reply::text("never said")
            .with_fault(Fault::split_at([5, 10]).with_chunk_delay_ms(20_000))
            .matching("SLOW-TASK"),
        Reply::text("It runs in the background.").matching("started in the background"),
    ]))?)
}
