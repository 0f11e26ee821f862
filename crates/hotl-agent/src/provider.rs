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

    /// Whether this is the offline demo.
    pub fn is_demo(&self) -> bool {
        matches!(self, Provider::Demo)
    }
}
