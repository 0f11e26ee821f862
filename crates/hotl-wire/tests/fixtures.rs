//! The recorded provider streams under `fixtures/wire` and how to decode them.

use hotl_testkit::TestResult;
use hotl_wire::{Event, Flow, StreamDecoder};
use serde::Serialize;

/// Where the recordings live (see `fixtures/wire/README.md`).
pub const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/wire/");

/// One recorded file.
pub struct Fixture {
    /// Path under [`DIR`].
    pub path: &'static str,
    /// `anthropic`, `openai-chat` or `openai-responses`.
    pub dialect: &'static str,
    /// A short name for snapshots.
    pub name: &'static str,
}

/// Every recording, by dialect.
pub const ALL: &[Fixture] = &[
    Fixture {
        path: "anthropic/basic_response.txt",
        dialect: "anthropic",
        name: "anthropic_basic",
    },
    Fixture {
        path: "anthropic/tool_use_response.txt",
        dialect: "anthropic",
        name: "anthropic_tool_use",
    },
    Fixture {
        path: "anthropic/anthropic-claude-sonnet-5-reasoning-summarized.chunks.txt",
        dialect: "anthropic",
        name: "anthropic_sonnet5_thinking",
    },
    Fixture {
        path: "openai-chat/f82268f2fefd5cfbc7eeb59c297688be2f6ca0849a6e4f17851b517310841d9b.bin",
        dialect: "openai-chat",
        name: "chat_parallel_tool_calls",
    },
    Fixture {
        path: "openai-chat/4cc50a6135d254573a502310e6af1246f55edb6ad95fa24059f160996b68866d.bin",
        dialect: "openai-chat",
        name: "chat_length",
    },
    Fixture {
        path: "openai-chat/e2aad469b71d1d4894ff833ea147020a9d875eb7ce644a0ff355581690a4cbfd.bin",
        dialect: "openai-chat",
        name: "chat_text",
    },
    Fixture {
        path: "openai-responses/issue-19493-gpt-5.1-tool-call.chunks.txt",
        dialect: "openai-responses",
        name: "responses_tool_call",
    },
    Fixture {
        path: "openai-responses/openai-reasoning-encrypted-content.1.chunks.txt",
        dialect: "openai-responses",
        name: "responses_reasoning_encrypted",
    },
];

/// A fresh decoder for `dialect`.
pub fn decoder(dialect: &str) -> StreamDecoder {
    StreamDecoder::for_dialect(dialect).expect("a known dialect")
}

impl Fixture {
    /// The file's bytes.
    pub fn bytes(&self) -> TestResult<Vec<u8>> {
        Ok(std::fs::read(format!("{DIR}{}", self.path))?)
    }

    /// The file as one SSE body, exactly as a server would send it (JSONL re-framed).
    pub fn body(&self) -> TestResult<Vec<u8>> {
        let bytes = self.bytes()?;
        Ok(decoder(self.dialect).sse_body(&bytes)?.into_owned())
    }

    /// The recorded responses as complete SSE bodies: a JSONL file holding several responses is
    /// split before each `response.created` (the README's note 3), and a body whose last event
    /// lacks its closing blank line (note 1) gets one.
    pub fn responses(&self) -> TestResult<Vec<Vec<u8>>> {
        let bytes = self.bytes()?;
        let mut parts: Vec<Vec<u8>> = Vec::new();
        if bytes.starts_with(b"{") {
            for line in bytes.split(|&b| b == b'\n') {
                let starts = line.starts_with(br#"{"type": "response.created""#)
                    || line.starts_with(br#"{"type":"response.created""#);
                if starts || parts.is_empty() {
                    parts.push(Vec::new());
                }
                let part = parts.last_mut().expect("pushed above");
                part.extend_from_slice(line);
                part.push(b'\n');
            }
        } else {
            parts.push(bytes);
        }
        let mut bodies = Vec::new();
        for part in parts {
            let mut body = decoder(self.dialect).sse_body(&part)?.into_owned();
            while !body.ends_with(b"\n\n") {
                body.push(b'\n');
            }
            bodies.push(body);
        }
        Ok(bodies)
    }
}

/// What decoding one body gave: its events, and how it ended.
#[derive(Debug, PartialEq, Serialize)]
pub struct Decoded {
    /// The events in order.
    pub events: Vec<Event>,
    /// `complete`, or the error's message.
    pub outcome: String,
}

/// Decodes `body` fed in the chunks that `cuts` (sorted offsets) make.
pub fn decode_cut(dialect: &str, body: &[u8], cuts: &[usize]) -> Decoded {
    let mut decoder = decoder(dialect);
    let mut events = Vec::new();
    let mut start = 0;
    let ends = cuts.iter().copied().chain([body.len()]);
    let mut result = Ok(());
    for end in ends {
        let end = end.clamp(start, body.len());
        match decoder.feed(&body[start..end], &mut events) {
            Ok(Flow::Continue) => start = end,
            Ok(Flow::Stop) => break,
            Err(e) => {
                result = Err(e);
                break;
            }
        }
    }
    if result.is_ok() {
        result = decoder.finish(&mut events);
    }
    Decoded {
        events,
        outcome: match result {
            Ok(()) => "complete".to_owned(),
            Err(e) => format!("error: {e}"),
        },
    }
}

/// Decodes `body` whole.
pub fn decode(dialect: &str, body: &[u8]) -> Decoded {
    decode_cut(dialect, body, &[])
}

/// Decodes `body` fed one byte at a time.
pub fn decode_bytewise(dialect: &str, body: &[u8]) -> Decoded {
    let cuts: Vec<usize> = (1..body.len()).collect();
    decode_cut(dialect, body, &cuts)
}
