//! The offline demo provider: a tiny deterministic "model" that answers by simple rules, so
//! hotl runs with no API key and no network. It reads the request like a provider would and
//! answers in the neutral stream, tool calls included.
//!
//! Rules, in order: after tool results, summarise them; a message naming a file path reads it
//! (when a `read` tool exists); "list" or "files" lists the directory; a command in backticks
//! after "run" runs it (when `bash` exists); anything else gets a short explanation.

use hotl_log::Block;
use hotl_view::{Part, Role};

use crate::encode::part_text;
use crate::event::{Event, StopReason};
use crate::request::Request;
use crate::usage::Usage;

/// The model name the demo provider reports.
pub const DEMO_MODEL: &str = "demo";

/// The demo's whole answer to `request`, as the events a streamed response would decode to.
pub fn respond(request: &Request<'_>) -> Vec<Event> {
    let mut events = vec![Event::Start {
        id: Some(format!("demo_{}", request.messages.len())),
        model: Some(DEMO_MODEL.to_owned()),
    }];
    let answer = decide(request);
    let mut output = 0;
    match &answer {
        Answer::Text(text) => {
            for piece in pieces(text) {
                events.push(Event::TextDelta {
                    text: piece.to_owned(),
                });
            }
            output += tokens(text);
        }
        Answer::Call { name, input, note } => {
            for piece in pieces(note) {
                events.push(Event::TextDelta {
                    text: piece.to_owned(),
                });
            }
            let key = "0".to_owned();
            let id = format!("demo_call_{}", request.messages.len());
            events.push(Event::ToolCallStart {
                key: key.clone(),
                id,
                name: name.clone(),
            });
            events.push(Event::ToolCallArgs {
                key: key.clone(),
                fragment: input.clone(),
            });
            events.push(Event::ToolCallEnd { key });
            output += tokens(note) + tokens(input);
        }
    }
    events.push(Event::Usage(Usage {
        input: input_tokens(request),
        output,
        ..Usage::default()
    }));
    events.push(Event::Stop {
        reason: match answer {
            Answer::Text(_) => StopReason::Done,
            Answer::Call { .. } => StopReason::ToolUse,
        },
        raw: None,
    });
    events
}

enum Answer {
    Text(String),
    Call {
        name: String,
        input: String,
        note: String,
    },
}

fn decide(request: &Request<'_>) -> Answer {
    let has = |tool: &str| request.tools.iter().any(|t| t.name == tool);
    let Some(last) = request.messages.last().filter(|m| m.role == Role::User) else {
        return Answer::Text("I have nothing to answer yet.".to_owned());
    };
    // What the user (or hotl, for a note) said last: the message's last text. Earlier text in
    // the same message (a folded or compacted span, a reminder) is context, not the request.
    let said: &str = last
        .content
        .iter()
        .rev()
        .find_map(|part| match part {
            Part::Stamped { text, .. } => Some(*text),
            Part::Block(Block::Text { text }) => Some(text.as_str()),
            Part::Text(text) => Some(text.as_ref()),
            _ => None,
        })
        .unwrap_or("");
    if said.contains("[fold]") || said.contains("[compaction]") {
        // A note for a fold or a compaction: the demo fills the template from the last thing
        // said.
        let last_words = last_assistant_text(request);
        return Answer::Text(format!(
            "changed: (offline demo) see the archived span\nlearned: the span ended with: {}\n\
             decided and rejected: nothing recorded\nopen: nothing recorded\nwhere: the archived span",
            last_words.lines().next().unwrap_or("").trim()
        ));
    }
    let results: Vec<String> = last
        .content
        .iter()
        .filter(|p| matches!(p, Part::ToolResult { .. }))
        .map(|p| {
            let mut text = String::new();
            part_text(p, &mut text);
            text
        })
        .collect();
    if !results.is_empty() {
        return Answer::Text(summarise(&results));
    }
    if said.starts_with("<compacted") || said.starts_with("<folded") {
        // The turn goes on from a note: the demo cannot tell what is left to do, so it stops
        // rather than act on the quoted messages again.
        return Answer::Text(
            "(offline demo) The conversation was just compacted into the note above; tell me \
             again what you want next."
                .to_owned(),
        );
    }
    if said.contains("[ask]") {
        // A question to an archived thread: the demo can only quote the thread's last words.
        let last_words = last_assistant_text(request);
        return Answer::Text(format!(
            "(offline demo) I cannot reason about the question; the last thing said in this thread was: {}",
            last_words.trim()
        ));
    }
    let lower = said.to_lowercase();
    if let Some(command) = backticked_command(said)
        && lower.contains("run")
        && has("bash")
    {
        return call(
            "bash",
            serde_json::json!({ "command": command }),
            "Running it.",
        );
    }
    if let Some(path) = said
        .split_whitespace()
        .map(trim_word)
        .find(|w| looks_like_path(w))
        && has("read")
    {
        return call(
            "read",
            serde_json::json!({ "path": path }),
            "Let me read that file.",
        );
    }
    if (lower.contains("list") || lower.contains("files")) && (has("ls") || has("bash")) {
        return if has("ls") {
            call("ls", serde_json::json!({}), "Listing the directory.")
        } else {
            call(
                "bash",
                serde_json::json!({ "command": "ls" }),
                "Listing the directory.",
            )
        };
    }
    Answer::Text(format!(
        "This is hotl's offline demo model: no API key is configured, so I answer by simple \
         rules rather than by thinking. You said: \"{}\". Ask me to list the files, to read a \
         path such as src/main.rs, or to run `a command`.",
        said.trim()
    ))
}

/// The text of the latest assistant message that has any.
fn last_assistant_text(request: &Request<'_>) -> String {
    request
        .messages
        .iter()
        .rev()
        .filter(|m| m.role == Role::Assistant)
        .find_map(|m| {
            let mut text = String::new();
            for p in &m.content {
                part_text(p, &mut text);
            }
            (!text.trim().is_empty()).then_some(text)
        })
        .unwrap_or_else(|| "nothing".to_owned())
}

fn call(name: &str, input: serde_json::Value, note: &str) -> Answer {
    Answer::Call {
        name: name.to_owned(),
        input: input.to_string(),
        note: note.to_owned(),
    }
}

fn summarise(results: &[String]) -> String {
    let mut out = String::new();
    for (i, result) in results.iter().enumerate() {
        let body = strip_stamp(result);
        let lines = body.lines().count();
        let first = body
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .trim();
        if i > 0 {
            out.push(' ');
        }
        out.push_str(&format!(
            "The tool returned {lines} line{}{}",
            if lines == 1 { "" } else { "s" },
            if first.is_empty() {
                ".".to_owned()
            } else {
                format!("; the first is: {first}")
            }
        ));
    }
    out
}

fn strip_stamp(text: &str) -> &str {
    match text.strip_prefix("[t") {
        Some(rest) => rest.split_once("] ").map_or(text, |(_, body)| body),
        None => text,
    }
}

fn backticked_command(text: &str) -> Option<&str> {
    let start = text.find('`')? + 1;
    let len = text[start..].find('`')?;
    let command = text[start..start + len].trim();
    (!command.is_empty()).then_some(command)
}

fn trim_word(word: &str) -> &str {
    word.trim_matches(|c: char| {
        matches!(
            c,
            '`' | '"' | '\'' | ',' | '.' | ':' | ';' | '(' | ')' | '?' | '!'
        )
    })
}

fn looks_like_path(word: &str) -> bool {
    const EXTENSIONS: [&str; 10] = [
        ".rs", ".md", ".toml", ".txt", ".json", ".py", ".js", ".ts", ".go", ".yaml",
    ];
    !word.starts_with("http")
        && (word.contains('/') && word.len() > 2 || EXTENSIONS.iter().any(|e| word.ends_with(e)))
}

/// Text pieces of a few words, the way a stream arrives.
fn pieces(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, _) in text.match_indices(' ') {
        if i - start >= 16 {
            out.push(&text[start..=i]);
            start = i + 1;
        }
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

fn tokens(text: &str) -> u64 {
    (text.len() as u64).div_ceil(4)
}

fn input_tokens(request: &Request<'_>) -> u64 {
    let mut total = 0;
    for s in &request.system {
        total += tokens(s);
    }
    for t in &request.tools {
        total += tokens(&t.name) + tokens(&t.description) + tokens(t.input_schema.get());
    }
    for m in &request.messages {
        for p in &m.content {
            let mut text = String::new();
            part_text(p, &mut text);
            total += tokens(&text);
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::ToolDef;
    use hotl_log::{Body, Record, SessionStart};
    use serde_json::value::RawValue;

    fn tool(name: &str) -> ToolDef {
        ToolDef {
            name: name.into(),
            description: String::new(),
            input_schema: RawValue::from_string("{}".into()).unwrap(),
        }
    }

    fn answer(records: Vec<Record>) -> Vec<Event> {
        let view = hotl_view::project(&records, 0);
        let mut request = Request::new(DEMO_MODEL, hotl_view::model_view(&view));
        request.tools = vec![tool("bash"), tool("read")];
        respond(&request)
    }

    fn session() -> Record {
        Record::new(1, "T", Body::Session(Box::new(SessionStart::new("/p"))))
    }

    fn text_of(events: &[Event]) -> String {
        events
            .iter()
            .filter_map(|e| match e {
                Event::TextDelta { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }

    /// After a compaction the demo answers in words instead of acting on the messages the
    /// note quotes, and it reads only what was said last, not the span a fold quotes.
    #[test]
    fn answers_the_last_words_only_and_stops_after_a_compaction() {
        let events = answer(vec![
            session(),
            Record::new(2, "T", Body::user_text("read src/main.rs")),
            Record::new(
                3,
                "T",
                Body::Compaction {
                    until: 2,
                    summary: "changed: nothing".into(),
                },
            ),
        ]);
        assert!(
            !events
                .iter()
                .any(|e| matches!(e, Event::ToolCallStart { .. })),
            "{events:?}"
        );
        assert!(text_of(&events).contains("note above"), "{events:?}");
        let events = answer(vec![
            session(),
            Record::new(2, "T", Body::user_text("run `echo old`")),
            Record::new(3, "T", Body::user_text("just say hello")),
        ]);
        assert!(
            !events
                .iter()
                .any(|e| matches!(e, Event::ToolCallStart { .. })),
            "{events:?}"
        );
    }

    #[test]
    fn asks_to_read_a_named_file() {
        let events = answer(vec![
            session(),
            Record::new(2, "T", Body::user_text("what is in src/main.rs?")),
        ]);
        assert!(events.contains(&Event::ToolCallStart {
            key: "0".into(),
            id: "demo_call_1".into(),
            name: "read".into()
        }));
        assert!(events.contains(&Event::ToolCallArgs {
            key: "0".into(),
            fragment: r#"{"path":"src/main.rs"}"#.into()
        }));
        assert!(matches!(
            events.last(),
            Some(Event::Stop {
                reason: StopReason::ToolUse,
                ..
            })
        ));
    }

    #[test]
    fn runs_a_backticked_command_and_summarises_results() {
        let events = answer(vec![
            session(),
            Record::new(2, "T", Body::user_text("run `cargo test` please")),
        ]);
        assert!(events.iter().any(|e| matches!(e, Event::ToolCallArgs { fragment, .. } if fragment == r#"{"command":"cargo test"}"#)));
        let events = answer(vec![
            session(),
            Record::new(2, "T", Body::user_text("list files")),
            Record::new(
                3,
                "T",
                Body::Assistant {
                    content: vec![Block::ToolUse {
                        id: "c".into(),
                        name: "bash".into(),
                        input: serde_json::json!({"command": "ls"}).into(),
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
                    content: vec![Block::text("Cargo.toml\nsrc")],
                    blob: None,
                    is_error: false,
                    files: vec![],
                },
            ),
        ]);
        let text: String = events
            .iter()
            .filter_map(|e| match e {
                Event::TextDelta { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(text, "The tool returned 2 lines; the first is: Cargo.toml");
    }

    #[test]
    fn plain_talk_gets_an_explanation_and_usage() {
        let events = answer(vec![
            session(),
            Record::new(2, "T", Body::user_text("hello")),
        ]);
        assert!(
            events
                .iter()
                .any(|e| matches!(e, Event::Usage(u) if u.input > 0 && u.output > 0))
        );
        assert!(matches!(
            events.last(),
            Some(Event::Stop {
                reason: StopReason::Done,
                ..
            })
        ));
    }
}
