//! The loop that takes keys, pastes, resizes, agent events and finished background work, and
//! draws frames: only when something changed, at most 60 a second, a fast stream one frame.

use std::io;
use std::time::{Duration, Instant};

use crossterm::event::{EventStream, KeyCode, KeyModifiers};
use futures_util::{FutureExt as _, StreamExt as _};
use hotl_protocol::slash::Pick;
use hotl_protocol::{Agent, Command, Envelope, Event, SwitchReason};
use ratatui::text::{Line, Span};

use super::clipboard::copy;
use super::editor::edit_externally;
use super::follow::{FOLLOW, Follow};
use super::history::{load_history, save_history};
use super::input::handle_input;
use super::metrics::Metrics;
use super::terminal::Terminal;
use super::{Ended, Host, Later, Options, Resumed, session_ops};
use crate::app::{App, Effect, Modal};
use crate::cells::{Entry, Tone};
use crate::fullscreen::FullScreen;
use crate::pager::{self, Pager};
use crate::picker::PickScreen;
use crate::screen::Screen;
use crate::ui::{self, Strip};

/// The shortest time between two frames (60 a second).
const FRAME: Duration = Duration::from_micros(16_667);
/// How often the spinner moves while something runs.
const TICK: Duration = Duration::from_millis(100);
/// Agent events taken before a frame is drawn, at most.
const BATCH: usize = 4096;

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

/// Picker rows a host gives later, or why it cannot.
type Rows<'a> = Later<'a, Result<Vec<crate::picker::Row>, String>>;

/// When the loop wakes up without an event, and whether the screen animates meanwhile.
struct Wake {
    at: Option<Instant>,
    animating: bool,
}

/// Everything the loop keeps between two events.
pub(super) struct Loop<'a> {
    host: &'a dyn Host,
    options: &'a Options,
    agent: Option<Agent>,
    app: App,
    screen: Screen<io::Stdout>,
    /// The transcript in the alternate screen (`--fullscreen`).
    full: Option<FullScreen>,
    /// The transcript pager (Ctrl+T), over everything.
    pager: Option<Pager>,
    /// A picker's alternate screen.
    pick_screen: Option<PickScreen>,
    job: Option<Job<'a>>,
    /// The remote store's sessions being read, for the open resume picker.
    listing: Option<Later<'a, Result<Vec<crate::picker::Row>, String>>>,
    /// The text of every session being searched for the resume picker's filter (one search
    /// at a time: typing on starts the next when this one ends).
    searching: Option<(String, Rows<'a>)>,
    input: EventStream,
    /// The terminal speaks the kitty keyboard protocol (an editor is started without it).
    kitty: bool,
    metrics: Metrics,
    strip: Strip,
    /// Requests the last status counted (a new one restarts the cache clock in the strip).
    requests: u32,
    events_since_frame: usize,
    last_draw: Instant,
    /// A read-only view: how much of the log and of its transcript is shown.
    followed: Option<Follow>,
}

impl<'a> Loop<'a> {
    /// The screens and the app, before anything is drawn.
    pub(super) fn new(
        agent: Option<Agent>,
        host: &'a dyn Host,
        options: &'a Options,
        terminal: &Terminal,
    ) -> io::Result<Loop<'a>> {
        // A pseudo-terminal nobody sized says 0×0: draw for the classic size instead.
        let (cols, rows) = match crossterm::terminal::size()? {
            (0, _) | (_, 0) => (80, 24),
            size => size,
        };
        let row = terminal.row.unwrap_or(rows.saturating_sub(1));
        let full = if options.fullscreen {
            Some(FullScreen::enter()?)
        } else {
            None
        };
        let mut app = App::new(cols, load_history(options.history.as_deref()));
        app.read_only = options.read_only.as_ref().map(|r| r.why.clone());
        let followed = match (&options.read_only, &options.resumed) {
            (Some(read_only), Some(resumed)) => Some(Follow {
                size: host.log_size(&resumed.id).unwrap_or(0),
                entries: read_only.entries,
                next: Instant::now() + FOLLOW,
            }),
            _ => None,
        };
        Ok(Loop {
            host,
            options,
            agent,
            app,
            screen: Screen::new(io::stdout(), (cols, rows), row),
            full,
            pager: None,
            pick_screen: None,
            job: None,
            listing: None,
            searching: None,
            input: EventStream::new(),
            kitty: terminal.kitty,
            metrics: Metrics::open(options.metrics.as_deref()),
            strip: Strip {
                ttl: options.ttl,
                last_request: None,
                compact_at: options.compact_at,
            },
            requests: 0,
            events_since_frame: 0,
            last_draw: Instant::now(),
            followed,
        })
    }

    /// Runs until the user leaves (or the process is told to end).
    pub(super) async fn run(mut self, typed: &str) -> io::Result<Ended> {
        self.start(typed)?;
        loop {
            if self.carry_out_effects().await? {
                return self.leave().await;
            }
            self.search_what_was_said();
            let wake = self.refresh()?;
            let terminated = self.options.terminated.clone();
            tokio::select! {
                biased;
                input = self.input.next() => match input {
                    Some(Ok(event)) => self.on_input(event)?,
                    Some(Err(e)) => return Err(e),
                    None => return self.leave().await,
                },
                envelope = recv(&mut self.agent) => self.on_envelope(envelope),
                () = notified(terminated.as_deref()) => return self.leave().await,
                done = job_done(&mut self.job) => self.on_job(done),
                read = listed(&mut self.listing) => {
                    self.listing = None;
                    session_ops::remote_read(&mut self.app, read);
                }
                found = searched(&mut self.searching) => {
                    if let Some((query, _)) = self.searching.take() {
                        session_ops::content_found(&mut self.app, &query, found);
                    }
                }
                () = sleep_until(wake.at) => self.on_tick(wake.animating),
            }
        }
    }

    /// The resumed session's tail, the first frame (before anything slow: the syntaxes load
    /// after it), then what the start asks for: recovery, a first message, the picker, and
    /// the keys typed while hotl started.
    fn start(&mut self, typed: &str) -> io::Result<()> {
        if let Some(Resumed { id, tail, hidden }) = &self.options.resumed {
            self.app.session.clone_from(id);
            self.app.saved = true;
            self.app.replay(tail.clone(), 0);
            if *hidden > 0 {
                self.app.say(
                    format!("{hidden} earlier items are in the transcript (Ctrl+T)"),
                    Tone::Info,
                );
            }
            if self.agent.is_some() {
                // Recovery runs first: the first frame already shows it running, not a quiet
                // composer that then refuses the commands typed into it.
                self.app.run(Command::Recover, "recover");
            }
        }
        self.draw()?;
        self.metrics
            .first_paint(self.options.started.elapsed(), self.options.opened);
        if let Some(first_frame) = &self.options.first_frame {
            first_frame.notify_one();
        }
        self.last_draw = Instant::now();
        crate::highlight::warm_up();
        let Some(agent) = &self.agent else {
            return Ok(());
        };
        if self.options.resumed.is_some() {
            agent.send(Command::Status);
        }
        if let Some(first) = &self.options.first {
            self.app.submit(first.clone());
        }
        if self.options.pick {
            self.pick(Pick::Sessions);
        }
        for c in typed.chars() {
            let code = match c {
                '\r' | '\n' => KeyCode::Enter,
                c if !c.is_control() => KeyCode::Char(c),
                _ => continue,
            };
            let key = crossterm::event::KeyEvent::new(code, KeyModifiers::NONE);
            self.app.key(key, Instant::now());
        }
        Ok(())
    }

    /// Carries out what the app asked for, until it asks for nothing more (a picked session is
    /// a switch to send); says whether the user leaves.
    async fn carry_out_effects(&mut self) -> io::Result<bool> {
        while let effects = self.app.take_effects()
            && !effects.is_empty()
        {
            for effect in effects {
                match effect {
                    Effect::Exit => return Ok(true),
                    Effect::Pager if self.app.saved => {
                        // The log holds everything (archived items included); what this run
                        // shows is only the end of it. It is read beside the loop.
                        if self.job.is_none() {
                            self.job = Some(Job::Pager(self.host.entries_later(&self.app.session)));
                            self.app.hint =
                                Some(("reading the transcript…".to_owned(), Instant::now()));
                        }
                    }
                    Effect::Pager => {
                        let entries = self.app.transcript.clone();
                        self.pager = Some(Pager::open(entries, self.screen.cols()));
                    }
                    Effect::Share if self.job.is_none() => {
                        self.job = Some(Job::Said(self.host.share(&self.app.session)));
                    }
                    Effect::Share => self.app.say("a share is already on its way", Tone::Info),
                    Effect::Editor => self.edit().await?,
                    other => self.apply(other)?,
                }
            }
        }
        Ok(false)
    }

    /// The composer's text in `$EDITOR`. The editor owns the terminal until it exits: no
    /// reader may take its keys, and the modes it expects are the shell's.
    async fn edit(&mut self) -> io::Result<()> {
        drop(std::mem::replace(&mut self.input, EventStream::new()));
        let edited = edit_externally(&self.app.composer.text(), self.kitty).await;
        self.input = EventStream::new();
        self.reenter()?;
        match edited {
            Ok(text) => self.app.composer.set_text(&text),
            Err(e) => self.app.say(format!("the editor failed: {e}"), Tone::Error),
        }
        self.app.dirty = true;
        Ok(())
    }

    /// Carries out an effect that needs no more than the app, the host and the agent.
    fn apply(&mut self, effect: Effect) -> io::Result<()> {
        let (app, host) = (&mut self.app, self.host);
        match effect {
            // Writing a session out, searching it and picking read its log: a read-only view
            // can do them too.
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
            Effect::Copy(text) => copy(&mut self.screen, &text)?,
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
            Effect::Pick(pick) => self.pick(pick),
            Effect::Search(query) => {
                self.pick(Pick::Sessions);
                if let Some(Modal::Pick(picker)) = self.app.modal.take() {
                    self.app.modal = Some(Modal::Pick(picker.with_filter(&query)));
                }
            }
            _ if self.agent.is_none() => app.say("read-only: nothing can be sent", Tone::Error),
            Effect::Resume(query) => session_ops::resolve(&query, app, host),
            Effect::Import { agent, query } => session_ops::import(agent, &query, app, host),
            Effect::Send(command) => {
                if let Some(agent) = &self.agent {
                    let id = agent.send(command.clone());
                    app.sent(id, &command);
                }
            }
            Effect::Editor | Effect::Exit | Effect::Pager | Effect::Share => {}
        }
        Ok(())
    }

    /// Starts searching every session's text for the open resume picker's filter, when it
    /// has one not yet searched and no search runs (the search runs beside the loop, so
    /// typing never waits for it).
    fn search_what_was_said(&mut self) {
        if self.searching.is_some() {
            return;
        }
        let Some(Modal::Pick(picker)) = &mut self.app.modal else {
            return;
        };
        let Some(query) = picker.content_query() else {
            return;
        };
        if let Some(search) = self.host.search_sessions(&query) {
            picker.searching(&query);
            self.app.dirty = true;
            self.searching = Some((query, search));
        }
    }

    /// Opens the picker `pick` asks for; the resume picker's remote tab is read beside the
    /// loop.
    fn pick(&mut self, pick: Pick) {
        let listing = match pick {
            Pick::Sessions => self.host.remote_sessions(),
            _ => None,
        };
        session_ops::pick(pick, &mut self.app, self.host, listing.is_some());
        if listing.is_some() {
            self.listing = listing;
        }
    }

    /// Brings the screens up to date (a frame when one is due) and says when to wake.
    fn refresh(&mut self) -> io::Result<Wake> {
        let asking = matches!(self.app.modal, Some(Modal::Approval { .. }));
        if asking && let Some(pager) = self.pager.take() {
            // A question needs the main screen.
            pager.close()?;
            self.reenter()?;
        }
        if let Some(status) = &self.app.status
            && status.requests != self.requests
        {
            self.requests = status.requests;
            self.strip.last_request = Some(Instant::now());
        }
        // A picker takes the alternate screen (in fullscreen it stays above the strip).
        let picking = self.full.is_none() && matches!(self.app.modal, Some(Modal::Pick(_)));
        if picking && self.pick_screen.is_none() {
            self.pick_screen = Some(PickScreen::open()?);
        } else if !picking && let Some(closed) = self.pick_screen.take() {
            closed.close()?;
            self.screen.invalidate();
            self.app.dirty = true;
        }
        let mut at = self.draw_if_due()?;
        if let Some(follow) = &self.followed {
            at = Some(at.map_or(follow.next, |w| w.min(follow.next)));
        }
        let app = &self.app;
        let animating = app.busy.is_some()
            || !app.children.is_empty()
            || !app.tools.is_empty()
            || app.hint.is_some();
        if animating && self.pager.is_none() {
            let tick = self.last_draw + TICK;
            at = Some(at.map_or(tick, |w| w.min(tick)));
        }
        Ok(Wake { at, animating })
    }

    /// Draws what changed on whichever screen is up, or says when the next frame is due.
    fn draw_if_due(&mut self) -> io::Result<Option<Instant>> {
        if let Some(pager) = &mut self.pager {
            if pager.dirty {
                pager.draw()?;
            }
            return Ok(None);
        }
        if let (Some(alt), Some(Modal::Pick(picker))) = (&mut self.pick_screen, &self.app.modal) {
            if self.app.dirty {
                alt.draw(picker)?;
                self.app.dirty = false;
            }
            return Ok(None);
        }
        if !self.app.dirty {
            return Ok(None);
        }
        let now = Instant::now();
        let due = self.last_draw + FRAME;
        if now < due {
            return Ok(Some(due));
        }
        self.draw()?;
        self.last_draw = now;
        Ok(None)
    }

    fn on_input(&mut self, event: crossterm::event::Event) -> io::Result<()> {
        let Some(pager) = &mut self.pager else {
            return handle_input(event, &mut self.app, &mut self.screen, self.full.as_mut());
        };
        match pager.input(&event) {
            pager::Outcome::Open => {}
            pager::Outcome::Closed(prefill) => {
                if let Some(pager) = self.pager.take() {
                    pager.close()?;
                }
                self.reenter()?;
                if let Some(text) = prefill {
                    self.app.composer.set_text(&text);
                }
                self.app.dirty = true;
            }
            pager::Outcome::Copy(text) => copy(&mut self.screen, &text)?,
        }
        Ok(())
    }

    /// An agent event, and what else is waiting behind it (a fast stream is one frame); `None`
    /// when the agent stopped.
    fn on_envelope(&mut self, envelope: Option<Envelope>) {
        let Some(envelope) = envelope else {
            // The agent stopped: nothing more can happen.
            self.agent = None;
            self.app.say("the agent stopped", Tone::Error);
            return;
        };
        self.take(envelope);
        for _ in 0..BATCH {
            let Some(Some(envelope)) = self.agent.as_mut().and_then(|a| a.recv().now_or_never())
            else {
                break;
            };
            self.take(envelope);
        }
    }

    /// One agent event; a switch shows the new session's tail.
    fn take(&mut self, envelope: Envelope) {
        self.events_since_frame += 1;
        let switched = match &envelope.event {
            Event::Switch { reason, to, .. }
                if envelope.child.is_none() && *reason != SwitchReason::New =>
            {
                Some(to.clone())
            }
            _ => None,
        };
        self.app.event(envelope);
        let Some(id) = switched else {
            return;
        };
        let mut entries = self.host.entries(&id);
        let start = crate::transcript::tail_start(&entries);
        let tail = entries.split_off(start);
        self.app.replay(tail, 0);
        if start > 0 {
            self.app.say(
                format!("{start} earlier entries are in the transcript (Ctrl+T)"),
                Tone::Info,
            );
        }
        if let Some(full) = &mut self.full {
            full.reflow(&mut self.app);
        }
    }

    fn on_job(&mut self, done: JobDone) {
        self.job = None;
        match done {
            JobDone::Pager(entries) => {
                self.app.hint = None;
                self.pager = Some(Pager::open(entries, self.screen.cols()));
            }
            JobDone::Said(Ok(lines)) => lines.into_iter().for_each(|l| self.app.say(l, Tone::Info)),
            JobDone::Said(Err(e)) => self.app.say(e, Tone::Error),
        }
        self.app.dirty = true;
    }

    /// Nothing happened until the wake: the spinner moves, a read-only view looks at the log
    /// (and takes the session over once its owner let it go), an old hint goes.
    fn on_tick(&mut self, animating: bool) {
        if animating {
            self.app.dirty = true;
        }
        if let Some(follow) = &mut self.followed
            && Instant::now() >= follow.next
        {
            follow.next = Instant::now() + FOLLOW;
            if follow.poll(&mut self.app, self.host)
                && let Some(opened) = self.host.open(&self.app.session)
            {
                opened.send(Command::Status);
                self.agent = Some(opened);
                self.followed = None;
                self.app.read_only = None;
                self.app.say(
                    "the other process let the session go: it is yours now",
                    Tone::Info,
                );
            }
        }
        let hint_old = |(_, at): &(String, Instant)| at.elapsed() > Duration::from_secs(3);
        if self.app.hint.as_ref().is_some_and(hint_old) {
            self.app.hint = None;
            self.app.dirty = true;
        }
    }

    /// The main screen again after something else had the terminal.
    fn reenter(&mut self) -> io::Result<()> {
        self.screen.invalidate();
        if let Some(full) = &mut self.full {
            full.reenter()?;
        }
        Ok(())
    }

    fn draw(&mut self) -> io::Result<()> {
        let start = Instant::now();
        let events = std::mem::take(&mut self.events_since_frame);
        let app = &mut self.app;
        if let Some(full) = &mut self.full {
            full.push(app.take_history_tagged());
            let (_, height) = full.size();
            let frame = ui::frame(app, start, usize::from(height / 2).max(6), &self.strip);
            let drawn = full.draw(&frame)?;
            app.dirty = false;
            self.metrics.frame(start.elapsed(), drawn, events);
            return Ok(());
        }
        let history = app.take_history();
        let screen = &mut self.screen;
        let frame = ui::frame(app, start, usize::from(screen.max_height()), &self.strip);
        let width = screen.cols();
        let drawn = screen.draw(&history, frame.rows.len() as u16, frame.cursor, |buffer| {
            for (y, row) in frame.rows.iter().enumerate() {
                buffer.set_line(0, y as u16, row, width);
            }
        })?;
        app.dirty = false;
        self.metrics.frame(start.elapsed(), drawn, events);
        Ok(())
    }

    /// Leaves: the turn finished, the terminal given back with a goodbye, the composer's
    /// history saved, the agent shut down.
    async fn leave(mut self) -> io::Result<Ended> {
        if let Some(alt) = self.pick_screen.take() {
            alt.close()?;
        }
        let app = &mut self.app;
        app.finish();
        if let Some(full) = &mut self.full {
            full.leave()?;
            // The transcript was the fullscreen's: the shell's screen gets only the goodbye.
            app.take_history();
        }
        let mut rows = app.take_history();
        let options = self.options;
        let goodbye = if options.read_only.is_some() {
            "read-only snapshot closed".to_owned()
        } else if options.ephemeral {
            "session not saved (--no-session): nothing was written".to_owned()
        } else if app.saved {
            let id = &app.session;
            let by = self.host.session_name(id).unwrap_or_else(|| id.clone());
            format!("session {id} · resume with: hotl -r {by}")
        } else {
            "nothing was saved: the session is written with its first message".to_owned()
        };
        rows.push(Line::from(Span::styled(
            goodbye,
            crate::cells::style::dim(),
        )));
        self.screen.leave(&rows)?;
        save_history(options.history.as_deref(), app.composer.history());
        if let Some(agent) = self.agent {
            agent.shutdown().await;
        }
        Ok(Ended {
            session: self.app.session,
            saved: self.app.saved,
        })
    }
}

impl Job<'_> {
    async fn done(&mut self) -> JobDone {
        match self {
            Job::Pager(entries) => JobDone::Pager(entries.await),
            Job::Said(said) => JobDone::Said(said.await),
        }
    }
}

async fn recv(agent: &mut Option<Agent>) -> Option<Envelope> {
    match agent {
        Some(agent) => agent.recv().await,
        None => std::future::pending().await,
    }
}

async fn notified(notify: Option<&tokio::sync::Notify>) {
    match notify {
        Some(notify) => notify.notified().await,
        None => std::future::pending().await,
    }
}

async fn job_done(job: &mut Option<Job<'_>>) -> JobDone {
    match job {
        Some(job) => job.done().await,
        None => std::future::pending().await,
    }
}

async fn listed(
    listing: &mut Option<Later<'_, Result<Vec<crate::picker::Row>, String>>>,
) -> Result<Vec<crate::picker::Row>, String> {
    match listing {
        Some(listing) => listing.await,
        None => std::future::pending().await,
    }
}

async fn searched(
    searching: &mut Option<(String, Rows<'_>)>,
) -> Result<Vec<crate::picker::Row>, String> {
    match searching {
        Some((_, search)) => search.await,
        None => std::future::pending().await,
    }
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at.into()).await,
        None => std::future::pending().await,
    }
}
