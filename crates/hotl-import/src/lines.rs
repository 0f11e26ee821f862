//! Reading a foreign session file: its bytes (a `.zst` file decompressed with a pure-Rust
//! decoder), then one JSON object per line. A BOM, blank lines, CRLF endings, a torn last line
//! (the agent was still writing) and lines that are not JSON objects never fail the read: each
//! bad line is reported with its number.

use std::io::Read;
use std::path::Path;

use serde_json::{Map, Value};

use crate::error::{ImportError, Result};
use crate::report::Report;

/// One parsed line.
#[derive(Debug)]
pub(crate) struct Line {
    /// 1-based line number.
    pub no: usize,
    /// The object it holds.
    pub obj: Map<String, Value>,
}

/// The file's bytes, decompressed when its name ends in `.zst`.
pub(crate) fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    let read = |e| ImportError::Read {
        path: path.to_owned(),
        source: e,
    };
    let mut file = std::fs::File::open(path).map_err(read)?;
    let mut bytes = Vec::new();
    if path.extension().is_some_and(|e| e == "zst") {
        let mut decoder = ruzstd::decoding::StreamingDecoder::new(&mut file).map_err(|e| {
            ImportError::Decompress {
                path: path.to_owned(),
                reason: e.to_string(),
            }
        })?;
        decoder
            .read_to_end(&mut bytes)
            .map_err(|e| ImportError::Decompress {
                path: path.to_owned(),
                reason: e.to_string(),
            })?;
    } else {
        file.read_to_end(&mut bytes).map_err(read)?;
    }
    Ok(bytes)
}

/// The objects of `bytes`, one per line; everything else reported in `report` (which also
/// learns how many non-blank lines there were).
pub(crate) fn parse(bytes: &[u8], report: &mut Report) -> Vec<Line> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let ends_in_newline = bytes.last() == Some(&b'\n');
    let mut out = Vec::new();
    let mut pieces = bytes.split(|&b| b == b'\n').peekable();
    let mut no = 0;
    while let Some(raw) = pieces.next() {
        no += 1;
        let last = pieces.peek().is_none();
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        if raw.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        report.records_total += 1;
        match serde_json::from_slice::<Value>(raw) {
            Ok(Value::Object(obj)) => out.push(Line { no, obj }),
            Ok(_) => report.skip_line(no, "not_an_object", "a line that is not a JSON object"),
            Err(_) if last && !ends_in_newline => {
                report.skip_line(no, "torn_line", "a torn last line (the file ends mid-line)")
            }
            Err(e) => report.skip_line(no, "bad_json", format!("a line that is not JSON ({e})")),
        }
    }
    out
}

/// A string field.
pub(crate) fn str_of<'a>(obj: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    obj.get(key).and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bom_blank_crlf_bad_and_torn_lines() {
        let bytes = b"\xEF\xBB\xBF{\"a\":1}\r\n\n  \n[1]\n{oops\n{\"b\":2}\n{\"c\":";
        let mut report = Report::default();
        let lines = parse(bytes, &mut report);
        assert_eq!(lines.iter().map(|l| l.no).collect::<Vec<_>>(), [1, 6]);
        assert_eq!(report.records_total, 5);
        let kinds: Vec<(usize, &str)> = report
            .lines
            .iter()
            .map(|s| (s.line, s.kind.as_str()))
            .collect();
        assert_eq!(
            kinds,
            [(4, "not_an_object"), (5, "bad_json"), (7, "torn_line")]
        );
    }

    #[test]
    fn zst_files_are_decompressed() -> std::result::Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("x.jsonl.zst");
        let packed = ruzstd::encoding::compress_to_vec(
            &b"{\"a\":1}\n"[..],
            ruzstd::encoding::CompressionLevel::Fastest,
        );
        std::fs::write(&path, packed)?;
        assert_eq!(read_bytes(&path)?, b"{\"a\":1}\n");
        std::fs::write(&path, b"not zstd")?;
        assert!(matches!(
            read_bytes(&path),
            Err(ImportError::Decompress { .. })
        ));
        Ok(())
    }
}
