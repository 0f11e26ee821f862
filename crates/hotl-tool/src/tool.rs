//! The tool seam: what a tool is, what one call runs with, and what it gives back.
//!
//! Built-in tools, an MCP server's tools and the engine's own tools that need the session (the
//! moves and delegation) all implement [`Tool`] and live in one [`ToolSet`](crate::ToolSet).
//! Every call goes the same way: its arguments are parsed into [`Args`], its permission is
//! decided from the tool's [`ToolKind`] and the paths it [writes](Tool::writes), a `tool_use`
//! event goes out, the tool runs with an [`Invocation`], and a `tool_result` event follows. A
//! tool gets its arguments, the project and where blobs go, never the session: the engine runs
//! the few that [need it](Tool::needs_session) through a host of its own.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;

use hotl_log::{Blobs, FileTouch, Todo, ToolInput};
use hotl_wire::ToolDef;

use crate::args::Args;

/// What a tool may do, for permission checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolKind {
    /// Reads only (read, grep, glob, ls, todo, the moves): allowed in every mode.
    Read,
    /// Changes files (write, edit).
    Write,
    /// Runs commands (bash).
    Exec,
    /// Another program's tool (an MCP server's): what it does is the program's to say and not
    /// hotl's to check, so it is asked for as a command is and plan mode refuses it.
    External,
}

/// Where a call runs.
#[derive(Clone, Debug)]
pub struct ToolCtx {
    /// Which turn of this process the call belongs to (from 1; 0 outside a turn): a tool that
    /// does something at most once a turn (an MCP server started again) keys on it.
    pub turn: u64,
    /// The session's working directory: relative paths resolve here, and writes outside it need
    /// permission.
    pub cwd: PathBuf,
    /// Where large outputs go.
    pub blobs: Blobs,
    /// The current todo list (the `todo` tool replaces it).
    pub todos: Vec<Todo>,
    /// Environment variables a tool's processes must not see (the provider keys: a command
    /// like `env` would put them in the log and send them to the provider).
    pub hidden_env: std::sync::Arc<[String]>,
    /// The program that leads a command's process group (see
    /// the engine's `Settings::reaper`).
    pub reaper: Option<std::sync::Arc<std::path::Path>>,
    /// The sandbox's rules for this call's commands (plan mode's are read-only); `None` when
    /// commands run unconfined.
    pub sandbox: Option<std::sync::Arc<hotl_sandbox::Rules>>,
    /// Where a call's output goes as it is printed; `None`: only its result is told.
    pub progress: Option<Progress>,
}

/// Output a running call printed, passed on as it comes: called with the call's id and the
/// text printed since the last call.
#[derive(Clone)]
pub struct Progress(pub std::sync::Arc<ProgressFn>);

/// What [`Progress`] calls: the call's id, then the text.
pub type ProgressFn = dyn Fn(&str, &str) + Send + Sync;

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Progress")
    }
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

    /// `Ok` as it is, `Err` as an error the model reads.
    pub fn from_result(result: Result<ToolOutput, String>) -> Self {
        result.unwrap_or_else(ToolOutput::error)
    }
}

/// A boxed future, so tools can be trait objects.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What [`Tool::run`] returns.
pub type ToolFuture<'a> = BoxFuture<'a, ToolOutput>;

/// One call, as the tool runs it.
pub struct Invocation<'a> {
    /// The call's id.
    pub id: &'a str,
    /// The call's arguments, parsed (a JSON object; the accessors name the field at fault).
    pub args: Args,
    /// The arguments as the model wrote them, for a tool that hands them on unchanged.
    pub input: &'a ToolInput,
    /// Where it runs.
    pub ctx: &'a ToolCtx,
}

impl<'a> Invocation<'a> {
    /// A call of `input` (parsed as the seam parses it) running in `ctx`.
    pub fn new(id: &'a str, input: &'a ToolInput, ctx: &'a ToolCtx) -> Result<Self, String> {
        Ok(Invocation {
            id,
            args: Args::parse(input)?,
            input,
            ctx,
        })
    }
}

/// A tool the model can call.
///
/// Contract: `run` never panics and never returns an error type: every failure is a
/// [`ToolOutput::error`] the model can read. Dropping the future stops the work (a child
/// process is killed), unless the tool [delegates](Tool::delegates). Names and
/// definitions may be made at run time, but must not change for the life of the value: a
/// session freezes the definitions it starts with. A tool that [runs
/// alongside](Tool::runs_alongside) others may be called while they run: it must not depend on
/// their order.
pub trait Tool: Send + Sync {
    /// The name the model calls it by.
    fn name(&self) -> &str;
    /// What it may do.
    fn kind(&self) -> ToolKind;
    /// Whether a call may change files in the working tree (so the tree is snapshotted around
    /// its step): whatever is not a read, and a call that starts a child (which may write).
    fn changes_files(&self) -> bool {
        self.kind() != ToolKind::Read || self.delegates()
    }
    /// Whether it only reads: a read that changes no file (so not a tool that starts a child,
    /// which may write). What a reviewer and a background child may use.
    fn reads_only(&self) -> bool {
        self.kind() == ToolKind::Read && !self.changes_files()
    }
    /// Whether its calls may run side by side with the step's other such calls (their
    /// results are recorded in call order all the same): a read that needs no session, or
    /// another program's tool that says it only reads (an MCP tool's `readOnlyHint`). The
    /// permission of an external tool is not changed by what it says.
    fn runs_alongside(&self) -> bool {
        self.reads_only() && !self.needs_session()
    }
    /// Whether its calls start a child (`fork`, `spawn`, `continue`): they run after the
    /// step's other calls are answered (a fork starts from the view with them answered), side
    /// by side, and a cancelled child stops itself, closing its own log, instead of being
    /// dropped. No by default.
    fn delegates(&self) -> bool {
        false
    }
    /// Whether it works on the session itself (the moves, delegation): the engine runs it
    /// with the session through [`as_any`](Tool::as_any), and [`run`](Tool::run) only says it
    /// works inside a session. No by default.
    fn needs_session(&self) -> bool {
        false
    }
    /// The value itself, for an engine that recognises its own tools among a set's.
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        None
    }
    /// Its definition as sent to the model (description and JSON Schema).
    fn definition(&self) -> ToolDef;
    /// The paths this call would write (resolved against `ctx`), for the outside-the-project
    /// check; empty for tools that write nothing.
    fn writes(&self, _args: &Args, _ctx: &ToolCtx) -> Vec<PathBuf> {
        Vec::new()
    }
    /// The paths this call would read (resolved against `ctx`), for the secret-location check;
    /// empty for tools that read no file's content.
    fn reads(&self, _args: &Args, _ctx: &ToolCtx) -> Vec<PathBuf> {
        Vec::new()
    }
    /// Whether this call's commands run in the sandbox (a `bash` call unless it asks
    /// `sandbox: false`); such a call needs no question where the sandbox is enforced.
    fn sandboxed(&self, _args: &Args) -> bool {
        false
    }
    /// What an approval shows of this call before its question. By default its arguments.
    fn preview(&self, args: &Args, _ctx: &ToolCtx) -> crate::Preview {
        crate::Preview::of_arguments(args.fields())
    }
    /// Runs the call.
    fn run<'a>(&'a self, call: Invocation<'a>) -> ToolFuture<'a>;
}

/// Builds a [`ToolDef`] from a name, a description and a schema literal.
///
/// # Panics
///
/// When `schema` is not valid JSON (it is a literal in the source; a schema that arrives at
/// run time goes through [`ToolDef::new`](hotl_wire::ToolDef::new)).
pub fn definition(name: &str, description: &str, schema: &'static str) -> ToolDef {
    ToolDef::new(name, description, schema).expect("tool schemas are valid JSON literals")
}

/// The hash of a file's bytes, as file touches record it ([`FileTouch::hash_of`]).
pub fn content_hash(bytes: &[u8]) -> String {
    FileTouch::hash_of(bytes)
}
