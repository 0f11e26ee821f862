//! Recordings: SSE bodies served byte for byte. Raw SSE files are kept as they are; JSON
//! Lines payload files (vercel/ai `*.chunks.txt`) are re-framed per the fixtures README and
//! split into one response per recorded stream.

use std::path::Path;

use bytes::Bytes;

use crate::config::Dialect;
use crate::error::{FakeError, IoResultExt, Result};
use crate::json::Json;
use crate::script::Entry;

/// One or more recorded response bodies, ready to serve in order.
#[derive(Clone, Debug)]
pub struct Recording {
    bodies: Vec<Bytes>,
}

impl Recording {
    /// Reads a recording file (raw SSE or JSON Lines payloads; detected from its first
    /// non-blank line).
    pub fn load(path: &Path, dialect: Dialect) -> Result<Recording> {
        let bytes = std::fs::read(path).at(path)?;
        let name = path.display().to_string();
        Recording::parse(&name, Bytes::from(bytes), dialect)
    }

    /// A recording from bytes already in memory.
    pub fn from_bytes(bytes: impl Into<Bytes>, dialect: Dialect) -> Result<Recording> {
        Recording::parse("<bytes>", bytes.into(), dialect)
    }

    fn parse(name: &str, bytes: Bytes, dialect: Dialect) -> Result<Recording> {
        let first = bytes
            .split(|b| *b == b'\n')
            .find(|l| !l.iter().all(u8::is_ascii_whitespace));
        let bodies = match first {
            None => {
                return Err(FakeError::Recording {
                    name: name.to_string(),
                    reason: "the file is empty".to_string(),
                });
            }
            Some(line) if line.first() == Some(&b'{') => reframe(name, &bytes, dialect)?,
            Some(_) => vec![bytes],
        };
        Ok(Recording { bodies })
    }

    /// The response bodies, one per HTTP response.
    pub fn bodies(&self) -> &[Bytes] {
        &self.bodies
    }

    /// Script entries serving these bodies in order.
    pub fn entries(&self) -> Vec<Entry> {
        self.bodies.iter().cloned().map(Entry::Replay).collect()
    }
}

/// Re-frames JSON Lines payloads, keeping each line's bytes; a new response starts at each
/// `message_start` (Anthropic) or `response.created` (Responses) after the first line.
fn reframe(name: &str, bytes: &[u8], dialect: Dialect) -> Result<Vec<Bytes>> {
    let mut bodies: Vec<Vec<u8>> = Vec::new();
    for (i, raw) in bytes.split(|b| *b == b'\n').enumerate() {
        let line = raw.strip_suffix(b"\r").unwrap_or(raw);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let json = Json::parse(line).map_err(|e| FakeError::Recording {
            name: name.to_string(),
            reason: format!("line {}: {e}", i + 1),
        })?;
        let kind = json.str_of("type").unwrap_or_default().to_string();
        let starts = matches!(kind.as_str(), "message_start" | "response.created");
        if bodies.is_empty() || (starts && dialect != Dialect::OpenAiChat) {
            bodies.push(Vec::new());
        }
        let Some(body) = bodies.last_mut() else {
            continue;
        };
        if dialect != Dialect::OpenAiChat {
            body.extend_from_slice(b"event: ");
            body.extend_from_slice(kind.as_bytes());
            body.push(b'\n');
        }
        body.extend_from_slice(b"data: ");
        body.extend_from_slice(line);
        body.extend_from_slice(b"\n\n");
    }
    if dialect == Dialect::OpenAiChat
        && let Some(body) = bodies.last_mut()
    {
        body.extend_from_slice(b"data: [DONE]\n\n");
    }
    Ok(bodies.into_iter().map(Bytes::from).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jsonl_is_reframed_and_split_per_stream() {
        let text = "{\"type\":\"response.created\",\"sequence_number\":0}\n{\"type\":\"response.completed\" }\n\n{\"type\":\"response.created\"}";
        let r = Recording::from_bytes(text.as_bytes().to_vec(), Dialect::OpenAiResponses).unwrap();
        assert_eq!(r.bodies().len(), 2);
        assert_eq!(
            r.bodies()[0].as_ref(),
            b"event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0}\n\nevent: response.completed\ndata: {\"type\":\"response.completed\" }\n\n"
        );
        let chat = Recording::from_bytes(&b"{\"id\":1}\n"[..], Dialect::OpenAiChat).unwrap();
        assert_eq!(
            chat.bodies()[0].as_ref(),
            b"data: {\"id\":1}\n\ndata: [DONE]\n\n"
        );
        let raw = Recording::from_bytes(&b"event: ping\ndata: {}"[..], Dialect::Anthropic).unwrap();
        assert_eq!(raw.bodies()[0].as_ref(), b"event: ping\ndata: {}");
    }
}
