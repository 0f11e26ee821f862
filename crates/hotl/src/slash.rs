//! The console's slash commands: parsing a typed line into a [`Slash`], and running one.
//!
//! Which lines are commands: a line whose first word is `/` followed by lowercase ASCII
//! letters only (`/[a-z]+`) is a command; if it names none of the commands below, it is refused
//! ("unknown command") and never reaches the model. Every other line is a message for the
//! model, so `/etc/hosts is weird`, `/ x`, `/Users` and `/tmp/a` are sent as typed. A line
//! starting with `//` is the escape: it is sent with one slash removed (`//help` sends `/help`).

use hotl_agent::{Provider, Session, Settings};
use hotl_view::{Item, View};
use tokio::sync::watch;

/// The most hits `/recall` prints (as `hotl recall` does by default).
const RECALL_LIMIT: usize = 20;

/// The commands with their usage, one line each (what `/help` prints).
const HELP: &[(&str, &str)] = &[
    (
        "/fold [t<seq>]",
        "fold a finished span into a note the model writes (default: since the last fold, compaction or clear)",
    ),
    (
        "/recall [--exact|--regex] QUERY",
        "search what this session archived: folds, compactions, forks, earlier asks (ranked by default; no model call)",
    ),
    (
        "/ask HANDLE QUESTION",
        "put one question to an archived thread (a fold, a compaction, a fork: the handle recall shows)",
    ),
    (
        "/compact",
        "replace everything the model sees with a note it writes (a turn does this itself near the window)",
    ),
    ("/help", "this list"),
    ("/exit, /quit", "leave the console (Ctrl-D too)"),
    ("//text", "send \"/text\" to the model as a message"),
];

/// One typed line, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Slash {
    /// Not a command: the text for the model (with a leading `//` made `/`).
    Message(String),
    /// `/exit` or `/quit`.
    Exit,
    /// `/help`.
    Help,
    /// `/fold [t<seq>]`: the stamp the span starts at, or the current episode's start.
    Fold(Option<u64>),
    /// `/compact`.
    Compact,
    /// `/recall [--exact|--regex|--ranked] QUERY`.
    Recall {
        /// `ranked`, `exact` or `regex` (as `hotl_agent::recall_mode` names them).
        mode: &'static str,
        /// What to look for.
        query: String,
    },
    /// `/ask HANDLE QUESTION`.
    Ask {
        /// The archived thread's handle (a fold's, a compaction's or a fork's).
        handle: String,
        /// The question.
        question: String,
    },
    /// A `/word` that names no command.
    Unknown(String),
    /// A known command used wrongly: what to tell the user.
    Usage(String),
}

/// Parses one line as typed (surrounding whitespace is ignored).
pub fn parse(line: &str) -> Slash {
    let line = line.trim();
    if let Some(rest) = line.strip_prefix("//") {
        return Slash::Message(format!("/{rest}"));
    }
    let (word, rest) = match line.split_once(char::is_whitespace) {
        Some((word, rest)) => (word, rest.trim()),
        None => (line, ""),
    };
    let is_command = word
        .strip_prefix('/')
        .is_some_and(|name| !name.is_empty() && name.bytes().all(|b| b.is_ascii_lowercase()));
    if !is_command {
        return Slash::Message(line.to_owned());
    }
    match word {
        "/exit" | "/quit" => Slash::Exit,
        "/help" => Slash::Help,
        "/fold" => parse_fold(rest),
        "/recall" => parse_recall(rest),
        "/ask" => parse_ask(rest),
        "/compact" if rest.is_empty() => Slash::Compact,
        "/compact" => Slash::Usage("/compact takes nothing: the model writes the note".to_owned()),
        _ => Slash::Unknown(word.to_owned()),
    }
}

fn parse_fold(rest: &str) -> Slash {
    if rest.is_empty() {
        return Slash::Fold(None);
    }
    if rest.contains(char::is_whitespace) {
        return Slash::Usage(
            "/fold takes at most one stamp: /fold [t<seq>] (the model writes the note)".to_owned(),
        );
    }
    match hotl_agent::stamp_seq(rest) {
        Some(seq) => Slash::Fold(Some(seq)),
        None => Slash::Usage(format!("{rest:?} is not a stamp; expected /fold t<seq>")),
    }
}

fn parse_recall(rest: &str) -> Slash {
    // The flag, as `hotl recall` takes it too: `--exact`, `--regex`, or `--mode MODE`.
    let word = |text: &str| -> (String, String) {
        match text.split_once(char::is_whitespace) {
            Some((w, after)) => (w.to_owned(), after.trim().to_owned()),
            None => (text.to_owned(), String::new()),
        }
    };
    let usage = "/recall [--exact|--regex|--mode ranked|exact|regex] QUERY";
    let (mode, query) = if rest.starts_with("--") {
        let (flag, after) = word(rest);
        match flag.as_str() {
            "--mode" => {
                let (mode, query) = word(&after);
                match mode.as_str() {
                    "ranked" | "exact" | "regex" => (mode, query),
                    "" => return Slash::Usage(format!("--mode needs a mode; use {usage}")),
                    other => {
                        return Slash::Usage(format!("unknown mode {other:?}; use {usage}"));
                    }
                }
            }
            "--ranked" | "--exact" | "--regex" => (flag[2..].to_owned(), after),
            other => return Slash::Usage(format!("unknown flag {other}; use {usage}")),
        }
    } else {
        ("ranked".to_owned(), rest.to_owned())
    };
    let mode = match mode.as_str() {
        "exact" => "exact",
        "regex" => "regex",
        _ => "ranked",
    };
    if query.is_empty() {
        return Slash::Usage(format!("what to look for? {usage}"));
    }
    Slash::Recall {
        mode,
        query: query.to_owned(),
    }
}

fn parse_ask(rest: &str) -> Slash {
    match rest.split_once(char::is_whitespace) {
        Some((handle, question)) if !question.trim().is_empty() => Slash::Ask {
            handle: handle.to_owned(),
            question: question.trim().to_owned(),
        },
        _ => Slash::Usage(
            "/ask needs a handle and a question: /ask HANDLE QUESTION (/recall shows handles)"
                .to_owned(),
        ),
    }
}

/// The stamp `/fold` without one starts at: the first user message or tool result after the
/// latest fold, compaction or clear (a tool result's step, once planned: the steps a turn took
/// after the model folded are an episode too). `None` when there is none.
pub fn episode_start(view: &View) -> Option<u64> {
    let folded = view
        .items
        .iter()
        .rev()
        .find_map(|i| match i {
            Item::Folded { until, .. } | Item::Compacted { until, .. } => Some(*until),
            _ => None,
        })
        .unwrap_or(0);
    let after = folded.max(view.model_after);
    view.items.iter().find_map(|i| match i {
        Item::User { seq, .. } | Item::ToolResult { seq, .. } if *seq > after => Some(*seq),
        _ => None,
    })
}

/// Runs a command and prints what it gives, then the status line when it called the model or
/// changed the context. Failures print one line; the console goes on either way.
/// [`Slash::Message`] and [`Slash::Exit`] are the console's own business: nothing happens here.
pub async fn run(
    command: Slash,
    session: Option<&mut Session>,
    provider: &Provider,
    settings: &Settings,
    cancel: watch::Receiver<bool>,
) {
    match command {
        Slash::Message(_) | Slash::Exit => {}
        Slash::Help => {
            let width = HELP.iter().map(|(usage, _)| usage.len()).max().unwrap_or(0);
            for (usage, what) in HELP {
                println!("{usage:<width$}  {what}");
            }
        }
        Slash::Unknown(word) => println!("· unknown command {word}; /help lists them"),
        Slash::Usage(why) => println!("· {why}"),
        Slash::Fold(_) | Slash::Compact | Slash::Recall { .. } | Slash::Ask { .. } => {
            let Some(session) = session else {
                println!("· no session yet: send a message first");
                return;
            };
            // Ctrl-C drops the command's model call; nothing is recorded until it is done.
            let outcome = tokio::select! {
                outcome = session_command(command, session, provider, settings) => outcome,
                () = interrupted(cancel) => {
                    println!("· cancelled; nothing was recorded");
                    return;
                }
            };
            match outcome {
                Ok(true) => println!("{}", crate::console::status(session, settings)),
                Ok(false) => {}
                Err(why) => println!("· error: {}", why.replace('\n', " ")),
            }
        }
    }
}

/// Resolves when the user presses Ctrl-C (never, once nobody can).
async fn interrupted(mut cancel: watch::Receiver<bool>) {
    if cancel.wait_for(|pressed| *pressed).await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// Runs a command on the session; `Ok(true)` when the status line should follow.
async fn session_command(
    command: Slash,
    session: &mut Session,
    provider: &Provider,
    settings: &Settings,
) -> Result<bool, String> {
    match command {
        Slash::Fold(since) => {
            let since = match since.or_else(|| episode_start(session.view())) {
                Some(since) => since,
                None => {
                    return Err(
                        "nothing to fold: nothing since the last fold, compaction or \
                                clear; name a start with /fold t<seq>"
                            .to_owned(),
                    );
                }
            };
            let note = session
                .write_note(since, provider, settings)
                .await
                .map_err(|e| e.to_string())?;
            let fold = session
                .fold(since, None, &note)
                .map_err(|e| e.to_string())?;
            println!(
                "· folded t{}..t{} into handle {}",
                fold.since, fold.until, fold.handle
            );
            println!("{}", fold.note.trim_end());
            Ok(true)
        }
        Slash::Compact => {
            let until = session
                .compact(provider, settings, &mut crate::ui::ConsoleUi::new())
                .await
                .map_err(|e| e.to_string())?;
            println!(
                "· compacted through t{until}; the span stays archived as {} (/recall finds it, /ask takes it)",
                hotl_recall::compaction_handle(until)
            );
            Ok(true)
        }
        Slash::Recall { mode, query } => {
            let hits = session.recall(&query, Some(mode), RECALL_LIMIT)?;
            print!("{hits}");
            if !hits.ends_with('\n') {
                println!();
            }
            Ok(false)
        }
        Slash::Ask { handle, question } => {
            let answer = session
                .ask(&handle, &question, provider, settings)
                .await
                .map_err(|e| e.to_string())?;
            println!("{}", answer.trim_end());
            Ok(true)
        }
        _ => Ok(false),
    }
}

#[cfg(test)]
mod tests {
    use hotl_log::{Body, Record};

    use super::*;

    fn recall(mode: &'static str, query: &str) -> Slash {
        Slash::Recall {
            mode,
            query: query.to_owned(),
        }
    }

    fn message(text: &str) -> Slash {
        Slash::Message(text.to_owned())
    }

    #[test]
    fn fold_takes_an_optional_stamp() {
        assert_eq!(parse("/fold t12"), Slash::Fold(Some(12)));
        assert_eq!(parse("/fold 12"), Slash::Fold(Some(12)));
        assert_eq!(parse("  /fold T7  "), Slash::Fold(Some(7)));
        assert_eq!(parse("/fold"), Slash::Fold(None));
        assert!(matches!(parse("/fold tx"), Slash::Usage(u) if u.contains("not a stamp")));
        assert!(matches!(parse("/fold t3 a note"), Slash::Usage(u) if u.contains("one stamp")));
    }

    #[test]
    fn recall_is_ranked_unless_a_flag_says_otherwise() {
        assert_eq!(
            parse("/recall NFS local disk"),
            recall("ranked", "NFS local disk")
        );
        assert_eq!(parse("/recall --exact libfoo"), recall("exact", "libfoo"));
        assert_eq!(
            parse("/recall --regex lib(foo|bar)"),
            recall("regex", "lib(foo|bar)")
        );
        assert_eq!(parse("/recall --ranked  a b"), recall("ranked", "a b"));
        assert!(matches!(parse("/recall"), Slash::Usage(_)));
        assert!(matches!(parse("/recall --exact"), Slash::Usage(_)));
        assert!(matches!(parse("/recall --fuzzy x"), Slash::Usage(u) if u.contains("--fuzzy")));
        assert_eq!(
            parse("/recall --mode exact lib foo"),
            recall("exact", "lib foo")
        );
        assert!(
            matches!(parse("/recall --mode fuzzy x"), Slash::Usage(u) if u.contains("unknown mode \"fuzzy\""))
        );
        assert!(
            matches!(parse("/recall --mode"), Slash::Usage(u) if u.contains("--mode needs a mode"))
        );
    }

    #[test]
    fn ask_takes_a_handle_and_a_question() {
        assert_eq!(
            parse("/ask ab12 what was missing?"),
            Slash::Ask {
                handle: "ab12".to_owned(),
                question: "what was missing?".to_owned()
            }
        );
        assert!(matches!(parse("/ask ab12"), Slash::Usage(_)));
        assert!(matches!(parse("/ask"), Slash::Usage(_)));
    }

    #[test]
    fn exit_help_and_unknown_words() {
        assert_eq!(parse("/exit"), Slash::Exit);
        assert_eq!(parse("/quit"), Slash::Exit);
        assert_eq!(parse("/help"), Slash::Help);
        assert_eq!(parse(" /compact "), Slash::Compact);
        assert!(matches!(parse("/compact now"), Slash::Usage(_)));
        assert_eq!(
            parse("/frobnicate"),
            Slash::Unknown("/frobnicate".to_owned())
        );
        assert_eq!(parse("/tmp now"), Slash::Unknown("/tmp".to_owned()));
    }

    #[test]
    fn only_a_slash_and_lowercase_letters_make_a_command() {
        assert_eq!(parse("/etc/hosts is weird"), message("/etc/hosts is weird"));
        assert_eq!(parse("/ fold"), message("/ fold"));
        assert_eq!(parse("/Users/me"), message("/Users/me"));
        assert_eq!(parse("/fold2"), message("/fold2"));
        assert_eq!(parse("/"), message("/"));
        assert_eq!(parse("fix /fold"), message("fix /fold"));
        assert_eq!(parse("//help me"), message("/help me"));
        assert_eq!(parse("//etc"), message("/etc"));
    }

    fn view(bodies: Vec<Body>) -> View {
        let records: Vec<Record> = bodies
            .into_iter()
            .enumerate()
            .map(|(i, body)| Record::new(i as u64 + 1, hotl_testkit::FIXED_TS, body))
            .collect();
        hotl_view::project(&records, 0)
    }

    fn session() -> Body {
        Body::Session(Box::new(hotl_log::SessionStart::new("/p")))
    }

    fn answer(text: &str) -> Body {
        Body::Assistant {
            content: vec![hotl_log::Block::text(text)],
            model: None,
            stop: Some("end_turn".to_owned()),
            usage: None,
        }
    }

    fn fold(since: u64, until: u64) -> Body {
        Body::Fold(Box::new(hotl_log::Fold {
            since,
            until,
            handle: "ab12".to_owned(),
            note: "changed: x".to_owned(),
            files: Vec::new(),
            diff_blob: None,
        }))
    }

    #[test]
    fn the_episode_starts_after_the_latest_fold_or_clear() {
        let u = Body::user_text;
        // 1 session, 2 user, 3 answer, 4 user, 5 answer.
        let mut bodies = vec![session(), u("a"), answer("A"), u("b"), answer("B")];
        assert_eq!(episode_start(&view(bodies.clone())), Some(2));
        bodies.push(fold(2, 3)); // 6
        assert_eq!(episode_start(&view(bodies.clone())), Some(4));
        bodies.push(Body::Clear); // 7
        assert_eq!(episode_start(&view(bodies.clone())), None);
        bodies.extend([u("c"), answer("C")]); // 8, 9
        assert_eq!(episode_start(&view(bodies.clone())), Some(8));
        bodies.push(fold(8, 9)); // 10
        assert_eq!(episode_start(&view(bodies.clone())), None);
        // Steps after a fold, with no new message, are an episode too.
        bodies.extend([
            Body::Assistant {
                content: vec![hotl_log::Block::ToolUse {
                    id: "c1".into(),
                    name: "bash".into(),
                    input: serde_json::json!({"command": "ls"}).into(),
                }],
                model: None,
                stop: Some("tool_use".into()),
                usage: None,
            }, // 11
            Body::ToolResult {
                call: "c1".into(),
                content: vec![hotl_log::Block::text("out")],
                blob: None,
                is_error: false,
                files: Vec::new(),
            }, // 12
        ]);
        assert_eq!(episode_start(&view(bodies)), Some(12));
        assert_eq!(episode_start(&view(vec![session()])), None);
    }
}
