//! The terminal UI's side in the binary: what [`hotl_tui`] asks of the session store (a
//! reference resolved as the shell resolves it, the sessions to pick from, a transcript,
//! another agent's sessions imported), and the options it starts with.

use std::process::ExitCode;
use std::time::Instant;

use hotl_agent::Agent;
use hotl_tui::cells::{Entry, short_id};
use hotl_tui::picker::Row;
use hotl_view::View;

use crate::ctx::Ctx;
use crate::error::CliError;

/// The store, for the UI.
struct StoreHost<'a> {
    ctx: &'a Ctx,
    /// How to start an agent on a session that was held by another process.
    opener: Option<Opener>,
}

/// What opening a session for writing needs: the provider and the settings this run made.
pub struct Opener {
    /// The provider.
    pub provider: hotl_agent::Provider,
    /// The settings.
    pub settings: hotl_agent::Settings,
}

impl hotl_tui::Host for StoreHost<'_> {
    fn export(&self, id: &str, path: Option<&str>) -> Result<Vec<String>, String> {
        crate::takeout::export_here(self.ctx, id, path.map(str::to_owned))
            .map_err(|e| e.to_string())
    }

    fn share(&self, id: &str) -> hotl_tui::Later<'_, Result<Vec<String>, String>> {
        let id = id.to_owned();
        Box::pin(async move {
            crate::takeout::share_here(self.ctx, &id)
                .await
                .map_err(|e| e.to_string())
        })
    }

    fn entries_later(&self, id: &str) -> hotl_tui::Later<'_, Vec<Entry>> {
        let (store, id) = (self.ctx.store.clone(), id.to_owned());
        Box::pin(async move {
            let read = tokio::task::spawn_blocking(move || entries_in(&store, &id)).await;
            match read {
                Ok(Ok(entries)) => entries,
                Ok(Err(e)) => {
                    tracing::warn!("cannot read a session for the pager: {e}");
                    Vec::new()
                }
                Err(e) => {
                    tracing::warn!("the pager's read failed: {e}");
                    Vec::new()
                }
            }
        })
    }

    fn search_sessions(
        &self,
        query: &str,
    ) -> Option<hotl_tui::Later<'_, Result<Vec<Row>, String>>> {
        let (store, query) = (self.ctx.store.clone(), query.to_owned());
        Some(Box::pin(async move {
            let found =
                tokio::task::spawn_blocking(move || crate::search::picker_hits(&store, &query))
                    .await
                    .map_err(|e| format!("the search failed: {e}"))??;
            let now = self.ctx.now();
            let mut rows: Vec<Row> = found
                .into_iter()
                .map(|(meta, hit)| {
                    let mut detail = format!(
                        "“{}” · t{} · {} · {}",
                        hotl_text::clip(&hit.line, 80),
                        hit.seq,
                        short_id(&meta.id),
                        hotl_export::relative_time(&meta.updated, now)
                    );
                    if meta.cwd != self.ctx.cwd {
                        detail.push_str(&format!(" · {}", self.ctx.tilde(&meta.cwd)));
                    }
                    Row {
                        label: meta.display_title().chars().take(60).collect(),
                        detail,
                        value: meta.id.clone(),
                        near: meta.cwd == self.ctx.cwd,
                    }
                })
                .collect();
            // This directory's first; the ranking stands within each.
            rows.sort_by_key(|r| !r.near);
            Ok(rows)
        }))
    }

    fn foreign_sessions(&self, agent: hotl_agent::slash::Foreign) -> Result<Vec<Row>, String> {
        let found = crate::foreign::candidates(self.ctx, agent)?;
        Ok(found
            .iter()
            .map(|c| {
                let (title, detail) = crate::foreign::describe(self.ctx, c);
                Row {
                    label: title.chars().take(60).collect(),
                    detail,
                    value: c.path.to_string_lossy().into_owned(),
                    near: true,
                }
            })
            .collect())
    }

    fn import_foreign(
        &self,
        agent: hotl_agent::slash::Foreign,
        query: &str,
    ) -> Result<(hotl_agent::SwitchTo, Vec<String>), String> {
        crate::foreign::import(self.ctx, agent, query)
    }

    fn resolve(&self, query: &str) -> Result<String, String> {
        self.ctx.resolve(query).map(|m| m.id).map_err(|e| {
            let mut text = e.to_string();
            for hint in e.hints() {
                text.push_str(&format!("\n{hint}"));
            }
            text
        })
    }

    fn sessions(&self) -> Vec<Row> {
        let Ok(metas) = self.ctx.store.list() else {
            return Vec::new();
        };
        let now = self.ctx.now();
        hotl_log::listed(&metas, None)
            .into_iter()
            .map(|m| {
                let mut detail = format!(
                    "{} · {} · {} turn{}",
                    short_id(&m.id),
                    hotl_export::relative_time(&m.updated, now),
                    m.turns,
                    if m.turns == 1 { "" } else { "s" }
                );
                if let Some(p) = &m.parent {
                    detail.push_str(&format!(" · ↳ from {}", short_id(&p.session)));
                }
                if m.cwd != self.ctx.cwd {
                    detail.push_str(&format!(" · {}", self.ctx.tilde(&m.cwd)));
                }
                // A named session shows its name first, and typing the name finds it.
                let label = match &m.name {
                    Some(name) => format!("{name} · {}", m.display_title()),
                    None => m.display_title().to_owned(),
                };
                Row {
                    label: label.chars().take(60).collect(),
                    detail,
                    value: m.id.clone(),
                    near: m.cwd == self.ctx.cwd,
                }
            })
            .collect()
    }

    fn remote_sessions(&self) -> Option<hotl_tui::Later<'_, Result<Vec<Row>, String>>> {
        let remote = match self.ctx.follower() {
            Some(follower) => Ok(std::sync::Arc::clone(follower.remote())),
            None => crate::remote::open(self.ctx).transpose()?,
        };
        Some(Box::pin(async move {
            let listing = remote
                .map_err(|e| e.to_string())?
                .listing(None)
                .await
                .map_err(|e| e.to_string())?;
            let now = self.ctx.now();
            Ok(listing
                .rows
                .into_iter()
                .map(|t| Row {
                    label: hotl_text::clip(&t.title, 60),
                    detail: format!(
                        "{} · {} · {}@{} · {}",
                        short_id(&t.id),
                        hotl_export::relative_time(&t.updated, now),
                        t.author,
                        t.host,
                        self.ctx.tilde(&t.project)
                    ),
                    value: t.id,
                    near: false,
                })
                .collect())
        }))
    }

    fn tree(&self, id: &str) -> Vec<Row> {
        let Ok(metas) = self.ctx.store.list() else {
            return Vec::new();
        };
        let by_id: std::collections::HashMap<&str, &hotl_log::SessionMeta> =
            metas.iter().map(|m| (m.id.as_str(), m)).collect();
        // Up to the root through the parents, then everything forked from it, depth first.
        let mut root = id;
        while let Some(parent) = by_id.get(root).and_then(|m| m.parent.as_ref()) {
            if !by_id.contains_key(parent.session.as_str()) {
                break;
            }
            root = &parent.session;
        }
        let mut rows = Vec::new();
        self.tree_rows(root, id, &metas, "", true, &mut rows);
        rows
    }

    fn recall(
        &self,
        id: &str,
        query: &str,
        mode: Option<&str>,
        limit: usize,
    ) -> Result<String, String> {
        let mode = hotl_agent::recall_mode(mode)?;
        let (archive, hits) = hotl_recall::search_archive(&self.ctx.store, id, query, mode, limit)
            .map_err(|e| e.to_string())?;
        Ok(hotl_recall::render_search(&archive, &hits))
    }

    fn log_size(&self, id: &str) -> Option<u64> {
        self.ctx.store.log_size(id).ok()
    }

    fn open(&self, id: &str) -> Option<Agent> {
        let opener = self.opener.as_ref()?;
        let (tools, _) = crate::delegation::tools(std::path::Path::new(&self.ctx.cwd));
        let session = hotl_agent::Session::open(&self.ctx.store, id, tools).ok()?;
        Some(hotl_agent::spawn(
            hotl_agent::Start::Open(Box::new(session)),
            opener.provider.clone(),
            opener.settings.clone(),
        ))
    }

    fn changed_from(&self, id: &str, seqs: &[u64]) -> Vec<Vec<String>> {
        let Ok(meta) = self.ctx.store.meta(id) else {
            return vec![Vec::new(); seqs.len()];
        };
        hotl_agent::changed_from(&self.ctx.store, id, std::path::Path::new(&meta.cwd), seqs)
    }

    fn entries(&self, id: &str) -> Vec<Entry> {
        entries_of(self.ctx, id).unwrap_or_else(|e| {
            tracing::warn!("cannot read session {id} for the terminal UI: {e}");
            Vec::new()
        })
    }

    fn session_name(&self, id: &str) -> Option<String> {
        self.ctx.store.meta(id).ok()?.name
    }

    fn session_dir(&self, id: &str) -> Option<String> {
        self.ctx.store.meta(id).ok().map(|m| m.cwd)
    }

    fn here(&self) -> String {
        self.ctx.cwd.clone()
    }

    fn display_path(&self, path: &str) -> String {
        self.ctx.tilde(path)
    }

    fn switched_to(&self, id: &str) {
        if !self.ctx.is_in_memory() {
            crate::breadcrumb::remember(&self.ctx.store, id);
        }
    }
}

impl StoreHost<'_> {
    /// Rows for `node` and what descends from it: its forks (by their parent links) and the
    /// children it delegated, drawn as a tree.
    fn tree_rows(
        &self,
        node: &str,
        current: &str,
        metas: &[hotl_log::SessionMeta],
        prefix: &str,
        last: bool,
        rows: &mut Vec<Row>,
    ) {
        let Some(meta) = metas.iter().find(|m| m.id == node) else {
            return;
        };
        let branch = if prefix.is_empty() && rows.is_empty() {
            String::new()
        } else if last {
            format!("{prefix}└─ ")
        } else {
            format!("{prefix}├─ ")
        };
        let mark = if node == current { "● " } else { "" };
        let mut detail = format!(
            "{} · {} turn{}",
            short_id(&meta.id),
            meta.turns,
            if meta.turns == 1 { "" } else { "s" }
        );
        if let Some(p) = &meta.parent {
            detail.push_str(&format!(" · from t{}", p.seq));
        }
        if meta.dropped {
            detail.push_str(" · dropped");
        }
        rows.push(Row {
            label: format!("{branch}{mark}{}", meta.display_title()),
            detail,
            value: meta.id.clone(),
            near: true,
        });
        let child_prefix = if rows.len() == 1 {
            String::new()
        } else if last {
            format!("{prefix}   ")
        } else {
            format!("{prefix}│  ")
        };
        // The children it delegated, from the delegation tree `sessions show --tree` prints:
        // each named by its agent, its handle and its state.
        let delegated: Vec<(String, String)> = meta_tree(&self.ctx.store, meta)
            .map(|tree| tree.children)
            .unwrap_or_default()
            .into_iter()
            .map(|child| {
                let label = format!(
                    "↳ {} {} · {} · {}",
                    child.agent.as_deref().unwrap_or("fork"),
                    child.handle.as_deref().unwrap_or(""),
                    child.state,
                    hotl_text::first_line(&child.task)
                );
                (child.id, label)
            })
            .collect();
        let forks: Vec<&hotl_log::SessionMeta> = metas
            .iter()
            .filter(|m| m.parent.as_ref().is_some_and(|p| p.session == node) && !m.delegated)
            .collect();
        let total = delegated.len() + forks.len();
        for (i, (child, label)) in delegated.iter().enumerate() {
            let last = i + 1 == total;
            rows.push(Row {
                label: format!(
                    "{child_prefix}{}{}",
                    if last { "└─ " } else { "├─ " },
                    label.lines().next().unwrap_or("")
                ),
                detail: short_id(child).to_owned(),
                value: child.clone(),
                near: true,
            });
        }
        for (i, fork) in forks.iter().enumerate() {
            let last = delegated.len() + i + 1 == total;
            self.tree_rows(&fork.id, current, metas, &child_prefix, last, rows);
        }
    }
}

/// The delegation tree under `meta` (the children it delegated, theirs in turn), its spending
/// left unpriced: the picker shows who ran, not what it cost.
fn meta_tree(
    store: &hotl_log::Store,
    meta: &hotl_log::SessionMeta,
) -> Option<hotl_agent::tree::Node> {
    let pricing = hotl_wire::Pricing::builtin();
    hotl_agent::tree::build(store, meta, &pricing).ok()
}

/// Session `id`'s transcript as the UI shows it, its folds with the files their records name.
fn entries_of(ctx: &Ctx, id: &str) -> Result<Vec<Entry>, CliError> {
    entries_in(&ctx.store, id)
}

/// [`entries_of`], from the store alone (for the blocking pool).
fn entries_in(store: &hotl_log::Store, id: &str) -> Result<Vec<Entry>, CliError> {
    let lineage = store.lineage(id)?;
    // The view's folds do not carry their files; the fold records do.
    let files: std::collections::HashMap<String, Vec<String>> = lineage
        .records
        .iter()
        .filter_map(|r| match &r.body {
            hotl_log::Body::Fold(fold) => Some((
                fold.handle.clone(),
                fold.files.iter().map(|f| f.path.clone()).collect(),
            )),
            _ => None,
        })
        .collect();
    let mut entries = hotl_tui::transcript::entries(&View::from_lineage(lineage).items);
    hotl_tui::transcript::with_fold_files(&mut entries, &files);
    Ok(entries)
}

/// Whether `hotl` (no `-p`) gets the terminal UI: both ends a terminal, a terminal that can
/// draw, and neither `--no-tui` nor `HOTL_NO_TUI=1`.
pub fn wanted(no_tui: bool) -> bool {
    use std::io::IsTerminal;
    let refused = std::env::var("HOTL_NO_TUI").is_ok_and(|v| !v.is_empty() && v != "0");
    !no_tui
        && !refused
        && std::io::stdin().is_terminal()
        && std::io::stdout().is_terminal()
        && std::env::var("TERM").map_or(true, |t| t != "dumb")
}

/// What every start of the UI takes from this run: the history file, the metrics file, the
/// home's kind, colour, when the process started. The caller adds what is particular.
pub fn options(ctx: &Ctx) -> hotl_tui::Options {
    hotl_tui::Options {
        history: (!ctx.is_in_memory()).then(|| ctx.store.home().join("console-history")),
        metrics: std::env::var_os("HOTL_TUI_METRICS").map(Into::into),
        started: process_start(),
        ephemeral: ctx.is_in_memory(),
        // https://no-color.org: present and not empty turns colour off.
        monochrome: std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()),
        ..hotl_tui::Options::default()
    }
}

/// Runs the terminal UI on `agent` (none: read-only, taken over with `opener` once the
/// process that owns the session exits).
pub async fn run(
    ctx: &Ctx,
    agent: Option<Agent>,
    options: hotl_tui::Options,
    opener: Option<Opener>,
) -> Result<ExitCode, CliError> {
    let host = StoreHost { ctx, opener };
    hotl_tui::run(agent, &host, options)
        .await
        .map_err(|e| CliError::Internal(format!("the terminal UI failed: {e}")))?;
    Ok(ExitCode::SUCCESS)
}

/// Runs the line console on `agent` with the same store host as the terminal UI.
pub async fn console(
    ctx: &Ctx,
    agent: Agent,
    options: hotl_tui::Options,
) -> Result<ExitCode, CliError> {
    let host = StoreHost { ctx, opener: None };
    hotl_tui::run_console(agent, &host, options)
        .await
        .map_err(|e| CliError::Internal(format!("the console failed: {e}")))?;
    Ok(ExitCode::SUCCESS)
}

/// Session `id` for a read-only view, read once: the tail to show, how many entries come
/// before it, and what it holds in all (the view follows what comes after).
pub fn read_only(
    ctx: &Ctx,
    id: &str,
    why: String,
) -> Result<(hotl_tui::Resumed, hotl_tui::ReadOnly), CliError> {
    let mut entries = entries_of(ctx, id)?;
    let total = entries.len();
    let start = hotl_tui::transcript::tail_start(&entries);
    let tail = entries.split_off(start);
    Ok((
        hotl_tui::Resumed {
            id: id.to_owned(),
            tail,
            hidden: start,
        },
        hotl_tui::ReadOnly {
            why,
            entries: total,
        },
    ))
}

/// When this process started (for the first-paint metric): the time `main` first asked.
pub fn process_start() -> Instant {
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    *START.get_or_init(Instant::now)
}
