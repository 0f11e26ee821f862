//! The terminal's modes while the UI runs: raw mode, bracketed paste and the kitty keyboard
//! flags on entry (after the startup probe), and all of them restored on exit and on panic.

use std::io;

use crossterm::event::{
    DisableBracketedPaste, EnableBracketedPaste, KeyboardEnhancementFlags,
    PopKeyboardEnhancementFlags, PushKeyboardEnhancementFlags,
};
use crossterm::execute;

/// The terminal's modes while the UI runs; restored when dropped, and by the panic hook.
pub(super) struct Terminal {
    /// Whether the kitty keyboard flags were pushed (and must be popped).
    pub(super) kitty: bool,
    /// The cursor's row when the UI started, when the terminal said.
    pub(super) row: Option<u16>,
    /// What was typed while hotl started.
    pub(super) typed: String,
}

impl Terminal {
    /// Raw mode, the probe, bracketed paste and the keyboard flags; a panic hook that puts
    /// them back.
    pub(super) fn enter() -> io::Result<Terminal> {
        crossterm::terminal::enable_raw_mode()?;
        let answer = match crate::probe::ask() {
            Ok(answer) => answer,
            Err(e) => {
                let _ = crossterm::terminal::disable_raw_mode();
                return Err(e);
            }
        };
        let mut out = io::stdout();
        execute!(out, EnableBracketedPaste)?;
        if answer.kitty_keys {
            execute!(
                out,
                PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES)
            )?;
        }
        let kitty = answer.kitty_keys;
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore(kitty);
            previous(info);
        }));
        Ok(Terminal {
            kitty,
            row: answer.row,
            typed: answer.typed,
        })
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        restore(self.kitty);
    }
}

pub(super) fn restore(kitty: bool) {
    let mut out = io::stdout();
    if kitty {
        let _ = execute!(out, PopKeyboardEnhancementFlags);
    }
    let _ = execute!(
        out,
        DisableBracketedPaste,
        crossterm::event::DisableMouseCapture,
        crossterm::terminal::EndSynchronizedUpdate,
        crossterm::cursor::Show
    );
    let _ = crossterm::terminal::disable_raw_mode();
}
