//! Builders for agent events and keys.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use hotl_protocol::{Done, Envelope, Event, Outcome, TurnOutcome};
use ratatui::text::Line;

pub fn ev(event: Event) -> Envelope {
    Envelope {
        command: None,
        child: None,
        event,
    }
}

pub fn child(handle: &str, event: Event) -> Envelope {
    Envelope {
        command: None,
        child: Some(handle.to_owned()),
        event,
    }
}

pub fn delta(text: &str) -> Envelope {
    ev(Event::Model {
        event: hotl_wire::Event::TextDelta {
            text: text.to_owned(),
        },
    })
}

pub fn ended() -> Envelope {
    done(Outcome::TurnEnded(TurnOutcome::default()))
}

/// A command's end with `outcome`.
pub fn done(outcome: Outcome) -> Envelope {
    ev(Event::Done(Done::ok(outcome)))
}

pub fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

pub fn ctrl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}

pub fn typed(app: &mut hotl_tui::App, text: &str) {
    let now = std::time::Instant::now();
    for c in text.chars() {
        app.key(key(KeyCode::Char(c)), now);
    }
}

pub fn text(rows: &[Line<'static>]) -> Vec<String> {
    rows.iter().map(hotl_tui::wrap::plain).collect()
}
