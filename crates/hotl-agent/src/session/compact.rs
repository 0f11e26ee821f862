//! Compaction, the fallback when the context window fills: everything the model sees so far
//! becomes one note (the span stays archived, searchable by recall), written by the model in
//! the fold template. Folding finished episodes keeps a session far from this; compaction is
//! for the long turn nobody folded.

use hotl_log::{Block, Body};
use hotl_view::{Item, model_view};
use hotl_wire::Overflow;

use super::fit::{Fitted, fit};
use super::requests::message_bytes;
use super::rules::Need;
use super::{Session, Settings};
use crate::context::Context;
use crate::error::{AgentError, Result};

pub use hotl_protocol::COMPACT_AT_PERCENT;

/// The context window of `model`, in tokens, when its family is known; else a conservative
/// 128K (a local server is asked for its own, see [`known_context_window`]; `context_window`
/// in the config says it for any model).
pub fn default_context_window(model: &str) -> u64 {
    known_context_window(model).unwrap_or(128_000)
}

/// The context window of `model` when its family says it.
pub fn known_context_window(model: &str) -> Option<u64> {
    let model = model.to_ascii_lowercase();
    if model.contains("claude") {
        Some(200_000)
    } else if model.starts_with("gpt-4.1") {
        Some(1_000_000)
    } else if model.starts_with("gpt-5") {
        Some(400_000)
    } else if model.starts_with("o3") || model.starts_with("o4") {
        Some(200_000)
    } else {
        None
    }
}

impl Session {
    /// About how many tokens the next request holds: what the provider counted for the last
    /// answer (input, cache reads and writes, and what it wrote but its reasoning), plus about
    /// a token per 4 bytes of what came after it. 0 when unknown: no answer since the latest
    /// fold, compaction, clear or revert (those shrank what the count measured).
    pub fn context_used(&self) -> u64 {
        let mut after = 0u64;
        for item in self.view.items.iter().rev() {
            match item {
                Item::Assistant {
                    seq,
                    usage: Some(u),
                    ..
                } if *seq > self.shrunk_at => {
                    return request_tokens(u) + u.output.saturating_sub(u.thinking) + after / 4;
                }
                Item::User { .. } | Item::ToolResult { .. } => after += item_bytes(item),
                _ => return 0,
            }
        }
        0
    }

    /// [`Session::context_used`], or when that is unknown (a broken or cancelled answer, a
    /// shrink since the last answer) the request's bytes counted as tokens: never a false 0.
    pub fn context_estimate(&self) -> u64 {
        match self.context_used() {
            0 => {
                let messages = hotl_view::model_view(&self.view);
                (self.fixed_bytes() + super::requests::message_bytes(&messages)) as u64 / 4
            }
            used => used,
        }
    }

    /// Whether to compact before the next request: when it comes within
    /// [`COMPACT_AT_PERCENT`] of `settings.context_window`, unless a compaction since the
    /// latest user message could not bring it below that (what it keeps, the system prompt,
    /// tools and the user's own messages, already fills the window): compacting again would
    /// not help.
    pub(super) fn needs_compaction(&self, settings: &Settings) -> Need {
        let near = |tokens: u64| tokens * 100 >= settings.context_window * COMPACT_AT_PERCENT;
        if settings.context_window == 0 || !near(self.context_used()) {
            return Need::No;
        }
        let floor = self
            .view
            .items
            .iter()
            .rposition(|i| matches!(i, Item::Compacted { .. }))
            // One the model still sees, made in this turn: a later message would be capped by
            // a new compaction (only the last is kept whole), so that one may help.
            .filter(|&at| self.view.items[at].last_seq() > self.view.model_after)
            .filter(|&at| {
                !self.view.items[at..]
                    .iter()
                    .any(|i| matches!(i, Item::User { .. }))
            })
            .and_then(|at| {
                self.view.items[at..].iter().find_map(|i| match i {
                    Item::Assistant { usage: Some(u), .. } => Some(request_tokens(u)),
                    _ => None,
                })
            });
        match floor {
            Some(floor) if near(floor) => Need::Futile(floor),
            _ => Need::Yes,
        }
    }

    /// Compacts everything the model sees so far into one note the model writes (the fold
    /// template), recorded as a `compaction` up to the head; the span stays archived. Refused
    /// while a tool call waits for its result. Returns the seq compacted through.
    pub async fn compact(&mut self, cx: &Context) -> Result<u64> {
        let until = self.compaction_end()?;
        let used = self.context_used();
        cx.notice(match (used * 100).checked_div(cx.settings.context_window) {
            // Nothing answered since the context last shrank: no count measures it yet.
            Some(percent) if used > 0 => {
                format!("compacting: the context is about {percent}% of the window")
            }
            _ => {
                "compacting: how full the context is will be known after the next answer".to_owned()
            }
        });
        self.write_compaction(until, None, cx).await
    }

    /// Compacts after the provider refused a request as longer than the model's window: the
    /// note request leaves out the oldest steps, as many as the provider's counts say.
    pub(super) async fn compact_overflowed(
        &mut self,
        overflow: Overflow,
        cx: &Context,
    ) -> Result<u64> {
        let until = self.compaction_end().map_err(|e| match e {
            AgentError::Compaction(why) => AgentError::WindowFull(why),
            e => e,
        })?;
        cx.notice(
            "the provider refused the request as longer than the model's context window; \
             compacting",
        );
        let budget = self.budget_after(message_bytes(&model_view(&self.view)), overflow);
        self.write_compaction(until, Some(budget), cx).await
    }

    /// Has the model write the note and records the compaction through `until`. `budget`:
    /// the bytes the request's messages may take (`None`: all of them); to fit it, whole
    /// steps are left out from the oldest (after the first message) and the longest texts
    /// shortened to their head and tail (see `fit.rs`); all of it stays archived. A note
    /// request the provider refuses as too long is sent again fitted tighter, as its counts
    /// say, at most four times; when nothing more can go, the error names the largest item
    /// and the ways out.
    async fn write_compaction(
        &mut self,
        until: u64,
        mut budget: Option<usize>,
        cx: &Context,
    ) -> Result<u64> {
        let mut last = None;
        for _ in 0..4 {
            let mut messages = model_view(&self.view);
            let fitted = match budget {
                Some(budget) => fit(&mut messages, budget),
                None => Fitted {
                    sent: message_bytes(&messages),
                    ..Fitted::default()
                },
            };
            drop(messages);
            if last.as_ref() == Some(&fitted) {
                // Nothing more can go: the same request would be refused again.
                break;
            }
            let ask = compaction_ask(until, &fitted);
            let sent = fitted.sent;
            last = Some(fitted);
            match self.request_note(ask, cx, budget, sent).await {
                Ok((summary, fits)) => {
                    let id = self.id().to_owned();
                    fits.map_err(|why| refused_note(&id, why))?;
                    return self.record_compaction(summary);
                }
                Err(AgentError::Wire(e)) => match e.context_overflow() {
                    Some(overflow) => budget = Some(self.budget_after(sent, overflow)),
                    None => return Err(AgentError::Wire(e)),
                },
                Err(e) => return Err(e),
            }
        }
        Err(AgentError::WindowFull(format!(
            "the request for its note is too long for the window even with the oldest steps \
             left out and long texts shortened{}",
            self.largest_item()
                .map(|largest| format!(": {largest}"))
                .unwrap_or_default()
        )))
    }

    /// What the messages of a request that was refused as `overflow` may take to fit: the
    /// share of the whole request its counts say fits (half when they say nothing), with a
    /// margin, less the system prompt and tools, which every request carries whole.
    fn budget_after(&self, sent: usize, overflow: Overflow) -> usize {
        let fixed = self.fixed_bytes();
        shrink(fixed + sent, overflow).saturating_sub(fixed)
    }

    /// The largest item the model sees, named for the user with the ways out: `the tool
    /// result at t41 is ~5,800 tokens; ...`.
    pub(super) fn largest_item(&self) -> Option<String> {
        let (item, bytes) = self
            .view
            .items
            .iter()
            .filter(|i| i.last_seq() > self.view.model_after)
            .map(|i| (i, item_bytes(i)))
            .max_by_key(|(_, bytes)| *bytes)?;
        let (what, seq) = match item {
            Item::User { seq, .. } => ("your message", *seq),
            Item::ToolResult { seq, .. } => ("the tool result", *seq),
            Item::Assistant { seq, .. } => ("the model's answer", *seq),
            Item::ChildReport { seq, .. } => ("a background child's report", *seq),
            Item::Folded { since, .. } => ("a fold's note", *since),
            Item::Compacted { until, .. } => ("the compaction's note", *until),
            // Never at the top of a view: only inside a span.
            Item::Elided { last, .. } => ("archived items", *last),
        };
        let id = self.id();
        Some(format!(
            "{what} at t{seq} is ~{} tokens (ways out: write the note yourself, hotl compact {id} \
             --note-file FILE; or take that step back, hotl sessions revert {id} --to t{})",
            hotl_text::thousands(bytes / 4),
            seq.saturating_sub(1)
        ))
    }

    /// Records a compaction of everything the model sees, with `summary` as its note (a
    /// person's, from the shell). Returns the seq compacted through.
    pub fn record_compaction(&mut self, summary: String) -> Result<u64> {
        let until = self.compaction_end()?;
        self.append(Body::Compaction { until, summary })?;
        Ok(until)
    }

    /// Where a compaction now would end: the head, once no tool call waits for its result.
    fn compaction_end(&self) -> Result<u64> {
        let Some(until) = self
            .view
            .items
            .last()
            .map(Item::last_seq)
            .filter(|&until| until > self.view.model_after)
        else {
            return Err(AgentError::Compaction(
                "there is nothing to compact (nothing since the latest clear)".to_owned(),
            ));
        };
        if let Some(Item::Compacted { until, .. }) = self.view.items.last() {
            return Err(AgentError::Compaction(format!(
                "there is nothing to compact since the last compaction (through t{until})"
            )));
        }
        if let Some((call, _)) = self.open_calls().into_iter().next() {
            return Err(AgentError::Compaction(format!(
                "the tool call {call} has no result yet"
            )));
        }
        Ok(until)
    }
}

/// What the model is asked for a compaction's note; `left_out`: messages left out of the
/// request to fit the window.
fn compaction_ask(until: u64, fitted: &Fitted) -> String {
    let mut ask = format!(
        "[compaction] To free the context window, write the note that will replace \
         everything above (through t{until}) in your context; the user's messages are kept \
         word for word beside it, and the rest stays archived for recall. Tools are \
         unavailable: reply with the note only, one line each starting with changed:, \
         learned: (with caveats), decided and rejected:, open: (the task in progress and its \
         next step), where:"
    );
    if fitted.left_out > 0 {
        ask.push_str(&format!(
            "\n({} earlier messages after the first are left out of this request to fit the \
             window; they stay archived, so say in where: that recall finds them.)",
            fitted.left_out
        ));
    }
    if fitted.shortened > 0 {
        ask.push_str(&format!(
            "\n({} long texts above are shortened to their head and tail to fit the window; \
             the whole texts stay archived.)",
            fitted.shortened
        ));
    }
    ask
}

/// A note that does not fit the template (a reply that went on working instead) would
/// replace the context with nothing useful: better none.
fn refused_note(id: &str, why: String) -> AgentError {
    AgentError::Compaction(format!(
        "the model's note was refused: {why} (write the note yourself: hotl compact {id} \
         --note-file FILE)"
    ))
}

/// `bytes` cut to what should fit after `overflow`: the share its counts give (half when it
/// gave none), with a margin for the system prompt, the tools and the note request.
fn shrink(bytes: usize, overflow: Overflow) -> usize {
    (bytes as f64 * overflow.fitting_share().unwrap_or(0.5) * 0.8) as usize
}

/// The tokens a request held, as the provider counted them.
fn request_tokens(u: &hotl_log::Usage) -> u64 {
    u.input + u.cache_read + u.cache_write
}

/// About how many bytes of text an item adds to a request.
pub(super) fn item_bytes(item: &Item) -> u64 {
    let blocks = match item {
        Item::User { content, .. } | Item::ToolResult { content, .. } => content,
        Item::Assistant { content, .. } => content,
        Item::Folded { note, .. } => return note.len() as u64,
        Item::Compacted { summary, .. } => return summary.len() as u64,
        Item::ChildReport { report, .. } => return report.len() as u64 + 64,
        // Never sent: only inside a span, whose text is its note.
        Item::Elided { .. } => return 0,
    };
    blocks
        .iter()
        .map(|b| match b {
            Block::Text { text } => text.len() as u64,
            other => serde_json::to_string(other).map_or(0, |s| s.len() as u64),
        })
        .sum()
}
