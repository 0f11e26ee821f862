//! Requests for words, not work: a fold or compaction note, an answer from an archived thread.
//! They go in the session's own context so the prefix is read from cache. Where the provider's
//! cache survives a change of `tool_choice` (OpenAI's dialects and the servers that speak them,
//! llama.cpp among them: the choice is not part of the cached prefix), tools are switched off
//! with `tool_choice: none`; elsewhere (Anthropic, where the choice is part of what the message
//! cache hashes) they stay callable and a stray call is answered with an error, once.

use hotl_log::Block;
use hotl_view::{MessageRef, Part, Role};
use hotl_wire::{Reply, StopReason, ToolChoice, Usage};

use super::Session;
use super::requests::push_user_text;
use crate::context::Context;
use crate::error::Result;
use hotl_protocol::add_usage as add;

/// The most a note may take: a note is a few lines, and a model that runs on past this is not
/// writing one (a 5,523-token "note" of repeated lines was seen on a small model).
pub(super) const NOTE_MAX_TOKENS: u32 = 1_536;

/// What came back.
#[derive(Debug, Default)]
pub(super) struct Words {
    /// The text of the last reply.
    pub(super) text: String,
    /// How the last reply ended.
    pub(super) stop: Option<StopReason>,
    /// The output limit the last request asked.
    pub(super) limit: u32,
    /// The tool the model called instead of answering, when it did to the end.
    pub(super) stray: Option<String>,
    /// What every request cost, for the session's totals: (model, usage).
    pub(super) spent: Vec<(Option<String>, Usage)>,
    /// Their usage summed.
    pub(super) usage: Usage,
}

impl Words {
    /// Why these words cannot be used as a note, if they cannot: the model called a tool
    /// instead, or stopped at the output limit.
    pub(super) fn refusal(&self) -> Option<String> {
        if let Some(tool) = &self.stray {
            return Some(format!(
                "the model called `{tool}` instead of writing the note"
            ));
        }
        (self.stop == Some(StopReason::Truncated)).then(|| {
            format!(
                "the note stopped at the output limit ({} tokens) instead of ending: a note is \
                 a few lines",
                self.limit
            )
        })
    }
}

impl Session {
    /// Asks for words after `context` (messages of this session's or a thread's view): `prompt`
    /// as the last user message, at most `max_tokens` of output, tools off where that keeps
    /// the cache, else a stray call answered with `unavailable` and asked again once.
    pub(super) async fn ask_for_words(
        &self,
        context: &[MessageRef<'_>],
        prompt: &str,
        max_tokens: Option<u32>,
        unavailable: &str,
        cx: &Context,
    ) -> Result<Words> {
        let tools_off = cx.provider.tool_choice_keeps_cache();
        let mut strays: Vec<Reply> = Vec::new();
        let mut words = Words::default();
        loop {
            let mut messages = context.to_vec();
            push_user_text(&mut messages, prompt);
            for stray in &strays {
                messages.push(MessageRef {
                    role: Role::Assistant,
                    content: stray.content.iter().map(Part::Block).collect(),
                });
                messages.push(MessageRef {
                    role: Role::User,
                    content: stray
                        .tool_calls()
                        .map(|(id, _, _)| Part::ToolResult {
                            tool_use_id: id,
                            content: vec![Part::Text(unavailable.into())],
                            is_error: true,
                        })
                        .collect(),
                });
            }
            let mut request = self.base_request(messages, &cx.settings);
            if tools_off {
                request.tool_choice = ToolChoice::None;
            }
            if let Some(max) = max_tokens {
                request.max_tokens = request.max_tokens.min(max);
            }
            words.limit = request.max_tokens;
            let reply = cx.provider.send(&request, &mut |_| {}).await?;
            drop(request);
            add(&mut words.usage, &reply.usage);
            words.spent.push((reply.model.clone(), reply.usage));
            words.text = reply.content.iter().filter_map(Block::as_text).collect();
            words.stop = reply.stop;
            let called = reply
                .tool_calls()
                .next()
                .map(|(_, name, _)| name.to_owned());
            match called {
                None => {
                    words.stray = None;
                    return Ok(words);
                }
                Some(_) if !tools_off && strays.is_empty() => strays.push(reply),
                Some(name) => {
                    words.stray = Some(name);
                    return Ok(words);
                }
            }
        }
    }

    /// Counts what [`Session::ask_for_words`] spent into this process's totals.
    pub(super) fn account_words(&mut self, words: &Words, cx: &Context) {
        for (model, usage) in &words.spent {
            self.account(&cx.settings, model.as_deref(), usage);
        }
    }
}
