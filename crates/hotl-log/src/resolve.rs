//! Resolving what a user typed into a session: list number, id prefix, name or `@last`.

use crate::error::{LogError, Result};
use crate::meta::SessionMeta;

/// The outcome of matching a reference against candidates.
#[derive(Debug, PartialEq, Eq)]
pub enum Resolution<T> {
    /// Nothing matched.
    NoMatch,
    /// Exactly one matched.
    One(T),
    /// Several matched.
    Ambiguous(Vec<T>),
}

/// The sessions a listing shows, in its numbering: live roots, newest activity first, limited
/// to those started in `cwd` when it is given. `metas` must already be newest first.
pub fn listed<'a>(metas: &'a [SessionMeta], cwd: Option<&str>) -> Vec<&'a SessionMeta> {
    metas
        .iter()
        .filter(|m| !m.dropped && !m.delegated)
        .filter(|m| cwd.is_none_or(|c| m.cwd == c))
        .collect()
}

/// Resolves `query` against `metas` (every root, newest first). List numbers count in the
/// listing of `cwd`, as `hotl sessions list` shows it; `@last` is the most recently active
/// session anywhere; then an exact name; then an id prefix (case-insensitive).
pub fn resolve<'a>(
    metas: &'a [SessionMeta],
    cwd: Option<&str>,
    query: &str,
) -> Result<&'a SessionMeta> {
    match resolve_inner(metas, cwd, query) {
        Resolution::One(m) => Ok(m),
        Resolution::NoMatch => Err(LogError::NoSuchSession {
            query: query.to_owned(),
        }),
        Resolution::Ambiguous(ms) => Err(LogError::Ambiguous {
            query: query.to_owned(),
            candidates: ms.iter().map(|m| describe(m)).collect(),
        }),
    }
}

fn resolve_inner<'a>(
    metas: &'a [SessionMeta],
    cwd: Option<&str>,
    query: &str,
) -> Resolution<&'a SessionMeta> {
    let live = listed(metas, None);
    if query == "@last" {
        return live
            .first()
            .map_or(Resolution::NoMatch, |m| Resolution::One(*m));
    }
    // Every id starts with a digit (`01...`): a number written with a leading zero is an id
    // prefix, not a list number.
    if let Ok(n) = query.parse::<usize>()
        && query.len() < 6
        && !query.starts_with('0')
    {
        let numbered = listed(metas, cwd);
        return match n.checked_sub(1).and_then(|i| numbered.get(i)) {
            Some(m) => Resolution::One(*m),
            None => Resolution::NoMatch,
        };
    }
    // Names are unique, but a home can hold two sessions of one name (written by an older
    // version, or copied in by hand): that name is ambiguous, not the newer one's.
    let named: Vec<&SessionMeta> = live
        .iter()
        .copied()
        .filter(|m| m.name.as_deref() == Some(query))
        .collect();
    match named.len() {
        0 => {}
        1 => return Resolution::One(named[0]),
        _ => return Resolution::Ambiguous(named),
    }
    let upper = query.to_ascii_uppercase();
    if upper.len() == 26
        && let Some(m) = metas.iter().find(|m| m.id == upper)
    {
        // A full id reaches dropped sessions too.
        return Resolution::One(m);
    }
    let hits: Vec<&SessionMeta> = live
        .into_iter()
        .filter(|m| !upper.is_empty() && m.id.starts_with(&upper))
        .collect();
    match hits.len() {
        0 => Resolution::NoMatch,
        1 => Resolution::One(hits[0]),
        _ => Resolution::Ambiguous(hits),
    }
}

/// `01J9ZK3F2X (name) "title"`: how a candidate is named in errors.
pub fn describe(meta: &SessionMeta) -> String {
    let mut out = meta.id.clone();
    if let Some(name) = &meta.name {
        out.push_str(&format!(" ({name})"));
    }
    let title = meta.display_title();
    if !title.is_empty() {
        out.push_str(&format!(" {title:?}"));
    }
    out
}

impl crate::store::Store {
    /// Checks that `name` can name the session `except` (`None`: a session not created yet):
    /// a valid name (see [`validate_name`]) that no other live session holds. The one place
    /// the name rule is enforced: call it before anything is written.
    pub fn check_name(&self, name: &str, except: Option<&str>) -> Result<()> {
        validate_name(name)?;
        let taken = self.list()?.into_iter().find(|m| {
            !m.dropped && m.name.as_deref() == Some(name) && Some(m.id.as_str()) != except
        });
        match taken {
            Some(m) => Err(LogError::NameTaken {
                name: name.to_owned(),
                by: m.id,
            }),
            None => Ok(()),
        }
    }
}

impl crate::store::Store {
    /// When `id`'s name is held by another live session too (a copy imported beside its
    /// original), names `id` the first free `<name>-2`, `<name>-3`, …; returns the old name and
    /// the new one.
    pub fn keep_name_unique(&self, id: &str) -> Result<Option<(String, String)>> {
        let metas = self.list()?;
        let Some(name) = metas
            .iter()
            .find(|m| m.id == id)
            .and_then(|m| m.name.clone())
        else {
            return Ok(None);
        };
        let taken = |n: &str| {
            metas
                .iter()
                .any(|m| !m.dropped && m.id != id && m.name.as_deref() == Some(n))
        };
        if !taken(&name) {
            return Ok(None);
        }
        let base: String = name.chars().take(56).collect();
        let Some(fresh) = (2..)
            .map(|k: u32| format!("{base}-{k}"))
            .find(|n| !taken(n))
        else {
            return Ok(None);
        };
        self.writer(id)?.append(crate::Body::Name {
            name: Some(fresh.clone()),
        })?;
        Ok(Some((name, fresh)))
    }
}

/// Checks that `name` can name a session: not empty, no `/`, `..` or control characters, not a
/// number or `@`-reference (those address sessions otherwise), at most 64 characters.
pub fn validate_name(name: &str) -> Result<()> {
    let bad = |reason| {
        Err(LogError::BadName {
            name: name.to_owned(),
            reason,
        })
    };
    if name.trim().is_empty() {
        return bad("it is empty");
    }
    if name.trim() != name {
        return bad("it starts or ends with whitespace");
    }
    if name.contains('/') || name.contains('\\') {
        return bad("it contains a path separator");
    }
    if name.contains("..") {
        return bad("it contains '..'");
    }
    if name.chars().any(char::is_control) {
        return bad("it contains control characters");
    }
    if name.starts_with('@') {
        return bad("names starting with '@' are reserved");
    }
    if name.bytes().all(|b| b.is_ascii_digit()) {
        return bad("a number would be read as a list number");
    }
    if name.chars().count() > 64 {
        return bad("it is longer than 64 characters");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(id: &str, name: Option<&str>, cwd: &str, updated: &str) -> SessionMeta {
        SessionMeta {
            id: id.into(),
            name: name.map(Into::into),
            cwd: cwd.into(),
            updated: updated.into(),
            ..SessionMeta::default()
        }
    }

    fn metas() -> Vec<SessionMeta> {
        vec![
            meta("01JAAAAAAAAAAAAAAAAAAAAAA1", Some("auth"), "/a", "3"),
            meta("01JAAAAAAAAAAAAAAAAAAAAAA2", None, "/b", "2"),
            meta("01JBBBBBBBBBBBBBBBBBBBBBB3", None, "/a", "1"),
        ]
    }

    #[test]
    fn numbers_count_in_the_cwd_listing() {
        let ms = metas();
        assert_eq!(resolve(&ms, Some("/a"), "2").unwrap().id, ms[2].id);
        assert_eq!(resolve(&ms, None, "2").unwrap().id, ms[1].id);
        assert!(resolve(&ms, Some("/a"), "3").is_err());
    }

    #[test]
    fn last_name_and_prefix() {
        let ms = metas();
        assert_eq!(resolve(&ms, Some("/b"), "@last").unwrap().id, ms[0].id);
        assert_eq!(resolve(&ms, None, "auth").unwrap().id, ms[0].id);
        assert_eq!(resolve(&ms, None, "01jb").unwrap().id, ms[2].id);
    }

    #[test]
    fn ambiguous_prefix_lists_candidates() {
        let ms = metas();
        let err = resolve(&ms, None, "01JA").unwrap_err();
        let LogError::Ambiguous { candidates, .. } = &err else {
            panic!("{err}")
        };
        assert_eq!(candidates.len(), 2);
        assert!(
            err.to_string()
                .contains("01JAAAAAAAAAAAAAAAAAAAAAA1 (auth)")
        );
    }

    #[test]
    fn bad_names_are_refused() {
        for name in ["", "a/b", "..", "x..y", "a\u{7}", "@last", "12", " pad"] {
            assert!(validate_name(name).is_err(), "{name:?}");
        }
        validate_name("auth-explore").unwrap();
    }
}
