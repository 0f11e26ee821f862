//! Keeping outputs small: long lines cut with a marker, large outputs moved to a blob.
//!
//! Every later request carries what a result shows, so an output shows what is worth that:
//! small ones whole; a larger one its first and last lines, and from its middle the lines that
//! say something went wrong, around markers naming the line ranges left out and the blob that
//! holds every byte (`read blob:<prefix> offset=N` reads a range; recall searches it).

use std::borrow::Cow;

use hotl_log::Blobs;

/// Outputs estimated at more tokens than this are capped.
pub(crate) const MAX_TOKENS: usize = 2_000;
/// Outputs with more lines than this are capped: a test runner's 350 lines of `ok` are
/// dense in tokens (about four a line) and worth their first and last lines, its failures
/// (kept from the middle) and its summary. Every later request carries what is shown, so a
/// line shown costs its tokens again on each step that follows.
pub(crate) const MAX_LINES: usize = 120;
/// Outputs with a line longer than this are capped (`read` cuts a file's lines there too): a
/// minified file's or a JSON document's one long line is worth its start.
pub(crate) const MAX_LINE_CHARS: usize = 2_000;
/// Lines kept from the start of a capped output.
const HEAD_LINES: usize = 40;
/// Lines kept from the end of a capped output.
const TAIL_LINES: usize = 40;
/// A capped output shows at most this many characters of each line...
const CAPPED_LINE_CHARS: usize = 1_000;
/// ...and at most this many characters in its head and again in its tail (together about
/// 1,250 tokens).
const CAPPED_PART_CHARS: usize = 2_500;
/// Lines of the left-out middle kept because they say something went wrong: at most this
/// many, each cut to [`NOTABLE_LINE_CHARS`].
const NOTABLE_LINES: usize = 12;
const NOTABLE_LINE_CHARS: usize = 300;
/// What makes a middle line notable (matched case-insensitively): a failing test, an error or
/// a warning in a long build log.
const NOTABLE_WORDS: [&str; 6] = ["error", "fail", "panic", "warning", "exception", "fatal"];

/// Hex characters of a blob's hash a pointer gives (`read blob:<prefix>` resolves them): 64
/// bits, so two outputs of one home share a prefix with negligible odds, and the pointer costs
/// a few tokens instead of a 64-character hash.
pub const BLOB_REF_CHARS: usize = 16;

/// How the model is told where a blob is: `blob:<prefix>`, a path `read` takes.
pub fn blob_ref(hash: &str) -> String {
    format!("blob:{}", hash.get(..BLOB_REF_CHARS).unwrap_or(hash))
}

/// A token count for text, estimated as providers' tokenizers average on code and logs
/// (about four bytes a token); no tokenizer is loaded for it.
pub(crate) fn estimate_tokens(text: &str) -> usize {
    text.len().div_ceil(4)
}

/// `line` cut to `max` characters, with a marker saying how long it was.
pub(crate) fn cut_line(line: &str, max: usize) -> Cow<'_, str> {
    match line.char_indices().nth(max) {
        None => Cow::Borrowed(line),
        Some((end, _)) => {
            let total = line.chars().count();
            Cow::Owned(format!("{}… [line cut: {total} chars]", &line[..end]))
        }
    }
}

/// What the model sees of an output, and the blob holding all of it when it had to be cut.
#[derive(Debug)]
pub(crate) struct Capped {
    /// The text to show.
    pub(crate) text: String,
    /// The blob with the full text, when `text` is shortened.
    pub(crate) blob: Option<String>,
}

/// `text` as is when it is small (at most [`MAX_TOKENS`] estimated tokens, [`MAX_LINES`] lines
/// and no line over [`MAX_LINE_CHARS`] characters); otherwise the full text goes to `blobs` and
/// the model sees its first and last lines (at most 40 each, and at most
/// [`CAPPED_PART_CHARS`] characters each), the notable lines of its middle, and where each run
/// of lines was left out: `[… lines 41-310 of 353 omitted; read blob:<prefix>]` (the blob
/// named once, in the first).
pub(crate) fn cap(text: &str, blobs: &Blobs) -> Capped {
    let lines: Vec<&str> = text.split_terminator('\n').collect();
    let long_line = lines.iter().any(|l| l.len() > MAX_LINE_CHARS);
    if lines.len() <= MAX_LINES && estimate_tokens(text) <= MAX_TOKENS && !long_line {
        return Capped {
            text: text.to_owned(),
            blob: None,
        };
    }
    let (mut pointer, blob) = match blobs.put(text.as_bytes()) {
        Ok(hash) => (format!("read {}", blob_ref(&hash)), Some(hash)),
        Err(e) => (format!("the full output could not be stored: {e}"), None),
    };
    let head = take_lines(lines.iter().copied(), HEAD_LINES);
    let tail_room = lines.len() - head.len();
    let mut tail = take_lines(lines.iter().rev().copied(), TAIL_LINES.min(tail_room));
    tail.reverse();
    let middle = head.len()..lines.len() - tail.len();
    let mut out = String::new();
    for line in &head {
        out.push_str(line);
        out.push('\n');
    }
    // Line numbers count from 1; `next` is the first line not yet shown or marked.
    let mut next = middle.start;
    for at in notable(&lines, middle.clone()) {
        if at > next {
            out.push_str(&gap(next, at, lines.len(), &mut pointer));
        }
        out.push_str(&cut_line(lines[at], NOTABLE_LINE_CHARS));
        out.push('\n');
        next = at + 1;
    }
    if middle.end > next || !pointer.is_empty() {
        out.push_str(&gap(next, middle.end, lines.len(), &mut pointer));
    }
    for line in &tail {
        out.push_str(line);
        out.push('\n');
    }
    Capped { text: out, blob }
}

/// The marker for lines `from..to` (0-based) of `total` left out; the first marker takes the
/// pointer (later ones need not repeat it). With no line left out (a long line was cut), it
/// only points at the whole.
fn gap(from: usize, to: usize, total: usize, pointer: &mut String) -> String {
    let pointer = std::mem::take(pointer);
    let lines = match to - from {
        0 => return format!("[… the whole output: {pointer}]\n"),
        1 => format!("line {} of {total}", from + 1),
        _ => format!("lines {}-{to} of {total}", from + 1),
    };
    if pointer.is_empty() {
        format!("[… {lines} omitted]\n")
    } else {
        format!("[… {lines} omitted; {pointer}]\n")
    }
}

/// The indexes of the notable lines in `range` ([`NOTABLE_WORDS`]), at most [`NOTABLE_LINES`].
fn notable(lines: &[&str], range: std::ops::Range<usize>) -> Vec<usize> {
    range
        .filter(|&i| {
            let line = lines[i].to_ascii_lowercase();
            NOTABLE_WORDS.iter().any(|w| line.contains(w))
        })
        .take(NOTABLE_LINES)
        .collect()
}

/// Up to `max` lines from `lines`, each cut to [`CAPPED_LINE_CHARS`], stopping once
/// [`CAPPED_PART_CHARS`] characters are taken.
fn take_lines<'a>(lines: impl Iterator<Item = &'a str>, max: usize) -> Vec<Cow<'a, str>> {
    let mut out = Vec::new();
    let mut used = 0;
    for line in lines.take(max) {
        if used >= CAPPED_PART_CHARS {
            break;
        }
        let line = cut_line(line, CAPPED_LINE_CHARS.min(CAPPED_PART_CHARS - used).max(1));
        used += line.chars().count();
        out.push(line);
    }
    out
}

/// `text` as the model should see a tool's output: as it is when small, else its first and
/// last 100 lines around a pointer to the blob holding all of it (the blob's hash is
/// returned with it). Tools made outside this crate (an MCP server's) keep outputs small the
/// same way the built-in ones do.
pub fn cap_output(text: &str, blobs: &Blobs) -> (String, Option<String>) {
    let capped = cap(text, blobs);
    (capped.text, capped.blob)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_cut_on_char_boundaries_with_a_marker() {
        assert_eq!(cut_line("héllo", 10), "héllo");
        assert_eq!(cut_line("héllo", 2), "hé… [line cut: 5 chars]");
    }

    #[test]
    fn small_outputs_pass_through() {
        let dir = tempfile::tempdir().unwrap();
        let blobs = Blobs::new(dir.path().to_owned());
        let c = cap("a\nb\n", &blobs);
        assert_eq!(c.text, "a\nb\n");
        assert_eq!(c.blob, None);
    }

    #[test]
    fn one_huge_line_is_cut_and_stored() {
        let dir = tempfile::tempdir().unwrap();
        let blobs = Blobs::new(dir.path().to_owned());
        let text = "x".repeat(50_000);
        let c = cap(&text, &blobs);
        let hash = c.blob.unwrap();
        assert!(c.text.contains("[line cut: 50000 chars]"), "{}", c.text);
        assert!(c.text.contains(&format!(
            "[… the whole output: read blob:{}]",
            &hash[..BLOB_REF_CHARS]
        )));
        assert!(c.text.len() < 2_000);
        assert_eq!(blobs.get(&hash).unwrap(), text.as_bytes());
    }

    #[test]
    fn a_line_over_the_limit_caps_a_small_output() {
        let dir = tempfile::tempdir().unwrap();
        let blobs = Blobs::new(dir.path().to_owned());
        let long = "y".repeat(MAX_LINE_CHARS + 1);
        let c = cap(&format!("{long}\nend\n"), &blobs);
        assert!(c.blob.is_some());
        assert!(c.text.contains("[line cut: 2001 chars]"), "{}", c.text);
        assert!(
            c.text.contains("\nend\n[… the whole output: read blob:"),
            "{}",
            c.text
        );
        let fits = "y".repeat(MAX_LINE_CHARS);
        assert_eq!(cap(&fits, &blobs).blob, None);
    }

    /// The middle's lines that say something went wrong stay, in place, between markers
    /// naming what was left out; the blob is named once.
    #[test]
    fn notable_middle_lines_are_kept_between_markers() {
        let dir = tempfile::tempdir().unwrap();
        let blobs = Blobs::new(dir.path().to_owned());
        let mut text: String = (1..=300).map(|i| format!("ok {i}\n")).collect();
        text = text.replace("ok 150\n", "test x FAILED\n");
        let c = cap(&text, &blobs);
        let short = &c.blob.unwrap()[..BLOB_REF_CHARS];
        let lines: Vec<&str> = c.text.lines().collect();
        assert_eq!(lines[39], "ok 40");
        assert_eq!(
            lines[40],
            format!("[… lines 41-149 of 300 omitted; read blob:{short}]")
        );
        assert_eq!(lines[41], "test x FAILED");
        assert_eq!(lines[42], "[… lines 151-260 of 300 omitted]");
        assert_eq!(lines[43], "ok 261");
        assert_eq!(lines.last(), Some(&"ok 300"));
        assert_eq!(c.text.matches("blob:").count(), 1);
    }
}
