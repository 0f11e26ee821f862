//! A root session's title, written once after its first answer by the fast model (or the
//! session's own, whose prompt cache the request then reads): a few words saying what the
//! session is about, for lists, pickers and exports. Delegated sessions are titled by their
//! task when they start and never come here.

use hotl_log::Body;
use hotl_view::model_view;

use super::Session;
use crate::context::Context;
use crate::error::Result;

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

impl Session {
    /// Titles this session from its opening exchange when it is a root that has none yet and
    /// has just had its first answer; the title written, or `None` when none was due.
    pub(crate) async fn title_after_first_answer(
        &mut self,
        cx: &Context,
    ) -> Result<Option<String>> {
        let Some(title) = cx.settings.title.clone() else {
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
        let cx = match &title.model {
            Some(model) => {
                let mut settings = (*cx.settings).clone();
                settings.model.clone_from(model);
                cx.clone().with_settings(settings)
            }
            None => cx.clone(),
        };
        let messages = model_view(&self.view);
        let words = self
            .ask_for_words(
                &messages,
                &prompt,
                Some(TITLE_MAX_TOKENS),
                "tools are unavailable for a title; answer with the title in words",
                &cx,
            )
            .await?;
        drop(messages);
        self.account_words(&words, &cx);
        let text = clean(&words.text, title.max_chars);
        if text.is_empty() {
            return Ok(None);
        }
        self.append(Body::Title {
            title: text.clone(),
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
