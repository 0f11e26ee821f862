//! A front end on the agent's protocol, in a few lines: one turn against an Anthropic-dialect
//! server (hotl-fakellm, or the real API with `ANTHROPIC_API_KEY`) in a scratch session, every
//! event printed as one JSON line, up to the turn's one end.
//!
//! `cargo run -p hotl-agent --example drive -- http://127.0.0.1:8787 "list the files"`
//!
//! It runs on a single-threaded runtime: nothing in the agent blocks a worker.

use hotl_agent::{Command, NewSession, Provider, Settings, Start};
use hotl_log::Store;
use hotl_wire::{Dialect, HttpProvider};

const MODEL: &str = "claude-sonnet-4-5";

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(base_url), Some(task)) = (args.next(), args.next()) else {
        return Err("usage: drive BASE_URL TASK".into());
    };
    // A scratch project and home, gone when the run ends.
    let scratch = tempfile::tempdir()?;
    let project = scratch.path().join("project");
    std::fs::create_dir_all(&project)?;
    let store = Store::new(scratch.path().join("home"));

    let key = std::env::var("ANTHROPIC_API_KEY").unwrap_or_else(|_| "none".to_owned());
    let provider = Provider::Http(HttpProvider::new(Dialect::Anthropic, &base_url, Some(key))?);
    let session = NewSession::new(&store, &project, MODEL, hotl_agent::standard_tools())?;
    let mut agent = hotl_agent::spawn(Start::New(session), provider, Settings::new(MODEL));

    let id = agent.send(Command::Submit { text: task });
    let done = agent
        .until_done(id, |envelope| match serde_json::to_string(envelope) {
            Ok(line) => println!("{line}"),
            Err(e) => eprintln!("an event did not serialize: {e}"),
        })
        .await
        .ok_or("the agent stopped")?;
    println!("{}", serde_json::to_string(&done)?);
    agent.shutdown().await;
    done.result.map(|_| ()).map_err(|f| f.message.into())
}
