//! One tool call through the seam, the same way for every tool: a `tool_use` event, the tool
//! looked up in the registry, its arguments parsed, its permission decided (asking the user
//! when the policy says so), the call run, a `tool_result` event. The reads of a step run side
//! by side, their results recorded in call order; a tool that works on the session runs with
//! it as its host. Also: answering the calls left open, and finishing the ones a dead process
//! left running.

use std::sync::Arc;

use hotl_log::{Block, Body, ToolInput};
use hotl_protocol::Event;
use hotl_tool::{Args, Invocation, Tool, ToolCtx, ToolOutput};
use hotl_view::Item;

use super::Session;
use super::delegate::Ran;
use crate::context::{Answer, Context};
use crate::error::Result;
use crate::events::Events;

/// The most of what a hook said that a notice shows (the tool result has more).
const HOOK_NOTICE_CHARS: usize = 2_000;
use crate::hooks::HookPoint;
use crate::permission::Decision;
use crate::session::Started;
use crate::session_tool::{Host, SessionCall, session_tool};

/// One tool call of a step.
pub(super) struct Call {
    pub(super) id: String,
    pub(super) name: String,
    pub(super) input: ToolInput,
    /// The arguments as sent, when they were not valid JSON (the call does not run).
    pub(super) bad_json: Option<String>,
    /// The answer stopped at the output limit: invalid arguments were cut off there.
    pub(super) cut: bool,
}

/// A call past its checks, ready to run.
struct Ready {
    tool: Arc<dyn Tool>,
    args: Args,
    ctx: ToolCtx,
    /// What its hooks are given.
    event: serde_json::Value,
}

/// Tells the front end a call is about to run (with its arguments as sent when they were not
/// JSON).
pub(super) fn told_use(call: &Call, cx: &Context) {
    cx.events.send(Event::ToolUse {
        id: call.id.clone(),
        name: call.name.clone(),
        input: match &call.bad_json {
            Some(text) => ToolInput::from(serde_json::Value::String(text.clone())),
            None => call.input.clone(),
        },
    });
}

/// Tells the front end what a call gave: what the model is given, once it is final (a
/// repeated call's pointer, a result cut to the window).
pub(super) fn told_result(call: &Call, output: &ToolOutput, cx: &Context) {
    cx.events.send(Event::ToolResult {
        id: call.id.clone(),
        name: call.name.clone(),
        is_error: output.is_error,
        content: output.content.clone(),
    });
}

/// How much of a call's invalid arguments its error quotes: enough to recognise the call,
/// never so much that answering it refills the window the cut came from.
const QUOTED_ARGUMENTS: usize = 200;

/// The first [`QUOTED_ARGUMENTS`] characters of `args`, with `…` when there are more.
fn quoted_head(args: &str) -> String {
    match args.char_indices().nth(QUOTED_ARGUMENTS) {
        Some((end, _)) => format!("{}…", &args[..end]),
        None => args.to_owned(),
    }
}

impl Session {
    /// The tool a call of `name` reaches: one the session froze, with a live implementation.
    pub(super) fn tool(&self, name: &str) -> Option<Arc<dyn Tool>> {
        self.tools.get(name).cloned()
    }

    /// What a call runs with.
    fn tool_ctx(&self, cx: &Context) -> ToolCtx {
        ToolCtx {
            turn: self.turns_run,
            cwd: self.cwd.clone(),
            blobs: self.store.blobs(),
            todos: self.view.state.todos.clone(),
            hidden_env: cx.settings.hidden_env.clone(),
            reaper: cx.settings.reaper.clone(),
            sandbox: cx
                .settings
                .policy
                .rules_for(&self.cwd)
                .map(std::sync::Arc::new),
            progress: Some(self.printed.progress(&cx.events)),
        }
    }

    /// Runs `call` through the seam and returns what it gave (the turn tells it, once final).
    pub(super) async fn call(&mut self, call: &Call, cx: &Context) -> ToolOutput {
        told_use(call, cx);
        self.run_call(call, cx).await
    }

    async fn run_call(&mut self, call: &Call, cx: &Context) -> ToolOutput {
        let Ready {
            tool,
            args,
            ctx,
            event,
        } = match self.prepare(call, cx).await {
            Ok(ready) => ready,
            Err(refused) => return refused,
        };
        let started = std::time::Instant::now();
        let output = match session_tool(tool.as_ref()) {
            Some(on_session) => {
                let call = SessionCall {
                    id: &call.id,
                    args,
                    host: Host { session: self, cx },
                };
                on_session.run(call).await
            }
            None => {
                let invocation = Invocation {
                    id: &call.id,
                    args,
                    input: &call.input,
                    ctx: &ctx,
                };
                tool.run(invocation).await
            }
        };
        self.totals.tool_time += started.elapsed();
        self.after_tool(call, event, &output, cx).await;
        output
    }

    /// Runs calls whose tools [run alongside](Tool::runs_alongside) others (the reads) side by
    /// side: each is told and checked in turn (its hooks run, its permission is asked), then
    /// they run at once; their results come back in the calls' order.
    pub(super) async fn call_alongside(&mut self, calls: &[Call], cx: &Context) -> Vec<ToolOutput> {
        let mut prepared = Vec::with_capacity(calls.len());
        for call in calls {
            told_use(call, cx);
            prepared.push(self.prepare(call, cx).await);
        }
        let started = std::time::Instant::now();
        let runs = calls.iter().zip(&prepared).map(|(call, ready)| async move {
            match ready {
                Ok(ready) => {
                    let invocation = Invocation {
                        id: &call.id,
                        args: ready.args.clone(),
                        input: &call.input,
                        ctx: &ready.ctx,
                    };
                    ready.tool.run(invocation).await
                }
                Err(refused) => refused.clone(),
            }
        });
        let outputs = futures_util::future::join_all(runs).await;
        self.totals.tool_time += started.elapsed();
        for ((call, ready), output) in calls.iter().zip(prepared).zip(&outputs) {
            if let Ok(ready) = ready {
                self.after_tool(call, ready.event, output, cx).await;
            }
        }
        outputs
    }

    /// Runs calls that delegate (`fork`, `spawn`, `continue`) side by side: each is started
    /// in turn through the seam (its log written, its permission asked), then the children
    /// run at once within the slots, and their ends answer the calls, in the calls' order.
    /// Each child stops itself when the turn is cancelled.
    pub(super) async fn call_together(&mut self, calls: &[Call], cx: &Context) -> Vec<ToolOutput> {
        /// A call's answer, or the child whose end answers it.
        enum Answer {
            Now(ToolOutput),
            Child(usize),
        }
        let started = std::time::Instant::now();
        let mut children = Vec::new();
        let mut answers = Vec::with_capacity(calls.len());
        for call in calls {
            cx.events.send(Event::ToolUse {
                id: call.id.clone(),
                name: call.name.clone(),
                input: call.input.clone(),
            });
            let ready = match self.prepare(call, cx).await {
                Ok(ready) => ready,
                Err(refused) => {
                    answers.push((None, Answer::Now(refused)));
                    continue;
                }
            };
            let Some(on_session) = session_tool(ready.tool.as_ref()) else {
                answers.push((
                    None,
                    Answer::Now(ToolOutput::error("this tool starts no child")),
                ));
                continue;
            };
            let invocation = SessionCall {
                id: &call.id,
                args: ready.args,
                host: Host { session: self, cx },
            };
            let answer = match on_session.delegate(invocation).await {
                Started::Answered(output) => Answer::Now(output),
                Started::Child(child) => {
                    children.push(child);
                    Answer::Child(children.len() - 1)
                }
            };
            answers.push((Some(ready.event), answer));
        }
        let slots = self.background().clone();
        let max = cx.settings.max_concurrent;
        let ran = futures_util::future::join_all(
            children
                .into_iter()
                .map(|child| child.run(slots.clone(), max)),
        )
        .await;
        self.totals.tool_time += started.elapsed();
        let mut ran: Vec<Option<Ran>> = ran.into_iter().map(Some).collect();
        let mut outputs = Vec::with_capacity(calls.len());
        for (call, (event, answer)) in calls.iter().zip(answers) {
            let output = match answer {
                Answer::Now(output) => output,
                Answer::Child(k) => match ran[k].take() {
                    Some(ran) => self.take_end(ran, cx),
                    None => ToolOutput::error("the child's end was lost"),
                },
            };
            if let Some(event) = event {
                self.after_tool(call, event, &output, cx).await;
            }
            outputs.push(output);
        }
        outputs
    }

    /// What a call needs before it runs: refused when its arguments are bad, its tool
    /// unknown, a `before_tool` hook stops it, or its permission is not given.
    async fn prepare(
        &mut self,
        call: &Call,
        cx: &Context,
    ) -> std::result::Result<Ready, ToolOutput> {
        if let Some(args) = &call.bad_json {
            let head = quoted_head(args);
            return Err(ToolOutput::error(if call.cut {
                format!(
                    "this call was cut off at the output limit before its arguments were \
                     complete ({} characters), so it did not run; they began: {head}. Make \
                     the call again with shorter arguments (write a large file in parts).",
                    args.chars().count()
                )
            } else {
                format!("the arguments of this call are not valid JSON, so it did not run: {head}")
            }));
        }
        let Some(tool) = self.tool(&call.name) else {
            return Err(ToolOutput::error(format!(
                "there is no tool named {:?}; the tools are: {}",
                call.name,
                self.tools.names().join(", ")
            )));
        };
        let ctx = self.tool_ctx(cx);
        let args = Args::parse(&call.input).map_err(ToolOutput::error)?;
        let input: serde_json::Value = call.input.parse().unwrap_or_default();
        let event = serde_json::json!({ "tool": call.name, "call_id": call.id, "input": input });
        if let Err(why) = crate::hooks::fire(
            &cx.settings,
            HookPoint::BeforeTool,
            Some(&call.name),
            self.id(),
            &self.cwd,
            event.clone(),
        )
        .await
        {
            // What it said is capped like a tool's output (the rest in a blob) and shown on
            // the terminal with its control characters made visible.
            let (said, blob) = hotl_tool::cap_output(&why, &self.store.blobs());
            cx.notice(format!(
                "a before_tool hook stopped {}: {}",
                call.name,
                hotl_text::printable(&hotl_text::clip(&why, HOOK_NOTICE_CHARS))
            ));
            let mut output = ToolOutput::error(format!(
                "a before_tool hook stopped this call, so it did not run: {said}"
            ));
            output.blob = blob;
            return Err(output);
        }
        self.permit(tool.as_ref(), &args, &ctx, cx).await?;
        Ok(Ready {
            tool,
            args,
            ctx,
            event,
        })
    }

    /// Fires the `after_tool` hooks for a call that ran (`event` is what its `before_tool`
    /// hooks were given).
    async fn after_tool(
        &self,
        call: &Call,
        mut event: serde_json::Value,
        output: &ToolOutput,
        cx: &Context,
    ) {
        event["is_error"] = output.is_error.into();
        event["output"] = output.content.clone().into();
        if let Err(why) = crate::hooks::fire(
            &cx.settings,
            HookPoint::AfterTool,
            Some(&call.name),
            self.id(),
            &self.cwd,
            event,
        )
        .await
        {
            cx.notice(format!("an after_tool hook failed: {why}"));
        }
    }

    /// The permission decision for a call, asking the user when the policy says so; `Err`
    /// holds what the model is told when the call may not run.
    async fn permit(
        &self,
        tool: &dyn Tool,
        args: &Args,
        ctx: &ToolCtx,
        cx: &Context,
    ) -> std::result::Result<(), ToolOutput> {
        let name = tool.name();
        let (writes, reads) = (tool.writes(args, ctx), tool.reads(args, ctx));
        match cx
            .settings
            .policy
            .decide_access(&crate::permission::Access {
                tool: name,
                kind: tool.kind(),
                writes: &writes,
                reads: &reads,
                root: &self.cwd,
                sandboxed: tool.sandboxed(args),
            }) {
            Decision::Allow => Ok(()),
            Decision::Deny(why) => {
                cx.notice(why.clone());
                Err(ToolOutput::error(why))
            }
            Decision::Ask(why) => {
                let preview = tool.preview(args, ctx);
                let question = format!("{why}: {name} {}. Allow?", preview.summary);
                match cx.approve(name, question, preview.lines).await {
                    (Answer::Yes | Answer::Always, _) => Ok(()),
                    (Answer::No, None) => {
                        Err(ToolOutput::error(format!("the user declined: {why}")))
                    }
                    (Answer::No, Some(reason)) => Err(ToolOutput::error(format!(
                        "the user declined: {why}. They said: {reason}"
                    ))),
                }
            }
        }
    }

    /// Whether a call of the tool `name` may change files (an unknown tool changes nothing:
    /// its call is refused).
    pub(super) fn changes_files(&self, name: &str) -> bool {
        self.tool(name).is_some_and(|t| t.changes_files())
    }

    /// Finishes the calls of the last step a dead process left running, where their tool can
    /// (a fork resumes its child; the forks of one step run side by side again), recording
    /// each result.
    pub(super) async fn resume_open_calls(&mut self, cx: &Context) -> Result<()> {
        let mut answers: Vec<(String, String, Started)> = Vec::new();
        for (id, name, input) in self.open_calls_with_input() {
            let Some(tool) = self.tool(&name) else {
                continue;
            };
            let Some(on_session) = session_tool(tool.as_ref()) else {
                continue;
            };
            let Ok(args) = Args::parse(&input) else {
                continue;
            };
            let invocation = SessionCall {
                id: &id,
                args,
                host: Host { session: self, cx },
            };
            if let Some(started) = on_session.resume(invocation).await {
                answers.push((id, name, started));
            }
        }
        let slots = self.background().clone();
        let max = cx.settings.max_concurrent;
        let mut children = Vec::new();
        let mut outputs: Vec<(String, String, Option<ToolOutput>)> = Vec::new();
        for (id, name, started) in answers {
            match started {
                Started::Answered(output) => outputs.push((id, name, Some(output))),
                Started::Child(child) => {
                    children.push(child.run(slots.clone(), max));
                    outputs.push((id, name, None));
                }
            }
        }
        let mut ran = futures_util::future::join_all(children).await.into_iter();
        for (id, name, output) in outputs {
            let output = match output {
                Some(output) => output,
                None => match ran.next() {
                    Some(ran) => self.take_end(ran, cx),
                    None => ToolOutput::error("the child's end was lost"),
                },
            };
            cx.events.send(Event::ToolResult {
                id: id.clone(),
                name,
                is_error: output.is_error,
                content: output.content.clone(),
            });
            self.record_output(&id, output)?;
        }
        Ok(())
    }

    /// Records a call's result (and the todos it set).
    pub(super) fn record_output(&mut self, call: &str, output: ToolOutput) -> Result<()> {
        // The whole output is in the result: what it printed as it ran is not needed now.
        drop(self.printed.take(call));
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

    /// The cue for the next request when `output` touched a file an archived thread touched.
    pub(super) fn cue_for(&self, output: &ToolOutput) -> Option<String> {
        output.files.iter().rev().find_map(|touch| {
            self.archived_files
                .iter()
                .find(|f| f.path == touch.path)
                .map(|f| {
                    format!(
                        "<cue>{} was also touched by the archived thread {} ({}); recall or ask it for what it learned</cue>",
                        f.path, f.handle, f.title
                    )
                })
        })
    }

    /// The tool calls of the last assistant message that have no result yet: (id, tool name).
    pub(super) fn open_calls(&self) -> Vec<(String, String)> {
        self.open_calls_with_input()
            .into_iter()
            .map(|(id, name, _)| (id, name))
            .collect()
    }

    fn open_calls_with_input(&self) -> Vec<(String, String, ToolInput)> {
        let mut answered: Vec<&str> = Vec::new();
        for item in self.view.items.iter().rev() {
            match item {
                Item::ToolResult { call, .. } => answered.push(call),
                Item::Assistant { content, .. } => {
                    return content
                        .iter()
                        .filter_map(|b| match b {
                            Block::ToolUse { id, name, input }
                                if !answered.contains(&id.as_str()) =>
                            {
                                Some((id.clone(), name.clone(), input.clone()))
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

    /// Answers every tool call of the last assistant message that has no result yet with
    /// `why`, telling the front end.
    pub(super) fn answer_open_calls(&mut self, why: &str, cx: &Context) -> Result<()> {
        self.answer_open_calls_to(why, &cx.events)
    }

    /// [`Session::answer_open_calls`], told to `events`.
    pub(super) fn answer_open_calls_to(&mut self, why: &str, events: &Events) -> Result<()> {
        for (call, name) in self.open_calls() {
            // A command cut short is answered with what it had printed (its end, capped like
            // any output, the whole of what was kept in a blob).
            let (content, blob) = match self.printed.take(&call) {
                Some(printed) => {
                    let (shown, blob) = hotl_tool::cap_output(&printed, &self.store.blobs());
                    (format!("{why}\noutput so far:\n{shown}"), blob)
                }
                None => (why.to_owned(), None),
            };
            events.send(Event::ToolResult {
                id: call.clone(),
                name,
                is_error: true,
                content: content.clone(),
            });
            self.append(Body::ToolResult {
                call,
                content: vec![Block::text(content)],
                blob,
                is_error: true,
                files: Vec::new(),
            })?;
        }
        self.printed.clear();
        Ok(())
    }
}
