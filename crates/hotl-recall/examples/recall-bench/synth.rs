//! The synthetic session: Zipf-distributed words over a 60,000-word vocabulary, assembled into
//! compiler output, test runs, server logs, source and prose; turns of 1-4 tool steps, folded
//! in spans of 3-20 turns.

use std::fs;
use std::io::{BufWriter, Write};
use std::path::Path;

use hotl_log::{Block, Body, FileTouch, Fold, Record, RunState, SessionStart, encode_line};

use crate::{ID, Res, TS};

/// Files a session touches (`mod_<i>.rs` in the project directory).
pub(crate) const FILES: usize = 50;
/// Words in the vocabulary; ranks follow a Zipf law.
pub(crate) const VOCAB: usize = 60_000;

pub(crate) struct LogStats {
    pub(crate) bytes: u64,
    pub(crate) records: u64,
    pub(crate) folds: u64,
    pub(crate) last_seq: u64,
    pub(crate) text: u64,
}

/// A seeded generator of plausible session text.
pub(crate) struct Gen {
    rng: u64,
    vocab: Vec<String>,
    ln_vocab: f64,
}

const COMMON: &[&str] = &[
    "the",
    "error",
    "file",
    "test",
    "to",
    "a",
    "in",
    "of",
    "is",
    "fn",
    "let",
    "return",
    "self",
    "result",
    "value",
    "string",
    "index",
    "session",
    "log",
    "read",
    "write",
    "request",
    "path",
    "config",
    "user",
    "build",
    "cargo",
    "warning",
    "failed",
    "ok",
    "type",
    "struct",
    "impl",
    "mut",
    "pub",
    "use",
    "match",
    "some",
    "none",
    "true",
    "false",
    "offset",
    "record",
    "view",
    "fold",
    "handle",
    "cache",
    "token",
    "query",
    "server",
    "client",
    "response",
    "status",
    "timeout",
    "retry",
    "panic",
    "thread",
    "lock",
    "parse",
    "json",
    "line",
    "column",
    "expected",
    "found",
    "mismatched",
    "types",
    "borrow",
    "lifetime",
    "trait",
    "module",
    "crate",
    "function",
    "method",
    "field",
    "missing",
    "unused",
    "variable",
    "import",
    "and",
    "for",
    "with",
    "not",
    "this",
    "that",
    "from",
    "when",
    "then",
    "else",
    "if",
    "while",
    "loop",
    "break",
    "continue",
];

const SYLLABLES: &[&str] = &[
    "ka", "ri", "to", "men", "sa", "lo", "pe", "dra", "vin", "qu", "ex", "tor", "ba", "li", "zu",
    "ner", "o", "an", "st", "ch", "ph", "gr", "el", "is", "um", "ox", "ya", "fe", "ko", "ni",
];

impl Gen {
    pub(crate) fn new(seed: u64) -> Gen {
        let mut vocab: Vec<String> = COMMON.iter().map(|s| (*s).to_owned()).collect();
        let mut i = 0usize;
        while vocab.len() < VOCAB {
            let mut w = String::new();
            let mut n = i;
            loop {
                w.push_str(SYLLABLES[n % SYLLABLES.len()]);
                n /= SYLLABLES.len();
                if n == 0 {
                    break;
                }
            }
            if w.len() > 2 {
                vocab.push(w);
            }
            i += 1;
        }
        Gen {
            rng: seed ^ 0x9E37_79B9_7F4A_7C15,
            ln_vocab: (VOCAB as f64 + 1.0).ln(),
            vocab,
        }
    }

    fn next(&mut self) -> u64 {
        // splitmix64
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A word with Zipf-distributed rank (probability about 1/rank).
    fn word(&mut self) -> usize {
        let r = (self.unit() * self.ln_vocab).exp() as usize;
        r.saturating_sub(1).min(VOCAB - 1)
    }

    fn push_words(&mut self, out: &mut String, n: usize) {
        for k in 0..n {
            if k > 0 {
                out.push(' ');
            }
            let w = self.word();
            out.push_str(&self.vocab[w]);
        }
    }

    fn ident(&mut self, out: &mut String) {
        let a = self.word();
        let b = self.word();
        out.push_str(&self.vocab[a]);
        out.push('_');
        out.push_str(&self.vocab[b]);
    }

    fn line(&mut self, kind: u64, out: &mut String) {
        use std::fmt::Write as _;
        match kind {
            // compiler output
            0 => {
                let code = self.below(800);
                let _ = write!(out, "error[E0{code:03}]: ");
                self.push_words(out, 5);
                let (f, l, c) = (self.below(FILES as u64), self.below(900), self.below(80));
                let _ = write!(
                    out,
                    "\n  --> src/mod_{f}.rs:{l}:{c}\n   |\n{l:>4} |     let "
                );
                self.ident(out);
                out.push_str(" = ");
                self.ident(out);
                out.push_str("(&");
                self.ident(out);
                out.push_str(")?;\n   |         ^^^^ ");
                self.push_words(out, 4);
                out.push('\n');
            }
            // test run
            1 => {
                out.push_str("test ");
                self.ident(out);
                out.push_str("::");
                self.ident(out);
                out.push_str(match self.below(20) {
                    0 => " ... FAILED\n",
                    1 => " ... ignored\n",
                    _ => " ... ok\n",
                });
            }
            // server log
            2 => {
                let (h, m, s, ms) = (
                    self.below(24),
                    self.below(60),
                    self.below(60),
                    self.below(1000),
                );
                let level = ["INFO", "DEBUG", "WARN", "ERROR"][self.below(4) as usize];
                let _ = write!(out, "2026-11-01T{h:02}:{m:02}:{s:02}.{ms:03}Z {level} ");
                self.ident(out);
                out.push_str(": ");
                self.push_words(out, 6);
                let id = self.next() & 0xffff_ffff;
                let took = self.below(1000);
                if self.below(3) == 0 {
                    let _ = writeln!(out, " id={id:08x} took={took}ms");
                } else {
                    let _ = writeln!(out, " took={took}ms");
                }
            }
            // source
            3 => {
                let indent = self.below(4) as usize * 4;
                out.extend(std::iter::repeat_n(' ', indent));
                match self.below(4) {
                    0 => {
                        out.push_str("pub fn ");
                        self.ident(out);
                        out.push_str("(&self, ");
                        self.ident(out);
                        out.push_str(": &str) -> Result<");
                        self.ident(out);
                        out.push_str("> {\n");
                    }
                    1 => {
                        out.push_str("// ");
                        self.push_words(out, 8);
                        out.push('\n');
                    }
                    _ => {
                        out.push_str("let ");
                        self.ident(out);
                        out.push_str(" = self.");
                        self.ident(out);
                        let n = self.below(10_000);
                        let _ = writeln!(out, "({n});");
                    }
                }
            }
            // prose
            _ => {
                let n = 6 + self.below(14) as usize;
                self.push_words(out, n);
                out.push_str(".\n");
            }
        }
    }

    /// A tool output of about `size` bytes, mostly of one kind of text.
    pub(crate) fn output(&mut self, size: usize) -> String {
        let mut out = String::with_capacity(size + 256);
        let main = self.below(5);
        while out.len() < size {
            let kind = if self.below(5) == 0 {
                self.below(5)
            } else {
                main
            };
            self.line(kind, &mut out);
        }
        out
    }

    fn output_size(&mut self) -> usize {
        match self.below(100) {
            0..=2 => 50_000 + self.below(150_000) as usize,
            3..=20 => 8_000 + self.below(12_000) as usize,
            _ => 400 + self.below(6_000) as usize,
        }
    }

    fn sentence(&mut self, n: usize) -> String {
        let mut s = String::new();
        self.push_words(&mut s, n);
        s
    }

    /// One turn: run started, a question, 1-4 tool steps, an answer, run finished.
    fn turn(&mut self, seq: &mut u64, project: &Path) -> (Vec<Record>, u64) {
        fn rec(seq: &mut u64, body: Body) -> Record {
            *seq += 1;
            Record::new(*seq, TS, body)
        }
        let mut out = Vec::new();
        let run = format!("run_{}", *seq + 1);
        out.push(rec(
            seq,
            Body::Run {
                run: run.clone(),
                state: RunState::Started,
            },
        ));
        let n = 4 + self.below(10) as usize;
        out.push(rec(seq, Body::user_text(self.sentence(n))));
        let user = out[1].seq;
        for _ in 0..1 + self.below(4) {
            let call = format!("call_{}", *seq + 1);
            let mut command = String::from("cargo test -p ");
            self.ident(&mut command);
            let mut thinking = String::new();
            if self.below(4) == 0 {
                let n = 20 + self.below(60) as usize;
                thinking = self.sentence(n);
            }
            let mut content = Vec::new();
            if !thinking.is_empty() {
                content.push(Block::Thinking {
                    thinking,
                    signature: None,
                });
            }
            content.push(Block::ToolUse {
                id: call.clone(),
                name: "bash".into(),
                input: serde_json::json!({ "command": command }).into(),
            });
            out.push(rec(
                seq,
                Body::Assistant {
                    content,
                    model: Some("bench".into()),
                    stop: Some("tool_use".into()),
                    stop_raw: None,
                    usage: None,
                },
            ));
            let size = self.output_size();
            let text = self.output(size);
            let f = self.below(FILES as u64);
            let path = format!("mod_{f}.rs");
            let hash = fs::read(project.join(&path))
                .map(|b| blake3::hash(&b).to_hex()[..32].to_owned())
                .ok();
            out.push(rec(
                seq,
                Body::ToolResult {
                    call,
                    content: vec![Block::text(text)],
                    blob: None,
                    is_error: false,
                    files: vec![FileTouch {
                        path,
                        op: "read".into(),
                        hash,
                    }],
                },
            ));
        }
        let n = 10 + self.below(40) as usize;
        out.push(rec(
            seq,
            Body::Assistant {
                content: vec![Block::text(self.sentence(n))],
                model: Some("bench".into()),
                stop: Some("end_turn".into()),
                stop_raw: None,
                usage: None,
            },
        ));
        out.push(rec(
            seq,
            Body::Run {
                run,
                state: RunState::Finished,
            },
        ));
        (out, user)
    }

    pub(crate) fn write_log(&mut self, path: &Path, project: &Path, target: u64) -> Res<LogStats> {
        let mut w = BufWriter::with_capacity(1 << 20, fs::File::create(path)?);
        let mut seq = 1;
        let mut start = SessionStart::new(project.to_string_lossy());
        start.id = ID.to_owned();
        let mut stats = LogStats {
            bytes: 0,
            records: 0,
            folds: 0,
            last_seq: 0,
            text: 0,
        };
        let mut put = |r: &Record, stats: &mut LogStats| -> Res {
            let line = encode_line(r)?;
            stats.bytes += line.len() as u64;
            stats.records += 1;
            stats.last_seq = r.seq;
            w.write_all(&line)?;
            Ok(())
        };
        put(
            &Record::new(1, TS, Body::Session(Box::new(start))),
            &mut stats,
        )?;
        while stats.bytes < target {
            // A span of 3-20 turns, folded; the last few turns of the log stay live.
            let turns = 3 + self.below(18);
            let mut since = 0;
            let mut until = 0;
            for t in 0..turns {
                let (records, user) = self.turn(&mut seq, project);
                if t == 0 {
                    since = user;
                }
                until = records.last().map_or(user, |r| r.seq);
                for r in &records {
                    stats.text += text_len(r);
                    put(r, &mut stats)?;
                }
            }
            if stats.bytes < target {
                seq += 1;
                let note = self.sentence(30);
                let fold = Fold {
                    since,
                    until,
                    handle: format!("{:05x}", stats.folds),
                    note,
                    files: Vec::new(),
                    diff_blob: None,
                };
                put(
                    &Record::new(seq, TS, Body::Fold(Box::new(fold))),
                    &mut stats,
                )?;
                stats.folds += 1;
            }
        }
        w.flush()?;
        Ok(stats)
    }

    /// Appends one turn mentioning a new word, folded, after `last_seq`.
    pub(crate) fn append_fold(&mut self, path: &Path, project: &Path, last_seq: u64) -> Res {
        let mut seq = last_seq;
        let (mut records, user) = self.turn(&mut seq, project);
        if let Body::ToolResult { content, .. } = &mut records[3].body {
            content.push(Block::text("the quetzalcoatl migration ran"));
        }
        let until = seq;
        seq += 1;
        records.push(Record::new(
            seq,
            TS,
            Body::Fold(Box::new(Fold {
                since: user,
                until,
                handle: "fffff".into(),
                note: "ran the quetzalcoatl migration".into(),
                files: Vec::new(),
                diff_blob: None,
            })),
        ));
        let mut bytes = Vec::new();
        for r in &records {
            bytes.extend(encode_line(r)?);
        }
        let mut f = fs::OpenOptions::new().append(true).open(path)?;
        f.write_all(&bytes)?;
        Ok(())
    }

    /// Queries of 1-3 words: a mix of frequent words, mid-frequency and rare ones.
    pub(crate) fn queries(&mut self, n: usize) -> Vec<String> {
        (0..n)
            .map(|_| {
                let words = 1 + self.below(3) as usize;
                (0..words)
                    .map(|_| {
                        let rank = match self.below(3) {
                            0 => self.below(200),
                            1 => 200 + self.below(5_000),
                            _ => 5_000 + self.below(VOCAB as u64 - 5_000),
                        };
                        self.vocab[rank as usize].clone()
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    }

    pub(crate) fn rare_word(&mut self) -> String {
        let rank = 40_000 + self.below(20_000);
        self.vocab[rank as usize].clone()
    }
}

fn text_len(r: &Record) -> u64 {
    let blocks = match &r.body {
        Body::User { content } | Body::Assistant { content, .. } => content,
        Body::ToolResult { content, .. } => content,
        _ => return 0,
    };
    blocks
        .iter()
        .map(|b| match b {
            Block::Text { text } => text.len() as u64,
            Block::Thinking { thinking, .. } => thinking.len() as u64,
            _ => 0,
        })
        .sum()
}
