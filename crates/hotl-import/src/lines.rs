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

/// Files larger than this are parsed on several threads (JSON parsing is most of an
/// import's time).
const PARALLEL_OVER: usize = 4 << 20;

/// The objects of `bytes`, one per line; everything else reported in `report` (which also
/// learns how many non-blank lines there were).
pub(crate) fn parse(bytes: &[u8], report: &mut Report) -> Vec<Line> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
    if bytes.len() <= PARALLEL_OVER || threads < 2 {
        return parse_part(bytes, 0, true, report);
    }
    // Parts end at line ends, so every line is whole in one part.
    let mut parts = Vec::with_capacity(threads);
    let mut start = 0;
    for i in 1..=threads {
        let mut end = (bytes.len() * i / threads).max(start);
        if i < threads {
            end = bytes[end..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(bytes.len(), |p| end + p + 1);
        } else {
            end = bytes.len();
        }
        parts.push(&bytes[start..end]);
        start = end;
    }
    let mut firsts = Vec::with_capacity(parts.len());
    let mut before = 0;
    for part in &parts {
        firsts.push(before);
        before += part.iter().filter(|&&b| b == b'\n').count();
    }
    let last = parts.len() - 1;
    let results: Vec<(Vec<Line>, Report)> = std::thread::scope(|scope| {
        let handles: Vec<_> = parts
            .iter()
            .zip(&firsts)
            .enumerate()
            .map(|(i, (part, &first))| {
                scope.spawn(move || {
                    let mut r = Report::default();
                    (parse_part(part, first, i == last, &mut r), r)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a parsing thread does not panic"))
            .collect()
    });
    let mut out = Vec::new();
    for (lines, r) in results {
        out.extend(lines);
        report.records_total += r.records_total;
        for s in r.lines {
            report.skip_line(s.line, &s.kind, s.why);
        }
    }
    out
}

/// [`parse`] of one part, whose first line is line `before + 1` of the file; `is_end`: the
/// part ends the file (where a torn line can be).
fn parse_part(bytes: &[u8], before: usize, is_end: bool, report: &mut Report) -> Vec<Line> {
    let ends_in_newline = !is_end || bytes.last() == Some(&b'\n');
    let mut out = Vec::new();
    let mut pieces = bytes.split(|&b| b == b'\n').peekable();
    let mut no = before;
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
    fn parts_parsed_apart_number_lines_as_the_whole_file() {
        let mut text = Vec::new();
        for i in 0..(PARALLEL_OVER / 6 + 1000) {
            if i == 5000 {
                text.extend_from_slice(b"{broken\n");
            } else {
                text.extend_from_slice(format!("{{\"n\":{i}}}\n").as_bytes());
            }
        }
        text.extend_from_slice(b"{\"torn\":");
        let mut report = Report::default();
        let lines = parse(&text, &mut report);
        assert!(text.len() > PARALLEL_OVER);
        for line in &lines {
            assert_eq!(line.obj["n"].as_u64(), Some(line.no as u64 - 1));
        }
        let kinds: Vec<(usize, &str)> = report
            .lines
            .iter()
            .map(|s| (s.line, s.kind.as_str()))
            .collect();
        let total = PARALLEL_OVER / 6 + 1000 + 1;
        assert_eq!(kinds, [(5001, "bad_json"), (total, "torn_line")]);
        assert_eq!(report.records_total as usize, total);
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
