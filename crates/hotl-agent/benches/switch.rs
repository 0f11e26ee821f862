//! How long the console waits on a session operation: switching between two sessions of
//! 10,000 records each (`/resume`), to a new one (`/new`) and to a fork at the head (`/fork`),
//! through the agent task as a front end drives it: the command in, the `switch` event out.
//!
//! `cargo bench -p hotl-agent --bench switch`

use std::time::{Duration, Instant};

use hotl_agent::{Agent, Command, ForkAt, Provider, Session, Settings, Start, SwitchTo, ToolSet};
use hotl_log::Store;

#[path = "common/history.rs"]
mod history;
use history::{RECORDS, history};

const RUNS: usize = 20;

/// Sends `command` and waits for the switch it makes; returns how long that took.
async fn timed(agent: &mut Agent, command: Command) -> Duration {
    let t = Instant::now();
    let id = agent.send(command);
    let done = agent.until_done(id, |_| {}).await.expect("the agent runs");
    if let Err(failure) = done.result {
        panic!("switch failed: {}", failure.message);
    }
    t.elapsed()
}

fn median(mut times: Vec<Duration>) -> f64 {
    times.sort();
    times[times.len() / 2].as_secs_f64() * 1e3
}

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).expect("project dir");
    let store = Store::new(dir.path().join("home"));
    let cwd = project.display().to_string();
    let mut ids = Vec::new();
    for id in ["01JDBENCH00000000000000001", "01JDBENCH00000000000000002"] {
        let log = dir.path().join(format!("{id}.jsonl"));
        std::fs::write(&log, history(&cwd, id)).expect("write history");
        ids.push(store.import(&log, false).expect("import").id);
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let session = Session::open(&store, &ids[0], ToolSet::builtin()).expect("open");
    let (resume, new, fork) = runtime.block_on(async {
        let mut agent = hotl_agent::spawn(
            Start::Open(Box::new(session)),
            Provider::Demo,
            Settings::new("demo"),
        );
        let mut resume = Vec::new();
        for i in 0..RUNS {
            let to = ids[(i + 1) % 2].clone();
            resume.push(
                timed(
                    &mut agent,
                    Command::Switch(SwitchTo::Resume {
                        session: to,
                        reroot: None,
                    }),
                )
                .await,
            );
        }
        let mut new = Vec::new();
        let mut fork = Vec::new();
        for i in 0..RUNS {
            let back = ids[(i + 1) % 2].clone();
            timed(
                &mut agent,
                Command::Switch(SwitchTo::Resume {
                    session: back,
                    reroot: None,
                }),
            )
            .await;
            fork.push(
                timed(
                    &mut agent,
                    Command::Switch(SwitchTo::Fork {
                        at: ForkAt::Head,
                        worktree: false,
                    }),
                )
                .await,
            );
            new.push(timed(&mut agent, Command::Switch(SwitchTo::New)).await);
        }
        agent.shutdown().await;
        (resume, new, fork)
    });
    println!(
        "switch between two {RECORDS}-record sessions (/resume): median {:.1} ms; to a new session (/new): {:.2} ms; to a fork at the head (/fork): {:.1} ms ({RUNS} runs each)",
        median(resume),
        median(new),
        median(fork)
    );
}
