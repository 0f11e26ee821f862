//! What a turn came to ([`TurnOutcome`]) and what this process spent ([`Totals`]).

use hotl_wire::{StopReason, Usage};

/// How a turn ended.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct TurnOutcome {
    /// The final answer's text.
    pub text: String,
    /// Why the model stopped.
    pub stop: Option<StopReason>,
    /// Model calls made.
    pub steps: usize,
    /// Usage of this turn.
    pub usage: Usage,
    /// Cost of this turn in dollars, when the model's price is known.
    pub cost: Option<f64>,
    /// The user cancelled it.
    pub cancelled: bool,
}

impl TurnOutcome {
    /// Counts into this turn what this process spent between `before` and `after` (a
    /// compaction's model calls).
    pub fn add_spent(&mut self, before: &Totals, after: &Totals) {
        let (b, a) = (&before.usage, &after.usage);
        let spent = Usage {
            input: a.input - b.input,
            cache_read: a.cache_read - b.cache_read,
            cache_write_5m: a.cache_write_5m - b.cache_write_5m,
            cache_write_1h: a.cache_write_1h - b.cache_write_1h,
            output: a.output - b.output,
            thinking: a.thinking - b.thinking,
        };
        add_usage(&mut self.usage, &spent);
        let cost = after.cost - before.cost;
        if cost > 0.0 {
            *self.cost.get_or_insert(0.0) += cost;
        }
    }

    /// Counts an earlier turn's usage and cost into this one (the text stays this turn's).
    pub fn add(&mut self, earlier: &TurnOutcome) {
        add_usage(&mut self.usage, &earlier.usage);
        self.steps += earlier.steps;
        if let Some(c) = earlier.cost {
            *self.cost.get_or_insert(0.0) += c;
        }
    }
}

/// Usage and cost counted by this process (they start at zero on resume).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Totals {
    /// Tokens.
    pub usage: Usage,
    /// Dollars (known prices only).
    pub cost: f64,
    /// Model calls.
    pub requests: u32,
    /// Time spent waiting for the model (the exchange, after the request body was built).
    pub model_time: std::time::Duration,
    /// Time spent in tools.
    pub tool_time: std::time::Duration,
}

impl Totals {
    /// Counts a delegated session's totals (a fork's) into these.
    pub fn add(&mut self, other: &Totals) {
        add_usage(&mut self.usage, &other.usage);
        self.cost += other.cost;
        self.requests += other.requests;
        self.model_time += other.model_time;
        self.tool_time += other.tool_time;
    }
}

/// Adds `more` into `total`, kind by kind.
pub fn add_usage(total: &mut Usage, more: &Usage) {
    total.input += more.input;
    total.cache_read += more.cache_read;
    total.cache_write_5m += more.cache_write_5m;
    total.cache_write_1h += more.cache_write_1h;
    total.output += more.output;
    total.thinking += more.thinking;
}
