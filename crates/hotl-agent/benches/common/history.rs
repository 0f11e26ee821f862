//! The history the agent benchmarks open: a realistic log of turns with tool calls and outputs
//! of mixed sizes.

use hotl_log::{Block, Body, Record, SessionStart, encode_line};

/// How many records a history holds.
pub const RECORDS: u64 = 10_000;

/// A realistic 10,000-record log: turns of a question, tool calls and outputs of mixed sizes,
/// and an answer.
pub fn history(cwd: &str, id: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let mut seq = 0u64;
    let push = |seq: &mut u64, body: Body, out: &mut Vec<u8>| {
        *seq += 1;
        let record = Record::new(*seq, "2026-11-01T00:00:00.000Z", body);
        out.extend(encode_line(&record).expect("encodes"));
    };
    let mut start = SessionStart::new(cwd);
    start.id = id.to_owned();
    start.model = Some("claude-sonnet-5".to_owned());
    push(&mut seq, Body::Session(Box::new(start)), &mut out);
    let mut n = 0u64;
    while seq < RECORDS {
        n += 1;
        push(
            &mut seq,
            Body::user_text(format!("question {n}: what does module {n} do?")),
            &mut out,
        );
        for step in 0..3 {
            let call = format!("toolu_{n}_{step}");
            push(
                &mut seq,
                Body::Assistant {
                    content: vec![Block::ToolUse {
                        id: call.clone(),
                        name: "read".into(),
                        input: serde_json::json!({"path": format!("src/m{n}_{step}.rs")}).into(),
                    }],
                    model: Some("claude-sonnet-5".into()),
                    stop: Some("tool_use".into()),
                    stop_raw: None,
                    usage: None,
                },
                &mut out,
            );
            let size = [200, 800, 2400][(n as usize + step) % 3];
            push(
                &mut seq,
                Body::ToolResult {
                    call,
                    content: vec![Block::text("fn body() { let x = 1; }\n".repeat(size / 25))],
                    blob: None,
                    is_error: false,
                    files: vec![],
                },
                &mut out,
            );
        }
        push(
            &mut seq,
            Body::Assistant {
                content: vec![Block::text(format!(
                    "Module {n} parses the config and validates it."
                ))],
                model: Some("claude-sonnet-5".into()),
                stop: Some("end_turn".into()),
                stop_raw: None,
                usage: None,
            },
            &mut out,
        );
    }
    out
}
