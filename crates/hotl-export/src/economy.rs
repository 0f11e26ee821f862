//! What a session spent, as the caller priced it (the pricing table lives with the providers,
//! not here): per turn and in total, with the children apart.

use serde::Serialize;

/// Tokens and dollars of some requests.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Spend {
    /// Requests answered.
    pub requests: u64,
    /// Uncached input tokens.
    pub input: u64,
    /// Input tokens read from the prompt cache.
    pub cache_read: u64,
    /// Input tokens written to the prompt cache.
    pub cache_write: u64,
    /// Output tokens.
    pub output: u64,
    /// Dollars, when every model was priced.
    pub cost: Option<f64>,
    /// cache_read / all input tokens, when any were sent.
    pub cache_hit: Option<f64>,
}

/// One turn's spending.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TurnSpend {
    /// The turn's number (1-based).
    pub turn: usize,
    /// The stamp it ended at.
    pub seq: u64,
    /// What it spent.
    pub spend: Spend,
    /// Whether the prompt cache broke in it (reads fell to nothing after a hit).
    pub cache_broke: bool,
}

/// A delegated child's spending.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ChildSpend {
    /// The handle it was delegated under.
    pub handle: String,
    /// Its session id.
    pub id: String,
    /// What it spent.
    pub spend: Spend,
}

/// What a session spent.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Economy {
    /// Per turn, own requests only.
    pub turns: Vec<TurnSpend>,
    /// The session's own requests.
    pub own: Spend,
    /// Each delegated child's.
    pub children: Vec<ChildSpend>,
    /// Own and children together.
    pub total: Spend,
    /// Models the pricing table does not know.
    pub unpriced: Vec<String>,
}

impl Economy {
    /// Counts a child's spending apart and in the total.
    pub fn add_child(&mut self, handle: String, id: &str, child: &Economy) {
        self.total.add(&child.total);
        self.children.push(ChildSpend {
            handle,
            id: id.to_owned(),
            spend: child.total.clone(),
        });
        for model in &child.unpriced {
            if !self.unpriced.contains(model) {
                self.unpriced.push(model.clone());
            }
        }
    }
}

impl Spend {
    /// Adds `other` in.
    pub fn add(&mut self, other: &Spend) {
        self.requests += other.requests;
        self.input += other.input;
        self.cache_read += other.cache_read;
        self.cache_write += other.cache_write;
        self.output += other.output;
        self.cost = match (self.cost, other.cost) {
            (Some(a), Some(b)) => Some(a + b),
            _ => None,
        };
        let sent = self.input + self.cache_read + self.cache_write;
        self.cache_hit = (sent > 0).then(|| self.cache_read as f64 / sent as f64);
    }

    /// "in 1,234 · cache read 9,000 · write 0 · out 321 · $0.0123 · 88% cached".
    pub fn line(&self, unpriced: bool) -> String {
        use crate::names::thousands;
        let cost = match (self.cost, unpriced) {
            (Some(c), false) => format!("${c:.4}"),
            _ => "unpriced".to_owned(),
        };
        let hit = self
            .cache_hit
            .map(|h| format!(" · {:.0}% cached", h * 100.0))
            .unwrap_or_default();
        format!(
            "in {} · cache read {} · write {} · out {} · {cost}{hit}",
            thousands(self.input),
            thousands(self.cache_read),
            thousands(self.cache_write),
            thousands(self.output)
        )
    }
}
