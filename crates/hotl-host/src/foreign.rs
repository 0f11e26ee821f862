//! `/resume @claude|@codex|@pi`, the part both front ends share: another agent's sessions of
//! this directory, described for a picker, and one of them imported as a new hotl session (or
//! the one an earlier import of the unchanged file became), with the switch to make and what
//! to say about it. The console and the terminal UI add only their pickers.

use std::path::{Path, PathBuf};

use hotl_agent::SwitchTo;
use hotl_agent::slash::Foreign;
use hotl_import::{Candidate, Homes, ImportError, ImportOptions, Source};

use crate::ctx::Ctx;

/// How many of an import's skip messages are said; the `import` record keeps them all.
const SHOWN_MESSAGES: usize = 3;

/// The library's name for `agent`.
pub fn source(agent: Foreign) -> Source {
    match agent {
        Foreign::Claude => Source::Claude,
        Foreign::Codex => Source::Codex,
        Foreign::Pi => Source::Pi,
    }
}

/// `agent`'s sessions whose directory is this one, newest first, or the line saying there are
/// none and where hotl looked.
pub fn candidates(ctx: &Ctx, agent: Foreign) -> Result<Vec<Candidate>, String> {
    let source = source(agent);
    let homes = Homes::from_env();
    let found = hotl_import::discover(source, &homes, Path::new(&ctx.cwd));
    if found.is_empty() {
        let looked: Vec<String> = homes
            .roots(source)
            .iter()
            .map(|r| ctx.tilde(&r.to_string_lossy()))
            .collect();
        let looked = if looked.is_empty() {
            "no home directory known".to_owned()
        } else {
            looked.join(", ")
        };
        return Err(format!(
            "no {} sessions for {} in {looked}",
            source.display(),
            ctx.tilde(&ctx.cwd)
        ));
    }
    Ok(found)
}

/// A candidate as a picker shows it: its title (else its first prompt), and the agent, its
/// short id, how long ago it changed and how many records it has.
pub fn describe(ctx: &Ctx, c: &Candidate) -> (String, String) {
    let title = c
        .title
        .clone()
        .filter(|t| !t.trim().is_empty())
        .unwrap_or_else(|| "(no prompt)".to_owned());
    let when = hotl_export::relative_time(&hotl_log::format_ts(c.modified), ctx.now());
    let mut detail = format!(
        "{} · {} · {when}",
        c.source.display(),
        c.source_id.chars().take(8).collect::<String>()
    );
    if let Some(n) = c.records {
        detail.push_str(&format!(" · {n} record{}", if n == 1 { "" } else { "s" }));
    }
    (title, detail)
}

/// Imports `agent`'s session that `query` names (a file, or a session id or its prefix): the
/// switch to the hotl session it became, and the lines to say (what was skipped, briefly).
/// A session whose recorded directory is gone is moved here by the switch.
pub fn import(ctx: &Ctx, agent: Foreign, query: &str) -> Result<(SwitchTo, Vec<String>), String> {
    let source = source(agent);
    if ctx.is_in_memory() {
        // The switch would be refused anyway; nothing is imported for it.
        return Err(format!(
            "this session is not saved (--no-session): /resume @{} needs a saved session",
            agent.name()
        ));
    }
    let path = hotl_import::resolve(source, &Homes::from_env(), query).map_err(shown)?;
    let opts = ImportOptions {
        cwd: None,
        fallback_cwd: Some(PathBuf::from(&ctx.cwd)),
    };
    let outcome = hotl_import::import_foreign(&ctx.store, source, &path, &opts).map_err(shown)?;
    let file = ctx.tilde(&path.to_string_lossy());
    let mut said = vec![if outcome.existing {
        format!(
            "{file} is unchanged since it was imported: resuming {}",
            outcome.id
        )
    } else {
        format!(
            "imported {} session {file} as {}",
            source.display(),
            outcome.id
        )
    }];
    let messages = outcome.report.messages();
    said.extend(messages.iter().take(SHOWN_MESSAGES).cloned());
    if messages.len() > SHOWN_MESSAGES {
        said.push(format!(
            "+{} more kinds skipped (hotl sessions show {} lists them)",
            messages.len() - SHOWN_MESSAGES,
            outcome.id
        ));
    }
    if let Some(previous) = &outcome.previous {
        said.push(format!(
            "the file changed since it was imported as {previous}; this is a new session"
        ));
    }
    match outcome.children.len() {
        0 => {}
        1 => said.push("1 sub-agent session in its tree".to_owned()),
        n => said.push(format!("{n} sub-agent sessions in its tree")),
    }
    let reroot = outcome.cwd_missing.then(|| {
        said.push(format!(
            "its directory {} does not exist here: it moves to this one",
            outcome.cwd
        ));
        PathBuf::from(&ctx.cwd)
    });
    Ok((
        SwitchTo::Resume {
            session: outcome.id,
            reroot,
        },
        said,
    ))
}

/// An import error as said (an ambiguous id lists its candidates on the lines after).
fn shown(e: ImportError) -> String {
    e.to_string()
}
