//! `write`: creates or replaces a whole file, atomically.

use std::fs;
use std::path::PathBuf;

use hotl_log::FileTouch;
use hotl_wire::ToolDef;

use crate::args::{Args, Fail};
use crate::tool::{
    Invocation, Tool, ToolCtx, ToolFuture, ToolKind, ToolOutput, content_hash, definition,
};
use crate::tools::files::{blocking, io_fail, write_atomic, write_target};

const DESCRIPTION: &str =
    "Create or overwrite a file (directories are created); edit changes part of one.";

const SCHEMA: &str = r#"{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}"#;

/// The `write` tool.
pub(crate) struct Write;

struct Call {
    path: PathBuf,
    content: String,
}

impl Tool for Write {
    fn name(&self) -> &'static str {
        "write"
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
        let (Ok(path), Ok(content)) = (args.string("path"), args.string("content")) else {
            return crate::Preview::of_arguments(args.fields());
        };
        let resolved = ctx.resolve(&path);
        let preview = crate::Preview::of_write(&resolved, &content);
        crate::Preview {
            summary: preview
                .summary
                .replacen(&resolved.display().to_string(), &path, 1),
            ..preview
        }
    }

    fn run<'a>(&'a self, invocation: Invocation<'a>) -> ToolFuture<'a> {
        let ctx = invocation.ctx;
        let call = Ok::<_, Fail>(&invocation.args).and_then(|args| {
            Ok(Call {
                path: ctx.resolve(&args.string("path")?),
                content: args.string("content")?,
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

/// The resolved `path` argument, for [`Tool::writes`] (nothing when the input is malformed:
/// the call will fail before writing).
pub(crate) fn write_path(args: &Args, ctx: &ToolCtx) -> Vec<PathBuf> {
    args.string("path")
        .map(|p| vec![ctx.resolve(&p)])
        .unwrap_or_default()
}

impl Call {
    fn run(self) -> Result<ToolOutput, Fail> {
        let path = &self.path;
        let shown = path.display();
        if path.is_dir() {
            return Err(format!(
                "{shown} is a directory; give the path of a file inside it"
            ));
        }
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            fs::create_dir_all(parent).map_err(|e| io_fail("create the directory", parent, &e))?;
        }
        let target = write_target(path);
        let existed = target.exists();
        write_atomic(&target, self.content.as_bytes()).map_err(|e| io_fail("write", path, &e))?;
        let lines = self.content.lines().count();
        let content = format!(
            "{} {shown} ({lines} line{}, {} bytes)",
            if existed { "overwrote" } else { "created" },
            if lines == 1 { "" } else { "s" },
            self.content.len()
        );
        Ok(ToolOutput {
            files: vec![FileTouch {
                path: shown.to_string(),
                op: "write".to_owned(),
                hash: Some(content_hash(self.content.as_bytes())),
            }],
            ..ToolOutput::ok(content)
        })
    }
}
