//! The moves on the session's own context, as tools: `fold`, `recall`, `ask` and `fork`, and
//! the pieces they share (stamps, the note template, handles, what a fork and an ask are told).
//!
//! Each tool only reads its arguments and hands them to the session it runs in (through the
//! invocation's host): the work itself needs the log, so it lives in `session/`.

mod ask;
pub mod cancel_tool;
pub mod continue_tool;
mod fold;
mod fork;
mod recall;
pub mod spawn;

use std::sync::Arc;

use hotl_log::{Body, FileTouch, Fold, Record};
use hotl_view::{FoldSpan, NOTE_HEADINGS, missing_headings};

use crate::session::Started;
use crate::session_tool::{OnSession, SessionCall};
use hotl_tool::{Tool, ToolOutput};

/// The moves, in the order the model sees them: fold, recall, ask, fork.
pub(crate) fn tools() -> Vec<Arc<dyn Tool>> {
    vec![
        OnSession::entry(fold::FoldTool),
        OnSession::entry(recall::RecallTool),
        OnSession::entry(ask::AskTool),
        OnSession::entry(fork::ForkTool),
    ]
}

/// Answers a delegating call made alone (through [`Tool::run`]): what `started` gave, or its
/// child run to its end here.
pub(crate) async fn run_alone(call: &mut SessionCall<'_>, started: Started) -> ToolOutput {
    let host = call.host();
    match started {
        Started::Answered(output) => output,
        Started::Child(child) => host.session.run_child_here(child, host.cx).await,
    }
}

/// Parses a recall mode as the model or a person writes it.
pub fn recall_mode(name: Option<&str>) -> Result<hotl_recall::Mode, String> {
    match name.unwrap_or("ranked") {
        "ranked" | "" => Ok(hotl_recall::Mode::Ranked),
        "exact" => Ok(hotl_recall::Mode::Exact),
        "regex" => Ok(hotl_recall::Mode::Regex),
        other => Err(format!(
            "unknown recall mode {other:?}; use ranked, exact or regex"
        )),
    }
}

/// What a fork is told in answer to the call that made it.
pub fn fork_brief(task: &str) -> String {
    format!(
        "You are a fork of this session: everything above is your own history. Work on this \
         task with the same tools; your final message returns to the session that forked you \
         as the result of this call, so make it the report they need.\n\nTask: {task}"
    )
}

/// What the thread is told when it is asked.
pub fn ask_prompt(question: &str) -> String {
    format!(
        "[ask] Someone working later in this session asks you one question about the work above. \
         Tools are unavailable for this question: do not call any; answer from the conversation \
         above only, briefly.\n\nQuestion: {question}"
    )
}

/// Checks a note against the template; the error lists what is missing.
pub fn check_note(note: &str) -> Result<(), String> {
    let missing = missing_headings(note);
    if missing.is_empty() {
        return Ok(());
    }
    if missing.len() == NOTE_HEADINGS.len() {
        return Err(format!(
            "the note has none of the template's lines; write one line starting with each of: {}",
            NOTE_HEADINGS.join(" ")
        ));
    }
    Err(format!(
        "the note lacks {} (the template's lines are {})",
        missing.join(", "),
        NOTE_HEADINGS.join(" ")
    ))
}

/// A handle for a new archived thread: 4 hex digits of `seed`'s hash, longer on a clash with
/// `taken` (the handles already known in the tree). Its length never changes once written,
/// since it is in cached bytes.
pub fn unique_handle(seed: &str, taken: &[String]) -> String {
    let digest = blake3::hash(seed.as_bytes()).to_hex();
    let mut len = 4;
    while taken.iter().any(|t| *t == digest[..len]) && len < digest.len() {
        len += 2;
    }
    digest[..len].to_owned()
}

/// The fold record for `span`: a handle unique among `taken`, and the files the span's tool
/// results on the visible branch (`visible`, as `hotl_log::visible_mask` gives it) touched,
/// each path once, with the last touch: what the span left.
pub fn make_fold(
    records: &[Record],
    visible: &[bool],
    span: &FoldSpan,
    note: &str,
    taken: &[String],
) -> Fold {
    let handle = unique_handle(&format!("{}:{}:{note}", span.since, span.until), taken);
    let mut files: Vec<FileTouch> = Vec::new();
    for (record, _) in records.iter().zip(visible).filter(|(_, v)| **v) {
        if let Body::ToolResult { files: touched, .. } = &record.body
            && (span.since..=span.until).contains(&record.seq)
        {
            for f in touched {
                match files.iter_mut().find(|known| known.path == f.path) {
                    Some(known) => *known = f.clone(),
                    None => files.push(f.clone()),
                }
            }
        }
    }
    Fold {
        since: span.since,
        until: span.until,
        handle,
        note: note.trim().to_owned(),
        files,
        diff_blob: None,
    }
}

#[cfg(test)]
mod tests {
    use hotl_log::{Block, FileTouch};

    use super::*;

    fn result(seq: u64, path: &str, hash: &str) -> Record {
        Record::new(
            seq,
            "T",
            Body::ToolResult {
                call: format!("c{seq}"),
                content: vec![Block::text("ok")],
                blob: None,
                is_error: false,
                files: vec![FileTouch {
                    path: path.into(),
                    op: "write".into(),
                    hash: Some(hash.into()),
                }],
            },
        )
    }

    #[test]
    fn a_fold_lists_each_visible_touch_once_with_the_last_state() {
        let records = [
            result(3, "a.rs", "01"),
            result(4, "gone.rs", "02"),
            result(5, "a.rs", "03"),
            result(9, "outside.rs", "04"),
        ];
        let span = FoldSpan {
            since: 3,
            until: 5,
            users: vec![],
        };
        // Record 4 is on a reverted branch.
        let fold = make_fold(&records, &[true, false, true, true], &span, "n", &[]);
        let files: Vec<(&str, Option<&str>)> = fold
            .files
            .iter()
            .map(|t| (t.path.as_str(), t.hash.as_deref()))
            .collect();
        assert_eq!(files, [("a.rs", Some("03"))]);
    }

    #[test]
    fn a_handle_grows_past_a_clash_and_keeps_its_length_otherwise() {
        let first = unique_handle("seed", &[]);
        assert_eq!(first.len(), 4);
        let second = unique_handle("seed", std::slice::from_ref(&first));
        assert_eq!(second.len(), 6);
        assert!(second.starts_with(&first));
    }
}
