//! A session's view as transcript entries: what a resume shows of the session's past, and
//! what the pager and the archive cards hold.

use hotl_log::Block;
use hotl_view::Item;

use crate::cells::{Entry, ToolCard};

/// User turns shown on resume when there is no fold or compaction closer to the end.
pub const TAIL_TURNS: usize = 3;

/// Every item of `items` as entries, tool calls paired with their results.
pub fn entries(items: &[Item]) -> Vec<Entry> {
    let mut out: Vec<Entry> = Vec::new();
    for item in items {
        push_item(item, &mut out);
    }
    out
}

fn push_item(item: &Item, out: &mut Vec<Entry>) {
    match item {
        Item::User { seq, content } => {
            let text = hotl_log::plain_text(content);
            // A user record that only carries tool results (older logs) has no text.
            if !text.trim().is_empty() {
                out.push(Entry::User {
                    seq: Some(*seq),
                    text,
                });
            }
            for block in content {
                if let Block::ToolResult {
                    tool_use_id,
                    content,
                    is_error,
                } = block
                {
                    answer_call(out, tool_use_id, &hotl_log::plain_text(content), *is_error);
                }
            }
        }
        Item::Assistant { content, .. } => {
            for block in content {
                match block {
                    Block::Text { text } if !text.trim().is_empty() => {
                        out.push(Entry::Answer { text: text.clone() })
                    }
                    Block::Thinking { thinking, .. } if !thinking.trim().is_empty() => {
                        out.push(Entry::Thinking {
                            text: thinking.clone(),
                        })
                    }
                    Block::ToolUse { id, name, input } => out.push(Entry::Tool(ToolCard {
                        id: id.clone(),
                        name: name.clone(),
                        input: input.get().to_owned(),
                        output: None,
                        is_error: false,
                    })),
                    _ => {}
                }
            }
        }
        Item::ToolResult {
            call,
            content,
            is_error,
            ..
        } => answer_call(out, call, &hotl_log::plain_text(content), *is_error),
        Item::Folded {
            handle,
            note,
            since,
            until,
            items,
        } => out.push(Entry::Fold {
            handle: handle.clone(),
            since: *since,
            until: *until,
            items: item.original_count(),
            note: note.clone(),
            // The view's folded item does not carry them; a host that has the records adds
            // them (`with_fold_files`).
            files: Vec::new(),
            archived: entries(items),
        }),
        Item::Compacted {
            until,
            summary,
            items,
        } => out.push(Entry::Compaction {
            until: *until,
            summary: summary.clone(),
            archived: entries(items),
        }),
        Item::ChildReport {
            handle,
            state,
            report,
            ..
        } => out.push(Entry::Notice {
            text: format!("background child {handle} {state}: {report}"),
            tone: crate::cells::Tone::Info,
        }),
        // Archived answers a checkpoint left in the log: the pager (Ctrl+T) reads them there.
        Item::Elided { count, .. } => out.push(Entry::Notice {
            text: format!(
                "{count} archived item{} (Ctrl+T shows the whole transcript)",
                if *count == 1 { "" } else { "s" }
            ),
            tone: crate::cells::Tone::Info,
        }),
    }
}

fn answer_call(out: &mut [Entry], id: &str, text: &str, is_error: bool) {
    for entry in out.iter_mut().rev() {
        if let Entry::Tool(card) = entry
            && card.id == id
        {
            card.output = Some(text.to_owned());
            card.is_error = is_error;
            return;
        }
    }
}

/// Gives each fold of `entries` (archived ones too) the files `files` names for its handle.
pub fn with_fold_files(
    entries: &mut [Entry],
    files: &std::collections::HashMap<String, Vec<String>>,
) {
    for entry in entries {
        match entry {
            Entry::Fold {
                handle,
                files: mine,
                archived,
                ..
            } => {
                if let Some(found) = files.get(handle.as_str()) {
                    mine.clone_from(found);
                }
                with_fold_files(archived, files);
            }
            Entry::Compaction { archived, .. } => with_fold_files(archived, files),
            _ => {}
        }
    }
}

/// Where the part of `entries` a resume shows starts: after the last fold or compaction, or
/// at the [`TAIL_TURNS`]-th user message from the end, whichever is later.
pub fn tail_start(entries: &[Entry]) -> usize {
    let archive = entries
        .iter()
        .rposition(|e| matches!(e, Entry::Fold { .. } | Entry::Compaction { .. }));
    let users: Vec<usize> = entries
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e, Entry::User { .. }))
        .map(|(i, _)| i)
        .collect();
    let turns = users.len().checked_sub(TAIL_TURNS).map_or(0, |k| users[k]);
    archive.map_or(turns, |a| a.max(turns))
}

/// What a resume shows of a session whose transcript is `items`: the entries of the items
/// from the last fold or compaction, or from the [`TAIL_TURNS`]-th user message from the end
/// (whichever is later), and how many items come before them. Only those items are turned
/// into entries, so resuming a long session costs what its tail costs.
pub fn tail(items: &[Item]) -> (Vec<Entry>, usize) {
    let archive = items
        .iter()
        .rposition(|i| matches!(i, Item::Folded { .. } | Item::Compacted { .. }));
    let mut users = items
        .iter()
        .enumerate()
        .rev()
        .filter(|(_, i)| matches!(i, Item::User { content, .. } if !hotl_log::plain_text(content).trim().is_empty()))
        .map(|(n, _)| n);
    let turns = users.nth(TAIL_TURNS - 1).unwrap_or(0);
    let start = archive.map_or(turns, |a| a.max(turns));
    (entries(&items[start..]), start)
}

/// The user messages of `entries` that carry a stamp, newest first: what the revert and fork
/// pickers list.
pub fn user_messages(entries: &[Entry]) -> Vec<(u64, String)> {
    let mut out = Vec::new();
    for entry in entries.iter().rev() {
        if let Entry::User {
            seq: Some(seq),
            text,
        } = entry
        {
            out.push((*seq, text.clone()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(seq: u64) -> Entry {
        Entry::User {
            seq: Some(seq),
            text: format!("m{seq}"),
        }
    }

    /// A compaction read from a checkpoint keeps its user messages and says how many archived
    /// items the log holds for it.
    #[test]
    fn a_thin_compaction_says_what_the_log_holds() {
        let items = vec![Item::Compacted {
            until: 9,
            summary: "done".into(),
            items: vec![
                Item::User {
                    seq: 3,
                    content: vec![Block::text("build it")],
                },
                Item::Elided {
                    first: 4,
                    last: 9,
                    count: 6,
                },
            ],
        }];
        let Some(Entry::Compaction { archived, .. }) = entries(&items).into_iter().next() else {
            panic!("a compaction entry");
        };
        assert!(matches!(&archived[0], Entry::User { seq: Some(3), .. }));
        assert!(
            matches!(&archived[1], Entry::Notice { text, .. } if text.starts_with("6 archived items")),
            "{archived:?}"
        );
    }

    #[test]
    fn a_resume_turns_only_the_tail_of_the_items_into_entries() {
        let user = |seq| Item::User {
            seq,
            content: vec![Block::Text {
                text: format!("m{seq}"),
            }],
        };
        let items: Vec<Item> = (1..=10).map(user).collect();
        let (tail, hidden) = tail(&items);
        assert_eq!(hidden, 7);
        assert_eq!(tail.len(), 3);
        let (all, hidden) = super::tail(&items[..2]);
        assert_eq!((all.len(), hidden), (2, 0));
    }

    #[test]
    fn the_tail_starts_at_the_last_fold_or_the_third_last_message() {
        let answer = || Entry::Answer { text: "a".into() };
        let mut entries = vec![
            user(1),
            answer(),
            user(2),
            answer(),
            user(3),
            answer(),
            user(4),
        ];
        assert_eq!(tail_start(&entries), 2);
        entries.insert(
            5,
            Entry::Compaction {
                until: 5,
                summary: "s".into(),
                archived: Vec::new(),
            },
        );
        assert_eq!(tail_start(&entries), 5);
        assert_eq!(tail_start(&[answer()]), 0);
    }
}
