//! Tolerant reading: every line that parses is loaded; everything else goes into a [`LoadReport`].

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use serde::Serialize;

use crate::error::{IoResultExt, Result};
use crate::record::{Body, Record};

/// Where a record sits in its file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// 1-based line number.
    pub line: u64,
    /// Byte offset of the start of the line.
    pub offset: u64,
    /// Byte offset just past the line's newline.
    pub end: u64,
}

/// A line that could not be loaded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Skipped {
    /// 1-based line number.
    pub line: u64,
    /// Byte offset of the line.
    pub offset: u64,
    /// Why it was skipped.
    pub reason: String,
}

/// A record whose `seq` does not increase.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SeqProblem {
    /// 1-based line number.
    pub line: u64,
    /// Its seq.
    pub seq: u64,
    /// The largest seq seen before it.
    pub after: u64,
}

/// The unterminated last line of a log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TornTail {
    /// 1-based line number.
    pub line: u64,
    /// Byte offset where it starts.
    pub offset: u64,
    /// Its length in bytes.
    pub len: u64,
    /// The seq it would carry if it were terminated, when it parses.
    pub seq: Option<u64>,
}

/// What a read could not load, by line.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LoadReport {
    /// Lines that did not parse as records.
    pub skipped: Vec<Skipped>,
    /// Records of a type this version does not know (loaded, but skipped by the projection).
    pub unknown: Vec<Skipped>,
    /// Records whose seq is not larger than every seq before it.
    pub seq_problems: Vec<SeqProblem>,
    /// The unterminated last line, if any.
    pub torn_tail: Option<TornTail>,
    /// True when the torn tail may be a line another process is writing right now.
    pub tail_is_live: bool,
}

impl LoadReport {
    /// True when nothing was skipped and nothing is suspicious. A live torn tail is not a problem.
    pub fn is_clean(&self) -> bool {
        self.skipped.is_empty()
            && self.unknown.is_empty()
            && self.seq_problems.is_empty()
            && (self.torn_tail.is_none() || self.tail_is_live)
    }

    /// One line saying what was skipped, or `None` when nothing was.
    pub fn summary(&self) -> Option<String> {
        self.describe(true)
    }

    /// Like [`LoadReport::summary`], but only damage: records of unknown type are kept, not
    /// lost, so they are left out.
    pub fn damage_summary(&self) -> Option<String> {
        self.describe(false)
    }

    fn describe(&self, with_unknown: bool) -> Option<String> {
        let mut parts = Vec::new();
        if !self.skipped.is_empty() {
            let lines: Vec<String> = self.skipped.iter().map(|s| s.line.to_string()).collect();
            parts.push(format!(
                "{} corrupt line{} ({})",
                self.skipped.len(),
                plural(self.skipped.len()),
                abbreviate(&lines)
            ));
        }
        if with_unknown && !self.unknown.is_empty() {
            parts.push(format!(
                "{} record{} of unknown type",
                self.unknown.len(),
                plural(self.unknown.len())
            ));
        }
        if !self.seq_problems.is_empty() {
            parts.push(format!(
                "{} out-of-order seq{}",
                self.seq_problems.len(),
                plural(self.seq_problems.len())
            ));
        }
        if let (Some(t), false) = (&self.torn_tail, self.tail_is_live) {
            parts.push(format!(
                "a torn last line ({} bytes at line {})",
                t.len, t.line
            ));
        }
        (!parts.is_empty()).then(|| format!("skipped {}", parts.join(", ")))
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn abbreviate(items: &[String]) -> String {
    const SHOWN: usize = 5;
    let mut out = items
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > SHOWN {
        out.push_str(&format!(", ... {} more", items.len() - SHOWN));
    }
    format!("line{} {out}", plural(items.len()))
}

/// How much of a log to read.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReadOptions {
    /// Stop at this byte offset (a fork's pin into its parent).
    pub limit: Option<u64>,
    /// Treat an unterminated last line as possibly being written (the tree is locked).
    pub tail_is_live: bool,
    /// How many bytes the input probably holds; lets the reader size its vectors once.
    pub size_hint: u64,
}

/// A log as read: its records in file order, and what could not be read.
#[derive(Clone, Debug, Default)]
pub struct Log {
    /// Records that parsed, in file order.
    pub records: Vec<Record>,
    /// Where each record sits (parallel to `records`).
    pub spans: Vec<Span>,
    /// What was skipped.
    pub report: LoadReport,
    /// Bytes read (the file size, or the limit).
    pub bytes: u64,
    /// Offset just past the last complete line.
    pub complete_end: u64,
}

impl Log {
    /// The `session` record, when the first record is one.
    pub fn start(&self) -> Option<&crate::record::SessionStart> {
        match &self.records.first()?.body {
            Body::Session(s) => Some(s),
            _ => None,
        }
    }

    /// The largest seq in the log, counting a torn tail that parses.
    pub fn max_seq(&self) -> u64 {
        let loaded = self.records.iter().map(|r| r.seq).max().unwrap_or(0);
        let torn = self
            .report
            .torn_tail
            .as_ref()
            .and_then(|t| t.seq)
            .unwrap_or(0);
        loaded.max(torn)
    }
}

/// Reads a log, loading every record that parses. Fails only when the file cannot be read.
pub fn read_log(path: &Path, opts: ReadOptions) -> Result<Log> {
    let file = File::open(path).at(path)?;
    let mut opts = opts;
    let size = file.metadata().map_or(0, |m| m.len());
    opts.size_hint = opts.limit.map_or(size, |l| l.min(size));
    let reader: Box<dyn Read> = match opts.limit {
        Some(limit) => Box::new(file.take(limit)),
        None => Box::new(file),
    };
    read_from(BufReader::with_capacity(1 << 18, reader), opts).at(path)
}

/// Reads a log from any reader (used for imports and tests).
pub fn read_from(mut reader: impl BufRead, opts: ReadOptions) -> std::io::Result<Log> {
    let mut log = Log {
        report: LoadReport {
            tail_is_live: opts.tail_is_live,
            ..LoadReport::default()
        },
        ..Log::default()
    };
    let mut buf = Vec::new();
    let mut offset = 0u64;
    let mut line_no = 0u64;
    let mut max_seq: Option<u64> = None;
    loop {
        buf.clear();
        let n = reader.read_until(b'\n', &mut buf)? as u64;
        if n == 0 {
            break;
        }
        line_no += 1;
        let start = offset;
        offset += n;
        if buf.last() != Some(&b'\n') {
            let seq = serde_json::from_slice::<Record>(&buf).ok().map(|r| r.seq);
            log.report.torn_tail = Some(TornTail {
                line: line_no,
                offset: start,
                len: n,
                seq,
            });
            break;
        }
        log.complete_end = offset;
        if line_no == SAMPLE_LINES && opts.size_hint > offset {
            // Growing by doubling would copy the records several times and touch twice the
            // memory; the first lines tell how many to expect.
            let expected = (opts.size_hint / (offset / SAMPLE_LINES).max(1)) as usize;
            log.records
                .reserve(expected.saturating_sub(log.records.len()));
            log.spans.reserve(expected.saturating_sub(log.spans.len()));
        }
        let body = trim_line(&buf);
        if body.is_empty() {
            continue;
        }
        match serde_json::from_slice::<Record>(body) {
            Ok(record) => {
                if let Some(prev) = max_seq
                    && record.seq <= prev
                {
                    log.report.seq_problems.push(SeqProblem {
                        line: line_no,
                        seq: record.seq,
                        after: prev,
                    });
                }
                max_seq = Some(max_seq.map_or(record.seq, |m| m.max(record.seq)));
                if let Body::Unknown { kind } = &record.body {
                    log.report.unknown.push(Skipped {
                        line: line_no,
                        offset: start,
                        reason: format!("unknown record type {kind:?}"),
                    });
                }
                log.records.push(record);
                log.spans.push(Span {
                    line: line_no,
                    offset: start,
                    end: offset,
                });
            }
            Err(err) => log.report.skipped.push(Skipped {
                line: line_no,
                offset: start,
                reason: describe_parse_error(body, &err),
            }),
        }
    }
    log.bytes = offset;
    Ok(log)
}

/// Lines read before the reader sizes its vectors from the average so far.
const SAMPLE_LINES: u64 = 256;

fn trim_line(buf: &[u8]) -> &[u8] {
    let mut end = buf.len();
    while end > 0 && matches!(buf[end - 1], b'\n' | b'\r') {
        end -= 1;
    }
    &buf[..end]
}

fn describe_parse_error(line: &[u8], err: &serde_json::Error) -> String {
    if std::str::from_utf8(line).is_err() {
        return "not valid UTF-8".to_owned();
    }
    err.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(bytes: &[u8]) -> Log {
        read_from(bytes, ReadOptions::default()).unwrap()
    }

    const S: &str =
        r#"{"seq":1,"ts":"T","type":"session","id":"01JD0000000000000000000001","cwd":"/"}"#;
    const U: &str = r#"{"seq":2,"ts":"T","type":"user","content":[{"type":"text","text":"hi"}]}"#;

    #[test]
    fn empty_input_is_an_empty_log() {
        let log = read(b"");
        assert!(log.records.is_empty());
        assert!(log.report.is_clean());
    }

    #[test]
    fn corrupt_middle_line_is_skipped_and_reported() {
        let text = format!("{S}\n{{not json\n{U}\n");
        let log = read(text.as_bytes());
        assert_eq!(log.records.len(), 2);
        assert_eq!(log.report.skipped.len(), 1);
        assert_eq!(log.report.skipped[0].line, 2);
        assert!(
            log.report
                .summary()
                .unwrap()
                .contains("1 corrupt line (line 2)")
        );
    }

    #[test]
    fn non_utf8_is_reported_as_such() {
        let mut bytes = format!("{S}\n").into_bytes();
        bytes.extend_from_slice(b"{\"seq\":2,\"ts\":\"\xff\xfe\",\"type\":\"clear\"}\n");
        let log = read(&bytes);
        assert_eq!(log.records.len(), 1);
        assert_eq!(log.report.skipped[0].reason, "not valid UTF-8");
    }

    #[test]
    fn torn_tail_is_not_loaded_but_its_seq_is_known() {
        let text = format!("{S}\n{U}");
        let log = read(text.as_bytes());
        assert_eq!(log.records.len(), 1);
        let torn = log.report.torn_tail.clone().unwrap();
        assert_eq!((torn.line, torn.seq), (2, Some(2)));
        assert_eq!(log.max_seq(), 2);
        assert_eq!(log.complete_end, S.len() as u64 + 1);
        assert!(!log.report.is_clean());
    }

    #[test]
    fn live_torn_tail_is_not_a_problem() {
        let text = format!("{S}\n{{\"seq\":2,");
        let log = read_from(
            text.as_bytes(),
            ReadOptions {
                tail_is_live: true,
                ..ReadOptions::default()
            },
        )
        .unwrap();
        assert!(log.report.is_clean());
        assert_eq!(log.report.summary(), None);
    }

    #[test]
    fn decreasing_and_duplicate_seqs_are_loaded_and_reported() {
        let text = format!("{S}\n{U}\n{U}\n{S}\n");
        let log = read(text.as_bytes());
        assert_eq!(log.records.len(), 4);
        assert_eq!(log.report.seq_problems.len(), 2);
    }
}
