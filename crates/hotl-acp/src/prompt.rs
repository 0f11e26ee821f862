//! One `session/prompt`: the editor's content blocks become one message (embedded files and
//! selections included), or a slash command (`/fold`, `/recall`, `/ask`, `/compact` and the
//! session operations, parsed as every hotl front end parses them); the agent's events are
//! relayed as updates until the command's one answer, which gives the stop reason.

use std::collections::HashMap;

use agent_client_protocol::Error;
use agent_client_protocol::v1::{ConnectionTo, schema as s};
use hotl_protocol::slash::{self, Front, Plan, Slash};
use hotl_protocol::words::describe;
use hotl_protocol::{
    Answer, Command, Done, Envelope, Event, FailureKind, Outcome, Status, TurnOutcome,
};
use hotl_wire::StopReason;

use crate::server::Live;

/// The commands a prompt may start with, for the editor's command menu: the table's rows
/// that need no terminal.
pub(crate) fn commands() -> Vec<s::AvailableCommand> {
    slash::offered(false)
        .map(|c| {
            let command = s::AvailableCommand::new(c.name.to_owned(), c.help.to_owned());
            if c.args.is_empty() {
                command
            } else {
                command.input(s::AvailableCommandInput::Unstructured(
                    s::UnstructuredCommandInput::new(c.args.to_owned()),
                ))
            }
        })
        .collect()
}

/// Runs one prompt to its stop reason. A turn that fails is a JSON-RPC error naming why (its
/// log stays valid and resumable); a command that fails is said as an answer.
pub(crate) async fn run(
    cx: &ConnectionTo<agent_client_protocol::Client>,
    id: &str,
    live: &Live,
    prompt: Vec<s::ContentBlock>,
    notices: bool,
) -> Result<s::PromptResponse, Error> {
    let mut held = live.agent.lock().await;
    let Some(agent) = held.as_mut() else {
        return Err(Error::internal_error().data("the session is closed"));
    };
    let relay = Relay {
        cx,
        session: s::SessionId::new(id.to_owned()),
        notices,
    };
    let command = match what_to_do(&text_of(&prompt)) {
        Ok(command) => command,
        Err(answer) => {
            relay.say(answer)?;
            return Ok(s::PromptResponse::new(s::StopReason::EndTurn));
        }
    };
    let is_turn = matches!(command, Command::Submit { .. });
    let sent = agent.send(command);
    let mut calls = Calls::default();
    let mut status = None;
    while let Some(envelope) = agent.recv().await {
        if envelope.command == Some(sent)
            && let Event::Done(done) = envelope.event
        {
            return finish(&relay, done, is_turn, status.as_ref());
        }
        if let Event::Status(s) = &envelope.event {
            status = Some(s.clone());
        }
        if let Some(answer) = calls.relay(&relay, envelope).await? {
            agent.send(answer);
        }
    }
    Err(Error::internal_error().data("the session's agent stopped"))
}

/// The calls a prompt has shown the editor, to pair questions and results with them.
#[derive(Default)]
struct Calls {
    /// The call waiting for an approval: the last tool_use before it.
    calling: String,
    /// Each child's last call: (id, tool, arguments).
    child_calling: HashMap<String, (String, String, serde_json::Value)>,
    /// The children's calls shown to the editor (because they asked): their ends close them.
    shown: Vec<String>,
    /// What each running call printed (its end), and when the editor was last shown it.
    printed: HashMap<String, (String, std::time::Instant)>,
}

/// How much of a running call's output the editor is shown (its end).
const PRINTED_SHOWN: usize = 8 * 1024;

/// How often a running call's output is sent again at most: an update replaces the call's
/// content, so a chatty command is not sent line by line.
const PRINTED_EVERY: std::time::Duration = std::time::Duration::from_millis(200);

impl Calls {
    /// Relays one event; an approval asked gives the command that answers it.
    async fn relay(
        &mut self,
        relay: &Relay<'_>,
        envelope: Envelope,
    ) -> Result<Option<Command>, Error> {
        if let Some(handle) = envelope.child {
            return self.child(relay, handle, envelope.event).await;
        }
        match envelope.event {
            Event::Model { event } => relay.model(&event)?,
            Event::ToolUse { id, name, input } => {
                self.calling.clone_from(&id);
                let input = input.parse().unwrap_or(serde_json::Value::Null);
                relay.update(s::SessionUpdate::ToolCall(crate::updates::tool_call(
                    &id, &name, &input,
                )))?;
                if name == "todo"
                    && let Some(plan) = crate::updates::plan(&input)
                {
                    relay.update(s::SessionUpdate::Plan(plan))?;
                }
            }
            Event::ToolOutput { id, text } => self.printed(relay, id, &text)?,
            Event::ToolResult {
                id,
                is_error,
                content,
                ..
            } => {
                self.printed.remove(&id);
                relay.update(s::SessionUpdate::ToolCallUpdate(
                    crate::updates::tool_result(&id, is_error, &content),
                ))?
            }
            Event::Approval {
                id, tool, question, ..
            } => {
                let answer = relay.permission(&self.calling, &tool, &question).await;
                return Ok(Some(Command::Approve {
                    id,
                    answer,
                    reason: None,
                }));
            }
            Event::Notice { message } => relay.notice(&message)?,
            _ => {}
        }
        Ok(None)
    }

    /// A running call's output, shown on its call as it comes (its end, a few times a
    /// second at most); the result replaces it.
    fn printed(&mut self, relay: &Relay<'_>, id: String, text: &str) -> Result<(), Error> {
        let now = std::time::Instant::now();
        let (kept, sent) = self
            .printed
            .entry(id.clone())
            .or_insert_with(|| (String::new(), now.checked_sub(PRINTED_EVERY).unwrap_or(now)));
        kept.push_str(text);
        hotl_text::keep_tail(kept, PRINTED_SHOWN);
        if now.duration_since(*sent) < PRINTED_EVERY {
            return Ok(());
        }
        *sent = now;
        relay.update(s::SessionUpdate::ToolCallUpdate(
            crate::updates::tool_running(&id, kept),
        ))
    }

    /// A child's own work stays in its log (its result arrives as its call's), except a
    /// question it asks: that reaches the editor on its call, labelled with its handle.
    async fn child(
        &mut self,
        relay: &Relay<'_>,
        handle: String,
        event: Event,
    ) -> Result<Option<Command>, Error> {
        match event {
            Event::ToolUse { id, name, input } => {
                let input = input.parse().unwrap_or(serde_json::Value::Null);
                self.child_calling.insert(handle, (id, name, input));
            }
            Event::Approval {
                id, tool, question, ..
            } => {
                let (call, name, input) =
                    self.child_calling.get(&handle).cloned().unwrap_or_default();
                let mut shown_call = crate::updates::tool_call(&call, &name, &input);
                shown_call.title = format!("{handle}: {}", shown_call.title);
                relay.update(s::SessionUpdate::ToolCall(shown_call))?;
                self.shown.push(call.clone());
                let question = format!("{handle}: {question}");
                let answer = relay.permission(&call, &tool, &question).await;
                return Ok(Some(Command::Approve {
                    id,
                    answer,
                    reason: None,
                }));
            }
            Event::ToolResult {
                id,
                is_error,
                content,
                ..
            } if self.shown.contains(&id) => {
                self.shown.retain(|c| *c != id);
                relay.update(s::SessionUpdate::ToolCallUpdate(
                    crate::updates::tool_result(&id, is_error, &content),
                ))?;
            }
            _ => {}
        }
        Ok(None)
    }
}

/// The prompt's stop reason from how its command ended.
fn finish(
    relay: &Relay<'_>,
    done: Done,
    is_turn: bool,
    status: Option<&Status>,
) -> Result<s::PromptResponse, Error> {
    let stop = |reason| Ok(s::PromptResponse::new(reason));
    match &done.result {
        Ok(Outcome::TurnEnded(turn))
        | Ok(Outcome::Recovered {
            outcome: Some(turn),
        }) => stop(turn_stop(turn)),
        Err(failure) if failure.kind == FailureKind::Cancelled => stop(s::StopReason::Cancelled),
        Err(failure) if is_turn && failure.kind == FailureKind::StepLimit => {
            stop(s::StopReason::MaxTurnRequests)
        }
        Err(failure) if is_turn => Err(Error::internal_error().data(failure.message.clone())),
        Err(failure) => {
            relay.say(format!("hotl: {}", failure.message))?;
            stop(s::StopReason::EndTurn)
        }
        Ok(_) => {
            if let Some(said) = describe(&Event::Done(done), status) {
                relay.say(said.text)?;
            }
            stop(s::StopReason::EndTurn)
        }
    }
}

fn turn_stop(turn: &TurnOutcome) -> s::StopReason {
    if turn.cancelled {
        return s::StopReason::Cancelled;
    }
    match turn.stop {
        Some(StopReason::Truncated) => s::StopReason::MaxTokens,
        Some(StopReason::Refused) => s::StopReason::Refusal,
        _ => s::StopReason::EndTurn,
    }
}

/// The prompt's text: its text blocks, and the files and selections the editor embedded.
fn text_of(prompt: &[s::ContentBlock]) -> String {
    let mut parts = Vec::new();
    for block in prompt {
        match block {
            s::ContentBlock::Text(text) => parts.push(text.text.clone()),
            s::ContentBlock::ResourceLink(link) => parts.push(format!("@{}", link.uri)),
            s::ContentBlock::Resource(resource) => {
                if let s::EmbeddedResourceResource::TextResourceContents(text) = &resource.resource
                {
                    parts.push(format!(
                        "<file uri=\"{}\">\n{}\n</file>",
                        text.uri, text.text
                    ));
                }
            }
            _ => {}
        }
    }
    parts.join("\n")
}

/// The command a prompt's text asks for, or what to answer without asking the agent: the
/// table's plan for a front end that is not a terminal.
fn what_to_do(text: &str) -> Result<Command, String> {
    let parsed = slash::parse(text);
    if matches!(&parsed, Slash::Message(text) if text.trim().is_empty()) {
        return Err("the prompt is empty".to_owned());
    }
    let front = Front {
        session: "",
        saved: true,
        busy: false,
        read_only: false,
        terminal: false,
    };
    match slash::plan(parsed, &front) {
        Plan::Send(command) => Ok(command),
        Plan::Local(slash::Local::Help) => Err(slash::help(false)),
        Plan::Local(slash::Local::Effort) => {
            Err("/effort low|medium|high sets the reasoning effort".to_owned())
        }
        Plan::Usage(why) => Err(why),
        other => Err(format!("{other:?} needs a terminal; it does nothing here")),
    }
}

/// Sends a prompt's updates to the editor.
struct Relay<'a> {
    cx: &'a ConnectionTo<agent_client_protocol::Client>,
    session: s::SessionId,
    notices: bool,
}

impl Relay<'_> {
    fn update(&self, update: s::SessionUpdate) -> Result<(), Error> {
        self.cx
            .send_notification(s::SessionNotification::new(self.session.clone(), update))
    }

    fn say(&self, text: String) -> Result<(), Error> {
        self.update(s::SessionUpdate::AgentMessageChunk(s::ContentChunk::new(
            text.into(),
        )))
    }

    fn model(&self, event: &hotl_wire::Event) -> Result<(), Error> {
        match event {
            hotl_wire::Event::TextDelta { text } => self.say(text.clone()),
            hotl_wire::Event::ThinkingDelta { text } => self.update(
                s::SessionUpdate::AgentThoughtChunk(s::ContentChunk::new(text.clone().into())),
            ),
            _ => Ok(()),
        }
    }

    /// A notice: apart from the conversation when the editor shows notices, else a line of it.
    fn notice(&self, message: &str) -> Result<(), Error> {
        if self.notices {
            self.update(s::SessionUpdate::Notice(s::Notice::new(
                s::NoticeSeverity::Info,
                message.to_owned(),
            )))
        } else {
            self.say(format!("\n> hotl: {message}\n"))
        }
    }

    /// Asks the editor whether call `call` may run; a request that fails or is cancelled is a
    /// no (the model is told the user declined).
    async fn permission(&self, call: &str, tool: &str, question: &str) -> Answer {
        let option = |id: &str, name: &str, kind| {
            s::PermissionOption::new(id.to_owned(), name.to_owned(), kind)
        };
        let request = s::RequestPermissionRequest::new(
            self.session.clone(),
            s::ToolCallUpdate::new(
                call.to_owned(),
                s::ToolCallUpdateFields::new().title(question.to_owned()),
            ),
            vec![
                option("allow", "Allow", s::PermissionOptionKind::AllowOnce),
                option(
                    "always",
                    &format!("Always allow {tool}"),
                    s::PermissionOptionKind::AllowAlways,
                ),
                option("reject", "Reject", s::PermissionOptionKind::RejectOnce),
            ],
        );
        let answered = self.cx.send_request(request).block_task().await;
        match answered.map(|r| r.outcome) {
            Ok(s::RequestPermissionOutcome::Selected(chosen)) => match &*chosen.option_id.0 {
                "allow" => Answer::Yes,
                "always" => Answer::Always,
                _ => Answer::No,
            },
            Ok(_) => Answer::No,
            Err(e) => {
                tracing::warn!("the editor did not answer a permission request: {e}");
                Answer::No
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompts_become_messages_or_commands() {
        assert_eq!(
            what_to_do("fix the bug"),
            Ok(Command::Submit {
                text: "fix the bug".to_owned()
            })
        );
        assert!(matches!(what_to_do("/compact"), Ok(Command::Move(_))));
        assert!(matches!(what_to_do("/recall needle"), Ok(Command::Move(_))));
        assert_eq!(what_to_do("/clear"), Ok(Command::Clear));
        assert!(what_to_do("/resume").is_err_and(|e| e.contains("terminal")));
        assert!(what_to_do("/nope").is_err_and(|e| e.contains("unknown command /nope")));
        assert!(what_to_do("   ").is_err());
        // A path is a message, as at the console.
        assert!(matches!(
            what_to_do("/etc/hosts is odd"),
            Ok(Command::Submit { .. })
        ));
    }

    #[test]
    fn embedded_files_travel_with_the_text() {
        let prompt = vec![
            s::ContentBlock::from("look at this"),
            s::ContentBlock::Resource(s::EmbeddedResource::new(
                s::EmbeddedResourceResource::TextResourceContents(s::TextResourceContents::new(
                    "fn main() {}",
                    "file:///p/src/main.rs",
                )),
            )),
        ];
        let text = text_of(&prompt);
        assert!(text.starts_with("look at this\n<file uri=\"file:///p/src/main.rs\">"));
        assert!(text.contains("fn main() {}"));
    }
}
