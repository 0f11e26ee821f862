//! Building the session's requests (one cacheable prefix for all of them) and counting what
//! each response cost.

use hotl_wire::{Reply, Request, Usage};

use super::{Session, Settings, TurnOutcome};
use hotl_protocol::add_usage as add;

impl Session {
    pub(super) fn count(&mut self, settings: &Settings, reply: &Reply, outcome: &mut TurnOutcome) {
        add(&mut outcome.usage, &reply.usage);
        if let Some(c) = self.account(settings, reply.model.as_deref(), &reply.usage) {
            *outcome.cost.get_or_insert(0.0) += c;
        }
    }

    /// Counts one response into this process's totals; returns its cost when the price is known.
    pub(super) fn account(
        &mut self,
        settings: &Settings,
        model: Option<&str>,
        usage: &Usage,
    ) -> Option<f64> {
        add(&mut self.totals.usage, usage);
        self.totals.requests += 1;
        let cost = settings
            .pricing
            .cost(model.unwrap_or(&settings.model), usage);
        if let Some(c) = cost {
            self.totals.cost += c;
        }
        cost
    }

    /// A request carrying the session's frozen prompt and tools and the run's settings. Every
    /// request of a session (turns, asks, notes) starts from this, so they share one cacheable
    /// prefix and one set of request-level settings.
    pub(super) fn base_request<'a>(
        &self,
        messages: Vec<hotl_view::MessageRef<'a>>,
        settings: &Settings,
    ) -> Request<'a> {
        let estimate = match self.context_used() {
            // Unknown (nothing answered since the context last shrank): counted in bytes,
            // which only happens once after each shrink.
            0 => (self.fixed_bytes() + message_bytes(&messages)) as u64 / 4,
            used => used,
        };
        let mut request = Request::new(settings.model.clone(), messages);
        request.system = self.system.clone();
        request.tools = self.tool_defs.clone();
        request.max_tokens = settings.output_limit(estimate);
        request.reasoning = settings.reasoning.clone();
        if let Some(hotl_wire::Reasoning::Budget(budget)) = &request.reasoning
            && request.max_tokens <= *budget
        {
            // A thinking budget counts against the output limit: the answer keeps its room.
            request.max_tokens += budget;
        }
        request.cache.ttl = settings.ttl;
        request.cache.key = Some(self.cache_key.clone());
        request.cache.explicit_breakpoints = settings.explicit_breakpoints;
        request
    }
}

impl Session {
    /// The request a turn sends for `messages` (the conversation as it stands): the base
    /// request, with the todo list riding after the last breakpoint.
    pub(super) fn conversation_request<'a>(
        &self,
        messages: Vec<hotl_view::MessageRef<'a>>,
        settings: &Settings,
    ) -> Request<'a> {
        let mut request = self.base_request(messages, settings);
        if !self.view.state.todos.is_empty() {
            request
                .dynamic
                .push(super::turn::todo_reminder(&self.view.state.todos));
        }
        request
    }

    /// About how many bytes the frozen system prompt and tool definitions take in a request.
    pub(super) fn fixed_bytes(&self) -> usize {
        let system: usize = self.system.iter().map(String::len).sum();
        let tools: usize = self
            .tool_defs
            .iter()
            // The JSON around each definition (keys, quotes, braces).
            .map(|d| d.name.len() + d.description.len() + d.input_schema.get().len() + 48)
            .sum();
        system + tools
    }

    /// About how many tokens the frozen system prompt and tool definitions take: what every
    /// request carries before any message.
    pub fn fixed_tokens(&self) -> u64 {
        self.fixed_bytes() as u64 / 4
    }
}

/// Adds text to the last message when it is the user's, else as a new user message.
pub(super) fn push_user_text<'a>(messages: &mut Vec<hotl_view::MessageRef<'a>>, text: &'a str) {
    let part = hotl_view::Part::Text(std::borrow::Cow::Borrowed(text));
    match messages.last_mut() {
        Some(last) if last.role == hotl_view::Role::User => last.content.push(part),
        _ => messages.push(hotl_view::MessageRef {
            role: hotl_view::Role::User,
            content: vec![part],
        }),
    }
}

/// The bytes `messages` take in a request body.
pub(super) fn message_bytes(messages: &[hotl_view::MessageRef<'_>]) -> usize {
    messages.iter().map(serialized_len).sum()
}

fn serialized_len(message: &hotl_view::MessageRef<'_>) -> usize {
    serde_json::to_vec(message).map_or(0, |b| b.len())
}

/// How many messages after the first to leave out of a request for it to fit `budget` bytes:
/// whole steps from the oldest (an assistant message and the user message after it, so roles
/// still alternate and every tool result keeps its call), never the last message.
pub(super) fn leave_out_steps(messages: &[hotl_view::MessageRef<'_>], budget: usize) -> usize {
    use hotl_view::Role;
    let mut total = message_bytes(messages);
    let mut out = 0;
    while total > budget
        && 3 + out < messages.len()
        && messages[1 + out].role == Role::Assistant
        && messages[2 + out].role == Role::User
    {
        total -= serialized_len(&messages[1 + out]) + serialized_len(&messages[2 + out]);
        out += 2;
    }
    out
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use hotl_view::{MessageRef, Part, Role};

    use super::*;

    fn message(role: Role, text: &str) -> MessageRef<'_> {
        MessageRef {
            role,
            content: vec![Part::Text(Cow::Borrowed(text))],
        }
    }

    #[test]
    fn whole_steps_are_left_out_from_the_oldest_keeping_the_first_and_last() {
        let big = "x".repeat(1_000);
        let mut messages = vec![message(Role::User, "the task")];
        for _ in 0..5 {
            messages.push(message(Role::Assistant, &big));
            messages.push(message(Role::User, &big));
        }
        let all = message_bytes(&messages);
        assert_eq!(leave_out_steps(&messages, all), 0);
        // Room for two steps: three of the five go.
        let step = serialized_len(&messages[1]) + serialized_len(&messages[2]);
        let two = serialized_len(&messages[0]) + 2 * step;
        assert_eq!(leave_out_steps(&messages, two), 6);
        assert_eq!(leave_out_steps(&messages, two - 1), 8);
        // Nothing fits: everything but the first message and the last step.
        assert_eq!(leave_out_steps(&messages, 0), 8);
        // A conversation that is not steps is left alone.
        let odd = vec![
            message(Role::User, &big),
            message(Role::User, &big),
            message(Role::Assistant, &big),
            message(Role::User, &big),
        ];
        assert_eq!(leave_out_steps(&odd, 0), 0);
    }
}
