//! An answer as it streams: text deltas in, finished markdown blocks out.
//!
//! A block is finished at a blank line outside a code fence, at a fence's closing line, at
//! every line inside a fence (code lines do not change once complete), and after
//! [`MAX_BLOCK_LINES`] lines without one of those. Where the blocks end depends only on the
//! text, never on how it was cut into deltas, so the rows committed to the scrollback are the
//! same for any split of the same answer (property-tested). The unfinished rest is the live
//! tail the viewport shows, rendered again each frame it changes.

use ratatui::text::Line;

/// A block this long is committed even without a blank line, so the live tail stays small.
pub const MAX_BLOCK_LINES: usize = 40;

/// The answer being streamed.
#[derive(Debug, Default)]
pub struct Stream {
    text: String,
    /// Where the uncommitted text starts.
    committed: usize,
    /// Where the next complete line starts (everything before it was scanned).
    scanned: usize,
    /// The open fence's marker (```` ``` ```` or `~~~`, with its length), when inside one.
    fence: Option<String>,
    /// The open fence's opening line, so each code line renders highlighted as code.
    fence_open: String,
    /// Complete lines in the current block.
    block_lines: usize,
    /// A block was given out: the next one is set apart by a [`Piece::Gap`].
    gap_due: bool,
}

/// A finished piece of the answer, ready to render.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    /// Markdown blocks, ending at a blank line (or the block limit).
    Markdown(String),
    /// One line of code inside a fence in `lang`.
    Code {
        /// The fence's info string.
        lang: String,
        /// The line, without its newline.
        line: String,
    },
    /// A fence's opening or closing line: nothing to show.
    Fence,
    /// A blank row between two blocks (nothing trails the last one, as when the whole answer
    /// is drawn at once).
    Gap,
}

impl Stream {
    /// A new, empty stream.
    pub fn new() -> Stream {
        Stream::default()
    }

    /// Takes a delta; returns the pieces it finished.
    pub fn push(&mut self, delta: &str) -> Vec<Piece> {
        self.text.push_str(delta);
        let mut pieces = Vec::new();
        while let Some(end) = self.text[self.scanned..].find('\n') {
            let line_start = self.scanned;
            let line_end = self.scanned + end;
            self.scanned = line_end + 1;
            let line = self.text[line_start..line_end]
                .trim_end_matches('\r')
                .to_owned();
            self.line(line_start, &line, &mut pieces);
        }
        pieces
    }

    /// The stream ended: whatever is left, as the last pieces.
    pub fn finish(&mut self) -> Vec<Piece> {
        let mut pieces = Vec::new();
        if !self.text[self.scanned..].is_empty() {
            self.push("\n").into_iter().for_each(|p| pieces.push(p));
        }
        if self.fence.is_some() {
            // An unclosed fence: its lines were committed as they came.
            self.fence = None;
            self.committed = self.text.len();
        }
        let rest = self.text[self.committed..].trim_end().to_owned();
        self.markdown(rest, &mut pieces);
        self.committed = self.text.len();
        self.scanned = self.text.len();
        self.block_lines = 0;
        pieces
    }

    /// The uncommitted text (the live tail), and the fence it is inside, if any.
    pub fn tail(&self) -> (&str, Option<&str>) {
        let tail = &self.text[self.committed..];
        (tail, self.fence.as_ref().map(|_| self.fence_open.as_str()))
    }

    /// The part of the answer already committed (finished blocks).
    pub fn committed_text(&self) -> &str {
        &self.text[..self.committed]
    }

    /// The whole answer so far.
    pub fn text(&self) -> &str {
        &self.text
    }

    fn line(&mut self, start: usize, line: &str, pieces: &mut Vec<Piece>) {
        let end = self.scanned;
        if let Some(marker) = &self.fence {
            if is_fence_close(line, marker) {
                self.fence = None;
                pieces.push(Piece::Fence);
                self.gap_due = true;
            } else {
                pieces.push(Piece::Code {
                    lang: info(&self.fence_open),
                    line: line.to_owned(),
                });
            }
            self.committed = end;
            return;
        }
        if let Some(marker) = fence_open(line) {
            // The text before the fence is a block of its own.
            let before = self.text[self.committed..start].trim_end().to_owned();
            self.markdown(before, pieces);
            if std::mem::take(&mut self.gap_due) {
                pieces.push(Piece::Gap);
            }
            self.fence = Some(marker);
            self.fence_open = line.trim_start().to_owned();
            pieces.push(Piece::Fence);
            self.committed = end;
            self.block_lines = 0;
            return;
        }
        self.block_lines += 1;
        if line.trim().is_empty() || self.block_lines >= MAX_BLOCK_LINES {
            let block = self.text[self.committed..end].trim_end().to_owned();
            self.markdown(block, pieces);
            self.committed = end;
            self.block_lines = 0;
        }
    }

    /// Gives out a finished markdown block (none when it is blank), set apart from the one
    /// before.
    fn markdown(&mut self, block: String, pieces: &mut Vec<Piece>) {
        if block.is_empty() {
            return;
        }
        if self.gap_due {
            pieces.push(Piece::Gap);
        }
        pieces.push(Piece::Markdown(block));
        self.gap_due = true;
    }
}

/// The marker of a fence opened by `line` (three or more backticks or tildes, indented at
/// most three spaces).
fn fence_open(line: &str) -> Option<String> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let ch = rest.chars().next()?;
    if ch != '`' && ch != '~' {
        return None;
    }
    let run = rest.chars().take_while(|&c| c == ch).count();
    if run < 3 {
        return None;
    }
    // A backtick fence's info string holds no backtick.
    if ch == '`' && rest[run..].contains('`') {
        return None;
    }
    Some(rest[..run].to_owned())
}

fn is_fence_close(line: &str, marker: &str) -> bool {
    let trimmed = line.trim();
    let ch = marker.chars().next().unwrap_or('`');
    trimmed.len() >= marker.len() && trimmed.chars().all(|c| c == ch)
}

fn info(open: &str) -> String {
    open.trim_start_matches(['`', '~'])
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_owned()
}

/// Renders finished pieces into rows at `width`.
pub fn render(pieces: &[Piece], width: usize) -> Vec<Line<'static>> {
    let mut rows = Vec::new();
    let mut code: Option<(String, Vec<String>)> = None;
    let flush_code = |code: &mut Option<(String, Vec<String>)>, rows: &mut Vec<Line<'static>>| {
        if let Some((lang, lines)) = code.take() {
            rows.extend(crate::highlight::code_rows(&lang, &lines.join("\n"), width));
        }
    };
    for piece in pieces {
        match piece {
            Piece::Markdown(text) => {
                flush_code(&mut code, &mut rows);
                rows.extend(crate::markdown::render(text, width));
            }
            Piece::Code { lang, line } => match &mut code {
                Some((l, lines)) if l == lang => lines.push(line.clone()),
                _ => {
                    flush_code(&mut code, &mut rows);
                    code = Some((lang.clone(), vec![line.clone()]));
                }
            },
            Piece::Fence => flush_code(&mut code, &mut rows),
            Piece::Gap => {
                flush_code(&mut code, &mut rows);
                rows.push(Line::default());
            }
        }
    }
    flush_code(&mut code, &mut rows);
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn all(text: &str, cuts: &[usize]) -> Vec<Piece> {
        let mut stream = Stream::new();
        let mut pieces = Vec::new();
        let mut at = 0;
        for &cut in cuts {
            let cut = cut.clamp(at, text.len());
            if !text.is_char_boundary(cut) {
                continue;
            }
            pieces.extend(stream.push(&text[at..cut]));
            at = cut;
        }
        pieces.extend(stream.push(&text[at..]));
        pieces.extend(stream.finish());
        pieces
    }

    #[test]
    fn blocks_end_at_blank_lines_and_code_at_each_line() {
        let mut stream = Stream::new();
        assert_eq!(stream.push("Hello **wor"), vec![]);
        assert_eq!(stream.push("ld**\nsecond line\n"), vec![]);
        assert_eq!(stream.tail().0, "Hello **world**\nsecond line\n");
        assert_eq!(
            stream.push("\n```rust\nfn main() {}\n"),
            vec![
                Piece::Markdown("Hello **world**\nsecond line".into()),
                Piece::Gap,
                Piece::Fence,
                Piece::Code {
                    lang: "rust".into(),
                    line: "fn main() {}".into()
                }
            ]
        );
        assert_eq!(stream.tail(), ("", Some("```rust")));
        assert_eq!(stream.push("```\ndone"), vec![Piece::Fence]);
        assert_eq!(
            stream.finish(),
            vec![Piece::Gap, Piece::Markdown("done".into())]
        );
    }

    #[test]
    fn a_long_block_is_committed_at_the_limit() {
        let text: String = (0..MAX_BLOCK_LINES + 5)
            .map(|i| format!("- item {i}\n"))
            .collect();
        let mut stream = Stream::new();
        let pieces = stream.push(&text);
        assert_eq!(pieces.len(), 1);
        assert_eq!(stream.tail().0.lines().count(), 5);
    }

    proptest! {
        #[test]
        fn any_split_commits_the_same_pieces(
            text in "([a-z *`#>-]{0,12}\n){0,30}(```[a-z]{0,4}\n([a-z ]{0,8}\n){0,5}```\n)?[a-z ]{0,10}",
            cuts in proptest::collection::vec(0usize..400, 0..20),
        ) {
            let mut cuts = cuts;
            cuts.sort_unstable();
            let whole = all(&text, &[]);
            prop_assert_eq!(all(&text, &cuts), whole);
        }
    }
}
