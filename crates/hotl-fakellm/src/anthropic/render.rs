//! Anthropic responses: the SSE grammar of wire.md §2.6 (`message_start`, blocks with
//! indices, one `ping` after the first block start, the leading `""` input_json_delta,
//! `signature_delta`, `message_delta` repeating the usage, `message_stop`), the JSON
//! `Message`, and the in-stream `error` event.

use crate::deliver::Event;
use crate::fault::Fault;
use crate::json::{Json, obj};
use crate::script::Stop;
use crate::signature;
use crate::turn::{Output, RenderCtx, Usage, fragments};

fn stop_reason(stop: Stop) -> &'static str {
    match stop {
        Stop::EndTurn => "end_turn",
        Stop::ToolUse => "tool_use",
        Stop::MaxTokens => "max_tokens",
        Stop::StopSequence => "stop_sequence",
        Stop::Refusal => "refusal",
        Stop::PauseTurn => "pause_turn",
    }
}

/// The usage object of `message_start` and of the JSON message.
fn full_usage(u: &Usage, output_tokens: u64) -> Json {
    obj! {
        "input_tokens": u.uncached(),
        "cache_creation_input_tokens": u.cache_write_5m + u.cache_write_1h,
        "cache_read_input_tokens": u.cache_read,
        "cache_creation": obj! {
            "ephemeral_5m_input_tokens": u.cache_write_5m,
            "ephemeral_1h_input_tokens": u.cache_write_1h,
        },
        "output_tokens": output_tokens,
        "service_tier": "standard",
    }
}

/// The usage of `message_delta`: input and cache counts repeated, final output count.
fn delta_usage(u: &Usage) -> Json {
    let mut usage = obj! {
        "input_tokens": u.uncached(),
        "cache_creation_input_tokens": u.cache_write_5m + u.cache_write_1h,
        "cache_read_input_tokens": u.cache_read,
        "output_tokens": u.output,
    };
    if u.thinking > 0 {
        usage.push(
            "output_tokens_details",
            obj! {"thinking_tokens": u.thinking},
        );
    }
    usage
}

/// One content block of the reply.
enum Part<'a> {
    Thinking {
        text: &'a str,
        sig: String,
    },
    Text(&'a str),
    Tool {
        id: String,
        name: &'a str,
        args: &'a str,
    },
}

/// Content blocks in order: thinking, text, tool uses.
fn parts<'a>(ctx: &RenderCtx, out: &'a Output) -> Vec<Part<'a>> {
    let mut parts = Vec::new();
    if let Some(t) = &out.thinking {
        parts.push(Part::Thinking {
            text: t,
            sig: signature::sign(&ctx.key, t),
        });
    }
    if !out.text.is_empty() {
        parts.push(Part::Text(&out.text));
    }
    for (i, tool) in out.tools.iter().enumerate() {
        parts.push(Part::Tool {
            id: ctx.ids.make("toolu_01", "tool", i),
            name: &tool.name,
            args: &tool.args,
        });
    }
    parts
}

impl Part<'_> {
    /// The complete block, as in a non-streaming `Message`.
    fn full(&self) -> Json {
        match self {
            Part::Thinking { text, sig } => {
                obj! {"type": "thinking", "thinking": *text, "signature": sig}
            }
            Part::Text(text) => obj! {"type": "text", "text": *text},
            Part::Tool { id, name, args } => obj! {
                "type": "tool_use",
                "id": id,
                "name": *name,
                // Truncated arguments (max_tokens) do not parse; the block then holds {}.
                "input": Json::parse(args.as_bytes()).unwrap_or(Json::Obj(Vec::new())),
            },
        }
    }

    /// The block as `content_block_start` announces it: empty payload.
    fn empty(&self) -> Json {
        match self {
            Part::Thinking { .. } => obj! {"type": "thinking", "thinking": "", "signature": ""},
            Part::Text(_) => obj! {"type": "text", "text": ""},
            Part::Tool { id, name, .. } => obj! {
                "type": "tool_use",
                "id": id,
                "name": *name,
                "input": Json::Obj(Vec::new()),
            },
        }
    }

    /// The deltas that fill the block.
    fn deltas(&self, fragment: usize) -> Vec<Json> {
        match self {
            Part::Thinking { text, sig } => fragments(text, fragment)
                .into_iter()
                .map(|f| obj! {"type": "thinking_delta", "thinking": f})
                .chain([obj! {"type": "signature_delta", "signature": sig}])
                .collect(),
            Part::Text(text) => fragments(text, fragment)
                .into_iter()
                .map(|f| obj! {"type": "text_delta", "text": f})
                .collect(),
            Part::Tool { args, .. } => std::iter::once(String::new())
                .chain(fragments(args, fragment))
                .map(|f| obj! {"type": "input_json_delta", "partial_json": f})
                .collect(),
        }
    }
}

/// The non-streaming `Message`.
pub(crate) fn message(ctx: &RenderCtx, out: &Output) -> Json {
    obj! {
        "id": ctx.ids.make("msg_01", "msg", 0),
        "type": "message",
        "role": "assistant",
        "model": &ctx.model,
        "content": parts(ctx, out).iter().map(Part::full).collect::<Vec<_>>(),
        "stop_reason": stop_reason(out.stop),
        "stop_sequence": Json::Null,
        "usage": full_usage(&ctx.usage, ctx.usage.output),
    }
}

/// The SSE events of a streamed reply.
pub(crate) fn stream(ctx: &RenderCtx, out: &Output) -> Vec<Event> {
    let mut ev = Vec::new();
    ev.push(Event::named(
        "message_start",
        &obj! {
            "type": "message_start",
            "message": obj! {
                "id": ctx.ids.make("msg_01", "msg", 0),
                "type": "message",
                "role": "assistant",
                "model": &ctx.model,
                "content": Json::Arr(Vec::new()),
                "stop_reason": Json::Null,
                "stop_sequence": Json::Null,
                "usage": full_usage(&ctx.usage, 1),
            },
        },
    ));
    for (index, part) in parts(ctx, out).iter().enumerate() {
        ev.push(Event::named(
            "content_block_start",
            &obj! {"type": "content_block_start", "index": index, "content_block": part.empty()},
        ));
        if index == 0 {
            ev.push(ping());
        }
        for delta in part.deltas(ctx.fragment) {
            ev.push(Event::named(
                "content_block_delta",
                &obj! {"type": "content_block_delta", "index": index, "delta": delta},
            ));
        }
        ev.push(Event::named(
            "content_block_stop",
            &obj! {"type": "content_block_stop", "index": index},
        ));
    }
    if ev.len() == 1 {
        ev.push(ping());
    }
    ev.push(Event::named(
        "message_delta",
        &obj! {
            "type": "message_delta",
            "delta": obj! {"stop_reason": stop_reason(out.stop), "stop_sequence": Json::Null},
            "usage": delta_usage(&ctx.usage),
        },
    ));
    ev.push(Event::named("message_stop", &obj! {"type": "message_stop"}));
    ev
}

/// `{"type": "ping"}`, with the space the real service writes.
fn ping() -> Event {
    Event {
        name: Some("ping".to_string()),
        data: "{\"type\": \"ping\"}".to_string(),
    }
}

/// The in-stream error (an `overloaded_error` unless the fault names another type).
pub(crate) fn error_event(fault: &Fault) -> Vec<Event> {
    let kind = fault.error_type.as_deref().unwrap_or("overloaded_error");
    let message = fault.message.as_deref().unwrap_or("Overloaded");
    vec![Event::named(
        "error",
        &obj! {"type": "error", "error": obj! {"type": kind, "message": message}},
    )]
}
