//! The Anthropic Messages dialect: request checks, the cache prefix, token counting and the
//! conversation summary; rendering lives in `render`.

pub(crate) mod blocks;
pub(crate) mod cache;
pub(crate) mod render;
mod validate;

use crate::api_error::ApiError;
use crate::json::Json;
use crate::request::{Env, Prepared, UsagePlan};
use crate::turn::{Convo, ToolInfo};

/// Validates a Messages (or count_tokens) request and plans its cache usage.
pub(crate) fn prepare(req: &Json, env: &Env, count_only: bool) -> Result<Prepared, ApiError> {
    if !req.is_object() {
        return Err(ApiError::invalid("Input should be a valid dictionary"));
    }
    let model = req
        .str_of("model")
        .ok_or_else(|| ApiError::invalid("model: Field required"))?
        .to_string();
    let max_tokens = req.get("max_tokens").and_then(Json::as_u64);
    if !count_only && max_tokens.is_none() {
        return Err(ApiError::invalid("max_tokens: Field required"));
    }
    let messages = req
        .arr_of("messages")
        .ok_or_else(|| ApiError::invalid("messages: Field required"))?;
    if messages.is_empty() {
        return Err(ApiError::invalid(
            "messages: at least one message is required",
        ));
    }
    let system_role = env
        .config
        .system_message_models
        .iter()
        .any(|p| model.contains(p.as_str()));
    validate::check(messages, &env.config.signing_key, system_role)?;
    let cfg = &env.config.anthropic_cache;
    let scope = env.scope("anthropic", &model);
    let units = blocks::flatten(req, &scope, &env.counter, cfg)?;
    let marks = blocks::marks(&units, req.get("cache_control"), cfg.max_breakpoints)?;
    let plan = cache::Plan::new(&units, marks, cfg.min_for(&model), cfg.lookback);
    let mut convo = convo(req, messages);
    convo.prewarm = max_tokens == Some(0);
    Ok(Prepared {
        model,
        stream: req.get("stream").and_then(Json::as_bool) == Some(true),
        convo,
        usage: UsagePlan::Anthropic(plan),
        include_usage: false,
        seal_reasoning: false,
        echo: Vec::new(),
    })
}

/// What the demo model and `match` read from the request.
fn convo(req: &Json, messages: &[Json]) -> Convo {
    let mut convo = Convo {
        tools: req
            .arr_of("tools")
            .unwrap_or_default()
            .iter()
            .filter_map(|t| {
                Some(ToolInfo::from_schema(
                    t.str_of("name")?,
                    t.get("input_schema"),
                ))
            })
            .collect(),
        thinking: matches!(
            req.get("thinking").and_then(|t| t.str_of("type")),
            Some("enabled" | "adaptive")
        ),
        ..Convo::default()
    };
    // Mid-conversation system entries carry context, not the user's turn: skip them.
    let last = messages
        .iter()
        .rev()
        .find(|m| m.str_of("role") != Some("system"));
    let Some(last) = last.filter(|m| m.str_of("role") == Some("user")) else {
        return convo;
    };
    let mut texts = Vec::new();
    match last.get("content") {
        Some(Json::Str(s)) => texts.push(s.clone()),
        Some(Json::Arr(blocks)) => {
            for b in blocks {
                match b.str_of("type") {
                    Some("text") => texts.push(b.str_of("text").unwrap_or_default().to_string()),
                    Some("tool_result") => {
                        convo.after_tool = true;
                        texts.push(result_text(b.get("content")));
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
    convo.last_input = texts.join("\n");
    convo
}

fn result_text(content: Option<&Json>) -> String {
    match content {
        Some(Json::Str(s)) => s.clone(),
        Some(Json::Arr(parts)) => parts
            .iter()
            .filter_map(|p| p.str_of("text"))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}
