//! What `hotl sessions dump` and `/dump` show of a session: its frozen system prompt and tool
//! definitions, the model, the messages the model sees, and the exact body hotl would send for
//! the conversation as it stands (no headers, no keys). The agent makes it; a front end shows
//! it and, as an effect of its own, writes the body beside it ([`Dump::write_body`]).

use std::fmt::Write as _;
use std::path::PathBuf;

use hotl_log::Block;
use hotl_view::{Message, Role};
use serde::Serialize;

/// A session as the model sees it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Dump {
    /// The session.
    pub id: String,
    /// The model the next request asks.
    pub model: String,
    /// The frozen system prompt, block by block.
    pub system: Vec<String>,
    /// The frozen tool definitions.
    pub tools: Vec<DumpedTool>,
    /// What the model sees, stamps included.
    pub messages: Vec<Message>,
    /// The request body for the conversation as it stands, in the provider's dialect (the
    /// demo's: Anthropic's); `None` when there is nothing to send yet.
    pub body: Option<String>,
}

/// One frozen tool definition.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DumpedTool {
    /// Its name.
    pub name: String,
    /// What it is for.
    pub description: String,
    /// Its parameters' JSON Schema, as frozen.
    pub parameters: String,
}

impl Dump {
    /// The dump as text: the model, the system prompt, the tools with their parameters, and
    /// the messages (thinking, tool calls and results, notes and summaries as the model reads
    /// them).
    pub fn text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "session {}\nmodel: {}", self.id, self.model);
        out.push_str("\n=== system prompt ===\n");
        for (i, block) in self.system.iter().enumerate() {
            if i > 0 {
                out.push_str("---\n");
            }
            let _ = writeln!(out, "{block}");
        }
        let _ = writeln!(out, "\n=== tools ({}) ===", self.tools.len());
        for tool in &self.tools {
            let _ = writeln!(
                out,
                "{}: {}\n  parameters: {}",
                tool.name, tool.description, tool.parameters
            );
        }
        let _ = writeln!(out, "\n=== messages ({}) ===", self.messages.len());
        out.push_str(&messages_text(&self.messages));
        out
    }

    /// Writes the request body to `hotl-llm-request-<id>.json` in the temporary directory,
    /// readable by its owner only (a file or link already there is replaced, never followed);
    /// `None` when there is no body.
    pub fn write_body(&self) -> std::io::Result<Option<PathBuf>> {
        use std::io::Write as _;
        use std::os::unix::fs::OpenOptionsExt;
        let Some(body) = &self.body else {
            return Ok(None);
        };
        let path = std::env::temp_dir().join(format!("hotl-llm-request-{}.json", self.id));
        if path.symlink_metadata().is_ok() {
            std::fs::remove_file(&path)?;
        }
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)?;
        file.write_all(body.as_bytes())?;
        Ok(Some(path))
    }
}

/// Model-view messages as text: a `── role ──` line, then each block (tool calls and results,
/// thinking, images as tags), as `sessions show --model-view` and dumps print them.
pub fn messages_text(messages: &[Message]) -> String {
    let mut out = String::new();
    for message in messages {
        let role = match message.role {
            Role::User => "user",
            Role::Assistant => "assistant",
        };
        let _ = writeln!(out, "── {role} ──");
        for block in &message.content {
            block_text(&mut out, block);
        }
    }
    out
}

fn block_text(out: &mut String, block: &Block) {
    let _ = match block {
        Block::Text { text } => writeln!(out, "{text}"),
        Block::Thinking { thinking, .. } => writeln!(out, "<thinking>{thinking}</thinking>"),
        Block::RedactedThinking { .. } => writeln!(out, "<redacted_thinking/>"),
        Block::ToolUse { id, name, input } => {
            writeln!(out, "<tool_use id={id} name={name}>{input}</tool_use>")
        }
        Block::ToolResult {
            tool_use_id,
            content,
            is_error,
        } => {
            let error = if *is_error { " is_error" } else { "" };
            let _ = writeln!(out, "<tool_result id={tool_use_id}{error}>");
            for inner in content {
                block_text(out, inner);
            }
            writeln!(out, "</tool_result>")
        }
        Block::Image { media_type, .. } => writeln!(out, "<image {media_type}/>"),
        Block::Unknown { .. } => Ok(()),
    };
}
