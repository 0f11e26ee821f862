//! `hotl sessions list --remote`: every tree in the store, newest first, from its summary.

use serde::Serialize;

use super::{Report, Shown};
use crate::error::Result;
use crate::remote::Remote;
use crate::summary::TreeSummary;

/// One tree as `hotl sessions list --remote` shows it (a row of its `--json` array).
#[derive(Clone, Debug, Serialize)]
pub struct Listed {
    /// The root session's id.
    pub id: String,
    /// Its name.
    pub name: Option<String>,
    /// Its title, else its first message.
    pub title: String,
    /// The directory it was made in (on the machine that made it).
    pub project: String,
    /// Who published it last.
    pub author: String,
    /// From which machine.
    pub host: String,
    /// When the tree was last active (RFC 3339).
    pub updated: String,
    /// When it was published last (RFC 3339, on the publishing machine's clock).
    pub published: String,
    /// The root's completed turns.
    pub turns: u64,
    /// The root's records.
    pub records: u64,
    /// The session it was forked from, when it was.
    pub parent: Option<String>,
    /// The sessions delegated within the tree.
    pub delegated: Vec<String>,
    /// Whether this home holds it too.
    pub local: bool,
}

/// What `hotl sessions list --remote` shows.
#[derive(Clone, Debug, Serialize)]
#[serde(transparent)]
pub struct Listing {
    /// The trees, most recently active first.
    pub rows: Vec<Listed>,
    /// The store's name, for the empty listing's line.
    #[serde(skip)]
    pub remote: String,
    /// Summaries that could not be read, by name.
    #[serde(skip)]
    pub problems: Vec<String>,
}

impl Listed {
    fn of(tree: &TreeSummary, local: bool) -> Option<Listed> {
        let root = tree.root_meta()?;
        Some(Listed {
            id: root.id.clone(),
            name: root.name.clone(),
            title: root
                .title
                .clone()
                .or_else(|| root.first_message.clone())
                .unwrap_or_default(),
            project: root.cwd.clone(),
            author: tree.author.clone(),
            host: tree.host.clone(),
            updated: tree.updated().to_owned(),
            published: tree.published.clone(),
            turns: root.turns,
            records: root.records,
            parent: root.parent.as_ref().map(|p| p.session.clone()),
            delegated: tree
                .sessions
                .iter()
                .filter(|m| m.id != root.id)
                .map(|m| m.id.clone())
                .collect(),
            local,
        })
    }
}

impl Remote {
    /// Every tree in the store, most recently active first; with `project`, only those made
    /// in that directory (as this machine names it: a relative or linked path is resolved).
    pub async fn listing(&self, project: Option<&std::path::Path>) -> Result<Listing> {
        let project = project.map(|dir| {
            let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_owned());
            dir.to_string_lossy().into_owned()
        });
        let project = project.as_deref();
        let (trees, problems) = self.list_trees().await?;
        let rows = trees
            .iter()
            .filter_map(|tree| Listed::of(tree, self.store.exists(&tree.root)))
            .filter(|row| project.is_none_or(|p| p == row.project))
            .collect();
        Ok(Listing {
            rows,
            remote: self.cfg.label().to_owned(),
            problems,
        })
    }
}

impl Report for Listing {
    fn text(&self, shown: &Shown) -> String {
        if self.rows.is_empty() {
            return format!("no sessions in {}\n", self.remote);
        }
        let mut out = String::new();
        for row in &self.rows {
            let when = hotl_export::relative_time(&row.updated, shown.now);
            let name = row
                .name
                .as_ref()
                .map(|n| format!(" [{n}]"))
                .unwrap_or_default();
            out += &format!(
                "{}{name}  {}  ·  {}  ·  {}@{}  ·  {when}{}\n",
                &row.id[..row.id.len().min(10)],
                hotl_text::clip(&row.title, 60),
                shown.tilde(&row.project),
                row.author,
                row.host,
                if row.local { "  · here too" } else { "" }
            );
        }
        out
    }

    fn warnings(&self) -> Vec<String> {
        self.problems
            .iter()
            .map(|p| format!("warning: {p}"))
            .collect()
    }
}
