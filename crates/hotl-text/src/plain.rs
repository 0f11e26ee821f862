//! Output that cannot drive the terminal. What hotl prints from a log or a model (titles, tool
//! output, answers, an imported session) may hold control sequences: an OSC that sets the
//! window title or writes the clipboard (OSC 52), `ESC[2J` that clears the screen. [`Plain`]
//! passes text, tabs, newlines and carriage returns, and shows every other control character as
//! a visible symbol (`ESC` as `␛`), so nothing printed is executed.

use std::io::{self, Write};

/// A writer that shows control characters instead of sending them.
pub struct Plain<W: Write> {
    inner: W,
    /// The first byte of a two-byte UTF-8 character was the last byte written (`0xC2`, which
    /// starts the C1 controls), so the next byte decides what it was.
    pending_c2: bool,
}

impl<W: Write> Plain<W> {
    /// Writes to `inner`, control characters shown.
    pub fn new(inner: W) -> Plain<W> {
        Plain {
            inner,
            pending_c2: false,
        }
    }
}

/// What a control byte is shown as: the Unicode "control pictures" (`␀`..`␟`, `␡`).
fn picture(byte: u8) -> char {
    match byte {
        0x7f => '\u{2421}',
        b => char::from_u32(0x2400 + u32::from(b)).unwrap_or('\u{FFFD}'),
    }
}

impl<W: Write> Write for Plain<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut out = Vec::with_capacity(buf.len());
        let mut bytes = buf.iter().copied().peekable();
        if std::mem::take(&mut self.pending_c2) {
            match bytes.peek() {
                // A C1 control (U+0080..U+009F): CSI and OSC without an ESC.
                Some(0x80..=0x9f) => {
                    bytes.next();
                    out.extend_from_slice("\u{FFFD}".as_bytes());
                }
                _ => out.push(0xc2),
            }
        }
        while let Some(byte) = bytes.next() {
            match byte {
                b'\n' | b'\t' | b'\r' => out.push(byte),
                0x00..=0x1f | 0x7f => {
                    let mut utf8 = [0; 4];
                    out.extend_from_slice(picture(byte).encode_utf8(&mut utf8).as_bytes());
                }
                0xc2 => match bytes.peek() {
                    Some(0x80..=0x9f) => {
                        bytes.next();
                        out.extend_from_slice("\u{FFFD}".as_bytes());
                    }
                    Some(_) => out.push(byte),
                    None => self.pending_c2 = true,
                },
                _ => out.push(byte),
            }
        }
        self.inner.write_all(&out)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if std::mem::take(&mut self.pending_c2) {
            self.inner.write_all(&[0xc2])?;
        }
        self.inner.flush()
    }
}

impl<W: Write> Drop for Plain<W> {
    fn drop(&mut self) {
        // A flush error here has nowhere to go; the caller flushed what mattered.
        let _ = self.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(pieces: &[&[u8]]) -> String {
        let mut out = Vec::new();
        {
            let mut w = Plain::new(&mut out);
            for piece in pieces {
                w.write_all(piece).unwrap();
            }
        }
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn control_sequences_are_shown_not_sent() {
        assert_eq!(
            plain(&[b"title\x1b]0;pwned\x07 clear\x1b[2J ok\n"]),
            "title\u{241b}]0;pwned\u{2407} clear\u{241b}[2J ok\n"
        );
        assert_eq!(plain(&[b"a\tb\r\nc"]), "a\tb\r\nc");
        // C1 CSI (U+009B) and OSC (U+009D), also split across writes.
        assert_eq!(plain(&["x\u{9b}2J".as_bytes()]), "x\u{FFFD}2J");
        assert_eq!(plain(&[b"x\xc2", b"\x9d52;c;AAAA"]), "x\u{FFFD}52;c;AAAA");
        // Other characters that start with 0xC2 pass.
        assert_eq!(plain(&["é £ ©".as_bytes()]), "é £ ©");
        assert_eq!(plain(&[b"\xc2", "\u{a9}".as_bytes()[1..].as_ref()]), "©");
    }
}
