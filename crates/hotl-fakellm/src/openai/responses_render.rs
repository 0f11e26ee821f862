//! Responses API output: the event grammar of wire.md §5.2 (`response.created`,
//! `response.in_progress`, per item `output_item.added` … `output_item.done`, one terminal
//! event, `sequence_number` from 0), the JSON response object and the in-stream error
//! (`error` then `response.failed`).

use crate::deliver::Event;
use crate::fault::Fault;
use crate::json::{Json, obj};
use crate::script::Stop;
use crate::signature;
use crate::turn::{Output, RenderCtx, fragments};

fn usage(ctx: &RenderCtx) -> Json {
    let u = &ctx.usage;
    obj! {
        "input_tokens": u.prompt,
        "input_tokens_details": obj! {"cached_tokens": u.cache_read, "cache_write_tokens": 0u64},
        "output_tokens": u.output,
        "output_tokens_details": obj! {"reasoning_tokens": u.thinking},
        "total_tokens": u.prompt + u.output,
    }
}

/// The response object with a given status, output list and usage.
fn response(ctx: &RenderCtx, status: &str, output: Vec<Json>, done: bool, stop: Stop) -> Json {
    let incomplete =
        (done && stop == Stop::MaxTokens).then(|| obj! {"reason": "max_output_tokens"});
    let mut r = obj! {
        "id": ctx.ids.make("resp_", "resp", 0),
        "object": "response",
        "created_at": ctx.created,
        "status": status,
        "error": Json::Null,
        "incomplete_details": incomplete,
        "model": &ctx.model,
        "output": output,
        "parallel_tool_calls": true,
    };
    for (k, v) in &ctx.echo {
        r.push(k, v);
    }
    r.push("usage", if done { usage(ctx) } else { Json::Null });
    r
}

/// One output item, in its final form and the events that stream it.
struct Item {
    done: Json,
    added: Json,
    events: Vec<(String, Json)>,
}

fn items(ctx: &RenderCtx, out: &Output) -> Vec<Item> {
    let mut items = Vec::new();
    if let Some(t) = &out.thinking {
        let index = items.len();
        let id = ctx.ids.make("rs_", "rs", 0);
        let summary = obj! {"type": "summary_text", "text": t};
        let mut added = obj! {"id": &id, "type": "reasoning", "summary": Json::Arr(Vec::new())};
        let mut done = obj! {"id": &id, "type": "reasoning", "summary": vec![summary.clone()]};
        if ctx.seal_reasoning {
            let sealed = signature::seal(&ctx.key, t);
            added.push("encrypted_content", &sealed);
            done.push("encrypted_content", sealed);
        }
        let at = |extra: Vec<(String, Json)>| {
            let mut o = obj! {"item_id": &id, "output_index": index, "summary_index": 0u64};
            for (k, v) in extra {
                o.push(&k, v);
            }
            o
        };
        let mut events = vec![(
            "response.reasoning_summary_part.added".to_string(),
            at(vec![(
                "part".into(),
                obj! {"type": "summary_text", "text": ""},
            )]),
        )];
        for f in fragments(t, ctx.fragment) {
            events.push((
                "response.reasoning_summary_text.delta".to_string(),
                at(vec![("delta".into(), Json::from(f))]),
            ));
        }
        events.push((
            "response.reasoning_summary_text.done".to_string(),
            at(vec![("text".into(), Json::from(t))]),
        ));
        events.push((
            "response.reasoning_summary_part.done".to_string(),
            at(vec![("part".into(), summary)]),
        ));
        items.push(Item {
            done,
            added,
            events,
        });
    }
    if !out.text.is_empty() {
        let index = items.len();
        let id = ctx.ids.make("msg_", "msg", 0);
        let refusal = out.stop == Stop::Refusal;
        let (part_type, field, delta_ev, done_ev) = if refusal {
            (
                "refusal",
                "refusal",
                "response.refusal.delta",
                "response.refusal.done",
            )
        } else {
            (
                "output_text",
                "text",
                "response.output_text.delta",
                "response.output_text.done",
            )
        };
        let part = |text: &str| {
            let mut p = obj! {"type": part_type};
            if !refusal {
                p.push("annotations", Json::Arr(Vec::new()));
                p.push("logprobs", Json::Arr(Vec::new()));
            }
            p.push(field, text);
            p
        };
        let message = |status: &str, content: Vec<Json>| {
            obj! {"id": &id, "type": "message", "status": status, "content": content, "role": "assistant"}
        };
        let at = |extra: Vec<(&str, Json)>| {
            let mut o = obj! {"item_id": &id, "output_index": index, "content_index": 0u64};
            for (k, v) in extra {
                o.push(k, v);
            }
            o
        };
        let mut events = vec![(
            "response.content_part.added".to_string(),
            at(vec![("part", part(""))]),
        )];
        for f in fragments(&out.text, ctx.fragment) {
            let mut extra = vec![("delta", Json::from(f))];
            if !refusal {
                extra.push(("logprobs", Json::Arr(Vec::new())));
            }
            events.push((delta_ev.to_string(), at(extra)));
        }
        let mut extra = vec![(field, Json::from(&out.text))];
        if !refusal {
            extra.push(("logprobs", Json::Arr(Vec::new())));
        }
        events.push((done_ev.to_string(), at(extra)));
        events.push((
            "response.content_part.done".to_string(),
            at(vec![("part", part(&out.text))]),
        ));
        items.push(Item {
            done: message("completed", vec![part(&out.text)]),
            added: message("in_progress", Vec::new()),
            events,
        });
    }
    for (i, tool) in out.tools.iter().enumerate() {
        let id = ctx.ids.make("fc_", "fc", i);
        let call = |status: &str, args: &str| {
            obj! {
                "id": &id,
                "type": "function_call",
                "status": status,
                "arguments": args,
                "call_id": ctx.ids.make("call_", "call", i),
                "name": &tool.name,
            }
        };
        let output_index = items.len();
        let mut events: Vec<(String, Json)> = fragments(&tool.args, ctx.fragment)
            .into_iter()
            .map(|f| {
                let e = obj! {"item_id": &id, "output_index": output_index, "delta": f};
                ("response.function_call_arguments.delta".to_string(), e)
            })
            .collect();
        events.push((
            "response.function_call_arguments.done".to_string(),
            obj! {"item_id": &id, "output_index": output_index, "name": &tool.name, "arguments": &tool.args},
        ));
        items.push(Item {
            done: call("completed", &tool.args),
            added: call("in_progress", ""),
            events,
        });
    }
    items
}

fn terminal(stop: Stop) -> (&'static str, &'static str) {
    match stop {
        Stop::MaxTokens => ("response.incomplete", "incomplete"),
        _ => ("response.completed", "completed"),
    }
}

/// The non-streaming response object.
pub(crate) fn response_json(ctx: &RenderCtx, out: &Output) -> Json {
    let output = items(ctx, out).into_iter().map(|i| i.done).collect();
    response(ctx, terminal(out.stop).1, output, true, out.stop)
}

/// Numbers events from 0 as they are added.
struct Seq {
    events: Vec<Event>,
}

impl Seq {
    fn push(&mut self, name: &str, mut payload: Json) {
        let mut body = obj! {"type": name};
        if let (Json::Obj(fields), Json::Obj(extra)) = (&mut body, &mut payload) {
            fields.append(extra);
        }
        body.push("sequence_number", self.events.len());
        self.events.push(Event::named(name, &body));
    }
}

/// The SSE events of a streamed response.
pub(crate) fn stream(ctx: &RenderCtx, out: &Output) -> Vec<Event> {
    let mut seq = Seq { events: Vec::new() };
    let in_progress = response(ctx, "in_progress", Vec::new(), false, out.stop);
    seq.push("response.created", obj! {"response": &in_progress});
    seq.push("response.in_progress", obj! {"response": &in_progress});
    let mut finished = Vec::new();
    for (index, item) in items(ctx, out).into_iter().enumerate() {
        seq.push(
            "response.output_item.added",
            obj! {"output_index": index, "item": item.added},
        );
        for (name, payload) in item.events {
            seq.push(&name, payload);
        }
        seq.push(
            "response.output_item.done",
            obj! {"output_index": index, "item": &item.done},
        );
        finished.push(item.done);
    }
    let (event, status) = terminal(out.stop);
    let done = response(ctx, status, finished, true, out.stop);
    seq.push(event, obj! {"response": done});
    seq.events
}

/// The in-stream failure after `sent` events: `error`, then `response.failed`.
pub(crate) fn error_events(ctx: &RenderCtx, fault: &Fault, sent: usize) -> Vec<Event> {
    let code = fault.error_type.as_deref().unwrap_or("server_error");
    let message = fault
        .message
        .as_deref()
        .unwrap_or("The server had an error while processing your request. Sorry about that!");
    let mut seq = Seq {
        events: Vec::with_capacity(sent + 2),
    };
    // Pad so numbering continues from the events already sent; only the tail is returned.
    seq.events.resize(sent, Event::data(String::new()));
    seq.push(
        "error",
        obj! {"code": code, "message": message, "param": Json::Null},
    );
    let mut failed = response(ctx, "failed", Vec::new(), false, Stop::EndTurn);
    if let Json::Obj(fields) = &mut failed
        && let Some((_, e)) = fields.iter_mut().find(|(k, _)| k == "error")
    {
        *e = obj! {"code": code, "message": message};
    }
    seq.push("response.failed", obj! {"response": failed});
    seq.events.split_off(sent)
}
