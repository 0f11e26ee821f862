//! `glob`: files whose path matches a glob, honouring `.gitignore`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobMatcher};
use hotl_wire::ToolDef;
use ignore::WalkBuilder;

use crate::args::{Args, Fail};
use crate::tool::{Invocation, Tool, ToolCtx, ToolFuture, ToolKind, ToolOutput, definition};
use crate::tools::files::{blocking, shown};

/// The most paths one call returns.
pub(crate) const MAX_PATHS: usize = 1_000;

const DESCRIPTION: &str = "Find files by pattern (`src/**/*.rs`; `*` stays in a directory), ignored ones skipped. Sorted, at most 1000.";

const SCHEMA: &str =
    r#"{"type":"object","properties":{"pattern":{"type":"string"}},"required":["pattern"]}"#;

/// The `glob` tool.
pub(crate) struct Glob;

struct Call {
    pattern: String,
    /// Where the walk starts: the pattern's leading literal directories.
    base: PathBuf,
    /// The rest of the pattern, matched against paths relative to `base`.
    matcher: GlobMatcher,
    hidden: bool,
    cwd: PathBuf,
    /// What the walk skips: the paths under the base the sandbox denies reading.
    denied: Vec<PathBuf>,
}

impl Tool for Glob {
    fn name(&self) -> &'static str {
        "glob"
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn definition(&self) -> ToolDef {
        definition(self.name(), DESCRIPTION, SCHEMA)
    }

    fn reads(&self, args: &Args, ctx: &ToolCtx) -> Vec<PathBuf> {
        // The walk starts at the pattern's literal directories: a denied one is refused.
        match args.string("pattern") {
            Ok(pattern) => vec![ctx.resolve(&split_literal(&pattern).0)],
            Err(_) => Vec::new(),
        }
    }

    fn run<'a>(&'a self, invocation: Invocation<'a>) -> ToolFuture<'a> {
        let ctx = invocation.ctx;
        let call = Ok::<_, Fail>(&invocation.args).and_then(|args| {
            let pattern = args.string("pattern")?;
            if pattern.is_empty() {
                return Err("`pattern` is empty".to_owned());
            }
            let (base, rest) = split_literal(&pattern);
            let matcher = GlobBuilder::new(&rest)
                .literal_separator(true)
                .build()
                .map_err(|e| format!("invalid glob `{pattern}`: {}", e.kind()))?
                .compile_matcher();
            let base = ctx.resolve(&base);
            Ok(Call {
                hidden: rest.split('/').any(|c| c.starts_with('.')),
                denied: super::files::denied_under(ctx, &base),
                base,
                matcher,
                pattern,
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

/// Splits a pattern into its leading directories without glob syntax and the rest:
/// `src/**/*.rs` → (`src`, `**/*.rs`); `*.rs` → (`.`, `*.rs`); `/etc/*.conf` → (`/etc`, `*.conf`).
fn split_literal(pattern: &str) -> (String, String) {
    let parts: Vec<&str> = pattern.split('/').collect();
    let literal = parts[..parts.len() - 1]
        .iter()
        .take_while(|p| !p.contains(['*', '?', '[', '{']))
        .count();
    let base = parts[..literal].join("/");
    let base = match base.as_str() {
        "" if pattern.starts_with('/') => "/".to_owned(),
        "" => ".".to_owned(),
        _ => base,
    };
    (base, parts[literal..].join("/"))
}

impl Call {
    fn run(self) -> Result<ToolOutput, Fail> {
        if !self.base.is_dir() {
            return Ok(ToolOutput::ok(format!(
                "no files match `{}` ({} is not a directory)",
                self.pattern,
                self.base.display()
            )));
        }
        let walk = WalkBuilder::new(&self.base)
            .require_git(false)
            .hidden(!self.hidden)
            .filter_entry({
                let denied = self.denied.clone();
                move |e| e.file_name() != ".git" && !denied.iter().any(|d| d == e.path())
            })
            .build();
        let mut found: Vec<PathBuf> = walk
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
            .filter(|e| {
                let rel = e.path().strip_prefix(&self.base).unwrap_or(e.path());
                self.matcher.is_match(rel)
            })
            .map(|e| normal(e.path()))
            .collect();
        found.sort();
        let skipped = super::files::skipped_note(&self.denied, &self.cwd);
        if found.is_empty() {
            let none = format!("no files match `{}`", self.pattern);
            return Ok(ToolOutput::ok(match skipped {
                Some(note) => format!("{none}\n{note}"),
                None => none,
            }));
        }
        let total = found.len();
        let mut content = found
            .iter()
            .take(MAX_PATHS)
            .map(|p| shown(p, &self.cwd))
            .collect::<Vec<_>>()
            .join("\n");
        if total > MAX_PATHS {
            let _ = write!(
                content,
                "\n[showing the first {MAX_PATHS} of {total} files; narrow the pattern]"
            );
        }
        if let Some(note) = skipped {
            content.push('\n');
            content.push_str(&note);
        }
        Ok(ToolOutput::ok(content))
    }
}

/// `path` without `.` components (`cwd/./src/a.rs` → `cwd/src/a.rs`).
fn normal(path: &Path) -> PathBuf {
    path.components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_prefixes_become_the_walk_root() {
        let s = |p: &str| {
            let (a, b) = split_literal(p);
            (a, b)
        };
        assert_eq!(s("src/**/*.rs"), ("src".into(), "**/*.rs".into()));
        assert_eq!(s("*.rs"), (".".into(), "*.rs".into()));
        assert_eq!(s("Cargo.toml"), (".".into(), "Cargo.toml".into()));
        assert_eq!(s("a/b/c.txt"), ("a/b".into(), "c.txt".into()));
        assert_eq!(s("/etc/*.conf"), ("/etc".into(), "*.conf".into()));
        assert_eq!(
            s("crates/*/src/lib.rs"),
            ("crates".into(), "*/src/lib.rs".into())
        );
    }
}
