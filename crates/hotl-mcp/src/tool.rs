//! A server's tool as a hotl tool: its definition frozen as the server gave it when it
//! started, its calls sent to the server, its result's text (large results in a blob).

use std::sync::Arc;

use hotl_tool::{Invocation, Tool, ToolFuture, ToolKind, ToolOutput};
use hotl_wire::ToolDef;

use crate::server::Server;

/// One tool of one server.
pub(crate) struct McpTool {
    server: Arc<Server>,
    /// The server's own name for it.
    raw: String,
    def: ToolDef,
    /// The server says it only reads (its `readOnlyHint` annotation): its calls may run side
    /// by side with a step's other reads. Its permission is a command's all the same.
    read_only_hint: bool,
}

impl McpTool {
    /// `tool` of `server`, named `name` for the model.
    pub(crate) fn new(
        server: Arc<Server>,
        name: String,
        tool: &rmcp::model::Tool,
    ) -> Result<McpTool, String> {
        let schema = serde_json::Value::Object((*tool.input_schema).clone()).to_string();
        let description = tool
            .description
            .as_deref()
            .unwrap_or("(the server gives no description)");
        let def = ToolDef::new(
            name,
            format!("[MCP server {}] {description}", server.name),
            &schema,
        )
        .map_err(|e| format!("the MCP tool {} has a bad schema: {e}", tool.name))?;
        let read_only_hint = tool
            .annotations
            .as_ref()
            .and_then(|a| a.read_only_hint)
            .unwrap_or(false);
        Ok(McpTool {
            server,
            raw: tool.name.to_string(),
            def,
            read_only_hint,
        })
    }
}

impl Tool for McpTool {
    fn name(&self) -> &str {
        &self.def.name
    }

    /// What an MCP tool does is the server's to say and not hotl's to check: it asks as a
    /// command does, whatever its annotations claim, and plan mode refuses it.
    fn kind(&self) -> ToolKind {
        ToolKind::External
    }

    /// A tool the server marks read-only runs beside the step's other reads: running side by
    /// side is all its annotation changes.
    fn runs_alongside(&self) -> bool {
        self.read_only_hint
    }

    fn definition(&self) -> ToolDef {
        self.def.clone()
    }

    /// The server and its own name for the tool, then the arguments.
    fn preview(&self, args: &hotl_tool::Args, _ctx: &hotl_tool::ToolCtx) -> hotl_tool::Preview {
        let mut preview = hotl_tool::Preview::of_arguments(args.fields());
        preview.lines.insert(
            0,
            hotl_tool::PreviewLine::new(
                hotl_tool::PreviewKind::Note,
                format!("MCP server {}, tool {}", self.server.name, self.raw),
            ),
        );
        preview
    }

    fn run<'a>(&'a self, call: Invocation<'a>) -> ToolFuture<'a> {
        Box::pin(async move {
            let arguments = match call.input.parse::<serde_json::Value>() {
                Ok(serde_json::Value::Object(map)) => map,
                _ => return ToolOutput::error("the arguments must be a JSON object"),
            };
            let result = match self.server.call(&self.raw, arguments, call.ctx.turn).await {
                Ok(result) => result,
                Err(why) => return ToolOutput::error(why),
            };
            let mut text = String::new();
            let blobs = &call.ctx.blobs;
            let put = |bytes: &[u8]| blobs.put(bytes).ok();
            for block in &result.content {
                text.push_str(&crate::content::block_text(block, &put));
                text.push('\n');
            }
            if text.is_empty()
                && let Some(structured) = &result.structured_content
            {
                text = structured.to_string();
            }
            if self.server.tools_changed() {
                tracing::debug!(
                    server = self.server.name,
                    "calling a tool of a changed list"
                );
            }
            let (shown, blob) = hotl_tool::cap_output(text.trim_end(), &call.ctx.blobs);
            let mut output = if result.is_error == Some(true) {
                ToolOutput::error(shown)
            } else {
                ToolOutput::ok(shown)
            };
            output.blob = blob;
            output
        })
    }
}
