//! Small windows and weak models: bounded replies, cut tool calls that do not poison the next
//! request, a loop guard, and failures that name their real cause.

use hotl_fakellm::{Config, FakeLlm, Reply, Stop};
use hotl_testkit::TestResult;
use serde_json::{Value, json};

use crate::common::{Env, requests};

/// The model a local server answers as.
const LOCAL: &str = "smollm2";

/// Every request's output limit, as the Chat Completions dialect sends it.
fn limits(fake: &FakeLlm) -> TestResult<Vec<u64>> {
    requests(fake)?
        .iter()
        .map(|r| {
            r["max_completion_tokens"]
                .as_u64()
                .ok_or_else(|| format!("no max_completion_tokens in {r}").into())
        })
        .collect()
}

#[test]
fn a_small_window_bounds_each_answer_and_the_limit_can_be_set() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(
        Config::scripted((0..4).map(|i| Reply::text(format!("ok {i}")))).with_context_window(8192),
    )?;
    // The window comes from the server's /props: a quarter of it by default.
    env.agent_with("openai-chat", &fake, LOCAL, &["-p", "hi"])
        .ok();
    env.agent_with(
        "openai-chat",
        &fake,
        LOCAL,
        &["-p", "hi", "--max-tokens", "100"],
    )
    .ok();
    let mut cmd = env.agent_command();
    cmd.env("HOTL_MAX_TOKENS", "300")
        .args(["--provider", "openai-chat", "--base-url"])
        .arg(fake.base_url())
        .args(["--model", LOCAL, "-p", "hi"]);
    crate::common::run(cmd).ok();
    // Set higher than the window leaves: the window wins.
    env.agent_with(
        "openai-chat",
        &fake,
        LOCAL,
        &["-p", "hi", "--max-tokens", "100000"],
    )
    .ok();
    let limits = limits(&fake)?;
    assert_eq!(limits[..3], [2048, 100, 300]);
    assert!(
        (256..8192 - 1000).contains(&limits[3]),
        "the window less the request: {limits:?}"
    );
    Ok(())
}

#[test]
fn a_bad_output_limit_is_refused_before_anything_is_sent() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([Reply::text("never")]))?;
    let out = env.agent(&fake, &["-p", "hi", "--max-tokens", "0"]);
    assert_eq!(out.code, 2, "{out}");
    let mut cmd = env.agent_command();
    cmd.env("HOTL_MAX_TOKENS", "lots")
        .args(["--provider", "anthropic", "--base-url"])
        .arg(fake.base_url())
        .args(["-p", "hi"]);
    let out = crate::common::run(cmd);
    assert_ne!(out.code, 0, "{out}");
    assert!(out.stderr.contains("HOTL_MAX_TOKENS=\"lots\""), "{out}");
    assert!(requests(&fake)?.is_empty());
    Ok(())
}

/// A call stopped at the output limit is not run, and its answer quotes only the head of the
/// arguments: the next request does not carry them again.
#[test]
fn a_tool_call_cut_at_the_output_limit_does_not_refill_the_window() -> TestResult {
    let env = Env::new()?;
    let content = "line of a large file\n".repeat(600);
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("Writing it.")
            .with_tool("write", json!({"path": "big.txt", "content": content}))
            .with_stop(Stop::MaxTokens),
        Reply::text("I will write it in parts."),
    ]))?;
    let out = env.agent(&fake, &["-p", "write the file", "--allow", "write"]);
    assert_eq!(out.code, 0, "{out}");
    assert!(
        out.stderr.contains(
            "cut off at the output limit (8192 tokens, stop reason max_tokens): a tool call in it \
             was cut off too and did not run"
        ),
        "{out}"
    );
    assert!(!env.project.join("big.txt").exists());
    let sent = requests(&fake)?;
    let next = sent.get(1).ok_or("a second request")?.to_string();
    assert!(
        next.contains("was cut off at the output limit before its arguments were complete"),
        "{next}"
    );
    let repeats = next.matches("line of a large file").count();
    assert!(
        repeats <= 12,
        "only a short head is quoted: {repeats} lines"
    );
    assert!(next.len() < sent[0].to_string().len() + 2_000, "{next}");
    Ok(())
}

/// A model that makes the same call again and again is told where the result already is, then
/// stopped.
#[test]
fn the_same_call_over_and_over_is_nudged_then_stopped() -> TestResult {
    let env = Env::new()?;
    std::fs::write(
        env.project.join("calc.py"),
        "def add(a, b):\n    return a + b\n",
    )?;
    let mut read = Reply::default().with_tool("read", json!({"path": "calc.py"}));
    read.repeat = true;
    let fake = FakeLlm::start(Config::scripted([read]))?;
    let out = env.agent(&fake, &["-p", "fix calc.py"]);
    assert_eq!(out.code, 1, "{out}");
    assert!(
        out.stderr
            .contains("the model called read 5 times in a row with the same arguments"),
        "{out}"
    );
    let sent = requests(&fake)?;
    assert_eq!(sent.len(), 5, "no request after the fifth call");
    let records = env.records(&env.only_session()?)?;
    let results: Vec<&Value> = records
        .iter()
        .filter(|r| r["type"] == "tool_result")
        .collect();
    assert_eq!(results.len(), 5);
    let text = |r: &Value| r["content"][0]["text"].as_str().unwrap_or("").to_owned();
    assert!(text(results[1]).contains("return a + b"));
    let first = records
        .iter()
        .find(|r| r["type"] == "tool_result")
        .and_then(|r| r["seq"].as_u64())
        .ok_or("a first result")?;
    for (r, n) in results[2..].iter().zip(3..) {
        assert!(
            text(r).contains(&format!("This is call {n} in a row of read"))
                && text(r).contains(&format!("already given at t{first}")),
            "{r}"
        );
        assert!(!text(r).contains("return a + b"), "{r}");
    }
    let last = records.last().ok_or("records")?;
    assert_eq!(
        (&last["type"], &last["error"]),
        (&json!("error"), &json!("loop"))
    );
    crate::common::assert_calls_answered(&records);
    Ok(())
}

#[test]
fn an_answer_cut_at_the_output_limit_is_told_in_text_mode() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("The first half").with_stop(Stop::MaxTokens)
    ]))?;
    let out = env
        .agent(&fake, &["-p", "write a lot", "--max-tokens", "500"])
        .ok();
    assert_eq!(out.stdout, "The first half\n", "{out}");
    assert!(
        out.stderr
            .contains("the answer was cut off at the output limit (500 tokens"),
        "{out}"
    );
    Ok(())
}

/// A note in the fold template.
const NOTE: &str = "changed: nothing\nlearned: the answer is 4\ndecided and rejected: none\n\
                    open: nothing\nwhere: t1";

/// A session with one long answered turn (a span a short note can replace); its id.
fn a_session(env: &Env, fake: &FakeLlm, provider: &str, model: &str) -> TestResult<String> {
    env.agent_with(provider, fake, model, &["-p", "what is 2 + 2?"])
        .ok();
    env.only_session()
}

fn long_answer() -> Reply {
    Reply::text(format!(
        "It is 4. {}",
        "Here is why, at length. ".repeat(120)
    ))
}

/// Anthropic hashes tool_choice into its message cache: the note request keeps the tools, a
/// stray call is answered with an error once, and a second one refuses the note, saying so.
#[test]
fn a_note_answered_with_tool_calls_is_refused_saying_what_happened() -> TestResult {
    let env = Env::new()?;
    let call = || Reply::default().with_tool("bash", json!({"command": "ls"}));
    let fake = FakeLlm::start(Config::scripted([long_answer(), call(), call()]))?;
    let id = a_session(&env, &fake, "anthropic", crate::common::MODEL)?;
    let out = env.agent(&fake, &["compact", &id]);
    assert_eq!(out.code, 1, "{out}");
    assert!(
        out.stderr
            .contains("the model called `bash` instead of writing the note"),
        "{out}"
    );
    assert!(
        out.stderr
            .contains(&format!("hotl compact {id} --note-file FILE")),
        "the session named, not a placeholder: {out}"
    );
    let sent = requests(&fake)?;
    assert_eq!(sent.len(), 3);
    assert!(sent[1].get("tool_choice").is_none(), "{}", sent[1]);
    assert!(
        sent[2]
            .to_string()
            .contains("tools are unavailable while writing the note"),
        "the stray call is answered: {}",
        sent[2]
    );
    assert!(sent[1]["max_tokens"].as_u64() <= Some(2048), "{}", sent[1]);
    assert!(
        !env.record_types(&id)?.contains(&"compaction".to_owned()),
        "nothing compacted"
    );
    Ok(())
}

/// OpenAI's dialects (and llama.cpp) leave tool_choice out of the cached prefix: the note is
/// asked with tools off and a small output limit.
#[test]
fn a_note_is_asked_with_tools_off_where_the_cache_survives_it() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([long_answer(), Reply::text(NOTE)]))?;
    let id = a_session(&env, &fake, "openai-chat", LOCAL)?;
    env.agent_with("openai-chat", &fake, LOCAL, &["compact", &id])
        .ok();
    let sent = requests(&fake)?;
    assert_eq!(sent[1]["tool_choice"], "none", "{}", sent[1]);
    assert!(sent[1]["tools"].is_array(), "the tools stay: {}", sent[1]);
    assert!(sent[1]["max_completion_tokens"].as_u64() <= Some(2048));
    assert!(env.record_types(&id)?.contains(&"compaction".to_owned()));
    Ok(())
}

/// A note that ran to the output limit, or one longer than what it replaces, is refused:
/// accepted, it would grow the context it was meant to shrink.
#[test]
fn a_cut_or_oversized_note_is_refused() -> TestResult {
    let env = Env::new()?;
    let runaway = format!("{NOTE}\n{}", "open: again\n".repeat(50));
    let fake = FakeLlm::start(Config::scripted([
        Reply::text("4."),
        Reply::text(runaway).with_stop(Stop::MaxTokens),
        Reply::text(format!("{NOTE}\nwhere: {}", "x".repeat(3000))),
        Reply::text(format!("{NOTE}\nwhere: {}", "y".repeat(3000))),
    ]))?;
    let id = a_session(&env, &fake, "anthropic", crate::common::MODEL)?;
    let cut = env.agent(&fake, &["compact", &id]);
    assert_eq!(cut.code, 1, "{cut}");
    assert!(
        cut.stderr.contains("the note stopped at the output limit"),
        "{cut}"
    );
    let long = env.agent(&fake, &["compact", &id]);
    assert_eq!(long.code, 1, "{long}");
    assert!(
        long.stderr.contains("is longer than what it would replace"),
        "{long}"
    );
    assert!(!env.record_types(&id)?.contains(&"compaction".to_owned()));
    Ok(())
}

/// A window smaller than hotl's own system prompt and tools: said before anything is sent
/// when the window is known, and on the first refusal when it was not; nothing is compacted
/// and the user's message is not blamed.
#[test]
fn a_window_smaller_than_the_fixed_prompt_is_named_as_the_cause() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([Reply::text("never")]).with_context_window(1024))?;
    let out = env.agent_with("openai-chat", &fake, LOCAL, &["-p", "what is 2 + 2?"]);
    assert_eq!(out.code, 1, "{out}");
    assert!(
        out.stderr.contains(
            "the system prompt and tool definitions alone take ~1" // ~1,2xx tokens
        ) && out
            .stderr
            .contains("more than the server's 1024-token window"),
        "{out}"
    );
    assert!(requests(&fake)?.is_empty(), "nothing sent");

    // The window configured wrong (too large): the server's refusal says it.
    let mut cmd = env.agent_command();
    cmd.env("HOTL_CONTEXT_WINDOW", "100000")
        .args(["--provider", "openai-chat", "--base-url"])
        .arg(fake.base_url())
        .args(["--model", LOCAL, "-p", "what is 2 + 2?"]);
    let out = crate::common::run(cmd);
    assert_eq!(out.code, 1, "{out}");
    assert!(
        out.stderr
            .contains("more than the server's 1024-token window"),
        "{out}"
    );
    assert!(!out.stderr.contains("shorten"), "{out}");
    assert_eq!(requests(&fake)?.len(), 1, "no compaction was tried");
    Ok(())
}

/// A local server whose chat template drops tools is warned of once at start.
#[test]
fn a_server_whose_template_ignores_tools_is_warned_of() -> TestResult {
    let env = Env::new()?;
    let mut config =
        Config::scripted([Reply::text("ok"), Reply::text("ok")]).with_context_window(8192);
    config.template_ignores_tools = true;
    let fake = FakeLlm::start(config)?;
    let out = env
        .agent_with("openai-chat", &fake, LOCAL, &["-p", "hi"])
        .ok();
    assert_eq!(
        out.stderr
            .matches("this server's chat template ignores tools")
            .count(),
        1,
        "{out}"
    );
    let fine = FakeLlm::start(Config::scripted([Reply::text("ok")]).with_context_window(8192))?;
    let out = env
        .agent_with("openai-chat", &fine, LOCAL, &["-p", "hi"])
        .ok();
    assert!(!out.stderr.contains("ignores tools"), "{out}");
    Ok(())
}

/// Right after a fold no answer has measured the context: a compaction says so rather than
/// "0% of the window".
#[test]
fn a_compaction_right_after_a_fold_says_the_fill_is_unknown() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([long_answer(), Reply::text(NOTE)]))?;
    let id = a_session(&env, &fake, "anthropic", crate::common::MODEL)?;
    let note = env.scratch("note.txt", NOTE.as_bytes())?;
    env.run(&["fold", &id, "--note-file", &note.display().to_string()])
        .ok();
    let out = env.agent(&fake, &["compact", &id]).ok();
    assert!(
        out.stderr.contains("will be known after the next answer"),
        "{out}"
    );
    assert!(!out.stderr.contains("0% of the window"), "{out}");
    Ok(())
}

/// Local models write tool arguments across lines; stream-json still prints one event per
/// line, the arguments' text otherwise as written.
#[test]
fn stream_json_keeps_one_event_per_line_when_arguments_span_lines() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([]))?;
    let chunk = |delta: Value, finish: Value| {
        format!(
            "data: {}\n\n",
            json!({"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": LOCAL,
                   "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        )
    };
    let call = json!({"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
        "function": {"name": "ls", "arguments": "{\n    \"path\": \".\"\n  }"}}]});
    let body = [
        chunk(json!({"role": "assistant", "content": null}), Value::Null),
        chunk(call, Value::Null),
        chunk(json!({}), json!("tool_calls")),
        "data: [DONE]\n\n".to_owned(),
    ]
    .concat();
    fake.push_replay(&hotl_fakellm::Recording::from_bytes(
        body,
        hotl_fakellm::Dialect::OpenAiChat,
    )?);
    fake.push_reply(Reply::text("Listed."));
    let out = env
        .agent_with(
            "openai-chat",
            &fake,
            LOCAL,
            &["-p", "list", "--output-format", "stream-json"],
        )
        .ok();
    let events: Vec<Value> = out
        .stdout
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()?;
    let used = events
        .iter()
        .find(|e| e["type"] == "tool_use")
        .ok_or("a tool_use line")?;
    assert_eq!(used["input"], json!({"path": "."}), "{used}");
    assert!(
        out.stdout.contains(r#""input":{     "path": "."   }"#),
        "{out}"
    );
    // And the log keeps one record per line.
    let records = env.records(&env.only_session()?)?;
    crate::common::assert_calls_answered(&records);
    Ok(())
}

#[test]
fn a_result_larger_than_a_small_window_leaves_is_cut_to_its_share() -> TestResult {
    let env = Env::new()?;
    let readme: String = (1..=300)
        .map(|i| format!("line {i} of a readme that goes on for a while\n"))
        .collect();
    std::fs::write(env.project.join("README.md"), &readme)?;
    let fake = FakeLlm::start(
        Config::scripted([
            Reply::default().with_tool("read", json!({"path": "README.md"})),
            Reply::text("It is a readme."),
        ])
        .with_context_window(4096),
    )?;
    let out = env
        .agent_with(
            "openai-chat",
            &fake,
            LOCAL,
            &["-p", "read the README", "--output-format", "stream-json"],
        )
        .ok();
    let records = env.records(&env.only_session()?)?;
    let result = records
        .iter()
        .find(|r| r["type"] == "tool_result")
        .ok_or("a result")?;
    let text = result["content"][0]["text"].as_str().unwrap_or("");
    // A quarter of what the window leaves after the prompt, the rest one read away.
    assert!(text.len() < 4_000, "{} characters: {text}", text.len());
    assert!(text.contains("line 1 of a readme"), "{text}");
    assert!(text.contains("line 300 of a readme"), "{text}");
    assert!(
        text.contains("left out to fit the model's 4096-token window"),
        "{text}"
    );
    let blob = result["blob"].as_str().ok_or("a blob")?;
    let stored = std::fs::read_to_string(env.home.join("blobs").join(&blob[..2]).join(blob))?;
    assert!(
        stored.contains("line 150 of a readme"),
        "the whole result is kept"
    );
    // What stream-json showed is what the model was given.
    let shown: Vec<Value> = out
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .filter(|e: &Value| e["type"] == "tool_result")
        .collect();
    assert_eq!(shown.len(), 1, "{}", out.stdout);
    assert_eq!(shown[0]["content"].as_str(), Some(text), "{}", shown[0]);
    Ok(())
}

#[test]
fn stream_json_shows_a_repeated_call_as_the_model_was_given_it() -> TestResult {
    let env = Env::new()?;
    std::fs::write(
        env.project.join("calc.py"),
        "def add(a, b):\n    return a + b\n",
    )?;
    let mut read = Reply::default().with_tool("read", json!({"path": "calc.py"}));
    read.repeat = true;
    let fake = FakeLlm::start(Config::scripted([read]))?;
    let out = env.agent(
        &fake,
        &["-p", "fix calc.py", "--output-format", "stream-json"],
    );
    assert_eq!(out.code, 1, "{out}");
    let shown: Vec<Value> = out
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .filter(|e: &Value| e["type"] == "tool_result")
        .collect();
    let records = env.records(&env.only_session()?)?;
    let logged: Vec<&Value> = records
        .iter()
        .filter(|r| r["type"] == "tool_result")
        .collect();
    assert_eq!(shown.len(), logged.len(), "{}", out.stdout);
    for (event, record) in shown.iter().zip(&logged) {
        assert_eq!(
            event["content"].as_str(),
            record["content"][0]["text"].as_str(),
            "{event}"
        );
        assert_eq!(
            event["is_error"].as_bool().unwrap_or(false),
            record["is_error"].as_bool().unwrap_or(false),
            "{event}"
        );
    }
    Ok(())
}

#[test]
fn a_request_twice_the_window_is_not_sent_and_the_error_names_what_fills_it() -> TestResult {
    let env = Env::new()?;
    let big: String = (1..=1500)
        .map(|i| format!("line {i} of a long file that fills a small window\n"))
        .collect();
    std::fs::write(env.project.join("big.txt"), &big)?;
    // Read on a large window: the result is whole (its share of 128K is large).
    let fake = FakeLlm::start(Config::scripted([
        Reply::default().with_tool("read", json!({"path": "big.txt"})),
        Reply::text("Read it."),
    ]))?;
    env.agent_with(
        "openai-chat",
        &fake,
        "qwen2.5-coder",
        &["-p", "read big.txt"],
    )
    .ok();
    let id = env.only_session()?;
    // Then on a 4K server: the note a weak model writes is refused, and what is left is far
    // more than the window.
    let small = FakeLlm::start(
        Config::scripted((0..4).map(|_| Reply::text("I am not sure what you want.")))
            .with_context_window(4096),
    )?;
    let out = env
        .agent_with("openai-chat", &small, LOCAL, &["-r", &id, "-p", "and now?"])
        .fails(1);
    assert!(out.stderr.contains("so it was not sent"), "{out}");
    assert!(
        out.stderr.contains("the tool result at t") && out.stderr.contains("hotl compact"),
        "{out}"
    );
    assert!(out.stderr.contains(&id), "the id, not a placeholder: {out}");
    let sent = requests(&small)?;
    // Only note requests went out, never the turn's own.
    assert!(!sent.is_empty());
    for r in &sent {
        let last = r["messages"]
            .as_array()
            .and_then(|m| m.last())
            .map(Value::to_string)
            .unwrap_or_default();
        assert!(last.contains("decided and rejected"), "{last}");
    }
    Ok(())
}

#[test]
fn an_answer_that_is_a_call_written_as_text_is_told() -> TestResult {
    let env = Env::new()?;
    let fake = FakeLlm::start(Config::scripted([Reply::text(
        "<tool_call>\n{\"name\": \"read\", \"arguments\": {\"path\": \"calc.py\"}}\n</tool_call>",
    )]))?;
    let out = env
        .agent_with("openai-chat", &fake, LOCAL, &["-p", "read calc.py"])
        .ok();
    assert!(
        out.stderr
            .contains("the server's chat template did not parse it as a call"),
        "{out}"
    );
    Ok(())
}

#[test]
fn a_repeated_command_is_not_run_again_once_it_is_nudged() -> TestResult {
    let env = Env::new()?;
    let mut append =
        Reply::default().with_tool("bash", json!({"command": "echo once >> count.txt"}));
    append.repeat = true;
    let fake = FakeLlm::start(Config::scripted([append]))?;
    let out = env.agent(
        &fake,
        &[
            "-p",
            "count",
            "--permission-mode",
            "bypass",
            "--sandbox",
            "off",
        ],
    );
    assert_eq!(out.code, 1, "{out}");
    assert!(out.stderr.contains("5 times in a row"), "{out}");
    // The first two ran; the three after them were answered without running.
    assert_eq!(
        std::fs::read_to_string(env.project.join("count.txt"))?,
        "once\nonce\n"
    );
    let records = env.records(&env.only_session()?)?;
    let nudged = records
        .iter()
        .filter(|r| r["type"] == "tool_result" && r.to_string().contains("it was not run again"))
        .count();
    assert_eq!(nudged, 3, "{records:?}");
    crate::common::assert_calls_answered(&records);
    Ok(())
}
