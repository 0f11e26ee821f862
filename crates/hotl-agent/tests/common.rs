//! What the agent's integration tests share: reading a command's end out of the events.

use hotl_agent::{Event, Failure, Outcome, TurnOutcome};

/// The outcome `event` ends a command with, unless it only says a command was taken.
pub fn outcome(event: &Event) -> Option<&Outcome> {
    match event {
        Event::Done(done) => match &done.result {
            Ok(Outcome::Accepted { .. }) => None,
            Ok(outcome) => Some(outcome),
            Err(_) => None,
        },
        _ => None,
    }
}

/// The failure `event` ends a command with.
pub fn failure(event: &Event) -> Option<&Failure> {
    match event {
        Event::Done(done) => done.result.as_ref().err(),
        _ => None,
    }
}

/// The turn `event` ends.
pub fn turn(event: &Event) -> Option<&TurnOutcome> {
    match outcome(event) {
        Some(Outcome::TurnEnded(turn)) => Some(turn),
        _ => None,
    }
}

/// Whether `event` ends a command other than one acted on at once (cancel, approve).
pub fn ends(event: &Event) -> bool {
    outcome(event).is_some() || failure(event).is_some()
}
