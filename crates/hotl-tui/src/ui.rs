//! The viewport's rows, top to bottom: children and calls running, the live tail of the
//! answer, what runs and what is queued, a question if one is open, the composer (or the
//! read-only banner), the slash popup, and the status strip on the last row.

use std::time::{Duration, Instant};

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use crate::app::{App, Busy, Modal};
use crate::cells::style;
use crate::wrap::{truncate, wrap};

/// The spinner's frames.
const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
/// How long a hint stays.
const HINT_FOR: Duration = Duration::from_secs(3);
/// Popup rows at most.
const POPUP_ROWS: usize = 8;

/// What the viewport shows: its rows and where the cursor goes.
pub struct Frame {
    /// The rows, top to bottom.
    pub rows: Vec<Line<'static>>,
    /// The cursor, as (column, row), when the composer has it.
    pub cursor: Option<(u16, u16)>,
}

/// Lays out the viewport for `app`, at most `max_rows` tall.
pub fn frame(app: &App, now: Instant, max_rows: usize, context: &Strip) -> Frame {
    let width = usize::from(app.width());
    let live = live_rows(app, now, width);
    let mut bottom = modal_rows(app, max_rows, width);
    let mut cursor = None;
    if !matches!(app.modal, Some(Modal::Pick(_))) {
        cursor = composer_rows(app, width, &mut bottom);
    }
    bottom.push(strip(app, now, context, width));
    fit(live, bottom, cursor, max_rows)
}

/// What is under way, above the composer: children and calls running, the live tail of the
/// answer, the turn or command being waited on, what is queued, and a fresh hint.
fn live_rows(app: &App, now: Instant, width: usize) -> Vec<Line<'static>> {
    let mut live: Vec<Line<'static>> = Vec::new();
    // The spinner turns with the time the work has run, so a frame is a function of its
    // inputs (snapshot tests give `now`).
    let ran = app.busy.as_ref().map_or(0, |waiting| {
        now.saturating_duration_since(waiting.since).as_millis()
    });
    let spin = SPINNER[(ran / 80) as usize % SPINNER.len()];
    for child in &app.children {
        live.push(truncate(
            &Line::from(vec![
                Span::styled(format!("{spin} "), Style::new().fg(Color::Cyan)),
                Span::styled(
                    format!("{} ", child.agent),
                    Style::new().add_modifier(Modifier::BOLD),
                ),
                Span::styled(child.handle.clone(), style::handle()),
                Span::styled(
                    format!(
                        " · {} tool call{} · {}",
                        child.tools,
                        if child.tools == 1 { "" } else { "s" },
                        crate::wrap::visible(&child.activity)
                    ),
                    style::dim(),
                ),
            ]),
            width,
        ));
    }
    live.extend(app.live_tail());
    for card in &app.tools {
        live.push(truncate(
            &Line::from(vec![
                Span::styled(format!("{spin} "), Style::new().fg(Color::Cyan)),
                Span::styled(card.name.clone(), Style::new().add_modifier(Modifier::BOLD)),
                Span::raw(" "),
                Span::raw(card.summary()),
            ]),
            width,
        ));
        // The last lines it printed, as they come: a long command is not silent.
        if let Some(printed) = app.printed.get(&card.id) {
            for line in last_lines(printed, PRINTED_LINES) {
                live.push(truncate(
                    &Line::from(vec![
                        Span::styled("  │ ", style::dim()),
                        Span::styled(crate::wrap::visible(line).into_owned(), style::dim()),
                    ]),
                    width,
                ));
            }
        }
    }
    live.extend(busy_row(app, now, spin, width));
    for queued in &app.queued {
        live.push(truncate(
            &Line::from(vec![
                Span::styled("⏸ queued: ", style::dim()),
                Span::raw(queued.lines().next().unwrap_or("").to_owned()),
            ]),
            width,
        ));
    }
    if let Some((hint, at)) = &app.hint
        && now.duration_since(*at) < HINT_FOR
    {
        live.push(truncate(
            &Line::from(Span::styled(hint.clone(), Style::new().fg(Color::Yellow))),
            width,
        ));
    }
    live
}

/// What is being waited on (a turn, a command) and for how long, when something is.
fn busy_row(app: &App, now: Instant, spin: &str, width: usize) -> Option<Line<'static>> {
    let crate::app::Waiting {
        what: busy, since, ..
    } = app.busy.as_ref()?;
    let what = match busy {
        Busy::Turn => "working".to_owned(),
        Busy::Command(name) => (*name).to_owned(),
    };
    Some(truncate(
        &Line::from(vec![
            Span::styled(format!("{spin} "), Style::new().fg(Color::Cyan)),
            Span::styled(what, Style::new().add_modifier(Modifier::BOLD)),
            Span::styled(
                format!(
                    " · {}s · Esc to interrupt",
                    now.duration_since(*since).as_secs()
                ),
                style::dim(),
            ),
        ]),
        width,
    ))
}

/// The open question or picker, if any: an approval with its keys, a confirmation, a list.
fn modal_rows(app: &App, max_rows: usize, width: usize) -> Vec<Line<'static>> {
    let mut rows = Vec::new();
    match &app.modal {
        Some(Modal::Approval {
            question,
            tool,
            preview,
            reason,
            ..
        }) => {
            // The question and its keys always show; the preview takes what room is left.
            rows.extend(preview_rows(preview, max_rows.saturating_sub(4), width));
            rows.extend(asking(question, None, width));
            let keys = match reason {
                None => Line::from(Span::styled(
                    format!("  y yes · n no (and say why) · a always allow {tool}"),
                    Style::new().fg(Color::Yellow),
                )),
                Some(typed) => Line::from(vec![
                    Span::styled("  why not? ", Style::new().fg(Color::Yellow)),
                    Span::raw(crate::wrap::visible(typed).into_owned()),
                    Span::styled("▏ Enter sends · Esc just says no", style::dim()),
                ]),
            };
            rows.push(truncate(&keys, width));
        }
        Some(Modal::Confirm { question, .. }) => {
            rows.extend(asking(question, Some(" [y/N]"), width));
        }
        Some(Modal::Pick(picker)) => {
            rows.extend(picker.render(width, max_rows.saturating_sub(2).clamp(3, 14)));
        }
        None => {}
    }
    rows
}

/// Appends the read-only banner, the composer and the slash popup to `bottom`; the cursor,
/// as (column, row in `bottom`), when no question holds the keys.
fn composer_rows(app: &App, width: usize, bottom: &mut Vec<Line<'static>>) -> Option<(u16, u16)> {
    if let Some(why) = &app.read_only {
        // The composer stays for what reads: /recall, /copy, /raw, /tree.
        bottom.extend(wrap(
            &Line::from(vec![
                Span::styled(
                    " read-only ",
                    Style::new().fg(Color::Black).bg(Color::Yellow),
                ),
                Span::styled(format!(" {why}"), style::dim()),
            ]),
            width,
            &[],
        ));
    }
    let (rows, (x, y)) = app.composer.render(width);
    let cursor = app
        .modal
        .is_none()
        .then(|| (x, (bottom.len() + usize::from(y)) as u16));
    bottom.extend(rows);
    let popup = &app.popup_rows;
    let start = app.popup.saturating_sub(POPUP_ROWS - 1);
    for (i, (name, help)) in popup.iter().enumerate().skip(start).take(POPUP_ROWS) {
        let selected = i == app.popup;
        bottom.push(truncate(
            &Line::from(vec![
                Span::styled(
                    format!("  {name:<16}"),
                    if selected {
                        Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD)
                    } else {
                        Style::new().fg(Color::Cyan)
                    },
                ),
                Span::styled(help.clone(), style::dim()),
            ]),
            width,
        ));
    }
    cursor
}

/// The live rows over the bottom ones in at most `max_rows`, the cursor moved to match.
fn fit(
    mut live: Vec<Line<'static>>,
    bottom: Vec<Line<'static>>,
    cursor: Option<(u16, u16)>,
    max_rows: usize,
) -> Frame {
    // The live part gives way when the screen is short: its last rows stay.
    let room = max_rows.saturating_sub(bottom.len());
    if live.len() > room {
        live.drain(..live.len() - room);
    }
    let offset = live.len() as u16;
    let mut rows = live;
    rows.extend(bottom);
    let cursor = if rows.len() > max_rows {
        // Even the bottom does not fit: keep the composer's end and the strip.
        let cut = rows.len() - max_rows;
        rows.drain(..cut);
        cursor.map(|(x, y)| (x, (y + offset).saturating_sub(cut as u16)))
    } else {
        cursor.map(|(x, y)| (x, y + offset))
    };
    Frame { rows, cursor }
}

/// A question's rows: `? ` and the question in bold, then what the keys are, if given on
/// the same line.
/// What a call would do, as the edit card draws a change: `- ` red, `+ ` green, `$ ` bold,
/// notes dim; at most `max` rows, the rest counted.
fn preview_rows(
    preview: &[hotl_protocol::PreviewLine],
    max: usize,
    width: usize,
) -> Vec<Line<'static>> {
    use hotl_protocol::PreviewKind;
    let shown = if preview.len() > max {
        max.saturating_sub(1)
    } else {
        preview.len()
    };
    let mut rows: Vec<Line<'static>> = preview[..shown]
        .iter()
        .map(|line| {
            let style = match line.kind {
                PreviewKind::Removed => Style::new().fg(Color::Red),
                PreviewKind::Added => Style::new().fg(Color::Green),
                PreviewKind::Command => Style::new().add_modifier(Modifier::BOLD),
                PreviewKind::Note => style::dim(),
            };
            let text = format!("{}{}", line.sign(), crate::wrap::visible(&line.text));
            truncate(
                &Line::from(vec![Span::raw("  "), Span::styled(text, style)]),
                width,
            )
        })
        .collect();
    if shown < preview.len() {
        rows.push(Line::from(Span::styled(
            format!("  … {} more lines", preview.len() - shown),
            style::dim(),
        )));
    }
    rows
}

fn asking(question: &str, keys: Option<&str>, width: usize) -> Vec<Line<'static>> {
    let mut spans = vec![
        Span::styled(
            "? ",
            Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD),
        ),
        Span::styled(
            crate::wrap::visible(question).into_owned(),
            Style::new().add_modifier(Modifier::BOLD),
        ),
    ];
    if let Some(keys) = keys {
        spans.push(Span::styled(
            keys.to_owned(),
            Style::new().fg(Color::Yellow),
        ));
    }
    wrap(&Line::from(spans), width, &[Span::raw("  ")])
}

/// What the strip needs beyond the app's status.
#[derive(Clone, Debug, Default)]
pub struct Strip {
    /// How long the prompt cache lives.
    pub ttl: Duration,
    /// When the last request was made.
    pub last_request: Option<Instant>,
    /// The percentage at which a turn compacts.
    pub compact_at: u64,
}

/// The status strip: `42% ctx ▰▰▰▰▱▱▱▱┊▱ · todos 1/3 · model · mode · $0.0123 · cache 87% · 58m`.
pub fn strip(app: &App, now: Instant, context: &Strip, width: usize) -> Line<'static> {
    let mut spans = Vec::new();
    let sep = || Span::styled(" · ", style::dim());
    match &app.status {
        Some(status) => {
            let pct = status.context_percent;
            let color = match pct {
                90.. => Color::Red,
                70..90 => Color::Yellow,
                _ => Color::Green,
            };
            spans.push(Span::styled(format!("{pct}% ctx "), Style::new().fg(color)));
            // Ten cells, each 10%; the compaction threshold is a mark inside the bar.
            let filled = (pct.min(100) as usize).div_ceil(10);
            let mark = (context.compact_at as usize / 10).min(9);
            let mut bar = String::new();
            for i in 0..10 {
                bar.push(if i == mark && i >= filled {
                    '┊'
                } else if i < filled {
                    '▰'
                } else {
                    '▱'
                });
            }
            spans.push(Span::styled(bar, Style::new().fg(color)));
            if status.todos > 0 {
                spans.push(sep());
                spans.push(Span::raw(format!(
                    "todos {}/{}",
                    status.todos_done, status.todos
                )));
            }
        }
        None => spans.push(Span::styled("0% ctx", Style::new().fg(Color::Green))),
    }
    spans.push(sep());
    spans.push(Span::raw(app.model.clone()));
    if let Some(effort) = app.status.as_ref().and_then(|s| s.effort.as_ref()) {
        spans.push(sep());
        spans.push(Span::styled(format!("effort {effort}"), style::dim()));
    }
    spans.push(sep());
    let mode_style = match app.mode.as_str() {
        "default" => style::dim(),
        "plan" => Style::new().fg(Color::Cyan),
        _ => Style::new().fg(Color::Yellow),
    };
    spans.push(Span::styled(app.mode.clone(), mode_style));
    if let Some(sandbox) = app.status.as_ref().and_then(|s| s.sandbox.as_deref()) {
        // Unconfined without a question is the one state to be loud about.
        let sandbox_style = match (sandbox, app.mode.as_str()) {
            ("off", "bypass") => Style::new().fg(Color::Red),
            ("off", _) => Style::new().fg(Color::Yellow),
            ("read-only", _) => Style::new().fg(Color::Cyan),
            _ => style::dim(),
        };
        spans.push(sep());
        spans.push(Span::styled(format!("sandbox {sandbox}"), sandbox_style));
    }
    if let Some(status) = &app.status {
        spans.push(sep());
        spans.push(if status.unpriced {
            Span::styled("unpriced", style::dim())
        } else {
            Span::raw(format!(
                "${:.4}{}",
                status.cost,
                if status.this_run { " this run" } else { "" }
            ))
        });
        if let Some(hit) = status.cache_hit {
            spans.push(sep());
            spans.push(Span::raw(format!("cache {:.0}%", hit * 100.0)));
        }
    }
    if let Some(at) = context.last_request
        && !context.ttl.is_zero()
    {
        let left = context.ttl.saturating_sub(now.duration_since(at));
        spans.push(sep());
        spans.push(Span::styled(
            if left.is_zero() {
                "cache cold".to_owned()
            } else if left.as_secs() >= 60 {
                format!("{}m left", left.as_secs().div_ceil(60))
            } else {
                format!("{}s left", left.as_secs())
            },
            style::dim(),
        ));
    }
    if !app.saved && app.read_only.is_none() {
        spans.push(sep());
        spans.push(Span::styled("new session", style::dim()));
    }
    truncate(&Line::from(spans), width)
}

/// Takes the colours out of `buffer`, keeping bold, dim, italic, underline and reverse:
/// what `NO_COLOR` asks for.
pub fn monochrome(buffer: &mut ratatui::buffer::Buffer) {
    for cell in &mut buffer.content {
        cell.fg = Color::Reset;
        cell.bg = Color::Reset;
    }
}

/// Whether colour is off (`NO_COLOR`), for every surface the UI draws on. Set once at start.
static NO_COLOR: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Turns colour off (or on) for everything drawn from now on.
pub fn set_monochrome(on: bool) {
    NO_COLOR.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// Whether colour is off.
pub fn is_monochrome() -> bool {
    NO_COLOR.load(std::sync::atomic::Ordering::Relaxed)
}

/// How many of a running command's last lines show under its card.
const PRINTED_LINES: usize = 3;

/// The last `n` non-blank lines of `text`, in order (a line still being printed counts).
fn last_lines(text: &str, n: usize) -> Vec<&str> {
    let mut lines: Vec<&str> = text
        .split(['\n', '\r'])
        .filter(|l| !l.trim().is_empty())
        .rev()
        .take(n)
        .collect();
    lines.reverse();
    lines
}
