//! The sentences a user reads, one function for every front end: [`describe`] turns an event
//! (a command's end among them) into what the terminal UI, the line console and an editor
//! say. A front end may draw more (a fold as a card, a model list as a picker), never other
//! words.

use crate::context::context_text;
use crate::done::{Done, Failure, FailureKind, Outcome};
use crate::event::{Event, MoveResult, Status, SwitchReason, tools_added_line};
use crate::turn::TurnOutcome;

/// How a sentence is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    /// Something that happened (dim).
    Info,
    /// Something that went wrong.
    Error,
    /// What the user asked to see (a table, hits, an answer): shown as it is.
    Output,
}

/// A sentence and how to show it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Said {
    /// The words (may be several lines).
    pub text: String,
    /// How to show them.
    pub tone: Tone,
}

impl Said {
    fn info(text: impl Into<String>) -> Option<Said> {
        Some(Said {
            text: text.into(),
            tone: Tone::Info,
        })
    }

    fn output(text: impl Into<String>) -> Option<Said> {
        Some(Said {
            text: text.into(),
            tone: Tone::Output,
        })
    }

    fn error(text: impl Into<String>) -> Option<Said> {
        Some(Said {
            text: text.into(),
            tone: Tone::Error,
        })
    }
}

/// What a user reads of `event`, or nothing (stream text, tool calls and status are drawn,
/// not said). `status` is the latest status, for the context's share of the window.
pub fn describe(event: &Event, status: Option<&Status>) -> Option<Said> {
    match event {
        Event::Notice { message } => Said::info(message.clone()),
        Event::ToolsAdded { tools } => Said::info(tools_added_line(tools)),
        Event::Switch {
            reason,
            to,
            title,
            turns,
            ..
        } => Said::info(switched(*reason, to, title.as_deref(), *turns)),
        Event::Done(done) => done_said(done, status),
        _ => None,
    }
}

/// What a user reads of how a command ended.
pub fn done_said(done: &Done, status: Option<&Status>) -> Option<Said> {
    match &done.result {
        Ok(outcome) => outcome_said(outcome, status),
        Err(failure) => failure_said(failure),
    }
}

fn switched(reason: SwitchReason, to: &str, title: Option<&str>, turns: usize) -> String {
    let title = title.map(|t| format!(" · {t}")).unwrap_or_default();
    let turns = hotl_text::plural(turns, "turn");
    match reason {
        SwitchReason::New => format!("new session {to} (written with its first message)"),
        SwitchReason::Fork => {
            format!("forked into {to}{title} · {turns} kept; the original is untouched")
        }
        SwitchReason::Resume => format!("resumed {to}{title} · {turns}"),
    }
}

fn outcome_said(outcome: &Outcome, status: Option<&Status>) -> Option<Said> {
    match outcome {
        Outcome::TurnEnded(turn) if turn.cancelled => Said::info("cancelled; the session is kept"),
        Outcome::Recovered { outcome: Some(_) } => {
            Said::info("finished the turn a stopped process left open")
        }
        Outcome::MoveEnded(result) => moved(result),
        Outcome::Renamed { name } => Said::info(format!("named {name}")),
        Outcome::ModeChanged { mode } => Said::info(format!("mode: {mode}")),
        Outcome::Cleared { seq } => Said::info(format!(
            "cleared: the model sees nothing before t{seq} (the log keeps it)"
        )),
        Outcome::Reverted {
            before,
            to,
            scope,
            files,
            ..
        } => Said::info(reverted(*before, *to, *scope, files)),
        Outcome::Undone { files } => Said::info(undone(files)),
        Outcome::Models { models, .. } if models.is_empty() => {
            Said::error("the provider lists no models; /model NAME switches by name")
        }
        Outcome::Models { models, current } => Said::output(
            models
                .iter()
                .map(|m| format!("{} {m}", if m == current { "*" } else { " " }))
                .chain(std::iter::once("/model NAME switches".to_owned()))
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        Outcome::ModelChanged { from, to } => Said::info(format!(
            "model: {to} from the next request on (was {from}); its prompt cache starts cold"
        )),
        Outcome::EffortChanged { effort } => Said::info(format!(
            "effort: {effort} from the next request on (recorded: resumes and forks keep it)"
        )),
        Outcome::Context(parts) => Said::output(context_text(parts, status)),
        Outcome::Stats(stats) => Said::output(stats.table().trim_end().to_owned()),
        Outcome::Dump(dump) => Said::info(format!(
            "copied the session as the model sees it ({} lines: prompt, tools, messages)",
            dump.text().lines().count()
        )),
        Outcome::Fresh {
            cache_key,
            routed: true,
            forgotten,
        } => Said::info(format!(
            "fresh: new prompt-cache key {cache_key}; {forgotten} kept encodings dropped"
        )),
        Outcome::Fresh { forgotten, .. } => Said::info(format!(
            "fresh: only local provider state was dropped ({forgotten} kept encodings); this \
             provider caches by prefix and has no key"
        )),
        Outcome::Dropped {
            session_id,
            kept_for,
        } if kept_for.is_empty() => Said::info(format!("dropped {session_id}")),
        Outcome::Dropped {
            session_id,
            kept_for,
        } => Said::info(format!(
            "{session_id} is hidden and kept for the sessions that descend from it: {}",
            kept_for.join(", ")
        )),
        Outcome::TurnEnded(_)
        | Outcome::Recovered { outcome: None }
        | Outcome::Status(_)
        | Outcome::Switched { .. }
        | Outcome::Accepted { .. } => None,
    }
}

fn moved(result: &MoveResult) -> Option<Said> {
    match result {
        MoveResult::Folded {
            since,
            until,
            handle,
            note,
            ..
        } => Said::info(format!(
            "folded t{since}..t{until} into handle {handle}\n{}",
            note.trim_end()
        )),
        MoveResult::Compacted { until, handle } => Said::info(format!(
            "compacted through t{until}; the span stays archived as {handle} (/recall finds it, \
             /ask takes it)"
        )),
        MoveResult::Recalled { text } | MoveResult::Answered { text } => {
            Said::output(text.trim_end().to_owned())
        }
    }
}

fn failure_said(failure: &Failure) -> Option<Said> {
    if failure.kind == FailureKind::Cancelled {
        return Said::info(format!(
            "{} cancelled; nothing was recorded",
            failure.command
        ));
    }
    let what = match failure.command.as_str() {
        "submit" | "recover" => "the turn failed".to_owned(),
        "switch" => "could not switch".to_owned(),
        other => format!("{other} failed"),
    };
    Said::error(format!("{what}: {}", failure.message))
}

/// The line under a finished turn: tokens in and out, the share read from the cache, dollars
/// (`↳ 12.3k in · 450 out · 93% cached · $0.0123`); none when nothing was spent.
pub fn turn_footer(turn: &TurnOutcome) -> Option<String> {
    let mut parts = Vec::new();
    let u = &turn.usage;
    let input = u.input + u.cache_read + u.cache_write_5m + u.cache_write_1h;
    if input + u.output > 0 {
        parts.push(format!(
            "{} in · {} out",
            hotl_text::tokens(input),
            hotl_text::tokens(u.output)
        ));
        if let Some(share) = (u.cache_read * 100).checked_div(input) {
            parts.push(format!("{share}% cached"));
        }
    }
    if let Some(cost) = turn.cost {
        parts.push(format!("${cost:.4}"));
    }
    (!parts.is_empty()).then(|| format!("↳ {}", parts.join(" · ")))
}

/// What this process spent, in one line (`/cost` before the session is on disk, and under
/// `/cost`'s table).
pub fn spent_line(status: Option<&Status>) -> String {
    let Some(s) = status else {
        return "nothing spent yet".to_owned();
    };
    let u = &s.usage;
    format!(
        "${:.4}{} in {} · input {} · cache read {} · cache write {} · output {}{}",
        s.cost,
        if s.this_run { " this run" } else { "" },
        hotl_text::plural(s.requests as usize, "request"),
        hotl_text::tokens(u.input),
        hotl_text::tokens(u.cache_read),
        hotl_text::tokens(u.cache_write_5m + u.cache_write_1h),
        hotl_text::tokens(u.output),
        s.cache_hit
            .map(|h| format!(" · last request {:.0}% cached", h * 100.0))
            .unwrap_or_default()
    )
}

/// What `/effort` says of the level in force.
pub fn effort_line(status: Option<&Status>) -> String {
    match status.and_then(|s| s.effort.as_deref()) {
        Some(level) => format!(
            "effort: {level} (recorded in this session; /effort low|medium|high changes it)"
        ),
        None => "effort: the model's default (/effort low|medium|high sets one)".to_owned(),
    }
}

/// What undoing the last code restore did, file by file.
pub fn undone(files: &[crate::FileRewound]) -> String {
    let mut said =
        "undid the last restore: the files it changed are as they were before it".to_owned();
    if files.is_empty() {
        said.push_str("\n  no file needed it");
    }
    push_files(&mut said, files);
    said
}

/// What a revert did: to the conversation, then to each file the later turns changed.
pub fn reverted(
    before: u64,
    to: u64,
    scope: crate::RevertScope,
    files: &[crate::FileRewound],
) -> String {
    use crate::Rewound;
    let mut said = if scope.conversation() {
        format!("reverted to t{to}: t{before} and later turns are hidden (the log keeps them)")
    } else {
        format!("put the code back as it was at t{to}; the conversation goes on")
    };
    if scope.code() {
        if files.is_empty() {
            said.push_str("\n  no file changed since then");
        }
        push_files(&mut said, files);
        if files
            .iter()
            .any(|f| f.what == Rewound::Restored || f.what == Rewound::Removed)
        {
            said.push_str("\n  (/revert undo puts them back)");
        }
    }
    said
}

/// A line per file: its path and what became of it.
fn push_files(said: &mut String, files: &[crate::FileRewound]) {
    use crate::Rewound;
    for file in files {
        let what = match &file.what {
            Rewound::Restored => "restored".to_owned(),
            Rewound::Removed => "removed (it did not exist then)".to_owned(),
            Rewound::Kept(why) => format!("kept: {why}"),
        };
        said.push_str(&format!("\n  {} {what}", file.path));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_are_said_by_their_command_and_cancellations_apart() {
        let failed = Done::failed(Failure::new("submit", FailureKind::StepLimit, "too long"));
        assert_eq!(
            done_said(&failed, None),
            Said::error("the turn failed: too long")
        );
        let cancelled = Done::failed(Failure::cancelled("fold"));
        assert_eq!(
            done_said(&cancelled, None),
            Said::info("fold cancelled; nothing was recorded")
        );
    }

    #[test]
    fn a_turn_footer_counts_what_was_spent() {
        let mut turn = TurnOutcome::default();
        assert_eq!(turn_footer(&turn), None);
        turn.usage.input = 1_000;
        turn.usage.cache_read = 9_000;
        turn.usage.output = 450;
        turn.cost = Some(0.0123);
        assert_eq!(
            turn_footer(&turn).as_deref(),
            Some("↳ 10.0k in · 450 out · 90% cached · $0.0123")
        );
    }
}
