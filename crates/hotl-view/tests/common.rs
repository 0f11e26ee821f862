//! Helpers shared by the test files: parsing built logs, flattening items, reading message text.

use hotl_log::{Block, Body, ReadOptions, Record, read_from};
use hotl_testkit::LogBuilder;
use hotl_view::{Item, Message, View, project};

/// The records of a built log, read back from its bytes the way hotl reads a file.
pub fn records(log: &LogBuilder) -> Vec<Record> {
    let text = log.text();
    read_from(&text[..], ReadOptions::default())
        .expect("reading from memory cannot fail")
        .records
}

/// The view of a built root log.
pub fn view(log: &LogBuilder) -> View {
    project(&records(log), 0)
}

/// Original user message seqs of a transcript, folded and compacted spans included.
pub fn user_seqs(items: &[Item]) -> Vec<u64> {
    let mut seqs = Vec::new();
    for item in items {
        item.for_each_user(&mut |seq, _| seqs.push(seq));
    }
    seqs
}

/// The original items a transcript stands for: folded and compacted spans opened.
pub fn originals(items: &[Item]) -> Vec<Item> {
    let mut out = Vec::new();
    for item in items {
        match item {
            Item::Folded { items, .. } | Item::Compacted { items, .. } => {
                out.extend(originals(items))
            }
            other => out.push(other.clone()),
        }
    }
    out
}

/// The transcript item a record becomes, for records that are items.
pub fn item_of(record: &Record) -> Option<Item> {
    match &record.body {
        Body::User { content } => Some(Item::User {
            seq: record.seq,
            content: content.clone(),
        }),
        Body::Assistant {
            content,
            model,
            stop,
            usage,
            ..
        } => Some(Item::Assistant {
            seq: record.seq,
            content: content.clone(),
            model: model.clone(),
            stop: stop.as_deref().map(|s| hotl_log::stop_name(s).to_owned()),
            usage: *usage,
        }),
        Body::ToolResult {
            call,
            content,
            is_error,
            blob,
            ..
        } => Some(Item::ToolResult {
            seq: record.seq,
            call: call.clone(),
            content: content.clone(),
            is_error: *is_error,
            blob: blob.clone(),
        }),
        _ => None,
    }
}

/// Every text the model is sent (text blocks and the text inside tool results), one per line.
pub fn model_text(messages: &[Message]) -> String {
    fn walk(blocks: &[Block], out: &mut String) {
        for block in blocks {
            match block {
                Block::Text { text } => {
                    out.push_str(text);
                    out.push('\n');
                }
                Block::ToolResult { content, .. } => walk(content, out),
                _ => {}
            }
        }
    }
    let mut out = String::new();
    for message in messages {
        walk(&message.content, &mut out);
    }
    out
}

/// A record with the testkit's timestamp.
pub fn rec(seq: u64, body: Body) -> Record {
    Record::new(seq, hotl_testkit::FIXED_TS, body)
}

/// The `session` record every root log starts with.
pub fn session(seq: u64) -> Record {
    rec(
        seq,
        Body::Session(Box::new(hotl_log::SessionStart::new("/p"))),
    )
}
