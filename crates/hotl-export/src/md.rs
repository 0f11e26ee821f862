//! A session as Markdown: messages as they were written, tool calls and results in fences
//! that stay valid (a fence longer than any run of backticks inside), folds and compactions
//! as quoted notes followed by what they archived (in a section the reader opens), turn ends
//! as rules.

use std::fmt::Write as _;

use hotl_log::{Block, plain_text};
use hotl_view::Item;

use crate::doc::SessionInfo;
use crate::html::tools;
use crate::snapshot::Snapshot;

/// The Markdown of a snapshot.
pub fn render(snapshot: &Snapshot) -> String {
    let info = SessionInfo::of(snapshot);
    let view = hotl_view::project(&snapshot.records, snapshot.own_start);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# {}\n",
        hotl_text::first_line(&info.heading(snapshot))
    );
    let _ = writeln!(out, "- session: `{}`", info.id);
    if !info.cwd.is_empty() {
        let _ = writeln!(out, "- directory: `{}`", info.cwd);
    }
    if !info.models.is_empty() {
        let _ = writeln!(out, "- models: {}", info.models.join(", "));
    }
    let _ = writeln!(out, "- turns: {}", info.turns);
    if let Some(e) = &snapshot.economy {
        let _ = writeln!(out, "- spent: {}", e.total.line(!e.unpriced.is_empty()));
    }
    out.push('\n');
    let results = crate::html::transcript::pair_results(&view.items);
    let paired = paired(&results);
    let mut turn = 0;
    for item in &view.items {
        if matches!(item, Item::User { .. }) && turn > 0 {
            let _ = writeln!(out, "---\n");
        }
        if matches!(item, Item::User { .. }) {
            turn += 1;
        }
        write_item(&mut out, item, &results, &paired);
    }
    out
}

/// Tool results by (the answer's seq, the call's id).
type Results<'a> = std::collections::HashMap<(u64, &'a str), &'a Item>;

/// The seqs of the results shown with their calls.
fn paired(results: &Results) -> std::collections::HashSet<u64> {
    results.values().map(|r| r.first_seq()).collect()
}

fn write_item(
    out: &mut String,
    item: &Item,
    results: &Results,
    paired: &std::collections::HashSet<u64>,
) {
    match item {
        Item::User { seq, content } => {
            let _ = writeln!(out, "## User · t{seq}\n");
            write_blocks(out, *seq, content, results);
        }
        Item::Assistant {
            seq,
            content,
            model,
            ..
        } => {
            match model {
                Some(m) => {
                    let _ = writeln!(out, "## Assistant · {m}\n");
                }
                None => {
                    let _ = writeln!(out, "## Assistant\n");
                }
            }
            write_blocks(out, *seq, content, results);
        }
        // Shown with the call that asked for it.
        Item::ToolResult { seq, .. } if paired.contains(seq) => {}
        Item::ToolResult { seq, content, .. } => {
            let _ = writeln!(out, "**result · t{seq}**\n");
            fenced(out, "", &plain_text(content));
        }
        Item::Folded {
            handle,
            note,
            since,
            until,
            items,
            ..
        } => {
            let _ = writeln!(out, "> **folded `{handle}`** (t{since}..t{until})\n>");
            quote(out, note);
            archived(out, items);
        }
        Item::Compacted {
            until,
            summary,
            items,
            ..
        } => {
            let _ = writeln!(out, "> **compacted through t{until}**\n>");
            quote(out, summary);
            archived(out, items);
        }
        Item::Elided { count, .. } => {
            let _ = writeln!(out, "_{count} archived items_\n");
        }
        Item::ChildReport {
            seq,
            handle,
            state,
            report,
        } => {
            let _ = writeln!(out, "**background child `{handle}` {state} · t{seq}**\n");
            prose(out, report);
        }
    }
}

/// The items an archived span holds, whole, in a section a reader opens (GitHub and most
/// renderers fold `<details>`; plain text keeps them in order).
fn archived(out: &mut String, items: &[Item]) {
    if items.is_empty() {
        return;
    }
    let n = items.len();
    let _ = writeln!(
        out,
        "<details><summary>the archived span ({n} item{})</summary>\n",
        if n == 1 { "" } else { "s" }
    );
    let results = crate::html::transcript::pair_results(items);
    let paired = paired(&results);
    for item in items {
        write_item(out, item, &results, &paired);
    }
    out.push_str("</details>\n\n");
}

fn write_blocks(out: &mut String, answer: u64, blocks: &[Block], results: &Results) {
    for block in blocks {
        match block {
            Block::Text { text } => prose(out, text),
            Block::Thinking { thinking, .. } => {
                out.push_str("<details><summary>thinking</summary>\n\n");
                fenced(out, "", thinking);
                out.push_str("</details>\n\n");
            }
            Block::ToolUse { id, name, input } => {
                let _ = writeln!(out, "**{}**\n", escape_inline(&tools::summary(name, input)));
                let pretty = input
                    .parse::<serde_json::Value>()
                    .ok()
                    .and_then(|v| serde_json::to_string_pretty(&v).ok())
                    .unwrap_or_else(|| input.get().to_owned());
                fenced(out, "json", &pretty);
                if let Some(Item::ToolResult {
                    seq,
                    content,
                    is_error,
                    ..
                }) = results.get(&(answer, id.as_str()))
                {
                    let error = if *is_error { " (error)" } else { "" };
                    let _ = writeln!(out, "result · t{seq}{error}\n");
                    fenced(out, "", &plain_text(content));
                }
            }
            Block::Image { media_type, .. } => {
                let _ = writeln!(out, "_[image {media_type}]_\n");
            }
            Block::RedactedThinking { .. } => out.push_str("_(encrypted reasoning)_\n\n"),
            Block::ToolResult { content, .. } => fenced(out, "", &plain_text(content)),
            Block::Unknown { kind } => {
                let _ = writeln!(out, "_[{kind} block]_\n");
            }
        }
    }
}

/// A message as written, unless its own fences do not close: then it is fenced whole, so it
/// cannot swallow what follows.
fn prose(out: &mut String, text: &str) {
    let fences = text
        .lines()
        .filter(|l| {
            let t = l.trim_start();
            t.starts_with("```") || t.starts_with("~~~")
        })
        .count();
    if fences % 2 == 1 {
        fenced(out, "", text);
    } else {
        out.push_str(text.trim_end());
        out.push_str("\n\n");
    }
}

/// `text` in a fence longer than any run of backticks it holds.
pub fn fenced(out: &mut String, lang: &str, text: &str) {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat((longest + 1).max(3));
    let _ = writeln!(
        out,
        "{fence}{lang}\n{}\n{fence}\n",
        text.trim_end_matches('\n')
    );
}

fn quote(out: &mut String, text: &str) {
    for line in text.lines() {
        let _ = writeln!(out, "> {line}");
    }
    out.push('\n');
}

fn escape_inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '*' | '_' | '`' | '[' | ']' | '<' | '>' | '\\' | '#') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fence_outgrows_the_backticks_inside() {
        let mut out = String::new();
        fenced(&mut out, "", "before\n```\ncode\n```\nafter");
        assert!(out.starts_with("````\n"), "{out}");
        assert!(out.trim_end().ends_with("````"), "{out}");
        let mut out = String::new();
        fenced(&mut out, "", "no ticks");
        assert!(out.starts_with("```\n"), "{out}");
    }

    #[test]
    fn an_unclosed_fence_in_a_message_is_fenced_whole() {
        let mut out = String::new();
        prose(&mut out, "look:\n```rust\nfn x() {}\n");
        assert!(out.starts_with("````\n"), "{out}");
        let mut out = String::new();
        prose(&mut out, "ok:\n```\nx\n```");
        assert!(out.starts_with("ok:"), "{out}");
    }
}
