//! Tree summaries: what a listing of the store shows without reading any log (each
//! session's summary, who published it from where) and the blobs the tree references (what
//! gc keeps). One object per tree, rewritten by the lease holder after each publish, which
//! then notes the change in the journal listings read (see [`crate::listing`]).

use std::collections::BTreeSet;

use hotl_log::SessionMeta;
use object_store::PutMode;
use serde::{Deserialize, Serialize};

use crate::error::{RemoteError, Result};
use crate::layout;
use crate::remote::Remote;

/// The summary's format.
pub const FORMAT: &str = "hotl-remote-summary/1";

/// One tree as the store lists it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TreeSummary {
    /// `FORMAT`.
    pub format: String,
    /// The tree's root.
    pub root: String,
    /// The machine that published it last.
    pub host: String,
    /// The user who did.
    pub author: String,
    /// When (RFC 3339, on that machine's clock).
    pub published: String,
    /// Every session of the tree, the root first.
    pub sessions: Vec<SessionMeta>,
    /// Every blob the tree's logs reference.
    #[serde(default)]
    pub blobs: BTreeSet<String>,
}

impl TreeSummary {
    /// The root's summary.
    pub fn root_meta(&self) -> Option<&SessionMeta> {
        self.sessions.iter().find(|m| m.id == self.root)
    }

    /// When the tree was last active: its youngest session's last record.
    pub fn updated(&self) -> &str {
        self.sessions
            .iter()
            .map(|m| m.updated.as_str())
            .max()
            .unwrap_or("")
    }
}

impl Remote {
    /// Writes a tree's summary from this home's copy of it.
    pub(crate) async fn write_summary(&self, root: &str, blobs: &BTreeSet<String>) -> Result<()> {
        let mut ids = vec![root.to_owned()];
        ids.extend(self.store.tree_children(root)?);
        let mut sessions = Vec::with_capacity(ids.len());
        for id in &ids {
            let mut meta = self.store.meta(id)?;
            if let Some(redactor) = &self.redactor {
                let mut report = hotl_export::redact::Report::new();
                for text in [&mut meta.title, &mut meta.first_message]
                    .into_iter()
                    .flatten()
                {
                    redactor.text(text, &mut report);
                }
                redactor.text(&mut meta.cwd, &mut report);
            }
            sessions.push(meta);
        }
        let summary = TreeSummary {
            format: FORMAT.to_owned(),
            root: root.to_owned(),
            host: self.me.host.clone(),
            author: ["USER", "LOGNAME"]
                .iter()
                .find_map(|v| std::env::var(v).ok().filter(|u| !u.is_empty()))
                .unwrap_or_default(),
            published: hotl_log::format_ts(std::time::SystemTime::now()),
            sessions,
            blobs: blobs.clone(),
        };
        let name = layout::summary(root);
        let plain = serde_json::to_vec(&summary).expect("a summary serializes");
        let sealed = self.bucket.seal(&name, &plain)?;
        self.bucket
            .put_raw(&name, sealed, PutMode::Overwrite)
            .await
            .map_err(|e| RemoteError::store(format!("writing {}", self.bucket.shown(&name)), e))?;
        self.note_change(root).await
    }

    /// Reads one tree's summary; `None` when it has none.
    pub async fn summary(&self, root: &str) -> Result<Option<TreeSummary>> {
        let name = layout::summary(root);
        let Some((stored, _)) = self.bucket.get_raw(&name).await? else {
            return Ok(None);
        };
        self.read_summary(&name, root, &stored).map(Some)
    }

    pub(crate) fn read_summary(
        &self,
        name: &str,
        root: &str,
        stored: &[u8],
    ) -> Result<TreeSummary> {
        let plain = self.bucket.unseal(name, stored)?;
        serde_json::from_slice::<TreeSummary>(&plain)
            .ok()
            .filter(|s| s.format == FORMAT && s.root == root)
            .ok_or_else(|| RemoteError::Damaged {
                name: self.bucket.shown(name),
                why: format!("it is not a {FORMAT} summary of {root}"),
            })
    }

    /// The session `query` names (see [`Remote::find`]) with its tree pulled (a root session
    /// without its archive when the store holds its view: [`Remote::pull_lazily`]): its id and
    /// what the pull brought; `None` when the store holds no match.
    pub async fn find_and_pull(&self, query: &str) -> Result<Option<(String, crate::Pulled)>> {
        let (root, id) = match self.find(query).await {
            Ok(found) => found,
            Err(RemoteError::NoMatch(_)) => return Ok(None),
            Err(e) => return Err(e),
        };
        if id == root && !self.store.exists(&root) {
            // The session is pulled to be opened, and so written: the first write needs the
            // store's probes (once a day), so they run beside the fetch. Their verdict is kept
            // for the writer; a store that fails them is used read-only, and says so then.
            let (lazily, _) = tokio::join!(self.pull_lazily(&root), self.writable());
            if let Some(pulled) = lazily? {
                return Ok(Some((id, pulled)));
            }
        }
        Ok(Some((id, self.pull(&root).await?)))
    }

    /// The tree in the store holding a session `query` names: its id, a unique id prefix,
    /// a root's name, or `@last` (the most recently active tree). Returns the tree's root and
    /// the session's id.
    pub async fn find(&self, query: &str) -> Result<(String, String)> {
        let (trees, _) = self.list_trees().await?;
        if query == "@last" {
            return trees
                .first()
                .map(|t| (t.root.clone(), t.root.clone()))
                .ok_or_else(|| RemoteError::NoMatch(query.to_owned()));
        }
        let upper = query.to_ascii_uppercase();
        let mut hits: Vec<(String, String)> = Vec::new();
        for tree in &trees {
            for meta in &tree.sessions {
                let by_id = !upper.is_empty() && meta.id.starts_with(&upper);
                let by_name = meta.id == tree.root && meta.name.as_deref() == Some(query);
                if meta.id == upper {
                    return Ok((tree.root.clone(), meta.id.clone()));
                }
                if by_id || by_name {
                    hits.push((tree.root.clone(), meta.id.clone()));
                }
            }
        }
        match hits.len() {
            // A tree whose first publish was cut short before its summary: found by its id.
            0 if hotl_log::is_session_id(&upper)
                && !self.segments_of(&upper, &upper).await?.is_empty() =>
            {
                Ok((upper.clone(), upper))
            }
            0 => Err(RemoteError::NoMatch(query.to_owned())),
            1 => Ok(hits.remove(0)),
            _ => Err(RemoteError::Ambiguous {
                query: query.to_owned(),
                candidates: hits.into_iter().map(|(_, id)| id).collect(),
            }),
        }
    }
}
