//! `ls`: the entries of one directory.

use std::fmt::Write as _;
use std::fs;
use std::path::PathBuf;

use hotl_wire::ToolDef;

use crate::args::Fail;
use crate::tool::{Invocation, Tool, ToolFuture, ToolKind, ToolOutput, definition};
use crate::tools::files::{blocking, io_fail};

/// The most entries one call returns.
pub(crate) const MAX_ENTRIES: usize = 1_000;

const DESCRIPTION: &str = "List a directory (default: the working directory): one entry per line, \
sorted, directories marked with a trailing `/`, dot-files included. Not recursive; use glob to \
find files deeper down.";

const SCHEMA: &str = r#"{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "The directory to list. Default: the working directory."}
  }
}"#;

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

    fn run<'a>(&'a self, invocation: Invocation<'a>) -> ToolFuture<'a> {
        let ctx = invocation.ctx;
        let call = Ok::<_, Fail>(&invocation.args).and_then(|args| {
            Ok(match args.opt_string("path")? {
                Some(p) => ctx.resolve(&p),
                None => ctx.cwd.clone(),
            })
        });
        Box::pin(async move {
            match call {
                Ok(dir) => blocking(move || list(dir)).await,
                Err(message) => ToolOutput::error(message),
            }
        })
    }
}

fn list(dir: PathBuf) -> Result<ToolOutput, Fail> {
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
    let mut names = Vec::new();
    for entry in fs::read_dir(&dir).map_err(|e| io_fail("list", &dir, &e))? {
        let entry = entry.map_err(|e| io_fail("list", &dir, &e))?;
        let mut name = entry.file_name().to_string_lossy().into_owned();
        // Follows symlinks, so a link to a directory is listed as one.
        if entry.path().is_dir() {
            name.push('/');
        }
        names.push(name);
    }
    if names.is_empty() {
        return Ok(ToolOutput::ok(format!("{shown} is empty")));
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
    Ok(ToolOutput::ok(content))
}
