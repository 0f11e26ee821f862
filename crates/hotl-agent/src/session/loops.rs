//! The loop guard. A weak model can call one tool with the same arguments over and over (42
//! identical reads in one turn were seen on a small local model), getting the same result each
//! time and filling its window. After [`NUDGE_AFTER`] such calls in a row the model is told
//! where the result already is instead of being given it again; after [`STOP_AFTER`] the turn
//! ends. A call that may change something is judged before it runs, so a repeated side
//! effect is not repeated.

use std::hash::{Hash, Hasher};

use hotl_tool::ToolOutput;

/// Identical calls in a row after which a call is answered with a pointer to the first result.
pub(super) const NUDGE_AFTER: usize = 3;

/// Identical calls in a row after which the turn stops.
pub(super) const STOP_AFTER: usize = 5;

/// What to do with a call's result.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Verdict {
    /// Record it as it is.
    Record,
    /// Answer with a pointer to the first result (at `first`, a seq) instead.
    Nudge { first: u64, times: usize },
    /// Answer with a pointer and end the turn.
    Stop { first: u64, times: usize },
}

/// The run of identical calls the turn is in.
#[derive(Debug, Default)]
pub(super) struct LoopGuard {
    last: Option<Run>,
}

#[derive(Debug)]
struct Run {
    name: String,
    input: serde_json::Value,
    result: u64,
    /// Where the first result of the run was recorded.
    first: u64,
    times: usize,
}

impl LoopGuard {
    /// Notes a call of `name` with `input` that gave `output`: the same tool, arguments
    /// (compared as JSON, so spacing does not matter) and result as the call before it
    /// lengthen the run, anything else starts a new one.
    pub(super) fn note(&mut self, name: &str, input: &str, output: &ToolOutput) -> Verdict {
        let input = serde_json::from_str(input).unwrap_or(serde_json::Value::Null);
        let result = result_hash(output);
        match &mut self.last {
            Some(run) if run.name == name && run.input == input && run.result == result => {
                run.times += 1;
                let (first, times) = (run.first, run.times);
                if times >= STOP_AFTER {
                    Verdict::Stop { first, times }
                } else if times >= NUDGE_AFTER {
                    Verdict::Nudge { first, times }
                } else {
                    Verdict::Record
                }
            }
            _ => {
                self.last = Some(Run {
                    name: name.to_owned(),
                    input,
                    result,
                    first: 0,
                    times: 1,
                });
                Verdict::Record
            }
        }
    }

    /// Before a call of `name` with `input` that would change something runs: when it
    /// repeats the run of identical calls far enough to be nudged, the verdict, and it is
    /// counted (it does not run: a side effect is not repeated to learn it gave the same).
    pub(super) fn before(&mut self, name: &str, input: &str) -> Option<Verdict> {
        let input = serde_json::from_str(input).unwrap_or(serde_json::Value::Null);
        let run = self.last.as_mut()?;
        if run.name != name || run.input != input || run.times + 1 < NUDGE_AFTER {
            return None;
        }
        run.times += 1;
        let (first, times) = (run.first, run.times);
        Some(if times >= STOP_AFTER {
            Verdict::Stop { first, times }
        } else {
            Verdict::Nudge { first, times }
        })
    }

    /// Where the result just noted was recorded: the first of a run is the one pointed at.
    pub(super) fn recorded_at(&mut self, seq: u64) {
        if let Some(run) = &mut self.last
            && run.times == 1
        {
            run.first = seq;
        }
    }
}

/// What a repeated call that changes things is answered with, instead of running again.
pub(super) fn not_run(name: &str, first: u64, times: usize, stopping: bool) -> String {
    let then = if stopping {
        "The turn is stopped here."
    } else {
        "Use that result, or do something different; the turn stops if the same call comes again \
         twice more."
    };
    format!(
        "This is call {times} in a row of {name} with the same arguments, each with the same \
         result: it was not run again (its result is the one already given at t{first}). {then}"
    )
}

/// What a repeated call is answered with instead of its result again.
pub(super) fn nudge(name: &str, first: u64, times: usize, stopping: bool) -> String {
    let then = if stopping {
        "The turn is stopped here."
    } else {
        "Use that result, or do something different; the turn stops if the same call comes again \
         twice more."
    };
    format!(
        "This is call {times} in a row of {name} with the same arguments, and its result is \
         unchanged: it is the result already given at t{first}. {then}"
    )
}

fn result_hash(output: &ToolOutput) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    output.content.hash(&mut hasher);
    output.is_error.hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_calls_in_a_row_are_nudged_then_stopped() {
        let mut guard = LoopGuard::default();
        let out = ToolOutput::ok("fn main() {}");
        assert_eq!(
            guard.note("read", r#"{"path":"a.rs"}"#, &out),
            Verdict::Record
        );
        guard.recorded_at(7);
        // Spacing differs: still the same arguments.
        assert_eq!(
            guard.note("read", r#"{ "path": "a.rs" }"#, &out),
            Verdict::Record
        );
        guard.recorded_at(9);
        assert_eq!(
            guard.note("read", r#"{"path":"a.rs"}"#, &out),
            Verdict::Nudge { first: 7, times: 3 }
        );
        assert_eq!(
            guard.note("read", r#"{"path":"a.rs"}"#, &out),
            Verdict::Nudge { first: 7, times: 4 }
        );
        assert_eq!(
            guard.note("read", r#"{"path":"a.rs"}"#, &out),
            Verdict::Stop { first: 7, times: 5 }
        );
    }

    #[test]
    fn a_different_call_or_result_starts_over() {
        let mut guard = LoopGuard::default();
        let a = ToolOutput::ok("one");
        for _ in 0..2 {
            assert_eq!(guard.note("read", r#"{"path":"a"}"#, &a), Verdict::Record);
        }
        // The file changed between reads: not a loop.
        assert_eq!(
            guard.note("read", r#"{"path":"a"}"#, &ToolOutput::ok("two")),
            Verdict::Record
        );
        assert_eq!(
            guard.note("read", r#"{"path":"b"}"#, &ToolOutput::ok("two")),
            Verdict::Record
        );
        assert_eq!(guard.note("ls", r#"{"path":"b"}"#, &a), Verdict::Record);
        assert_eq!(guard.note("ls", r#"{"path":"b"}"#, &a), Verdict::Record);
        assert!(matches!(
            guard.note("ls", r#"{"path":"b"}"#, &a),
            Verdict::Nudge { times: 3, .. }
        ));
    }
}
