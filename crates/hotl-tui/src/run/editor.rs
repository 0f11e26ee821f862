//! Ctrl+G: the message edited in `$VISUAL`, `$EDITOR` or `vi`, which gets the terminal in the
//! shell's modes while it runs.

use std::io::{self, Write};

use crossterm::event::{
    EnableBracketedPaste, KeyboardEnhancementFlags, PushKeyboardEnhancementFlags,
};
use crossterm::execute;

use super::terminal::restore;

/// Edits `text` in `$VISUAL`, `$EDITOR` or `vi`, with the terminal handed over in the
/// shell's modes, and gives back what was saved (its last newline dropped).
pub(super) async fn edit_externally(text: &str, kitty: bool) -> io::Result<String> {
    let path = std::env::temp_dir().join(format!(
        "hotl-message-{}-{}.md",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    ));
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)?;
        file.write_all(text.as_bytes())?;
    }
    restore(kitty);
    let editor = std::env::var("VISUAL")
        .or_else(|_| std::env::var("EDITOR"))
        .unwrap_or_else(|_| "vi".to_owned());
    let run = {
        let path = path.clone();
        tokio::task::spawn_blocking(move || {
            std::process::Command::new("sh")
                .arg("-c")
                .arg(format!("{editor} \"$1\""))
                .arg("sh")
                .arg(&path)
                .status()
        })
        .await
        .map_err(io::Error::other)
    };
    let back = reenter(kitty);
    let read = std::fs::read_to_string(&path);
    let _ = std::fs::remove_file(&path);
    back?;
    let status = run??;
    if !status.success() {
        return Err(io::Error::other(format!(
            "it exited with {status}; the message is as it was"
        )));
    }
    let mut text = read?;
    if text.ends_with('\n') {
        text.pop();
    }
    Ok(text)
}

/// The UI's terminal modes again, after a program that had the terminal.
fn reenter(kitty: bool) -> io::Result<()> {
    crossterm::terminal::enable_raw_mode()?;
    let mut out = io::stdout();
    execute!(out, EnableBracketedPaste)?;
    if kitty {
        execute!(
            out,
            PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES)
        )?;
    }
    Ok(())
}
