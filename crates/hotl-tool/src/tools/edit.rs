//! `edit`: exact string replacement in a file, refused when the match is missing or ambiguous.

use std::fmt::Write as _;
use std::fs;
use std::path::PathBuf;

use hotl_log::FileTouch;
use hotl_wire::ToolDef;

use crate::args::{Args, Fail};
use crate::tool::{
    Invocation, Tool, ToolCtx, ToolFuture, ToolKind, ToolOutput, content_hash, definition,
};
use crate::tools::files::{as_text, blocking, io_fail, write_atomic, write_target};
use crate::tools::output::cut_line;
use crate::tools::write::write_path;

const DESCRIPTION: &str = "Replace `old` with `new` in a file. `old` must match exactly, whitespace included and line numbers left out, and once unless `all`.";

const SCHEMA: &str = r#"{"type":"object","properties":{"path":{"type":"string"},"old":{"type":"string"},"new":{"type":"string"},"all":{"type":"boolean"}},"required":["path","old","new"]}"#;

/// Lines of context shown around a single replacement.
const CONTEXT: usize = 2;
/// The most lines a snippet shows.
const SNIPPET_LINES: usize = 20;
/// The most line numbers listed for an ambiguous match.
const LISTED: usize = 10;

/// The `edit` tool.
pub(crate) struct Edit;

struct Call {
    path: PathBuf,
    old: String,
    new: String,
    all: bool,
}

impl Tool for Edit {
    fn name(&self) -> &'static str {
        "edit"
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Write
    }

    fn definition(&self) -> ToolDef {
        definition(self.name(), DESCRIPTION, SCHEMA)
    }

    fn writes(&self, args: &Args, ctx: &ToolCtx) -> Vec<PathBuf> {
        write_path(args, ctx)
    }

    fn preview(&self, args: &Args, ctx: &ToolCtx) -> crate::Preview {
        let (Ok(path), Ok(old), Ok(new)) =
            (args.string("path"), args.string("old"), args.string("new"))
        else {
            return crate::Preview::of_arguments(args.fields());
        };
        crate::Preview {
            summary: path.clone(),
            ..crate::Preview::of_edit(&ctx.resolve(&path), &old, &new)
        }
    }

    fn run<'a>(&'a self, invocation: Invocation<'a>) -> ToolFuture<'a> {
        let ctx = invocation.ctx;
        let call = Ok::<_, Fail>(&invocation.args).and_then(|args| {
            Ok(Call {
                path: ctx.resolve(&args.string("path")?),
                old: args.string("old")?,
                new: args.string("new")?,
                all: args.opt_bool("all")?.unwrap_or(false),
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

impl Call {
    fn run(self) -> Result<ToolOutput, Fail> {
        let path = &self.path;
        let shown = path.display();
        if self.old.is_empty() {
            return Err(
                "`old` is empty; give the exact text to replace (to create or overwrite a whole file, use write)"
                    .to_owned(),
            );
        }
        if self.old == self.new {
            return Err("`old` and `new` are the same; there is nothing to change".to_owned());
        }
        let meta = fs::metadata(path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => {
                format!("file not found: {shown}; to create a file, use write")
            }
            _ => io_fail("read", path, &e),
        })?;
        if meta.is_dir() {
            return Err(format!("{shown} is a directory, not a file"));
        }
        let bytes = fs::read(path).map_err(|e| io_fail("read", path, &e))?;
        let text = as_text(&bytes).ok_or_else(|| {
            format!("{shown} is a binary file; edit only changes text files (use write or bash)")
        })?;
        let (old, new) = line_endings_like(text, &self.old, &self.new);
        let starts: Vec<usize> = text.match_indices(old.as_str()).map(|(i, _)| i).collect();
        match starts.len() {
            0 => return Err(not_found(text, &self.old, &shown.to_string())),
            1 => {}
            n if !self.all => {
                let mut lines: Vec<String> = starts
                    .iter()
                    .take(LISTED)
                    .map(|&i| line_of(text, i).to_string())
                    .collect();
                if n > LISTED {
                    lines.push("…".to_owned());
                }
                return Err(format!(
                    "`old` occurs {n} times in {shown} (at lines {}); add surrounding lines to `old` so it matches exactly once, or set `all` to true to replace every occurrence",
                    lines.join(", ")
                ));
            }
            _ => {}
        }
        let updated = if self.all {
            text.replace(old.as_str(), &new)
        } else {
            text.replacen(old.as_str(), &new, 1)
        };
        let target = write_target(path);
        write_atomic(&target, updated.as_bytes()).map_err(|e| io_fail("write", path, &e))?;
        let mut content = match starts.len() {
            1 => format!(
                "replaced 1 occurrence in {shown} at line {}:\n",
                line_of(text, starts[0])
            ),
            n => format!("replaced {n} occurrences in {shown}\n"),
        };
        if starts.len() == 1 {
            let first = line_of(&updated, starts[0]);
            let last = first + new.matches('\n').count();
            snippet(
                &updated,
                first.saturating_sub(CONTEXT),
                last + CONTEXT,
                &mut content,
            );
        }
        Ok(ToolOutput {
            files: vec![FileTouch {
                path: shown.to_string(),
                op: "edit".to_owned(),
                hash: Some(content_hash(updated.as_bytes())),
            }],
            ..ToolOutput::ok(content.trim_end().to_owned())
        })
    }
}

/// `old` and `new` with CRLF line ends when the file uses them and `old` as given does not
/// match (the read tool shows lines without their `\r`).
fn line_endings_like(text: &str, old: &str, new: &str) -> (String, String) {
    let crlf = |s: &str| s.replace("\r\n", "\n").replace('\n', "\r\n");
    if old.contains('\n')
        && !old.contains("\r\n")
        && text.contains("\r\n")
        && !text.contains(old)
        && text.contains(&crlf(old))
    {
        (crlf(old), crlf(new))
    } else {
        (old.to_owned(), new.to_owned())
    }
}

/// The 1-based line number of byte offset `at`.
fn line_of(text: &str, at: usize) -> usize {
    text[..at].matches('\n').count() + 1
}

/// Appends lines `first..=last` (1-based, clamped) of `text`, numbered like `read` shows them.
fn snippet(text: &str, first: usize, last: usize, out: &mut String) {
    let first = first.max(1);
    let last = last.min(first + SNIPPET_LINES - 1);
    for (i, line) in text
        .split_terminator('\n')
        .enumerate()
        .skip(first - 1)
        .take(last + 1 - first)
    {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let _ = writeln!(out, "{:>6}\t{}", i + 1, cut_line(line, 200));
    }
}

/// Why `old` was not found, with a hint when it matches once whitespace is relaxed.
fn not_found(text: &str, old: &str, shown: &str) -> Fail {
    let trimmed = old.trim();
    if !trimmed.is_empty() && trimmed != old && text.contains(trimmed) {
        return format!(
            "`old` was not found in {shown}, but it matches once its leading and trailing whitespace is removed; check the spaces and line breaks at its start and end"
        );
    }
    if let Some((first, count)) = match_ignoring_indentation(text, old) {
        let mut message = format!(
            "`old` was not found in {shown}, but lines {first}-{} match when indentation and trailing spaces are ignored; copy the exact text from there:\n",
            first + count - 1
        );
        snippet(text, first, first + count - 1, &mut message);
        return message.trim_end().to_owned();
    }
    format!(
        "`old` was not found in {shown}; read the file and copy the text exactly (whitespace and line breaks must match)"
    )
}

/// The first line (1-based) where the lines of `old`, each trimmed, equal the file's lines,
/// each trimmed; and how many lines that is.
fn match_ignoring_indentation(text: &str, old: &str) -> Option<(usize, usize)> {
    let want: Vec<&str> = old.trim_matches('\n').split('\n').map(str::trim).collect();
    if want.iter().all(|l| l.is_empty()) {
        return None;
    }
    let have: Vec<&str> = text.split_terminator('\n').map(str::trim).collect();
    have.windows(want.len())
        .position(|w| w == want.as_slice())
        .map(|i| (i + 1, want.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indentation_is_relaxed_only_for_the_hint() {
        let text = "fn a() {\n    let x = 1;\n    let y = 2;\n}\n";
        assert_eq!(
            match_ignoring_indentation(text, "let x = 1;\nlet y = 2;"),
            Some((2, 2))
        );
        assert_eq!(match_ignoring_indentation(text, "let z = 1;"), None);
        assert_eq!(match_ignoring_indentation(text, "\n\n"), None);
    }

    #[test]
    fn crlf_files_accept_lf_old_text() {
        let text = "a\r\nb\r\nc\r\n";
        let (old, new) = line_endings_like(text, "a\nb", "x\ny");
        assert_eq!((old.as_str(), new.as_str()), ("a\r\nb", "x\r\ny"));
        let (old, _) = line_endings_like("a\nb\n", "a\nb", "x");
        assert_eq!(old, "a\nb");
    }
}
