//! Building the session's requests (one cacheable prefix for all of them) and counting what
//! each response cost.

use hotl_wire::{Reply, Request, Usage};

use super::outcome::add;
use super::{Session, Settings, TurnOutcome};

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
        let mut request = Request::new(settings.model.clone(), messages);
        request.system = self.system.clone();
        request.tools = self.tool_defs.clone();
        request.max_tokens = settings.max_tokens;
        request.reasoning = settings.reasoning.clone();
        request.cache.ttl = settings.ttl;
        request.cache.key = Some(self.cache_key.clone());
        request.cache.explicit_breakpoints = settings.explicit_breakpoints;
        request
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
