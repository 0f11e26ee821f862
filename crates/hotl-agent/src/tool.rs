//! The tool seam: what a tool is, what it gets, and what it gives back.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;

use hotl_log::{Blobs, FileTouch, Todo, ToolInput};
use hotl_wire::ToolDef;

/// What a tool may do, for permission checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolKind {
    /// Reads only (read, grep, glob, ls, todo): allowed in every mode.
    Read,
    /// Changes files (write, edit).
    Write,
    /// Runs commands (bash).
    Exec,
}

/// What a tool runs with.
#[derive(Clone, Debug)]
pub struct ToolCtx {
    /// The session's working directory: relative paths resolve here, and writes outside it need
    /// permission.
    pub cwd: PathBuf,
    /// Where large outputs go.
    pub blobs: Blobs,
    /// The current todo list (the `todo` tool replaces it).
    pub todos: Vec<Todo>,
}

impl ToolCtx {
    /// `path` resolved against the working directory (not canonicalised).
    pub fn resolve(&self, path: &str) -> PathBuf {
        let p = Path::new(path);
        if p.is_absolute() {
            p.to_owned()
        } else {
            self.cwd.join(p)
        }
    }
}

/// What a tool gives back.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolOutput {
    /// What the model sees (large outputs: head, tail and a pointer to the blob).
    pub content: String,
    /// Whether the tool failed.
    pub is_error: bool,
    /// Files read or changed, with content hashes.
    pub files: Vec<FileTouch>,
    /// The full output, when `content` had to be shortened (stored as a blob).
    pub blob: Option<String>,
    /// A new todo list, from the `todo` tool.
    pub todos: Option<Vec<Todo>>,
}

impl ToolOutput {
    /// A successful result.
    pub fn ok(content: impl Into<String>) -> Self {
        ToolOutput {
            content: content.into(),
            ..ToolOutput::default()
        }
    }

    /// A failed result the model can read and act on.
    pub fn error(content: impl Into<String>) -> Self {
        ToolOutput {
            content: content.into(),
            is_error: true,
            ..ToolOutput::default()
        }
    }
}

/// A boxed future, so tools can be trait objects.
pub type ToolFuture<'a> = Pin<Box<dyn Future<Output = ToolOutput> + Send + 'a>>;

/// A tool the model can call. Contract: `run` never panics and never returns an error type:
/// every failure is a [`ToolOutput::error`] the model can read. Cancelling the future (dropping
/// it) must stop the work (a child process is killed).
pub trait Tool: Send + Sync {
    /// The name the model calls it by.
    fn name(&self) -> &'static str;
    /// What it may do.
    fn kind(&self) -> ToolKind;
    /// Whether a call may change files in the working tree (so the tree is snapshotted around
    /// its step). Whatever is not a read, unless the tool says otherwise.
    fn changes_files(&self) -> bool {
        self.kind() != ToolKind::Read
    }
    /// Its definition as sent to the model (description and JSON Schema).
    fn definition(&self) -> ToolDef;
    /// The paths this call would write (resolved against `ctx`), for the outside-the-project
    /// check; empty for tools that write nothing.
    fn writes(&self, _input: &ToolInput, _ctx: &ToolCtx) -> Vec<PathBuf> {
        Vec::new()
    }
    /// Runs the call.
    fn run<'a>(&'a self, input: &'a ToolInput, ctx: &'a ToolCtx) -> ToolFuture<'a>;
}

/// Builds a [`ToolDef`] from a name, a description and a schema literal.
///
/// # Panics
///
/// When `schema` is not valid JSON (it is a literal in the source).
pub fn definition(name: &str, description: &str, schema: &'static str) -> ToolDef {
    ToolDef {
        name: name.to_owned(),
        description: description.to_owned(),
        input_schema: serde_json::value::RawValue::from_string(schema.to_owned())
            .expect("tool schemas are valid JSON literals"),
    }
}

/// The hash of a file's bytes, as file touches record it ([`FileTouch::hash_of`]).
pub fn content_hash(bytes: &[u8]) -> String {
    FileTouch::hash_of(bytes)
}
