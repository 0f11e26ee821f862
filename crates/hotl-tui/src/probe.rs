//! Asking the terminal where the cursor is and whether it speaks the kitty keyboard protocol,
//! in one round trip with a deadline. Terminals that never answer (a dumb pipe, some
//! multiplexers, a slow remote link) cost the deadline once and get the fallbacks: the
//! viewport starts at the bottom row, and Shift+Enter is left to the Ctrl+J fallback.
//!
//! This runs before the input reader starts, in raw mode, reading the terminal directly, so
//! the answer is never taken for typed keys; keys typed meanwhile (while hotl starts) are kept
//! and handed on.

use std::io::{self, Write};
use std::os::fd::AsFd;
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec};

/// How long the terminal gets to answer.
pub const DEADLINE: Duration = Duration::from_millis(100);

/// What the terminal said.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Answer {
    /// The cursor's row (0-based), when the terminal answered.
    pub row: Option<u16>,
    /// Whether it answered the keyboard-flags query (the kitty protocol).
    pub kitty_keys: bool,
    /// What was typed while hotl started, the answers taken out.
    pub typed: String,
}

/// Asks, waiting at most [`DEADLINE`]. The terminal must be in raw mode.
pub fn ask() -> io::Result<Answer> {
    let mut out = io::stdout();
    // `CSI ? u` first: a terminal that knows it answers before the cursor report, which every
    // terminal answers, so the report ends the wait either way.
    out.write_all(b"\x1b[?u\x1b[6n")?;
    out.flush()?;
    let stdin = io::stdin();
    let fd = stdin.as_fd();
    let start = Instant::now();
    let mut got = Vec::new();
    let mut buf = [0u8; 256];
    loop {
        if let Some(answer) = parse(&got) {
            return Ok(answer);
        }
        let Some(left) = DEADLINE.checked_sub(start.elapsed()) else {
            return Ok(unanswered(&got));
        };
        let timeout = Timespec {
            tv_sec: 0,
            tv_nsec: left.subsec_nanos().into(),
        };
        let mut fds = [PollFd::new(&fd, PollFlags::IN)];
        if rustix::event::poll(&mut fds, Some(&timeout))? == 0 {
            return Ok(unanswered(&got));
        }
        let n = rustix::io::read(fd, &mut buf)?;
        if n == 0 {
            return Ok(unanswered(&got));
        }
        got.extend_from_slice(&buf[..n]);
    }
}

/// No cursor report came: whatever arrived was typed.
fn unanswered(bytes: &[u8]) -> Answer {
    let (typed, _, _) = split(&String::from_utf8_lossy(bytes));
    Answer {
        typed,
        ..Answer::default()
    }
}

/// The answer in `bytes`, once the cursor report is there: `ESC [ row ; col R`, maybe after
/// `ESC [ ? flags u`; the rest is what was typed meanwhile.
fn parse(bytes: &[u8]) -> Option<Answer> {
    let (typed, kitty_keys, row) = split(&String::from_utf8_lossy(bytes));
    Some(Answer {
        row: Some(row?),
        kitty_keys,
        typed,
    })
}

/// `text` with the terminal's answers taken out, whether it gave the keyboard flags, and the
/// cursor's row (0-based) from its report.
fn split(text: &str) -> (String, bool, Option<u16>) {
    let mut typed = String::new();
    let mut kitty = false;
    let mut row = None;
    let mut rest = text;
    while let Some(at) = rest.find("\x1b[") {
        typed.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        if let Some(flags) = after.strip_prefix('?') {
            let digits = flags.bytes().take_while(u8::is_ascii_digit).count();
            if flags.as_bytes().get(digits) == Some(&b'u') {
                kitty = true;
                rest = &flags[digits + 1..];
                continue;
            }
        }
        let numbers = after
            .bytes()
            .take_while(|b| b.is_ascii_digit() || *b == b';')
            .count();
        if after.as_bytes().get(numbers) == Some(&b'R')
            && let Some((r, c)) = after[..numbers].split_once(';')
            && let (Ok(r), Ok(_)) = (r.parse::<u16>(), c.parse::<u16>())
        {
            row = row.or(Some(r.saturating_sub(1)));
            rest = &after[numbers + 1..];
            continue;
        }
        // Some other sequence (an arrow key, say): dropped, as a key that moved nothing yet.
        let end = after
            .bytes()
            .position(|b| (0x40..=0x7e).contains(&b))
            .map_or(after.len(), |i| i + 1);
        rest = &after[end..];
    }
    typed.push_str(rest);
    (typed, kitty, row)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_cursor_report_and_the_keyboard_flags() {
        assert_eq!(
            parse(b"\x1b[?0u\x1b[12;1R"),
            Some(Answer {
                row: Some(11),
                kitty_keys: true,
                typed: String::new(),
            })
        );
        assert_eq!(parse(b"\x1b[?1u"), None, "the report has not come yet");
        assert_eq!(parse(b"\x1b[12;"), None);
    }

    #[test]
    fn keys_typed_while_starting_are_kept() {
        assert_eq!(
            parse(b"fix\x1b[3;40Rthe bug\r"),
            Some(Answer {
                row: Some(2),
                kitty_keys: false,
                typed: "fixthe bug\r".into(),
            })
        );
        assert_eq!(unanswered(b"hello\r").typed, "hello\r");
        assert_eq!(
            unanswered(b"a\x1b[Ab").typed,
            "ab",
            "an arrow key is dropped"
        );
    }
}
