//! `hotl acp` as an editor drives it: the protocol crate's client side on the real binary's
//! stdin and stdout, against hotl-fakellm. A turn with tool calls the editor allows and
//! rejects, a cancel mid-stream, a session made from the shell loaded and then continued from
//! the shell, and bad input (an unknown session, a second prompt while one runs, stdin closed
//! mid-turn, malformed JSON).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::{ConnectionTo, Responder, schema as s};
use agent_client_protocol::{
    Agent, ByteStreams, Client, Error, on_receive_notification, on_receive_request,
};
use hotl_fakellm::{Config, FakeLlm, Fault, Reply};
use hotl_testkit::TestResult;
use serde_json::{Value, json};
use tokio_util::compat::{TokioAsyncReadCompatExt, TokioAsyncWriteCompatExt};

use crate::common::{Env, MODEL, requests};

/// What the editor saw and how it answers permission requests.
#[derive(Clone, Default)]
struct Editor {
    /// Every `session/update`, as JSON.
    updates: Arc<Mutex<Vec<Value>>>,
    /// Every permission request's tool call title.
    asked: Arc<Mutex<Vec<String>>>,
    /// The option to pick, in order, one per request (`allow`, `always`, `reject`).
    answers: Arc<Mutex<Vec<&'static str>>>,
}

impl Editor {
    fn answering(answers: &[&'static str]) -> Editor {
        let editor = Editor::default();
        editor
            .answers
            .lock()
            .expect("lock")
            .extend(answers.iter().rev());
        editor
    }

    fn updates(&self) -> Vec<Value> {
        self.updates.lock().expect("lock").clone()
    }

    /// The updates of one kind (`tool_call`, `agent_message_chunk`, ...).
    fn of(&self, kind: &str) -> Vec<Value> {
        self.updates()
            .into_iter()
            .filter(|u| u["sessionUpdate"] == kind)
            .collect()
    }

    fn said(&self) -> String {
        self.of("agent_message_chunk")
            .iter()
            .filter_map(|u| u["content"]["text"].as_str().map(str::to_owned))
            .collect()
    }
}

/// Runs `hotl acp` against `fake` and drives it with `body` as an editor would; returns what
/// `body` returned once the agent exited (stdin closed).
fn drive<T: Send + 'static>(
    env: &Env,
    fake: &FakeLlm,
    editor: &Editor,
    body: impl AsyncFnOnce(ConnectionTo<Agent>) -> Result<T, Error> + Send + 'static,
) -> TestResult<T> {
    let mut cmd = env.command_against("anthropic", fake, MODEL);
    // The approvals these tests answer are the unsandboxed ones.
    cmd.args(["acp", "--sandbox", "off"]);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let editor = editor.clone();
    runtime.block_on(async move {
        let mut child = tokio::process::Command::from(cmd)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()?;
        let stdin = child.stdin.take().ok_or("stdin")?;
        let stdout = child.stdout.take().ok_or("stdout")?;
        let (updates, asked, answers) = (editor.updates, editor.asked, editor.answers);
        let result = Client
            .v1()
            .on_receive_notification(
                async move |n: s::SessionNotification, _cx: ConnectionTo<Agent>| {
                    let update = serde_json::to_value(&n.update).map_err(Error::from)?;
                    updates.lock().expect("lock").push(update);
                    Ok(())
                },
                on_receive_notification!(),
            )
            .on_receive_request(
                async move |req: s::RequestPermissionRequest,
                            r: Responder<s::RequestPermissionResponse>,
                            _cx: ConnectionTo<Agent>| {
                    asked
                        .lock()
                        .expect("lock")
                        .push(req.tool_call.fields.title.clone().unwrap_or_default());
                    let pick = answers.lock().expect("lock").pop().unwrap_or("reject");
                    r.respond(s::RequestPermissionResponse::new(
                        s::RequestPermissionOutcome::Selected(s::SelectedPermissionOutcome::new(
                            pick,
                        )),
                    ))
                },
                on_receive_request!(),
            )
            .connect_with(
                ByteStreams::new(stdin.compat_write(), stdout.compat()),
                body,
            )
            .await;
        let status = tokio::time::timeout(Duration::from_secs(20), child.wait()).await??;
        let mut stderr = String::new();
        if let Some(mut err) = child.stderr.take() {
            use tokio::io::AsyncReadExt;
            err.read_to_string(&mut stderr).await?;
        }
        assert!(status.success(), "hotl acp exited {status}: {stderr}");
        Ok(result.map_err(|e| format!("{e:?}"))?)
    })
}

async fn start(cx: &ConnectionTo<Agent>, env_cwd: &str) -> Result<s::SessionId, Error> {
    let init = cx
        .send_request(s::InitializeRequest::new(ProtocolVersion::V1))
        .block_task()
        .await?;
    assert!(init.agent_capabilities.load_session);
    let session = cx
        .send_request(s::NewSessionRequest::new(env_cwd))
        .block_task()
        .await?;
    Ok(session.session_id)
}

async fn prompt(
    cx: &ConnectionTo<Agent>,
    session: &s::SessionId,
    text: &str,
) -> Result<s::StopReason, Error> {
    Ok(cx
        .send_request(s::PromptRequest::new(session.clone(), vec![text.into()]))
        .block_task()
        .await?
        .stop_reason)
}

#[test]
fn an_editor_runs_turns_with_calls_it_allows_and_rejects() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("Writing.").with_tool("bash", json!({"command": "echo yes > allowed.txt"})),
        Reply::text("Done."),
        Reply::default().with_tool("bash", json!({"command": "echo no > rejected.txt"})),
        Reply::text("Understood."),
        Reply::default().with_tool(
            "todo",
            json!({"items": [{"text": "write it", "status": "done"}, {"text": "test it", "status": "pending"}]}),
        ),
        Reply::text("Planned."),
    ]))?;
    let editor = Editor::answering(&["allow", "reject"]);
    let cwd = env.cwd();
    let (first, second, third, id) = drive(&env, &fake, &editor, async move |cx| {
        let id = start(&cx, &cwd).await?;
        let first = prompt(&cx, &id, "make allowed.txt").await?;
        let second = prompt(&cx, &id, "make rejected.txt").await?;
        let third = prompt(&cx, &id, "plan the rest").await?;
        Ok((first, second, third, id.to_string()))
    })?;
    assert_eq!(
        (first, second, third),
        (
            s::StopReason::EndTurn,
            s::StopReason::EndTurn,
            s::StopReason::EndTurn
        )
    );
    assert!(env.project.join("allowed.txt").exists());
    assert!(!env.project.join("rejected.txt").exists());
    let asked = editor.asked.lock().expect("lock").clone();
    assert_eq!(asked.len(), 2, "{asked:?}");
    assert!(asked[0].contains("echo yes > allowed.txt"), "{asked:?}");

    let calls = editor.of("tool_call");
    assert_eq!(calls[0]["kind"], "execute", "{calls:?}");
    assert_eq!(calls[0]["title"], "$ echo yes > allowed.txt");
    assert_eq!(calls[0]["status"], "in_progress");
    let results = editor.of("tool_call_update");
    assert_eq!(results[0]["status"], "completed", "{results:?}");
    assert_eq!(
        results[1]["status"], "failed",
        "the rejected call: {results:?}"
    );
    assert!(
        results[1].to_string().contains("the user declined"),
        "{results:?}"
    );
    let plan = editor.of("plan");
    assert_eq!(plan[0]["entries"][0]["status"], "completed", "{plan:?}");
    assert_eq!(plan[0]["entries"][1]["content"], "test it");
    assert!(editor.said().contains("Done.") && editor.said().contains("Understood."));
    assert!(!editor.of("available_commands_update").is_empty());

    // An ordinary hotl session: the shell lists and shows it.
    assert_eq!(env.session_ids()?, vec![id.clone()]);
    let show = env.run(&["sessions", "show", &id]).ok();
    assert!(show.stdout.contains("make rejected.txt"), "{show}");
    crate::common::assert_calls_answered(&env.records(&id)?);
    Ok(())
}

#[test]
fn a_cancel_mid_stream_ends_the_prompt_cancelled_and_the_log_stays_valid() -> TestResult {
    let env = Env::new()?;
    let slow = Fault {
        chunk_delay_ms: Some(30),
        split_seed: Some(7),
        split_max: Some(48),
        ..Fault::default()
    };
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("A long answer, word after word. ".repeat(60)).with_fault(slow),
        Reply::text("Still here."),
    ]))?;
    let editor = Editor::default();
    let cwd = env.cwd();
    let seen = editor.clone();
    let (stop, busy, after, id) = drive(&env, &fake, &editor, async move |cx| {
        let id = start(&cx, &cwd).await?;
        let running = cx
            .send_request(s::PromptRequest::new(id.clone(), vec!["talk".into()]))
            .block_task();
        let meanwhile = async {
            while seen.of("agent_message_chunk").is_empty() {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            // A second prompt while one runs is refused.
            let busy = cx
                .send_request(s::PromptRequest::new(id.clone(), vec!["again".into()]))
                .block_task()
                .await;
            cx.send_notification(s::CancelNotification::new(id.clone()))?;
            Ok::<_, Error>(busy)
        };
        let (stop, busy) = tokio::join!(running, meanwhile);
        let after = prompt(&cx, &id, "are you there?").await?;
        Ok((stop?.stop_reason, busy?, after, id.to_string()))
    })?;
    assert_eq!(stop, s::StopReason::Cancelled);
    let busy = busy.expect_err("a second prompt is refused");
    assert!(format!("{busy:?}").contains("already running"), "{busy:?}");
    assert_eq!(after, s::StopReason::EndTurn);
    assert!(editor.said().contains("Still here."));
    let records = env.records(&id)?;
    assert!(
        records
            .iter()
            .any(|r| r["type"] == "run" && r["state"] == "cancelled"),
        "{records:?}"
    );
    let check = env.run(&["sessions", "check", &id]);
    assert_eq!(check.code, 0, "{check}");
    // What was said before the cancel is recorded, marked, and the next request carries it.
    let kept = records
        .iter()
        .find(|r| r["type"] == "assistant" && r["stop"] == "cancelled")
        .ok_or("the cancelled answer's text is recorded")?;
    assert!(kept.to_string().contains("\"A long answer"), "{kept}");
    let sent = crate::common::requests(&fake)?;
    assert!(
        sent[1]["messages"].to_string().contains("A long answer"),
        "the model sees what it had said"
    );
    Ok(())
}

#[test]
fn a_session_from_the_shell_is_loaded_then_continued_from_the_shell() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("Shell answer."),
        Reply::text("Editor answer."),
        Reply::text("Shell again."),
    ]))?;
    env.agent(&fake, &["-p", "from the shell"]).ok();
    let id = env.only_session()?;
    let editor = Editor::default();
    let (cwd, loaded) = (env.cwd(), id.clone());
    let stop = drive(&env, &fake, &editor, async move |cx| {
        cx.send_request(s::InitializeRequest::new(ProtocolVersion::V1))
            .block_task()
            .await?;
        let unknown = cx
            .send_request(s::LoadSessionRequest::new(
                "01JDNOSUCHSESSION00000000",
                cwd.clone(),
            ))
            .block_task()
            .await;
        assert!(unknown.is_err(), "an unknown session is refused");
        let id = s::SessionId::new(loaded);
        cx.send_request(s::LoadSessionRequest::new(id.clone(), cwd))
            .block_task()
            .await?;
        prompt(&cx, &id, "from the editor").await
    })?;
    assert_eq!(stop, s::StopReason::EndTurn);
    // The transcript was replayed before the new turn.
    let users = editor.of("user_message_chunk");
    assert!(users[0].to_string().contains("from the shell"), "{users:?}");
    assert!(
        editor.said().starts_with("Shell answer."),
        "{}",
        editor.said()
    );
    assert!(editor.said().contains("Editor answer."));

    let again = env.agent(&fake, &["-r", &id, "-p", "and the shell"]).ok();
    assert_eq!(again.stdout, "Shell again.\n", "{again}");
    let last = requests(&fake)?.pop().ok_or("requests")?.to_string();
    assert!(
        last.contains("from the editor") && last.contains("Editor answer."),
        "the editor's turn is part of the session"
    );
    Ok(())
}

/// The editor going away mid-turn: the turn is recorded cancelled, the lock released, and the
/// session resumes from the shell.
#[test]
fn stdin_closed_mid_turn_leaves_a_resumable_session() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::default().with_tool("bash", json!({"command": "sleep 30"})),
        Reply::text("Resumed."),
    ]))?;
    let editor = Editor::answering(&["allow"]);
    let (cwd, seen) = (env.cwd(), editor.clone());
    let id = drive(&env, &fake, &editor, async move |cx| {
        let id = start(&cx, &cwd).await?;
        let running = cx
            .send_request(s::PromptRequest::new(id.clone(), vec!["wait".into()]))
            .block_task();
        let leave = async {
            while seen.of("tool_call").is_empty() {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        };
        // The editor leaves while `sleep 30` runs: the connection ends with this body.
        tokio::select! {
            _ = running => {}
            () = leave => {}
        }
        Ok(id.to_string())
    })?;
    let records = env.records(&id)?;
    crate::common::assert_calls_answered(&records);
    assert!(
        records
            .iter()
            .any(|r| r["type"] == "run" && r["state"] == "cancelled"),
        "{records:?}"
    );
    let again = env.agent(&fake, &["-r", &id, "-p", "go on"]).ok();
    assert_eq!(again.stdout, "Resumed.\n", "{again}");
    Ok(())
}

/// Malformed JSON and unknown methods get the protocol's errors; the connection goes on.
#[test]
fn malformed_lines_and_unknown_methods_get_protocol_errors() -> TestResult {
    use std::io::{BufRead, BufReader, Write};
    let env = Env::new()?;
    let mut cmd = env.agent_command();
    cmd.args(["--provider", "demo", "acp"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    let mut child = cmd.spawn()?;
    let mut stdin = child.stdin.take().ok_or("stdin")?;
    let mut lines = BufReader::new(child.stdout.take().ok_or("stdout")?).lines();
    let mut ask = |line: &str| -> TestResult<Value> {
        writeln!(stdin, "{line}")?;
        stdin.flush()?;
        Ok(serde_json::from_str(&lines.next().ok_or("an answer")??)?)
    };
    let init =
        ask(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}"#)?;
    assert_eq!(init["result"]["protocolVersion"], 1, "{init}");
    assert_eq!(ask("{not json")?["error"]["code"], -32700);
    let unknown = ask(r#"{"jsonrpc":"2.0","id":2,"method":"nope/nope","params":{}}"#)?;
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    let missing = ask(
        r#"{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"01JDX","prompt":[]}}"#,
    )?;
    assert_eq!(missing["error"]["code"], -32002, "{missing}");
    let relative = ask(
        r#"{"jsonrpc":"2.0","id":4,"method":"session/new","params":{"cwd":"relative/dir","mcpServers":[]}}"#,
    )?;
    assert_eq!(relative["error"]["code"], -32602, "{relative}");
    drop(stdin);
    assert!(child.wait()?.success());
    assert!(env.session_ids()?.is_empty(), "nothing was written");
    Ok(())
}

#[test]
fn a_childs_question_reaches_the_editor_labelled_with_its_handle() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("").with_tool("fork", json!({"task": "CHILD-TASK make kid.txt"})),
        Reply::default()
            .with_tool("bash", json!({"command": "echo kid > kid.txt"}))
            .matching("CHILD-TASK"),
        Reply::text("Made it.").matching("(no output)"),
        Reply::text("The fork made kid.txt.").matching("finished"),
    ]))?;
    let editor = Editor::answering(&["allow"]);
    let cwd = env.cwd();
    let stop = drive(&env, &fake, &editor, async move |cx| {
        let id = start(&cx, &cwd).await?;
        prompt(&cx, &id, "use a fork").await
    })?;
    assert_eq!(stop, s::StopReason::EndTurn);
    assert!(
        env.project.join("kid.txt").exists(),
        "the child's call ran once allowed"
    );
    let asked = editor.asked.lock().expect("lock").clone();
    assert_eq!(asked.len(), 1, "{asked:?}");
    let id = env.only_session()?;
    let child = env
        .json(&["sessions", "list", "--json"])?
        .get(0)
        .and_then(|s| s["delegated"][0]["handle"].as_str().map(str::to_owned))
        .ok_or("the fork's handle")?;
    assert!(
        asked[0].starts_with(&format!("{child}: ")) && asked[0].contains("echo kid > kid.txt"),
        "{asked:?}"
    );
    // The editor saw the child's call it was asked about, labelled, and its end.
    let calls = editor.of("tool_call");
    assert!(
        calls
            .iter()
            .any(|c| c["title"] == format!("{child}: $ echo kid > kid.txt")),
        "{calls:?}"
    );
    assert!(editor.said().contains("The fork made kid.txt."));
    crate::common::assert_calls_answered(&env.records(&id)?);
    Ok(())
}

#[test]
fn every_bad_line_gets_its_json_rpc_error_and_the_connection_goes_on() -> TestResult {
    use std::io::{BufRead, BufReader, Write};
    let env = Env::new()?;
    let mut cmd = env.agent_command();
    cmd.args(["--provider", "demo", "acp"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    let mut child = cmd.spawn()?;
    let mut stdin = child.stdin.take().ok_or("stdin")?;
    let mut lines = BufReader::new(child.stdout.take().ok_or("stdout")?).lines();
    let mut ask = |line: &[u8]| -> TestResult<Value> {
        stdin.write_all(line)?;
        stdin.write_all(b"\n")?;
        stdin.flush()?;
        Ok(serde_json::from_str(&lines.next().ok_or("an answer")??)?)
    };
    let init =
        ask(br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}"#)?;
    assert_eq!(init["result"]["protocolVersion"], 1, "{init}");
    let cases: [(&[u8], Value, i64); 8] = [
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"x\xff\"}",
            Value::Null,
            -32700,
        ),
        (b"{not json", Value::Null, -32700),
        (
            br#"[{"jsonrpc":"2.0","id":5,"method":"initialize","params":{"protocolVersion":1}}]"#,
            Value::Null,
            -32600,
        ),
        (
            br#"{"jsonrpc":"1.0","id":6,"method":"initialize"}"#,
            json!(6),
            -32600,
        ),
        (
            br#"{"jsonrpc":"2.0","id":null,"method":"initialize"}"#,
            Value::Null,
            -32600,
        ),
        (
            br#"{"jsonrpc":"2.0","id":{"o":1},"method":"initialize"}"#,
            Value::Null,
            -32600,
        ),
        (
            br#"{"jsonrpc":"2.0","id":1180591620717411303424,"method":"initialize"}"#,
            Value::Null,
            -32600,
        ),
        (
            br#"{"jsonrpc":"2.0","id":"s","method":"session/new","params":"a string"}"#,
            json!("s"),
            -32602,
        ),
    ];
    for (line, id, code) in cases {
        let answer = ask(line)?;
        assert_eq!(
            answer["error"]["code"],
            code,
            "{}: {answer}",
            String::from_utf8_lossy(line)
        );
        assert_eq!(answer["id"], id, "{answer}");
    }
    // Still serving.
    let again =
        ask(br#"{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":1}}"#)?;
    assert_eq!(again["id"], 7, "{again}");
    assert_eq!(again["result"]["protocolVersion"], 1, "{again}");
    drop(stdin);
    assert!(child.wait()?.success());
    Ok(())
}

/// A running command's output reaches the editor on its call as it is printed (in progress),
/// before the result completes it.
#[test]
fn a_commands_output_streams_to_the_editor() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::default().with_tool(
            "bash",
            json!({"command": "echo tick-1; sleep 0.5; echo tick-2; sleep 0.5; echo tick-3"}),
        ),
        Reply::text("Counted."),
    ]))?;
    let editor = Editor::answering(&["allow"]);
    let cwd = env.cwd();
    let stop = drive(&env, &fake, &editor, async move |cx| {
        let id = start(&cx, &cwd).await?;
        prompt(&cx, &id, "count").await
    })?;
    assert_eq!(stop, s::StopReason::EndTurn);
    let updates = editor.of("tool_call_update");
    let running = updates
        .iter()
        .position(|u| u["status"] == "in_progress" && u.to_string().contains("tick-1"))
        .ok_or(format!("no output while it ran: {updates:?}"))?;
    let done = updates
        .iter()
        .position(|u| u["status"] == "completed")
        .ok_or("no result")?;
    assert!(running < done, "{updates:?}");
    assert!(updates[done].to_string().contains("tick-3"), "{updates:?}");
    Ok(())
}
