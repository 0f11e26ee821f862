//! The essay's token economy, measured: the fake provider's Anthropic cache simulation bills
//! each strategy's requests, and the totals are reported in fresh-token equivalents (uncached
//! input 1x, cache writes 1.25x, cache reads 0.1x).
//!
//! Setup (the essay's): a parent whose context is 100K tokens (15K of it system prompt), a
//! 30-turn loop that grows the context by 150K (5K per turn), and a clean subagent that
//! re-reads 30K the parent had already read. Each child's first request, a write, is left out,
//! as in the essay. Tokens are counted as bytes / 4.
//!
//! `bench/token-economy` runs it.

use std::borrow::Cow;

use hotl_fakellm::{Config, FakeLlm, Reply, Tokenizer};
use hotl_view::{MessageRef, Part, Role};
use hotl_wire::{Dialect, HttpProvider, Request, Usage};

const K: usize = 1000;
const SYSTEM: usize = 15 * K;
const PREFIX: usize = 100 * K;
const TURNS: usize = 30;
const GROWTH: usize = 150 * K;
const REREAD: usize = 30 * K;
const FOLDED_PREFIX: usize = 40 * K;

/// Text of about `tokens` tokens (4 bytes each), distinct per `tag`.
fn text(tokens: usize, tag: &str) -> String {
    let unit = format!("{tag} word ");
    let mut out = String::with_capacity(tokens * 4);
    while out.len() < tokens * 4 {
        out.push_str(&unit);
    }
    out.truncate(tokens * 4);
    out
}

/// One conversation as plain strings: alternating user and assistant messages.
struct Convo {
    system: String,
    messages: Vec<(Role, String)>,
}

impl Convo {
    fn new(system_tokens: usize, history_tokens: usize, tag: &str) -> Self {
        let mut c = Convo {
            system: text(system_tokens, &format!("{tag}-system")),
            messages: Vec::new(),
        };
        // History in 10 exchanges of equal size.
        for i in 0..10 {
            c.messages.push((
                Role::User,
                text(history_tokens / 20, &format!("{tag}-u{i}")),
            ));
            c.messages.push((
                Role::Assistant,
                text(history_tokens / 20, &format!("{tag}-a{i}")),
            ));
        }
        c
    }

    fn push(&mut self, role: Role, tokens: usize, tag: &str) {
        self.messages.push((role, text(tokens, tag)));
    }

    fn request(&self) -> Request<'_> {
        let messages = self
            .messages
            .iter()
            .map(|(role, t)| MessageRef {
                role: *role,
                content: vec![Part::Text(Cow::Borrowed(t))],
            })
            .collect();
        let mut r = Request::new("claude-sonnet-5", messages);
        r.system = vec![self.system.clone()];
        r.max_tokens = 1;
        r
    }
}

fn fresh(u: &Usage) -> f64 {
    u.input as f64 + 1.25 * u.cache_write() as f64 + 0.1 * u.cache_read as f64
}

struct Bench {
    runtime: tokio::runtime::Runtime,
    provider: HttpProvider,
}

impl Bench {
    fn send(&self, convo: &Convo) -> Usage {
        self.runtime
            .block_on(self.provider.send(&convo.request(), &mut |_| {}))
            .expect("the fake answers")
            .usage
    }

    /// A loop of `TURNS` turns on `convo`: each adds a 5K tool output and a short answer.
    /// Returns the fresh-token cost of the loop's requests (the first one excluded when
    /// `skip_first`).
    fn run_loop(&self, convo: &mut Convo, tag: &str, skip_first: bool) -> f64 {
        let mut total = 0.0;
        for turn in 0..TURNS {
            let usage = self.send(convo);
            if !(skip_first && turn == 0) {
                total += fresh(&usage);
            }
            convo.push(Role::Assistant, 50, &format!("{tag}-call{turn}"));
            convo.push(Role::User, GROWTH / TURNS, &format!("{tag}-out{turn}"));
        }
        total
    }
}

fn main() {
    let replies = std::iter::repeat_with(|| Reply::text("ok")).take(2000);
    let fake = FakeLlm::start(Config::scripted(replies).with_tokenizer(Tokenizer::Bytes4))
        .expect("fake provider");
    let provider = HttpProvider::new(Dialect::Anthropic, &fake.base_url(), Some("k".into()))
        .expect("provider");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let bench = Bench { runtime, provider };

    // Fork: the child starts as the parent (100K prefix, warm in cache) and runs the loop.
    let mut parent = Convo::new(SYSTEM, PREFIX - SYSTEM, "p");
    bench.send(&parent); // the parent's last request: the prefix is in cache
    let fork = bench.run_loop(&mut parent, "fork", true);

    // Clean subagent: a 15K system prompt, re-reads 30K, then runs the loop.
    let mut clean = Convo::new(SYSTEM, 0, "c");
    clean.messages.clear();
    clean.push(Role::User, 100, "c-task");
    clean.push(Role::Assistant, 50, "c-read");
    clean.push(Role::User, REREAD, "c-reread");
    let clean_cost = bench.run_loop(&mut clean, "clean", true);

    // Fork after an earlier fold: the parent's view is 40K after folding its query work.
    let mut folded = Convo::new(SYSTEM, FOLDED_PREFIX - SYSTEM, "f");
    bench.send(&folded);
    let fork_after_fold = bench.run_loop(&mut folded, "forkfold", true);

    // Inline: the parent runs the loop itself (every request counted), and carries the growth
    // in the 10 turns that follow. Fold: the same loop, then the span folds to a 2K note.
    let mut inline = Convo::new(SYSTEM, PREFIX - SYSTEM, "i");
    bench.send(&inline);
    let inline_loop = bench.run_loop(&mut inline, "inline", false);
    let mut after_inline = 0.0;
    for t in 0..10 {
        after_inline += fresh(&bench.send(&inline));
        inline.push(Role::Assistant, 200, &format!("i-after-a{t}"));
        inline.push(Role::User, 200, &format!("i-after-u{t}"));
    }
    let mut fold = Convo::new(SYSTEM, PREFIX - SYSTEM, "o");
    bench.send(&fold);
    let fold_loop = bench.run_loop(&mut fold, "fold", false);
    let keep = fold.messages.len() - 2 * TURNS;
    fold.messages.truncate(keep);
    fold.push(Role::User, 2 * K, "o-note");
    let mut after_fold = 0.0;
    for t in 0..10 {
        after_fold += fresh(&bench.send(&fold));
        fold.push(Role::Assistant, 200, &format!("o-after-a{t}"));
        fold.push(Role::User, 200, &format!("o-after-u{t}"));
    }

    let k = |x: f64| format!("{:.0}K", x / 1000.0);
    println!("strategy                 loop (30 turns)   next 10 turns   essay");
    println!(
        "fork                     {:>15}   {:>13}   ~713K",
        k(fork),
        "-"
    );
    println!(
        "clean subagent           {:>15}   {:>13}   ~583K",
        k(clean_cost),
        "-"
    );
    println!(
        "fork after a fold        {:>15}   {:>13}   ~533K",
        k(fork_after_fold),
        "-"
    );
    println!(
        "inline                   {:>15}   {:>13}   -",
        k(inline_loop),
        k(after_inline)
    );
    println!(
        "fold (inline, then fold) {:>15}   {:>13}   -",
        k(fold_loop),
        k(after_fold)
    );
}
