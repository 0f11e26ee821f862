//! What running calls have printed so far: passed on to the front end as it comes
//! (`Event::ToolOutput`), and kept until the call's result is written, so a call the user
//! cancels is answered with the output it had printed rather than nothing.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use hotl_protocol::Event;
use hotl_tool::Progress;

use crate::events::Events;

/// The most of one call's output kept for its cancelled result (its end: the latest lines
/// say where it was).
const KEPT: usize = 64 * 1024;

/// Output printed by the calls running now, by call id. Cheap to clone.
#[derive(Clone, Debug, Default)]
pub(crate) struct Printed(Arc<Mutex<HashMap<String, String>>>);

impl Printed {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, String>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Where a call's output goes: told to `events` and kept here.
    pub(crate) fn progress(&self, events: &Events) -> Progress {
        let (printed, events) = (self.clone(), events.clone());
        Progress(Arc::new(move |id: &str, text: &str| {
            events.send(Event::ToolOutput {
                id: id.to_owned(),
                text: text.to_owned(),
            });
            let mut calls = printed.lock();
            let kept = calls.entry(id.to_owned()).or_default();
            kept.push_str(text);
            hotl_text::keep_tail(kept, KEPT);
        }))
    }

    /// What call `id` printed, taken (its result is being written).
    pub(crate) fn take(&self, id: &str) -> Option<String> {
        self.lock().remove(id).filter(|t| !t.trim().is_empty())
    }

    /// Forgets every call's output (a step's calls all answered).
    pub(crate) fn clear(&self) {
        self.lock().clear();
    }
}
