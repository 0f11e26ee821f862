//! `hotl sessions check`: verify logs, explain problems, exit 1 when there are any.

use std::io::Write;
use std::process::ExitCode;

use clap::Args;
use hotl_log::{CheckReport, LogError, Severity};

use crate::ctx::{Ctx, flush};
use crate::error::CliError;

/// Verify logs (one session, or every session) and explain what is wrong
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  hotl sessions check\n  hotl sessions check @last")]
pub struct CheckArgs {
    /// List number, id prefix, name or @last [default: every session]
    #[arg(value_name = "REF")]
    pub session: Option<String>,
    /// JSON report
    #[arg(long)]
    pub json: bool,
}

pub fn run(ctx: &Ctx, args: &CheckArgs) -> Result<ExitCode, CliError> {
    let ids = match &args.session {
        Some(query) => vec![ctx.resolve(query)?.id],
        None => {
            let mut ids = ctx.store.session_ids()?;
            ids.extend(ctx.store.all_tree_children()?.into_iter().map(|(id, _)| id));
            ids.sort();
            ids
        }
    };
    let mut reports = Vec::new();
    for id in ids {
        match ctx.store.check(&id) {
            Ok(mut report) => {
                // A checkpoint is derived: one that does not match is a note, not a problem.
                match hotl_agent::checkpoint_state(&ctx.store, &id) {
                    hotl_agent::CheckpointState::Missing => {}
                    state => report.findings.push(hotl_log::Finding {
                        severity: Severity::Note,
                        message: state.to_string(),
                    }),
                }
                reports.push(report);
            }
            Err(e @ LogError::NotALog { .. }) => reports.push(CheckReport {
                id,
                records: 0,
                ancestors: 0,
                findings: vec![hotl_log::Finding {
                    severity: Severity::Problem,
                    message: e.to_string(),
                }],
            }),
            Err(e) => return Err(e.into()),
        }
    }
    let healthy = reports.iter().all(CheckReport::is_healthy);
    let mut out = ctx.out();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &reports)?;
        writeln!(out)?;
    } else {
        for report in &reports {
            let verdict = if report.is_healthy() {
                "ok"
            } else {
                "PROBLEMS"
            };
            writeln!(
                out,
                "{} {verdict}: {} records, {} ancestor{}",
                report.id,
                report.records,
                report.ancestors,
                if report.ancestors == 1 { "" } else { "s" }
            )?;
            for f in &report.findings {
                let tag = match f.severity {
                    Severity::Problem => "problem",
                    Severity::Note => "note",
                };
                writeln!(out, "  {tag}: {}", f.message)?;
            }
        }
        if reports.is_empty() {
            writeln!(out, "no sessions")?;
        }
    }
    flush(out)?;
    Ok(if healthy {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
