//! The slash-command table: every command a front end offers, declared once with its
//! arguments, its help line and what it needs. `/help`, the `/` popup, an editor's command
//! menu and the docs are made from it, and [`parse`](super::parse) knows no command that is
//! not in it.

/// What a command needs before it can run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Needs {
    /// Nothing may be running (a move, a switch, anything that changes what the model sees).
    pub idle: bool,
    /// The session must be on disk (it is written with its first message).
    pub saved: bool,
    /// A terminal front end (the terminal UI or the line console): pickers, the clipboard,
    /// files written for the user. An editor over ACP does not offer it.
    pub terminal: bool,
}

impl Needs {
    const NOTHING: Needs = Needs {
        idle: false,
        saved: false,
        terminal: false,
    };
    const SAVED: Needs = Needs {
        saved: true,
        ..Needs::NOTHING
    };
    const SAVED_IDLE: Needs = Needs {
        idle: true,
        saved: true,
        terminal: false,
    };
    const TERMINAL: Needs = Needs {
        terminal: true,
        ..Needs::NOTHING
    };
    const TERMINAL_IDLE: Needs = Needs {
        idle: true,
        terminal: true,
        saved: false,
    };
    const TERMINAL_SAVED: Needs = Needs {
        saved: true,
        terminal: true,
        idle: false,
    };
    const ALL: Needs = Needs {
        idle: true,
        saved: true,
        terminal: true,
    };
}

/// One slash command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlashCommand {
    /// Its name, without the slash.
    pub name: &'static str,
    /// Other names it answers to.
    pub aliases: &'static [&'static str],
    /// Its arguments as `/help` shows them (empty: none).
    pub args: &'static str,
    /// What it does, in one line.
    pub help: &'static str,
    /// What it needs.
    pub needs: Needs,
}

impl SlashCommand {
    /// `/name ARGS`, as `/help` starts its line.
    pub fn usage(&self) -> String {
        let mut usage = format!("/{}", self.name);
        for alias in self.aliases {
            usage.push_str(&format!(", /{alias}"));
        }
        if !self.args.is_empty() {
            usage.push(' ');
            usage.push_str(self.args);
        }
        usage
    }

    /// Whether `word` (without the slash) names it.
    pub fn answers_to(&self, word: &str) -> bool {
        self.name == word || self.aliases.contains(&word)
    }
}

/// Every slash command, in `/help`'s order.
pub const COMMANDS: &[SlashCommand] = &[
    SlashCommand {
        name: "fold",
        aliases: &[],
        args: "[t<seq>]",
        help: "fold a finished span into a note the model writes (default: since the last fold, compaction or clear)",
        needs: Needs::SAVED_IDLE,
    },
    SlashCommand {
        name: "recall",
        aliases: &[],
        args: "[--exact|--regex] QUERY",
        help: "search what this session archived: folds, compactions, forks, earlier asks (ranked by default; no model call)",
        needs: Needs::SAVED,
    },
    SlashCommand {
        name: "ask",
        aliases: &[],
        args: "HANDLE QUESTION",
        help: "put one question to an archived thread (a fold, a compaction, a fork: the handle recall shows)",
        needs: Needs::SAVED_IDLE,
    },
    SlashCommand {
        name: "compact",
        aliases: &[],
        args: "",
        help: "replace everything the model sees with a note it writes (a turn does this itself near the window)",
        needs: Needs::SAVED_IDLE,
    },
    SlashCommand {
        name: "new",
        aliases: &[],
        args: "",
        help: "start a new session here (written with its first message)",
        needs: Needs::TERMINAL_IDLE,
    },
    SlashCommand {
        name: "resume",
        aliases: &[],
        args: "[REF|@claude|@codex|@pi]",
        help: "switch to another session: a list number, id prefix, name or @last (no REF: pick from a list); @claude, @codex or @pi [ID]: continue that agent's session of this directory as a new one",
        needs: Needs::TERMINAL_IDLE,
    },
    SlashCommand {
        name: "search",
        aliases: &[],
        args: "[QUERY]",
        help: "find a session by what was said in it: the resume picker, searching every session's text as you type, this project's first (no model call)",
        needs: Needs::TERMINAL_IDLE,
    },
    SlashCommand {
        name: "fork",
        aliases: &[],
        args: "[t<seq>|pick] [--worktree]",
        help: "fork this session and switch to the fork: at its head, or after the turn of a user message (pick: from a list); --worktree: the fork works in a new git worktree checked out at the code of that point, the current tree left alone",
        needs: Needs::SAVED_IDLE,
    },
    SlashCommand {
        name: "clear",
        aliases: &[],
        args: "",
        help: "the model starts from nothing after this point (the transcript keeps everything)",
        needs: Needs::SAVED_IDLE,
    },
    SlashCommand {
        name: "fresh",
        aliases: &[],
        args: "",
        help: "start the provider side clean (a new prompt-cache key); the conversation stays",
        needs: Needs::SAVED_IDLE,
    },
    SlashCommand {
        name: "drop",
        aliases: &[],
        args: "",
        help: "drop this session, as hotl sessions drop does (asks first), and start a new one",
        needs: Needs::ALL,
    },
    SlashCommand {
        name: "revert",
        aliases: &[],
        args: "[t<seq>|undo] [--code|--conversation|--both]",
        help: "go back to just before a user message, the files the later turns changed put back too (--conversation: only the conversation, --code: only the files; no stamp: pick one; Esc Esc too); later turns stay in the log; undo: the files the last revert put back go back as they were",
        needs: Needs::SAVED_IDLE,
    },
    SlashCommand {
        name: "rename",
        aliases: &[],
        args: "NAME",
        help: "name this session",
        needs: Needs::NOTHING,
    },
    SlashCommand {
        name: "tree",
        aliases: &[],
        args: "",
        help: "this session's lineage: its root, forks and delegated children (Enter switches)",
        needs: Needs::TERMINAL_SAVED,
    },
    SlashCommand {
        name: "mode",
        aliases: &[],
        args: "MODE",
        help: "permission mode: default, accept-edits, bypass or plan",
        needs: Needs::NOTHING,
    },
    SlashCommand {
        name: "model",
        aliases: &[],
        args: "[NAME]",
        help: "answer with another model from the next request on (no NAME: pick from the provider's list)",
        needs: Needs::NOTHING,
    },
    SlashCommand {
        name: "effort",
        aliases: &[],
        args: "[low|medium|high]",
        help: "reasoning effort from the next request on (no level: say the one in force)",
        needs: Needs::NOTHING,
    },
    SlashCommand {
        name: "context",
        aliases: &[],
        args: "",
        help: "what the context is made of: system prompt, tools, notes, live messages, what folds saved",
        needs: Needs::SAVED,
    },
    SlashCommand {
        name: "cost",
        aliases: &[],
        args: "",
        help: "what this session spent: tokens by kind, dollars, cache hits, per turn",
        needs: Needs::NOTHING,
    },
    SlashCommand {
        name: "stats",
        aliases: &[],
        args: "",
        help: "the session's token economy at a glance: cache hits, fresh-token equivalents, cache breaks, what folds and forks saved",
        needs: Needs::SAVED,
    },
    SlashCommand {
        name: "copy",
        aliases: &[],
        args: "[N]",
        help: "copy the last answer (or the N-th from the end) as written, without gutters",
        needs: Needs::TERMINAL,
    },
    SlashCommand {
        name: "raw",
        aliases: &[],
        args: "[N]",
        help: "show the last answer (or the N-th from the end) as written, without styling",
        needs: Needs::TERMINAL,
    },
    SlashCommand {
        name: "dump",
        aliases: &[],
        args: "",
        help: "copy the session as the model sees it (prompt, tools, messages); the next request's body is written to a private file",
        needs: Needs::TERMINAL_SAVED,
    },
    SlashCommand {
        name: "export",
        aliases: &[],
        args: "[PATH]",
        help: "write this session as one offline HTML page (.md or .jsonl by the extension; without a path, into <home>/exports/); prints the path",
        needs: Needs::TERMINAL_SAVED,
    },
    SlashCommand {
        name: "share",
        aliases: &[],
        args: "",
        help: "share this session as an encrypted link (redacted first; the key stays in the link)",
        needs: Needs::TERMINAL_SAVED,
    },
    SlashCommand {
        name: "help",
        aliases: &[],
        args: "",
        help: "this list",
        needs: Needs::NOTHING,
    },
    SlashCommand {
        name: "exit",
        aliases: &["quit"],
        args: "",
        help: "leave (Ctrl-D too)",
        needs: Needs::TERMINAL,
    },
];

/// The command `word` (without the slash) names, by its name or an alias.
pub fn find(word: &str) -> Option<&'static SlashCommand> {
    COMMANDS.iter().find(|c| c.answers_to(word))
}

/// The commands a front end offers: all of them on a terminal, those that need none
/// elsewhere (an editor over ACP).
pub fn offered(terminal: bool) -> impl Iterator<Item = &'static SlashCommand> {
    COMMANDS
        .iter()
        .filter(move |c| terminal || !c.needs.terminal)
}

/// `/help`'s text for a front end: every command it offers with its usage, one a line, and
/// the escape for a message that starts with a slash.
pub fn help(terminal: bool) -> String {
    let rows: Vec<(String, &str)> = offered(terminal)
        .map(|c| (c.usage(), c.help))
        .chain(std::iter::once((
            "//text".to_owned(),
            "send \"/text\" to the model as a message",
        )))
        .collect();
    let width = rows.iter().map(|(usage, _)| usage.len()).max().unwrap_or(0);
    rows.iter()
        .map(|(usage, what)| format!("{usage:<width$}  {what}\n"))
        .collect()
}

/// Each command's `/name` with what it does, in `/help`'s order, aliases included: the
/// `/` popup's rows.
pub fn popup_rows(terminal: bool) -> impl Iterator<Item = (String, &'static str)> {
    offered(terminal).flat_map(|c| {
        std::iter::once(c.name)
            .chain(c.aliases.iter().copied())
            .map(move |name| (format!("/{name}"), c.help))
    })
}

/// The table as the reference page shows it (`docs/commands.md`): a Markdown row for each
/// command with its usage, what it does, and where and when it runs.
pub fn reference() -> String {
    let mut out = String::from("| command | what it does | runs |\n|---|---|---|\n");
    for command in COMMANDS {
        let mut runs = vec![if command.needs.terminal {
            "terminal UI and console"
        } else {
            "everywhere (editors too)"
        }];
        if command.needs.saved {
            runs.push("once the session is saved");
        }
        if command.needs.idle {
            runs.push("not during a turn");
        }
        let usage = command.usage().replace('|', "\\|");
        out.push_str(&format!(
            "| `{usage}` | {} | {} |\n",
            command.help.replace('|', "\\|"),
            runs.join(", ")
        ));
    }
    out
}
