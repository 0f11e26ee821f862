//! The model view: the messages a provider is sent, rendered deterministically from the view.
//!
//! Stamps (`[t<seq>]`) lead every user message and tool result. Folded and compacted spans
//! become one user-role text block: the note with its handle, then the span's user messages
//! quoted with their stamps, long ones capped. Same view, same messages, byte for byte.
//!
//! [`model_view`] borrows every block from the view (a stamp is joined to its text only when
//! the part is serialised), so building a request copies no content; [`model_messages`] is the
//! same view as owned blocks, for callers that want plain data.
//!
//! Items imported from another agent's session (up to `View::imported_until`) name tools this
//! session does not have and carry reasoning bound to another provider's account. Their tool
//! calls and results go out as short text notes (`[imported tool call: Bash] …`,
//! `[imported tool result] …`, capped like quotes), and their reasoning not at all, so an
//! imported session continues on any provider; the log keeps them structured.

use std::borrow::Cow;

use hotl_log::Block;
use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};

use crate::item::Item;
use crate::project::View;

/// A quoted user message inside a folded span is cut after this many characters.
pub const QUOTE_CAP: usize = 2000;

/// An imported tool call's arguments, or its result, is cut after this many characters.
pub const IMPORTED_CAP: usize = 2000;

/// Who speaks a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user (and tool results).
    User,
    /// The model.
    Assistant,
}

/// One message of the model view, as owned blocks.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Message {
    /// Who speaks.
    pub role: Role,
    /// What is said.
    pub content: Vec<Block>,
}

/// One message of the model view, borrowing its content from the view.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MessageRef<'a> {
    /// Who speaks.
    pub role: Role,
    /// What is said.
    pub content: Vec<Part<'a>>,
}

/// One content block of a [`MessageRef`]. Serialises exactly as the [`Block`] it stands for.
#[derive(Clone, Debug, PartialEq)]
pub enum Part<'a> {
    /// A record's block, unchanged.
    Block(&'a Block),
    /// Text a record's block carries, with the stamp in front: `[t<seq>] <text>`.
    Stamped {
        /// The stamped seq.
        seq: u64,
        /// The text after the stamp.
        text: &'a str,
    },
    /// Text the view writes itself (a stamp alone, a folded span's note).
    Text(Cow<'a, str>),
    /// A tool's answer.
    ToolResult {
        /// The call it answers.
        tool_use_id: &'a str,
        /// Its content, stamp first.
        content: Vec<Part<'a>>,
        /// Whether the tool failed.
        is_error: bool,
    },
}

impl Part<'_> {
    /// The owned block this part stands for.
    pub fn to_block(&self) -> Block {
        match self {
            Part::Block(block) => (*block).clone(),
            Part::Stamped { seq, text } => Block::text(format!("{} {text}", stamp(*seq))),
            Part::Text(text) => Block::text(text.as_ref()),
            Part::ToolResult {
                tool_use_id,
                content,
                is_error,
            } => Block::ToolResult {
                tool_use_id: (*tool_use_id).to_owned(),
                content: content.iter().map(Part::to_block).collect(),
                is_error: *is_error,
            },
        }
    }
}

impl MessageRef<'_> {
    /// The same message as owned blocks.
    pub fn to_message(&self) -> Message {
        Message {
            role: self.role,
            content: self.content.iter().map(Part::to_block).collect(),
        }
    }
}

impl Serialize for Part<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Part::Block(block) => block.serialize(serializer),
            Part::Stamped { seq, text } => {
                let mut s = serializer.serialize_struct("Block", 2)?;
                s.serialize_field("type", "text")?;
                s.serialize_field("text", &StampedText(*seq, text))?;
                s.end()
            }
            Part::Text(text) => {
                let mut s = serializer.serialize_struct("Block", 2)?;
                s.serialize_field("type", "text")?;
                s.serialize_field("text", text)?;
                s.end()
            }
            Part::ToolResult {
                tool_use_id,
                content,
                is_error,
            } => {
                let mut s = serializer.serialize_struct("Block", 4)?;
                s.serialize_field("type", "tool_result")?;
                s.serialize_field("tool_use_id", tool_use_id)?;
                s.serialize_field("content", content)?;
                if *is_error {
                    s.serialize_field("is_error", &true)?;
                }
                s.end()
            }
        }
    }
}

/// `[t<seq>] <text>`, written straight into the output (no joined copy).
struct StampedText<'a>(u64, &'a str);

impl Serialize for StampedText<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&format_args!("[t{}] {}", self.0, self.1))
    }
}

/// The stamp the model sees for `seq`.
pub fn stamp(seq: u64) -> String {
    format!("[t{seq}]")
}

/// The model view as owned messages: items after the latest `clear`, consecutive messages of
/// one role merged (providers want roles to alternate).
pub fn model_messages(view: &View) -> Vec<Message> {
    model_view(view)
        .iter()
        .map(MessageRef::to_message)
        .collect()
}

/// The model view, borrowing from `view`: what request building serialises.
///
/// A log with an unreadable line can leave a tool call without its result, or a result without
/// its call, in the middle of the conversation; providers refuse both. A call a later message
/// passes by is answered here with an error saying its result was lost, and a result whose call
/// was lost is shown as the user's text. Calls of the last step stay open: the turn answers them.
pub fn model_view(view: &View) -> Vec<MessageRef<'_>> {
    let mut out: Vec<MessageRef<'_>> = Vec::with_capacity(view.items.len() * 3 / 4 + 1);
    // The calls of the latest assistant message that have no result yet.
    let mut waiting: Vec<&str> = Vec::new();
    // Items are in seq order: the ones after the clear are a suffix.
    let first = view
        .items
        .partition_point(|i| i.last_seq() <= view.model_after);
    let shown = &view.items[first..];
    for (i, item) in shown.iter().enumerate() {
        // Imported items come first (one import writes them all before anything else), so
        // no call of this session is waiting while they are rendered.
        if item.last_seq() <= view.imported_until && imported_into(item, &mut out) {
            continue;
        }
        let answers = match item {
            Item::ToolResult { call, .. } => waiting.iter().position(|w| *w == call.as_str()),
            _ => None,
        };
        match answers {
            Some(at) => {
                waiting.remove(at);
            }
            // Anything else passes the waiting calls by: they are answered first (tool
            // results lead their message).
            None if !waiting.is_empty() => {
                let parts = message(&mut out, Role::User);
                parts.extend(waiting.drain(..).map(|call| Part::ToolResult {
                    tool_use_id: call,
                    content: vec![Part::Text(Cow::Borrowed(LOST_RESULT))],
                    is_error: true,
                }));
            }
            None => {}
        }
        if let (None, Item::ToolResult { seq, content, .. }) = (answers, item) {
            let parts = message(&mut out, Role::User);
            parts.push(Part::Text(Cow::Borrowed(ORPHAN_RESULT)));
            orphan_into(*seq, content, parts);
            continue;
        }
        if let Item::Assistant { content, .. } = item {
            waiting.extend(content.iter().filter_map(|b| match b {
                Block::ToolUse { id, .. } => Some(id.as_str()),
                _ => None,
            }));
        }
        let role = match item {
            Item::Assistant { .. } => Role::Assistant,
            _ => Role::User,
        };
        render_into(item, shown.get(i + 1), message(&mut out, role));
        if out.last().is_some_and(|m| m.content.is_empty()) {
            out.pop();
        }
    }
    out
}

/// The content of the message `role` speaks next: the last one when it is `role`'s (providers
/// want roles to alternate, so consecutive items of one role merge), else a new one.
fn message<'a, 'v>(out: &'v mut Vec<MessageRef<'a>>, role: Role) -> &'v mut Vec<Part<'a>> {
    if out.last().is_none_or(|m| m.role != role) {
        out.push(MessageRef {
            role,
            content: Vec::new(),
        });
    }
    &mut out.last_mut().expect("just pushed").content
}

/// What the model is told for a call whose result the log lost.
const LOST_RESULT: &str = "result lost: the log line that held it could not be read";

/// What precedes a tool result whose call the log lost.
const ORPHAN_RESULT: &str = "(a tool result whose call could not be read from the log:)";

/// The most of a lost call's result the model is sent, from its start and from its end: a
/// damaged log must not send its whole (perhaps huge) result with every request.
const ORPHAN_HEAD: usize = 8_000;
const ORPHAN_TAIL: usize = 2_000;

/// A result whose call was lost, stamped, its text cut to its head and tail when long.
fn orphan_into<'a>(seq: u64, content: &'a [Block], parts: &mut Vec<Part<'a>>) {
    let long = content.iter().any(|b| match b {
        Block::Text { text } => text.len() > ORPHAN_HEAD + ORPHAN_TAIL,
        _ => false,
    });
    if !long {
        stamp_into(seq, content, parts);
        return;
    }
    parts.push(Part::Text(Cow::Owned(stamp(seq))));
    for block in content {
        match block {
            Block::Text { text } if text.len() > ORPHAN_HEAD + ORPHAN_TAIL => {
                let head = floor_boundary(text, ORPHAN_HEAD);
                let tail = ceil_boundary(text, text.len() - ORPHAN_TAIL);
                parts.push(Part::Text(Cow::Owned(format!(
                    "{}\n[{} bytes left out: the session's log holds them]\n{}",
                    &text[..head],
                    tail - head,
                    &text[tail..]
                ))));
            }
            Block::Unknown { .. } => {}
            other => parts.push(Part::Block(other)),
        }
    }
}

/// The largest char boundary of `text` at or below `at`.
fn floor_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The smallest char boundary of `text` at or above `at`.
fn ceil_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

/// Renders an imported message or tool result as text notes; `false` for any other item
/// (a folded or compacted span quotes only user messages, so it needs nothing special).
fn imported_into<'a>(item: &'a Item, out: &mut Vec<MessageRef<'a>>) -> bool {
    match item {
        Item::Assistant { content, .. } => {
            let parts = message(out, Role::Assistant);
            for block in content {
                match block {
                    Block::Text { .. } | Block::Image { .. } => parts.push(Part::Block(block)),
                    Block::ToolUse { name, input, .. } => parts.push(Part::Text(Cow::Owned(
                        format!("[imported tool call: {name}] {}", capped(input.get())),
                    ))),
                    // Foreign reasoning is bound to the account that made it: never replayed.
                    _ => {}
                }
            }
            if out.last().is_some_and(|m| m.content.is_empty()) {
                out.pop();
            }
            true
        }
        Item::ToolResult {
            seq,
            content,
            is_error,
            ..
        } => {
            let parts = message(out, Role::User);
            let label = if *is_error {
                "[imported tool result: error]"
            } else {
                "[imported tool result]"
            };
            let text = hotl_log::plain_text(content);
            parts.push(Part::Text(Cow::Owned(format!(
                "{} {label} {}",
                stamp(*seq),
                capped(&text)
            ))));
            parts.extend(
                content
                    .iter()
                    .filter(|b| matches!(b, Block::Image { .. }))
                    .map(Part::Block),
            );
            true
        }
        _ => false,
    }
}

/// `text` cut after [`IMPORTED_CAP`] characters, saying how much was left out.
fn capped(text: &str) -> Cow<'_, str> {
    match text.char_indices().nth(IMPORTED_CAP) {
        None => Cow::Borrowed(text),
        Some((at, _)) => Cow::Owned(format!(
            "{} [… {} more characters]",
            &text[..at],
            text[at..].chars().count()
        )),
    }
}

/// Adds what `item` says to `parts`; `next` is the item after it (a fold's issuing call).
fn render_into<'a>(item: &'a Item, next: Option<&Item>, parts: &mut Vec<Part<'a>>) {
    match item {
        Item::User { seq, content } => stamp_into(*seq, content, parts),
        Item::Assistant { content, .. } => parts.extend(
            content
                .iter()
                .filter(|b| !matches!(b, Block::Unknown { .. }))
                .map(Part::Block),
        ),
        Item::ToolResult {
            seq,
            call,
            content,
            is_error,
            ..
        } => {
            let mut stamped = Vec::with_capacity(content.len() + 1);
            stamp_into(*seq, content, &mut stamped);
            parts.push(Part::ToolResult {
                tool_use_id: call,
                content: stamped,
                is_error: *is_error,
            });
        }
        Item::Folded {
            handle,
            note,
            since,
            until,
            items,
        } => {
            let open = format!("<folded handle={handle} span=t{since}..t{until}>");
            // The model's fold call right after the span carries the same note, and stays in
            // the context: the note is sent once, there.
            let note = if next.is_some_and(|n| issued_with(n, note)) {
                NOTE_IN_CALL
            } else {
                note.as_str()
            };
            let text = collapsed_text(&open, "</folded>", note, items, Quotes::Folded(handle));
            parts.push(Part::Text(Cow::Owned(text)));
        }
        // Only inside a folded or compacted span, whose text quotes its user messages alone.
        Item::Elided { .. } => {}
        Item::ChildReport {
            seq,
            handle,
            state,
            report,
        } => parts.push(Part::Text(Cow::Owned(format!(
            "{} background child {handle} {state}:\n{report}",
            stamp(*seq)
        )))),
        Item::Compacted {
            until,
            summary,
            items,
        } => {
            let open = format!("<compacted until=t{until}>");
            let text = collapsed_text(&open, "</compacted>", summary, items, Quotes::Compacted);
            parts.push(Part::Text(Cow::Owned(text)));
        }
    }
}

/// What a folded span says in place of its note when the fold call after it carries it.
const NOTE_IN_CALL: &str = "(note: in your fold call below)";

/// Whether `item` is the model's step that asked for a fold with `note`: a fold is recorded
/// only for the call that asked for it, and the span ends at the step before it, so that step
/// follows the folded span.
fn issued_with(item: &Item, note: &str) -> bool {
    #[derive(serde::Deserialize)]
    struct FoldArgs {
        note: String,
    }
    let Item::Assistant { content, .. } = item else {
        return false;
    };
    content.iter().any(|b| match b {
        Block::ToolUse { name, input, .. } if name == "fold" => input
            .parse::<FoldArgs>()
            .is_ok_and(|args| args.note == note),
        _ => false,
    })
}

/// Adds `content` to `parts` with the stamp joined to its first text block (or standing alone
/// before the rest); other blocks pass through unchanged.
fn stamp_into<'a>(seq: u64, content: &'a [Block], parts: &mut Vec<Part<'a>>) {
    let start = parts.len();
    let mut done = false;
    for block in content {
        match block {
            Block::Text { text } if !done => {
                parts.push(Part::Stamped { seq, text });
                done = true;
            }
            Block::Unknown { .. } => {}
            other => parts.push(Part::Block(other)),
        }
    }
    if !done {
        parts.insert(start, Part::Text(Cow::Owned(stamp(seq))));
    }
}

/// How a collapsed span quotes its user messages.
#[derive(Clone, Copy)]
enum Quotes<'a> {
    /// A fold's: each capped, with a pointer to the fold's handle.
    Folded(&'a str),
    /// A compaction's: each capped, with a pointer to recall, except the last, kept whole: a
    /// compaction in the middle of a turn holds the message the work in progress answers.
    Compacted,
}

fn collapsed_text(
    open: &str,
    close: &str,
    note: &str,
    items: &[Item],
    quotes: Quotes<'_>,
) -> String {
    let mut whole = None;
    if let Quotes::Compacted = quotes {
        for item in items {
            item.for_each_user(&mut |seq, _| whole = Some(seq));
        }
    }
    let mut text = format!("{open}\n{note}\n{close}");
    for item in items {
        item.for_each_user(&mut |seq, content| {
            let message = hotl_log::plain_text(content);
            let quoted = if whole == Some(seq) {
                message
            } else {
                cap(&message, quotes)
            };
            text.push_str(&format!("\n{} {quoted}", stamp(seq)));
        });
    }
    text
}

fn cap(message: &str, quotes: Quotes<'_>) -> String {
    let total = message.chars().count();
    if total <= QUOTE_CAP {
        return message.to_owned();
    }
    let kept: String = message.chars().take(QUOTE_CAP).collect();
    let pointer = match quotes {
        Quotes::Folded(handle) => format!("recall handle={handle}"),
        Quotes::Compacted => "recall finds the rest".to_owned(),
    };
    format!(
        "{kept} [… {} more characters; {pointer}]",
        total - QUOTE_CAP
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use hotl_log::{Body, ImportInfo, Record, SessionStart};

    fn call(id: &str, name: &str) -> Body {
        Body::Assistant {
            content: vec![
                Block::Thinking {
                    thinking: "hm".into(),
                    signature: None,
                },
                Block::text("looking"),
                Block::ToolUse {
                    id: id.into(),
                    name: name.into(),
                    input: serde_json::json!({"command": "ls"}).into(),
                },
            ],
            model: None,
            stop: None,
            stop_raw: None,
            usage: None,
        }
    }

    fn result(id: &str) -> Body {
        Body::ToolResult {
            call: id.into(),
            content: vec![Block::text("a b")],
            blob: None,
            is_error: false,
            files: vec![],
        }
    }

    #[test]
    fn imported_calls_reach_the_model_as_notes_and_later_ones_stay_structured() {
        let records = vec![
            Record::new(1, "T", Body::Session(Box::new(SessionStart::new("/p")))),
            Record::new(
                2,
                "T",
                Body::Import(Box::new(ImportInfo {
                    source: "claude-code".into(),
                    until: 5,
                    ..ImportInfo::default()
                })),
            ),
            Record::new(3, "T", Body::user_text("list")),
            Record::new(4, "T", call("toolu_1", "Bash")),
            Record::new(5, "T", result("toolu_1")),
            Record::new(6, "T", Body::user_text("again")),
            Record::new(7, "T", call("c2", "bash")),
            Record::new(8, "T", result("c2")),
        ];
        let view = crate::project(&records, 0);
        assert_eq!(view.imported_until, 5);
        let messages = model_messages(&view);
        let text = serde_json::to_string(&messages).unwrap_or_default();
        assert!(
            text.contains(r#"[imported tool call: Bash] {\"command\":\"ls\"}"#),
            "{text}"
        );
        assert!(text.contains("[t5] [imported tool result] a b"), "{text}");
        assert!(!text.contains("toolu_1"), "{text}");
        assert!(text.contains(r#""tool_use_id":"c2""#), "{text}");
        // Only the native step keeps its thinking.
        assert_eq!(text.matches(r#""type":"thinking""#).count(), 1, "{text}");
        // Roles still alternate: user, assistant, user (result note + next prompt), ...
        let roles: Vec<Role> = messages.iter().map(|m| m.role).collect();
        assert_eq!(
            roles,
            [
                Role::User,
                Role::Assistant,
                Role::User,
                Role::Assistant,
                Role::User
            ]
        );
        // Same view, same bytes.
        assert_eq!(
            serde_json::to_string(&model_view(&view)).unwrap_or_default(),
            text
        );
    }

    #[test]
    fn an_imported_history_ending_in_a_tool_result_is_no_open_turn() {
        let mut records = vec![
            Record::new(1, "T", Body::Session(Box::new(SessionStart::new("/p")))),
            Record::new(
                2,
                "T",
                Body::Import(Box::new(ImportInfo {
                    source: "codex".into(),
                    until: 5,
                    ..ImportInfo::default()
                })),
            ),
            Record::new(3, "T", Body::user_text("list")),
            Record::new(4, "T", call("toolu_1", "Bash")),
            Record::new(5, "T", result("toolu_1")),
        ];
        assert!(!crate::project(&records, 0).open_turn);
        // Without the import record the same log is a turn waiting for the model.
        records.remove(1);
        assert!(crate::project(&records, 0).open_turn);
    }

    #[test]
    fn long_imported_arguments_are_capped() {
        let long = "x".repeat(IMPORTED_CAP + 10);
        assert_eq!(
            capped(&long),
            format!("{} [… 10 more characters]", "x".repeat(IMPORTED_CAP))
        );
        assert_eq!(capped("short"), "short");
    }

    #[test]
    fn borrowed_and_owned_views_serialise_identically() {
        let records = vec![
            Record::new(1, "T", Body::Session(Box::new(SessionStart::new("/p")))),
            Record::new(2, "T", Body::user_text("hi \"there\"\n")),
            Record::new(
                3,
                "T",
                Body::Assistant {
                    content: vec![Block::ToolUse {
                        id: "c".into(),
                        name: "bash".into(),
                        input: serde_json::json!({"b": 1, "a": [true]}).into(),
                    }],
                    model: None,
                    stop: None,
                    stop_raw: None,
                    usage: None,
                },
            ),
            Record::new(
                4,
                "T",
                Body::ToolResult {
                    call: "c".into(),
                    content: vec![],
                    blob: None,
                    is_error: true,
                    files: vec![],
                },
            ),
        ];
        let view = crate::project(&records, 0);
        let borrowed = serde_json::to_string(&model_view(&view)).unwrap();
        let owned = serde_json::to_string(&model_messages(&view)).unwrap();
        assert_eq!(borrowed, owned);
        assert!(
            borrowed.contains(r#""text":"[t2] hi \"there\"\n""#),
            "{borrowed}"
        );
    }
}
