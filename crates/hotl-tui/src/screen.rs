//! The inline screen: a viewport of a few rows at the bottom of the terminal's own screen,
//! with finished rows pushed into the terminal's scrollback above it.
//!
//! ratatui's `Terminal` keeps an inline viewport at a fixed height; the composer, popups and
//! the live tail of an answer need it to grow and shrink, so this module owns the viewport:
//! where it starts, how tall it is, what was drawn in it last (a ratatui [`Buffer`], diffed
//! cell by cell), and how history rows get above it. Every frame is one synchronized update
//! (`ESC[?2026h` … `ESC[?2026l`), and nothing here ever erases the scrollback or the whole
//! screen: history rows are inserted through a scroll region over the rows above the
//! viewport (DECSTBM), so the terminal moves them into its scrollback as it would a shell's
//! output, and native scrolling, selection and search keep working.
//!
//! The writer is generic so that tests can feed the bytes to a terminal emulator.

use std::io::{self, Write};

use crossterm::cursor::{Hide, MoveTo, Show};
use crossterm::queue;
use crossterm::style::Print;
use crossterm::terminal::{BeginSynchronizedUpdate, Clear, ClearType, EndSynchronizedUpdate};
use ratatui::backend::{Backend, CrosstermBackend};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Widget;

/// Rows the viewport leaves above itself, so a scroll region of two rows always fits.
const ROWS_ABOVE: u16 = 2;

/// The inline viewport on a terminal.
pub struct Screen<W: Write> {
    backend: CrosstermBackend<Counting<W>>,
    cols: u16,
    rows: u16,
    /// The viewport's first row.
    top: u16,
    /// Its rows.
    height: u16,
    /// What the viewport shows now.
    shown: Buffer,
    /// The next frame redraws the whole viewport (it moved, or the screen was disturbed).
    stale: bool,
}

/// What drawing a frame cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Drawn {
    /// Bytes written to the terminal.
    pub bytes: u64,
    /// Viewport cells that changed.
    pub cells: usize,
    /// History rows inserted above the viewport.
    pub history: usize,
}

impl<W: Write> Screen<W> {
    /// A viewport starting at row `row` (where the cursor is: below what the shell printed)
    /// of a `cols`×`rows` terminal, empty until the first frame.
    pub fn new(out: W, (cols, rows): (u16, u16), row: u16) -> Screen<W> {
        Screen {
            backend: CrosstermBackend::new(Counting { out, bytes: 0 }),
            cols: cols.max(1),
            rows: rows.max(1),
            top: row.min(rows.saturating_sub(1)),
            height: 0,
            shown: Buffer::empty(Rect::new(0, 0, cols.max(1), 0)),
            stale: true,
        }
    }

    /// The terminal's width.
    pub fn cols(&self) -> u16 {
        self.cols
    }

    /// The terminal's height.
    pub fn rows(&self) -> u16 {
        self.rows
    }

    /// The tallest viewport this terminal allows.
    pub fn max_height(&self) -> u16 {
        self.rows.saturating_sub(ROWS_ABOVE).max(1)
    }

    /// The viewport's place: first row and rows.
    pub fn viewport(&self) -> (u16, u16) {
        (self.top, self.height)
    }

    /// The terminal was resized. Whatever the terminal did with the old viewport's rows
    /// (reflowed or cut them), the viewport is erased and drawn again: kept at the bottom if
    /// it was there, else where it was, within the new screen.
    pub fn resize(&mut self, (cols, rows): (u16, u16)) -> io::Result<()> {
        let (cols, rows) = (cols.max(1), rows.max(1));
        if (cols, rows) == (self.cols, self.rows) {
            return Ok(());
        }
        let at_bottom = self.top + self.height >= self.rows;
        self.cols = cols;
        self.rows = rows;
        self.height = self.height.min(self.max_height());
        self.top = if at_bottom {
            rows - self.height
        } else {
            self.top.min(rows - self.height)
        };
        self.erase_viewport()?;
        self.stale = true;
        Ok(())
    }

    /// The screen was disturbed (an editor ran, the alternate screen was left): the next
    /// frame draws everything.
    pub fn invalidate(&mut self) {
        self.stale = true;
    }

    /// Draws one frame: `history` (rows no wider than the terminal, wrapped by the caller)
    /// goes above the viewport for good, then the viewport becomes `height` rows painted by
    /// `paint`, and the cursor goes to `cursor` (viewport coordinates) or is hidden.
    pub fn draw(
        &mut self,
        history: &[Line<'static>],
        height: u16,
        cursor: Option<(u16, u16)>,
        paint: impl FnOnce(&mut Buffer),
    ) -> io::Result<Drawn> {
        let before = self.backend.writer().bytes;
        let height = height.clamp(1, self.max_height());
        queue!(self.backend.writer_mut(), BeginSynchronizedUpdate, Hide)?;
        // Shrinking first keeps the viewport's bottom where it was when the live tail of an
        // answer turns into history.
        if height < self.height {
            self.set_height(height)?;
        }
        self.insert_history(history)?;
        if height > self.height {
            self.set_height(height)?;
        }
        let area = Rect::new(0, 0, self.cols, self.height);
        let mut next = Buffer::empty(area);
        paint(&mut next);
        if crate::ui::is_monochrome() {
            crate::ui::monochrome(&mut next);
        }
        let top = self.top;
        let cells = if self.stale || self.shown.area != area {
            self.erase_viewport()?;
            let blank = Buffer::empty(area);
            let updates = blank.diff(&next);
            let n = updates.len();
            self.backend
                .draw(updates.into_iter().map(|(x, y, c)| (x, y + top, c)))?;
            n
        } else {
            let updates = self.shown.diff(&next);
            let n = updates.len();
            self.backend
                .draw(updates.into_iter().map(|(x, y, c)| (x, y + top, c)))?;
            n
        };
        self.shown = next;
        self.stale = false;
        let w = self.backend.writer_mut();
        queue!(
            w,
            crossterm::style::ResetColor,
            crossterm::style::SetAttribute(crossterm::style::Attribute::Reset)
        )?;
        if let Some((x, y)) = cursor {
            let y = y.min(self.height.saturating_sub(1));
            queue!(w, MoveTo(x.min(self.cols - 1), top + y), Show)?;
        }
        queue!(w, EndSynchronizedUpdate)?;
        w.flush()?;
        Ok(Drawn {
            bytes: self.backend.writer().bytes - before,
            cells,
            history: history.len(),
        })
    }

    /// Leaves the screen as a shell expects it: the viewport erased, `last` printed where it
    /// was (a goodbye line), and the cursor on the row after.
    pub fn leave(&mut self, last: &[Line<'static>]) -> io::Result<()> {
        queue!(self.backend.writer_mut(), BeginSynchronizedUpdate)?;
        self.erase_viewport()?;
        self.height = 0;
        self.insert_history(last)?;
        let top = self.top;
        let w = self.backend.writer_mut();
        queue!(w, MoveTo(0, top), Show, EndSynchronizedUpdate)?;
        w.flush()
    }

    /// The writer, for bytes that are not cells (an OSC 52 copy, a bell).
    pub fn writer(&mut self) -> &mut W {
        &mut self.backend.writer_mut().out
    }

    fn erase_viewport(&mut self) -> io::Result<()> {
        let top = self.top;
        queue!(
            self.backend.writer_mut(),
            MoveTo(0, top),
            Clear(ClearType::FromCursorDown)
        )
    }

    fn set_height(&mut self, height: u16) -> io::Result<()> {
        if height < self.height {
            let top = self.top;
            queue!(
                self.backend.writer_mut(),
                MoveTo(0, top + height),
                Clear(ClearType::FromCursorDown)
            )?;
        } else {
            let below = self.rows - (self.top + self.height);
            let grow = height - self.height;
            if grow > below {
                // The rows above go into the scrollback, as a shell's would.
                let scroll = grow - below;
                self.scroll_screen(scroll)?;
                self.top -= scroll;
            }
        }
        self.height = height;
        self.stale = true;
        Ok(())
    }

    /// Puts `lines` above the viewport: into the free rows below it first (the viewport moves
    /// down), then through a scroll region over the rows above it, whose top row the terminal
    /// moves into its scrollback.
    fn insert_history(&mut self, lines: &[Line<'static>]) -> io::Result<()> {
        if lines.is_empty() {
            return Ok(());
        }
        let below = usize::from(self.rows - (self.top + self.height));
        let (into_free, rest) = lines.split_at(below.min(lines.len()));
        for line in into_free {
            self.put_row(line, self.top)?;
            self.top += 1;
            self.stale = true;
        }
        if rest.is_empty() {
            return Ok(());
        }
        if self.top < ROWS_ABOVE {
            // No two rows above to scroll: scroll the whole screen and draw the viewport again.
            for line in rest {
                self.scroll_screen(1)?;
                self.put_row(line, self.top.saturating_sub(1))?;
            }
            self.stale = true;
            return Ok(());
        }
        let region_end = self.top;
        // DECSTBM: rows 1..=region_end scroll; the viewport below is left alone.
        queue!(
            self.backend.writer_mut(),
            Print(format!("\x1b[1;{region_end}r")),
            MoveTo(0, region_end - 1)
        )?;
        for line in rest {
            queue!(self.backend.writer_mut(), Print("\n"))?;
            self.put_row(line, region_end - 1)?;
            queue!(self.backend.writer_mut(), MoveTo(0, region_end - 1))?;
        }
        queue!(self.backend.writer_mut(), Print("\x1b[r"))?;
        Ok(())
    }

    /// Scrolls the whole screen up `n` rows with line feeds on its last row: the rows that
    /// leave the top go into the scrollback in every terminal (`CSI S` does not in some).
    fn scroll_screen(&mut self, n: u16) -> io::Result<()> {
        let last = self.rows - 1;
        let feeds = "\n".repeat(usize::from(n));
        queue!(self.backend.writer_mut(), MoveTo(0, last), Print(feeds))
    }

    /// Draws one history row at `row`, clearing what the line held first.
    fn put_row(&mut self, line: &Line<'static>, row: u16) -> io::Result<()> {
        queue!(
            self.backend.writer_mut(),
            MoveTo(0, row),
            Clear(ClearType::CurrentLine)
        )?;
        let area = Rect::new(0, 0, self.cols, 1);
        let mut buffer = Buffer::empty(area);
        line.render(area, &mut buffer);
        if crate::ui::is_monochrome() {
            crate::ui::monochrome(&mut buffer);
        }
        let blank = Buffer::empty(area);
        let updates = blank.diff(&buffer);
        self.backend
            .draw(updates.into_iter().map(|(x, _, c)| (x, row, c)))?;
        let w = self.backend.writer_mut();
        queue!(
            w,
            crossterm::style::ResetColor,
            crossterm::style::SetAttribute(crossterm::style::Attribute::Reset)
        )
    }
}

/// A writer that counts what goes through it.
struct Counting<W> {
    out: W,
    bytes: u64,
}

impl<W: Write> Write for Counting<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.out.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}
