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

const DESCRIPTION: &str = "Read a text file, lines numbered from 1 (`cat -n` style). Up to 2000 lines; `offset` and `limit` read a window of a long file. Lines over 2000 characters are cut; a binary file is reported by its size.";

const SCHEMA: &str = r#"{"type":"object","properties":{"path":{"type":"string"},"offset":{"type":"integer","minimum":1,"description":"first line, 1-based"},"limit":{"type":"integer","minimum":1}},"required":["path"]}"#;

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

/// The hash in `blob:<hash>`, when `path` is one (hex only: it becomes a file name).
fn blob_hash(path: &str) -> Option<&str> {
    let hash = path.strip_prefix("blob:")?;
    (hash.len() >= 16 && hash.len() <= 64 && hash.bytes().all(|b| b.is_ascii_hexdigit()))
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
                let bytes = blobs.get(hash).map_err(|_| {
                    format!("there is no blob {hash}: copy the hash from the output's pointer line")
                })?;
                let text = String::from_utf8_lossy(&bytes);
                return Ok(ToolOutput::ok(self.render(&format!("blob:{hash}"), &text)?));
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
            Some(text) => self.render(&shown.to_string(), text)?,
        };
        Ok(ToolOutput {
            files: vec![touch],
            ..ToolOutput::ok(content)
        })
    }

    fn render(&self, name: &str, text: &str) -> Result<String, Fail> {
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
            let _ = writeln!(out, "{:>6}\t{}", i + 1, cut_line(line, LINE_CHARS));
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
