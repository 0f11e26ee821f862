//! The Responses dialect: request checks (`function_call` / `function_call_output` paired by
//! `call_id`, sealed reasoning intact), the rendered prompt, the conversation summary and
//! the request fields the response object echoes.

use crate::api_error::ApiError;
use crate::json::Json;
use crate::openai::{cache, content_text, extended_retention};
use crate::request::{Env, Prepared, UsagePlan};
use crate::signature;
use crate::turn::{Convo, ToolInfo};

/// Validates a Responses request and plans its cache usage.
pub(crate) fn prepare(req: &Json, env: &Env) -> Result<Prepared, ApiError> {
    if !req.is_object() {
        return Err(ApiError::invalid(
            "We could not parse the JSON body of your request.",
        ));
    }
    let model = req
        .str_of("model")
        .ok_or_else(|| {
            ApiError::invalid("Missing required parameter: 'model'.")
                .at("model", Some("missing_required_parameter"))
        })?
        .to_string();
    let items = input_items(req);
    if matches!(req.get("input"), Some(Json::Arr(a)) if a.is_empty()) {
        return Err(ApiError::invalid(
            "Invalid 'input': empty array. Expected an array with minimum length 1, but got an \
             empty array instead.",
        )
        .at("input", Some("empty_array")));
    }
    if req
        .get("previous_response_id")
        .and_then(Json::as_str)
        .is_none()
    {
        check_calls(&items)?;
    }
    check_reasoning(&items, &env.config.signing_key)?;
    let scope = env.scope(
        "openai",
        &format!(
            "{model}\0{}",
            req.str_of("prompt_cache_key").unwrap_or_default()
        ),
    );
    let plan = cache::Plan {
        scope,
        units: env.counter.units(&prompt(req, &items)),
        extended: extended_retention(req),
    };
    let seal_reasoning = req
        .arr_of("include")
        .unwrap_or_default()
        .iter()
        .any(|i| i.as_str() == Some("reasoning.encrypted_content"));
    let defaults = [
        ("instructions", Json::Null),
        ("prompt_cache_key", Json::Null),
        ("store", Json::Bool(true)),
        ("tool_choice", Json::from("auto")),
        ("tools", Json::Arr(Vec::new())),
    ];
    let mut echo: Vec<(String, Json)> = defaults
        .into_iter()
        .map(|(k, d)| (k.to_string(), req.get(k).cloned().unwrap_or(d)))
        .collect();
    let retention = req.str_of("prompt_cache_retention").unwrap_or("in_memory");
    echo.push(("prompt_cache_retention".to_string(), Json::from(retention)));
    Ok(Prepared {
        model,
        stream: req.get("stream").and_then(Json::as_bool) == Some(true),
        convo: convo(req, &items),
        usage: UsagePlan::OpenAi(plan),
        include_usage: false,
        seal_reasoning,
        echo,
    })
}

/// The input as a list of items (a string input is one user message).
fn input_items(req: &Json) -> Vec<Json> {
    match req.get("input") {
        Some(Json::Str(s)) => vec![crate::json::obj! {"role": "user", "content": s}],
        Some(Json::Arr(items)) => items.clone(),
        _ => Vec::new(),
    }
}

fn kind(item: &Json) -> &str {
    item.str_of("type").unwrap_or("message")
}

fn check_calls(items: &[Json]) -> Result<(), ApiError> {
    let mut calls: Vec<&str> = Vec::new();
    let mut answered: Vec<&str> = Vec::new();
    for item in items {
        let id = item.str_of("call_id").unwrap_or_default();
        match kind(item) {
            "function_call" => calls.push(id),
            "function_call_output" => {
                if !calls.contains(&id) {
                    return Err(ApiError::invalid(format!(
                        "No tool call found for function call output with call_id {id}."
                    ))
                    .at("input", None));
                }
                answered.push(id);
            }
            _ => {}
        }
    }
    match calls.iter().find(|c| !answered.contains(c)) {
        Some(id) => Err(
            ApiError::invalid(format!("No tool output found for function call {id}."))
                .at("input", None),
        ),
        None => Ok(()),
    }
}

fn check_reasoning(items: &[Json], key: &[u8; 32]) -> Result<(), ApiError> {
    for (i, item) in items.iter().enumerate() {
        if kind(item) != "reasoning" {
            continue;
        }
        if let Some(sealed) = item.str_of("encrypted_content")
            && signature::open(key, sealed).is_none()
        {
            let id = item.str_of("id").unwrap_or_default();
            return Err(ApiError::invalid(format!(
                "The encrypted content for item {id} could not be verified."
            ))
            .at(
                format!("input[{i}].encrypted_content"),
                Some("invalid_encrypted_content"),
            ));
        }
    }
    Ok(())
}

/// The prompt as the model would see it: tools, the text format, instructions, input.
fn prompt(req: &Json, items: &[Json]) -> String {
    let mut out = String::new();
    for tool in req.arr_of("tools").unwrap_or_default() {
        out.push_str("tool ");
        out.push_str(&tool.to_compact());
        out.push('\n');
    }
    if let Some(format) = req.get("text").and_then(|t| t.get("format")) {
        out.push_str(&format.to_compact());
        out.push('\n');
    }
    if let Some(instructions) = req.str_of("instructions") {
        out.push_str("developer\n");
        out.push_str(instructions);
        out.push('\n');
    }
    for item in items {
        match kind(item) {
            "message" => {
                out.push_str(item.str_of("role").unwrap_or_default());
                out.push('\n');
                out.push_str(&content_text(item.get("content")));
            }
            "function_call" => {
                out.push_str(item.str_of("name").unwrap_or_default());
                out.push(' ');
                out.push_str(item.str_of("arguments").unwrap_or_default());
            }
            "function_call_output" => out.push_str(&content_text(item.get("output"))),
            "reasoning" => {
                for s in item.arr_of("summary").unwrap_or_default() {
                    out.push_str(s.str_of("text").unwrap_or_default());
                }
            }
            _ => out.push_str(&item.to_compact()),
        }
        out.push('\n');
    }
    out
}

fn convo(req: &Json, items: &[Json]) -> Convo {
    let tools = req
        .arr_of("tools")
        .unwrap_or_default()
        .iter()
        .filter_map(|t| {
            Some(ToolInfo::from_schema(
                t.str_of("name")?,
                t.get("parameters"),
            ))
        })
        .collect();
    let thinking = req.get("reasoning").is_some_and(|r| {
        r.str_of("effort").is_some_and(|e| e != "none") || r.str_of("summary").is_some()
    });
    let outputs: Vec<String> = items
        .iter()
        .rev()
        .take_while(|i| kind(i) == "function_call_output")
        .map(|i| content_text(i.get("output")))
        .collect();
    let (last_input, after_tool) = if outputs.is_empty() {
        let text = items
            .last()
            .filter(|i| kind(i) == "message" && i.str_of("role") == Some("user"))
            .map(|i| content_text(i.get("content")))
            .unwrap_or_default();
        (text, false)
    } else {
        (
            outputs.into_iter().rev().collect::<Vec<_>>().join("\n"),
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
