//! Asking the terminal where the cursor is and whether it speaks the kitty keyboard protocol,
//! in one round trip with a deadline. Terminals that never answer (a dumb pipe, some
//! multiplexers, a slow remote link) cost the deadline once and get the fallbacks: the
//! viewport starts at the bottom row, and Shift+Enter is left to the Ctrl+J fallback.
//!
//! This runs before the input reader starts, in raw mode, reading the terminal directly, so
//! the answer is never taken for typed keys.

use std::io::{self, Write};
use std::os::fd::AsFd;
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec};

/// How long the terminal gets to answer.
pub const DEADLINE: Duration = Duration::from_millis(100);

/// What the terminal said.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Answer {
    /// The cursor's row (0-based), when the terminal answered.
    pub row: Option<u16>,
    /// Whether it answered the keyboard-flags query (the kitty protocol).
    pub kitty_keys: bool,
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
            return Ok(Answer::default());
        };
        let timeout = Timespec {
            tv_sec: 0,
            tv_nsec: left.subsec_nanos().into(),
        };
        let mut fds = [PollFd::new(&fd, PollFlags::IN)];
        if rustix::event::poll(&mut fds, Some(&timeout))? == 0 {
            return Ok(Answer::default());
        }
        let n = rustix::io::read(fd, &mut buf)?;
        if n == 0 {
            return Ok(Answer::default());
        }
        got.extend_from_slice(&buf[..n]);
    }
}

/// The answer in `bytes`, once the cursor report is there: `ESC [ row ; col R`, maybe after
/// `ESC [ ? flags u`. Anything else (keys typed meanwhile) is skipped.
fn parse(bytes: &[u8]) -> Option<Answer> {
    let text = String::from_utf8_lossy(bytes);
    let kitty_keys = text.contains("\x1b[?")
        && text.split("\x1b[?").skip(1).any(|rest| {
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            rest.as_bytes().get(digits) == Some(&b'u')
        });
    for (i, _) in text.match_indices("\x1b[") {
        let rest = &text[i + 2..];
        let Some(end) = rest.find('R') else { continue };
        let Some((row, col)) = rest[..end].split_once(';') else {
            continue;
        };
        if let (Ok(row), Ok(_)) = (row.parse::<u16>(), col.parse::<u16>()) {
            return Some(Answer {
                row: Some(row.saturating_sub(1)),
                kitty_keys,
            });
        }
    }
    None
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
                kitty_keys: true
            })
        );
        assert_eq!(
            parse(b"x\x1b[3;40R"),
            Some(Answer {
                row: Some(2),
                kitty_keys: false
            })
        );
        assert_eq!(parse(b"\x1b[?1u"), None, "the report has not come yet");
        assert_eq!(parse(b"\x1b[12;"), None);
    }
}
