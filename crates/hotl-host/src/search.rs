//! Searching every session's text (`hotl search`, the resume picker's content search,
//! `/search`): hotl-recall's index of every session searched, its hits grouped by session
//! (in the order of each session's best hit) with what a listing shows of each.

use std::time::SystemTime;

use hotl_log::SessionMeta;
use hotl_recall::{Mode, Scope, SessionHit};

use crate::ctx::Ctx;
use crate::error::CliError;

/// One session's hits.
#[derive(Clone, Debug)]
pub struct Group {
    /// The session, as `hotl sessions list` shows it.
    pub meta: SessionMeta,
    /// Its hits, best first (exact and regex: newest first).
    pub hits: Vec<SessionHit>,
}

/// What a search found, and what it could not search.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// The sessions with hits.
    pub groups: Vec<Group>,
    /// Set when an exact or regex search stopped early, saying why.
    pub partial: Option<String>,
    /// Sessions whose logs could not be read, and why.
    pub problems: Vec<String>,
}

/// Searches the sessions `scope` allows for `query`: at most `limit` hits.
pub fn search(
    ctx: &Ctx,
    query: &str,
    mode: Mode,
    scope: &Scope,
    limit: usize,
) -> Result<Report, CliError> {
    let (found, refreshed) = hotl_recall::search_sessions(&ctx.store, query, mode, scope, limit)
        .map_err(|e| CliError::user(e.to_string()))?;
    let mut groups: Vec<Group> = Vec::new();
    for hit in found.hits {
        if let Some(group) = groups.iter_mut().find(|g| g.meta.id == hit.session) {
            group.hits.push(hit);
            continue;
        }
        // Gone or unreadable since it was indexed: nothing to show or resume.
        let Ok(meta) = ctx.store.meta(&hit.session) else {
            continue;
        };
        groups.push(Group {
            meta,
            hits: vec![hit],
        });
    }
    Ok(Report {
        groups,
        partial: found.partial,
        problems: refreshed.problems,
    })
}

/// The most sessions the resume picker's content search shows.
const PICKER_SESSIONS: usize = 30;

/// For the resume picker: every project's sessions whose text holds `query` (ranked), each
/// once with its best hit, best first. A filter with no word to search for finds nothing.
pub fn picker_hits(
    store: &hotl_log::Store,
    query: &str,
) -> Result<Vec<(SessionMeta, SessionHit)>, String> {
    let found = match hotl_recall::search_sessions(
        store,
        query,
        Mode::Ranked,
        &Scope::default(),
        PICKER_SESSIONS * 4,
    ) {
        Ok((found, _)) => found,
        Err(hotl_recall::RecallError::EmptyQuery { .. }) => return Ok(Vec::new()),
        Err(e) => return Err(e.to_string()),
    };
    let mut out: Vec<(SessionMeta, SessionHit)> = Vec::new();
    for hit in found.hits {
        if out.len() == PICKER_SESSIONS || out.iter().any(|(m, _)| m.id == hit.session) {
            continue;
        }
        if let Ok(meta) = store.meta(&hit.session) {
            out.push((meta, hit));
        }
    }
    Ok(out)
}

/// `--since`: a date (`2026-11-30`), an RFC 3339 time, or how long ago (`3d`, `12h`, `2w`),
/// as the RFC 3339 UTC text session times compare with.
pub fn since(text: &str, now: SystemTime) -> Result<String, CliError> {
    let text = text.trim();
    let bad = || {
        CliError::usage(format!(
            "--since {text:?}: give a date (2026-11-30), a time (2026-11-30T09:00:00Z) or how \
             long ago (3d, 12h, 2w)"
        ))
    };
    if let Ok(ago) = humantime::parse_duration(text) {
        let then = now.checked_sub(ago).ok_or_else(bad)?;
        return Ok(humantime::format_rfc3339_millis(then).to_string());
    }
    let full = if text.len() == 10 {
        format!("{text}T00:00:00Z")
    } else {
        text.to_owned()
    };
    let then = humantime::parse_rfc3339_weak(&full)
        .or_else(|_| humantime::parse_rfc3339(&full))
        .map_err(|_| bad())?;
    Ok(humantime::format_rfc3339_millis(then).to_string())
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, UNIX_EPOCH};

    use super::*;

    #[test]
    fn since_takes_dates_times_and_how_long_ago() {
        let now = UNIX_EPOCH + Duration::from_secs(1_764_930_000); // 2025-12-05T10:20:00Z
        assert_eq!(
            since("2026-11-30", now).unwrap(),
            "2026-11-30T00:00:00.000Z"
        );
        assert_eq!(
            since("2026-11-30T09:00:00Z", now).unwrap(),
            "2026-11-30T09:00:00.000Z"
        );
        assert_eq!(since("1d", now).unwrap(), "2025-12-04T10:20:00.000Z");
        assert_eq!(since("2w", now).unwrap(), "2025-11-21T10:20:00.000Z");
        let e = since("last tuesday", now).unwrap_err().to_string();
        assert!(e.contains("--since \"last tuesday\""), "{e}");
    }
}
