//! `ls`: the entries of one directory.

use std::collections::HashSet;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::fs;
use std::path::PathBuf;

use hotl_wire::ToolDef;
use ignore::WalkBuilder;

use crate::args::{Args, Fail};
use crate::tool::{Invocation, Tool, ToolCtx, ToolFuture, ToolKind, ToolOutput, definition};
use crate::tools::files::{blocking, io_fail};

/// The most entries one call returns.
pub(crate) const MAX_ENTRIES: usize = 1_000;

const DESCRIPTION: &str = "List a directory (default the working directory), not recursively; ignored entries are only counted unless `all`.";

const SCHEMA: &str =
    r#"{"type":"object","properties":{"path":{"type":"string"},"all":{"type":"boolean"}}}"#;

/// The `ls` tool.
pub(crate) struct Ls;

impl Tool for Ls {
    fn name(&self) -> &'static str {
        "ls"
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn definition(&self) -> ToolDef {
        definition(self.name(), DESCRIPTION, SCHEMA)
    }

    fn reads(&self, args: &Args, ctx: &ToolCtx) -> Vec<PathBuf> {
        // Listing a directory reads it: a denied one (`~/.ssh`) is refused as its files are.
        vec![match args.opt_string("path") {
            Ok(Some(p)) => ctx.resolve(&p),
            _ => ctx.cwd.clone(),
        }]
    }

    fn run<'a>(&'a self, invocation: Invocation<'a>) -> ToolFuture<'a> {
        let ctx = invocation.ctx;
        let call = Ok::<_, Fail>(&invocation.args).and_then(|args| {
            let dir = match args.opt_string("path")? {
                Some(p) => ctx.resolve(&p),
                None => ctx.cwd.clone(),
            };
            Ok((dir, args.opt_bool("all")?.unwrap_or(false)))
        });
        Box::pin(async move {
            match call {
                Ok((dir, all)) => blocking(move || list(dir, all)).await,
                Err(message) => ToolOutput::error(message),
            }
        })
    }
}

fn list(dir: PathBuf, all: bool) -> Result<ToolOutput, Fail> {
    let shown = dir.display();
    let meta = fs::metadata(&dir).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => format!("directory not found: {shown}"),
        _ => io_fail("list", &dir, &e),
    })?;
    if !meta.is_dir() {
        return Err(format!(
            "{shown} is a file, not a directory; use read to see its content"
        ));
    }
    let kept = if all { None } else { Some(not_ignored(&dir)) };
    let mut names = Vec::new();
    let mut hidden = Vec::new();
    for entry in fs::read_dir(&dir).map_err(|e| io_fail("list", &dir, &e))? {
        let entry = entry.map_err(|e| io_fail("list", &dir, &e))?;
        let file_name = entry.file_name();
        let mut name = file_name.to_string_lossy().into_owned();
        // Follows symlinks, so a link to a directory is listed as one.
        if entry.path().is_dir() {
            name.push('/');
        }
        if kept.as_ref().is_some_and(|kept| !kept.contains(&file_name)) {
            hidden.push(name);
        } else {
            names.push(name);
        }
    }
    hidden.sort();
    let hidden_note = match hidden.len() {
        0 => String::new(),
        n => format!(
            "[{n} ignored entr{} not shown ({}); all: true lists them]",
            if n == 1 { "y" } else { "ies" },
            hidden_sample(&hidden)
        ),
    };
    if names.is_empty() {
        return Ok(ToolOutput::ok(if hidden.is_empty() {
            format!("{shown} is empty")
        } else {
            format!("{shown} has only ignored entries\n{hidden_note}")
        }));
    }
    names.sort();
    let total = names.len();
    names.truncate(MAX_ENTRIES);
    let mut content = names.join("\n");
    if total > MAX_ENTRIES {
        let _ = write!(
            content,
            "\n[showing the first {MAX_ENTRIES} of {total} entries; use glob to narrow down]"
        );
    }
    if !hidden_note.is_empty() {
        content.push('\n');
        content.push_str(&hidden_note);
    }
    Ok(ToolOutput::ok(content))
}

/// The names in `dir` that `.git/` and the ignore files (`.gitignore`, `.ignore`, git's
/// excludes, the parents' too) leave visible; dot-files stay.
fn not_ignored(dir: &std::path::Path) -> HashSet<OsString> {
    WalkBuilder::new(dir)
        .max_depth(Some(1))
        .require_git(false)
        .hidden(false)
        .filter_entry(|e| e.file_name() != ".git")
        .build()
        .filter_map(Result::ok)
        .filter(|e| e.depth() == 1)
        .map(|e| e.file_name().to_owned())
        .collect()
}

/// The first few hidden names, for the note.
fn hidden_sample(hidden: &[String]) -> String {
    const SHOWN: usize = 5;
    let mut sample = hidden[..hidden.len().min(SHOWN)].join(", ");
    if hidden.len() > SHOWN {
        sample.push_str(", ...");
    }
    sample
}
