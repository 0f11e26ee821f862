//! An incremental server-sent-events decoder following the WHATWG event-stream rules.
//!
//! Bytes go in as they arrive, in chunks of any size; complete events are pushed to a sink. The
//! output never depends on where the chunks split (inside a line, a `\r\n` pair or a UTF-8
//! sequence). Lines end in `\n`, `\r\n` or `\r`; `event:`, `data:`, `id:` and `retry:` fields
//! take an optional single space after the colon; lines starting with `:` are comments; unknown
//! fields are ignored; several `data:` lines join with `\n`; a blank line dispatches. Values keep
//! trailing whitespace, as the spec says (JSON parsers skip it). An event the body ends in the
//! middle of is not dispatched: [`SseDecoder::finish`] returns it so the caller can tell a
//! dropped connection from a clean end. Buffers are reused: after warm-up, decoding allocates
//! nothing per event.

use std::borrow::Cow;
use std::convert::Infallible;

/// Whether the producer should go on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Keep going.
    Continue,
    /// Stop now: the rest of the current chunk is dropped.
    Stop,
}

/// One dispatched event. It borrows the decoder's buffers, so it lives for one sink call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SseEvent<'a> {
    /// The event type: the last `event:` value, or `message` when there was none.
    pub event: &'a str,
    /// The `data:` lines joined with `\n` (invalid UTF-8 replaced by U+FFFD).
    pub data: &'a str,
    /// The last event id seen in the stream so far, `""` if none.
    pub id: &'a str,
}

/// An event the body ended in the middle of: fields were read but no blank line followed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartialEvent {
    /// Its `event:` value, `""` when it had none.
    pub event: String,
    /// Its data so far.
    pub data: String,
}

/// How a body ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum End {
    /// After a complete event (or nothing at all).
    Clean,
    /// In the middle of an event, which was dropped: a connection cut short, or a body missing
    /// its final blank line.
    Partial(PartialEvent),
    /// The body was not SSE: the line that showed it (see [`SseDecoder::reject_foreign_start`]).
    Foreign(String),
}

/// The decoder. Feed it with [`SseDecoder::feed`], end with [`SseDecoder::finish`].
#[derive(Debug, Default)]
pub struct SseDecoder {
    /// A line begun in an earlier chunk.
    line: Vec<u8>,
    /// The last chunk ended in `\r`: a `\n` starting the next one belongs to the same line end.
    skip_lf: bool,
    /// Past the first line (where a byte-order mark may sit).
    started: bool,
    event: Vec<u8>,
    data: Vec<u8>,
    id: Vec<u8>,
    retry: Option<u64>,
    dispatched: u64,
    reject_foreign_start: bool,
    foreign_start: Option<String>,
}

impl SseDecoder {
    /// A decoder that follows the spec: lines it does not understand are ignored.
    pub fn new() -> Self {
        Self::default()
    }

    /// Stop at a line that is neither a known field nor a comment when it comes before the first
    /// event: the body is something else (an HTML error page, a JSON error). [`Self::feed`]
    /// then returns [`Flow::Stop`] and [`Self::foreign_start`] holds the line. Off by default.
    pub fn reject_foreign_start(&mut self, yes: bool) -> &mut Self {
        self.reject_foreign_start = yes;
        self
    }

    /// The line that made a decoder with [`Self::reject_foreign_start`] stop, cut to 200 bytes.
    pub fn foreign_start(&self) -> Option<&str> {
        self.foreign_start.as_deref()
    }

    /// Events dispatched so far.
    pub fn dispatched(&self) -> u64 {
        self.dispatched
    }

    /// The reconnection time the stream asked for (`retry:`), in milliseconds.
    pub fn retry(&self) -> Option<u64> {
        self.retry
    }

    /// Decodes `bytes`, pushing each complete event to `sink`. Returns [`Flow::Stop`] as soon as
    /// the sink does (the rest of `bytes` is dropped; stop feeding), or the sink's error.
    pub fn feed<E>(
        &mut self,
        bytes: &[u8],
        sink: &mut impl FnMut(&SseEvent<'_>) -> Result<Flow, E>,
    ) -> Result<Flow, E> {
        if self.foreign_start.is_some() {
            return Ok(Flow::Stop);
        }
        let mut rest = bytes;
        if self.skip_lf && !rest.is_empty() {
            self.skip_lf = false;
            if rest[0] == b'\n' {
                rest = &rest[1..];
            }
        }
        while let Some(end) = find_eol(rest) {
            let flow = if self.line.is_empty() {
                self.line(&rest[..end], sink)?
            } else {
                self.line.extend_from_slice(&rest[..end]);
                let line = std::mem::take(&mut self.line);
                let flow = self.line(&line, sink);
                self.line = line;
                self.line.clear();
                flow?
            };
            let cr = rest[end] == b'\r';
            rest = &rest[end + 1..];
            if cr {
                match rest.first() {
                    Some(b'\n') => rest = &rest[1..],
                    Some(_) => {}
                    None => self.skip_lf = true,
                }
            }
            if flow == Flow::Stop {
                return Ok(Flow::Stop);
            }
        }
        self.line.extend_from_slice(rest);
        Ok(Flow::Continue)
    }

    /// Ends the stream and says how it ended. An event still open (no blank line after it, or
    /// a last line with no line end) is not dispatched, per the spec; it is returned instead. The
    /// decoder is then ready for a new stream.
    pub fn finish(&mut self) -> End {
        if !self.line.is_empty() && self.foreign_start.is_none() {
            let line = std::mem::take(&mut self.line);
            // A non-empty line never dispatches, so the sink is never called.
            let Ok(_) = self.line(&line, &mut |_| Ok::<_, Infallible>(Flow::Continue));
        }
        let end = if let Some(line) = self.foreign_start.take() {
            End::Foreign(line)
        } else if !self.data.is_empty() || !self.event.is_empty() {
            let data = self.data.strip_suffix(b"\n").unwrap_or(&self.data);
            End::Partial(PartialEvent {
                event: String::from_utf8_lossy(&self.event).into_owned(),
                data: String::from_utf8_lossy(data).into_owned(),
            })
        } else {
            End::Clean
        };
        let reject = self.reject_foreign_start;
        *self = Self::default();
        self.reject_foreign_start = reject;
        end
    }

    /// Interprets one complete line (without its line end).
    fn line<E>(
        &mut self,
        mut line: &[u8],
        sink: &mut impl FnMut(&SseEvent<'_>) -> Result<Flow, E>,
    ) -> Result<Flow, E> {
        if !self.started {
            self.started = true;
            line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        }
        if line.is_empty() {
            return self.dispatch(sink);
        }
        if line[0] == b':' {
            return Ok(Flow::Continue);
        }
        let (name, value) = match line.iter().position(|&b| b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        match name {
            b"data" => {
                self.data.extend_from_slice(value);
                self.data.push(b'\n');
            }
            b"event" => {
                self.event.clear();
                self.event.extend_from_slice(value);
            }
            b"id" if !value.contains(&0) => {
                self.id.clear();
                self.id.extend_from_slice(value);
            }
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                self.retry = std::str::from_utf8(value).ok().and_then(|v| v.parse().ok());
            }
            b"id" | b"retry" => {}
            _ if self.reject_foreign_start && self.dispatched == 0 => {
                let head = &line[..line.len().min(200)];
                self.foreign_start = Some(String::from_utf8_lossy(head).into_owned());
                return Ok(Flow::Stop);
            }
            _ => {}
        }
        Ok(Flow::Continue)
    }

    /// A blank line: hands the pending event to the sink and clears it.
    fn dispatch<E>(
        &mut self,
        sink: &mut impl FnMut(&SseEvent<'_>) -> Result<Flow, E>,
    ) -> Result<Flow, E> {
        if self.data.is_empty() {
            self.event.clear();
            return Ok(Flow::Continue);
        }
        self.data.pop(); // the `\n` after the last data line
        self.dispatched += 1;
        let data = String::from_utf8_lossy(&self.data);
        let event = match String::from_utf8_lossy(&self.event) {
            Cow::Borrowed("") => Cow::Borrowed("message"),
            other => other,
        };
        let id = String::from_utf8_lossy(&self.id);
        let flow = sink(&SseEvent {
            event: &event,
            data: &data,
            id: &id,
        });
        drop((data, event, id));
        self.data.clear();
        self.event.clear();
        flow
    }
}

/// The position of the first `\n` or `\r`, eight bytes at a time.
fn find_eol(hay: &[u8]) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([1; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    const LF: u64 = ONES * b'\n' as u64;
    const CR: u64 = ONES * b'\r' as u64;
    let has_zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGH != 0;
    let mut words = hay.chunks_exact(8);
    let mut start = 0;
    for word in words.by_ref() {
        let w = u64::from_ne_bytes(word.try_into().expect("chunks_exact(8) yields 8 bytes"));
        if has_zero(w ^ LF) || has_zero(w ^ CR) {
            break;
        }
        start += 8;
    }
    hay[start..]
        .iter()
        .position(|&b| b == b'\n' || b == b'\r')
        .map(|p| start + p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(chunks: &[&[u8]]) -> (Vec<(String, String)>, End) {
        let mut dec = SseDecoder::new();
        let mut out = Vec::new();
        for chunk in chunks {
            dec.feed(chunk, &mut |ev: &SseEvent<'_>| {
                out.push((ev.event.to_owned(), ev.data.to_owned()));
                Ok::<_, ()>(Flow::Continue)
            })
            .expect("infallible sink");
        }
        (out, dec.finish())
    }

    #[test]
    fn find_eol_matches_a_plain_scan() {
        let hay = b"0123456789abcdef0123\r456789\nabc";
        for start in 0..hay.len() {
            let plain = hay[start..].iter().position(|&b| b == b'\n' || b == b'\r');
            assert_eq!(find_eol(&hay[start..]), plain, "from {start}");
        }
    }

    #[test]
    fn crlf_split_across_chunks_is_one_line_end() {
        let (evs, partial) = events(&[b"data: a\r", b"\n\r", b"\ndata: b\r\r"]);
        assert_eq!(
            evs,
            [
                ("message".into(), "a".into()),
                ("message".into(), "b".into())
            ]
        );
        assert_eq!(partial, End::Clean);
    }

    #[test]
    fn bom_is_stripped_once() {
        let (evs, _) = events(&[b"\xEF\xBB", b"\xBFdata: x\n\n\xEF\xBB\xBFdata: y\n\n"]);
        assert_eq!(evs, [("message".into(), "x".into())]);
    }
}
