//! The UI on a real terminal: raw mode and its restoration (also on panic), the startup probe,
//! the loop that takes keys, pastes, resizes and agent events and draws frames (only when
//! something changed, at most 60 a second), and what the app asks of the host: resolving a
//! session reference, listing sessions, reading a session's transcript.

use std::io::{self, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crossterm::event::{
    Event as Input, EventStream, KeyCode, KeyEventKind, MouseButton, MouseEventKind,
};
use futures_util::{FutureExt as _, StreamExt as _};
use hotl_protocol::slash::{Foreign, Pick};
use hotl_protocol::{Agent, Command, Envelope, Event, SwitchReason, SwitchTo};
use ratatui::text::Line;

use crate::app::{App, Effect, Modal};
use crate::cells::{Entry, Tone};
use crate::fullscreen::{Click, FullScreen};
use crate::pager::Pager;
use crate::picker::{self, PickScreen};
use crate::screen::Screen;
use crate::ui::{self, Strip};

mod clipboard;
mod editor;
mod follow;
mod history;
mod metrics;
mod session_ops;
mod terminal;

use self::clipboard::copy;
use self::editor::edit_externally;
use self::follow::{FOLLOW, Follow};
use self::history::{load_history, save_history};
use self::metrics::Metrics;
use self::terminal::Terminal;

/// The shortest time between two frames (60 a second).
const FRAME: Duration = Duration::from_micros(16_667);
/// How often the spinner moves while something runs.
const TICK: Duration = Duration::from_millis(100);
/// Agent events taken before a frame is drawn, at most.
const BATCH: usize = 4096;

/// What a host gives later: a future the UI's loop polls beside everything else.
pub type Later<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + 'a>>;

/// Work the loop waits for beside drawing (a pager's log read, an upload), and what to do with
/// what it gives.
enum Job<'a> {
    /// The pager opens on these entries.
    Pager(Later<'a, Vec<Entry>>),
    /// These lines are said (or the error).
    Said(Later<'a, Result<Vec<String>, String>>),
}

/// What a [`Job`] gave.
enum JobDone {
    Pager(Vec<Entry>),
    Said(Result<Vec<String>, String>),
}

impl Job<'_> {
    async fn done(&mut self) -> JobDone {
        match self {
            Job::Pager(entries) => JobDone::Pager(entries.await),
            Job::Said(said) => JobDone::Said(said.await),
        }
    }
}

/// What the UI needs from the program that runs it: the session store's answers, phrased the
/// way the shell phrases them.
pub trait Host {
    /// A reference (list number, id prefix, name or `@last`) as a session id, or the error the
    /// shell would print.
    fn resolve(&self, query: &str) -> Result<String, String>;
    /// Sessions to resume, newest first; rows of this directory are `near`.
    fn sessions(&self) -> Vec<picker::Row>;
    /// A session's transcript.
    fn entries(&self, id: &str) -> Vec<Entry>;
    /// [`Host::entries`], read away from the UI's loop (the pager of a long session): the
    /// loop keeps drawing and taking the agent's events meanwhile.
    fn entries_later(&self, id: &str) -> Later<'_, Vec<Entry>>;
    /// Session `id`'s lineage as a tree: its root and everything forked or delegated from it,
    /// one row each (the label drawn with the tree's branches).
    fn tree(&self, id: &str) -> Vec<picker::Row>;
    /// Searches session `id`'s archive as `/recall` does (no model call), rendered as the
    /// recall tool renders hits, or the error to say.
    fn recall(
        &self,
        id: &str,
        query: &str,
        mode: Option<&str>,
        limit: usize,
    ) -> Result<String, String>;
    /// How long session `id`'s log is (a read-only view follows it as it grows).
    fn log_size(&self, id: &str) -> Option<u64>;
    /// Opens session `id` for writing, once no other process holds it: the agent, or `None`
    /// while it is still held.
    fn open(&self, id: &str) -> Option<Agent>;
    /// Writes session `id` out (`/export [PATH]`): the lines to say, or the error.
    fn export(&self, id: &str, path: Option<&str>) -> Result<Vec<String>, String>;
    /// Shares session `id` (`/share`): the lines to say (the link last), or the error. The
    /// upload runs beside the UI's loop.
    fn share(&self, id: &str) -> Later<'_, Result<Vec<String>, String>>;
    /// `agent`'s sessions of this directory, newest first (`/resume @claude`): one row each,
    /// its value the file; or the line saying there are none and where they were looked for.
    fn foreign_sessions(&self, agent: Foreign) -> Result<Vec<picker::Row>, String>;
    /// Imports `agent`'s session that `query` names (a file, an id or its prefix) as a new
    /// session, or finds the one an earlier import of the unchanged file became: the switch
    /// to it and the lines to say (what was skipped), or the error.
    fn import_foreign(
        &self,
        agent: Foreign,
        query: &str,
    ) -> Result<(SwitchTo, Vec<String>), String>;
    /// Session `id`'s recorded working directory.
    fn session_dir(&self, id: &str) -> Option<String>;
    /// The directory hotl was started in.
    fn here(&self) -> String;
    /// `path` as the user reads it (the home as `~`).
    fn display_path(&self, path: &str) -> String;
    /// The front end is on session `id` now: remembered as this terminal's last session.
    fn switched_to(&self, id: &str);
}

/// Puts `text` on the clipboard through the terminal (OSC 52: works through tmux and ssh),
/// when stdout is one: the line console's copy.
pub fn copy_to_terminal(text: &str) {
    use base64::Engine as _;
    use std::io::IsTerminal;
    let mut out = io::stdout();
    if out.is_terminal() {
        let encoded = base64::engine::general_purpose::STANDARD.encode(text);
        let _ = write!(out, "\x1b]52;c;{encoded}\x07");
        let _ = out.flush();
    }
}

/// How the UI starts.
pub struct Options {
    /// Where the composer's history is kept (none: in memory only).
    pub history: Option<PathBuf>,
    /// `HOTL_TUI_METRICS`: a JSON line per frame goes here.
    pub metrics: Option<PathBuf>,
    /// How long the provider keeps the prompt cache.
    pub ttl: Duration,
    /// The context percentage at which a turn compacts.
    pub compact_at: u64,
    /// A first message to send.
    pub first: Option<String>,
    /// The session is on disk: what to show of it. A turn a dead process left open is
    /// finished.
    pub resumed: Option<Resumed>,
    /// Another process owns the session: show it read-only.
    pub read_only: Option<ReadOnly>,
    /// Open the resume picker first (`hotl -r` without a reference).
    pub pick: bool,
    /// The transcript in the alternate screen, with the mouse (`--fullscreen`).
    pub fullscreen: bool,
    /// When the program started, for the first-paint metric.
    pub started: Instant,
    /// How long the program took to open the session (start to open), for the metrics.
    pub opened: Option<Duration>,
    /// The session lives in memory only (`--no-session`): leaving says nothing was saved.
    pub ephemeral: bool,
    /// Draw without colours (`NO_COLOR`): bold, dim and reverse still mark what they mark.
    pub monochrome: bool,
    /// Notified once the first frame is on the screen (what waits for it, MCP servers, starts
    /// then).
    pub first_frame: Option<std::sync::Arc<tokio::sync::Notify>>,
    /// Notified when the process is told to end (SIGTERM): the UI leaves as when the user
    /// leaves (the turn and its children stopped and recorded, the terminal restored).
    pub terminated: Option<std::sync::Arc<tokio::sync::Notify>>,
}

impl Default for Options {
    /// A new session in memory terms: no history file, no metrics, no cache lifetime known,
    /// started now.
    fn default() -> Options {
        Options {
            history: None,
            metrics: None,
            ttl: Duration::ZERO,
            compact_at: hotl_protocol::COMPACT_AT_PERCENT,
            first: None,
            resumed: None,
            read_only: None,
            pick: false,
            fullscreen: false,
            started: Instant::now(),
            opened: None,
            ephemeral: false,
            monochrome: false,
            first_frame: None,
            terminated: None,
        }
    }
}

/// A session on disk, as the UI starts on it.
#[derive(Clone, Debug)]
pub struct Resumed {
    /// Its id.
    pub id: String,
    /// The end of its transcript, for the scrollback.
    pub tail: Vec<Entry>,
    /// How many items come before the tail (the pager reads them when it opens).
    pub hidden: usize,
}

/// A session another process owns, shown read-only.
#[derive(Clone, Debug)]
pub struct ReadOnly {
    /// Why (which process owns it), for the banner.
    pub why: String,
    /// How many transcript entries the log held when it was read: the view follows what
    /// comes after them.
    pub entries: usize,
}

/// How the UI ended.
#[derive(Debug)]
pub struct Ended {
    /// The session shown last.
    pub session: String,
    /// Whether it is on disk.
    pub saved: bool,
}

/// Runs the UI until the user leaves. `agent` is `None` for a read-only snapshot.
pub async fn run(agent: Option<Agent>, host: &dyn Host, options: Options) -> io::Result<Ended> {
    crate::ui::set_monochrome(options.monochrome);
    let terminal = Terminal::enter()?;
    let result = main_loop(agent, host, &options, &terminal).await;
    drop(terminal);
    result
}

async fn main_loop(
    mut agent: Option<Agent>,
    host: &dyn Host,
    options: &Options,
    terminal: &Terminal,
) -> io::Result<Ended> {
    // A pseudo-terminal nobody sized says 0×0: draw for the classic size instead.
    let (cols, rows) = match crossterm::terminal::size()? {
        (0, _) | (_, 0) => (80, 24),
        size => size,
    };
    let row = terminal.row.unwrap_or(rows.saturating_sub(1));
    let mut screen = Screen::new(io::stdout(), (cols, rows), row);
    let mut full = if options.fullscreen {
        Some(FullScreen::enter()?)
    } else {
        None
    };
    let mut app = App::new(cols, load_history(options.history.as_deref()));
    let mut metrics = Metrics::open(options.metrics.as_deref());
    let mut strip = Strip {
        ttl: options.ttl,
        last_request: None,
        compact_at: options.compact_at,
    };
    app.read_only = options.read_only.as_ref().map(|r| r.why.clone());
    let mut input = EventStream::new();
    let terminal_kitty = terminal.kitty;
    let mut pager: Option<Pager> = None;
    let mut job: Option<Job<'_>> = None;
    let mut pick_screen: Option<PickScreen> = None;
    let mut requests = 0;
    let mut events_since_frame = 0usize;
    // A read-only view: how much of the log and of its transcript is shown.
    let mut followed = match (&options.read_only, &options.resumed) {
        (Some(read_only), Some(resumed)) => Some(Follow {
            size: host.log_size(&resumed.id).unwrap_or(0),
            entries: read_only.entries,
            next: Instant::now() + FOLLOW,
        }),
        _ => None,
    };

    if let Some(Resumed { id, tail, hidden }) = &options.resumed {
        app.session.clone_from(id);
        app.saved = true;
        app.replay(tail.clone(), 0);
        if *hidden > 0 {
            app.say(
                format!("{hidden} earlier items are in the transcript (Ctrl+T)"),
                Tone::Info,
            );
        }
    }
    // The first frame goes out before anything slow (the syntaxes load meanwhile).
    draw(
        &mut screen,
        full.as_mut(),
        &mut app,
        &strip,
        &mut metrics,
        &mut events_since_frame,
    )?;
    metrics.first_paint(options.started.elapsed(), options.opened);
    if let Some(first_frame) = &options.first_frame {
        first_frame.notify_one();
    }
    let mut last_draw = Instant::now();
    crate::highlight::warm_up();
    if let Some(agent) = &agent {
        if options.resumed.is_some() {
            agent.send(Command::Status);
            app.run(Command::Recover, "recover");
        }
        if let Some(first) = &options.first {
            app.submit(first.clone());
        }
        if options.pick {
            session_ops::pick(Pick::Sessions, &mut app, host);
        }
        // Keys typed while hotl started: text and Enter, as if typed now.
        for c in terminal.typed.chars() {
            let code = match c {
                '\r' | '\n' => KeyCode::Enter,
                c if !c.is_control() => KeyCode::Char(c),
                _ => continue,
            };
            app.key(
                crossterm::event::KeyEvent::new(code, crossterm::event::KeyModifiers::NONE),
                Instant::now(),
            );
        }
    }

    loop {
        // What an effect does may ask for more (a picked session is a switch to send).
        while let effects = app.take_effects()
            && !effects.is_empty()
        {
            for effect in effects {
                match effect {
                    Effect::Exit => {
                        if let Some(alt) = pick_screen.take() {
                            alt.close()?;
                        }
                        return leave(&mut screen, full.as_mut(), &mut app, agent, host, options)
                            .await;
                    }
                    Effect::Pager if app.saved => {
                        // The log holds everything (archived items included); what this run
                        // shows is only the end of it. It is read beside the loop.
                        if job.is_none() {
                            job = Some(Job::Pager(host.entries_later(&app.session)));
                            app.hint = Some(("reading the transcript…".to_owned(), Instant::now()));
                        }
                    }
                    Effect::Pager => {
                        pager = Some(Pager::open(app.transcript.clone(), cols_of(&screen)));
                    }
                    Effect::Share if job.is_none() => {
                        job = Some(Job::Said(host.share(&app.session)));
                    }
                    Effect::Share => {
                        app.say("a share is already on its way", Tone::Info);
                    }
                    Effect::Editor => {
                        // The editor owns the terminal until it exits: no reader may take its
                        // keys, and the modes it expects are the shell's.
                        drop(input);
                        let edited = edit_externally(&app.composer.text(), terminal_kitty).await;
                        input = EventStream::new();
                        screen.invalidate();
                        if let Some(full) = full.as_mut() {
                            full.reenter()?;
                        }
                        match edited {
                            Ok(text) => app.composer.set_text(&text),
                            Err(e) => app.say(format!("the editor failed: {e}"), Tone::Error),
                        }
                        app.dirty = true;
                    }
                    other => apply(other, &mut app, agent.as_ref(), host, &mut screen)?,
                }
            }
        }
        if pager.is_some()
            && app
                .modal
                .as_ref()
                .is_some_and(|m| matches!(m, Modal::Approval { .. }))
        {
            // A question needs the main screen.
            if let Some(p) = pager.take() {
                p.close()?;
                screen.invalidate();
                if let Some(full) = full.as_mut() {
                    full.reenter()?;
                }
            }
        }
        if let Some(status) = &app.status
            && status.requests != requests
        {
            requests = status.requests;
            strip.last_request = Some(Instant::now());
        }
        let now = Instant::now();
        let mut wake: Option<Instant> = None;
        // A picker takes the alternate screen (in fullscreen it stays above the strip).
        let picking = full.is_none() && matches!(app.modal, Some(Modal::Pick(_)));
        if picking && pick_screen.is_none() {
            pick_screen = Some(PickScreen::open()?);
        } else if !picking && let Some(closed) = pick_screen.take() {
            closed.close()?;
            screen.invalidate();
            app.dirty = true;
        }
        if let Some(p) = &mut pager {
            if p.dirty {
                p.draw()?;
            }
        } else if let (Some(alt), Some(Modal::Pick(picker))) = (pick_screen.as_mut(), &app.modal) {
            if app.dirty {
                alt.draw(picker)?;
                app.dirty = false;
            }
        } else if app.dirty {
            let due = last_draw + FRAME;
            if now >= due {
                draw(
                    &mut screen,
                    full.as_mut(),
                    &mut app,
                    &strip,
                    &mut metrics,
                    &mut events_since_frame,
                )?;
                last_draw = now;
            } else {
                wake = Some(due);
            }
        }
        if let Some(follow) = &followed {
            wake = Some(wake.map_or(follow.next, |w| w.min(follow.next)));
        }
        let animating = app.busy.is_some()
            || !app.children.is_empty()
            || !app.tools.is_empty()
            || app.hint.is_some();
        if animating && pager.is_none() {
            let tick = last_draw + TICK;
            wake = Some(wake.map_or(tick, |w| w.min(tick)));
        }
        let sleep = async {
            match wake {
                Some(at) => tokio::time::sleep_until(at.into()).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            biased;
            input_event = input.next() => match input_event {
                Some(Ok(event)) => {
                    if let Some(p) = &mut pager {
                        match p.input(&event) {
                            crate::pager::Outcome::Open => {}
                            crate::pager::Outcome::Closed(prefill) => {
                                if let Some(p) = pager.take() {
                                    p.close()?;
                                }
                                screen.invalidate();
                    if let Some(full) = full.as_mut() {
                        full.reenter()?;
                    }
                                if let Some(text) = prefill {
                                    app.composer.set_text(&text);
                                }
                                app.dirty = true;
                            }
                            crate::pager::Outcome::Copy(text) => copy(&mut screen, &text)?,
                        }
                        continue;
                    }
                    handle_input(event, &mut app, &mut screen, full.as_mut())?;
                }
                Some(Err(e)) => return Err(e),
                None => {
                    if let Some(alt) = pick_screen.take() {
                        alt.close()?;
                    }
                    return leave(&mut screen, full.as_mut(), &mut app, agent, host, options).await;
                }
            },
            envelope = recv(&mut agent) => match envelope {
                Some(envelope) => {
                    if take(&mut app, envelope, host)
                        && let Some(full) = full.as_mut()
                    {
                        full.reflow(&mut app);
                    }
                    events_since_frame += 1;
                    // Take what else is waiting before drawing: a fast stream is one frame.
                    if let Some(agent) = agent.as_mut() {
                        for _ in 0..BATCH {
                            match agent.recv().now_or_never() {
                                Some(Some(envelope)) => {
                                    if take(&mut app, envelope, host)
                                        && let Some(full) = full.as_mut()
                                    {
                                        full.reflow(&mut app);
                                    }
                                    events_since_frame += 1;
                                }
                                Some(None) | None => break,
                            }
                        }
                    }
                }
                None => {
                    // The agent stopped: nothing more can happen.
                    agent = None;
                    app.say("the agent stopped", Tone::Error);
                }
            },
            () = async {
                match &options.terminated {
                    Some(terminated) => terminated.notified().await,
                    None => std::future::pending().await,
                }
            } => {
                if let Some(alt) = pick_screen.take() {
                    alt.close()?;
                }
                return leave(&mut screen, full.as_mut(), &mut app, agent, host, options).await;
            }
            done = async {
                match job.as_mut() {
                    Some(job) => job.done().await,
                    None => std::future::pending().await,
                }
            } => {
                job = None;
                match done {
                    JobDone::Pager(entries) => {
                        app.hint = None;
                        pager = Some(Pager::open(entries, cols_of(&screen)));
                    }
                    JobDone::Said(Ok(lines)) => lines.into_iter().for_each(|l| app.say(l, Tone::Info)),
                    JobDone::Said(Err(e)) => app.say(e, Tone::Error),
                }
                app.dirty = true;
            }
            () = sleep => {
                if animating {
                    app.dirty = true;
                }
                if let Some(follow) = &mut followed
                    && Instant::now() >= follow.next
                {
                    follow.next = Instant::now() + FOLLOW;
                    if follow.poll(&mut app, host) {
                        // The owner is gone: this process takes the session over.
                        if let Some(opened) = host.open(&app.session) {
                            agent = Some(opened);
                            followed = None;
                            app.read_only = None;
                            app.say("the other process let the session go: it is yours now", Tone::Info);
                            if let Some(agent) = &agent {
                                agent.send(Command::Status);
                            }
                        }
                    }
                }
                if app.hint.as_ref().is_some_and(|(_, at)| at.elapsed() > Duration::from_secs(3)) {
                    app.hint = None;
                    app.dirty = true;
                }
            }
        }
    }
}

fn cols_of<W: Write>(screen: &Screen<W>) -> u16 {
    screen.cols()
}

async fn recv(agent: &mut Option<Agent>) -> Option<Envelope> {
    match agent {
        Some(agent) => agent.recv().await,
        None => std::future::pending().await,
    }
}

/// One agent event, and what it asks of the host (a switch shows the new session's tail);
/// says whether the session shown changed.
fn take(app: &mut App, envelope: Envelope, host: &dyn Host) -> bool {
    let switched = match &envelope.event {
        Event::Switch { reason, to, .. }
            if envelope.child.is_none() && *reason != SwitchReason::New =>
        {
            Some(to.clone())
        }
        _ => None,
    };
    app.event(envelope);
    let changed = switched.is_some();
    if let Some(id) = switched {
        replay(app, host, &id);
    }
    changed
}

fn replay(app: &mut App, host: &dyn Host, id: &str) {
    let mut entries = host.entries(id);
    let start = crate::transcript::tail_start(&entries);
    let tail = entries.split_off(start);
    app.replay(tail, 0);
    if start > 0 {
        app.say(
            format!("{start} earlier entries are in the transcript (Ctrl+T)"),
            Tone::Info,
        );
    }
}

fn handle_input<W: Write>(
    event: Input,
    app: &mut App,
    screen: &mut Screen<W>,
    full: Option<&mut FullScreen>,
) -> io::Result<()> {
    if let Some(full) = full {
        // The fullscreen transcript scrolls and takes clicks; the rest is the app's.
        app.dirty = true;
        match &event {
            Input::Mouse(mouse) => {
                match mouse.kind {
                    MouseEventKind::ScrollUp => full.view.scroll(-full.view.wheel()),
                    MouseEventKind::ScrollDown => full.view.scroll(full.view.wheel()),
                    MouseEventKind::Down(MouseButton::Left) => {
                        if let Click::Handle(handle) = full.view.click(mouse.column, mouse.row, app)
                        {
                            app.composer.set_text(&format!("/ask {handle} "));
                        }
                    }
                    _ => {}
                }
                return Ok(());
            }
            Input::Key(key)
                if key.kind != KeyEventKind::Release && full.view.focused().is_some() =>
            {
                // A handle has the focus: Enter asks it, r recalls, y copies, Tab moves on.
                let handle = full.view.focused().unwrap_or_default().to_owned();
                match key.code {
                    KeyCode::Tab => {
                        full.view.focus_next(true);
                    }
                    KeyCode::BackTab => {
                        full.view.focus_next(false);
                    }
                    KeyCode::Enter => {
                        full.view.unfocus();
                        app.composer.set_text(&format!("/ask {handle} "));
                    }
                    KeyCode::Char('r') => {
                        full.view.unfocus();
                        app.composer.set_text("/recall ");
                    }
                    KeyCode::Char('y') => {
                        full.view.unfocus();
                        copy(screen, &handle)?;
                        app.say(format!("copied {handle}"), Tone::Info);
                    }
                    _ => {
                        full.view.unfocus();
                        app.key(*key, Instant::now());
                    }
                }
                return Ok(());
            }
            Input::Key(key)
                if key.kind != KeyEventKind::Release
                    && matches!(key.code, KeyCode::Tab | KeyCode::BackTab)
                    && app.composer.is_empty()
                    && app.popup_rows.is_empty()
                    && app.modal.is_none() =>
            {
                full.view.focus_next(key.code == KeyCode::Tab);
                return Ok(());
            }
            Input::Key(key) if key.kind != KeyEventKind::Release => match key.code {
                KeyCode::PageUp => {
                    full.view.scroll(-full.view.page());
                    return Ok(());
                }
                KeyCode::PageDown => {
                    full.view.scroll(full.view.page());
                    return Ok(());
                }
                _ => {}
            },
            Input::Resize(cols, _) => {
                app.resize(*cols);
                full.reflow(app);
                return Ok(());
            }
            _ => {}
        }
    }
    match event {
        Input::Key(key) if key.kind != KeyEventKind::Release => app.key(key, Instant::now()),
        Input::Paste(text) => app.paste(&text),
        Input::Resize(cols, rows) => {
            screen.resize((cols, rows))?;
            app.resize(cols);
        }
        _ => {}
    }
    Ok(())
}

/// Carries out what the app asked for.
fn apply<W: Write>(
    effect: Effect,
    app: &mut App,
    agent: Option<&Agent>,
    host: &dyn Host,
    screen: &mut Screen<W>,
) -> io::Result<()> {
    match effect {
        // Writing a session out, searching it and picking read its log: a read-only view can
        // do them too.
        Effect::Export(path) => match host.export(&app.session, path.as_deref()) {
            Ok(lines) => lines.into_iter().for_each(|l| app.say(l, Tone::Info)),
            Err(e) => app.say(e, Tone::Error),
        },
        Effect::Recall { query, mode, limit } => {
            match host.recall(&app.session, &query, mode.as_deref(), limit) {
                Ok(text) => app.recalled(&query, &text),
                Err(e) => app.say(e, Tone::Error),
            }
        }
        Effect::Copy(text) => copy(screen, &text)?,
        Effect::WriteDump(dump) => match dump.write_body() {
            Ok(Some(path)) => app.say(
                format!("request body: {} (it can hold secrets)", path.display()),
                Tone::Info,
            ),
            Ok(None) => {}
            Err(e) => app.say(
                format!("the request body could not be written: {e}"),
                Tone::Error,
            ),
        },
        Effect::Pick(pick) => session_ops::pick(pick, app, host),
        _ if agent.is_none() => app.say("read-only: nothing can be sent", Tone::Error),
        Effect::Resume(query) => session_ops::resolve(&query, app, host),
        Effect::Import { agent, query } => session_ops::import(agent, &query, app, host),
        Effect::Send(command) => {
            if let Some(agent) = agent {
                let id = agent.send(command.clone());
                app.sent(id, &command);
            }
        }
        Effect::Editor | Effect::Exit | Effect::Pager | Effect::Share => {}
    }
    Ok(())
}

fn draw<W: Write>(
    screen: &mut Screen<W>,
    full: Option<&mut FullScreen>,
    app: &mut App,
    strip: &Strip,
    metrics: &mut Metrics,
    events: &mut usize,
) -> io::Result<()> {
    let start = Instant::now();
    if let Some(full) = full {
        full.push(app.take_history_tagged());
        let (_, height) = full.size();
        let frame = ui::frame(app, start, usize::from(height / 2).max(6), strip);
        let drawn = full.draw(&frame)?;
        app.dirty = false;
        metrics.frame(start.elapsed(), drawn, std::mem::take(events));
        return Ok(());
    }
    let history = app.take_history();
    let frame = ui::frame(app, start, usize::from(screen.max_height()), strip);
    let width = screen.cols();
    let drawn = screen.draw(&history, frame.rows.len() as u16, frame.cursor, |buffer| {
        for (y, row) in frame.rows.iter().enumerate() {
            buffer.set_line(0, y as u16, row, width);
        }
    })?;
    app.dirty = false;
    metrics.frame(start.elapsed(), drawn, std::mem::take(events));
    Ok(())
}

async fn leave<W: Write>(
    screen: &mut Screen<W>,
    full: Option<&mut FullScreen>,
    app: &mut App,
    agent: Option<Agent>,
    _host: &dyn Host,
    options: &Options,
) -> io::Result<Ended> {
    app.finish();
    if let Some(full) = full {
        full.leave()?;
        // The transcript was the fullscreen's: the shell's screen gets only the goodbye.
        app.take_history();
    }
    let mut rows = app.take_history();
    let goodbye = if options.read_only.is_some() {
        "read-only snapshot closed".to_owned()
    } else if options.ephemeral {
        "session not saved (--no-session): nothing was written".to_owned()
    } else if app.saved {
        format!(
            "session {} · resume with: hotl -r {}",
            app.session, app.session
        )
    } else {
        "nothing was saved: the session is written with its first message".to_owned()
    };
    rows.push(Line::from(ratatui::text::Span::styled(
        goodbye,
        crate::cells::style::dim(),
    )));
    screen.leave(&rows)?;
    save_history(options.history.as_deref(), app.composer.history());
    if let Some(agent) = agent {
        agent.shutdown().await;
    }
    Ok(Ended {
        session: app.session.clone(),
        saved: app.saved,
    })
}
