//! The slash commands every front end offers (the terminal UI, the line console, ACP): the
//! [table](COMMANDS) that declares them, parsing a typed line into a [`Slash`], and the
//! [plan](plan()) that says what a front end does with it.
//!
//! Which lines are commands: a line whose first word is `/` followed by lowercase ASCII
//! letters only (`/[a-z]+`) is a command; if it names none of the commands below, it is refused
//! ("unknown command") and never reaches the model. Every other line is a message for the
//! model, so `/etc/hosts is weird`, `/ x`, `/Users` and `/tmp/a` are sent as typed. A line
//! starting with `//` is the escape: it is sent with one slash removed (`//help` sends `/help`).

mod plan;
mod table;

pub use self::plan::{Front, Local, MessagePick, Pick, Plan, READ_ONLY, plan};
pub use self::table::{COMMANDS, Needs, SlashCommand, find, help, offered, popup_rows, reference};

/// The most hits `/recall` prints (as `hotl recall` does by default).
pub const RECALL_LIMIT: usize = 10;

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
        /// `ranked`, `exact` or `regex` (as `crate::recall_mode` names them).
        mode: &'static str,
        /// What to look for.
        query: String,
    },
    /// `/search [QUERY]`: every session's text searched, in the resume picker.
    Search(String),
    /// `/ask HANDLE QUESTION`.
    Ask {
        /// The archived thread's handle (a fold's, a compaction's or a fork's).
        handle: String,
        /// The question.
        question: String,
    },
    /// A session operation (`/new`, `/resume`, `/fork`, `/clear`, `/fresh`, `/drop`,
    /// `/rename`, `/mode`).
    Session(SessionOp),
    /// `/copy [N]`: the N-th answer from the end (default the last).
    Copy(Option<usize>),
    /// `/cost`.
    Cost,
    /// `/dump`: the session as the model sees it, copied, and the next request's body
    /// written beside it.
    Dump,
    /// `/export [PATH]`: the session written as a page (or Markdown, or a log, by PATH's
    /// extension); quotes around a path are taken off.
    Export(Option<String>),
    /// `/share`: the session sealed and stored; the link says where.
    Share,
    /// `/context`.
    Context,
    /// `/raw [N]`: the N-th answer from the end as written, without styling.
    Raw(Option<usize>),
    /// `/model [NAME]`: switch to NAME, or pick from the provider's list.
    Model(Option<String>),
    /// `/effort [low|medium|high]`: set the reasoning effort, or say the one in force.
    Effort(Option<String>),
    /// `/stats`: the session's token economy.
    Stats,
    /// A `/word` that names no command.
    Unknown(String),
    /// A known command used wrongly: what to tell the user.
    Usage(String),
}

/// What a session operation typed at the console asks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SessionOp {
    /// `/new`.
    New,
    /// `/resume [REF]` (no reference: pick from a list).
    Resume(Option<String>),
    /// `/resume @claude|@codex|@pi [ID|PATH]`: another agent's session, imported as a new
    /// one and resumed (no id or path: pick from this directory's).
    ResumeForeign {
        /// Whose session.
        agent: Foreign,
        /// A session id or its prefix, or a file (none: pick).
        query: Option<String>,
    },
    /// `/fork [t<seq>|pick]`.
    Fork(ForkPoint, Worktree),
    /// `/clear`.
    Clear,
    /// `/fresh`.
    Fresh,
    /// `/drop`.
    Drop,
    /// `/rename NAME`.
    Rename(String),
    /// `/mode MODE`.
    Mode(crate::mode::Mode),
    /// `/revert [t<seq>]`: back to just before that user message (none: pick one).
    Revert(Option<u64>, crate::RevertScope),
    /// `/tree`: the session's lineage, forks and delegated children (pick one to switch).
    Tree,
    /// `/revert undo`: the last code restore undone.
    UndoRestore,
}

impl SessionOp {
    /// Whether it must wait for running work to end (it is refused while a turn runs).
    pub fn needs_idle(&self) -> bool {
        !matches!(
            self,
            SessionOp::Rename(_) | SessionOp::Mode(_) | SessionOp::Tree
        )
    }

    /// The command's name, as typed.
    pub fn name(&self) -> &'static str {
        match self {
            SessionOp::New => "/new",
            SessionOp::Resume(_) | SessionOp::ResumeForeign { .. } => "/resume",
            SessionOp::Fork(..) => "/fork",
            SessionOp::Clear => "/clear",
            SessionOp::Fresh => "/fresh",
            SessionOp::Drop => "/drop",
            SessionOp::Rename(_) => "/rename",
            SessionOp::Mode(_) => "/mode",
            SessionOp::Revert(..) | SessionOp::UndoRestore => "/revert",
            SessionOp::Tree => "/tree",
        }
    }
}

/// An agent whose sessions `/resume @NAME` continues (the names `hotl sessions import --from`
/// takes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Foreign {
    /// Claude Code (`@claude`, `@claude-code`).
    Claude,
    /// Codex (`@codex`).
    Codex,
    /// pi (`@pi`).
    Pi,
}

impl Foreign {
    /// Its name as `hotl sessions import --from` takes it: `claude`, `codex` or `pi`.
    pub fn name(self) -> &'static str {
        match self {
            Foreign::Claude => "claude",
            Foreign::Codex => "codex",
            Foreign::Pi => "pi",
        }
    }

    /// How people call it: `Claude Code`, `Codex`, `pi`.
    pub fn display(self) -> &'static str {
        match self {
            Foreign::Claude => "Claude Code",
            Foreign::Codex => "Codex",
            Foreign::Pi => "pi",
        }
    }

    /// The agent an `@word` names, if any (`@last` names none: it is a hotl reference).
    fn from_mention(word: &str) -> Option<Foreign> {
        match word.strip_prefix('@')? {
            "claude" | "claude-code" => Some(Foreign::Claude),
            "codex" => Some(Foreign::Codex),
            "pi" => Some(Foreign::Pi),
            _ => None,
        }
    }
}

/// Whether a fork works in a new git worktree at the code of its point (`--worktree`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Worktree(pub bool);

/// Where `/fork` cuts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ForkPoint {
    /// At the head.
    Head,
    /// After the turn of the user message with this seq.
    Message(u64),
    /// After the turn of a user message picked from a list.
    Pick,
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
    let Some(name) = word
        .strip_prefix('/')
        .filter(|name| !name.is_empty() && name.bytes().all(|b| b.is_ascii_lowercase()))
    else {
        return Slash::Message(line.to_owned());
    };
    // Only what the table declares is a command: an arm below without a row is never reached.
    let Some(command) = find(name) else {
        return Slash::Unknown(word.to_owned());
    };
    let word = format!("/{}", command.name);
    let takes_nothing = |parsed: Slash| {
        if rest.is_empty() {
            parsed
        } else {
            Slash::Usage(format!("{word} takes nothing"))
        }
    };
    match command.name {
        "exit" => Slash::Exit,
        "help" => Slash::Help,
        "fold" => parse_fold(rest),
        "recall" => parse_recall(rest),
        "ask" => parse_ask(rest),
        "compact" if !rest.is_empty() => {
            Slash::Usage("/compact takes nothing: the model writes the note".to_owned())
        }
        "compact" => Slash::Compact,
        "new" => takes_nothing(Slash::Session(SessionOp::New)),
        "clear" => takes_nothing(Slash::Session(SessionOp::Clear)),
        "fresh" => takes_nothing(Slash::Session(SessionOp::Fresh)),
        "drop" => takes_nothing(Slash::Session(SessionOp::Drop)),
        "tree" => takes_nothing(Slash::Session(SessionOp::Tree)),
        "context" => takes_nothing(Slash::Context),
        "cost" => takes_nothing(Slash::Cost),
        "stats" => takes_nothing(Slash::Stats),
        "dump" => takes_nothing(Slash::Dump),
        "resume" => parse_resume(rest),
        "search" => Slash::Search(unquoted(rest).to_owned()),
        "fork" => parse_fork(rest),
        "revert" => parse_revert(rest),
        "copy" => match count(rest) {
            Ok(n) => Slash::Copy(n),
            Err(()) => Slash::Usage(
                "/copy takes a count from the end: /copy 2 is the answer before the last"
                    .to_owned(),
            ),
        },
        "raw" => match count(rest) {
            Ok(n) => Slash::Raw(n),
            Err(()) => Slash::Usage(
                "/raw takes a count from the end: /raw 2 is the answer before the last".to_owned(),
            ),
        },
        "model" if rest.contains(char::is_whitespace) => Slash::Usage(
            "/model takes one model name (none: pick from the provider's list)".to_owned(),
        ),
        "model" => Slash::Model((!rest.is_empty()).then(|| rest.to_owned())),
        "effort" => match rest {
            "" => Slash::Effort(None),
            "low" | "medium" | "high" => Slash::Effort(Some(rest.to_owned())),
            _ => Slash::Usage(
                "/effort takes low, medium or high (none: says the level in force)".to_owned(),
            ),
        },
        "export" if rest.is_empty() => Slash::Export(None),
        "export" => Slash::Export(Some(unquoted(rest).to_owned())),
        "share" if rest.is_empty() => Slash::Share,
        "share" => {
            Slash::Usage("/share takes nothing (hotl sessions share has the options)".to_owned())
        }
        "rename" if rest.is_empty() => {
            Slash::Usage("/rename needs a name: /rename NAME".to_owned())
        }
        "rename" => Slash::Session(SessionOp::Rename(rest.to_owned())),
        "mode" => match crate::mode::Mode::from_name(rest) {
            Some(mode) => Slash::Session(SessionOp::Mode(mode)),
            None => {
                Slash::Usage("/mode needs one of: default, accept-edits, bypass, plan".to_owned())
            }
        },
        _ => Slash::Unknown(word),
    }
}

/// An optional count from the end, 1 or more (none: the last).
fn count(rest: &str) -> Result<Option<usize>, ()> {
    if rest.is_empty() {
        return Ok(None);
    }
    match rest.parse::<usize>() {
        Ok(n) if n > 0 => Ok(Some(n)),
        _ => Err(()),
    }
}

fn unquoted(rest: &str) -> &str {
    for quote in ['"', '\''] {
        if let Some(inner) = rest.strip_prefix(quote).and_then(|r| r.strip_suffix(quote)) {
            return inner;
        }
    }
    rest
}

fn parse_resume(rest: &str) -> Slash {
    let (first, after) = match rest.split_once(char::is_whitespace) {
        Some((first, after)) => (first, after.trim()),
        None => (rest, ""),
    };
    if let Some(agent) = Foreign::from_mention(first) {
        // The rest is one id or one path, which may hold spaces.
        let query = (!after.is_empty()).then(|| unquoted(after).to_owned());
        return Slash::Session(SessionOp::ResumeForeign { agent, query });
    }
    if !after.is_empty() {
        return Slash::Usage(
            "/resume takes one reference: a list number, id prefix, name or @last (or @claude, @codex, @pi)"
                .to_owned(),
        );
    }
    Slash::Session(SessionOp::Resume(
        (!rest.is_empty()).then(|| rest.to_owned()),
    ))
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
    match hotl_view::stamp_seq(rest) {
        Some(seq) => Slash::Fold(Some(seq)),
        None => Slash::Usage(format!("{rest:?} is not a stamp; expected /fold t<seq>")),
    }
}

fn parse_fork(rest: &str) -> Slash {
    let usage = "/fork takes nothing (the head), a user message's stamp (/fork t12), or pick; and --worktree";
    let mut point = None;
    let mut worktree = Worktree(false);
    for word in rest.split_whitespace() {
        let at = match word {
            "--worktree" => {
                worktree = Worktree(true);
                continue;
            }
            "pick" => ForkPoint::Pick,
            stamp => match hotl_view::stamp_seq(stamp) {
                Some(seq) => ForkPoint::Message(seq),
                None => return Slash::Usage(usage.to_owned()),
            },
        };
        if point.replace(at).is_some() {
            return Slash::Usage(usage.to_owned());
        }
    }
    Slash::Session(SessionOp::Fork(point.unwrap_or(ForkPoint::Head), worktree))
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

#[cfg(test)]
mod tests {
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
    fn export_takes_a_path_quoted_or_not() {
        assert_eq!(parse("/export"), Slash::Export(None));
        assert_eq!(
            parse("/export my notes/run 1.html"),
            Slash::Export(Some("my notes/run 1.html".to_owned()))
        );
        assert_eq!(
            parse("/export \"my notes/run 1.md\""),
            Slash::Export(Some("my notes/run 1.md".to_owned()))
        );
        assert_eq!(
            parse("/export 'a b.jsonl'"),
            Slash::Export(Some("a b.jsonl".to_owned()))
        );
        assert_eq!(parse("/share"), Slash::Share);
        assert!(matches!(parse("/share now"), Slash::Usage(_)));
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
    fn session_operations() {
        let op = |line: &str| match parse(line) {
            Slash::Session(op) => Some(op),
            _ => None,
        };
        assert_eq!(op("/new"), Some(SessionOp::New));
        assert_eq!(op("/resume"), Some(SessionOp::Resume(None)));
        assert_eq!(
            op("/resume @last"),
            Some(SessionOp::Resume(Some("@last".to_owned())))
        );
        assert_eq!(
            op("/fork"),
            Some(SessionOp::Fork(ForkPoint::Head, Worktree(false)))
        );
        assert_eq!(
            op("/fork t12 --worktree"),
            Some(SessionOp::Fork(ForkPoint::Message(12), Worktree(true)))
        );
        assert_eq!(
            op("/fork t12"),
            Some(SessionOp::Fork(ForkPoint::Message(12), Worktree(false)))
        );
        assert_eq!(
            op("/fork pick"),
            Some(SessionOp::Fork(ForkPoint::Pick, Worktree(false)))
        );
        assert_eq!(op("/clear"), Some(SessionOp::Clear));
        assert_eq!(op("/fresh"), Some(SessionOp::Fresh));
        assert_eq!(op("/drop"), Some(SessionOp::Drop));
        assert_eq!(
            op("/rename auth work"),
            Some(SessionOp::Rename("auth work".to_owned()))
        );
        assert_eq!(
            op("/mode plan"),
            Some(SessionOp::Mode(crate::mode::Mode::Plan))
        );
        for wrong in [
            "/new now",
            "/drop it",
            "/fork later",
            "/resume a b",
            "/rename",
            "/mode fast",
        ] {
            assert!(matches!(parse(wrong), Slash::Usage(_)), "{wrong}");
        }
    }

    #[test]
    fn resume_at_an_agent_continues_its_session() {
        let foreign = |agent, query: Option<&str>| {
            Slash::Session(SessionOp::ResumeForeign {
                agent,
                query: query.map(str::to_owned),
            })
        };
        assert_eq!(parse("/resume @claude"), foreign(Foreign::Claude, None));
        assert_eq!(
            parse("/resume @claude-code"),
            foreign(Foreign::Claude, None)
        );
        assert_eq!(parse("/resume  @codex "), foreign(Foreign::Codex, None));
        assert_eq!(
            parse("/resume @pi 0194ab"),
            foreign(Foreign::Pi, Some("0194ab"))
        );
        assert_eq!(
            parse("/resume @claude \"/my dir/8f1c.jsonl\""),
            foreign(Foreign::Claude, Some("/my dir/8f1c.jsonl"))
        );
        assert_eq!(
            parse("/resume @claude /my dir/8f1c.jsonl"),
            foreign(Foreign::Claude, Some("/my dir/8f1c.jsonl"))
        );
        // Other mentions stay hotl references.
        assert_eq!(
            parse("/resume @last"),
            Slash::Session(SessionOp::Resume(Some("@last".to_owned())))
        );
        assert_eq!(
            parse("/resume @claudes"),
            Slash::Session(SessionOp::Resume(Some("@claudes".to_owned())))
        );
        assert!(matches!(parse("/resume @last x"), Slash::Usage(_)));
        assert!(help(true).contains("/resume [REF|@claude|@codex|@pi]"));
        assert_eq!(
            SessionOp::ResumeForeign {
                agent: Foreign::Codex,
                query: None
            }
            .name(),
            "/resume"
        );
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
}

#[cfg(test)]
mod table_tests {
    use super::*;

    #[test]
    fn every_row_of_the_table_parses_to_a_command() {
        for command in COMMANDS {
            for name in std::iter::once(command.name).chain(command.aliases.iter().copied()) {
                let parsed = parse(&format!("/{name}"));
                assert!(
                    !matches!(parsed, Slash::Unknown(_) | Slash::Message(_)),
                    "/{name} is in the table but does not parse: {parsed:?}"
                );
            }
            assert!(
                help(true).contains(&command.usage()),
                "{} in /help",
                command.name
            );
        }
    }

    #[test]
    fn help_and_the_popup_list_the_same_commands() {
        let popup: Vec<String> = popup_rows(true).map(|(name, _)| name).collect();
        for name in ["/model", "/context", "/effort", "/raw", "/stats", "/quit"] {
            assert!(popup.iter().any(|p| p == name), "{name} in the popup");
            assert!(help(true).contains(name), "{name} in /help");
        }
        // An editor is offered only what works without a terminal.
        let editor: Vec<String> = popup_rows(false).map(|(name, _)| name).collect();
        assert!(editor.iter().any(|p| p == "/fold"));
        assert!(!editor.iter().any(|p| p == "/copy" || p == "/resume"));
    }
}

/// `/revert [t<seq>] [--code|--conversation|--both]`, in either order.
fn parse_revert(rest: &str) -> Slash {
    let mut seq = None;
    let mut scope = crate::RevertScope::default();
    if rest.trim() == "undo" {
        return Slash::Session(SessionOp::UndoRestore);
    }
    for word in rest.split_whitespace() {
        if word.starts_with("--") {
            match crate::RevertScope::from_flag(word) {
                Some(s) => scope = s,
                None => {
                    return Slash::Usage(format!(
                        "{word}: /revert takes --code, --conversation or --both"
                    ));
                }
            }
        } else {
            match hotl_view::stamp_seq(word) {
                Some(s) if seq.is_none() => seq = Some(s),
                _ => {
                    return Slash::Usage(format!(
                        "{word:?} is not a stamp; expected /revert t<seq> (a user message's), or /revert to pick"
                    ));
                }
            }
        }
    }
    Slash::Session(SessionOp::Revert(seq, scope))
}
