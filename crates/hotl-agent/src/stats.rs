//! What a session spent, from the usage its records hold: per turn and in total, by kind of
//! token, in fresh-token equivalents and dollars, with the cache-hit ratio, where the cache
//! broke, and an estimate of what each fold and fork saved. `hotl stats`, `/cost` and `/stats`
//! show it (the data and its table are the protocol's [`Stats`]).
//!
//! Only the session's own records count: history a fork inherited was paid for by its
//! parent. Delegated children (forks run as a tool) are counted apart and added to the total.

use std::collections::BTreeSet;

use hotl_log::{Body, Record, Store};
use hotl_protocol::{BROKE_BELOW, ChildSpent, READ_WEIGHT, Saving, Spent, Stats, TurnSpent};
use hotl_wire::{Pricing, Usage};

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
    let mut last_model: Option<&str> = None;
    for record in &records[..own_start] {
        if let Body::Assistant { model, .. } = &record.body {
            last_model = model.as_deref().or(last_model);
        }
    }
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
                last_model = model.as_deref().or(last_model);
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
            // Requests outside the turns: the session paid for them too.
            Body::Title {
                usage: Some(usage),
                model,
                ..
            } => {
                let cost = price(pricing, model.as_deref(), usage, &mut unpriced);
                out.own.add(usage, cost);
                out.titles.add(usage, cost);
            }
            Body::Ask {
                usage: Some(usage), ..
            } => {
                // An ask records no model: it was the session's, as last answered.
                let cost = price(pricing, last_model, usage, &mut unpriced);
                out.own.add(usage, cost);
                out.asks.add(usage, cost);
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
    let wire = Usage::from_log(usage);
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
