//! `hotl recall --remote QUERY`: the whole text (live transcript and archives) of every
//! session in the store searched, as `hotl recall` searches one session's archive here. A
//! tree this home holds as far as the store does is searched where it is; any other is
//! pulled into a cache under the home's derived files (only what the cache lacks, so a second
//! search fetches only what was published since) and searched there. The indexes are
//! hotl-recall's, local and derived, beside the copies they index.

use std::collections::BTreeSet;

use hotl_recall::Mode;
use serde::Serialize;

use crate::error::{RemoteError, Result};
use crate::pull::Pulled;
use crate::remote::Remote;
use crate::report::{Report, Shown, short};
use crate::summary::TreeSummary;

/// One match.
#[derive(Clone, Debug, Serialize)]
pub struct RecallHit {
    /// The session searched (a tree's root).
    pub session: String,
    /// Its title, else its first message.
    pub title: String,
    /// The directory it was made in.
    pub project: String,
    /// The archived thread holding it; `None` for the live transcript.
    pub handle: Option<String>,
    /// The record's seq (a note's: its thread's first).
    pub seq: u64,
    /// What it was: `user`, `assistant`, `tool`, `reasoning`, `note` or `ask`.
    pub kind: &'static str,
    /// The best matching line.
    pub line: String,
    /// BM25 score (ranked), or the number of matches in the document (exact, regex).
    pub score: f64,
    /// Whether it was searched in this home's own copy (else in the cache).
    pub here: bool,
}

/// What `hotl recall --remote` found.
#[derive(Clone, Debug, Serialize)]
pub struct RecallReport {
    /// The store (its name, else its URL).
    pub remote: String,
    /// Trees searched.
    pub searched: usize,
    /// What the cache fetched for this search.
    pub fetched: Pulled,
    /// The matches: ranked, best first; exact and regex, newest session first.
    pub hits: Vec<RecallHit>,
    /// Trees that could not be searched, and why.
    pub problems: Vec<String>,
}

impl Remote {
    /// The remote over this home's cache of the store (see the module docs).
    fn cache(&self) -> Remote {
        let dir = self
            .store
            .derived_dir(&format!("{}/cache", self.state_name()));
        Remote::new(
            self.bucket.clone(),
            self.cfg.clone(),
            None,
            hotl_log::Store::new(dir),
        )
        .with_me(self.me.clone())
    }

    /// Searches every session in the store (see the module docs): at most `limit` hits.
    pub async fn recall(&self, query: &str, mode: Mode, limit: usize) -> Result<RecallReport> {
        // A query that cannot be searched is said before anything is fetched.
        hotl_recall::Archive::from_records(&[], 0)
            .search(query, mode, 1)
            .map_err(|e| RemoteError::Config(e.to_string()))?;
        let (trees, problems) = self.list_trees().await?;
        let cache = self.cache();
        let known: BTreeSet<&str> = trees
            .iter()
            .flat_map(|t| t.sessions.iter().map(|m| m.id.as_str()))
            .collect();
        let mut report = RecallReport {
            remote: self.cfg.label().to_owned(),
            searched: 0,
            fetched: Pulled::default(),
            hits: Vec::new(),
            problems,
        };
        let mut found = Vec::new();
        for tree in &trees {
            let here = holds(&self.store, tree);
            if !here && !holds(&cache.store, tree) {
                match cache.pull(&tree.root).await {
                    Ok(pulled) => report.fetched.add(pulled),
                    Err(e) if e.is_unreachable() => return Err(e),
                    Err(e) => {
                        report.problems.push(e.to_string());
                        continue;
                    }
                }
            }
            let store = if here { &self.store } else { &cache.store };
            // A fork's inherited history is searched in its parent, when that is here too.
            let after = tree
                .root_meta()
                .and_then(|m| m.parent.as_ref())
                .filter(|pin| known.contains(pin.session.as_str()))
                .map_or(0, |pin| pin.seq);
            match hotl_recall::search_whole(store, &tree.root, after, query, mode, limit) {
                Ok(hits) => {
                    report.searched += 1;
                    found.extend(hits.into_iter().map(|h| hit(tree, h, here)));
                }
                Err(e) => report.problems.push(format!("{}: {e}", short(&tree.root))),
            }
        }
        if mode == Mode::Ranked {
            found.sort_by(|a, b| b.score.total_cmp(&a.score));
        }
        found.truncate(limit);
        report.hits = found;
        Ok(report)
    }
}

/// Whether `store` holds every session of `tree` as far as the store does.
fn holds(store: &hotl_log::Store, tree: &TreeSummary) -> bool {
    tree.sessions.iter().all(|m| {
        store.exists(&m.id)
            && store
                .meta(&m.id)
                .is_ok_and(|local| local.last_seq >= m.last_seq)
    })
}

fn hit(tree: &TreeSummary, h: hotl_recall::Hit, here: bool) -> RecallHit {
    let root = tree.root_meta();
    RecallHit {
        session: tree.root.clone(),
        title: root
            .and_then(|m| m.title.clone().or_else(|| m.first_message.clone()))
            .unwrap_or_default(),
        project: root.map(|m| m.cwd.clone()).unwrap_or_default(),
        handle: Some(h.handle).filter(|h| !h.is_empty()),
        seq: h.seq,
        kind: h.kind.name(),
        line: h.line,
        score: h.score,
        here,
    }
}

impl Report for RecallReport {
    fn text(&self, shown: &Shown) -> String {
        let mut out = String::new();
        let mut sessions: Vec<&RecallHit> = Vec::new();
        for h in &self.hits {
            let handle = h
                .handle
                .as_deref()
                .map(|h| format!("{h} "))
                .unwrap_or_default();
            out += &format!(
                "[{} {handle}t{} {}] {}\n",
                short(&h.session),
                h.seq,
                h.kind,
                h.line
            );
            if !sessions.iter().any(|s| s.session == h.session) {
                sessions.push(h);
            }
        }
        if !sessions.is_empty() {
            out.push('\n');
        }
        for s in &sessions {
            out += &format!(
                "{}  {}  ·  {}\n",
                short(&s.session),
                hotl_text::clip(&s.title, 60),
                shown.tilde(&s.project)
            );
        }
        let fetched = &self.fetched;
        out += &format!(
            "{} in {} of {}{}\n",
            hotl_text::plural(self.hits.len(), "hit"),
            hotl_text::plural(self.searched, "session"),
            self.remote,
            if fetched.segments + fetched.blobs > 0 {
                format!(
                    " (fetched {}, {} bytes, into the cache)",
                    hotl_text::plural(fetched.segments, "segment"),
                    fetched.bytes + fetched.blob_bytes
                )
            } else {
                String::new()
            }
        );
        out
    }

    fn warnings(&self) -> Vec<String> {
        self.problems
            .iter()
            .map(|p| format!("warning: {p}"))
            .collect()
    }
}
