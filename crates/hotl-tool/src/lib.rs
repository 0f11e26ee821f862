//! hotl's tool seam: what a tool is ([`Tool`]), what one call runs with ([`Invocation`],
//! [`ToolCtx`]) and gives back ([`ToolOutput`]), the registry of a session's tools
//! ([`ToolSet`]), arguments read with errors that name the field at fault ([`Args`]), and the
//! built-in tools (read, write, edit, bash, grep, glob, ls, todo).
//!
//! Tools here never see a session: they get their arguments, the project and where large
//! outputs go. The engine (`hotl-agent`) adds the tools that work on the session itself (the
//! moves, delegation) to the same registry; an MCP server's tools (`hotl-mcp`) implement the
//! same trait without knowing the engine. Calls of tools that [run
//! alongside](Tool::runs_alongside) others (the reads) may be made side by side.
//!
//! ```
//! use hotl_tool::{Invocation, ToolCtx, ToolSet};
//!
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::write(dir.path().join("hello.txt"), "hi\n").unwrap();
//! let ctx = ToolCtx {
//!     turn: 1,
//!     cwd: dir.path().to_owned(),
//!     blobs: hotl_log::Blobs::new(dir.path().join("blobs")),
//!     todos: Vec::new(),
//!     hidden_env: Vec::new().into(),
//!     reaper: None,
//!     sandbox: None,
//!     progress: None,
//! };
//! let input = hotl_log::ToolInput::from_json(r#"{"path":"hello.txt"}"#).unwrap();
//! let call = Invocation::new("c1", &input, &ctx).unwrap();
//! let read = ToolSet::builtin().get("read").cloned().unwrap();
//! let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
//! let output = runtime.block_on(read.run(call));
//! assert!(output.content.contains("hi"), "{}", output.content);
//! ```

#![deny(missing_docs)]

mod args;
mod group;
mod preview;
mod tool;
mod tools;
mod toolset;

pub use crate::args::{Args, Fail};
pub use crate::group::{GroupKiller, kill_group};
pub use crate::preview::Preview;
pub use crate::tool::{
    BoxFuture, Invocation, Progress, Tool, ToolCtx, ToolFuture, ToolKind, ToolOutput, content_hash,
    definition,
};
pub use crate::tools::{BLOB_REF_CHARS, blob_ref, cap_output};
pub use hotl_protocol::{PreviewKind, PreviewLine};

/// The flag that makes the `hotl` binary the leader of a command's process group
/// (`hotl --reap-group PARENT [--sandbox-rules JSON] -- PROGRAM ARGS...`): how `bash` starts
/// its commands when the settings name a reaper.
pub const REAPER_FLAG: &str = "--reap-group";
pub use crate::toolset::{DuplicateTool, ToolSet};
