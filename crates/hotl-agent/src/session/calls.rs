//! Running one tool call (the moves dispatched to their own code, other tools through the
//! permission policy), recording its result, and answering the calls left open.

use hotl_log::{Block, Body, ToolInput};
use hotl_view::Item;
use tokio::sync::watch;

use super::{Progress, Session, Settings, Ui};
use crate::error::Result;
use crate::permission::Decision;
use crate::provider::Provider;
use crate::tool::{ToolCtx, ToolOutput};

/// One tool call of a step.
pub(super) struct Call {
    pub(super) id: String,
    pub(super) name: String,
    pub(super) input: ToolInput,
}

impl Session {
    pub(super) async fn call_tool(
        &mut self,
        call: &Call,
        provider: &Provider,
        settings: &Settings,
        ui: &mut dyn Ui,
        cancel: &watch::Receiver<bool>,
    ) -> ToolOutput {
        let (id, name, input) = (call.id.as_str(), call.name.as_str(), &call.input);
        if name == "fold" && self.tool_defs.iter().any(|t| t.name == "fold") {
            return self
                .fold_call(input)
                .unwrap_or_else(|e| ToolOutput::error(e.to_string()));
        }
        if name == "fork" && self.tool_defs.iter().any(|t| t.name == "fork") {
            let args: serde_json::Value = input.parse().unwrap_or_default();
            let Some(task) = args
                .get("task")
                .and_then(|t| t.as_str())
                .filter(|t| !t.is_empty())
            else {
                return ToolOutput::error("fork needs a `task`");
            };
            let task = task.to_owned();
            return match Box::pin(self.fork_call(id, &task, provider, settings, ui, cancel.clone()))
                .await
            {
                Ok(output) => output,
                Err(e) => ToolOutput::error(format!("the fork failed: {e}")),
            };
        }
        if name == "recall" && self.tool_defs.iter().any(|t| t.name == "recall") {
            let args: serde_json::Value = input.parse().unwrap_or_default();
            let query = args.get("query").and_then(|q| q.as_str()).unwrap_or("");
            let mode = args.get("mode").and_then(|m| m.as_str());
            return match self.recall(query, mode, 20) {
                Ok(text) => ToolOutput::ok(text),
                Err(why) => ToolOutput::error(why),
            };
        }
        if name == "ask" && self.tool_defs.iter().any(|t| t.name == "ask") {
            let args: serde_json::Value = input.parse().unwrap_or_default();
            let field = |k: &str| {
                args.get(k)
                    .and_then(|v| v.as_str())
                    .unwrap_or("")
                    .to_owned()
            };
            let (handle, question) = (field("handle"), field("question"));
            if handle.is_empty() || question.is_empty() {
                return ToolOutput::error("ask needs `handle` and `question`");
            }
            ui.progress(Progress::ToolStart {
                id,
                name,
                input: input.get(),
            });
            let output = match self.ask(&handle, &question, provider, settings).await {
                Ok(answer) => ToolOutput::ok(answer),
                Err(e) => ToolOutput::error(e.to_string()),
            };
            ui.progress(Progress::ToolDone {
                id,
                name,
                output: &output,
            });
            return output;
        }
        let Some(tool) = self.tools.iter().find(|t| t.name() == name).cloned() else {
            let known: Vec<&str> = self.tools.iter().map(|t| t.name()).collect();
            return ToolOutput::error(format!(
                "there is no tool named {name:?}; the tools are: {}",
                known.join(", ")
            ));
        };
        let ctx = ToolCtx {
            cwd: self.cwd.clone(),
            blobs: self.store.blobs(),
            todos: self.view.state.todos.clone(),
        };
        let writes = tool.writes(input, &ctx);
        match settings
            .policy
            .decide(name, tool.kind(), &writes, &self.cwd)
        {
            Decision::Allow => {}
            Decision::Deny(why) => {
                ui.progress(Progress::Notice(&why));
                return ToolOutput::error(why);
            }
            Decision::Ask(why) => {
                let question = format!("{why}: {name} {}. Allow?", input.get());
                if !tokio::task::block_in_place(|| ui.confirm(&question)) {
                    return ToolOutput::error(format!("the user declined: {why}"));
                }
            }
        }
        ui.progress(Progress::ToolStart {
            id,
            name,
            input: input.get(),
        });
        let started = std::time::Instant::now();
        let output = tool.run(input, &ctx).await;
        self.totals.tool_time += started.elapsed();
        ui.progress(Progress::ToolDone {
            id,
            name,
            output: &output,
        });
        output
    }

    /// Whether a call of the tool `name` may change files (an unknown tool changes nothing:
    /// its call is refused).
    pub(super) fn changes_files(&self, name: &str) -> bool {
        self.tools
            .iter()
            .any(|t| t.name() == name && t.changes_files())
    }

    pub(super) fn record_result(&mut self, call: &str, output: ToolOutput) -> Result<()> {
        for touch in &output.files {
            if let Some((path, handle, title)) = self
                .archived_files
                .iter()
                .find(|(p, _, _)| *p == touch.path)
            {
                self.cue = Some(format!(
                    "<cue>{path} was also touched by the archived thread {handle} ({title}); recall or ask it for what it learned</cue>"
                ));
            }
        }
        if let Some(items) = output.todos.clone() {
            self.append(Body::Todos { items })?;
        }
        self.append(Body::ToolResult {
            call: call.to_owned(),
            content: vec![Block::text(output.content)],
            blob: output.blob,
            is_error: output.is_error,
            files: output.files,
        })
    }

    /// The tool calls of the last assistant message that have no result yet: (id, tool name).
    pub(super) fn open_calls(&self) -> Vec<(String, String)> {
        let mut answered: Vec<&str> = Vec::new();
        for item in self.view.items.iter().rev() {
            match item {
                Item::ToolResult { call, .. } => answered.push(call),
                Item::Assistant { content, .. } => {
                    return content
                        .iter()
                        .filter_map(|b| match b {
                            Block::ToolUse { id, name, .. } if !answered.contains(&id.as_str()) => {
                                Some((id.clone(), name.clone()))
                            }
                            _ => None,
                        })
                        .collect();
                }
                _ => break,
            }
        }
        Vec::new()
    }

    /// Answers every tool call of the last assistant message that has no result yet.
    pub(super) fn answer_open_calls(&mut self, why: &str) -> Result<()> {
        for (call, _) in self.open_calls() {
            self.append(Body::ToolResult {
                call,
                content: vec![Block::text(why)],
                blob: None,
                is_error: true,
                files: Vec::new(),
            })?;
        }
        Ok(())
    }
}
