//! Harness overhead per turn: a 200-turn scripted session against the fake provider, on top of
//! a session that already holds 10,000 records, driven as a front end drives it: through the
//! agent task, a command in and events out. Reports the time spent outside the model (the
//! exchange after the request body is built) and outside tools, per turn.
//!
//! `cargo bench -p hotl-agent --bench turns`

use std::time::{Duration, Instant};

use hotl_agent::{Command, Event, Provider, Session, Settings, Start, ToolSet};
use hotl_fakellm::{Config, FakeLlm, Reply, Tokenizer};
use hotl_log::Store;
use hotl_wire::{Dialect, HttpProvider};

#[path = "common/history.rs"]
mod history;
use history::{RECORDS, history};

const TURNS: usize = 200;

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).expect("project dir");
    let store = Store::new(dir.path().join("home"));
    let log = dir.path().join("history.jsonl");
    let bytes = history(&project.display().to_string(), "01JDBENCH00000000000000001");
    std::fs::write(&log, &bytes).expect("write history");
    let id = store.import(&log, false).expect("import").id;

    let replies = (0..TURNS).map(|i| Reply::text(format!("answer {i}")));
    let fake = FakeLlm::start(Config::scripted(replies).with_tokenizer(Tokenizer::Bytes4))
        .expect("fake provider");
    let http = HttpProvider::new(Dialect::Anthropic, &fake.base_url(), Some("k".into()))
        .expect("provider");
    let provider = Provider::Http(http);
    let mut settings = Settings::new("claude-sonnet-5");
    // The history is larger than a context window: left alone, the first turn would compact
    // it. This measures the harness on the whole history, the worst case, so it never does.
    settings.context_window = 0;

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let opened = Instant::now();
    let session = Session::open(&store, &id, ToolSet::builtin()).expect("open");
    let open_time = opened.elapsed();
    // Phases of one request, measured alone.
    let t = Instant::now();
    for _ in 0..10 {
        std::hint::black_box(session.view());
    }
    let view_ms = t.elapsed().as_secs_f64() * 100.0;
    let view = session.view();
    let t = Instant::now();
    for _ in 0..10 {
        std::hint::black_box(hotl_view::model_view(view));
    }
    let model_view_ms = t.elapsed().as_secs_f64() * 100.0;
    let t = Instant::now();
    for _ in 0..10 {
        let request = hotl_wire::Request::new("claude-sonnet-5", hotl_view::model_view(view));
        std::hint::black_box(hotl_wire::encode(Dialect::Anthropic, &request));
    }
    let encode_ms = t.elapsed().as_secs_f64() * 100.0;
    println!(
        "phases alone: view {view_ms:.2} ms, model view {model_view_ms:.2} ms, model view + \
         encode {encode_ms:.2} ms"
    );
    let started = Instant::now();
    let mut per_turn = Vec::with_capacity(TURNS);
    let mut model_time = Duration::ZERO;
    runtime.block_on(async {
        let mut agent = hotl_agent::spawn(Start::Open(Box::new(session)), provider, settings);
        let mut before = Duration::ZERO;
        for i in 0..TURNS {
            let t0 = Instant::now();
            let id = agent.send(Command::Submit {
                text: format!("next {i}"),
            });
            // The turn's own events until it ends; the status before its end says what the
            // model took.
            let mut status = None;
            let done = agent
                .until_done(id, |envelope| {
                    if let Event::Status(s) = &envelope.event {
                        status = Some(s.clone());
                    }
                })
                .await
                .expect("the agent runs");
            if let Err(failure) = done.result {
                panic!("turn failed: {}", failure.message);
            }
            let wall = t0.elapsed();
            let now = status.map_or(Duration::ZERO, |s| s.model_time + s.tool_time);
            per_turn.push(wall.saturating_sub(now - before));
            before = now;
        }
        model_time = before;
        agent.join().await;
    });
    let total = started.elapsed();
    per_turn.sort();
    let median = per_turn[per_turn.len() / 2];
    let p90 = per_turn[per_turn.len() * 9 / 10];
    let mean: Duration = per_turn.iter().sum::<Duration>() / per_turn.len() as u32;
    println!(
        "history: {} records, {:.1} MB; opened in {:.1} ms",
        RECORDS,
        bytes.len() as f64 / 1e6,
        open_time.as_secs_f64() * 1e3
    );
    println!(
        "{TURNS} turns in {:.2} s; model and tool time {:.2} s; harness overhead per turn: median {:.2} ms, p90 {:.2} ms, mean {:.2} ms",
        total.as_secs_f64(),
        model_time.as_secs_f64(),
        median.as_secs_f64() * 1e3,
        p90.as_secs_f64() * 1e3,
        mean.as_secs_f64() * 1e3,
    );
}
