//! Writes a Claude Code session of about the size asked for, shaped like real ones: typed
//! prompts, responses streamed as several chunks (thinking, text, parallel tool calls) sharing
//! a message id, tool results as siblings, file-history snapshots; every uuid fresh.
//!
//! `cargo run --release -p hotl-import --example gen-claude -- OUT.jsonl [MEGABYTES]`

use std::io::Write;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let out = args
        .next()
        .ok_or("usage: gen-claude OUT.jsonl [MEGABYTES]")?;
    let megabytes: usize = args.next().map_or(Ok(50), |m| m.parse())?;
    let target = megabytes * 1_000_000;
    let mut file = std::io::BufWriter::new(std::fs::File::create(&out)?);
    let mut written = 0;
    let mut n: u64 = 0;
    let mut uuid = || {
        n += 1;
        format!("{:08x}-0000-4000-8000-{:012x}", n >> 16, n)
    };
    let session = "0b5e55ed-0000-4000-8000-000000000001";
    let output = "fn main() {\n    println!(\"hello\");\n}\n".repeat(40);
    let mut parent: Option<String> = None;
    let mut turn = 0;
    while written < target {
        turn += 1;
        let mut lines = Vec::new();
        let prompt = uuid();
        lines.push(serde_json::json!({"parentUuid": parent, "isSidechain": false,
            "userType": "external", "cwd": "/tmp/bench", "sessionId": session,
            "version": "2.1.7", "gitBranch": "main", "type": "user",
            "message": {"role": "user", "content": format!("step {turn}: read the files and fix the failing test")},
            "uuid": prompt, "timestamp": "2026-01-14T19:20:03.207Z"}));
        lines.push(
            serde_json::json!({"type": "file-history-snapshot", "messageId": prompt,
            "snapshot": {"trackedFileBackups": {}, "timestamp": "2026-01-14T19:20:03.207Z"},
            "isSnapshotUpdate": false}),
        );
        let mut last = prompt;
        for step in 0..4 {
            let msg = format!("msg_{turn}_{step}");
            let calls = if step == 3 { 0 } else { 3 };
            let mut chunk = |content: serde_json::Value, parent: &str| {
                let id = uuid();
                let line = serde_json::json!({"parentUuid": parent, "isSidechain": false,
                    "cwd": "/tmp/bench", "sessionId": session, "version": "2.1.7",
                    "type": "assistant", "requestId": format!("req_{msg}"),
                    "message": {"id": msg, "model": "claude-sonnet-4-5-20250929",
                        "role": "assistant", "type": "message", "content": [content],
                        "stop_reason": null,
                        "usage": {"input_tokens": 9, "cache_read_input_tokens": 18000,
                            "cache_creation_input_tokens": 400, "output_tokens": 120}},
                    "uuid": id, "timestamp": "2026-01-14T19:20:07.835Z"});
                (id, line)
            };
            let (id, line) = chunk(
                serde_json::json!({"type": "thinking", "thinking": "Let me look at the test output first and then the source it exercises.", "signature": "EqQBCkYIBxgCKkBsig"}),
                &last,
            );
            lines.push(line);
            last = id;
            let (id, line) = chunk(
                serde_json::json!({"type": "text", "text": "I'll read the relevant files."}),
                &last,
            );
            lines.push(line);
            last = id;
            let mut call_chunks = Vec::new();
            for c in 0..calls {
                let (id, line) = chunk(
                    serde_json::json!({"type": "tool_use", "id": format!("toolu_{turn}_{step}_{c}"),
                        "name": "Read", "input": {"file_path": format!("/tmp/bench/src/m{c}.rs")}}),
                    &last,
                );
                lines.push(line);
                call_chunks.push(id.clone());
                last = id;
            }
            for (c, call_chunk) in call_chunks.iter().enumerate().rev() {
                let id = uuid();
                lines.push(serde_json::json!({"parentUuid": call_chunk, "isSidechain": false,
                    "cwd": "/tmp/bench", "sessionId": session, "version": "2.1.7", "type": "user",
                    "message": {"role": "user", "content": [{"tool_use_id": format!("toolu_{turn}_{step}_{c}"),
                        "type": "tool_result", "content": output}]},
                    "uuid": id, "timestamp": "2026-01-14T19:20:09.100Z",
                    "toolUseResult": {"type": "text", "file": {"filePath": format!("/tmp/bench/src/m{c}.rs"),
                        "numLines": 120, "startLine": 1, "totalLines": 120}}}));
                last = id;
            }
        }
        for line in lines {
            let bytes = serde_json::to_vec(&line)?;
            file.write_all(&bytes)?;
            file.write_all(b"\n")?;
            written += bytes.len() + 1;
        }
        parent = Some(last);
    }
    file.flush()?;
    eprintln!("{out}: {written} bytes, {turn} turns");
    Ok(())
}
