//! HTTP handlers: capture, parse, validate, pick the answer, account usage, render in the
//! request's dialect and deliver with the fault applied.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderMap, Method, Uri};
use axum::response::Response;
use bytes::Bytes;

use crate::anthropic;
use crate::api_error::ApiError;
use crate::capture::Endpoint;
use crate::config::Dialect;
use crate::deliver::{self, Event};
use crate::fault::Fault;
use crate::json::{Json, obj};
use crate::openai;
use crate::request::{Prepared, UsagePlan};
use crate::state::{Shared, Source};
use crate::turn::{Ids, Output, RenderCtx, Usage};

type S = State<Arc<Shared>>;

pub(crate) async fn messages(State(s): S, uri: Uri, headers: HeaderMap, body: Bytes) -> Response {
    generate(
        &s,
        Dialect::Anthropic,
        Endpoint::Messages,
        &uri,
        &headers,
        &body,
    )
}

pub(crate) async fn chat(State(s): S, uri: Uri, headers: HeaderMap, body: Bytes) -> Response {
    generate(
        &s,
        Dialect::OpenAiChat,
        Endpoint::ChatCompletions,
        &uri,
        &headers,
        &body,
    )
}

pub(crate) async fn responses(State(s): S, uri: Uri, headers: HeaderMap, body: Bytes) -> Response {
    generate(
        &s,
        Dialect::OpenAiResponses,
        Endpoint::Responses,
        &uri,
        &headers,
        &body,
    )
}

fn request_id(dialect: Dialect, seq: u64) -> String {
    let ids = Ids { seq, seed: 0 };
    match dialect {
        Dialect::Anthropic => ids.make("req_011C", "req", 0),
        _ => ids.make("req_", "req", 0),
    }
}

fn id_header(dialect: Dialect, request_id: &str) -> (&'static str, String) {
    match dialect {
        Dialect::Anthropic => ("request-id", request_id.to_string()),
        _ => ("x-request-id", request_id.to_string()),
    }
}

fn parse(dialect: Dialect, body: &Bytes) -> Result<Json, ApiError> {
    Json::parse(body).map_err(|e| match dialect {
        Dialect::Anthropic => ApiError::invalid(format!("invalid JSON body: {e}")),
        _ => ApiError::invalid(
            "We could not parse the JSON body of your request. (HINT: This likely means you \
             aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, \
             but what was sent was not valid JSON.)",
        ),
    })
}

fn generate(
    s: &Shared,
    dialect: Dialect,
    endpoint: Endpoint,
    uri: &Uri,
    headers: &HeaderMap,
    body: &Bytes,
) -> Response {
    let seq = s.capture(endpoint, "POST", &uri.to_string(), headers, body);
    let rid = request_id(dialect, seq);
    match answer(s, dialect, headers, body, seq, &rid) {
        Ok(resp) => resp,
        Err(e) => e.into_response(dialect, &rid),
    }
}

fn answer(
    s: &Shared,
    dialect: Dialect,
    headers: &HeaderMap,
    body: &Bytes,
    seq: u64,
    rid: &str,
) -> Result<Response, ApiError> {
    let req = parse(dialect, body)?;
    let env = s.env(headers);
    let prepared = match dialect {
        Dialect::Anthropic => anthropic::prepare(&req, &env, false)?,
        Dialect::OpenAiChat => openai::chat::prepare(&req, &env)?,
        Dialect::OpenAiResponses => openai::responses::prepare(&req, &env)?,
    };
    if let Some(window) = s.context_window() {
        let tokens = prepared.usage.total();
        if tokens > window {
            return Err(ApiError::context_overflow(dialect, tokens, window));
        }
    }
    let pick = s.pick(&prepared)?;
    let fault = pick.fault;
    let source = match (pick.source, &fault) {
        (Some(source), _) => source,
        (None, Some(f)) => {
            let status = f.status.unwrap_or(500);
            return Err(ApiError::from_fault(dialect, status, f));
        }
        (None, None) => return Err(ApiError::invalid("hotl-fakellm: nothing to answer with")),
    };
    let headers = vec![id_header(dialect, rid)];
    let mut ctx = RenderCtx {
        model: prepared.model.clone(),
        ids: Ids {
            seq,
            seed: s.config.id_seed,
        },
        created: s.clock.unix_secs(),
        fragment: s.config.fragment_chars,
        key: s.config.signing_key,
        usage: Usage::default(),
        include_usage: prepared.include_usage,
        seal_reasoning: prepared.seal_reasoning,
        echo: prepared.echo.clone(),
    };
    let fault = fault.as_ref();
    let output = match source {
        Source::Replay(bytes) => {
            let units = deliver::split_events(&bytes);
            let units = apply_error_after(units, fault, |sent| {
                error_events(dialect, &ctx, fault, sent)
            });
            return Ok(deliver::stream_response(units, fault, headers));
        }
        Source::Output(output) => output,
    };
    ctx.usage = s.account(&prepared, &output);
    if !prepared.stream {
        let json = match dialect {
            Dialect::Anthropic => anthropic::render::message(&ctx, &output),
            Dialect::OpenAiChat => openai::chat_render::completion(&ctx, &output),
            Dialect::OpenAiResponses => openai::responses_render::response_json(&ctx, &output),
        };
        return Ok(deliver::json_response(&json, fault, headers));
    }
    let events = render_stream(dialect, &ctx, &output);
    let units: Vec<Bytes> = events.iter().map(Event::frame).collect();
    let units = apply_error_after(units, fault, |sent| {
        error_events(dialect, &ctx, fault, sent)
    });
    Ok(deliver::stream_response(units, fault, headers))
}

fn render_stream(dialect: Dialect, ctx: &RenderCtx, output: &Output) -> Vec<Event> {
    match dialect {
        Dialect::Anthropic => anthropic::render::stream(ctx, output),
        Dialect::OpenAiChat => openai::chat_render::stream(ctx, output),
        Dialect::OpenAiResponses => openai::responses_render::stream(ctx, output),
    }
}

/// With `error_after: k`, keeps the first k events and appends the dialect's error events.
fn apply_error_after(
    mut units: Vec<Bytes>,
    fault: Option<&Fault>,
    errors: impl Fn(usize) -> Vec<Event>,
) -> Vec<Bytes> {
    let Some(k) = fault.and_then(|f| f.error_after) else {
        return units;
    };
    units.truncate(k);
    let sent = units.len();
    units.extend(errors(sent).iter().map(Event::frame));
    units
}

fn error_events(
    dialect: Dialect,
    ctx: &RenderCtx,
    fault: Option<&Fault>,
    sent: usize,
) -> Vec<Event> {
    let default = Fault::default();
    let fault = fault.unwrap_or(&default);
    match dialect {
        Dialect::Anthropic => anthropic::render::error_event(fault),
        Dialect::OpenAiChat => openai::chat_render::error_event(fault),
        Dialect::OpenAiResponses => openai::responses_render::error_events(ctx, fault, sent),
    }
}

/// `POST /v1/messages/count_tokens`: `{"input_tokens": N}`; consumes no reply or fault.
pub(crate) async fn count_tokens(
    State(s): S,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let seq = s.capture(
        Endpoint::CountTokens,
        "POST",
        &uri.to_string(),
        &headers,
        &body,
    );
    let rid = request_id(Dialect::Anthropic, seq);
    let result = parse(Dialect::Anthropic, &body)
        .and_then(|req| anthropic::prepare(&req, &s.env(&headers), true));
    match result {
        Ok(Prepared {
            usage: UsagePlan::Anthropic(plan),
            ..
        }) => deliver::json_response(
            &obj! {"input_tokens": plan.total()},
            None,
            vec![id_header(Dialect::Anthropic, &rid)],
        ),
        Ok(_) => ApiError::invalid("unexpected plan").into_response(Dialect::Anthropic, &rid),
        Err(e) => e.into_response(Dialect::Anthropic, &rid),
    }
}

/// `GET /v1/models`: Anthropic's shape when the request carries `anthropic-version` or
/// `x-api-key`, OpenAI's otherwise.
pub(crate) async fn models(State(s): S, uri: Uri, headers: HeaderMap) -> Response {
    let seq = s.capture(
        Endpoint::Models,
        "GET",
        &uri.to_string(),
        &headers,
        &Bytes::new(),
    );
    let anthropic = headers.contains_key("anthropic-version") || headers.contains_key("x-api-key");
    let dialect = if anthropic {
        Dialect::Anthropic
    } else {
        Dialect::OpenAiChat
    };
    let rid = request_id(dialect, seq);
    let created = s.clock.unix_secs();
    let body = if anthropic {
        let data: Vec<Json> = s
            .config
            .models
            .iter()
            .map(|m| obj! {"type": "model", "id": m, "display_name": m, "created_at": "2026-01-01T00:00:00Z"})
            .collect();
        obj! {
            "data": data,
            "has_more": false,
            "first_id": s.config.models.first(),
            "last_id": s.config.models.last(),
        }
    } else {
        let data: Vec<Json> = s
            .config
            .models
            .iter()
            .map(|m| obj! {"id": m, "object": "model", "created": created, "owned_by": "hotl-fakellm"})
            .collect();
        obj! {"object": "list", "data": data}
    };
    deliver::json_response(&body, None, vec![id_header(dialect, &rid)])
}

/// llama.cpp's `/props`, for clients that ask a local server its window: the context window
/// set for the fake (`--context-window`) as `default_generation_settings.n_ctx`, and what the
/// chat template can do (`chat_template_caps`); without a window, a 404 as from a server that
/// is not llama.cpp.
pub(crate) async fn props(State(s): S, method: Method, uri: Uri, headers: HeaderMap) -> Response {
    match s.context_window() {
        Some(n_ctx) => {
            let tools = !s.config.template_ignores_tools;
            deliver::json_response(
                &obj! {
                    "default_generation_settings": obj! {"n_ctx": n_ctx},
                    "total_slots": 1u64,
                    "chat_template_caps": obj! {
                        "supports_tools": tools,
                        "supports_tool_calls": tools,
                        "supports_system_role": true,
                    },
                },
                None,
                Vec::new(),
            )
        }
        None => fallback(State(s), method, uri, headers, Bytes::new()).await,
    }
}

/// Any other route: captured, then a 404 in OpenAI's shape.
pub(crate) async fn fallback(
    State(s): S,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let seq = s.capture(
        Endpoint::Other,
        method.as_str(),
        &uri.to_string(),
        &headers,
        &body,
    );
    let rid = request_id(Dialect::OpenAiChat, seq);
    let mut e = ApiError::invalid(format!("Invalid URL ({method} {})", uri.path()));
    e.status = 404;
    e.code = Some("unknown_url");
    e.into_response(Dialect::OpenAiChat, &rid)
}
