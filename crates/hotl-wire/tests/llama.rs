//! Against a real llama.cpp `llama-server`, when `HOTL_LLAMA_URL` names one (see
//! docs/testing.md for starting one with a small model). Skipped otherwise.

use hotl_wire::{Dialect, Event, HttpProvider, StopReason};

use crate::conversation::Conversation;

#[tokio::test]
async fn a_real_llama_server_answers_through_the_chat_dialect() {
    let Ok(url) = std::env::var("HOTL_LLAMA_URL") else {
        eprintln!("HOTL_LLAMA_URL is not set: skipping the llama-server smoke test");
        return;
    };
    let provider = HttpProvider::new(Dialect::OpenAiChat, &url, None).expect("provider");
    let mut convo = Conversation::new(&std::env::var("HOTL_LLAMA_MODEL").unwrap_or_default());
    convo.tools.clear();
    convo.user("Say hello in five words.");
    let view = convo.view();
    let mut request = convo.request(&view);
    request.max_tokens = 64;
    let mut deltas = 0;
    let reply = provider
        .send(&request, &mut |e: &Event| {
            if matches!(e, Event::TextDelta { .. }) {
                deltas += 1;
            }
        })
        .await
        .expect("llama-server answers");
    assert!(deltas > 0, "text streamed");
    assert!(matches!(
        reply.stop,
        Some(StopReason::Done | StopReason::Truncated)
    ));
    assert!(reply.usage.output > 0, "{:?}", reply.usage);
}
