//! Chat Completions responses: the chunk grammar of wire.md §3.2–3.3 (a role chunk, content
//! or tool-call fragments by `index`, `finish_reason` on an empty delta, the `include_usage`
//! chunk with `choices: []`, `data: [DONE]`), the JSON completion and the in-stream error.
//! Thinking goes out as `reasoning_content` (the llama-server / DeepSeek convention).

use crate::deliver::Event;
use crate::fault::Fault;
use crate::json::{Json, obj};
use crate::script::Stop;
use crate::turn::{Output, RenderCtx};

fn finish_reason(stop: Stop) -> &'static str {
    match stop {
        Stop::ToolUse => "tool_calls",
        Stop::MaxTokens => "length",
        Stop::Refusal => "content_filter",
        Stop::EndTurn | Stop::StopSequence | Stop::PauseTurn => "stop",
    }
}

fn usage(ctx: &RenderCtx) -> Json {
    let u = &ctx.usage;
    obj! {
        "prompt_tokens": u.prompt,
        "completion_tokens": u.output,
        "total_tokens": u.prompt + u.output,
        "prompt_tokens_details": obj! {"cached_tokens": u.cache_read, "audio_tokens": 0u64},
        "completion_tokens_details": obj! {
            "reasoning_tokens": u.thinking,
            "audio_tokens": 0u64,
            "accepted_prediction_tokens": 0u64,
            "rejected_prediction_tokens": 0u64,
        },
    }
}

fn call_id(ctx: &RenderCtx, i: usize) -> String {
    ctx.ids.make("call_", "call", i)
}

/// The non-streaming `chat.completion`.
pub(crate) fn completion(ctx: &RenderCtx, out: &Output) -> Json {
    let mut message = obj! {
        "role": "assistant",
        "content": (!out.text.is_empty()).then_some(out.text.as_str()),
        "refusal": Json::Null,
    };
    if let Some(t) = &out.thinking {
        message.push("reasoning_content", t);
    }
    if !out.tools.is_empty() {
        let calls = out.tools.iter().enumerate().map(|(i, t)| {
            obj! {
                "id": call_id(ctx, i),
                "type": "function",
                "function": obj! {"name": &t.name, "arguments": &t.args},
            }
        });
        message.push("tool_calls", Json::arr(calls));
    }
    obj! {
        "id": ctx.ids.make("chatcmpl-", "chat", 0),
        "object": "chat.completion",
        "created": ctx.created,
        "model": &ctx.model,
        "choices": vec![obj! {
            "index": 0u64,
            "message": message,
            "logprobs": Json::Null,
            "finish_reason": finish_reason(out.stop),
        }],
        "usage": usage(ctx),
        "service_tier": "default",
        "system_fingerprint": "fp_fakellm",
    }
}

/// The SSE events of a streamed completion, `[DONE]` included.
pub(crate) fn stream(ctx: &RenderCtx, out: &Output) -> Vec<Event> {
    let id = ctx.ids.make("chatcmpl-", "chat", 0);
    let chunk = |delta: Json, finish: Option<&str>| {
        let mut c = obj! {
            "id": &id,
            "object": "chat.completion.chunk",
            "created": ctx.created,
            "model": &ctx.model,
            "system_fingerprint": "fp_fakellm",
            "choices": vec![obj! {
                "index": 0u64,
                "delta": delta,
                "logprobs": Json::Null,
                "finish_reason": finish,
            }],
        };
        if ctx.include_usage {
            c.push("usage", Json::Null);
        }
        Event::data(c.to_compact())
    };
    let mut ev = Vec::new();
    let first_content = if out.text.is_empty() && !out.tools.is_empty() {
        Json::Null
    } else {
        Json::from("")
    };
    ev.push(chunk(
        obj! {"role": "assistant", "content": first_content, "refusal": Json::Null},
        None,
    ));
    if let Some(t) = &out.thinking {
        for f in crate::turn::fragments(t, ctx.fragment) {
            ev.push(chunk(obj! {"reasoning_content": f}, None));
        }
    }
    for f in crate::turn::fragments(&out.text, ctx.fragment) {
        ev.push(chunk(obj! {"content": f}, None));
    }
    for (i, tool) in out.tools.iter().enumerate() {
        let head = obj! {
            "index": i,
            "id": call_id(ctx, i),
            "type": "function",
            "function": obj! {"name": &tool.name, "arguments": ""},
        };
        ev.push(chunk(obj! {"tool_calls": vec![head]}, None));
        for f in crate::turn::fragments(&tool.args, ctx.fragment) {
            let part = obj! {"index": i, "function": obj! {"arguments": f}};
            ev.push(chunk(obj! {"tool_calls": vec![part]}, None));
        }
    }
    ev.push(chunk(Json::Obj(Vec::new()), Some(finish_reason(out.stop))));
    if ctx.include_usage {
        let c = obj! {
            "id": &id,
            "object": "chat.completion.chunk",
            "created": ctx.created,
            "model": &ctx.model,
            "system_fingerprint": "fp_fakellm",
            "choices": Json::Arr(Vec::new()),
            "usage": usage(ctx),
        };
        ev.push(Event::data(c.to_compact()));
    }
    ev.push(Event::data("[DONE]"));
    ev
}

/// The in-stream error: a data chunk whose JSON has a top-level `error` (no `[DONE]`).
pub(crate) fn error_event(fault: &Fault) -> Vec<Event> {
    let kind = fault.error_type.as_deref().unwrap_or("server_error");
    let message = fault
        .message
        .as_deref()
        .unwrap_or("The server had an error while processing your request. Sorry about that!");
    let body = obj! {
        "error": obj! {"message": message, "type": kind, "param": Json::Null, "code": Json::Null},
    };
    vec![Event::data(body.to_compact())]
}
