//! One `session/prompt`: the editor's content blocks become one message (embedded files and
//! selections included), or a slash command (`/fold`, `/recall`, `/ask`, `/compact` and the
//! session operations, parsed as every hotl front end parses them); the agent's events are
//! relayed as updates until the command's one answer, which gives the stop reason.

use std::collections::HashMap;

use agent_client_protocol::Error;
use agent_client_protocol::v1::{ConnectionTo, schema as s};
use hotl_agent::slash::{self, ForkPoint, SessionOp, Slash};
use hotl_agent::{Answer, Command, Event, ForkAt, MoveResult, SwitchTo};
use hotl_wire::StopReason;

use crate::server::{Live, ends_command};

/// The commands a prompt may start with, for the editor's command menu.
pub(crate) fn commands() -> Vec<s::AvailableCommand> {
    let command = |name: &str, about: &str, hint: Option<&str>| {
        let mut command = s::AvailableCommand::new(name.to_owned(), about.to_owned());
        if let Some(hint) = hint {
            command = command.input(s::AvailableCommandInput::Unstructured(
                s::UnstructuredCommandInput::new(hint.to_owned()),
            ));
        }
        command
    };
    vec![
        command(
            "fold",
            "fold a finished span into a note the model writes (default: since the last fold)",
            Some("t<seq> (optional)"),
        ),
        command(
            "compact",
            "replace everything the model sees with a note it writes",
            None,
        ),
        command(
            "recall",
            "search what this session archived, without a model call",
            Some("[--exact|--regex] query"),
        ),
        command(
            "ask",
            "put one question to an archived thread",
            Some("handle question"),
        ),
        command(
            "fork",
            "fork this session and go on in the fork (the parent is kept)",
            Some("t<seq> (optional)"),
        ),
        command(
            "clear",
            "the model starts from nothing after this point (the log keeps everything)",
            None,
        ),
        command(
            "fresh",
            "start the provider side clean (a new prompt-cache key)",
            None,
        ),
        command(
            "revert",
            "go back to just before a user message; later turns stay in the log",
            Some("t<seq>"),
        ),
        command("rename", "name this session", Some("name")),
        command("context", "what the context is made of", None),
    ]
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
    agent.send(command);
    // The call waiting for an approval: the last tool_use before it (a child's, by its handle).
    let mut calling = String::new();
    let mut child_calling: HashMap<String, (String, String, serde_json::Value)> = HashMap::new();
    // The children's calls shown to the editor (because they asked): their ends close them.
    let mut shown: Vec<String> = Vec::new();
    while let Some(envelope) = agent.recv().await {
        if let Some(handle) = envelope.child {
            // A child's own work stays in its log (its result arrives as its call's), except a
            // question it asks: that reaches the editor on its call, labelled with its handle.
            match envelope.event {
                Event::ToolUse { id, name, input } => {
                    let input = input.parse().unwrap_or(serde_json::Value::Null);
                    child_calling.insert(handle, (id, name, input));
                }
                Event::Approval { id, tool, question } => {
                    let (call, name, input) =
                        child_calling.get(&handle).cloned().unwrap_or_default();
                    let mut shown_call = crate::updates::tool_call(&call, &name, &input);
                    shown_call.title = format!("{handle}: {}", shown_call.title);
                    relay.update(s::SessionUpdate::ToolCall(shown_call))?;
                    shown.push(call.clone());
                    let question = format!("{handle}: {question}");
                    let answer = relay.permission(&call, &tool, &question).await;
                    agent.send(Command::Approve { id, answer });
                }
                Event::ToolResult {
                    id,
                    is_error,
                    content,
                    ..
                } if shown.contains(&id) => {
                    shown.retain(|c| *c != id);
                    relay.update(s::SessionUpdate::ToolCallUpdate(
                        crate::updates::tool_result(&id, is_error, &content),
                    ))?;
                }
                _ => {}
            }
            continue;
        }
        let event = envelope.event;
        match &event {
            Event::Model { event } => relay.model(event)?,
            Event::ToolUse { id, name, input } => {
                calling = id.clone();
                let input = input.parse().unwrap_or(serde_json::Value::Null);
                relay.update(s::SessionUpdate::ToolCall(crate::updates::tool_call(
                    id, name, &input,
                )))?;
                if name == "todo"
                    && let Some(plan) = crate::updates::plan(&input)
                {
                    relay.update(s::SessionUpdate::Plan(plan))?;
                }
            }
            Event::ToolResult {
                id,
                is_error,
                content,
                ..
            } => relay.update(s::SessionUpdate::ToolCallUpdate(
                crate::updates::tool_result(id, *is_error, content),
            ))?,
            Event::Approval { id, tool, question } => {
                let answer = relay.permission(&calling, tool, question).await;
                agent.send(Command::Approve { id: *id, answer });
            }
            Event::Notice { message } => relay.notice(message)?,
            _ => {}
        }
        if ends_command(&event) {
            return finish(&relay, event, is_turn);
        }
    }
    Err(Error::internal_error().data("the session's agent stopped"))
}

/// The prompt's stop reason from the command's answer.
fn finish(relay: &Relay<'_>, event: Event, is_turn: bool) -> Result<s::PromptResponse, Error> {
    let done = |reason| Ok(s::PromptResponse::new(reason));
    match event {
        Event::TurnEnded(outcome)
        | Event::Recovered {
            outcome: Some(outcome),
        } => done(if outcome.cancelled {
            s::StopReason::Cancelled
        } else {
            match outcome.stop {
                Some(StopReason::Truncated) => s::StopReason::MaxTokens,
                Some(StopReason::Refused) => s::StopReason::Refusal,
                _ => s::StopReason::EndTurn,
            }
        }),
        Event::Failed { error, .. } if is_turn => {
            if error.contains("steps without a final answer") {
                return done(s::StopReason::MaxTurnRequests);
            }
            Err(Error::internal_error().data(error))
        }
        Event::Failed { error, .. } => {
            relay.say(format!("hotl: {error}"))?;
            done(s::StopReason::EndTurn)
        }
        Event::Cancelled { .. } => done(s::StopReason::Cancelled),
        other => {
            relay.say(said(&other))?;
            done(s::StopReason::EndTurn)
        }
    }
}

/// What a command's answer says, for the editor's transcript.
fn said(event: &Event) -> String {
    match event {
        Event::MoveEnded(MoveResult::Folded {
            since,
            until,
            handle,
            ..
        }) => {
            format!("folded t{since}..t{until} into {handle} (archived: recall and ask reach it)")
        }
        Event::MoveEnded(MoveResult::Compacted { until, handle }) => {
            format!("compacted through t{until} as {handle}")
        }
        Event::MoveEnded(MoveResult::Recalled { text } | MoveResult::Answered { text }) => {
            text.clone()
        }
        Event::Cleared { seq } => format!("cleared at t{seq}: the model sees nothing before it"),
        Event::Fresh { cache_key, .. } => format!("fresh: the new prompt-cache key is {cache_key}"),
        Event::Renamed { name } => format!("named {name}"),
        Event::ModeChanged { mode } => format!("mode: {mode}"),
        Event::Reverted { before, .. } => {
            format!("reverted to before t{before}; the later turns stay in the log")
        }
        Event::Switch { to, .. } => format!("now in the fork {to} (the parent is kept)"),
        Event::Context(parts) => format!(
            "about {} tokens: system prompt {}, tools {}, notes {}, messages {} ({} folds and {} \
             compactions saved about {})",
            parts.system + parts.tools + parts.notes + parts.messages,
            parts.system,
            parts.tools,
            parts.notes,
            parts.messages,
            parts.folds,
            parts.compactions,
            parts.saved
        ),
        _ => String::new(),
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

/// The command a prompt's text asks for, or what to answer without asking the agent.
fn what_to_do(text: &str) -> Result<Command, String> {
    let parsed = slash::parse(text);
    if let Some(to_move) = parsed.as_move() {
        return Ok(Command::Move(to_move));
    }
    Ok(match parsed {
        Slash::Message(text) if text.trim().is_empty() => {
            return Err("the prompt is empty".to_owned());
        }
        Slash::Message(text) => Command::Submit { text },
        Slash::Context => Command::Context,
        Slash::Model(Some(model)) => Command::SetModel { model },
        Slash::Effort(Some(effort)) => Command::SetEffort { effort },
        Slash::Session(SessionOp::Clear) => Command::Clear,
        Slash::Session(SessionOp::Fresh) => Command::Fresh,
        Slash::Session(SessionOp::Rename(name)) => Command::Rename { name },
        Slash::Session(SessionOp::Mode(mode)) => Command::SetMode { mode },
        Slash::Session(SessionOp::Revert(Some(before))) => Command::Revert { before },
        Slash::Session(SessionOp::Fork(ForkPoint::Head)) => {
            Command::Switch(SwitchTo::Fork { at: ForkAt::Head })
        }
        Slash::Session(SessionOp::Fork(ForkPoint::Message(seq))) => {
            Command::Switch(SwitchTo::Fork {
                at: ForkAt::Items(seq as usize),
            })
        }
        Slash::Session(op) => {
            return Err(format!(
                "{} is not available over ACP: the editor starts and loads sessions (the shell \
                 has it: hotl sessions --help)",
                op.name()
            ));
        }
        Slash::Unknown(word) => {
            return Err(format!(
                "unknown command {word}; the commands are {}",
                commands()
                    .iter()
                    .map(|c| format!("/{}", c.name))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        Slash::Usage(usage) => return Err(usage),
        Slash::Help => {
            return Err(commands()
                .iter()
                .map(|c| format!("/{}: {}", c.name, c.description))
                .collect::<Vec<_>>()
                .join("\n"));
        }
        other => {
            return Err(format!(
                "{other:?} is a terminal command; it does nothing here"
            ));
        }
    })
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
        assert!(what_to_do("/resume").is_err_and(|e| e.contains("not available over ACP")));
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
