//! Wrapping styled lines to a width: at spaces where it can, inside a word only when the word
//! is wider than the line, by grapheme so that a wide character (CJK, emoji) never splits or
//! overflows. Every row a terminal shows comes out of here, so a cell's height is known before
//! it is drawn and history rows never rely on the terminal's own wrapping; [`visible`] makes
//! the text that goes into them harmless first.

use std::borrow::Cow;

use ratatui::text::{Line, Span};
use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

/// The columns `text` takes on a terminal.
pub fn width(text: &str) -> usize {
    UnicodeWidthStr::width(text)
}

/// The columns a line takes.
pub fn line_width(line: &Line<'_>) -> usize {
    line.spans.iter().map(|s| width(&s.content)).sum()
}

/// `line` wrapped to `width` columns; rows after the first start with `indent` (a list item's
/// hanging indent, a quote's bar). A width of zero is taken as one.
pub fn wrap(line: &Line<'static>, width: usize, indent: &[Span<'static>]) -> Vec<Line<'static>> {
    let width = width.max(1);
    let indent_width: usize = indent.iter().map(|s| self::width(&s.content)).sum();
    // An indent that leaves no room is dropped rather than looping forever.
    let indent: &[Span<'static>] = if indent_width + 1 > width {
        &[]
    } else {
        indent
    };
    let indent_width = if indent.is_empty() { 0 } else { indent_width };
    if line_width(line) <= width {
        return vec![line.clone()];
    }
    let mut rows = Vec::new();
    let mut row = Row::new(line, &[], 0);
    // Pieces are runs of graphemes that are all spaces or all not, each in one style.
    for span in &line.spans {
        for piece in pieces(&span.content) {
            let piece_width = self::width(piece);
            let blank = piece.chars().all(char::is_whitespace);
            if row.used + piece_width <= width {
                row.push(piece, span.style, piece_width);
                continue;
            }
            if blank {
                // Spaces at a break vanish: the next row starts with the next word.
                rows.push(row.finish());
                row = Row::new(line, indent, indent_width);
                continue;
            }
            if row.used > row.start && piece_width <= width - indent_width {
                rows.push(row.finish());
                row = Row::new(line, indent, indent_width);
                row.push(piece, span.style, piece_width);
                continue;
            }
            // A word wider than a row: broken by grapheme, filling each row.
            for grapheme in piece.graphemes(true) {
                let w = self::width(grapheme);
                if row.used + w > width && row.used > row.start {
                    rows.push(row.finish());
                    row = Row::new(line, indent, indent_width);
                }
                row.push(grapheme, span.style, w);
            }
        }
    }
    if row.used > row.start || rows.is_empty() {
        rows.push(row.finish());
    }
    rows
}

/// `line` cut to `width` columns, with `…` where it was cut.
pub fn truncate(line: &Line<'static>, width: usize) -> Line<'static> {
    if line_width(line) <= width {
        return line.clone();
    }
    let mut out = Line {
        style: line.style,
        alignment: line.alignment,
        spans: Vec::new(),
    };
    let mut used = 0;
    let room = width.saturating_sub(1);
    'spans: for span in &line.spans {
        let mut kept = String::new();
        for grapheme in span.content.graphemes(true) {
            let w = self::width(grapheme);
            if used + w > room {
                if !kept.is_empty() {
                    out.spans.push(Span::styled(kept, span.style));
                }
                break 'spans;
            }
            used += w;
            kept.push_str(grapheme);
        }
        out.spans.push(Span::styled(kept, span.style));
    }
    if width > 0 {
        out.spans.push(Span::raw("…"));
    }
    out
}

/// `text` with every control character but newline made visible, so that nothing from a
/// model or a tool can drive the terminal: C0 controls become their control pictures
/// (U+2400 + code, ESC as `␛`), DEL `␡`, C1 controls `�`; a tab becomes four spaces.
pub fn visible(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| c != '\n' && c.is_control()) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push('\n'),
            '\t' => out.push_str("    "),
            '\u{0}'..='\u{1f}' => {
                out.push(char::from_u32(0x2400 + u32::from(c)).unwrap_or('\u{FFFD}'));
            }
            '\u{7f}' => out.push('\u{2421}'),
            '\u{80}'..='\u{9f}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// The text a row shows, without its styles.
pub fn plain(line: &Line<'_>) -> String {
    line.spans.iter().map(|s| s.content.as_ref()).collect()
}

/// Wraps every line of `lines`, with no indent.
pub fn wrap_all(lines: &[Line<'static>], width: usize) -> Vec<Line<'static>> {
    lines.iter().flat_map(|l| wrap(l, width, &[])).collect()
}

/// One row being filled.
struct Row {
    line: Line<'static>,
    used: usize,
    /// The indent's width: a row holding only its indent is empty.
    start: usize,
}

impl Row {
    fn new(like: &Line<'static>, indent: &[Span<'static>], indent_width: usize) -> Row {
        Row {
            line: Line {
                style: like.style,
                alignment: like.alignment,
                spans: indent.to_vec(),
            },
            used: indent_width,
            start: indent_width,
        }
    }

    fn push(&mut self, text: &str, style: ratatui::style::Style, width: usize) {
        self.used += width;
        match self.line.spans.last_mut() {
            Some(last) if last.style == style => {
                last.content.to_mut().push_str(text);
            }
            _ => self.line.spans.push(Span::styled(text.to_owned(), style)),
        }
    }

    fn finish(self) -> Line<'static> {
        let mut line = self.line;
        // Trailing spaces would be copied with the row.
        if let Some(last) = line.spans.last_mut() {
            let trimmed = last.content.trim_end().len();
            if trimmed < last.content.len() {
                last.content.to_mut().truncate(trimmed);
            }
        }
        line
    }
}

/// `text` split into runs of whitespace and runs of anything else.
fn pieces(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        let first = rest.chars().next()?;
        let blank = first.is_whitespace();
        let end = rest
            .char_indices()
            .find(|(_, c)| c.is_whitespace() != blank)
            .map_or(rest.len(), |(i, _)| i);
        let (piece, after) = rest.split_at(end);
        rest = after;
        Some(piece)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::style::{Style, Stylize};

    fn text(lines: &[Line<'static>]) -> Vec<String> {
        lines.iter().map(plain).collect()
    }

    #[test]
    fn wraps_at_spaces_and_drops_the_space_at_the_break() {
        let line = Line::from("the quick brown fox jumps");
        assert_eq!(
            text(&wrap(&line, 10, &[])),
            ["the quick", "brown fox", "jumps"]
        );
    }

    #[test]
    fn breaks_a_word_wider_than_the_row() {
        let line = Line::from("abcdefghijkl mn");
        assert_eq!(text(&wrap(&line, 5, &[])), ["abcde", "fghij", "kl mn"]);
    }

    #[test]
    fn wide_characters_never_overflow_or_split() {
        let line = Line::from("日本語のテキスト🙂🙂");
        let rows = wrap(&line, 5, &[]);
        for row in &rows {
            assert!(line_width(row) <= 5, "{row:?}");
        }
        assert_eq!(text(&rows).concat(), "日本語のテキスト🙂🙂");
    }

    #[test]
    fn rows_after_the_first_take_the_indent() {
        let line = Line::from("- one two three four");
        let rows = wrap(&line, 9, &[Span::raw("  ")]);
        assert_eq!(text(&rows), ["- one two", "  three", "  four"]);
    }

    #[test]
    fn styles_are_kept_across_a_break() {
        let line = Line::from(vec![Span::raw("plain "), "bold words here".bold()]);
        let rows = wrap(&line, 10, &[]);
        assert_eq!(text(&rows), ["plain bold", "words here"]);
        assert_eq!(rows[1].spans[0].style, Style::new().bold());
    }

    #[test]
    fn truncates_with_an_ellipsis() {
        let line = Line::from("abcdefgh");
        assert_eq!(text(&[truncate(&line, 5)]), ["abcd…"]);
        assert_eq!(text(&[truncate(&line, 8)]), ["abcdefgh"]);
    }
}
