//! Turning rendered events into an HTTP body: SSE framing, then the byte-level faults
//! (re-chunking, slow chunks, a dropped connection).

use std::io;
use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::response::Response;
use bytes::{Bytes, BytesMut};

use crate::fault::Fault;
use crate::json::Json;

/// One SSE event: an optional `event:` name and one `data:` payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Event {
    pub name: Option<String>,
    pub data: String,
}

impl Event {
    /// `event: <name>\ndata: <json>\n\n` (Anthropic, Responses).
    pub(crate) fn named(name: &str, data: &Json) -> Event {
        Event {
            name: Some(name.to_string()),
            data: data.to_compact(),
        }
    }

    /// `data: <text>\n\n` (Chat Completions).
    pub(crate) fn data(data: impl Into<String>) -> Event {
        Event {
            name: None,
            data: data.into(),
        }
    }

    /// The framed bytes.
    pub(crate) fn frame(&self) -> Bytes {
        let mut s = String::with_capacity(self.data.len() + 32);
        if let Some(name) = &self.name {
            s.push_str("event: ");
            s.push_str(name);
            s.push('\n');
        }
        s.push_str("data: ");
        s.push_str(&self.data);
        s.push_str("\n\n");
        Bytes::from(s)
    }
}

/// Splits a recorded SSE body into its events (each keeps its blank-line terminator), so
/// faults that count events also work on replays.
pub(crate) fn split_events(body: &Bytes) -> Vec<Bytes> {
    let mut units = Vec::new();
    let mut start = 0;
    let mut i = 0;
    let b = body.as_ref();
    while i < b.len() {
        let end = if b[i..].starts_with(b"\r\n\r\n") {
            Some(i + 4)
        } else if b[i..].starts_with(b"\n\n") || b[i..].starts_with(b"\r\r") {
            Some(i + 2)
        } else {
            None
        };
        match end {
            Some(e) => {
                units.push(body.slice(start..e));
                start = e;
                i = e;
            }
            None => i += 1,
        }
    }
    if start < b.len() {
        units.push(body.slice(start..));
    }
    units
}

/// A streaming response whose body is `units` (one chunk each unless the fault re-chunks).
pub(crate) fn stream_response(
    units: Vec<Bytes>,
    fault: Option<&Fault>,
    headers: Vec<(&'static str, String)>,
) -> Response {
    let mut headers = headers;
    headers.push((
        "content-type",
        "text/event-stream; charset=utf-8".to_string(),
    ));
    headers.push(("cache-control", "no-cache".to_string()));
    respond(units, fault, headers)
}

/// A JSON response, subject to the byte-level faults too.
pub(crate) fn json_response(
    body: &Json,
    fault: Option<&Fault>,
    headers: Vec<(&'static str, String)>,
) -> Response {
    let mut headers = headers;
    headers.push(("content-type", "application/json".to_string()));
    respond(vec![Bytes::from(body.to_compact())], fault, headers)
}

enum Piece {
    Data(Bytes),
    Drop,
}

fn respond(units: Vec<Bytes>, fault: Option<&Fault>, headers: Vec<(&str, String)>) -> Response {
    let pieces = plan(units, fault);
    let delay = Duration::from_millis(fault.and_then(|f| f.chunk_delay_ms).unwrap_or(0));
    let hold = fault.and_then(|f| f.hold.clone());
    let stream =
        futures_util::stream::unfold((pieces.into_iter(), true), move |(mut it, first)| {
            let hold = hold.clone();
            async move {
                let piece = it.next()?;
                if !first && !delay.is_zero() {
                    tokio::time::sleep(delay).await;
                }
                if !first && let Some(gate) = &hold {
                    gate.opened().await;
                }
                let item = match piece {
                    Piece::Data(b) => Ok(b),
                    Piece::Drop => {
                        // Let hyper flush what was sent before the connection is cut.
                        tokio::time::sleep(Duration::from_millis(20)).await;
                        Err(io::Error::new(
                            io::ErrorKind::ConnectionAborted,
                            "hotl-fakellm: injected connection drop",
                        ))
                    }
                };
                Some((item, (it, false)))
            }
        });
    let mut resp = Response::new(Body::from_stream(stream));
    *resp.status_mut() = StatusCode::OK;
    for (name, value) in headers {
        if let (Ok(n), Ok(v)) = (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(&value),
        ) {
            resp.headers_mut().insert(n, v);
        }
    }
    resp.headers_mut()
        .entry(header::CONTENT_TYPE)
        .or_insert(HeaderValue::from_static("application/octet-stream"));
    resp
}

/// Applies re-chunking and the connection drop to the body units.
fn plan(units: Vec<Bytes>, fault: Option<&Fault>) -> Vec<Piece> {
    let Some(fault) = fault else {
        return units.into_iter().map(Piece::Data).collect();
    };
    let chunks: Vec<Bytes> = if fault.split_at.is_some() || fault.split_seed.is_some() {
        let mut all = BytesMut::new();
        for u in &units {
            all.extend_from_slice(u);
        }
        let all = all.freeze();
        let cuts = match (&fault.split_at, fault.split_seed) {
            (Some(offsets), _) => offsets.clone(),
            (None, Some(seed)) => seeded_cuts(seed, fault.split_max.unwrap_or(8), all.len()),
            (None, None) => Vec::new(),
        };
        cut(&all, cuts)
    } else {
        units
    };
    let Some(limit) = fault.drop_after_bytes else {
        return chunks.into_iter().map(Piece::Data).collect();
    };
    let mut pieces = Vec::new();
    let mut sent = 0usize;
    for chunk in chunks {
        let room = limit - sent;
        if chunk.len() >= room {
            if room > 0 {
                pieces.push(Piece::Data(chunk.slice(..room)));
            }
            break;
        }
        sent += chunk.len();
        pieces.push(Piece::Data(chunk));
    }
    pieces.push(Piece::Drop);
    pieces
}

/// Cuts `all` at the given offsets (sorted, deduplicated, out-of-range ignored).
fn cut(all: &Bytes, mut offsets: Vec<usize>) -> Vec<Bytes> {
    offsets.retain(|&o| o > 0 && o < all.len());
    offsets.sort_unstable();
    offsets.dedup();
    let mut chunks = Vec::with_capacity(offsets.len() + 1);
    let mut start = 0;
    for o in offsets {
        chunks.push(all.slice(start..o));
        start = o;
    }
    if start < all.len() || chunks.is_empty() {
        chunks.push(all.slice(start..));
    }
    chunks
}

/// Offsets of chunks of 1..=max bytes drawn from a splitmix64 sequence.
fn seeded_cuts(seed: u64, max: usize, len: usize) -> Vec<usize> {
    let max = max.max(1) as u64;
    let mut state = seed;
    let mut offsets = Vec::new();
    let mut at = 0usize;
    loop {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        at += 1 + (z % max) as usize;
        if at >= len {
            return offsets;
        }
        offsets.push(at);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_split_on_blank_lines_and_keep_bytes() {
        let body = Bytes::from_static(b"event: a\ndata: 1\n\ndata: 2\r\n\r\ndata: 3");
        let units = split_events(&body);
        assert_eq!(units.len(), 3);
        assert_eq!(units.concat(), body.to_vec());
    }

    #[test]
    fn cuts_and_drops() {
        let all = Bytes::from_static("héllo".as_bytes());
        let chunks = cut(&all, vec![2, 9, 2]);
        assert_eq!(chunks.len(), 2);
        assert_eq!(chunks[0].as_ref(), b"h\xc3");
        let cuts = seeded_cuts(7, 3, 100);
        assert!(cuts.windows(2).all(|w| w[1] > w[0] && w[1] - w[0] <= 3));
        let f = Fault::drop_after(3);
        let pieces = plan(vec![all.clone()], Some(&f));
        assert!(matches!(&pieces[0], Piece::Data(b) if b.len() == 3));
        assert!(matches!(pieces[1], Piece::Drop));
    }
}
