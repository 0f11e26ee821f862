//! `hotl sessions export`: a session written as one offline page, Markdown, or a log that
//! stands alone. Reads only: nothing is appended to the session.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use crate::ctx::{Ctx, flush};
use crate::error::CliError;
use hotl_export::deliver;

use crate::takeout::{self, ExportRequest};

/// Write a session as one self-contained HTML page (or Markdown, or a JSONL log)
///
/// A page goes to hotl's data directory unless `-o` says where (its path is printed);
/// Markdown and JSONL go to standard output unless `-o` says where. `-o -` is standard
/// output for any format.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  hotl sessions export @last                 <home>/exports/hotl-<id>.html, works offline\n  hotl sessions export 1 -o notes/run.md     Markdown (from the extension)\n  hotl sessions export 1 --format md | less  Markdown on standard output\n  hotl sessions export fix-bug --format jsonl -o fix.jsonl   importable elsewhere\n  hotl sessions export @last --redact        keys, tokens and $HOME hidden"
)]
pub struct ExportArgs {
    /// List number, id prefix, name or @last
    #[arg(value_name = "REF")]
    pub session: String,
    /// Where to write (a directory takes the default name; `-` is standard output)
    /// [default: a page to <home>/exports/hotl-<id>.html, md and jsonl to standard output]
    #[arg(short = 'o', long = "output", value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// html, md or jsonl [default: from the path's extension, else html]
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Hide credentials, secret-looking environment values and the home directory
    #[arg(long)]
    pub redact: bool,
    /// No size budget (a page over 50 MB is otherwise trimmed, and says so)
    #[arg(long, conflicts_with = "max_bytes")]
    pub full: bool,
    /// Trim the page to fit this many bytes instead of 50 MB (images first, then full
    /// outputs, archived spans, children, long strings, the oldest turns)
    #[arg(long, value_name = "N")]
    pub max_bytes: Option<usize>,
}

pub fn run(ctx: &Ctx, args: &ExportArgs) -> Result<ExitCode, CliError> {
    let meta = ctx.resolve(&args.session)?;
    let dash = args.output.as_deref() == Some(std::path::Path::new("-"));
    let req = ExportRequest {
        id: meta.id,
        path: args.output.clone().filter(|_| !dash),
        format: args.format.map(Into::into),
        redact: args.redact,
        budget: match (args.full, args.max_bytes) {
            (true, _) => None,
            (false, Some(n)) => Some(n),
            (false, None) => Some(hotl_export::DEFAULT_BUDGET),
        },
    };
    let to_stdout =
        dash || (req.path.is_none() && takeout::export_format(&req) != deliver::Format::Html);
    if to_stdout {
        let rendered = takeout::export_bytes(&ctx.store, &req)?;
        for line in takeout::report_lines(&rendered.trimmed, &rendered.redacted) {
            eprintln!("hotl: {line}");
        }
        let mut out = ctx.out();
        out.write_all(&rendered.bytes)?;
        flush(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    let exported = takeout::export(&ctx.store, std::path::Path::new(&ctx.cwd), &req)?;
    for line in takeout::report_lines(&exported.trimmed, &exported.redacted) {
        eprintln!("hotl: {line}");
    }
    let mut out = ctx.out();
    writeln!(out, "{}", exported.path.display())?;
    flush(out)?;
    Ok(ExitCode::SUCCESS)
}

/// `hotl --export <file.jsonl> [PATH]`: a log file exported without opening a session.
pub fn from_file(ctx: &Ctx, paths: &[PathBuf]) -> Result<ExitCode, CliError> {
    let [log, rest @ ..] = paths else {
        return Err(CliError::usage(
            "--export needs a log file: hotl --export FILE.jsonl [PATH]",
        ));
    };
    let exported = takeout::export_file(
        &ctx.store,
        std::path::Path::new(&ctx.cwd),
        log,
        rest.first().map(PathBuf::as_path),
    )?;
    let mut out = ctx.out();
    writeln!(out, "{}", exported.path.display())?;
    flush(out)?;
    Ok(ExitCode::SUCCESS)
}

/// What an export is written as (`--format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// One self-contained page that works offline
    Html,
    /// Markdown
    Md,
    /// A hotl log that stands alone (`hotl sessions import` reads it back)
    Jsonl,
}

impl From<Format> for deliver::Format {
    fn from(format: Format) -> deliver::Format {
        match format {
            Format::Html => deliver::Format::Html,
            Format::Md => deliver::Format::Md,
            Format::Jsonl => deliver::Format::Jsonl,
        }
    }
}
