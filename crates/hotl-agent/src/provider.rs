//! Which model answers: a provider over HTTP, or the offline demo.

use hotl_wire::{Assembler, Event, HttpProvider, Reply, Request, WireError, demo_respond};

/// A model to ask.
#[derive(Clone, Debug)]
pub enum Provider {
    /// A real (or fake) provider over HTTP.
    Http(HttpProvider),
    /// The built-in offline demo: rule-based, deterministic, no network.
    Demo,
}

impl Provider {
    /// Sends `request`; `on_event` sees each event as it arrives.
    pub async fn send(
        &self,
        request: &Request<'_>,
        on_event: &mut (dyn FnMut(&Event) + Send),
    ) -> Result<Reply, WireError> {
        match self {
            Provider::Http(p) => p.send(request, on_event).await,
            Provider::Demo => {
                let mut assembler = Assembler::new();
                for event in demo_respond(request) {
                    on_event(&event);
                    assembler.push(&event);
                }
                Ok(assembler.finish())
            }
        }
    }

    /// Sends `request` in two timed halves: building the body (the harness's work), then the
    /// exchange (the model's). Returns the reply and how long the first half took.
    pub async fn send_timed(
        &self,
        request: &Request<'_>,
        on_event: &mut (dyn FnMut(&Event) + Send),
    ) -> (Result<Reply, WireError>, std::time::Duration) {
        match self {
            Provider::Http(p) => {
                let started = std::time::Instant::now();
                let body = match p.body(request) {
                    Ok(body) => body,
                    Err(e) => return (Err(e), started.elapsed()),
                };
                let encoding = started.elapsed();
                (p.send_body(body, on_event).await, encoding)
            }
            Provider::Demo => (
                self.send(request, on_event).await,
                std::time::Duration::ZERO,
            ),
        }
    }

    /// Drops the provider state kept in this process (encoded messages reused between
    /// requests); returns how many messages it held.
    pub fn forget(&self) -> usize {
        match self {
            Provider::Http(p) => p.forget(),
            Provider::Demo => 0,
        }
    }

    /// Whether requests are routed by the session's cache key (OpenAI's
    /// `prompt_cache_key`); Anthropic caches by the request prefix alone.
    pub fn routes_by_cache_key(&self) -> bool {
        matches!(
            self,
            Provider::Http(p) if p.dialect() != hotl_wire::Dialect::Anthropic
        )
    }

    /// Whether a request may switch tools off (`tool_choice: none`) and still read the cache
    /// the session's requests wrote: OpenAI's dialects leave the choice out of the cached
    /// prefix (llama.cpp, which speaks them, too: 2,931 of 2,937 tokens read back measured);
    /// Anthropic hashes it into the message cache. The demo keeps its tools, as Anthropic.
    pub fn tool_choice_keeps_cache(&self) -> bool {
        matches!(
            self,
            Provider::Http(p) if p.dialect() != hotl_wire::Dialect::Anthropic
        )
    }

    /// The models the provider lists (the demo lists itself).
    pub async fn models(&self) -> Result<Vec<String>, WireError> {
        match self {
            Provider::Http(p) => p.models().await,
            Provider::Demo => Ok(vec!["demo".to_owned()]),
        }
    }

    /// What a level of reasoning effort (`low`, `medium`, `high`) asks of this provider:
    /// OpenAI's dialects take the level as it is; Anthropic's a thinking budget (the request
    /// raises its output limit above it).
    pub fn reasoning_for(&self, effort: &str) -> hotl_wire::Reasoning {
        match self {
            Provider::Http(p) if p.dialect() == hotl_wire::Dialect::Anthropic => {
                hotl_wire::Reasoning::Budget(match effort {
                    "low" => 2_048,
                    "medium" => 8_192,
                    _ => 24_576,
                })
            }
            _ => hotl_wire::Reasoning::Effort(effort.to_owned()),
        }
    }

    /// Whether this is the offline demo.
    pub fn is_demo(&self) -> bool {
        matches!(self, Provider::Demo)
    }

    /// Which server answers, as a session records it beside a model it chose: the dialect
    /// and the base URL (`openai-chat http://127.0.0.1:8080/v1`), so that model is taken up
    /// again only where it was chosen.
    pub fn identity(&self) -> String {
        match self {
            Provider::Http(p) => format!("{} {}", p.dialect().name(), p.base()),
            Provider::Demo => "demo".to_owned(),
        }
    }
}
