//! One session's transcript as HTML: the projected view's items in order, each tool call a
//! card holding the result that answers it (paired by call id), folds and compactions as cards
//! whose archived items are rendered inside them (collapsed, so find-in-page reaches them),
//! turn ends with what the turn spent, clears, failures, reverted branches collapsed where
//! they were left, inherited history collapsed under its lineage, and chips that open the
//! delegated sessions a call started.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use hotl_log::{Block, Body, Record, plain_text, visible_mask};
use hotl_view::{Item, View};

use crate::economy::{Economy, TurnSpend};
use crate::html::{escape, markdown, tools};
use crate::names::thousands;
use crate::snapshot::{Child, Snapshot};

/// What the renderer leaves out (set by trimming).
#[derive(Clone, Copy, Debug, Default)]
pub struct Omit {
    /// Images become a placeholder.
    pub images: bool,
    /// Full outputs kept only as blobs are not shown.
    pub full_outputs: bool,
}

/// Renders a snapshot's transcript. `prefix` keeps anchor ids apart between the main session
/// (empty) and each child (`c-<id>-`).
pub fn render(snapshot: &Snapshot, prefix: &str, omit: Omit) -> String {
    let view = hotl_view::project(&snapshot.records, snapshot.own_start);
    let mut r = Renderer::new(snapshot, &view, prefix, omit);
    r.transcript();
    r.out
}

/// A child's status as a word: finished, open, interrupted.
pub fn child_status(child: &Child) -> &'static str {
    let view = hotl_view::project(&child.snapshot.records, child.snapshot.own_start);
    let interrupted = view
        .items
        .last()
        .is_some_and(|i| matches!(i, Item::Assistant { stop: Some(s), .. } if s == "interrupted"));
    if interrupted {
        "interrupted"
    } else if view.open_turn {
        "open"
    } else {
        "finished"
    }
}

struct Renderer<'a> {
    snap: &'a Snapshot,
    view: &'a View,
    prefix: &'a str,
    omit: Omit,
    out: String,
    /// Tool results by the call they answer: the answer's seq and the call's id (ids repeat
    /// across answers with some providers, so the id alone does not say which call).
    results: HashMap<(u64, &'a str), &'a Item>,
    /// Results already shown inside their call's card, by seq.
    shown: HashSet<u64>,
    /// Children by the call that started them (several when call ids repeat).
    children: HashMap<&'a str, Vec<&'a Child>>,
    /// The answer whose blocks are being rendered.
    answer_seq: u64,
    /// Asks by the handle they asked.
    asks: HashMap<&'a str, Vec<&'a Record>>,
    /// Where the own records start (earlier seqs are inherited).
    own_from: u64,
    /// Children whose chip is on the page.
    chipped: HashSet<&'a str>,
    /// The stamp each turn began at, in order.
    turn_starts: Vec<u64>,
    /// Fold records by handle.
    folds: HashMap<&'a str, &'a hotl_log::Fold>,
}

impl<'a> Renderer<'a> {
    fn new(snap: &'a Snapshot, view: &'a View, prefix: &'a str, omit: Omit) -> Self {
        let results = pair_results(&view.items);
        let mut children: HashMap<&str, Vec<&Child>> = HashMap::new();
        for child in &snap.children {
            if let Some(call) = child.delegation.call.as_deref() {
                children.entry(call).or_default().push(child);
            }
        }
        let mut asks: HashMap<&str, Vec<&Record>> = HashMap::new();
        let mut folds = HashMap::new();
        for record in &snap.records {
            match &record.body {
                Body::Ask { handle, .. } => asks.entry(handle.as_str()).or_default().push(record),
                Body::Fold(fold) => {
                    folds.insert(fold.handle.as_str(), &**fold);
                }
                _ => {}
            }
        }
        let own_from = snap.own().first().map_or(0, |r| r.seq);
        Renderer {
            snap,
            view,
            prefix,
            omit,
            out: String::with_capacity(snap.records.len() * 256),
            results,
            shown: HashSet::new(),
            answer_seq: 0,
            children,
            asks,
            own_from,
            chipped: HashSet::new(),
            turn_starts: Vec::new(),
            folds,
        }
    }

    fn transcript(&mut self) {
        let view = self.view;
        let economy = self.snap.economy.as_ref();
        let mut turn = 0;
        let mut clear_shown = view.model_after == 0;
        let mut marks = self.marks();
        let mut inherited: Vec<&Item> = Vec::new();
        let mut items = view.items.iter().peekable();
        // History inherited from an ancestor goes first, collapsed under its lineage.
        while let Some(item) = items.next_if(|i| self.own_from > 0 && i.last_seq() < self.own_from)
        {
            inherited.push(item);
        }
        if !inherited.is_empty() {
            let until = inherited.last().map_or(0, |i| i.last_seq());
            let from = self
                .snap
                .ancestors
                .first()
                .map_or("an ancestor", String::as_str);
            let _ = write!(
                self.out,
                "<details class=\"inherited\"><summary>inherited from {} up to t{until} ({} items)</summary>",
                escape::escape(from),
                inherited.len()
            );
            for item in &inherited {
                let mut users = 0;
                item.for_each_user(&mut |seq, _| {
                    users += 1;
                    self.turn_starts.push(seq);
                });
                self.item(item);
                turn += users;
            }
            self.out.push_str("</details>");
        }
        for item in items {
            if item.starts_turn() && turn > 0 {
                self.marks_until(&mut marks, view.turn_end_seq(turn));
                self.turn_end(turn, economy);
            }
            self.marks_until(&mut marks, item.first_seq().saturating_sub(1));
            if !clear_shown && item.first_seq() > view.model_after {
                let _ = write!(
                    self.out,
                    "<div class=\"banner clear\">context cleared at t{}: the model sees only what follows</div>",
                    view.model_after
                );
                clear_shown = true;
            }
            self.item(item);
            let mut users = 0;
            item.for_each_user(&mut |seq, _| {
                users += 1;
                self.turn_starts.push(seq);
            });
            turn += users;
        }
        if turn > 0 && !view.open_turn {
            self.marks_until(&mut marks, view.turn_end_seq(turn));
            self.turn_end(turn, economy);
        }
        self.marks_until(&mut marks, u64::MAX);
        if !clear_shown {
            let _ = write!(
                self.out,
                "<div class=\"banner clear\">context cleared at t{}: the model sees nothing yet</div>",
                view.model_after
            );
        }
        if view.open_turn {
            let _ = write!(
                self.out,
                "<div class=\"banner open\">turn {} is still open</div>",
                view.turns
            );
        }
        self.unreached_children();
    }

    /// What the items do not show, by the seq it happened at: failures and reverts (with
    /// the branch each left behind).
    fn marks(&self) -> std::vec::IntoIter<(u64, String)> {
        let mut marks: Vec<(u64, String)> = Vec::new();
        for f in &self.view.failures {
            let status = f.status.map(|s| format!(" (HTTP {s})")).unwrap_or_default();
            marks.push((
                f.seq,
                format!(
                    "<div class=\"failure\">✗ t{} the turn failed: {}{status}: {}</div>",
                    f.seq,
                    escape::escape(&f.error),
                    escape::escape(&f.message)
                ),
            ));
        }
        let mask = visible_mask(&self.snap.records);
        for r in &self.view.reverts {
            let hidden: Vec<&Record> = self
                .snap
                .records
                .iter()
                .zip(&mask)
                .filter(|(rec, visible)| !**visible && rec.seq > r.to && rec.seq < r.seq)
                .map(|(rec, _)| rec)
                .collect();
            let mut html = format!(
                "<details class=\"reverted\"><summary>⟲ reverted to t{}: {} later turn{} and {} records left on a branch</summary>",
                r.to,
                r.hidden_turns,
                if r.hidden_turns == 1 { "" } else { "s" },
                hidden.len()
            );
            let items: Vec<Item> = hidden.iter().filter_map(|rec| record_item(rec)).collect();
            let mut sub = Renderer::new(self.snap, self.view, self.prefix, self.omit);
            // A branch's stamps repeat seqs of nothing visible, but keep them out of the
            // page's anchors all the same.
            sub.prefix = "";
            sub.results = pair_results(&items);
            for item in &items {
                sub.item_with(item, false);
            }
            html.push_str(&sub.out);
            html.push_str("</details>");
            marks.push((r.seq, html));
        }
        marks.sort_by_key(|(seq, _)| *seq);
        marks.into_iter()
    }

    fn marks_until(&mut self, marks: &mut std::vec::IntoIter<(u64, String)>, until: u64) {
        let mut rest = Vec::new();
        for (seq, html) in marks.by_ref() {
            if seq <= until {
                self.out.push_str(&html);
            } else {
                rest.push((seq, html));
                break;
            }
        }
        rest.extend(marks.by_ref());
        *marks = rest.into_iter();
    }

    fn turn_end(&mut self, turn: usize, economy: Option<&Economy>) {
        let seq = self.view.turn_end_seq(turn);
        let _ = write!(
            self.out,
            "<div class=\"turn-end\" id=\"{}turn-{turn}\">── end of turn {turn}",
            self.prefix
        );
        if seq > 0 {
            let _ = write!(self.out, " · t{seq}");
        }
        self.out.push_str(" ──");
        // The economy numbers a session's own turns and knows each by the stamp it began at.
        let began = self.turn_starts.get(turn.wrapping_sub(1)).copied();
        if let Some(spent) = economy.and_then(|e| e.turns.iter().find(|t| Some(t.seq) == began)) {
            self.turn_spend(spent, economy.is_some_and(|e| !e.unpriced.is_empty()));
        }
        self.out.push_str("</div>");
    }

    fn turn_spend(&mut self, spent: &TurnSpend, unpriced: bool) {
        let _ = write!(
            self.out,
            " <span class=\"econ\">{}</span>",
            escape::escape(&spent.spend.line(unpriced))
        );
        if spent.cache_broke {
            self.out
                .push_str(" <span class=\"cache-break\" title=\"the prompt cache broke in this turn\">⚠ cache broke</span>");
        }
    }

    fn item(&mut self, item: &'a Item) {
        self.item_with(item, true);
    }

    fn item_with(&mut self, item: &'a Item, anchors: bool) {
        match item {
            Item::User { seq, content } => self.user(*seq, content, anchors),
            Item::Assistant {
                seq,
                content,
                model,
                stop,
                ..
            } => self.assistant(*seq, content, model.as_deref(), stop.as_deref()),
            Item::ToolResult { seq, .. } => {
                if self.shown.contains(seq) {
                    return;
                }
                // A result whose call is not in the view (cut away, or in inherited history
                // shown elsewhere) stands alone.
                self.out.push_str("<div class=\"item orphan\">");
                self.result(item, anchors);
                self.out.push_str("</div>");
            }
            Item::Folded {
                handle,
                note,
                since,
                until,
                items,
            } => self.folded(handle, note, (*since, *until), items, anchors),
            Item::Compacted {
                until,
                summary,
                items,
            } => self.compacted(*until, summary, items, anchors),
            Item::Elided { count, .. } => {
                let _ = write!(
                    self.out,
                    "<div class=\"item elided\">⋯ {count} archived items (not in this export)</div>"
                );
            }
            Item::ChildReport {
                seq,
                handle,
                state,
                report,
            } => self.child_report(*seq, handle, state, report, anchors),
        }
    }

    /// The `id` attribute an item at `seq` is linked by, when anchors are written.
    fn anchor(&self, seq: u64, anchors: bool) -> String {
        if anchors {
            format!(" id=\"{}t{seq}\"", self.prefix)
        } else {
            String::new()
        }
    }

    fn user(&mut self, seq: u64, content: &'a [Block], anchors: bool) {
        let _ = write!(
            self.out,
            "<div class=\"item user\"{}><div class=\"meta\">{} user</div>",
            self.anchor(seq, anchors),
            self.stamp(seq, anchors)
        );
        self.blocks(content);
        self.out.push_str("</div>");
    }

    /// An answer, with the model that gave it and why it stopped short, if it did.
    fn assistant(
        &mut self,
        seq: u64,
        content: &'a [Block],
        model: Option<&str>,
        stop: Option<&str>,
    ) {
        self.answer_seq = seq;
        self.out
            .push_str("<div class=\"item assistant\"><div class=\"meta\">assistant");
        if let Some(model) = model {
            self.out.push_str(" · ");
            escape::push(&mut self.out, model);
        }
        self.out.push_str("</div>");
        self.blocks(content);
        let stopped = match stop {
            Some("refused") => Some("⊘ the model refused to answer"),
            Some("truncated") => Some("… cut at the output limit"),
            Some("interrupted") => {
                Some("… interrupted: the connection to the provider broke mid-answer")
            }
            Some("error") => Some("✗ the provider failed the response"),
            Some("cancelled") => Some("… cancelled by the user mid-answer"),
            _ => None,
        };
        if let Some(line) = stopped {
            let _ = write!(self.out, "<div class=\"stopped\">{line}</div>");
        }
        self.out.push_str("</div>");
    }

    /// A fold: its handle, span and note, what else it holds, its archived items collapsed,
    /// and what was asked of it.
    fn folded(
        &mut self,
        handle: &str,
        note: &str,
        (since, until): (u64, u64),
        items: &'a [Item],
        anchors: bool,
    ) {
        let count: usize = items.iter().map(Item::original_count).sum();
        let _ = write!(
            self.out,
            "<div class=\"item fold\" data-handle=\"{}\"><div class=\"meta\">⋯ folded <b>{}</b> t{since}..t{until} · {count} item{}</div><div class=\"note md\">",
            escape::escape(handle),
            escape::escape(handle),
            if count == 1 { "" } else { "s" }
        );
        markdown::push(&mut self.out, note);
        self.out.push_str("</div>");
        self.fold_extras(handle);
        self.archived(items, count, anchors);
        self.asks_of(handle);
        self.out.push_str("</div>");
    }

    /// A compaction: how far it reaches, its summary, its archived items collapsed, and what
    /// was asked of it.
    fn compacted(&mut self, until: u64, summary: &str, items: &'a [Item], anchors: bool) {
        let handle = hotl_view::compaction_handle(until);
        let count: usize = items.iter().map(Item::original_count).sum();
        let _ = write!(
            self.out,
            "<div class=\"item compaction\" data-handle=\"{}\"><div class=\"meta\">⋯ compacted through t{until} ({}) · {count} item{}</div><div class=\"note md\">",
            escape::escape(&handle),
            escape::escape(&handle),
            if count == 1 { "" } else { "s" }
        );
        markdown::push(&mut self.out, summary);
        self.out.push_str("</div>");
        self.archived(items, count, anchors);
        self.asks_of(&handle);
        self.out.push_str("</div>");
    }

    /// A background child's report, as it arrived in the parent's log.
    fn child_report(&mut self, seq: u64, handle: &str, state: &str, report: &str, anchors: bool) {
        let _ = write!(
            self.out,
            "<div class=\"item child-report\"{}><div class=\"meta\">{} background child <b>",
            self.anchor(seq, anchors),
            self.stamp(seq, anchors)
        );
        escape::push(&mut self.out, handle);
        self.out.push_str("</b> ");
        escape::push(&mut self.out, state);
        self.out.push_str("</div><div class=\"md\">");
        markdown::push(&mut self.out, report);
        self.out.push_str("</div></div>");
    }

    fn stamp(&self, seq: u64, anchors: bool) -> String {
        if anchors {
            format!(
                "<a class=\"stamp\" href=\"#{}t{seq}\">t{seq}</a>",
                self.prefix
            )
        } else {
            format!("<span class=\"stamp\">t{seq}</span>")
        }
    }

    /// The archived items of a fold or compaction, collapsed in place.
    fn archived(&mut self, items: &'a [Item], count: usize, anchors: bool) {
        if items.is_empty() {
            if count == 0 {
                self.out.push_str(
                    "<div class=\"archived-gone\">archived items not included in this export</div>",
                );
            }
            return;
        }
        let _ = write!(
            self.out,
            "<details class=\"archived\"><summary>archived items ({count})</summary>"
        );
        for item in items {
            self.item_with(item, anchors);
        }
        self.out.push_str("</details>");
    }

    /// A fold's files and diff.
    fn fold_extras(&mut self, handle: &str) {
        let Some(fold) = self.folds.get(handle).copied() else {
            return;
        };
        if !fold.files.is_empty() {
            self.out.push_str("<ul class=\"files\">");
            for f in &fold.files {
                self.out.push_str("<li><span class=\"op\">");
                escape::push(&mut self.out, &f.op);
                self.out.push_str("</span> ");
                escape::push(&mut self.out, &f.path);
                self.out.push_str("</li>");
            }
            self.out.push_str("</ul>");
        }
        if let Some(hash) = &fold.diff_blob {
            match self.snap.blobs.get(hash) {
                Some(bytes) if !self.omit.full_outputs => {
                    self.out
                        .push_str("<details class=\"fold-diff\"><summary>diff</summary>");
                    tools::push_diff(&mut self.out, &String::from_utf8_lossy(bytes));
                    self.out.push_str("</details>");
                }
                _ => {
                    let _ = write!(
                        self.out,
                        "<div class=\"blob-ref\">diff: blob {}</div>",
                        escape::escape(short_hash(hash))
                    );
                }
            }
        }
    }

    fn asks_of(&mut self, handle: &str) {
        let Some(asks) = self.asks.get(handle).cloned() else {
            return;
        };
        self.out.push_str("<div class=\"asks\">");
        for record in asks {
            if let Body::Ask {
                question, answer, ..
            } = &record.body
            {
                let _ = write!(
                    self.out,
                    "<div class=\"ask\"><div class=\"q\"><b>asked</b> <span class=\"stamp\">t{}</span> ",
                    record.seq
                );
                escape::push(&mut self.out, question);
                self.out.push_str("</div><div class=\"a md\">");
                markdown::push(&mut self.out, answer);
                self.out.push_str("</div></div>");
            }
        }
        self.out.push_str("</div>");
    }

    fn blocks(&mut self, blocks: &'a [Block]) {
        for block in blocks {
            match block {
                Block::Text { text } => {
                    self.out.push_str("<div class=\"md\">");
                    markdown::push(&mut self.out, text);
                    self.out.push_str("</div>");
                }
                // Signatures are the provider's, never shown.
                Block::Thinking { thinking, .. } => {
                    self.out.push_str(
                        "<details class=\"thinking\"><summary>thinking</summary><div class=\"md\">",
                    );
                    markdown::push(&mut self.out, thinking);
                    self.out.push_str("</div></details>");
                }
                Block::RedactedThinking { .. } => self
                    .out
                    .push_str("<div class=\"thinking redacted\">(reasoning the provider keeps encrypted)</div>"),
                Block::ToolUse { id, name, input } => self.call(id, name, input),
                Block::ToolResult {
                    tool_use_id,
                    content,
                    is_error,
                } => {
                    let _ = write!(
                        self.out,
                        "<div class=\"result{}\">← ",
                        if *is_error { " err" } else { "" }
                    );
                    escape::push(&mut self.out, tool_use_id);
                    self.out.push_str("</div>");
                    self.blocks(content);
                }
                Block::Image {
                    media_type,
                    data,
                    blob,
                } => self.image(media_type, data.as_deref(), blob.as_deref()),
                Block::Unknown { kind } => {
                    self.out.push_str("<div class=\"unknown\">[");
                    escape::push(&mut self.out, kind);
                    self.out.push_str(" block]</div>");
                }
            }
        }
    }

    fn image(&mut self, media_type: &str, data: Option<&str>, blob: Option<&str>) {
        let allowed = matches!(
            media_type,
            "image/png" | "image/jpeg" | "image/gif" | "image/webp"
        );
        let encoded = match (data, blob) {
            (Some(data), _) => Some(data.to_owned()),
            (None, Some(hash)) => self.snap.blobs.get(hash).map(|bytes| {
                use base64::Engine as _;
                base64::engine::general_purpose::STANDARD.encode(bytes)
            }),
            _ => None,
        };
        match encoded {
            Some(data) if allowed && !self.omit.images && is_base64(&data) => {
                let _ = write!(
                    self.out,
                    "<img class=\"img\" alt=\"image\" src=\"data:{media_type};base64,{data}\">"
                );
            }
            _ => {
                self.out.push_str("<div class=\"img-gone\">[image ");
                escape::push(&mut self.out, media_type);
                if let Some(hash) = blob {
                    self.out.push_str(", blob ");
                    escape::push(&mut self.out, short_hash(hash));
                }
                self.out.push_str(" omitted]</div>");
            }
        }
    }

    /// A tool call's card, with the result that answers it.
    fn call(&mut self, id: &'a str, name: &str, input: &hotl_log::ToolInput) {
        let result = self.results.get(&(self.answer_seq, id)).copied();
        let state = match result {
            Some(Item::ToolResult { is_error: true, .. }) => "err",
            Some(_) => "ok",
            None => "pending",
        };
        let _ = write!(self.out, "<details class=\"tool {state}\" data-tool=\"");
        escape::push(&mut self.out, name);
        self.out.push_str("\"><summary><span class=\"sum\">");
        escape::push(&mut self.out, &tools::summary(name, input));
        self.out.push_str("</span>");
        if let Some(Item::ToolResult { seq, .. }) = result {
            let _ = write!(self.out, " <span class=\"stamp\">t{seq}</span>");
        }
        self.out.push_str("</summary><div class=\"body\">");
        self.out.push_str(&tools::input_html(name, input));
        if let Some(result) = result {
            self.shown.insert(result.first_seq());
            self.result(result, true);
        } else {
            self.out
                .push_str("<div class=\"no-result\">no result recorded</div>");
        }
        self.out.push_str("</div></details>");
        // The child started at or after this answer, nearest first (call ids can repeat).
        let answer = self.answer_seq;
        let child = self.children.get(id).and_then(|children| {
            children
                .iter()
                .filter(|c| c.pinned_at >= answer)
                .min_by_key(|c| c.pinned_at)
                .or_else(|| children.last())
                .copied()
        });
        if let Some(child) = child {
            self.chip(child);
        }
    }

    fn result(&mut self, item: &Item, anchors: bool) {
        let Item::ToolResult {
            seq,
            content,
            is_error,
            blob,
            ..
        } = item
        else {
            return;
        };
        let _ = write!(
            self.out,
            "<div class=\"out{}\"{}>",
            if *is_error { " err" } else { "" },
            if anchors {
                format!(" id=\"{}t{seq}\"", self.prefix)
            } else {
                String::new()
            }
        );
        let text = plain_text(content);
        tools::push_clipped(&mut self.out, &text, "out");
        for block in content {
            if let Block::Image {
                media_type,
                data,
                blob,
            } = block
            {
                self.image(media_type, data.as_deref(), blob.as_deref());
            }
        }
        if let Some(hash) = blob {
            match self.snap.blobs.get(hash) {
                Some(bytes) if !self.omit.full_outputs => {
                    let full = String::from_utf8_lossy(bytes);
                    let _ = write!(
                        self.out,
                        "<details class=\"full\"><summary>full output ({} lines, blob {})</summary>",
                        thousands(full.lines().count() as u64),
                        escape::escape(short_hash(hash))
                    );
                    markdown::pre(&mut self.out, &full);
                    self.out.push_str("</details>");
                }
                _ => {
                    let _ = write!(
                        self.out,
                        "<div class=\"blob-ref\">full output: blob {}</div>",
                        escape::escape(short_hash(hash))
                    );
                }
            }
        }
        self.out.push_str("</div>");
    }

    /// A chip opening a delegated session.
    fn chip(&mut self, child: &'a Child) {
        self.chipped.insert(&child.snapshot.id);
        let d = &child.delegation;
        let label = d
            .handle
            .as_deref()
            .or(d.agent.as_deref())
            .unwrap_or(&child.snapshot.id);
        let _ = write!(
            self.out,
            "<button type=\"button\" class=\"chip\" data-child=\"c-{}\">↳ ",
            escape::escape(&child.snapshot.id)
        );
        if let Some(agent) = &d.agent {
            escape::push(&mut self.out, agent);
            self.out.push(' ');
        }
        escape::push(&mut self.out, label);
        let _ = write!(self.out, " · {}", child_status(child));
        if let Some(e) = &child.snapshot.economy {
            let tokens = e.total.input + e.total.cache_read + e.total.cache_write + e.total.output;
            let _ = write!(self.out, " · {} tokens", thousands(tokens));
            if let (Some(cost), true) = (e.total.cost, e.unpriced.is_empty()) {
                let _ = write!(self.out, " · ${cost:.4}");
            }
        }
        if !d.description.is_empty() {
            self.out.push_str(" — ");
            escape::push(&mut self.out, &hotl_text::clip(&d.description, 81));
        }
        self.out.push_str("</button>");
    }

    /// Children no call in the view started (their call was cut away, or they were started
    /// by hand): listed at the end.
    fn unreached_children(&mut self) {
        let rest: Vec<&Child> = self
            .snap
            .children
            .iter()
            .filter(|c| !self.chipped.contains(c.snapshot.id.as_str()))
            .collect();
        if rest.is_empty() {
            return;
        }
        self.out
            .push_str("<div class=\"delegated\"><div class=\"meta\">delegated sessions</div>");
        for child in rest {
            self.chip(child);
        }
        self.out.push_str("</div>");
    }
}

/// Each tool result paired with the call it answers: the latest call with its id before it,
/// in the order the items (and the items inside folds and compactions) were written.
pub(crate) fn pair_results(items: &[Item]) -> HashMap<(u64, &str), &Item> {
    let mut open: HashMap<&str, u64> = HashMap::new();
    let mut out = HashMap::new();
    for item in items {
        item.walk(&mut |item| match item {
            Item::Assistant { seq, content, .. } => {
                for block in content {
                    if let Block::ToolUse { id, .. } = block {
                        open.insert(id.as_str(), *seq);
                    }
                }
            }
            Item::ToolResult { call, .. } => {
                if let Some(answer) = open.remove(call.as_str()) {
                    out.insert((answer, call.as_str()), item);
                }
            }
            _ => {}
        });
    }
    out
}

/// A record of a branch a revert left, as an item.
fn record_item(record: &Record) -> Option<Item> {
    match &record.body {
        Body::User { content } => Some(Item::User {
            seq: record.seq,
            content: content.clone(),
        }),
        Body::Assistant {
            content,
            model,
            stop,
            usage,
            ..
        } => Some(Item::Assistant {
            seq: record.seq,
            content: content.clone(),
            model: model.clone(),
            stop: stop.clone(),
            usage: *usage,
        }),
        Body::ToolResult {
            call,
            content,
            blob,
            is_error,
            ..
        } => Some(Item::ToolResult {
            seq: record.seq,
            call: call.clone(),
            content: content.clone(),
            is_error: *is_error,
            blob: blob.clone(),
        }),
        _ => None,
    }
}

fn short_hash(hash: &str) -> &str {
    &hash[..hash.len().min(16)]
}

fn is_base64(data: &str) -> bool {
    data.bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='))
}

#[cfg(test)]
mod tests {
    use hotl_log::{Block, Body, Record, SessionStart};

    use super::*;

    fn snapshot(bodies: Vec<Body>) -> Snapshot {
        let mut start = SessionStart::new("/p");
        start.id = "01JE0000000000000000000X01".to_owned();
        let records = std::iter::once(Body::Session(Box::new(start)))
            .chain(bodies)
            .enumerate()
            .map(|(i, body)| Record::new(i as u64 + 1, "2026-01-01T00:00:00.000Z", body))
            .collect();
        Snapshot {
            id: "01JE0000000000000000000X01".to_owned(),
            records,
            ..Snapshot::default()
        }
    }

    fn calling(command: &str) -> Body {
        Body::Assistant {
            content: vec![Block::ToolUse {
                id: "call_0".to_owned(),
                name: "bash".to_owned(),
                input: serde_json::json!({ "command": command }).into(),
            }],
            model: None,
            stop: Some("tool_use".to_owned()),
            stop_raw: None,
            usage: None,
        }
    }

    fn result(text: &str) -> Body {
        Body::ToolResult {
            call: "call_0".to_owned(),
            content: vec![Block::text(text)],
            blob: None,
            is_error: false,
            files: Vec::new(),
        }
    }

    #[test]
    fn a_repeated_call_id_pairs_each_result_with_the_call_before_it() {
        let html = render(
            &snapshot(vec![
                Body::user_text("go"),
                calling("echo first"),
                result("FIRST-OUTPUT"),
                calling("echo second"),
                result("SECOND-OUTPUT"),
            ]),
            "",
            Omit::default(),
        );
        let first = html.find("$ echo first").expect("first card");
        let second = html.find("$ echo second").expect("second card");
        let first_out = html.find("FIRST-OUTPUT").expect("first output");
        let second_out = html.find("SECOND-OUTPUT").expect("second output");
        assert!(
            first < first_out && first_out < second && second < second_out,
            "{html}"
        );
        assert!(!html.contains("orphan"), "{html}");
    }
}
