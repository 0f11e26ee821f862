//! The recall and ask moves: searching the session's archive, and putting a question to an
//! archived thread in that thread's own context.

use super::Session;
use crate::context::Context;
use crate::error::{AgentError, Result};
use hotl_log::{Block, Body};
use hotl_view::{Item, View, model_view};

/// The most an answer from an archived thread may take: it answers one question.
const ANSWER_MAX_TOKENS: u32 = 2_048;

impl Session {
    /// Searches the session's archive (no model call) and renders the hits as the model and
    /// the shell see them. The search runs off the async workers: bringing the index up to
    /// date may read much of the log.
    pub async fn recall(
        &self,
        query: &str,
        mode: Option<&str>,
        limit: usize,
    ) -> std::result::Result<String, String> {
        let mode = crate::moves::recall_mode(mode)?;
        let (store, id, query) = (
            self.store.clone(),
            self.writer.id().to_owned(),
            query.to_owned(),
        );
        tokio::task::spawn_blocking(move || {
            let (archive, hits) = hotl_recall::search_recall(&store, &id, &query, mode, limit)
                .map_err(|e| e.to_string())?;
            Ok(hotl_recall::render_search(&archive, &hits))
        })
        .await
        .map_err(|e| format!("the search failed: {e}"))?
    }

    /// Searches the user's other sessions, every project's (no model call): `recall` with
    /// `scope: "sessions"`. This session's tree is left out (its archive is the default scope);
    /// each hit names its session, when it was last active and the files its thread touched
    /// that changed since, so the model can weigh what it finds.
    pub async fn recall_sessions(
        &self,
        query: &str,
        mode: Option<&str>,
        limit: usize,
    ) -> std::result::Result<String, String> {
        let mode = crate::moves::recall_mode(mode)?;
        let store = self.store.clone();
        let id = self.writer.id().to_owned();
        let query = query.to_owned();
        tokio::task::spawn_blocking(move || {
            let scope = hotl_recall::Scope {
                leave_out: vec![store.root_of(&id), id],
                ..hotl_recall::Scope::default()
            };
            let (found, _) = hotl_recall::search_sessions(&store, &query, mode, &scope, limit)
                .map_err(|e| e.to_string())?;
            Ok(render_session_hits(&store, &found))
        })
        .await
        .map_err(|e| format!("the search failed: {e}"))?
    }

    /// Puts one question to the archived thread `handle`: the request is that thread's own
    /// context (the view as it stood when its span ended) with the session's tools, so its
    /// prefix can hit the cache; tools are switched off where that keeps the cache, else a
    /// stray tool call is answered with an error (see `words.rs`). The exchange is recorded
    /// as an `ask` record; only the answer is returned, followed by `stale: <files> changed
    /// since` when files the thread touched have changed since.
    pub async fn ask(&mut self, handle: &str, question: &str, cx: &Context) -> Result<String> {
        let (handle, thread_view) = self.thread_view(handle)?;
        let handle = handle.as_str();
        let prompt = crate::moves::ask_prompt(question);
        let mut messages = model_view(&thread_view);
        answer_dangling_calls(&mut messages);
        let words = self
            .ask_for_words(
                &messages,
                &prompt,
                Some(ANSWER_MAX_TOKENS),
                "tools are unavailable while answering a question; answer in words",
                cx,
            )
            .await?;
        drop(messages);
        self.account_words(&words, cx);
        let usage = words.usage;
        let answer = match (&words.stray, words.text.trim().is_empty()) {
            (Some(tool), true) => {
                return Err(AgentError::Refused(format!(
                    "the archived thread {handle} called `{tool}` instead of answering (tools \
                     are unavailable to a question); ask again, more plainly"
                )));
            }
            _ => words.text,
        };
        self.append(Body::Ask {
            handle: handle.to_owned(),
            question: question.to_owned(),
            answer: answer.clone(),
            usage: Some(usage.to_log()),
        })?;
        // The thread answered from what it saw then: say which of its files changed since.
        let stale = match hotl_recall::open_archive(&self.store, self.writer.id()) {
            Ok(archive) => archive.stale_files(handle).unwrap_or_default(),
            Err(e) => {
                tracing::warn!("the archive cannot be opened to tell stale files: {e}");
                Vec::new()
            }
        };
        if stale.is_empty() {
            return Ok(answer);
        }
        Ok(format!(
            "{answer}\n\nstale: {} changed since",
            stale.join(", ")
        ))
    }

    /// The full handle of the archived thread `handle` names (a unique prefix will do), or
    /// the error [`Session::ask`] would give, naming the known handles; a front end checks
    /// this before it sets up a provider.
    pub fn thread(&self, handle: &str) -> Result<String> {
        self.thread_view(handle).map(|(handle, _)| handle)
    }

    /// The context of the archived thread `handle` as it stood when it ended, however deep it
    /// sits: a folded span's (the records up to its end, projected; a fold inside a
    /// compaction too), a compacted span's (`compaction@t<until>` as recall names it, or
    /// `compaction` for the latest), a fork's (its whole lineage), or a span a fork folded
    /// inside itself.
    /// Returns the thread's handle as recall names it (`compaction` resolved) with the view.
    fn thread_view(&self, handle: &str) -> Result<(String, View)> {
        let mut known = Vec::new();
        let mut ends = Vec::new();
        compaction_ends(&self.view.items, &mut ends);
        known.extend(
            ends.iter()
                .map(|&until| hotl_recall::compaction_handle(until)),
        );
        let compacted = match handle {
            "compaction" => ends.iter().max().copied(),
            _ => ends
                .iter()
                .copied()
                .find(|&until| hotl_recall::compaction_handle(until) == handle),
        };
        if let Some(until) = compacted {
            return Ok((
                hotl_recall::compaction_handle(until),
                up_to(self.store.lineage(self.writer.id())?, until),
            ));
        }
        if let Some(until) = fold_end(&self.view.items, handle, &mut known) {
            return Ok((
                handle.to_owned(),
                up_to(self.store.lineage(self.writer.id())?, until),
            ));
        }
        let delegated = self.store.visible_delegated(self.writer.id())?;
        if let Some(child) = delegated
            .iter()
            .find(|d| d.delegation.handle.as_deref() == Some(handle))
        {
            return Ok((
                handle.to_owned(),
                View::from_lineage(self.store.lineage(&child.id)?),
            ));
        }
        known.extend(delegated.iter().filter_map(|d| d.delegation.handle.clone()));
        for child in &delegated {
            let Ok(lineage) = self.store.lineage(&child.id) else {
                continue;
            };
            let view = hotl_view::project(&lineage.records, lineage.own_start);
            // A span the fork compacted inside itself, by the name recall gives it.
            let mut ends = Vec::new();
            compaction_ends(&view.items, &mut ends);
            known.extend(
                ends.iter()
                    .map(|&until| hotl_recall::compaction_handle(until)),
            );
            if let Some(until) = ends
                .into_iter()
                .find(|&until| hotl_recall::compaction_handle(until) == handle)
            {
                return Ok((handle.to_owned(), up_to(lineage, until)));
            }
            if let Some(until) = fold_end(&view.items, handle, &mut known) {
                return Ok((handle.to_owned(), up_to(lineage, until)));
            }
        }
        known.sort();
        known.dedup();
        // A unique prefix names the thread it begins.
        let begun: Vec<&String> = known
            .iter()
            .filter(|k| !handle.is_empty() && k.starts_with(handle))
            .collect();
        if let [only] = begun.as_slice() {
            return self.thread_view(only);
        }
        Err(AgentError::NoThread {
            handle: handle.to_owned(),
            known: known.join(", "),
        })
    }
}

/// The end of the folded span `handle` among `items` (folds inside compactions included);
/// every handle passed on the way is added to `known`.
fn fold_end(items: &[Item], handle: &str, known: &mut Vec<String>) -> Option<u64> {
    for item in items {
        match item {
            Item::Folded {
                handle: h, until, ..
            } if h == handle => return Some(*until),
            Item::Folded { handle: h, .. } => known.push(h.clone()),
            Item::Compacted { items, .. } => {
                if let Some(until) = fold_end(items, handle, known) {
                    return Some(until);
                }
            }
            _ => {}
        }
    }
    None
}

/// Where each compacted span among `items` ends, nested ones included.
fn compaction_ends(items: &[Item], out: &mut Vec<u64>) {
    for item in items {
        if let Item::Compacted { until, items, .. } = item {
            out.push(*until);
            compaction_ends(items, out);
        }
    }
}

/// The view of `lineage` as it stood at seq `until`.
fn up_to(lineage: hotl_log::Lineage, until: u64) -> View {
    let own_start = lineage.records[..lineage.own_start]
        .iter()
        .filter(|r| r.seq <= until)
        .count();
    let thread: Vec<hotl_log::Record> = lineage
        .records
        .into_iter()
        .filter(|r| r.seq <= until)
        .collect();
    hotl_view::project_owned(thread, own_start)
}

/// Answers the calls a thread's last step left open (a fork whose process died mid-step and
/// was never resumed), so the question goes after a transcript every provider accepts.
fn answer_dangling_calls(messages: &mut Vec<hotl_view::MessageRef<'_>>) {
    use hotl_view::{MessageRef, Part, Role};
    let Some(step) = messages.iter().rposition(|m| m.role == Role::Assistant) else {
        return;
    };
    let answered: Vec<&str> = messages[step + 1..]
        .iter()
        .flat_map(|m| &m.content)
        .filter_map(|p| match p {
            Part::ToolResult { tool_use_id, .. } => Some(*tool_use_id),
            _ => None,
        })
        .collect();
    let dangling: Vec<Part<'_>> = messages[step]
        .content
        .iter()
        .filter_map(|p| match p {
            Part::Block(Block::ToolUse { id, .. }) if !answered.contains(&id.as_str()) => {
                Some(Part::ToolResult {
                    tool_use_id: id.as_str(),
                    content: vec![Part::Text(super::turn::INTERRUPTED.into())],
                    is_error: true,
                })
            }
            _ => None,
        })
        .collect();
    if dangling.is_empty() {
        return;
    }
    match messages.get_mut(step + 1) {
        // Results go before any text in the message that answers a step.
        Some(next) => {
            let at = next
                .content
                .iter()
                .rposition(|p| matches!(p, Part::ToolResult { .. }))
                .map_or(0, |i| i + 1);
            next.content.splice(at..at, dangling);
        }
        None => messages.push(MessageRef {
            role: Role::User,
            content: dangling,
        }),
    }
}

/// Hits from other sessions as the model reads them: one line per hit, marked with its
/// session (short id, title, project, last active) and, under it, what changed since.
fn render_session_hits(store: &hotl_log::Store, found: &hotl_recall::Found) -> String {
    if found.hits.is_empty() {
        return "no matches in other sessions\n".to_owned();
    }
    let mut out = String::new();
    let mut last = "";
    for hit in &found.hits {
        if hit.session != last {
            last = &hit.session;
            let title = store
                .meta(&hit.session)
                .map(|m| hotl_text::clip(m.display_title(), 60))
                .unwrap_or_default();
            out.push_str(&format!(
                "other session {} {title:?} in {}, last active {}:\n",
                &hit.session[..hit.session.len().min(10)],
                hit.project,
                hit.updated.get(..10).unwrap_or(&hit.updated),
            ));
        }
        let thread = hit
            .thread
            .as_deref()
            .map(|t| format!("{t} "))
            .unwrap_or_default();
        out.push_str(&format!(
            "[{thread}t{} {}] {}\n",
            hit.seq, hit.kind, hit.line
        ));
        if !hit.stale.is_empty() {
            out.push_str(&format!(
                "  stale: {} changed since\n",
                hit.stale.join(", ")
            ));
        }
    }
    if let Some(why) = &found.partial {
        out.push_str(&format!("({why})\n"));
    }
    out
}
