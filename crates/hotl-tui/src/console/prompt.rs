//! The console's input line: a line editor (editing keys, history, Ctrl-R) whose bracketed
//! paste keeps a pasted block one message, newlines and all, until Enter; lines of any length
//! (the terminal's own line discipline would cut them at 4 KiB). History lives in
//! `<home>/console-history`.

use std::path::PathBuf;

use rustyline::error::ReadlineError;
use rustyline::history::FileHistory;
use rustyline::{Config, Editor};

/// How many entries the history keeps.
const HISTORY: usize = 1000;

/// What one read at the prompt gave.
pub enum Input {
    /// A message or command, as typed or pasted.
    Line(String),
    /// Ctrl-C at the prompt: the line is dropped, the console goes on.
    Interrupted,
    /// Ctrl-D on an empty line, or the terminal went away.
    End,
}

/// The prompt, with its history.
pub struct Prompt {
    editor: Editor<(), FileHistory>,
    /// Where the history is kept (none: in memory only).
    history: Option<PathBuf>,
}

impl Prompt {
    /// A prompt whose history is kept in `history` (a missing or unreadable file starts an
    /// empty one; none: the history lives in memory only).
    pub fn new(history: Option<PathBuf>) -> Result<Prompt, ReadlineError> {
        let config = Config::builder()
            .max_history_size(HISTORY)?
            .history_ignore_dups(true)?
            .history_ignore_space(true)
            .build();
        let mut editor = Editor::with_config(config)?;
        if let Some(history) = &history {
            private_file(history);
            // A missing or unreadable history starts an empty one.
            let _ = editor.load_history(history);
        }
        Ok(Prompt { editor, history })
    }

    /// Reads one message. Blocks: call it off the async runtime.
    pub fn read(&mut self) -> Input {
        match self.editor.readline("> ") {
            Ok(line) => {
                if !line.trim().is_empty() {
                    let _ = self.editor.add_history_entry(line.as_str());
                    // Losing history is no reason to stop the console.
                    if let Some(history) = &self.history {
                        let _ = self.editor.append_history(history);
                    }
                }
                Input::Line(line)
            }
            Err(ReadlineError::Interrupted) => Input::Interrupted,
            Err(_) => Input::End,
        }
    }
}

/// Creates `path` private (0600) when it is missing, and makes it so when it is not: what was
/// typed at the prompt is nobody else's business, whatever the umask.
fn private_file(path: &std::path::Path) {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let opened = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path);
    if let Ok(file) = opened
        && file
            .metadata()
            .is_ok_and(|m| m.permissions().mode() & 0o077 != 0)
        && let Err(e) = file.set_permissions(std::fs::Permissions::from_mode(0o600))
    {
        tracing::warn!("{} stays readable by others: {e}", path.display());
    }
}

/// The terminal's mode as it was before the editor first read, to put back when the process
/// is stopped while the editor holds the terminal in raw mode.
pub struct TerminalMode(Option<rustix::termios::Termios>);

impl TerminalMode {
    /// The mode of the terminal on stdin now (nothing, when stdin is no terminal).
    pub fn save() -> TerminalMode {
        TerminalMode(rustix::termios::tcgetattr(std::io::stdin()).ok())
    }

    /// Puts the saved mode back.
    pub fn restore(&self) {
        if let Some(mode) = &self.0
            && let Err(e) = rustix::termios::tcsetattr(
                std::io::stdin(),
                rustix::termios::OptionalActions::Now,
                mode,
            )
        {
            tracing::warn!("the terminal's mode cannot be restored: {e}");
        }
    }
}
