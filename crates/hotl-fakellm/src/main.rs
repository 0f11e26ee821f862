//! `hotl-fakellm serve`: the fake provider as a process. Prints the URL it listens on as
//! its first stdout line, then serves until killed.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use hotl_fakellm::{Config, Dialect, Entry, FakeLlm, Recording, Reply, Tokenizer};

/// A local fake LLM provider (Anthropic Messages, OpenAI Chat Completions and Responses).
#[derive(Parser)]
#[command(name = "hotl-fakellm", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve on 127.0.0.1 until killed
    Serve(ServeArgs),
}

/// Serve on 127.0.0.1 until killed
#[derive(clap::Args)]
struct ServeArgs {
    /// Port to listen on (0 picks a free one)
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// JSON Lines script of replies, served in order (see docs/testing.md)
    #[arg(long)]
    script: Option<PathBuf>,
    /// Recorded stream to serve first (raw SSE, or JSON Lines payloads)
    #[arg(long, requires = "dialect")]
    replay: Option<PathBuf>,
    /// Dialect of the recording: anthropic, openai-chat, openai-responses
    #[arg(long, value_parser = parse_dialect)]
    dialect: Option<Dialect>,
    /// Write every request to DIR/NNNN-<endpoint>.json
    #[arg(long)]
    capture: Option<PathBuf>,
    /// Token counter: o200k, cl100k, bytes4
    #[arg(long, default_value = "o200k", value_parser = parse_tokenizer)]
    tokenizer: Tokenizer,
    /// Refuse requests of more than N prompt tokens with the dialect's "too long" error
    #[arg(long, value_name = "N")]
    context_window: Option<u64>,
    /// Say at /props that the chat template ignores tools, as llama.cpp does for a model whose
    /// own template has no tools section
    #[arg(long)]
    template_ignores_tools: bool,
    /// Mixed into message and tool-call ids, so that servers started one after another for
    /// one conversation give unique ids
    #[arg(long, default_value_t = 0, value_name = "N")]
    id_seed: u64,
}

fn parse_dialect(s: &str) -> Result<Dialect, String> {
    s.parse()
        .map_err(|e: hotl_fakellm::FakeError| e.to_string())
}

fn parse_tokenizer(s: &str) -> Result<Tokenizer, String> {
    s.parse()
        .map_err(|e: hotl_fakellm::FakeError| e.to_string())
}

fn main() -> ExitCode {
    let Command::Serve(args) = Cli::parse().command;
    match serve(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hotl-fakellm: {e}");
            ExitCode::from(1)
        }
    }
}

fn serve(args: ServeArgs) -> hotl_fakellm::Result<()> {
    let mut config = Config::default().with_tokenizer(args.tokenizer);
    config.port = args.port;
    config.capture_dir = args.capture;
    config.context_window = args.context_window;
    config.template_ignores_tools = args.template_ignores_tools;
    config.id_seed = args.id_seed;
    if let (Some(path), Some(dialect)) = (&args.replay, args.dialect) {
        config
            .script
            .extend(Recording::load(path, dialect)?.entries());
    }
    if let Some(path) = &args.script {
        config
            .script
            .extend(Reply::load_script(path)?.into_iter().map(Entry::Reply));
        config.demo = false;
    }
    let fake = FakeLlm::start(config)?;
    println!("{}", fake.base_url());
    loop {
        std::thread::park();
    }
}
