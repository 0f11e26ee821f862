//! `read`: a text file with line numbers, a window of lines at a time.

use std::fmt::Write as _;
use std::fs;
use std::path::PathBuf;

use hotl_log::FileTouch;
use hotl_wire::ToolDef;

use crate::args::{Args, Fail};
use crate::tool::{
    Invocation, Tool, ToolCtx, ToolFuture, ToolKind, ToolOutput, content_hash, definition,
};
use crate::tools::files::{as_text, blocking, io_fail};
use crate::tools::output::cut_line;

/// Lines shown when the call gives no `limit`.
pub(crate) const DEFAULT_LIMIT: usize = 2_000;
/// Characters shown of each line.
pub(crate) const LINE_CHARS: usize = 2_000;
/// The most characters one call returns; the rest is left for a call with a later `offset`.
const MAX_CHARS: usize = 100_000;

const DESCRIPTION: &str = "Read a text file, or a stored output (`blob:<id>`), with numbered lines; `offset` and `limit` give a window (2000 lines by default).";

const SCHEMA: &str = r#"{"type":"object","properties":{"path":{"type":"string"},"offset":{"type":"integer","minimum":1},"limit":{"type":"integer","minimum":1}},"required":["path"]}"#;

/// The `read` tool.
pub(crate) struct Read;

struct Call {
    source: Source,
    offset: usize,
    limit: usize,
}

/// What a read reads: a file, or a blob a capped output pointed at (`blob:<hash>`).
enum Source {
    File(PathBuf),
    Blob {
        hash: String,
        blobs: hotl_log::Blobs,
    },
}

/// The hash, or the prefix of one, in `blob:<hash>`, when `path` is one (hex only: it names a
/// file). Pointers give [`crate::BLOB_REF_CHARS`] characters; a longer prefix or the whole
/// hash works too.
fn blob_hash(path: &str) -> Option<&str> {
    let hash = path.strip_prefix("blob:")?;
    (hash.len() >= 8 && hash.len() <= 64 && hash.bytes().all(|b| b.is_ascii_hexdigit()))
        .then_some(hash)
}

impl Tool for Read {
    fn name(&self) -> &'static str {
        "read"
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn definition(&self) -> ToolDef {
        definition(self.name(), DESCRIPTION, SCHEMA)
    }

    fn reads(&self, args: &Args, ctx: &ToolCtx) -> Vec<PathBuf> {
        args.string("path")
            .ok()
            .filter(|p| blob_hash(p).is_none())
            .map(|p| vec![ctx.resolve(&p)])
            .unwrap_or_default()
    }

    fn run<'a>(&'a self, invocation: Invocation<'a>) -> ToolFuture<'a> {
        let ctx = invocation.ctx;
        let call = Ok::<_, Fail>(&invocation.args).and_then(|args| {
            let limit = args.opt_u64("limit")?.unwrap_or(DEFAULT_LIMIT as u64);
            if limit == 0 {
                return Err("`limit` must be at least 1".to_owned());
            }
            let path = args.string("path")?;
            let source = match blob_hash(&path) {
                Some(hash) => Source::Blob {
                    hash: hash.to_owned(),
                    blobs: ctx.blobs.clone(),
                },
                None => Source::File(ctx.resolve(&path)),
            };
            Ok(Call {
                source,
                offset: to_usize(args.opt_u64("offset")?.unwrap_or(1).max(1)),
                limit: to_usize(limit),
            })
        });
        Box::pin(async move {
            match call {
                Ok(call) => blocking(move || call.run()).await,
                Err(message) => ToolOutput::error(message),
            }
        })
    }
}

fn to_usize(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

impl Call {
    fn run(self) -> Result<ToolOutput, Fail> {
        let path = match &self.source {
            Source::File(path) => path,
            Source::Blob { hash, blobs } => {
                let found = blobs.find(hash);
                let full = match found.as_slice() {
                    [one] => one,
                    [] => {
                        return Err(format!(
                            "there is no blob {hash}: copy it from the output's pointer line"
                        ));
                    }
                    many => {
                        return Err(format!(
                            "blob:{hash} names {} blobs; give more of the hash",
                            many.len()
                        ));
                    }
                };
                let bytes = blobs
                    .get(full)
                    .map_err(|e| format!("blob {hash} cannot be read: {e}"))?;
                let text = String::from_utf8_lossy(&bytes);
                return Ok(ToolOutput::ok(self.render(
                    &format!("blob:{hash}"),
                    &text,
                    true,
                )?));
            }
        };
        let shown = path.display();
        let meta = fs::metadata(path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => {
                format!("file not found: {shown}; check the path (ls or glob can help)")
            }
            _ => io_fail("read", path, &e),
        })?;
        if meta.is_dir() {
            return Err(format!(
                "{shown} is a directory, not a file; use ls to list it"
            ));
        }
        let bytes = fs::read(path).map_err(|e| io_fail("read", path, &e))?;
        let touch = FileTouch {
            path: shown.to_string(),
            op: "read".to_owned(),
            hash: Some(content_hash(&bytes)),
        };
        let content = match as_text(&bytes) {
            None => format!(
                "{shown} is a binary file ({} bytes); its content is not shown",
                bytes.len()
            ),
            Some("") => format!("{shown} is empty (0 bytes)"),
            Some(text) => self.render(&shown.to_string(), text, false)?,
        };
        Ok(ToolOutput {
            files: vec![touch],
            ..ToolOutput::ok(content)
        })
    }

    /// `text`'s window of numbered lines. A file's lines are cut at [`LINE_CHARS`] (bash
    /// reaches the rest of a file); a blob is reachable only through here, so its long lines
    /// go on in rows marked `+` (a minified output's one line is read whole), within
    /// [`MAX_CHARS`] a call.
    fn render(&self, name: &str, text: &str, wrap: bool) -> Result<String, Fail> {
        let lines: Vec<&str> = text.split_terminator('\n').collect();
        let total = lines.len();
        if self.offset > total {
            return Err(format!(
                "{name} has {total} line{}; offset {} is past the end",
                if total == 1 { "" } else { "s" },
                self.offset
            ));
        }
        let mut out = String::new();
        let mut last = self.offset - 1;
        for (i, line) in lines
            .iter()
            .enumerate()
            .skip(self.offset - 1)
            .take(self.limit)
        {
            if out.len() >= MAX_CHARS {
                break;
            }
            let line = line.strip_suffix('\r').unwrap_or(line);
            if wrap {
                wrap_line(&mut out, i + 1, line);
            } else {
                let _ = writeln!(out, "{:>6}\t{}", i + 1, cut_line(line, LINE_CHARS));
            }
            last = i + 1;
        }
        if last < total {
            let _ = write!(
                out,
                "[showing lines {}-{last} of {total}; continue with offset={}]",
                self.offset,
                last + 1
            );
        }
        Ok(out)
    }
}

/// Line `n` as rows of at most [`LINE_CHARS`] characters, the first numbered, the rest marked
/// `+`; a line longer than [`MAX_CHARS`] is cut there, saying so.
fn wrap_line(out: &mut String, n: usize, line: &str) {
    let mut rest = line;
    let mut lead = format!("{n:>6}");
    let mut shown = 0;
    loop {
        let end = rest
            .char_indices()
            .nth(LINE_CHARS)
            .map_or(rest.len(), |(at, _)| at);
        let _ = writeln!(out, "{lead}\t{}", &rest[..end]);
        shown += end;
        rest = &rest[end..];
        if rest.is_empty() {
            return;
        }
        if shown >= MAX_CHARS {
            let total = line.chars().count();
            let _ = writeln!(
                out,
                "     +\t[line {n} has {total} characters; not all shown]"
            );
            return;
        }
        lead = "     +".to_owned();
    }
}
