//! `hotl ask`: put one question to an archived thread of a session.

use std::io::Write;
use std::process::ExitCode;

use clap::Args;
use hotl_agent::{Session, Settings};

use crate::config::{self, Overrides};
use crate::ctx::{Ctx, flush};
use crate::error::CliError;

/// Ask an archived (folded) thread one question; prints its answer
#[derive(Debug, Args)]
pub struct AskArgs {
    /// List number, id prefix, name or @last
    #[arg(value_name = "REF")]
    pub session: String,
    /// The thread's handle (as `hotl sessions show` prints it)
    pub handle: String,
    /// The question
    pub question: String,
    /// anthropic | openai | openai-chat | demo [env: HOTL_PROVIDER]
    #[arg(long, value_name = "PROVIDER")]
    pub provider: Option<String>,
    /// A server root or a URL ending in /v1 [env: HOTL_BASE_URL]
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// The model [env: HOTL_MODEL]
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
}

pub fn run(ctx: &Ctx, args: &AskArgs) -> Result<ExitCode, CliError> {
    let resolved = config::resolve(
        config::load_file()?,
        &Overrides {
            provider: args.provider.clone(),
            base_url: args.base_url.clone(),
            model: args.model.clone(),
        },
    )?;
    if let Some(notice) = resolved.demo_notice {
        eprintln!("hotl: {notice}");
    }
    let meta = ctx.resolve(&args.session)?;
    let mut session = Session::open(&ctx.store, &meta.id, hotl_agent::default_tools())?;
    let mut settings = Settings::new(resolved.model.clone());
    settings.pricing = resolved.pricing.clone();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| CliError::Internal(format!("cannot start the runtime: {e}")))?;
    let answer = runtime.block_on(session.ask(
        &args.handle,
        &args.question,
        &resolved.provider,
        &settings,
    ))?;
    let mut out = ctx.out();
    writeln!(out, "{answer}")?;
    flush(out)?;
    Ok(ExitCode::SUCCESS)
}
