//! `grep`: regex search over files, honouring `.gitignore` and skipping hidden and binary files.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobMatcher};
use hotl_wire::ToolDef;
use ignore::WalkBuilder;
use regex::Regex;

use crate::args::{Args, Fail};
use crate::tool::{Invocation, Tool, ToolCtx, ToolFuture, ToolKind, ToolOutput, definition};
use crate::tools::files::{blocking, has_nul, shown};
use crate::tools::output::cut_line;

/// The most matching lines one call returns.
pub(crate) const MAX_MATCHES: usize = 500;
/// Characters shown of each matching line.
const LINE_CHARS: usize = 500;
/// Files larger than this are not searched.
const MAX_FILE_BYTES: u64 = 20 << 20;

const DESCRIPTION: &str = "Search file contents for a Rust regex in `path` (default the working directory), skipping ignored, hidden and binary files; `glob` filters file names (`*.rs`). Gives `path:line:text`, at most 500 lines.";

const SCHEMA: &str = r#"{"type":"object","properties":{"pattern":{"type":"string"},"path":{"type":"string"},"glob":{"type":"string"}},"required":["pattern"]}"#;

/// The `grep` tool.
pub(crate) struct Grep;

struct Call {
    regex: Regex,
    pattern: String,
    root: PathBuf,
    filter: Option<Filter>,
    cwd: PathBuf,
    /// What the walk skips: the paths under the root the sandbox denies reading.
    denied: Vec<PathBuf>,
}

impl Tool for Grep {
    fn name(&self) -> &'static str {
        "grep"
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn definition(&self) -> ToolDef {
        definition(self.name(), DESCRIPTION, SCHEMA)
    }

    fn reads(&self, args: &Args, ctx: &ToolCtx) -> Vec<PathBuf> {
        match args.opt_string("path") {
            Ok(Some(p)) => vec![ctx.resolve(&p)],
            _ => Vec::new(),
        }
    }

    fn run<'a>(&'a self, invocation: Invocation<'a>) -> ToolFuture<'a> {
        let ctx = invocation.ctx;
        let call = Ok::<_, Fail>(&invocation.args).and_then(|args| {
            let pattern = args.string("pattern")?;
            let regex =
                Regex::new(&pattern).map_err(|e| format!("invalid regex `{pattern}`: {e}"))?;
            let root = match args.opt_string("path")? {
                Some(p) => ctx.resolve(&p),
                None => ctx.cwd.clone(),
            };
            let filter = args
                .opt_string("glob")?
                .map(|g| Filter::new(&g))
                .transpose()?;
            Ok(Call {
                regex,
                pattern,
                denied: super::files::denied_under(ctx, &root),
                root,
                filter,
                cwd: ctx.cwd.clone(),
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

/// A `glob` filter: on file names when it has no `/`, else on paths relative to the root.
pub(crate) struct Filter {
    matcher: GlobMatcher,
    on_name: bool,
}

impl Filter {
    /// Compiles `glob`; the error names it.
    pub(crate) fn new(glob: &str) -> Result<Filter, Fail> {
        let matcher = GlobBuilder::new(glob)
            .literal_separator(true)
            .build()
            .map_err(|e| format!("invalid glob `{glob}`: {}", e.kind()))?
            .compile_matcher();
        Ok(Filter {
            matcher,
            on_name: !glob.contains('/'),
        })
    }

    /// Whether the file at `rel` (relative to the search root) passes.
    pub(crate) fn allows(&self, rel: &Path) -> bool {
        if self.on_name {
            rel.file_name().is_some_and(|n| self.matcher.is_match(n))
        } else {
            self.matcher.is_match(rel)
        }
    }
}

impl Call {
    fn run(self) -> Result<ToolOutput, Fail> {
        let meta = fs::metadata(&self.root).map_err(|_| {
            format!(
                "{} does not exist; give an existing directory or file as `path`",
                self.root.display()
            )
        })?;
        let (files, unreadable) = if meta.is_file() {
            (vec![self.root.clone()], 0)
        } else {
            self.files()
        };
        let mut hits = Vec::new();
        let mut capped = false;
        'files: for file in &files {
            let Ok(bytes) = fs::read(file) else {
                continue;
            };
            if has_nul(&bytes) {
                continue;
            }
            let text = String::from_utf8_lossy(&bytes);
            let name = shown(file, &self.cwd);
            for (i, line) in text.split_terminator('\n').enumerate() {
                let line = line.strip_suffix('\r').unwrap_or(line);
                if self.regex.is_match(line) {
                    if hits.len() == MAX_MATCHES {
                        capped = true;
                        break 'files;
                    }
                    hits.push(format!("{name}:{}:{}", i + 1, cut_line(line, LINE_CHARS)));
                }
            }
        }
        let mut content = if hits.is_empty() {
            format!(
                "no matches for `{}` in {}",
                self.pattern,
                self.root.display()
            )
        } else {
            hits.join("\n")
        };
        if capped {
            let _ = write!(
                content,
                "\n[stopped after {MAX_MATCHES} matches; narrow the pattern, path or glob to see the rest]"
            );
        }
        if let Some(note) = super::files::skipped_note(&self.denied, &self.cwd) {
            content.push('\n');
            content.push_str(&note);
        }
        if unreadable > 0 {
            let _ = write!(
                content,
                "\n[{unreadable} path{} could not be read and were skipped]",
                if unreadable == 1 { "" } else { "s" }
            );
        }
        Ok(ToolOutput::ok(content))
    }

    /// The files to search under the root directory, sorted by path, and how many entries the
    /// walk could not read.
    fn files(&self) -> (Vec<PathBuf>, usize) {
        let mut files = Vec::new();
        let mut unreadable = 0;
        let denied = self.denied.clone();
        let walk = WalkBuilder::new(&self.root)
            .require_git(false)
            .max_filesize(Some(MAX_FILE_BYTES))
            .filter_entry(move |e| !denied.iter().any(|d| d == e.path()))
            .build();
        for entry in walk {
            let Ok(entry) = entry else {
                unreadable += 1;
                continue;
            };
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                continue;
            }
            let rel = entry
                .path()
                .strip_prefix(&self.root)
                .unwrap_or(entry.path());
            if self.filter.as_ref().is_none_or(|f| f.allows(rel)) {
                files.push(entry.into_path());
            }
        }
        files.sort();
        (files, unreadable)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_without_a_slash_match_names() {
        let f = Filter::new("*.rs").unwrap();
        assert!(f.allows(Path::new("src/deep/a.rs")));
        assert!(!f.allows(Path::new("src/a.txt")));
        let f = Filter::new("src/*.rs").unwrap();
        assert!(f.allows(Path::new("src/a.rs")));
        assert!(!f.allows(Path::new("src/deep/a.rs")));
        assert!(
            Filter::new("src/**/*.rs")
                .unwrap()
                .allows(Path::new("src/deep/a.rs"))
        );
        assert!(Filter::new("a[").is_err());
    }
}
