//! A tool result never takes more than a share of the room the model's window leaves: on a
//! small window (a local model's 4K, say) one `read` of a long file would otherwise fill it
//! alone, and every later turn would compact and be refused. What does not fit is kept whole in
//! a blob, one `read` away, and the model sees the result's head and tail around a pointer.
//! On a large window the tools' own caps are far below this share ([`Settings::result_share`]
//! of the room), so nothing changes there.
//!
//! [`Settings::result_share`]: crate::Settings::result_share

use hotl_tool::ToolOutput;

use super::Session;
use crate::context::Context;

/// The least a result may keep whatever the window: below it a result says nothing useful.
const FLOOR_TOKENS: u64 = 200;

/// Characters a token is counted as (as the rest of hotl estimates).
const CHARS_PER_TOKEN: u64 = 4;

impl Session {
    /// `output` as the model should get it on this session's window: as it is when it fits
    /// its share, else cut to its head and tail with the whole of it in a blob.
    pub(super) fn fit_to_window(&self, mut output: ToolOutput, cx: &Context) -> ToolOutput {
        let (window, share) = (cx.settings.context_window, cx.settings.result_share);
        if window == 0 || share == 0 {
            return output;
        }
        let room = window.saturating_sub(self.fixed_tokens());
        let budget = (room / share).max(FLOOR_TOKENS) * CHARS_PER_TOKEN;
        let budget = usize::try_from(budget).unwrap_or(usize::MAX);
        if output.content.len() <= budget {
            return output;
        }
        let text = std::mem::take(&mut output.content);
        // The whole result: the blob the tool already kept, else a new one.
        let pointer = match output.blob.clone() {
            Some(hash) => Ok(hash),
            None => self.store.blobs().put(text.as_bytes()),
        };
        let pointer = match pointer {
            Ok(hash) => {
                output.blob = Some(hash.clone());
                format!("read {}", hotl_tool::blob_ref(&hash))
            }
            Err(e) => format!("the full output could not be stored: {e}"),
        };
        output.content = cut(&text, budget, window, &pointer);
        output
    }
}

/// `text` cut to about `budget` characters: three quarters from its start, a quarter from its
/// end, each at a line's end when one is near, around a line saying what was left out.
fn cut(text: &str, budget: usize, window: u64, pointer: &str) -> String {
    let head_end = line_end_before(text, floor(text, budget * 3 / 4));
    let tail_start = line_start_after(text, ceil(text, text.len() - budget / 4)).max(head_end);
    let left = &text[head_end..tail_start];
    format!(
        "{}\n[… {} lines ({} characters) left out to fit the model's {window}-token window; {pointer}]\n{}",
        text[..head_end].trim_end_matches('\n'),
        left.lines().count(),
        left.chars().count(),
        &text[tail_start..]
    )
}

/// The end of the last whole line at or before `at`, unless that drops more than half of it.
fn line_end_before(text: &str, at: usize) -> usize {
    match text[..at].rfind('\n') {
        Some(nl) if nl + 1 >= at / 2 => nl + 1,
        _ => at,
    }
}

/// The start of the first whole line at or after `at`, unless that is far.
fn line_start_after(text: &str, at: usize) -> usize {
    match text[at..].find('\n') {
        Some(nl) if nl < (text.len() - at) / 2 => at + nl + 1,
        _ => at,
    }
}

fn floor(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn ceil(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_text_keeps_its_head_and_tail_within_its_budget() {
        let text: String = (0..1000).map(|i| format!("line {i}\n")).collect();
        let out = cut(&text, 800, 4096, "read blob:x");
        assert!(out.starts_with("line 0\n"), "{out}");
        assert!(out.ends_with("line 999\n"), "{out}");
        assert!(out.len() < 1000, "{}", out.len());
        assert!(out.contains("left out to fit the model's 4096-token window"));
        let multibyte = "é".repeat(3000);
        let out = cut(&multibyte, 500, 4096, "p");
        assert!(out.len() < 700, "{}", out.len());
    }
}
