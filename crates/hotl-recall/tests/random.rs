//! Random logs, indexed at random points as they grow: the persisted index always agrees with
//! an in-memory archive of the whole log (a seeded generator, so failures repeat).

use hotl_log::Body;
use hotl_recall::{Archive, Mode, open_index};
use hotl_testkit::{FIXED_ID, LogBuilder, TestResult};

use crate::common::{home_with, records, summary, turn_with};

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) % n.max(1)
    }
}

const WORDS: &[&str] = &[
    "alpha", "beta", "gamma", "delta", "error", "cache", "fold", "kiwi",
];

fn text(rng: &mut Rng) -> String {
    (0..1 + rng.below(6))
        .map(|_| WORDS[rng.below(WORDS.len() as u64) as usize])
        .collect::<Vec<_>>()
        .join(" ")
}

/// One random step: mostly turns and folds, sometimes a revert, a compaction or half a step.
/// A tame step only folds from a turn or step after the last fold (`starts`) to the head, and
/// never reverts or compacts: what a well-behaved agent writes, and what the index updates without
/// re-projecting everything.
fn step(b: &mut LogBuilder, rng: &mut Rng, n: usize, tame: bool, starts: &mut Vec<u64>) {
    let head = b.seq();
    let pick = if tame {
        [0, 5, 11, 12][rng.below(4) as usize]
    } else {
        rng.below(13)
    };
    if pick == 12 {
        // An earlier question put to a thread (a handle that may or may not exist).
        b.record(Body::Ask {
            handle: format!("h{}", rng.below(n as u64 + 1)),
            question: text(rng),
            answer: text(rng),
            usage: None,
        });
        return;
    }
    if tame {
        match pick {
            5 if !starts.is_empty() => {
                let since = starts[rng.below(starts.len() as u64) as usize];
                b.fold(since, head, &format!("h{n}"), &text(rng));
                starts.clear();
            }
            11 => {
                let (at, call) = b.tool_call("bash", serde_json::json!({}));
                b.tool_result(&call, &text(rng));
                starts.push(at);
            }
            _ => {
                let (u, o, a) = (text(rng), text(rng), text(rng));
                starts.push(turn_with(b, &u, &o, vec![], &a).0);
            }
        }
        return;
    }
    match pick {
        0..=4 => {
            let (u, o, a) = (text(rng), text(rng), text(rng));
            turn_with(b, &u, &o, vec![], &a);
        }
        5..=8 => {
            // Usually a plausible span near the head, sometimes anything at all.
            let since = head.saturating_sub(rng.below(14)).max(2);
            let until = if rng.below(5) == 0 {
                since + rng.below(20)
            } else {
                head.max(since)
            };
            b.fold(since, until, &format!("h{n}"), &text(rng));
        }
        9 => {
            b.record(Body::Revert {
                to: head.saturating_sub(rng.below(8)).max(1),
            });
        }
        10 => {
            b.record(Body::Compaction {
                until: head.saturating_sub(rng.below(10)),
                summary: text(rng),
            });
        }
        _ => {
            let (_, call) = b.tool_call("bash", serde_json::json!({}));
            b.tool_result(&call, &text(rng));
        }
    }
}

#[test]
fn the_index_agrees_with_memory_at_every_point() -> TestResult {
    run(0..30, false)
}

#[test]
fn the_index_agrees_with_memory_for_tame_logs() -> TestResult {
    run(100..130, true)
}

fn run(seeds: std::ops::Range<u64>, tame: bool) -> TestResult {
    for seed in seeds {
        let mut rng = Rng(seed);
        let mut starts = Vec::new();
        let mut b = LogBuilder::new(FIXED_ID, "/p");
        let (home, id) = home_with(&b)?;
        for n in 0..30 {
            step(&mut b, &mut rng, n, tame, &mut starts);
            if rng.below(4) == 0 || n == 29 {
                b.write(&home.store.layout().log(&id))?;
                let disk = open_index(&home.store, &id)?;
                let mem = Archive::from_records(&records(&b)?, 0);
                let at = format!("seed {seed}, step {n}");
                assert_eq!(disk.threads(), mem.threads(), "{at}");
                assert_eq!(disk.docs()?, mem.docs()?, "{at}");
                for w in WORDS {
                    let d = disk.search(w, Mode::Ranked, 100)?;
                    let m = mem.search(w, Mode::Ranked, 100)?;
                    assert_eq!(summary(&d), summary(&m), "{at}: {w}");
                }
            }
        }
    }
    Ok(())
}
