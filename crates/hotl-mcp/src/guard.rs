//! What a stdio server sends, read through a guard: a message longer than the most the MCP
//! transport reads (16 MiB a line) would be dropped there, and the call it answers would wait
//! for its timeout and then blame the server for not answering. The guard ends such a line
//! where the transport would give up and puts in its place an error answering the same call,
//! so the model is told at once that the result was too large.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, ready};

use tokio::io::{AsyncRead, ReadBuf};

/// The longest line the transport reads, its newline included (rmcp's limit).
pub(crate) const MAX_LINE: usize = rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;

/// How much of a line's start is kept to find the id of the request it answers.
const HEAD: usize = 4096;

/// A server's stdout, oversized lines replaced by errors.
pub(crate) struct LineGuard<R> {
    inner: R,
    /// Bytes of the current line handed on so far.
    line: usize,
    /// The current line's first bytes.
    head: Vec<u8>,
    /// The rest of an oversized line is being dropped.
    dropping: bool,
    /// What to hand on before reading more.
    out: Vec<u8>,
    out_at: usize,
    /// Set when a line was too large and no request id could be found in it.
    oversized: Arc<AtomicBool>,
}

impl<R> LineGuard<R> {
    /// Guards `inner`; `oversized` is set when a line too large answered no request it could
    /// name.
    pub(crate) fn new(inner: R, oversized: Arc<AtomicBool>) -> LineGuard<R> {
        LineGuard {
            inner,
            line: 0,
            head: Vec::new(),
            dropping: false,
            out: Vec::new(),
            out_at: 0,
            oversized,
        }
    }

    /// Takes `bytes` just read: what passes goes to `out`.
    fn filter(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let newline = bytes.iter().position(|b| *b == b'\n');
            let (segment, rest) = bytes.split_at(newline.map_or(bytes.len(), |i| i + 1));
            bytes = rest;
            if self.dropping {
                if newline.is_some() {
                    self.dropping = false;
                    self.end_line();
                }
                continue;
            }
            if self.line + segment.len() > MAX_LINE {
                // Hand on exactly what fills the transport's line, then a newline: it drops
                // that line whole (no half line parsed), and the error comes next.
                let fill = MAX_LINE - self.line;
                self.out.extend_from_slice(&segment[..fill]);
                self.keep_head(&segment[..fill]);
                self.out.push(b'\n');
                self.too_large();
                if newline.is_some() {
                    self.end_line();
                } else {
                    self.dropping = true;
                }
                continue;
            }
            self.out.extend_from_slice(segment);
            self.keep_head(segment);
            if newline.is_some() {
                self.end_line();
            } else {
                self.line += segment.len();
            }
        }
    }

    fn keep_head(&mut self, bytes: &[u8]) {
        let room = HEAD.saturating_sub(self.head.len());
        self.head.extend_from_slice(&bytes[..room.min(bytes.len())]);
    }

    fn end_line(&mut self) {
        self.line = 0;
        self.head.clear();
    }

    /// The error answering the oversized line's request, queued; or, when its id cannot be
    /// found, the flag set for the call's timeout to explain itself.
    fn too_large(&mut self) {
        let Some(id) = request_id(&self.head) else {
            tracing::warn!("an MCP server sent a message larger than the transport reads");
            self.oversized.store(true, Ordering::Relaxed);
            return;
        };
        let error = serde_json::json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": {
                "code": -32603,
                "message": format!(
                    "the result is larger than {} MiB, the most hotl reads from an MCP server, \
                     so it was dropped: ask for less",
                    MAX_LINE >> 20
                ),
            },
        });
        self.out.extend_from_slice(error.to_string().as_bytes());
        self.out.push(b'\n');
    }
}

/// The id of the request a JSON-RPC response answers, from its first bytes: the value after
/// the first `"id"` key that comes before its `"result"`.
fn request_id(head: &[u8]) -> Option<serde_json::Value> {
    let text = String::from_utf8_lossy(head);
    let at = text.find("\"id\"")?;
    if text.find("\"result\"").is_some_and(|result| result < at) {
        return None;
    }
    let rest = text[at + 4..].trim_start().strip_prefix(':')?;
    let value = serde_json::Deserializer::from_str(rest)
        .into_iter::<serde_json::Value>()
        .next()?
        .ok()?;
    (value.is_number() || value.is_string()).then_some(value)
}

impl<R: AsyncRead + Unpin> AsyncRead for LineGuard<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            if this.out_at < this.out.len() {
                let n = buf.remaining().min(this.out.len() - this.out_at);
                buf.put_slice(&this.out[this.out_at..this.out_at + n]);
                this.out_at += n;
                if this.out_at == this.out.len() {
                    this.out.clear();
                    this.out_at = 0;
                }
                return Poll::Ready(Ok(()));
            }
            let mut chunk = [0u8; 8192];
            let mut read = ReadBuf::new(&mut chunk);
            ready!(Pin::new(&mut this.inner).poll_read(cx, &mut read))?;
            if read.filled().is_empty() {
                return Poll::Ready(Ok(()));
            }
            let filled = read.filled().to_vec();
            this.filter(&filled);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    async fn through(input: Vec<u8>) -> (Vec<u8>, bool) {
        let flag = Arc::new(AtomicBool::new(false));
        let mut guard = LineGuard::new(&input[..], flag.clone());
        let mut out = Vec::new();
        guard.read_to_end(&mut out).await.unwrap();
        (out, flag.load(Ordering::Relaxed))
    }

    #[tokio::test]
    async fn small_lines_pass_unchanged() {
        let input = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n{\"a\":2}\n".to_vec();
        assert_eq!(through(input.clone()).await, (input, false));
    }

    #[tokio::test]
    async fn an_oversized_answer_becomes_an_error_for_its_request() {
        let mut input = b"{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"text\":\"".to_vec();
        input.resize(MAX_LINE + 1000, b'x');
        input.extend_from_slice(b"\"}}\n{\"next\":1}\n");
        let (out, flag) = through(input).await;
        assert!(!flag);
        let lines: Vec<&[u8]> = out.split(|b| *b == b'\n').collect();
        assert_eq!(lines[0].len(), MAX_LINE, "filled to the transport's limit");
        let error: serde_json::Value = serde_json::from_slice(lines[1]).unwrap();
        assert_eq!(error["id"], 7);
        assert!(
            error["error"]["message"]
                .as_str()
                .unwrap()
                .contains("16 MiB")
        );
        assert_eq!(lines[2], b"{\"next\":1}");
    }

    #[test]
    fn the_id_is_taken_only_before_the_result() {
        assert_eq!(
            request_id(br#"{"jsonrpc":"2.0","id":"a-1","result":"#),
            Some("a-1".into())
        );
        assert_eq!(request_id(br#"{"result":{"id":3}"#), None);
        assert_eq!(request_id(br#"{"id" : 12 ,"result""#), Some(12.into()));
    }
}
