//! What a session spent, as the agent reports it: per turn and in total, by kind of token, in
//! fresh-token equivalents and dollars, with the cache-hit ratio, where the cache broke, and an
//! estimate of what each fold and fork saved; and the table `hotl stats`, `/cost` and `/stats`
//! print. The agent computes it from the usage the records hold.

use hotl_text::thousands;
use serde::Serialize;

/// A cache write costs this much of an uncached input token: its weight in a fresh-token
/// equivalent (Anthropic's five-minute price, the common case).
pub const WRITE_WEIGHT: f64 = 1.25;
/// A cache read costs this much of an uncached input token.
pub const READ_WEIGHT: f64 = 0.1;

/// A request whose cache read falls below this share of what the request before it had
/// cached is where the cache broke.
pub const BROKE_BELOW: f64 = 0.5;

/// Tokens by kind, and what they come to.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Spent {
    /// Requests answered.
    pub requests: u64,
    /// Uncached input tokens.
    pub input: u64,
    /// Tokens read from the prompt cache.
    pub cache_read: u64,
    /// Tokens written to the prompt cache.
    pub cache_write: u64,
    /// Output tokens (thinking included).
    pub output: u64,
    /// input + 1.25 × cache writes + 0.1 × cache reads.
    pub fresh_equivalent: f64,
    /// Dollars, for the requests whose model the pricing table knows.
    pub cost: f64,
    /// Cache reads over all input (`None` before any input).
    pub cache_hit: Option<f64>,
}

impl Spent {
    /// Counts one request of `usage`, priced at `cost` (`None`: unpriced).
    pub fn add(&mut self, usage: &hotl_log::Usage, cost: Option<f64>) {
        self.requests += 1;
        self.input += usage.input;
        self.cache_read += usage.cache_read;
        self.cache_write += usage.cache_write;
        self.output += usage.output;
        self.cost += cost.unwrap_or(0.0);
        self.settle();
    }

    /// Counts everything `other` spent into this.
    pub fn merge(&mut self, other: &Spent) {
        self.requests += other.requests;
        self.input += other.input;
        self.cache_read += other.cache_read;
        self.cache_write += other.cache_write;
        self.output += other.output;
        self.cost += other.cost;
        self.settle();
    }

    fn settle(&mut self) {
        self.fresh_equivalent = fresh_equivalent(self.input, self.cache_write, self.cache_read);
        let all = self.input + self.cache_read + self.cache_write;
        self.cache_hit = (all > 0).then(|| self.cache_read as f64 / all as f64);
    }
}

/// input + 1.25 × cache writes + 0.1 × cache reads.
pub fn fresh_equivalent(input: u64, cache_write: u64, cache_read: u64) -> f64 {
    input as f64 + WRITE_WEIGHT * cache_write as f64 + READ_WEIGHT * cache_read as f64
}

/// One turn: from a user message to the next.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TurnSpent {
    /// 1 for the session's first own turn.
    pub turn: usize,
    /// The user message's seq (`t<seq>`).
    pub seq: u64,
    /// What its requests spent.
    #[serde(flatten)]
    pub spent: Spent,
    /// Whether a request of the turn read much less from the cache than the one before it
    /// had cached (a changed prefix, an expired cache).
    pub cache_broke: bool,
}

/// A delegated child's spending.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ChildSpent {
    /// Its handle in the parent.
    pub handle: String,
    /// Its session id.
    pub id: String,
    /// What it spent.
    #[serde(flatten)]
    pub spent: Spent,
}

/// What a fold or a fork kept out of the requests after it: an estimate.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Saving {
    /// `fold`, `compaction` or `fork`.
    pub kind: &'static str,
    /// The thread's handle.
    pub handle: String,
    /// Where it happened.
    pub seq: u64,
    /// Tokens it kept out of each later request (the provider's count before minus after;
    /// for a fork, what its requests carried beyond the parent's).
    pub tokens: u64,
    /// Requests sent since.
    pub requests_since: u64,
    /// tokens × requests since × 0.1 (they would have been cache reads).
    pub fresh_equivalent: f64,
    /// The same in dollars, at the price of the model of the requests since.
    pub cost: Option<f64>,
}

/// What a session spent.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Stats {
    /// The session.
    pub id: String,
    /// Its own turns.
    pub turns: Vec<TurnSpent>,
    /// Its own requests, turns or not (a compaction's note, say).
    pub own: Spent,
    /// Of `own`: the requests that titled it.
    pub titles: Spent,
    /// Of `own`: the questions put to its archived threads (`ask`).
    pub asks: Spent,
    /// Its delegated children.
    pub children: Vec<ChildSpent>,
    /// Its own and its children's.
    pub total: Spent,
    /// What folds, compactions and forks saved, estimated.
    pub savings: Vec<Saving>,
    /// Models the pricing table does not know: their requests are in the tokens, not in
    /// the dollars.
    pub unpriced: Vec<String>,
    /// Answers recorded without usage (an imported log, an answer cut off).
    pub without_usage: u64,
}

impl Stats {
    /// The session's token economy at a glance (`/stats`): what the requests came to in
    /// fresh-token equivalents, how much the cache carried, where it broke, and what folds,
    /// compactions and forks kept out.
    pub fn economy(&self) -> String {
        let total = &self.total;
        let mut text = format!(
            "{} · {} fresh-token equivalents · {} of input read from the cache",
            hotl_text::plural(total.requests as usize, "request"),
            thousands(total.fresh_equivalent.round() as u64),
            total
                .cache_hit
                .map_or_else(|| "none".to_owned(), |h| format!("{:.0}%", h * 100.0)),
        );
        text.push_str(&format!(
            "\n  input {} · cache read {} · cache write {} · output {} · {}",
            thousands(total.input),
            thousands(total.cache_read),
            thousands(total.cache_write),
            thousands(total.output),
            dollars(total.cost),
        ));
        let broke: Vec<String> = self
            .turns
            .iter()
            .filter(|t| t.cache_broke)
            .map(|t| format!("t{}", t.seq))
            .collect();
        if !broke.is_empty() {
            text.push_str(&format!(
                "\n  the cache broke in {} ({})",
                hotl_text::plural(broke.len(), "turn"),
                broke.join(", ")
            ));
        }
        if !self.savings.is_empty() {
            let kept: f64 = self.savings.iter().map(|s| s.fresh_equivalent).sum();
            text.push_str(&format!(
                "\n  folds, compactions and forks ({}) kept about {} fresh-token equivalents out \
                 of later requests (estimated)",
                self.savings.len(),
                thousands(kept.round() as u64),
            ));
        }
        if !self.children.is_empty() {
            let spent: f64 = self.children.iter().map(|c| c.spent.fresh_equivalent).sum();
            text.push_str(&format!(
                "\n  {} spent {} of them",
                hotl_text::plural(self.children.len(), "delegated child"),
                thousands(spent.round() as u64),
            ));
        }
        if !self.unpriced.is_empty() {
            text.push_str(&format!(
                "\n  not in the dollars: {} (unpriced)",
                self.unpriced.join(", ")
            ));
        }
        text
    }

    /// The table `hotl stats` and `/cost` print.
    pub fn table(&self) -> String {
        let stats = self;
        let mut text = String::new();
        let header = format!(
            "{:>5} {:>7} {:>4} {:>9} {:>10} {:>10} {:>8} {:>10} {:>9} {:>6}\n",
            "turn",
            "at",
            "req",
            "input",
            "cache rd",
            "cache wr",
            "output",
            "fresh eq",
            "cost",
            "hit"
        );
        text.push_str(&header);
        for turn in &stats.turns {
            text.push_str(&row(
                &turn.turn.to_string(),
                &format!("t{}", turn.seq),
                &turn.spent,
            ));
            if turn.cache_broke {
                text.truncate(text.len() - 1);
                text.push_str("  cache broke\n");
            }
        }
        if stats.titles.requests > 0 {
            text.push_str(&row("title", "", &stats.titles));
        }
        if stats.asks.requests > 0 {
            text.push_str(&row("asks", "", &stats.asks));
        }
        if !stats.children.is_empty() {
            text.push_str(&row("own", "", &stats.own));
            for child in &stats.children {
                text.push_str(&row("fork", &child.handle, &child.spent));
            }
        }
        text.push_str(&row("total", "", &stats.total));
        if !stats.savings.is_empty() {
            text.push_str("\nestimated savings (tokens kept out of each later request × requests since, as cache reads):\n");
            for s in &stats.savings {
                let cost = s.cost.map_or_else(|| "unpriced".to_owned(), dollars);
                text.push_str(&format!(
                "  {} {} at t{}: {} tokens × {} requests ≈ {} fresh-token equivalents, {cost}\n",
                s.kind,
                s.handle,
                s.seq,
                thousands(s.tokens),
                s.requests_since,
                thousands(s.fresh_equivalent.round() as u64),
            ));
            }
        }
        if !stats.unpriced.is_empty() {
            text.push_str(&format!(
            "\nnot in the dollars: the pricing table does not know {} (add it under [pricing] in the config)\n",
            stats.unpriced.join(", ")
        ));
        }
        if stats.without_usage > 0 {
            text.push_str(&format!(
                "\n{} answer{} recorded no usage: not counted\n",
                stats.without_usage,
                if stats.without_usage == 1 { "" } else { "s" }
            ));
        }
        text
    }
}

fn row(first: &str, second: &str, spent: &Spent) -> String {
    format!(
        "{:>5} {:>7} {:>4} {:>9} {:>10} {:>10} {:>8} {:>10} {:>9} {:>6}\n",
        first,
        second,
        spent.requests,
        thousands(spent.input),
        thousands(spent.cache_read),
        thousands(spent.cache_write),
        thousands(spent.output),
        thousands(spent.fresh_equivalent.round() as u64),
        dollars(spent.cost),
        spent
            .cache_hit
            .map_or_else(|| "-".to_owned(), |h| format!("{:.0}%", h * 100.0)),
    )
}

fn dollars(cost: f64) -> String {
    format!("${cost:.4}")
}
