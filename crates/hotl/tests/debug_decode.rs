//! `hotl debug decode`: recorded provider streams printed as neutral events, one JSON object per
//! line; a malformed or cut stream prints what decoded and fails.

use hotl_testkit::TestResult;

use crate::common::Env;

/// The recorded provider streams (see `fixtures/wire/README.md`).
const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/wire/");

/// Runs `hotl debug decode --dialect <dialect> <file>`, with the fixture directory shown as
/// `[FIXTURES]/` so the snapshot does not depend on where the checkout lives.
fn decode(env: &Env, dialect: &str, file: &str) -> String {
    let path = if file.starts_with('.') {
        file.to_owned()
    } else {
        format!("{FIXTURES}{file}")
    };
    let run = env.run(&["debug", "decode", "--dialect", dialect, &path]);
    run.to_string().replace(FIXTURES, "[FIXTURES]/")
}

#[test]
fn raw_chat_stream_decodes_to_events() -> TestResult {
    let env = Env::new()?;
    let out = decode(
        &env,
        "openai-chat",
        "openai-chat/4cc50a6135d254573a502310e6af1246f55edb6ad95fa24059f160996b68866d.bin",
    );
    insta::assert_snapshot!(out, @r#"
    {"event":"start","id":"chatcmpl-ABfw3Oqj8RD0z6aJiiX37oTjV2HFh","model":"gpt-4o-2024-08-06"}
    {"event":"text_delta","text":"{\""}
    {"event":"usage","input":79,"cache_read":0,"cache_write_5m":0,"cache_write_1h":0,"output":1,"thinking":0}
    {"event":"stop","reason":"truncated","raw":"length"}
    "#);
    Ok(())
}

#[test]
fn json_lines_of_responses_payloads_are_framed_and_decoded() -> TestResult {
    let env = Env::new()?;
    let out = decode(
        &env,
        "openai-responses",
        "openai-responses/issue-19493-gpt-5.1-tool-call.chunks.txt",
    );
    insta::assert_snapshot!(out, @r#"
    {"event":"start","id":"resp_0775572d10a16b66006a8d85285ef487d2ae865d3657af7276","model":"gpt-5.1-2025-11-13"}
    {"event":"tool_call_start","key":"fc_0775572d10a16b66006a8d8528e8a887d2a32ef76463d40c98","id":"call_2FQdm3Br7Qb35YUBSkDR7kue","name":"get_weather"}
    {"event":"tool_call_args","key":"fc_0775572d10a16b66006a8d8528e8a887d2a32ef76463d40c98","fragment":"{\""}
    {"event":"tool_call_args","key":"fc_0775572d10a16b66006a8d8528e8a887d2a32ef76463d40c98","fragment":"city"}
    {"event":"tool_call_args","key":"fc_0775572d10a16b66006a8d8528e8a887d2a32ef76463d40c98","fragment":"\":\""}
    {"event":"tool_call_args","key":"fc_0775572d10a16b66006a8d8528e8a887d2a32ef76463d40c98","fragment":"Be"}
    {"event":"tool_call_args","key":"fc_0775572d10a16b66006a8d8528e8a887d2a32ef76463d40c98","fragment":"ijing"}
    {"event":"tool_call_args","key":"fc_0775572d10a16b66006a8d8528e8a887d2a32ef76463d40c98","fragment":"\"}"}
    {"event":"tool_call_end","key":"fc_0775572d10a16b66006a8d8528e8a887d2a32ef76463d40c98"}
    {"event":"usage","input":45,"cache_read":0,"cache_write_5m":0,"cache_write_1h":0,"output":25,"thinking":0}
    {"event":"stop","reason":"tool_use","raw":"completed"}
    "#);
    Ok(())
}

/// The SDK's recording ends without the blank line after `message_stop`: by the SSE rules
/// that event is dropped, so the stream is incomplete.
#[test]
fn a_recording_that_lost_its_closing_message_stop_keeps_the_stop_message_delta_gave() -> TestResult
{
    let env = Env::new()?;
    // The recording ends right after its last `data:` line: the `message_stop` is never
    // dispatched, but `message_delta` had said `end_turn` and every block was closed.
    let out = decode(&env, "anthropic", "anthropic/basic_response.txt");
    insta::assert_snapshot!(out, @r#"
    {"event":"start","id":"msg_4QpJur2dWWDjF6C758FbBw5vm12BaVipnK","model":"claude-3-opus-latest"}
    {"event":"usage","input":11,"cache_read":0,"cache_write_5m":0,"cache_write_1h":0,"output":1,"thinking":0}
    {"event":"text_delta","text":"Hello"}
    {"event":"text_delta","text":" there"}
    {"event":"text_delta","text":"!"}
    {"event":"usage","input":11,"cache_read":0,"cache_write_5m":0,"cache_write_1h":0,"output":6,"thinking":0}
    {"event":"stop","reason":"done","raw":"end_turn"}
    "#);
    Ok(())
}

#[test]
fn a_file_that_is_not_a_stream_fails_clearly() -> TestResult {
    let env = Env::new()?;
    env.scratch("page.html", b"<html><body>502 Bad Gateway</body></html>\n")?;
    let out = decode(&env, "anthropic", "../page.html");
    insta::assert_snapshot!(out, @r#"
    [stderr]
    hotl: ../page.html: response is not an event stream; it starts with "<html><body>502 Bad Gateway</body></html>"
    [exit status: 1]
    "#);
    let out = decode(&env, "anthropic", "../missing.txt");
    assert!(out.contains("hotl: cannot read ../missing.txt"), "{out}");
    Ok(())
}

#[test]
fn an_unknown_dialect_is_a_usage_error() -> TestResult {
    let env = Env::new()?;
    let run = env.run(&["debug", "decode", "--dialect", "gemini", "x"]);
    assert_eq!(run.code, 2, "{run}");
    assert!(
        run.stderr
            .contains("possible values: anthropic, openai-chat, openai-responses")
    );
    Ok(())
}
