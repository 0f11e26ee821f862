//! The transcript as plain text for a terminal (`hotl sessions show`, a read-only snapshot):
//! stamps, turn ends with the cut that ends there, folds as notes with their handles, tool
//! output shortened; and the model view as the model reads it.

use std::io::{self, Write};

use hotl_log::{Block, plain_text};
use hotl_view::{Item, View, stamp};

/// Tool output longer than this many lines is shortened in the transcript.
const TOOL_LINES: usize = 12;

/// Writes the transcript: stamps on user messages and tool results, the end of each turn with
/// the stamp a cut there uses, folded spans as note and handle, and where a clear happened.
pub fn transcript(out: &mut impl Write, view: &View) -> io::Result<()> {
    let mut turn = 0;
    let mut clear_shown = view.model_after == 0;
    // What the items do not show goes where it happened: why a turn failed, where a revert
    // took turns back.
    let mut marks: Vec<(u64, String)> = view
        .failures
        .iter()
        .map(|f| (f.seq, failure_line(f)))
        .chain(view.reverts.iter().map(|r| {
            let turns = r.hidden_turns;
            (
                r.seq,
                format!(
                    "⟲ reverted to t{} ({turns} later turn{} hidden; the log keeps them)",
                    r.to,
                    if turns == 1 { "" } else { "s" }
                ),
            )
        }))
        .collect();
    marks.sort_by_key(|(seq, _)| *seq);
    let mut marks = marks.into_iter().peekable();
    let mut marks_until = |out: &mut dyn Write, until: u64| -> io::Result<()> {
        while let Some((_, mark)) = marks.next_if(|(seq, _)| *seq <= until) {
            writeln!(out, "{mark}")?;
        }
        Ok(())
    };
    for item in &view.items {
        if item.starts_turn() && turn > 0 {
            marks_until(out, view.turn_end_seq(turn))?;
            turn_end(out, view, turn)?;
        }
        marks_until(out, item.first_seq().saturating_sub(1))?;
        if !clear_shown && item.first_seq() > view.model_after {
            writeln!(
                out,
                "── context cleared at t{}: the model sees only what follows ──",
                view.model_after
            )?;
            clear_shown = true;
        }
        write_item(out, item, 0)?;
        let mut users = 0;
        item.for_each_user(&mut |_, _| users += 1);
        turn += users;
    }
    if turn > 0 && !view.open_turn {
        marks_until(out, view.turn_end_seq(turn))?;
        turn_end(out, view, turn)?;
    }
    marks_until(out, u64::MAX)?;
    if !clear_shown {
        writeln!(
            out,
            "── context cleared at t{}: the model sees nothing yet ──",
            view.model_after
        )?;
    }
    if view.open_turn {
        writeln!(out, "── turn {} is still open ──", view.turns)?;
    }
    Ok(())
}

fn failure_line(failure: &hotl_view::Failure) -> String {
    let status = failure
        .status
        .map(|s| format!(" (HTTP {s})"))
        .unwrap_or_default();
    format!(
        "✗ {} the turn failed: {}{status}: {}",
        stamp(failure.seq),
        failure.error,
        failure.message
    )
}

fn turn_end(out: &mut impl Write, view: &View, turn: usize) -> io::Result<()> {
    match view.boundaries.iter().find(|b| b.turns == turn) {
        Some(b) => writeln!(out, "── end of turn {turn} · t{} ──", b.seq),
        None => writeln!(out, "── end of turn {turn} ──"),
    }
}

fn write_item(out: &mut impl Write, item: &Item, depth: usize) -> io::Result<()> {
    let pad = "    ".repeat(depth);
    match item {
        Item::User { seq, content } => match content.as_slice() {
            [Block::Text { text }] if !text.contains('\n') => {
                writeln!(out, "{pad}{} user: {text}", stamp(*seq))?;
            }
            _ => {
                writeln!(out, "{pad}{} user:", stamp(*seq))?;
                write_blocks(out, content, &pad, None)?;
            }
        },
        Item::Assistant {
            content,
            model,
            stop,
            ..
        } => write_assistant(out, content, model.as_deref(), stop.as_deref(), &pad)?,
        Item::ToolResult {
            seq,
            call,
            content,
            is_error,
            blob,
        } => {
            let error = if *is_error { " error" } else { "" };
            writeln!(out, "{pad}{} tool result{error} ({call}):", stamp(*seq))?;
            write_tool_output(out, content, blob.as_deref(), &pad)?;
        }
        Item::Folded {
            handle,
            note,
            since,
            until,
            items,
        } => {
            writeln!(
                out,
                "{pad}⋯ folded {handle} (t{since}..t{until}, {} items):",
                items.iter().map(Item::original_count).sum::<usize>()
            )?;
            write_archive(out, note, items, &pad)?;
        }
        Item::Compacted {
            until,
            summary,
            items,
        } => {
            writeln!(
                out,
                "{pad}⋯ compacted through t{until} ({}):",
                hotl_view::compaction_handle(*until)
            )?;
            write_archive(out, summary, items, &pad)?;
        }
        Item::ChildReport {
            seq,
            handle,
            state,
            report,
        } => {
            writeln!(
                out,
                "{pad}{} background child {handle} {state}:",
                stamp(*seq)
            )?;
            write_text(out, report, &pad, None)?;
        }
        // `sessions show` projects the log: it never holds these.
        Item::Elided { count, .. } => writeln!(out, "{pad}⋯ {count} archived items")?,
    }
    Ok(())
}

/// An answer under the model that gave it, and how it ended when it ended short.
fn write_assistant(
    out: &mut impl Write,
    content: &[Block],
    model: Option<&str>,
    stop: Option<&str>,
    pad: &str,
) -> io::Result<()> {
    match model {
        Some(m) => writeln!(out, "{pad}assistant ({m}):")?,
        None => writeln!(out, "{pad}assistant:")?,
    }
    write_blocks(out, content, pad, None)?;
    // How an answer ended is worth a line when it did not end as an answer should.
    match stop {
        Some("refused") => writeln!(out, "{pad}  ⊘ the model refused to answer")?,
        Some("truncated") => writeln!(out, "{pad}  … cut at the output limit (max_tokens)")?,
        Some("interrupted") => writeln!(
            out,
            "{pad}  … interrupted: the connection to the provider broke mid-answer"
        )?,
        Some("error") => writeln!(out, "{pad}  ✗ the provider failed the response")?,
        Some("cancelled") => writeln!(out, "{pad}  … cancelled by the user mid-answer")?,
        _ => {}
    }
    Ok(())
}

/// A tool's output, cut to [`TOOL_LINES`], and the blob that keeps all of it when one does.
fn write_tool_output(
    out: &mut impl Write,
    content: &[Block],
    blob: Option<&str>,
    pad: &str,
) -> io::Result<()> {
    write_blocks(out, content, pad, Some(TOOL_LINES))?;
    if let Some(blob) = blob {
        writeln!(
            out,
            "{pad}  [full output: blob {}]",
            &blob[..blob.len().min(16)]
        )?;
    }
    Ok(())
}

/// What a fold or compaction says of the items it archives, and the user messages among them.
fn write_archive(out: &mut impl Write, note: &str, items: &[Item], pad: &str) -> io::Result<()> {
    for line in note.lines() {
        writeln!(out, "{pad}  {line}")?;
    }
    write_quoted_users(out, items, pad)
}

fn write_quoted_users(out: &mut impl Write, items: &[Item], pad: &str) -> io::Result<()> {
    let mut result = Ok(());
    for item in items {
        item.for_each_user(&mut |seq, content| {
            if result.is_ok() {
                let text = plain_text(content);
                let first = text.lines().next().unwrap_or("");
                result = writeln!(out, "{pad}  {} user: {first}", stamp(seq));
            }
        });
    }
    result
}

fn write_blocks(
    out: &mut impl Write,
    blocks: &[Block],
    pad: &str,
    max_lines: Option<usize>,
) -> io::Result<()> {
    for block in blocks {
        match block {
            Block::Text { text } => write_text(out, text, pad, max_lines)?,
            Block::Thinking { thinking, .. } => {
                writeln!(out, "{pad}  (thinking)")?;
                write_text(out, thinking, pad, Some(4))?;
            }
            Block::RedactedThinking { .. } => writeln!(out, "{pad}  (redacted thinking)")?,
            Block::ToolUse { id, name, input } => {
                writeln!(out, "{pad}  → {name} {input} ({id})")?;
            }
            Block::ToolResult {
                tool_use_id,
                content,
                ..
            } => {
                writeln!(out, "{pad}  ← {tool_use_id}")?;
                write_blocks(out, content, pad, max_lines)?;
            }
            Block::Image { media_type, .. } => writeln!(out, "{pad}  [image {media_type}]")?,
            Block::Unknown { kind } => writeln!(out, "{pad}  [{kind} block]")?,
        }
    }
    Ok(())
}

fn write_text(
    out: &mut impl Write,
    text: &str,
    pad: &str,
    max_lines: Option<usize>,
) -> io::Result<()> {
    let total = text.lines().count();
    let shown = max_lines.unwrap_or(usize::MAX);
    for line in text.lines().take(shown) {
        writeln!(out, "{pad}  {line}")?;
    }
    if total > shown {
        writeln!(out, "{pad}  … {} more lines", total - shown)?;
    }
    Ok(())
}
