//! What the transcript holds and how each entry looks: user messages, answers, thinking, tool
//! cards, folds and compactions, children, notices. An entry renders to rows at a width, either
//! collapsed (what goes into the scrollback) or expanded (what the pager shows); answers carry
//! no gutter, so a selection copies them as written.

use ratatui::style::{Color, Modifier, Style, Stylize};
use ratatui::text::{Line, Span};

use crate::wrap::{truncate, wrap};

/// Output rows a collapsed tool card shows from the start of the output.
const HEAD: usize = 3;
/// And from its end.
const TAIL: usize = 2;
/// The most rows an expanded entry shows (the log keeps everything).
const EXPANDED_MAX: usize = 5_000;

/// One entry of the transcript.
#[derive(Clone, Debug, PartialEq)]
pub enum Entry {
    /// A message the user sent.
    User {
        /// Its stamp, when known.
        seq: Option<u64>,
        /// The text.
        text: String,
    },
    /// An answer (markdown).
    Answer {
        /// The text.
        text: String,
    },
    /// The model's reasoning.
    Thinking {
        /// The text.
        text: String,
    },
    /// A tool call and its result.
    Tool(ToolCard),
    /// A folded span.
    Fold {
        /// Its handle.
        handle: String,
        /// First and last stamps.
        since: u64,
        /// Last stamp.
        until: u64,
        /// Items it stands for.
        items: usize,
        /// The note.
        note: String,
        /// The files the span touched.
        files: Vec<String>,
        /// The archived entries, for the pager.
        archived: Vec<Entry>,
    },
    /// A compaction.
    Compaction {
        /// Compacted through this stamp.
        until: u64,
        /// The summary.
        summary: String,
        /// The archived entries, for the pager.
        archived: Vec<Entry>,
    },
    /// A delegated child's run.
    Child {
        /// Its handle.
        handle: String,
        /// The agent it ran as (`fork`, or a spawned agent's name).
        agent: String,
        /// What it was asked.
        task: String,
        /// Whether it finished its turn.
        ok: bool,
        /// Tool calls it made.
        tools: usize,
        /// Its entries, for the pager.
        entries: Vec<Entry>,
    },
    /// `/recall`'s hits: a ranked list whose handles can be asked, expanding to the spans
    /// this transcript holds.
    Recall {
        /// What was looked for.
        query: String,
        /// The hits, best first.
        hits: Vec<RecallHit>,
        /// The archived entries of the hits' spans that this transcript has, by handle.
        spans: Vec<(String, Vec<Entry>)>,
    },
    /// Something said about the session (a notice, a switch, a result of a command).
    Notice {
        /// The text.
        text: String,
        /// How it looks.
        tone: Tone,
    },
    /// The end of a turn: what it spent.
    TurnEnd {
        /// The line to show.
        text: String,
    },
}

/// How a notice looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    /// Plain information.
    Info,
    /// Something went wrong.
    Error,
    /// Output of a command the user ran (`/recall`, `/help`): shown as is.
    Output,
}

/// One recall hit, as the recall tool renders it: `[<handle> t<seq> <kind>] <line>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecallHit {
    /// The thread's handle.
    pub handle: String,
    /// The stamp of the item that matched.
    pub seq: u64,
    /// What kind of item it is (`user`, `answer`, `tool`, `note`, ...).
    pub kind: String,
    /// The matching line.
    pub line: String,
    /// Files the thread touched that changed since, as the tool says it.
    pub stale: Option<String>,
}

impl RecallHit {
    /// The hits in the recall tool's text; none when it says there are none.
    pub fn parse(text: &str) -> Vec<RecallHit> {
        let mut hits: Vec<RecallHit> = Vec::new();
        for line in text.lines() {
            if let Some(stale) = line.strip_prefix("  stale: ") {
                if let Some(last) = hits.last_mut() {
                    last.stale = Some(stale.to_owned());
                }
                continue;
            }
            let Some(rest) = line.strip_prefix('[') else {
                continue;
            };
            let Some((head, found)) = rest.split_once("] ") else {
                continue;
            };
            let mut words = head.split(' ');
            let (Some(handle), Some(stamp), Some(kind)) =
                (words.next(), words.next(), words.next())
            else {
                continue;
            };
            let Some(seq) = stamp.strip_prefix('t').and_then(|s| s.parse().ok()) else {
                continue;
            };
            hits.push(RecallHit {
                handle: handle.to_owned(),
                seq,
                kind: kind.to_owned(),
                line: found.to_owned(),
                stale: None,
            });
        }
        hits
    }
}

/// A tool call with its result.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCard {
    /// The call id.
    pub id: String,
    /// The tool.
    pub name: String,
    /// Its arguments as JSON text.
    pub input: String,
    /// The result, once there is one.
    pub output: Option<String>,
    /// Whether it failed.
    pub is_error: bool,
}

/// An id as lists show it: its first ten characters (unique in practice, as `hotl sessions
/// list` shows them).
pub fn short_id(id: &str) -> &str {
    id.get(..10).unwrap_or(id)
}

/// The palette.
pub mod style {
    use super::*;

    /// A handle: something to recall or ask by.
    pub fn handle() -> Style {
        Style::new().fg(Color::Magenta).add_modifier(Modifier::BOLD)
    }

    /// Secondary text.
    pub fn dim() -> Style {
        Style::new().add_modifier(Modifier::DIM)
    }

    /// An error.
    pub fn error() -> Style {
        Style::new().fg(Color::Red)
    }

    /// The user's prompt mark.
    pub fn prompt() -> Style {
        Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }
}

impl Entry {
    /// Rows at `width`: collapsed for the scrollback, or expanded for the pager.
    pub fn rows(&self, width: usize, expanded: bool) -> Vec<Line<'static>> {
        let rows = match self {
            Entry::User { text, .. } => user_rows(text, width, expanded),
            Entry::Answer { text } => crate::markdown::render(text, width),
            Entry::Thinking { text } => thinking_rows(text, width, expanded),
            Entry::Tool(card) => card.rows(width, expanded),
            Entry::Fold {
                handle,
                since,
                until,
                items,
                note,
                files,
                archived,
            } => {
                let head = fold_head(handle, (*since, *until), *items, files, expanded);
                span_rows(head, note, archived, width, expanded)
            }
            Entry::Compaction {
                until,
                summary,
                archived,
            } => span_rows(
                compaction_head(*until, expanded),
                summary,
                archived,
                width,
                expanded,
            ),
            Entry::Child {
                handle,
                agent,
                task,
                ok,
                tools,
                entries,
            } => child_rows(
                (handle, agent),
                task,
                (*ok, *tools),
                entries,
                width,
                expanded,
            ),
            Entry::Recall { query, hits, spans } => {
                recall_rows(query, hits, spans, width, expanded)
            }
            Entry::Notice { text, tone } => notice_rows(text, *tone, width),
            Entry::TurnEnd { text } => {
                vec![truncate(
                    &Line::from(Span::styled(text.clone(), style::dim())),
                    width,
                )]
            }
        };
        if expanded { capped(rows) } else { rows }
    }

    /// The handle this entry can be recalled or asked by, if any.
    pub fn handle(&self) -> Option<String> {
        match self {
            Entry::Fold { handle, .. } | Entry::Child { handle, .. } => Some(handle.clone()),
            Entry::Compaction { until, .. } => Some(format!("compaction@t{until}")),
            Entry::Recall { hits, .. } => hits.first().map(|h| h.handle.clone()),
            _ => None,
        }
    }

    /// The entry's text for a search, without rendering it: what it says, its note, its
    /// output, and what it archives.
    pub fn search_text(&self) -> String {
        match self {
            Entry::User { text, .. }
            | Entry::Answer { text }
            | Entry::Thinking { text }
            | Entry::Notice { text, .. }
            | Entry::TurnEnd { text } => text.clone(),
            Entry::Tool(card) => format!(
                "{} {} {}",
                card.name,
                card.input,
                card.output.as_deref().unwrap_or("")
            ),
            Entry::Fold {
                handle,
                note,
                archived,
                ..
            } => {
                let mut text = format!("{handle} {note}");
                for entry in archived {
                    text.push('\n');
                    text.push_str(&entry.search_text());
                }
                text
            }
            Entry::Compaction {
                summary, archived, ..
            } => {
                let mut text = summary.clone();
                for entry in archived {
                    text.push('\n');
                    text.push_str(&entry.search_text());
                }
                text
            }
            Entry::Child {
                handle,
                task,
                entries,
                ..
            } => {
                let mut text = format!("{handle} {task}");
                for entry in entries {
                    text.push('\n');
                    text.push_str(&entry.search_text());
                }
                text
            }
            Entry::Recall { query, hits, .. } => {
                let mut text = query.clone();
                for hit in hits {
                    text.push_str(&format!("\n{} {}", hit.handle, hit.line));
                }
                text
            }
        }
    }

    /// The text `/copy` takes: an answer as written.
    pub fn answer_text(&self) -> Option<&str> {
        match self {
            Entry::Answer { text } => Some(text),
            _ => None,
        }
    }
}

/// At most [`EXPANDED_MAX`] rows, and a row saying how many more the log keeps.
fn capped(mut rows: Vec<Line<'static>>) -> Vec<Line<'static>> {
    if rows.len() > EXPANDED_MAX {
        let more = rows.len() - EXPANDED_MAX;
        rows.truncate(EXPANDED_MAX);
        rows.push(Line::from(Span::styled(
            format!("… {more} more rows (the log keeps them all)"),
            style::dim(),
        )));
    }
    rows
}

/// The disclosure mark of an entry that expands in the pager.
fn disclosure(expanded: bool) -> Span<'static> {
    Span::styled(if expanded { "▾ " } else { "▸ " }, style::dim())
}

/// A fold's head: its span of stamps, its handle, how many items and files it stands for.
fn fold_head(
    handle: &str,
    (since, until): (u64, u64),
    items: usize,
    files: &[String],
    expanded: bool,
) -> Line<'static> {
    Line::from(vec![
        disclosure(expanded),
        "fold ".bold(),
        Span::raw(format!("t{since}..t{until} · ")),
        Span::styled(handle.to_owned(), style::handle()),
        Span::styled(
            if items > 0 {
                format!(" · {items} items")
            } else {
                String::new()
            },
            style::dim(),
        ),
        Span::styled(files_text(files), style::dim()),
    ])
}

/// A compaction's head: how far it reaches, and its handle.
fn compaction_head(until: u64, expanded: bool) -> Line<'static> {
    Line::from(vec![
        disclosure(expanded),
        "compacted ".bold(),
        Span::raw(format!("through t{until} · ")),
        Span::styled(format!("compaction@t{until}"), style::handle()),
    ])
}

/// A span that stands for archived entries (a fold, a compaction): its head, its note, and
/// in the pager the entries themselves.
fn span_rows(
    head: Line<'static>,
    note: &str,
    archived: &[Entry],
    width: usize,
    expanded: bool,
) -> Vec<Line<'static>> {
    let mut rows = wrap(&head, width, &[Span::raw("  ")]);
    rows.extend(indented(note, width, style::dim()));
    if expanded {
        rows.extend(archived_rows(archived, width));
    }
    rows
}

/// A child's run: whether it finished and how many tool calls it made, its task, and in the
/// pager its own entries behind a rule.
fn child_rows(
    (handle, agent): (&str, &str),
    task: &str,
    (ok, tools): (bool, usize),
    entries: &[Entry],
    width: usize,
    expanded: bool,
) -> Vec<Line<'static>> {
    let mark = if ok {
        Span::styled("↳ ", Style::new().fg(Color::Green))
    } else {
        Span::styled("↳ ", style::error())
    };
    let head = Line::from(vec![
        mark,
        format!("{agent} ").bold(),
        Span::styled(handle.to_owned(), style::handle()),
        Span::styled(
            format!(
                " · {} · {tools} tool call{}",
                if ok { "done" } else { "failed" },
                if tools == 1 { "" } else { "s" }
            ),
            style::dim(),
        ),
    ]);
    let mut rows = wrap(&head, width, &[Span::raw("  ")]);
    rows.push(truncate(
        &Line::from(vec![
            Span::raw("  "),
            Span::styled(hotl_text::first_line(task).to_owned(), style::dim()),
        ]),
        width,
    ));
    if expanded {
        for entry in entries {
            for row in entry.rows(width.saturating_sub(2), true) {
                let mut spans = vec![Span::styled("│ ", style::dim())];
                spans.extend(row.spans);
                rows.push(Line::from(spans));
            }
        }
    }
    rows
}

/// `/recall`'s hits, numbered, each with what changed since; in the pager the spans this
/// transcript holds for them.
fn recall_rows(
    query: &str,
    hits: &[RecallHit],
    spans: &[(String, Vec<Entry>)],
    width: usize,
    expanded: bool,
) -> Vec<Line<'static>> {
    let mut rows = vec![truncate(
        &Line::from(vec![
            disclosure(expanded),
            "recall ".bold(),
            Span::raw(format!("{query:?}")),
            Span::styled(
                format!(
                    " · {} hit{}{}",
                    hits.len(),
                    if hits.len() == 1 { "" } else { "s" },
                    if expanded || spans.is_empty() {
                        ""
                    } else {
                        " · Ctrl+T shows the spans"
                    }
                ),
                style::dim(),
            ),
        ]),
        width,
    )];
    for (i, hit) in hits.iter().enumerate() {
        rows.extend(recall_hit_rows(i + 1, hit, width));
    }
    if expanded {
        for (handle, entries) in spans {
            rows.push(Line::from(vec![
                Span::styled("  ┊ span ", style::dim()),
                Span::styled(handle.clone(), style::handle()),
            ]));
            rows.extend(archived_rows(entries, width));
        }
    }
    rows
}

/// One numbered recall hit, and the files that changed since, when some did.
fn recall_hit_rows(number: usize, hit: &RecallHit, width: usize) -> Vec<Line<'static>> {
    let mut rows = wrap(
        &Line::from(vec![
            Span::styled(format!("{number:>3}. "), style::dim()),
            Span::styled(hit.handle.clone(), style::handle()),
            Span::styled(format!(" t{} {} ", hit.seq, hit.kind), style::dim()),
            Span::raw(hit.line.clone()),
        ]),
        width,
        &[Span::raw("       ")],
    );
    if let Some(stale) = &hit.stale {
        rows.push(truncate(
            &Line::from(Span::styled(
                format!("       stale: {stale}"),
                Style::new().fg(Color::Yellow),
            )),
            width,
        ));
    }
    rows
}

/// A notice in its tone: marked and dim, marked and red, or a command's output as is.
fn notice_rows(text: &str, tone: Tone, width: usize) -> Vec<Line<'static>> {
    let text = &*crate::wrap::visible(text);
    let style = match tone {
        Tone::Info => style::dim(),
        Tone::Error => style::error(),
        Tone::Output => Style::new(),
    };
    let mark = match tone {
        Tone::Info => "· ",
        Tone::Error => "✗ ",
        Tone::Output => "",
    };
    text.split('\n')
        .enumerate()
        .flat_map(|(i, line)| {
            let lead = if i == 0 { mark } else { "  " };
            let lead = if tone == Tone::Output { "" } else { lead };
            wrap(
                &Line::from(vec![
                    Span::styled(lead, style),
                    Span::styled(line.to_owned(), style),
                ]),
                width,
                &[Span::raw("  ")],
            )
        })
        .collect()
}

/// Lines of a user message the scrollback shows; a long paste is counted, not repeated.
const USER_LINES: usize = 12;

fn user_rows(text: &str, width: usize, expanded: bool) -> Vec<Line<'static>> {
    let text = &*crate::wrap::visible(text);
    let mut rows = vec![Line::default()];
    let total = text.split('\n').count();
    let shown = if expanded || total <= USER_LINES + 1 {
        total
    } else {
        USER_LINES
    };
    for (i, line) in text.split('\n').take(shown).enumerate() {
        let lead = if i == 0 {
            Span::styled("› ", style::prompt())
        } else {
            Span::raw("  ")
        };
        rows.extend(wrap(
            &Line::from(vec![
                lead,
                Span::styled(line.to_owned(), Style::new().bold()),
            ]),
            width,
            &[Span::raw("  ")],
        ));
    }
    if shown < total {
        rows.push(Line::from(Span::styled(
            format!("  … {} more lines (Ctrl+T shows them)", total - shown),
            style::dim(),
        )));
    }
    rows
}

fn thinking_rows(text: &str, width: usize, expanded: bool) -> Vec<Line<'static>> {
    let text = &*crate::wrap::visible(text);
    let style = style::dim().add_modifier(Modifier::ITALIC);
    let lines: Vec<&str> = text
        .trim()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .collect();
    if expanded {
        return lines
            .iter()
            .flat_map(|l| {
                wrap(
                    &Line::from(Span::styled(format!("∴ {l}"), style)),
                    width,
                    &[Span::raw("  ")],
                )
            })
            .collect();
    }
    let first = lines.first().copied().unwrap_or("");
    let more = if lines.len() > 1 {
        format!(" (+{} lines)", lines.len() - 1)
    } else {
        String::new()
    };
    vec![truncate(
        &Line::from(vec![
            Span::styled(format!("∴ {first}"), style),
            Span::styled(more, style::dim()),
        ]),
        width,
    )]
}

fn indented(text: &str, width: usize, style: Style) -> Vec<Line<'static>> {
    let text = &*crate::wrap::visible(text);
    text.trim_end()
        .split('\n')
        .flat_map(|line| {
            wrap(
                &Line::from(vec![Span::raw("  "), Span::styled(line.to_owned(), style)]),
                width,
                &[Span::raw("  ")],
            )
        })
        .collect()
}

fn archived_rows(entries: &[Entry], width: usize) -> Vec<Line<'static>> {
    let mut rows = Vec::new();
    for entry in entries {
        for row in entry.rows(width.saturating_sub(2), true) {
            let mut spans = vec![Span::styled("┊ ", style::dim())];
            spans.extend(row.spans);
            rows.push(Line::from(spans));
        }
    }
    rows
}

/// ` · a.rs, b.rs +3`: the files a fold touched, the first few by name.
fn files_text(files: &[String]) -> String {
    const NAMED: usize = 3;
    if files.is_empty() {
        return String::new();
    }
    let named: Vec<&str> = files.iter().take(NAMED).map(String::as_str).collect();
    let more = files.len().saturating_sub(NAMED);
    let text = crate::wrap::visible(&named.join(", ")).into_owned();
    if more > 0 {
        format!(" · {text} +{more}")
    } else {
        format!(" · {text}")
    }
}

impl ToolCard {
    /// What the call does, in one line: `$ cargo test`, `read src/main.rs:10-40`.
    pub fn summary(&self) -> String {
        let args: serde_json::Value = serde_json::from_str(&self.input).unwrap_or_default();
        let get = |key: &str| {
            args.get(key)
                .and_then(|v| v.as_str())
                .unwrap_or("")
                .to_owned()
        };
        let text = match self.name.as_str() {
            "bash" => format!("$ {}", get("command")),
            "read" => {
                let path = get("path");
                match (
                    args.get("offset").and_then(|v| v.as_u64()),
                    args.get("limit").and_then(|v| v.as_u64()),
                ) {
                    (Some(o), Some(l)) => format!("{path}:{o}-{}", o + l),
                    (Some(o), None) => format!("{path}:{o}-"),
                    _ => path,
                }
            }
            "edit" | "write" | "ls" => get("path"),
            "grep" => format!("{} {}", get("pattern"), get("path")),
            "glob" => get("pattern"),
            "todo" => get("text"),
            "fold" => format!(
                "since {}",
                args.get("since").map(|v| v.to_string()).unwrap_or_default()
            ),
            "recall" => get("query"),
            "ask" => format!("{} {}", get("handle"), get("question")),
            "fork" => get("task"),
            _ => self.input.clone(),
        };
        crate::wrap::visible(text.lines().next().unwrap_or("")).into_owned()
    }

    /// The card's rows: a head line, then the output collapsed to its head and tail with a
    /// count (or whole, expanded); an edit as a coloured diff.
    pub fn rows(&self, width: usize, expanded: bool) -> Vec<Line<'static>> {
        let mark = match (&self.output, self.is_error) {
            (None, _) => Span::styled("○ ", style::dim()),
            (Some(_), false) => Span::styled("● ", Style::new().fg(Color::Green)),
            (Some(_), true) => Span::styled("● ", style::error()),
        };
        let head = Line::from(vec![
            mark,
            Span::styled(self.name.clone(), Style::new().bold()),
            Span::raw(" "),
            Span::raw(self.summary()),
        ]);
        let mut rows = if expanded {
            wrap(&head, width, &[Span::raw("  ")])
        } else {
            vec![truncate(&head, width)]
        };
        if self.name == "edit" && !self.is_error {
            rows.extend(self.diff_rows(width, expanded));
        }
        let Some(output) = &self.output else {
            return rows;
        };
        let out_style = if self.is_error {
            style::error()
        } else {
            style::dim()
        };
        // Tool output is anything a program printed: tabs and control characters are drawn,
        // never sent.
        let output = crate::wrap::visible(output);
        let lines: Vec<&str> = output.trim_end().split('\n').collect();
        let shown: Vec<(usize, &str)> = if expanded || lines.len() <= HEAD + TAIL + 1 {
            lines.iter().copied().enumerate().collect()
        } else {
            let mut v: Vec<(usize, &str)> = lines[..HEAD].iter().copied().enumerate().collect();
            v.push((usize::MAX, ""));
            v.extend(
                lines[lines.len() - TAIL..]
                    .iter()
                    .copied()
                    .enumerate()
                    .map(|(i, l)| (i + lines.len() - TAIL, l)),
            );
            v
        };
        // A spilled output names the blob holding all of it: the collapsed card keeps that line.
        let spilled = lines.iter().find(|l| l.contains("read blob:"));
        for (n, (i, line)) in shown.into_iter().enumerate() {
            let lead = if n == 0 { "  ⎿ " } else { "    " };
            if i == usize::MAX {
                let hidden = lines.len() - HEAD - TAIL;
                rows.push(Line::from(Span::styled(
                    format!("    … {hidden} more lines (Ctrl+T shows them)"),
                    style::dim(),
                )));
                if let Some(spilled) = spilled {
                    rows.push(truncate(
                        &Line::from(Span::styled(
                            format!("    {}", spilled.trim()),
                            style::dim(),
                        )),
                        width,
                    ));
                }
                continue;
            }
            let line = Line::from(vec![
                Span::styled(lead, style::dim()),
                Span::styled(line.to_owned(), out_style),
            ]);
            if expanded {
                rows.extend(wrap(&line, width, &[Span::raw("    ")]));
            } else {
                rows.push(truncate(&line, width));
            }
        }
        rows
    }

    fn diff_rows(&self, width: usize, expanded: bool) -> Vec<Line<'static>> {
        let args: serde_json::Value = serde_json::from_str(&self.input).unwrap_or_default();
        let (Some(old), Some(new)) = (
            args.get("old").and_then(|v| v.as_str()),
            args.get("new").and_then(|v| v.as_str()),
        ) else {
            return Vec::new();
        };
        let mut rows = Vec::new();
        let removed = Style::new().fg(Color::Red);
        let added = Style::new().fg(Color::Green);
        let (old, new) = (crate::wrap::visible(old), crate::wrap::visible(new));
        let old_lines: Vec<&str> = old.split('\n').collect();
        let new_lines: Vec<&str> = new.split('\n').collect();
        let limit = if expanded { usize::MAX } else { 12 };
        let mut shown = 0;
        for (mark, lines, style) in [("- ", &old_lines, removed), ("+ ", &new_lines, added)] {
            for line in lines.iter() {
                if shown == limit {
                    break;
                }
                shown += 1;
                rows.push(truncate(
                    &Line::from(vec![
                        Span::raw("    "),
                        Span::styled(format!("{mark}{line}"), style),
                    ]),
                    width,
                ));
            }
        }
        let total = old_lines.len() + new_lines.len();
        if total > shown {
            rows.push(Line::from(Span::styled(
                format!("    … {} more diff lines", total - shown),
                style::dim(),
            )));
        }
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(rows: &[Line<'static>]) -> Vec<String> {
        rows.iter().map(crate::wrap::plain).collect()
    }

    #[test]
    fn a_long_tool_output_collapses_to_head_tail_and_a_count() {
        let output: String = (1..=100).map(|i| format!("line {i}\n")).collect();
        let card = ToolCard {
            id: "c1".into(),
            name: "bash".into(),
            input: r#"{"command":"seq 100"}"#.into(),
            output: Some(output),
            is_error: false,
        };
        let rows = text(&card.rows(60, false));
        assert_eq!(rows[0], "● bash $ seq 100");
        assert_eq!(rows[1], "  ⎿ line 1");
        assert!(rows.iter().any(|r| r.contains("95 more lines")), "{rows:?}");
        assert_eq!(rows.last().map(String::as_str), Some("    line 100"));
        assert_eq!(rows.len(), 1 + HEAD + 1 + TAIL);
        assert_eq!(card.rows(60, true).len(), 101);
    }

    #[test]
    fn a_fold_card_names_its_span_and_handle() {
        let entry = Entry::Fold {
            handle: "a1b2".into(),
            since: 12,
            until: 48,
            items: 9,
            note: "changed: x\nopen: y".into(),
            files: Vec::new(),
            archived: vec![Entry::Answer { text: "old".into() }],
        };
        let rows = text(&entry.rows(80, false));
        assert_eq!(rows[0], "▸ fold t12..t48 · a1b2 · 9 items");
        assert_eq!(rows[1], "  changed: x");
        let expanded = text(&entry.rows(80, true));
        assert_eq!(expanded.last().map(String::as_str), Some("┊ old"));
    }
}
