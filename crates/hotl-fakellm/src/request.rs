//! What every dialect's request parser produces: a validated, dialect-neutral `Prepared`
//! request, and the `Env` it is parsed in.

use crate::anthropic;
use crate::config::Config;
use crate::json::Json;
use crate::openai;
use crate::tokens::Counter;
use crate::turn::Convo;

/// The context a request is parsed in.
pub(crate) struct Env<'a> {
    pub config: &'a Config,
    pub counter: Counter,
    /// `x-api-key` or the bearer token: caches are isolated per key.
    pub api_key: String,
}

impl Env<'_> {
    /// The cache scope of a request: dialect family, API key and model.
    pub(crate) fn scope(&self, family: &str, model: &str) -> [u8; 32] {
        let mut h = blake3::Hasher::new();
        for part in [family, self.api_key.as_str(), model] {
            h.update(part.as_bytes());
            h.update(b"\0");
        }
        *h.finalize().as_bytes()
    }
}

/// How a request's usage will be computed once a reply is chosen.
#[derive(Clone, Debug)]
pub(crate) enum UsagePlan {
    Anthropic(anthropic::cache::Plan),
    OpenAi(openai::cache::Plan),
}

impl UsagePlan {
    /// Every prompt token of the request.
    pub(crate) fn total(&self) -> u64 {
        match self {
            UsagePlan::Anthropic(plan) => plan.total(),
            UsagePlan::OpenAi(plan) => plan.total(),
        }
    }
}

/// A validated request.
#[derive(Clone, Debug)]
pub(crate) struct Prepared {
    pub model: String,
    pub stream: bool,
    pub convo: Convo,
    pub usage: UsagePlan,
    /// Chat: `stream_options.include_usage`.
    pub include_usage: bool,
    /// Responses: `include` contains `reasoning.encrypted_content`.
    pub seal_reasoning: bool,
    /// Responses: request fields echoed in the response object.
    pub echo: Vec<(String, Json)>,
}
