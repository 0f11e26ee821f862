//! Cost from a pricing table: per model, with cache multipliers. The table is configuration
//! (users override it); nothing here knows a price.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::usage::Usage;

/// The price of one model, in dollars per million tokens, with cache multipliers on the input
/// price.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelPrice {
    /// Uncached input, $/Mtok.
    pub input: f64,
    /// Output (thinking included), $/Mtok.
    pub output: f64,
    /// Cache reads, as a multiple of `input`.
    #[serde(default = "default_read")]
    pub cache_read: f64,
    /// 5-minute (or unspecified) cache writes, as a multiple of `input`.
    #[serde(default = "default_write_5m")]
    pub cache_write_5m: f64,
    /// 1-hour cache writes, as a multiple of `input`.
    #[serde(default = "default_write_1h")]
    pub cache_write_1h: f64,
}

fn default_read() -> f64 {
    0.1
}
fn default_write_5m() -> f64 {
    1.25
}
fn default_write_1h() -> f64 {
    2.0
}

/// Prices by model name. A model matches its exact name, else the longest name that is a
/// prefix of it (so `claude-sonnet-5` prices `claude-sonnet-5-20260301`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Pricing {
    models: BTreeMap<String, ModelPrice>,
}

/// The table hotl ships with: public list prices when this version was made. Configuration
/// overrides and extends it.
const DEFAULT_TABLE: &str = include_str!("default-pricing.json");

impl Pricing {
    /// The shipped table.
    pub fn builtin() -> Pricing {
        serde_json::from_str(DEFAULT_TABLE).expect("the shipped pricing table parses")
    }

    /// How many models the table prices.
    pub fn len(&self) -> usize {
        self.models.len()
    }

    /// Whether the table prices no model.
    pub fn is_empty(&self) -> bool {
        self.models.is_empty()
    }

    /// Adds or replaces entries.
    pub fn merge(&mut self, other: Pricing) {
        self.models.extend(other.models);
    }

    /// The price of `model`, if the table knows it.
    pub fn price(&self, model: &str) -> Option<&ModelPrice> {
        // The longest name that is a prefix of `model`: each prefix looked up, longest first
        // (a session prices every answer; a scan of the table for each was most of the time).
        (1..=model.len())
            .rev()
            .filter(|&end| model.is_char_boundary(end))
            .find_map(|end| self.models.get(&model[..end]))
    }

    /// The cost of `usage` on `model` in dollars, if the table knows the model.
    pub fn cost(&self, model: &str, usage: &Usage) -> Option<f64> {
        let p = self.price(model)?;
        let per = |tokens: u64, price: f64| tokens as f64 * price / 1e6;
        Some(
            per(usage.input, p.input)
                + per(usage.cache_read, p.input * p.cache_read)
                + per(usage.cache_write_5m, p.input * p.cache_write_5m)
                + per(usage.cache_write_1h, p.input * p.cache_write_1h)
                + per(usage.output, p.output),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cost_applies_cache_multipliers() {
        let pricing: Pricing = serde_json::from_str(
            r#"{"m": {"input": 3.0, "output": 15.0, "cache_read": 0.1, "cache_write_5m": 1.25, "cache_write_1h": 2.0}}"#,
        )
        .unwrap();
        let usage = Usage {
            input: 1_000_000,
            cache_read: 1_000_000,
            cache_write_5m: 1_000_000,
            cache_write_1h: 1_000_000,
            output: 1_000_000,
            thinking: 0,
        };
        let cost = pricing.cost("m-2026", &usage).unwrap();
        assert!(
            (cost - (3.0 + 0.3 + 3.75 + 6.0 + 15.0)).abs() < 1e-9,
            "{cost}"
        );
        assert_eq!(pricing.cost("other", &usage), None);
    }

    #[test]
    fn longest_prefix_wins_and_the_builtin_table_parses() {
        let mut pricing = Pricing::builtin();
        pricing.merge(
            serde_json::from_str(
                r#"{"x": {"input": 1, "output": 1}, "x-big": {"input": 9, "output": 9}}"#,
            )
            .unwrap(),
        );
        assert_eq!(pricing.price("x-big-1").unwrap().input, 9.0);
        assert_eq!(pricing.price("x-small").unwrap().input, 1.0);
        assert_eq!(pricing.price("demo").unwrap().input, 0.0);
    }
}
