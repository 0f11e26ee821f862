//! Shared setup for the tool tests: a temporary project with a blob store beside it.

use std::path::{Path, PathBuf};

use hotl_log::{Blobs, ToolInput};
use hotl_testkit::TestResult;
use hotl_tool::{Args, Invocation, ToolCtx, ToolOutput, ToolSet};
use serde_json::Value;

/// A temporary project directory (`<tmp>/project`) and its tool context.
pub struct Project {
    _dir: tempfile::TempDir,
    pub ctx: ToolCtx,
}

impl Project {
    /// A fresh, empty project; blobs go to `<tmp>/blobs`.
    pub fn new() -> TestResult<Project> {
        let dir = tempfile::tempdir()?;
        // Canonical, so paths the tools print compare equal to ours.
        let root = dir.path().canonicalize()?;
        let cwd = root.join("project");
        std::fs::create_dir_all(&cwd)?;
        let ctx = ToolCtx {
            turn: 0,
            cwd,
            blobs: Blobs::new(root.join("blobs")),
            todos: Vec::new(),
            hidden_env: Vec::new().into(),
            reaper: None,
            sandbox: None,
            progress: None,
        };
        Ok(Project { _dir: dir, ctx })
    }

    /// `rel` inside the project.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.ctx.cwd.join(rel)
    }

    /// Writes `content` to `rel`, creating directories.
    pub fn file(&self, rel: &str, content: impl AsRef<[u8]>) -> TestResult {
        let path = self.path(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(path, content)?;
        Ok(())
    }

    /// The file's content as text.
    pub fn read(&self, rel: &str) -> TestResult<String> {
        Ok(std::fs::read_to_string(self.path(rel))?)
    }

    /// Runs the built-in tool `name` with `input`.
    pub async fn call(&self, name: &str, input: Value) -> ToolOutput {
        run(name, input, &self.ctx).await
    }

    /// The paths the tool `name` says `input` would write.
    pub fn writes(&self, name: &str, input: Value) -> Vec<PathBuf> {
        let set = ToolSet::builtin();
        let tool = set.get(name).expect("a built-in tool");
        let args = Args::parse(&ToolInput::from(input)).expect("an object");
        tool.writes(&args, &self.ctx)
    }
}

/// Runs the built-in tool `name` with `input` in `ctx`.
/// Runs the built-in tool `name` with `input` in `ctx`, its arguments parsed as the seam
/// parses them (a non-object is refused before the tool runs).
pub async fn run(name: &str, input: Value, ctx: &ToolCtx) -> ToolOutput {
    let set = ToolSet::builtin();
    let tool = set.get(name).expect("a built-in tool");
    let input = ToolInput::from(input);
    match Invocation::new("call_1", &input, ctx) {
        Ok(call) => tool.run(call).await,
        Err(why) => ToolOutput::error(why),
    }
}

/// Asserts `out` is an error whose message contains every one of `parts`.
pub fn assert_error(out: &ToolOutput, parts: &[&str]) {
    assert!(out.is_error, "expected an error, got: {}", out.content);
    for part in parts {
        assert!(
            out.content.contains(part),
            "error {:?} lacks {part:?}",
            out.content
        );
    }
}

/// `path` as the tools print it.
pub fn shown(path: &Path) -> String {
    path.display().to_string()
}
