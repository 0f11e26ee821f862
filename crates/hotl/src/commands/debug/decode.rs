//! `hotl debug decode`: a recorded provider stream as hotl's neutral events.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use hotl_wire::StreamDecoder;

use crate::ctx::{Ctx, flush};
use crate::error::CliError;

/// Decode a recorded streaming response into hotl's events, one JSON object per line
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  hotl debug decode stream.sse --dialect anthropic\n  curl -sN ... | hotl debug decode - --dialect openai-chat"
)]
pub struct DecodeArgs {
    /// The provider protocol the recording speaks
    #[arg(long, value_enum)]
    pub dialect: DialectArg,
    /// A raw SSE body, or JSON Lines of `data:` payloads (framed as the server would)
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

/// `--dialect` values.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum DialectArg {
    /// Anthropic Messages
    Anthropic,
    /// OpenAI Chat Completions (and llama-server, Ollama)
    OpenaiChat,
    /// OpenAI Responses
    OpenaiResponses,
}

pub fn run(ctx: &Ctx, args: &DecodeArgs) -> Result<ExitCode, CliError> {
    let mut decoder = match args.dialect {
        DialectArg::Anthropic => StreamDecoder::anthropic(),
        DialectArg::OpenaiChat => StreamDecoder::openai_chat(),
        DialectArg::OpenaiResponses => StreamDecoder::openai_responses(),
    };
    let recording = std::fs::read(&args.file)
        .map_err(|e| CliError::user(format!("cannot read {}: {e}", args.file.display())))?;
    let body = decoder
        .sse_body(&recording)
        .map_err(|e| CliError::user(format!("{}: {e}", args.file.display())))?;
    // A recording may hold several responses back to back (one per agent step).
    decoder.accept_concatenated(true);
    let (events, error) = decoder.decode(&body);
    let mut out = ctx.out();
    for event in &events {
        serde_json::to_writer(&mut out, event)?;
        writeln!(out)?;
    }
    flush(out)?;
    match error {
        None => Ok(ExitCode::SUCCESS),
        Some(e) => {
            let err = CliError::user(format!("{}: {e}", args.file.display()));
            Err(match events.is_empty() {
                true => err,
                false => err.hint("the events decoded before the problem are printed above"),
            })
        }
    }
}
