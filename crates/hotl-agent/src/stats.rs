//! What a session spent, from the usage its records hold: per turn and in total, by kind of
//! token, in fresh-token equivalents and dollars, with the cache-hit ratio, where the cache
//! broke, and an estimate of what each fold and fork saved. `hotl stats` and `/cost` show it.
//!
//! Only the session's own records count: history a fork inherited was paid for by its
//! parent. Delegated children (forks run as a tool) are counted apart and added to the total.

use std::collections::BTreeSet;

use hotl_log::{Body, Record, Store};
use hotl_wire::{Pricing, Usage};
use serde::Serialize;

use crate::session::thousands;

/// A cache write costs this much of an uncached input token, a read this much: the weights of
/// a fresh-token equivalent (Anthropic's five-minute prices, the common case).
const WRITE_WEIGHT: f64 = 1.25;
const READ_WEIGHT: f64 = 0.1;

/// A request whose cache read falls below this share of what the request before it had
/// cached is where the cache broke.
const BROKE_BELOW: f64 = 0.5;

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
    fn add(&mut self, usage: &hotl_log::Usage, cost: Option<f64>) {
        self.requests += 1;
        self.input += usage.input;
        self.cache_read += usage.cache_read;
        self.cache_write += usage.cache_write;
        self.output += usage.output;
        self.cost += cost.unwrap_or(0.0);
        self.settle();
    }

    fn merge(&mut self, other: &Spent) {
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

/// The request sizes the provider counted, in order, with where they were.
struct Request {
    seq: u64,
    prompt: u64,
    model: Option<String>,
}

/// What the own records of `records` (from `own_start`) spent, priced by `pricing`.
pub fn stats(id: &str, records: &[Record], own_start: usize, pricing: &Pricing) -> Stats {
    let mut out = Stats {
        id: id.to_owned(),
        ..Stats::default()
    };
    let mut unpriced = BTreeSet::new();
    let mut requests: Vec<Request> = Vec::new();
    let mut shrinks: Vec<(u64, &'static str, String)> = Vec::new();
    let mut cached_before: Option<u64> = None;
    for record in &records[own_start..] {
        match &record.body {
            Body::User { .. } if !is_blank_user(record) => {
                out.turns.push(TurnSpent {
                    turn: out.turns.len() + 1,
                    seq: record.seq,
                    spent: Spent::default(),
                    cache_broke: false,
                });
            }
            Body::Assistant { usage, model, .. } => {
                let Some(usage) = usage else {
                    out.without_usage += 1;
                    continue;
                };
                let cost = price(pricing, model.as_deref(), usage, &mut unpriced);
                out.own.add(usage, cost);
                let broke = cached_before.is_some_and(|before| {
                    before > 0 && (usage.cache_read as f64) < BROKE_BELOW * before as f64
                });
                if let Some(turn) = out.turns.last_mut() {
                    turn.spent.add(usage, cost);
                    turn.cache_broke |= broke;
                }
                cached_before = Some(usage.cache_read + usage.cache_write);
                requests.extend(request_of(record));
            }
            Body::Fold(fold) => shrinks.push((record.seq, "fold", fold.handle.clone())),
            Body::Compaction { until, .. } => shrinks.push((
                record.seq,
                "compaction",
                hotl_recall::compaction_handle(*until),
            )),
            _ => {}
        }
    }
    // What a token read from the cache costs on each request from there to the end (`None`
    // once an unpriced model is among them): a fold's saving is its tokens times that, so
    // each shrink is priced without walking the requests after it again.
    let mut read_price_from: Vec<Option<f64>> = vec![Some(0.0); requests.len() + 1];
    for (i, r) in requests.iter().enumerate().rev() {
        let per_token = r
            .model
            .as_deref()
            .and_then(|m| pricing.price(m))
            .map(|p| p.input * p.cache_read / 1e6);
        read_price_from[i] = per_token.zip(read_price_from[i + 1]).map(|(a, b)| a + b);
    }
    for (seq, kind, handle) in shrinks {
        // Requests are in log order, so in seq order.
        let first_after = requests.partition_point(|r| r.seq <= seq);
        let before = requests[..requests.partition_point(|r| r.seq < seq)].last();
        let (Some(before), Some(first)) = (before, requests.get(first_after)) else {
            continue;
        };
        let tokens = before.prompt.saturating_sub(first.prompt);
        let requests_since = (requests.len() - first_after) as u64;
        let cost = read_price_from[first_after].map(|per| tokens as f64 * per);
        out.savings
            .push(saving(kind, handle, seq, tokens, requests_since, cost));
    }
    out.unpriced = unpriced.into_iter().collect();
    out.total = out.own.clone();
    out
}

/// [`stats`] of session `id` in `store`, with its delegated children (each counted in the
/// total with everything delegated beneath it, and its context beyond the parent's as what the
/// fork saved).
pub fn session_stats(store: &Store, id: &str, pricing: &Pricing) -> hotl_log::Result<Stats> {
    let lineage = store.lineage(id)?;
    let mut out = stats(id, &lineage.records, lineage.own_start, pricing);
    let parent_requests: Vec<Request> = lineage.own().iter().filter_map(request_of).collect();
    let mut unpriced: BTreeSet<String> = out.unpriced.iter().cloned().collect();
    // Children an ancestor delegated were the ancestor's spending.
    let own_children = store
        .visible_delegated(id)?
        .into_iter()
        .filter(|c| c.delegation.by == id);
    for child in own_children {
        let Ok(child_lineage) = store.lineage(&child.id) else {
            continue;
        };
        let handle = child.delegation.handle.clone().unwrap_or_default();
        let child_stats = stats(
            &child.id,
            &child_lineage.records,
            child_lineage.own_start,
            pricing,
        );
        // Its own delegated sessions are part of what it cost: the total holds the subtree.
        let subtree = session_stats(store, &child.id, pricing);
        match &subtree {
            Ok(subtree) => {
                unpriced.extend(subtree.unpriced.iter().cloned());
                out.total.merge(&subtree.total);
            }
            Err(_) => {
                unpriced.extend(child_stats.unpriced.iter().cloned());
                out.total.merge(&child_stats.own);
            }
        }
        // What the fork carried that the parent never did: its last request's prompt beyond
        // the parent's last before the fork.
        let child_last = child_lineage
            .own()
            .iter()
            .rev()
            .find_map(request_of)
            .map_or(0, |r| r.prompt);
        let pinned = child.pinned_at;
        let parent_at = parent_requests
            .iter()
            .rev()
            .find(|r| r.seq <= pinned)
            .map_or(0, |r| r.prompt);
        let after: Vec<&Request> = parent_requests.iter().filter(|r| r.seq > pinned).collect();
        let tokens = child_last.saturating_sub(parent_at);
        if tokens > 0 && !after.is_empty() {
            let cost = after
                .iter()
                .map(|r| {
                    let price = pricing.price(r.model.as_deref()?)?;
                    Some(tokens as f64 * price.input * price.cache_read / 1e6)
                })
                .sum::<Option<f64>>();
            out.savings.push(saving(
                "fork",
                handle.clone(),
                pinned,
                tokens,
                after.len() as u64,
                cost,
            ));
        }
        out.children.push(ChildSpent {
            handle,
            id: child.id.clone(),
            spent: child_stats.own,
        });
    }
    out.unpriced = unpriced.into_iter().collect();
    out.savings.sort_by_key(|s| s.seq);
    Ok(out)
}

fn request_of(record: &Record) -> Option<Request> {
    match &record.body {
        Body::Assistant {
            usage: Some(usage),
            model,
            ..
        } => Some(Request {
            seq: record.seq,
            prompt: usage.input + usage.cache_read + usage.cache_write,
            model: model.clone(),
        }),
        _ => None,
    }
}

fn saving(
    kind: &'static str,
    handle: String,
    seq: u64,
    tokens: u64,
    requests_since: u64,
    cost: Option<f64>,
) -> Saving {
    let read_tokens = tokens * requests_since;
    Saving {
        kind,
        handle,
        seq,
        tokens,
        requests_since,
        fresh_equivalent: READ_WEIGHT * read_tokens as f64,
        cost,
    }
}

/// The dollars of one answer; an unknown model is noted.
fn price(
    pricing: &Pricing,
    model: Option<&str>,
    usage: &hotl_log::Usage,
    unpriced: &mut BTreeSet<String>,
) -> Option<f64> {
    let model = model.unwrap_or("(no model recorded)");
    let wire = Usage {
        input: usage.input,
        cache_read: usage.cache_read,
        // The log does not keep a write's lifetime: priced as five-minute writes.
        cache_write_5m: usage.cache_write,
        cache_write_1h: 0,
        output: usage.output,
        thinking: usage.thinking,
    };
    let cost = pricing.cost(model, &wire);
    if cost.is_none() {
        unpriced.insert(model.to_owned());
    }
    cost
}

/// A user record that carries no words (a continuation the agent wrote): not a turn.
fn is_blank_user(record: &Record) -> bool {
    match &record.body {
        Body::User { content, .. } => hotl_log::plain_text(content).trim().is_empty(),
        _ => true,
    }
}

impl Stats {
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
