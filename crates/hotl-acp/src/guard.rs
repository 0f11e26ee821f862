//! What the editor sends, checked line by line before the protocol reads it: a line that is
//! not UTF-8 or not JSON gets a parse error (−32700), a batch, a `jsonrpc` other than "2.0",
//! an id that is neither a string nor an integer, or a method that is not a string gets an
//! invalid request (−32600), and `params` that are neither an object nor an array get invalid
//! params (−32602). Each is answered here and the connection keeps serving: one bad line never
//! ends it (and the editor's sessions with it). Every line the editor gets, the protocol's or
//! these answers, is written whole.

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// JSON-RPC's error codes.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const INVALID_PARAMS: i64 = -32602;

/// Why a line is refused before the protocol reads it: the answer to send, if any.
fn check(line: &[u8]) -> Result<(), Option<Value>> {
    let error = |id: Value, code: i64, message: &str| {
        Some(json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}))
    };
    let Ok(text) = std::str::from_utf8(line) else {
        return Err(error(
            Value::Null,
            PARSE_ERROR,
            "parse error: the line is not UTF-8",
        ));
    };
    if text.trim().is_empty() {
        return Err(None);
    }
    let value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(e) => {
            return Err(error(
                Value::Null,
                PARSE_ERROR,
                &format!("parse error: {e}"),
            ));
        }
    };
    let Value::Object(message) = value else {
        let why = if value.is_array() {
            "invalid request: batches are not supported; send one message a line"
        } else {
            "invalid request: a message is a JSON object"
        };
        return Err(error(Value::Null, INVALID_REQUEST, why));
    };
    let id = match message.get("id") {
        None => None,
        Some(id @ Value::String(_)) => Some(id.clone()),
        Some(Value::Number(n)) if n.is_i64() || n.is_u64() => Some(Value::Number(n.clone())),
        Some(_) => {
            return Err(error(
                Value::Null,
                INVALID_REQUEST,
                "invalid request: an id is a string or an integer",
            ));
        }
    };
    let answer_to = id.clone().unwrap_or(Value::Null);
    // A notification (no id) that is wrong gets no answer, as JSON-RPC says.
    let refuse = |code, why: &str| {
        Err(id
            .as_ref()
            .and_then(|_| error(answer_to.clone(), code, why)))
    };
    if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return refuse(INVALID_REQUEST, "invalid request: jsonrpc must be \"2.0\"");
    }
    let is_response = message.contains_key("result") || message.contains_key("error");
    if !is_response {
        if !message.get("method").is_some_and(Value::is_string) {
            return refuse(INVALID_REQUEST, "invalid request: method must be a string");
        }
        if message
            .get("params")
            .is_some_and(|p| !p.is_object() && !p.is_array())
        {
            return refuse(
                INVALID_PARAMS,
                "invalid params: params are an object or an array",
            );
        }
    }
    Ok(())
}

/// Copies what the editor sends on `input` to `to_protocol`, line by line, answering the
/// lines the protocol must not read through `answers`; ends when `input` does.
pub(crate) async fn filter_input(
    input: impl AsyncRead + Unpin,
    mut to_protocol: impl AsyncWrite + Unpin,
    answers: mpsc::UnboundedSender<Vec<u8>>,
) {
    let mut input = BufReader::new(input);
    let mut line = Vec::new();
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let body = line.strip_suffix(b"\n").unwrap_or(&line);
        let body = body.strip_suffix(b"\r").unwrap_or(body);
        match check(body) {
            Ok(()) => {
                if to_protocol.write_all(body).await.is_err()
                    || to_protocol.write_all(b"\n").await.is_err()
                    || to_protocol.flush().await.is_err()
                {
                    break;
                }
            }
            Err(Some(answer)) => {
                tracing::warn!("an ACP message was refused before reading: {answer}");
                let mut bytes = answer.to_string().into_bytes();
                bytes.push(b'\n');
                let _ = answers.send(bytes);
            }
            Err(None) => {}
        }
    }
    let _ = to_protocol.shutdown().await;
}

/// Passes what the protocol writes on `from_protocol` to `answers`, a whole line at a time.
pub(crate) async fn forward_output(
    from_protocol: impl AsyncRead + Unpin,
    answers: mpsc::UnboundedSender<Vec<u8>>,
) {
    let mut from = BufReader::new(from_protocol);
    let mut line = Vec::new();
    loop {
        line.clear();
        match from.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                if answers.send(std::mem::take(&mut line)).is_err() {
                    break;
                }
            }
        }
    }
    // What is left without a newline goes too.
    let mut rest = Vec::new();
    let _ = from.read_to_end(&mut rest).await;
    if !rest.is_empty() {
        let _ = answers.send(rest);
    }
}

/// Writes each line `answers` brings to `output`, until every sender is gone.
pub(crate) async fn write_lines(
    mut answers: mpsc::UnboundedReceiver<Vec<u8>>,
    mut output: impl AsyncWrite + Unpin,
) {
    while let Some(line) = answers.recv().await {
        if output.write_all(&line).await.is_err() || output.flush().await.is_err() {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(line: &[u8]) -> Option<(Value, i64)> {
        match check(line) {
            Ok(()) => None,
            Err(answer) => answer.map(|a| (a["id"].clone(), a["error"]["code"].as_i64().unwrap())),
        }
    }

    #[test]
    fn bad_lines_get_the_error_json_rpc_names() {
        assert_eq!(code(b"\xff{}"), Some((Value::Null, PARSE_ERROR)));
        assert_eq!(code(b"{not json"), Some((Value::Null, PARSE_ERROR)));
        assert_eq!(
            code(b"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"}]"),
            Some((Value::Null, INVALID_REQUEST))
        );
        assert_eq!(
            code(br#"{"jsonrpc":"1.0","id":3,"method":"x"}"#),
            Some((json!(3), INVALID_REQUEST))
        );
        assert_eq!(
            code(br#"{"jsonrpc":"2.0","id":{"a":1},"method":"x"}"#),
            Some((Value::Null, INVALID_REQUEST))
        );
        assert_eq!(
            code(br#"{"jsonrpc":"2.0","id":null,"method":"x"}"#),
            Some((Value::Null, INVALID_REQUEST))
        );
        assert_eq!(
            code(br#"{"jsonrpc":"2.0","id":1180591620717411303424,"method":"x"}"#),
            Some((Value::Null, INVALID_REQUEST))
        );
        assert_eq!(
            code(br#"{"jsonrpc":"2.0","id":"a","method":"x","params":"s"}"#),
            Some((json!("a"), INVALID_PARAMS))
        );
        assert_eq!(
            code(br#"{"jsonrpc":"2.0","id":4,"method":5}"#),
            Some((json!(4), INVALID_REQUEST))
        );
        // A wrong notification is not answered; good messages pass.
        assert_eq!(check(br#"{"jsonrpc":"1.0","method":"x"}"#), Err(None));
        assert_eq!(
            check(br#"{"jsonrpc":"2.0","id":1,"method":"x","params":{}}"#),
            Ok(())
        );
        assert_eq!(check(br#"{"jsonrpc":"2.0","id":"r1","result":{}}"#), Ok(()));
        assert_eq!(check(b"   "), Err(None));
    }
}
