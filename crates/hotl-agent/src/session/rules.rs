//! When a turn compacts: the rules, as state that lives with the turn and ends with it.
//!
//! - Ahead of the window: before a request that would come near the window, compact, unless
//!   compacting was turned off for this turn: a compaction failed (the requests may still
//!   fit), compacting would not help (what it keeps already fills the window), or the turn
//!   thrashes (three compactions each a step or less after the previous: the window is too
//!   small for the work, and compacting ahead only costs notes).
//! - After a refusal: a request the provider refuses as too long is compacted and asked
//!   again, once until the model answers (the turn moved on); a refusal is compacted even when
//!   compacting ahead is off.

/// How many compactions, each at most one step after the previous, turn compacting ahead off.
pub(super) const MAX_THRASHING: usize = 3;

/// Whether a turn should compact before its next request, as the window says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Need {
    /// Far from the window.
    No,
    /// Near it.
    Yes,
    /// Near it, but the first request after the latest compaction already was (this many
    /// tokens): compacting again would not help.
    Futile(u64),
}

/// What to do before a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ahead {
    /// Send it.
    Send,
    /// Compact first.
    Compact,
    /// Say once that compacting cannot help (what it keeps is this many tokens), then send.
    Futile(u64),
}

/// The state of the rules in one turn.
#[derive(Clone, Debug)]
pub(super) struct Rules {
    /// Compacting ahead of the window is on.
    ahead: bool,
    /// A refusal for length may be compacted (again after the next answer).
    on_refusal: bool,
    /// Compactions made a step or less after the previous one.
    thrashing: usize,
    /// Answers since the latest compaction of this turn (`None`: none yet).
    since_last: Option<usize>,
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            ahead: true,
            on_refusal: true,
            thrashing: 0,
            since_last: None,
        }
    }
}

impl Rules {
    /// What to do before a request, given what the window says.
    pub(super) fn before_request(&mut self, need: Need) -> Ahead {
        match need {
            Need::Yes if self.ahead => Ahead::Compact,
            Need::Futile(floor) if self.ahead => {
                self.ahead = false;
                Ahead::Futile(floor)
            }
            _ => Ahead::Send,
        }
    }

    /// A compaction ahead of the window was made. `true` when it makes the turn thrash:
    /// compacting ahead is off from now on (say so).
    pub(super) fn compacted(&mut self) -> bool {
        if self.since_last.is_some_and(|answers| answers <= 1) {
            self.thrashing += 1;
        }
        self.since_last = Some(0);
        if self.thrashing >= MAX_THRASHING && self.ahead {
            self.ahead = false;
            return true;
        }
        false
    }

    /// A compaction ahead of the window failed: no more for this turn.
    pub(super) fn failed(&mut self) {
        self.ahead = false;
    }

    /// The model answered.
    pub(super) fn answered(&mut self) {
        self.on_refusal = true;
        self.since_last = self.since_last.map(|answers| answers + 1);
    }

    /// The provider refused a request as too long: whether to compact and ask again.
    pub(super) fn refused(&mut self) -> bool {
        std::mem::replace(&mut self.on_refusal, false)
    }

    /// A compaction after a refusal was made; the same step is asked again.
    pub(super) fn compacted_after_refusal(&mut self) {
        self.since_last = Some(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn far_from_the_window_nothing_is_compacted() {
        let mut rules = Rules::default();
        assert_eq!(rules.before_request(Need::No), Ahead::Send);
        assert_eq!(rules.before_request(Need::Yes), Ahead::Compact);
    }

    #[test]
    fn three_compactions_a_step_apart_turn_compacting_ahead_off() {
        let mut rules = Rules::default();
        // The first compaction of a turn does not count: nothing came before it.
        assert!(!rules.compacted());
        rules.answered();
        assert!(!rules.compacted(), "one");
        rules.answered();
        assert!(!rules.compacted(), "two");
        rules.answered();
        assert!(rules.compacted(), "three: thrashing, said once");
        assert_eq!(rules.before_request(Need::Yes), Ahead::Send);
        // A refusal is still compacted.
        assert!(rules.refused());
    }

    #[test]
    fn compactions_with_room_between_them_do_not_thrash() {
        let mut rules = Rules::default();
        for _ in 0..10 {
            assert!(!rules.compacted());
            rules.answered();
            rules.answered();
        }
        assert_eq!(rules.before_request(Need::Yes), Ahead::Compact);
    }

    #[test]
    fn a_refusal_is_compacted_once_until_the_next_answer() {
        let mut rules = Rules::default();
        assert!(rules.refused());
        rules.compacted_after_refusal();
        assert!(!rules.refused(), "refused again before any answer: give up");
        rules.answered();
        assert!(rules.refused(), "the turn moved on");
    }

    #[test]
    fn a_failed_compaction_turns_further_ones_off() {
        let mut rules = Rules::default();
        assert_eq!(rules.before_request(Need::Yes), Ahead::Compact);
        rules.failed();
        assert_eq!(rules.before_request(Need::Yes), Ahead::Send);
        assert!(rules.refused(), "a refusal still is");
    }

    #[test]
    fn futile_is_said_once_and_turns_compacting_ahead_off() {
        let mut rules = Rules::default();
        assert_eq!(rules.before_request(Need::Futile(900)), Ahead::Futile(900));
        assert_eq!(rules.before_request(Need::Futile(900)), Ahead::Send);
        assert_eq!(rules.before_request(Need::Yes), Ahead::Send);
    }
}
