//! A root session's title, written once after its first answer by the fast model (or the
//! session's own, whose prompt cache the request then reads): a few words saying what the
//! session is about, for lists, pickers and exports. Delegated sessions are titled by their
//! task when they start and never come here.

use hotl_log::{Block, Body};
use hotl_view::model_view;

use super::Session;
use super::requests::push_user_text;
use crate::context::Context;
use crate::error::Result;
use crate::provider::Provider;

/// How titles are made (`[session_title]`, `[provider] fast_model`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TitleSettings {
    /// The model that writes them; `None`: the session's own.
    pub model: Option<String>,
    /// The longest a title may be.
    pub max_chars: usize,
}

impl Default for TitleSettings {
    fn default() -> TitleSettings {
        TitleSettings {
            model: None,
            max_chars: 80,
        }
    }
}

/// Enough for a title of any configured length in any tokenizer.
const TITLE_MAX_TOKENS: u32 = 64;

/// A title request, built from the session and ready to send away from it: the next command
/// does not wait behind the model's answer.
pub(crate) struct TitleAsk {
    provider: hotl_wire::HttpProvider,
    body: bytes::Bytes,
    /// The model asked, for pricing the answer.
    model: String,
    max_chars: usize,
}

/// What a title request came to.
pub(crate) struct TitleReply {
    reply: std::result::Result<hotl_wire::Reply, hotl_wire::WireError>,
    model: String,
    max_chars: usize,
}

impl TitleAsk {
    /// Sends the request and waits for the answer (the demo provider is never asked).
    pub(crate) async fn send(self) -> TitleReply {
        let reply = self.provider.send_body(self.body, &mut |_| {}).await;
        TitleReply {
            reply,
            model: self.model,
            max_chars: self.max_chars,
        }
    }
}

impl Session {
    /// The request that titles this session from its opening exchange, when it is a root that
    /// has none yet and has just had its first answer, titles are on and the provider is a
    /// real one; `None` when no title is due.
    pub(crate) fn title_ask(&self, cx: &Context) -> Result<Option<TitleAsk>> {
        let (Some(title), Provider::Http(provider)) = (&cx.settings.title, &cx.provider) else {
            return Ok(None);
        };
        if self.view.state.title.is_some() || self.view.turns != 1 || self.view.open_turn {
            return Ok(None);
        }
        if self.start.delegated.is_some() {
            return Ok(None);
        }
        let prompt = format!(
            "Name this session for a list of sessions: a title of at most {} characters saying what it is about. Answer with the title alone: no quotes, no period.",
            title.max_chars
        );
        let mut settings = (*cx.settings).clone();
        if let Some(model) = &title.model {
            settings.model.clone_from(model);
        }
        let mut messages = model_view(&self.view);
        push_user_text(&mut messages, &prompt);
        let mut request = self.base_request(messages, &settings);
        if cx.provider.tool_choice_keeps_cache() {
            request.tool_choice = hotl_wire::ToolChoice::None;
        }
        request.max_tokens = request.max_tokens.min(TITLE_MAX_TOKENS);
        let body = provider.body(&request)?;
        Ok(Some(TitleAsk {
            provider: provider.clone(),
            body,
            model: settings.model,
            max_chars: title.max_chars,
        }))
    }

    /// Records the title a [`TitleAsk`] brought (its usage counted as the session's); the
    /// title written, or `None` when the answer held none (a tool call, nothing usable).
    pub(crate) fn record_title(
        &mut self,
        reply: TitleReply,
        cx: &Context,
    ) -> Result<Option<String>> {
        let answer = reply.reply?;
        let model = answer.model.clone().unwrap_or_else(|| reply.model.clone());
        let mut settings = (*cx.settings).clone();
        settings.model = reply.model;
        self.account(&settings, Some(&model), &answer.usage);
        let text: String = answer.content.iter().filter_map(Block::as_text).collect();
        let text = clean(&text, reply.max_chars);
        if text.is_empty() || self.view.state.title.is_some() {
            return Ok(None);
        }
        // What the request spent is recorded with it: the session's cost counts its title.
        self.append(Body::Title {
            title: text.clone(),
            usage: Some(answer.usage.to_log()),
            model: Some(model),
        })?;
        Ok(Some(text))
    }
}

/// The first line, without quotes, a trailing period or markdown emphasis, at most `max`
/// characters.
fn clean(text: &str, max: usize) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let line = line
        .trim_start_matches(['#', '*', '"', '\'', '`', ' '])
        .trim_end_matches(['*', '"', '\'', '`', '.', ' ']);
    let line = line.strip_prefix("Title:").map_or(line, |rest| {
        rest.trim_start_matches(['*', '"', '\'', '`', ' '])
    });
    match line.char_indices().nth(max) {
        // Cut at a word's end when one is near, so the title does not stop mid-word.
        Some((i, _)) => {
            let cut = &line[..i];
            match cut.rfind(char::is_whitespace) {
                Some(space) if space >= i / 2 => cut[..space].trim_end_matches([',', ';', ':']),
                _ => cut,
            }
            .trim_end()
            .to_owned()
        }
        None => line.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::clean;

    #[test]
    fn a_title_is_one_plain_line_within_its_length() {
        assert_eq!(
            clean("\"Fix the flaky login test.\"\n", 80),
            "Fix the flaky login test"
        );
        assert_eq!(clean("**Title:** Port the parser", 80), "Port the parser");
        assert_eq!(
            clean("\n\n  Rename the crate  \nmore", 80),
            "Rename the crate"
        );
        assert_eq!(clean("abcdefghij", 4), "abcd");
        assert_eq!(
            clean("Port the parser to Rust now", 20),
            "Port the parser to"
        );
        assert_eq!(clean("   ", 80), "");
    }
}
