//! Small text helpers every layer of hotl shares, so that a clip means the same thing in a
//! listing, a tool card, an error message and an exported page:
//!
//! - [`clip`]: at most `width` characters, the last one `…` when text was cut;
//! - [`clip_bytes`]: at most `max` bytes of text (cut at a character boundary) and `…`, for
//!   sizes that are budgets in bytes (a provider's error body);
//! - [`first_line`], [`first_nonblank_line`];
//! - [`thousands`] (`12,345`) and [`tokens`] (`12.3k`), numbers as people read them;
//! - [`Plain`], a writer that shows control characters instead of sending them to a terminal.
//!
//! It depends on nothing, never allocates more than its answer, and never panics.
//!
//! ```
//! assert_eq!(hotl_text::clip("hello world", 6), "hello…");
//! assert_eq!(hotl_text::clip("héllo", 9), "héllo");
//! assert_eq!(hotl_text::thousands(1234567), "1,234,567");
//! assert_eq!(hotl_text::tokens(12_345), "12.3k");
//! ```

#![deny(missing_docs)]

mod plain;

pub use crate::plain::Plain;

/// `text` with its control characters shown instead of sent (see [`Plain`]), for a line that
/// goes to a terminal: what a hook or a server said, a name a server chose.
///
/// ```
/// assert_eq!(hotl_text::printable("a\u{1b}]52;c;eA==\u{7}b"), "a\u{241b}]52;c;eA==\u{2407}b");
/// ```
pub fn printable(text: &str) -> String {
    let mut shown = Vec::with_capacity(text.len());
    {
        let mut out = Plain::new(&mut shown);
        // Writing to a Vec cannot fail.
        let _ = std::io::Write::write_all(&mut out, text.as_bytes());
        let _ = std::io::Write::flush(&mut out);
    }
    String::from_utf8_lossy(&shown).into_owned()
}

/// `text` as one line on a terminal: [`printable`], with line breaks and tabs shown too and
/// the characters that reorder text (bidirectional overrides and isolates) replaced, for a
/// name a server chose that must not fake a line or read backwards.
///
/// ```
/// assert_eq!(hotl_text::one_line("a\nb\u{202e}c"), "a\u{2424}b\u{fffd}c");
/// ```
pub fn one_line(text: &str) -> String {
    printable(text)
        .chars()
        .map(|c| match c {
            '\n' => '\u{2424}',
            '\r' => '\u{240d}',
            '\t' => '\u{2409}',
            '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' => {
                '\u{fffd}'
            }
            c => c,
        })
        .collect()
}

/// At most `width` characters of `text`: the first `width - 1` and `…` when it is longer.
/// A `width` of 0 gives the empty string.
pub fn clip(text: &str, width: usize) -> String {
    if width == 0 {
        return String::new();
    }
    match text.char_indices().nth(width) {
        None => text.to_owned(),
        Some(_) => {
            let end = text
                .char_indices()
                .nth(width - 1)
                .map_or(text.len(), |(i, _)| i);
            format!("{}…", &text[..end])
        }
    }
}

/// At most `max` bytes of `text`, cut at a character boundary, with `…` when cut (so the
/// answer may be up to three bytes longer than `max`).
pub fn clip_bytes(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// Drops the start of `text` so that at most `max` bytes of its end stay, cut at a character
/// boundary: what a stream's latest output keeps.
pub fn keep_tail(text: &mut String, max: usize) {
    if text.len() <= max {
        return;
    }
    let mut cut = text.len() - max;
    while !text.is_char_boundary(cut) {
        cut += 1;
    }
    text.drain(..cut);
}

/// The first line of `text` (all of it when it has one line; empty when it is empty).
pub fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

/// The first line of `text` that is not blank, trimmed.
pub fn first_nonblank_line(text: &str) -> &str {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
}

/// `n` with a comma between each group of three digits: `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A token count at a glance: `950`, `12.3k`, `1.2M`.
pub fn tokens(n: u64) -> String {
    match n {
        0..1_000 => n.to_string(),
        1_000..1_000_000 => format!("{:.1}k", n as f64 / 1e3),
        _ => format!("{:.1}M", n as f64 / 1e6),
    }
}

/// A size at a glance, in decimal units: `950 B`, `12.3 kB`, `291.6 MB`, `1.2 GB`.
///
/// ```
/// assert_eq!(hotl_text::human_bytes(291_600_000), "291.6 MB");
/// assert_eq!(hotl_text::human_bytes(950), "950 B");
/// ```
pub fn human_bytes(n: u64) -> String {
    match n {
        0..1_000 => format!("{n} B"),
        1_000..1_000_000 => format!("{:.1} kB", n as f64 / 1e3),
        1_000_000..1_000_000_000 => format!("{:.1} MB", n as f64 / 1e6),
        _ => format!("{:.1} GB", n as f64 / 1e9),
    }
}

/// `1 turn`, `2 turns`: a count and its noun, with an `s` when the count is not one.
pub fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keep_tail_keeps_whole_characters_of_the_end() {
        let mut text = "aéb".to_owned();
        keep_tail(&mut text, 2);
        assert_eq!(text, "b", "é is two bytes: it goes whole");
        let mut short = "ab".to_owned();
        keep_tail(&mut short, 8);
        assert_eq!(short, "ab");
    }

    #[test]
    fn clips_count_characters_and_keep_the_width() {
        assert_eq!(clip("", 3), "");
        assert_eq!(clip("abc", 3), "abc");
        assert_eq!(clip("abcd", 3), "ab…");
        assert_eq!(clip("日本語テキスト", 4), "日本語…");
        assert_eq!(clip("abcd", 1), "…");
        assert_eq!(clip("abcd", 0), "");
        for width in 1..10 {
            assert!(clip("a long enough line", width).chars().count() <= width);
        }
    }

    #[test]
    fn byte_clips_stop_at_a_character_boundary() {
        assert_eq!(clip_bytes("héllo", 2), "h…");
        assert_eq!(clip_bytes("hello", 5), "hello");
        assert_eq!(clip_bytes("hello", 0), "…");
    }

    #[test]
    fn lines_and_numbers() {
        assert_eq!(first_line("a\nb"), "a");
        assert_eq!(first_line(""), "");
        assert_eq!(first_nonblank_line("\n  \n  b \nc"), "b");
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(tokens(999), "999");
        assert_eq!(tokens(1_000), "1.0k");
        assert_eq!(tokens(2_500_000), "2.5M");
        assert_eq!(plural(1, "turn"), "1 turn");
        assert_eq!(plural(0, "turn"), "0 turns");
    }
}
