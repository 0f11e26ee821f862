//! hotl-tui's tests, by layer: the app's state with no terminal (`state`), the viewport drawn
//! into ratatui's test backend (`widgets`), and the screen's bytes read back through a
//! terminal emulator with scrollback (`screen`).

mod common;
mod screen;
mod state;
mod widgets;
