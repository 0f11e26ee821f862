//! What a key, a paste, a click or a resize does: the fullscreen transcript takes the mouse,
//! scrolling and the focus on archive handles; everything else is the app's.

use std::io::{self, Write};
use std::time::Instant;

use crossterm::event::{
    Event as Input, KeyCode, KeyEvent, KeyEventKind, MouseButton, MouseEventKind,
};

use super::clipboard::copy;
use crate::app::App;
use crate::cells::Tone;
use crate::fullscreen::{Click, FullScreen};
use crate::screen::Screen;

/// Hands one terminal event to whichever part of the screen takes it.
pub(super) fn handle_input<W: Write>(
    event: Input,
    app: &mut App,
    screen: &mut Screen<W>,
    full: Option<&mut FullScreen>,
) -> io::Result<()> {
    if let Some(full) = full
        && fullscreen_input(&event, app, screen, full)?
    {
        return Ok(());
    }
    match event {
        Input::Key(key) if key.kind != KeyEventKind::Release => app.key(key, Instant::now()),
        Input::Paste(text) => app.paste(&text),
        Input::Resize(cols, rows) => {
            screen.resize((cols, rows))?;
            app.resize(cols);
        }
        _ => {}
    }
    Ok(())
}

/// The fullscreen transcript's share of the input: it scrolls, takes clicks and moves the
/// focus between handles; says whether it took the event.
fn fullscreen_input<W: Write>(
    event: &Input,
    app: &mut App,
    screen: &mut Screen<W>,
    full: &mut FullScreen,
) -> io::Result<bool> {
    app.dirty = true;
    let key = match event {
        Input::Mouse(mouse) => {
            match mouse.kind {
                MouseEventKind::ScrollUp => full.view.scroll(-full.view.wheel()),
                MouseEventKind::ScrollDown => full.view.scroll(full.view.wheel()),
                MouseEventKind::Down(MouseButton::Left) => {
                    if let Click::Handle(handle) = full.view.click(mouse.column, mouse.row, app) {
                        app.composer.set_text(&format!("/ask {handle} "));
                    }
                }
                _ => {}
            }
            return Ok(true);
        }
        Input::Resize(cols, _) => {
            app.resize(*cols);
            full.reflow(app);
            return Ok(true);
        }
        Input::Key(key) if key.kind != KeyEventKind::Release => key,
        _ => return Ok(false),
    };
    if full.view.focused().is_some() {
        on_focused_handle(key, app, screen, full)?;
        return Ok(true);
    }
    match key.code {
        KeyCode::Tab | KeyCode::BackTab
            if app.composer.is_empty() && app.popup_rows.is_empty() && app.modal.is_none() =>
        {
            full.view.focus_next(key.code == KeyCode::Tab);
        }
        KeyCode::PageUp => full.view.scroll(-full.view.page()),
        KeyCode::PageDown => full.view.scroll(full.view.page()),
        _ => return Ok(false),
    }
    Ok(true)
}

/// A key while a handle has the focus: Enter asks it, r recalls, y copies, Tab moves on;
/// anything else leaves the handle and goes to the app.
fn on_focused_handle<W: Write>(
    key: &KeyEvent,
    app: &mut App,
    screen: &mut Screen<W>,
    full: &mut FullScreen,
) -> io::Result<()> {
    let handle = full.view.focused().unwrap_or_default().to_owned();
    match key.code {
        KeyCode::Tab => {
            full.view.focus_next(true);
        }
        KeyCode::BackTab => {
            full.view.focus_next(false);
        }
        KeyCode::Enter => {
            full.view.unfocus();
            app.composer.set_text(&format!("/ask {handle} "));
        }
        KeyCode::Char('r') => {
            full.view.unfocus();
            app.composer.set_text("/recall ");
        }
        KeyCode::Char('y') => {
            full.view.unfocus();
            copy(screen, &handle)?;
            app.say(format!("copied {handle}"), Tone::Info);
        }
        _ => {
            full.view.unfocus();
            app.key(*key, Instant::now());
        }
    }
    Ok(())
}
