//! The Chat Completions dialect: request checks (every `tool_calls[].id` answered by a
//! `tool` message right after, no orphan `tool` message), the rendered prompt for token
//! counting and caching, and the conversation summary.

use crate::api_error::ApiError;
use crate::json::Json;
use crate::openai::{cache, content_text, extended_retention};
use crate::request::{Env, Prepared, UsagePlan};
use crate::turn::{Convo, ToolInfo};

/// Validates a Chat Completions request and plans its cache usage.
pub(crate) fn prepare(req: &Json, env: &Env) -> Result<Prepared, ApiError> {
    if !req.is_object() {
        return Err(ApiError::invalid(
            "We could not parse the JSON body of your request.",
        ));
    }
    let model = req
        .str_of("model")
        .ok_or_else(|| ApiError::invalid("you must provide a model parameter").at("model", None))?
        .to_string();
    let messages = req.arr_of("messages").ok_or_else(|| {
        ApiError::invalid("Missing required parameter: 'messages'.")
            .at("messages", Some("missing_required_parameter"))
    })?;
    if messages.is_empty() {
        return Err(ApiError::invalid(
            "Invalid 'messages': empty array. Expected an array with minimum length 1, but got \
             an empty array instead.",
        )
        .at("messages", Some("empty_array")));
    }
    check_tool_pairs(messages)?;
    let scope = env.scope(
        "openai",
        &format!(
            "{model}\0{}",
            req.str_of("prompt_cache_key").unwrap_or_default()
        ),
    );
    let plan = cache::Plan {
        scope,
        units: env.counter.units(&prompt(req, messages)),
        extended: extended_retention(req),
    };
    let include_usage = req
        .get("stream_options")
        .and_then(|o| o.get("include_usage"))
        .and_then(Json::as_bool)
        == Some(true);
    Ok(Prepared {
        model,
        stream: req.get("stream").and_then(Json::as_bool) == Some(true),
        convo: convo(req, messages),
        usage: UsagePlan::OpenAi(plan),
        include_usage,
        seal_reasoning: false,
        echo: Vec::new(),
    })
}

fn check_tool_pairs(messages: &[Json]) -> Result<(), ApiError> {
    let mut pending: Vec<String> = Vec::new();
    let mut answerable = false;
    for (i, m) in messages.iter().enumerate() {
        let role = m.str_of("role").unwrap_or_default();
        if role == "tool" {
            let id = m.str_of("tool_call_id").unwrap_or_default();
            match pending.iter().position(|p| p == id) {
                Some(k) if answerable => {
                    pending.remove(k);
                    continue;
                }
                _ => {
                    return Err(ApiError::invalid(
                        "Invalid parameter: messages with role 'tool' must be a response to a \
                         preceeding message with 'tool_calls'.",
                    )
                    .at(format!("messages.[{i}].role"), None));
                }
            }
        }
        if !pending.is_empty() {
            return Err(unanswered(&pending, i));
        }
        answerable = false;
        if role == "assistant"
            && let Some(calls) = m.arr_of("tool_calls")
        {
            pending = calls
                .iter()
                .map(|c| c.str_of("id").unwrap_or_default().to_string())
                .collect();
            answerable = true;
        }
    }
    if pending.is_empty() {
        Ok(())
    } else {
        Err(unanswered(&pending, messages.len()))
    }
}

fn unanswered(pending: &[String], at: usize) -> ApiError {
    ApiError::invalid(format!(
        "An assistant message with 'tool_calls' must be followed by tool messages responding \
         to each 'tool_call_id'. The following tool_call_ids did not have response messages: {}",
        pending.join(", ")
    ))
    .at(format!("messages.[{at}].role"), None)
}

/// The prompt as the model would see it: tools, the response schema, then each message.
fn prompt(req: &Json, messages: &[Json]) -> String {
    let mut out = String::new();
    for tool in req.arr_of("tools").unwrap_or_default() {
        out.push_str("tool ");
        out.push_str(&tool.to_compact());
        out.push('\n');
    }
    if let Some(format) = req.get("response_format") {
        out.push_str(&format.to_compact());
        out.push('\n');
    }
    for m in messages {
        out.push_str(m.str_of("role").unwrap_or_default());
        out.push('\n');
        out.push_str(&content_text(m.get("content")));
        for call in m.arr_of("tool_calls").unwrap_or_default() {
            if let Some(f) = call.get("function") {
                out.push('\n');
                out.push_str(f.str_of("name").unwrap_or_default());
                out.push(' ');
                out.push_str(f.str_of("arguments").unwrap_or_default());
            }
        }
        out.push('\n');
    }
    out
}

fn convo(req: &Json, messages: &[Json]) -> Convo {
    let tools = req
        .arr_of("tools")
        .unwrap_or_default()
        .iter()
        .filter_map(|t| {
            let f = t.get("function")?;
            Some(ToolInfo::from_schema(
                f.str_of("name")?,
                f.get("parameters"),
            ))
        })
        .collect();
    let thinking = req.str_of("reasoning_effort").is_some_and(|e| e != "none");
    let trailing_tools: Vec<String> = messages
        .iter()
        .rev()
        .take_while(|m| m.str_of("role") == Some("tool"))
        .map(|m| content_text(m.get("content")))
        .collect();
    let (last_input, after_tool) = if trailing_tools.is_empty() {
        let text = messages
            .last()
            .filter(|m| m.str_of("role") == Some("user"))
            .map(|m| content_text(m.get("content")))
            .unwrap_or_default();
        (text, false)
    } else {
        (
            trailing_tools
                .into_iter()
                .rev()
                .collect::<Vec<_>>()
                .join("\n"),
            true,
        )
    };
    Convo {
        last_input,
        after_tool,
        tools,
        thinking,
        prewarm: false,
    }
}
