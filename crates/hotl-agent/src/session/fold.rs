//! The fold move: a span of the session becomes a note and a handle (the span stays
//! archived), with the note written by the model when the shell asks for one.

use std::path::PathBuf;

use hotl_log::{Block, Body, FileTouch, Fold, Record, Store};
use hotl_view::{FoldSpan, Item, model_view};

use super::words::NOTE_MAX_TOKENS;
use super::{ArchivedFile, Session};
use crate::context::Context;
use crate::error::{AgentError, Result};
use crate::snapshot::Snapshotter;
use hotl_tool::ToolOutput;

/// Spans this small may get a note longer than themselves: such a fold is made for its handle
/// and its structure, not for room (a runaway note is stopped by the note's output limit).
const SMALL_SPAN: usize = 1024;

impl Session {
    /// The `fold` tool: the span from `since` up to the step before this one becomes `note`
    /// and a handle. A refusal or a note missing template lines is an error the model can fix.
    pub(crate) async fn fold_call(&mut self, since: u64, note: &str) -> Result<ToolOutput, String> {
        crate::moves::check_note(note)?;
        let issuer = self.view.items.iter().rev().find_map(|i| match i {
            Item::Assistant { seq, .. } => Some(*seq),
            _ => None,
        });
        let fold = self
            .fold(since, issuer, note)
            .await
            .map_err(|e| e.to_string())?;
        // The tool's description says the span is archived under the handle.
        Ok(ToolOutput::ok(format!(
            "folded t{}..t{} into handle {}",
            fold.since, fold.until, fold.handle
        )))
    }

    /// Asks the model to write the note for folding the span from `since` to the head (for a
    /// fold from the shell without a note): the session's own context plus the request, with
    /// tools unchanged. A note missing template lines is sent back once with what is missing.
    pub async fn write_note(&mut self, since: u64, cx: &Context) -> Result<String> {
        let span = self.view.plan_fold(since, None)?;
        let ask = format!(
            "[fold] Write the note that will replace the span t{}..t{} of this session in your \
             context (the span stays archived). Reply with the note only: one line each \
             starting with changed:, learned: (with caveats), decided and rejected:, open:, \
             where:",
            span.since, span.until
        );
        let span_bytes = self
            .view
            .items
            .iter()
            .filter(|i| (span.since..=span.until).contains(&i.last_seq()))
            .map(|i| super::compact::item_bytes(i) as usize)
            .sum();
        let (note, fits) = self.request_note(ask, cx, None, span_bytes).await?;
        let id = self.id().to_owned();
        fits.map_err(|why| {
            AgentError::BadNote(format!(
                "{why} (write the note yourself: hotl fold {id} --since t{} --note-file FILE)",
                span.since
            ))
        })?;
        Ok(note)
    }

    /// Asks the model, in the session's own context (so the prefix is read from cache), for a
    /// note in the fold template that replaces `span_bytes` of context; a note missing
    /// template lines is sent back once with what is missing. The last note, and whether it
    /// can be used: a note that calls a tool instead, stops at the output limit, or is longer
    /// than what it replaces is refused. `budget`: the bytes the messages may take, for a
    /// context that no longer fits the window (see `fit.rs`).
    pub(super) async fn request_note(
        &mut self,
        mut ask: String,
        cx: &Context,
        budget: Option<usize>,
        span_bytes: usize,
    ) -> Result<(String, std::result::Result<(), String>)> {
        let mut fits = Err(String::new());
        let mut note = String::new();
        for _ in 0..2 {
            let mut messages = model_view(&self.view);
            if let Some(budget) = budget {
                super::fit::fit(&mut messages, budget);
            }
            let words = self
                .ask_for_words(
                    &messages,
                    &ask,
                    Some(NOTE_MAX_TOKENS),
                    "tools are unavailable while writing the note; reply with the note only",
                    cx,
                )
                .await?;
            drop(messages);
            self.account_words(&words, cx);
            if let Some(refused) = words.refusal() {
                return Ok((words.text, Err(refused)));
            }
            note = words.text;
            fits = crate::moves::check_note(&note).and_then(|()| {
                if note.len() > span_bytes.max(SMALL_SPAN) {
                    Err(format!(
                        "the note ({} bytes) is longer than what it would replace ({span_bytes} \
                         bytes)",
                        note.len()
                    ))
                } else {
                    Ok(())
                }
            });
            match &fits {
                Ok(()) => break,
                Err(why) => ask = format!("{ask}\n\nYour last note was refused: {why}."),
            }
        }
        Ok((note, fits))
    }

    /// Folds the span from `since` (up to the step before `issuer`, or the head) into `note`.
    /// Returns the fold as recorded. Reading the lineage and diffing the working tree run off
    /// the async workers.
    pub async fn fold(&mut self, since: u64, issuer: Option<u64>, note: &str) -> Result<Fold> {
        let span = self.view.plan_fold(since, issuer)?;
        self.snapshot().await?;
        let plan = FoldPlan {
            store: self.store.clone(),
            id: self.writer.id().to_owned(),
            cwd: self.cwd.clone(),
            span,
            note: note.to_owned(),
            taken: self.taken_handles()?,
            changing: self
                .tools
                .iter()
                .filter(|t| t.changes_files())
                .map(|t| t.name().to_owned())
                .collect(),
            issuer,
            head_tree: self.tree.last.clone(),
        };
        let fold = tokio::task::spawn_blocking(move || plan.make())
            .await
            .map_err(|e| AgentError::Task(e.to_string()))??;
        self.append(Body::Fold(Box::new(fold.clone())))?;
        note_files(&mut self.archived_files, &fold);
        self.next_reminder = hotl_view::open_items(&fold.note).map(|open| {
            format!(
                "<reminder>after folding {}: open: {open}</reminder>",
                fold.handle
            )
        });
        Ok(fold)
    }

    /// The handles already given out in this session's tree: its view's archived spans, the
    /// root's folds past this session's cut, and the sessions delegated in the tree (or seen
    /// from an ancestor's tree) and their folds. A new handle differs from all of them.
    pub fn taken_handles(&self) -> Result<Vec<String>> {
        fn folded(items: &[Item], out: &mut Vec<String>) {
            for item in items {
                match item {
                    Item::Folded { handle, items, .. } => {
                        out.push(handle.clone());
                        folded(items, out);
                    }
                    Item::Compacted { items, .. } => folded(items, out),
                    _ => {}
                }
            }
        }
        let mut taken = Vec::new();
        folded(&self.view.items, &mut taken);
        // The root's folds past this session's cut (the view shows the root only up to it),
        // read from the cut on.
        taken.extend(self.root_handles_past_the_cut()?);
        // Every delegated session of the tree, and of ancestors' trees this session sees (a
        // fork of a session that delegated): its handle and its own folds' (their logs are side
        // tasks, small next to a root's).
        let mut children = self.store.tree_children(self.writer.root())?;
        for seen in self.store.visible_delegated(self.writer.id())? {
            if !children.contains(&seen.id) {
                children.push(seen.id);
            }
        }
        for child in children {
            let log = match self.store.read(&child) {
                Ok(log) => log,
                Err(e) => {
                    tracing::warn!(child, "a delegated session's handles cannot be read: {e}");
                    continue;
                }
            };
            for record in &log.records {
                match &record.body {
                    Body::Session(start) => {
                        taken.extend(start.delegated.as_ref().and_then(|d| d.handle.clone()))
                    }
                    Body::Fold(fold) => taken.push(fold.handle.clone()),
                    _ => {}
                }
            }
        }
        Ok(taken)
    }

    /// The handles of folds the tree's root recorded after this session's lineage left it
    /// (none for the root itself).
    fn root_handles_past_the_cut(&self) -> Result<Vec<String>> {
        let root = self.writer.root();
        let mut id = self.writer.id().to_owned();
        let offset = loop {
            if id == root {
                return Ok(Vec::new());
            }
            match self.store.read_start(&id)?.parent {
                Some(pin) if pin.session == root => break pin.offset,
                Some(pin) => id = pin.session,
                // A tree's sessions all descend from its root; a lost pin reads nothing.
                None => return Ok(Vec::new()),
            }
        };
        let log = self.store.read_after(root, offset)?;
        Ok(log
            .records
            .into_iter()
            .filter_map(|r| match r.body {
                Body::Fold(fold) => Some(fold.handle),
                _ => None,
            })
            .collect())
    }
}

/// What making a fold record needs, owned, so it can run on the blocking pool.
struct FoldPlan {
    store: Store,
    id: String,
    cwd: PathBuf,
    span: FoldSpan,
    note: String,
    taken: Vec<String>,
    /// The tools whose calls may change files.
    changing: Vec<String>,
    issuer: Option<u64>,
    /// The tree the log last recorded (the head's).
    head_tree: Option<String>,
}

impl FoldPlan {
    /// The fold record: its handle, the files its span touched, and the diff it made.
    fn make(self) -> Result<Fold> {
        let lineage = self.store.lineage(&self.id)?;
        // A reverted branch's results are not the span's (its snapshots still are the tree:
        // a revert does not undo files).
        let visible = hotl_log::visible_mask(&lineage.records);
        let mut fold = crate::moves::make_fold(
            &lineage.records,
            &visible,
            &self.span,
            &self.note,
            &self.taken,
        );
        let Some((before, now)) = self.trees(&lineage.records, &visible) else {
            return Ok(fold);
        };
        let blobs = self.store.blobs();
        if let Some(patch) = Snapshotter::diff(&self.cwd, &before, &now, &blobs) {
            fold.diff_blob = Some(blobs.put(&patch)?);
        }
        // What the span changed, whichever tool changed it (no tool reports what `bash` did),
        // with the content it left: the files as they are, unless the fold's own step changed
        // the tree since the span ended (then as that tree holds them).
        let changed = Snapshotter::changed(&self.cwd, &before, &now, &blobs).unwrap_or_default();
        let left = (self.head_tree.as_deref() != Some(now.as_str()))
            .then(|| Snapshotter::content_hashes(&self.cwd, &now, &changed, &blobs))
            .flatten();
        for (i, relative) in changed.iter().enumerate() {
            // Named as the tools name what they touch (resolved against the cwd), so a path a
            // tool touched and the diff shows is one entry.
            let absolute = self.cwd.join(relative);
            let path = absolute.display().to_string();
            let hash = match &left {
                // Touches keep the hash's first 32 hex digits, as tools record them.
                Some(hashes) => hashes[i]
                    .as_deref()
                    .and_then(|h| h.get(..32))
                    .map(str::to_owned),
                None => FileTouch::hash_file(&absolute),
            };
            let op = if hash.is_some() { "changed" } else { "delete" };
            match fold.files.iter_mut().find(|f| f.path == path) {
                Some(known) => {
                    // A file a tool only read and something else changed was changed.
                    if known.op == "read" {
                        op.clone_into(&mut known.op);
                    }
                    known.hash = hash;
                }
                None => fold.files.push(FileTouch {
                    op: op.to_owned(),
                    path,
                    hash,
                }),
            }
        }
        Ok(fold)
    }

    /// The trees the span's diff runs between, when they differ: the tree before its first
    /// step that may change files, and the tree at its end. The snapshot before a step is
    /// recorded after the call that starts it, before its results, and only when the tree
    /// differs from the last one, so the latest snapshot before that step's first result is
    /// the tree it started from. Files changed between turns by someone else, before that
    /// step, are not the span's.
    fn trees(&self, records: &[Record], visible: &[bool]) -> Option<(String, String)> {
        let span = &self.span;
        let first_changing = records
            .iter()
            .zip(visible)
            .filter(|(r, v)| **v && (span.since..=span.until).contains(&r.seq))
            .find_map(|(r, _)| match &r.body {
                Body::Assistant { content, .. }
                    if content.iter().any(|b| match b {
                        Block::ToolUse { name, .. } => self.changing.contains(name),
                        _ => false,
                    }) =>
                {
                    Some(r.seq)
                }
                _ => None,
            })?;
        let first_result = records.iter().find_map(|r| match &r.body {
            Body::ToolResult { .. } if r.seq > first_changing => Some(r.seq),
            _ => None,
        })?;
        let tree_before = |seq: u64| {
            records.iter().rev().find_map(|r| match &r.body {
                Body::Snapshot { tree } if r.seq < seq => Some(tree.clone()),
                _ => None,
            })
        };
        let before = tree_before(first_result)?;
        // A fold the model issues ends before its own step, whose other calls (run before the
        // fold) are not the span's; a fold from the shell ends at the head: the tree now.
        let end = match self.issuer {
            Some(issuer) => tree_before(issuer),
            None => self.head_tree.clone(),
        }?;
        (before != end).then_some((before, end))
    }
}

/// Remembers which files a fold's span touched, for the file-touch cue.
pub(super) fn note_files(out: &mut Vec<ArchivedFile>, fold: &Fold) {
    let title = fold.note.lines().next().unwrap_or("").trim().to_owned();
    for touch in &fold.files {
        out.push(ArchivedFile {
            fork: false,
            path: touch.path.clone(),
            handle: fold.handle.clone(),
            title: title.clone(),
        });
    }
}
