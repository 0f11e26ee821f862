//! A terminal a test types into and reads back, as a person would: hotl runs on a
//! pseudo-terminal (script(1)), every byte it writes goes through a terminal emulator with
//! scrollback (vt100) as it arrives, and the test's steps wait for what the screen shows, never
//! for a number of milliseconds.

use std::io::{Read, Write};
use std::num::NonZeroU16;
use std::process::{Child, Command, ExitStatus};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use hotl_testkit::TestResult;

/// How long a step may wait for the screen before the test fails showing it: far beyond what
/// any step takes, only so a hang fails instead of stalling the suite.
const PATIENCE: Duration = Duration::from_secs(60);

/// What the status strip's live line says while a turn or a command runs.
const BUSY: &str = "Esc to interrupt";

/// One thing a test does at the terminal.
#[derive(Clone, Copy, Debug)]
pub enum Step<'a> {
    /// Types these bytes (`\r` is Enter, `\x1b` Esc, `\x03` Ctrl+C, `\x14` Ctrl+T).
    Type(&'a str),
    /// Waits until the visible screen (the alternate one while it is up) shows this text.
    Shows(&'a str),
    /// Waits until nothing runs: the strip's live line is gone. Meant after a step that saw
    /// what was asked for begin (its answer, its card).
    Idle,
}

/// What the terminal holds.
struct Term {
    parser: vt100::Parser,
    bytes: Vec<u8>,
    /// The program's side of the terminal closed: it exited.
    closed: bool,
}

impl Term {
    /// Every row: the scrollback's, then the screen's.
    fn rows(&mut self, cols: u16) -> Vec<String> {
        let len = self.parser.screen().scrollback_len();
        let mut rows = Vec::with_capacity(len + 64);
        for offset in (1..=len).rev() {
            self.parser.screen_mut().set_scrollback(offset);
            rows.push(
                self.parser
                    .screen()
                    .rows(0, cols)
                    .next()
                    .unwrap_or_default(),
            );
        }
        self.parser.screen_mut().set_scrollback(0);
        rows.extend(self.parser.screen().rows(0, cols));
        rows
    }

    fn visible(&self) -> String {
        self.parser.screen().contents()
    }

    /// The rows that scrolled off the screen after the scrollback held `since` of them: text
    /// that was shown and scrolled away between two reads is still what a person saw.
    fn scrolled_since(&mut self, since: usize, cols: u16) -> String {
        let len = self.parser.screen().scrollback_len();
        let mut text = String::new();
        for offset in (1..=len.saturating_sub(since)).rev() {
            self.parser.screen_mut().set_scrollback(offset);
            text.extend(self.parser.screen().rows(0, cols).next());
            text.push('\n');
        }
        self.parser.screen_mut().set_scrollback(0);
        text
    }

    /// Whether `step` came to pass; `since` is how many rows the scrollback held when it began.
    fn done(&mut self, step: Step<'_>, since: usize, cols: u16) -> bool {
        match step {
            Step::Type(_) => true,
            Step::Shows(text) => {
                self.visible().contains(text) || self.scrolled_since(since, cols).contains(text)
            }
            Step::Idle => !self.visible().contains(BUSY),
        }
    }
}

/// The terminal and the signal that it changed.
struct Shared {
    term: Mutex<Term>,
    changed: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Term> {
        self.term
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// What the terminal showed, and how the program ended.
pub struct Shown {
    /// Every row: the scrollback's, then the screen's.
    pub rows: Vec<String>,
    /// The raw bytes the program wrote.
    pub bytes: String,
    pub code: i32,
}

/// Runs `cmd` (a `script(1)` command whose terminal is `cols`×`rows`), taking `steps` in order,
/// then waits for it to exit.
pub fn drive(mut cmd: Command, size: (u16, u16), steps: &[Step<'_>]) -> TestResult<Shown> {
    let (cols, rows) = size;
    let mut child = cmd.spawn()?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let shared = Arc::new(Shared {
        term: Mutex::new(Term {
            parser: vt100::Parser::new(
                NonZeroU16::new(rows).ok_or("rows")?,
                NonZeroU16::new(cols).ok_or("cols")?,
                100_000,
            ),
            bytes: Vec::new(),
            closed: false,
        }),
        changed: Condvar::new(),
    });
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let reader = std::thread::spawn({
        let shared = Arc::clone(&shared);
        move || read_into(stdout, &shared)
    });
    // Read stderr while the steps run: a full pipe would stop the program.
    let mut stderr = child.stderr.take().ok_or("no stderr")?;
    let errors = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = stderr.read_to_end(&mut bytes);
        bytes
    });
    for step in steps {
        if let Step::Type(text) = step {
            stdin.write_all(text.as_bytes())?;
            stdin.flush()?;
        } else if let Err(e) = {
            let since = shared.lock().parser.screen().scrollback_len();
            wait(&shared, |term| term.done(*step, since, cols))
        } {
            return Err(failed(&mut child, &shared, cols, &format!("{step:?}: {e}")));
        }
    }
    if let Err(e) = wait(&shared, |term| term.closed) {
        return Err(failed(&mut child, &shared, cols, &format!("exit: {e}")));
    }
    drop(stdin);
    let status: ExitStatus = child.wait()?;
    reader.join().map_err(|_| "the reader panicked")?;
    let stderr = errors.join().map_err(|_| "the stderr reader panicked")?;
    let mut term = shared.lock();
    if status.code() != Some(0) && !stderr.is_empty() {
        eprintln!("stderr: {}", String::from_utf8_lossy(&stderr));
    }
    Ok(Shown {
        rows: term.rows(cols),
        bytes: String::from_utf8_lossy(&term.bytes).into_owned(),
        code: status.code().unwrap_or(-1),
    })
}

/// Feeds what the program writes to the terminal, telling the steps at every read.
fn read_into(mut stdout: impl Read, shared: &Shared) {
    let mut buffer = vec![0; 1 << 16];
    loop {
        let n = stdout.read(&mut buffer).unwrap_or(0);
        let mut term = shared.lock();
        if n == 0 {
            term.closed = true;
            shared.changed.notify_all();
            return;
        }
        term.parser.process(&buffer[..n]);
        term.bytes.extend_from_slice(&buffer[..n]);
        shared.changed.notify_all();
    }
}

/// Waits until `done` holds of the terminal, looking again at each change.
fn wait(shared: &Shared, mut done: impl FnMut(&mut Term) -> bool) -> Result<(), String> {
    let deadline = Instant::now() + PATIENCE;
    let mut term = shared.lock();
    loop {
        if done(&mut term) {
            return Ok(());
        }
        if term.closed {
            return Err("the program exited first".to_owned());
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(format!("not seen in {}s", PATIENCE.as_secs()));
        }
        term = shared
            .changed
            .wait_timeout(term, left)
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .0;
    }
}

/// The error of a step that never came to pass, with the screen as it was; the program is
/// stopped.
fn failed(child: &mut Child, shared: &Shared, cols: u16, why: &str) -> Box<dyn std::error::Error> {
    let _ = child.kill();
    let screen = shared.lock().rows(cols).join("\n");
    format!("{why}\n--- the terminal ---\n{screen}").into()
}
