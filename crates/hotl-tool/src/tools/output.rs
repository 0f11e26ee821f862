//! Keeping outputs small: long lines cut with a marker, large outputs moved to a blob.
//!
//! Every later request carries what a result shows, so an output shows what is worth that:
//! small ones whole, but for long runs of passing-test lines (each shows its ends, see
//! [`passes`](super::passes)); a larger one its first and last lines, and from its middle the
//! lines that say something went wrong, around markers naming the line ranges left out and the
//! blob that holds every byte (`read blob:<prefix> offset=N` reads a range; recall searches it).

use std::borrow::Cow;

use hotl_log::Blobs;

use super::passes::{self, Shown};

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
/// What a marker is counted as against [`CAPPED_PART_CHARS`]: about its length.
const MARKER_CHARS: usize = 40;
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

/// A token count for `bytes` of text, estimated as providers' tokenizers average on code and
/// logs (about four bytes a token); no tokenizer is loaded for it.
pub(crate) fn estimate_tokens(bytes: usize) -> usize {
    bytes.div_ceil(4)
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
/// and no line over [`MAX_LINE_CHARS`] characters) and holds no long run of passing-test lines
/// ([`passes`]); otherwise the full text goes to `blobs` and the model sees each such run's
/// first and last line around a marker, and, when what is left is still not small, its first
/// and last lines (at most 40 each, and at most [`CAPPED_PART_CHARS`] characters each), the
/// notable lines of its middle, and where each run of lines was left out: `[… lines 41-310
/// of 353 omitted; read blob:<prefix>]` (the blob named once, in the first).
pub(crate) fn cap(text: &str, blobs: &Blobs) -> Capped {
    let lines: Vec<&str> = text.split_terminator('\n').collect();
    let shown = passes::collapse(&lines);
    let collapsed = shown.len() < lines.len();
    let visible = || {
        shown.iter().filter_map(|s| match s {
            Shown::Line(i) => Some(lines[*i]),
            Shown::Passed(_) => None,
        })
    };
    let long_line = visible().any(|l| l.len() > MAX_LINE_CHARS);
    let bytes: usize = visible().map(|l| l.len() + 1).sum();
    let small = shown.len() <= MAX_LINES && estimate_tokens(bytes) <= MAX_TOKENS && !long_line;
    if small && !collapsed {
        return Capped {
            text: text.to_owned(),
            blob: None,
        };
    }
    let (mut pointer, blob) = match blobs.put(text.as_bytes()) {
        Ok(hash) => (format!("read {}", blob_ref(&hash)), Some(hash)),
        Err(e) => (format!("the full output could not be stored: {e}"), None),
    };
    let total = lines.len();
    let mut out = String::new();
    if small {
        for s in &shown {
            push_shown(&mut out, s, &lines, Cow::Borrowed, &mut pointer);
        }
        return Capped { text: out, blob };
    }
    let head = take_shown(shown.iter(), &lines, HEAD_LINES);
    let tail_room = shown.len() - head.len();
    let mut tail = take_shown(shown.iter().rev(), &lines, TAIL_LINES.min(tail_room));
    tail.reverse();
    // The left-out middle, as line indexes (entries cover the lines in order).
    let middle = match (shown.get(head.len()), shown.get(shown.len() - tail.len())) {
        (Some(first), Some(after)) => first.lines().start..after.lines().start,
        (Some(first), None) => first.lines().start..total,
        _ => total..total,
    };
    for (s, line) in &head {
        push_shown(&mut out, s, &lines, |_| line.clone(), &mut pointer);
    }
    // Line numbers count from 1; `next` is the first line not yet shown or marked.
    let mut next = middle.start;
    for at in notable(&lines, middle.clone()) {
        if at > next {
            out.push_str(&gap(next, at, total, &mut pointer));
        }
        out.push_str(&cut_line(lines[at], NOTABLE_LINE_CHARS));
        out.push('\n');
        next = at + 1;
    }
    if middle.end > next || !pointer.is_empty() {
        out.push_str(&gap(next, middle.end, total, &mut pointer));
    }
    for (s, line) in &tail {
        push_shown(&mut out, s, &lines, |_| line.clone(), &mut pointer);
    }
    Capped { text: out, blob }
}

/// Adds one entry: a line as `show` gives it, or the marker for a run of passing tests.
fn push_shown<'a>(
    out: &mut String,
    shown: &Shown,
    lines: &[&'a str],
    show: impl Fn(&'a str) -> Cow<'a, str>,
    pointer: &mut String,
) {
    match shown {
        Shown::Line(i) => {
            out.push_str(&show(lines[*i]));
            out.push('\n');
        }
        Shown::Passed(r) => {
            let pointer = std::mem::take(pointer);
            let lines = format!("lines {}-{} of {}", r.start + 1, r.end, lines.len());
            out.push_str(&if pointer.is_empty() {
                format!("[… {lines}: tests that passed]\n")
            } else {
                format!("[… {lines}: tests that passed; {pointer}]\n")
            });
        }
    }
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

/// Up to `max` entries from `shown`, each line cut to [`CAPPED_LINE_CHARS`], stopping once
/// [`CAPPED_PART_CHARS`] characters are taken (a marker counts as a short line).
fn take_shown<'s, 'a>(
    shown: impl Iterator<Item = &'s Shown>,
    lines: &[&'a str],
    max: usize,
) -> Vec<(&'s Shown, Cow<'a, str>)> {
    let mut out = Vec::new();
    let mut used = 0;
    for s in shown.take(max) {
        if used >= CAPPED_PART_CHARS {
            break;
        }
        let line = match s {
            Shown::Line(i) => {
                let room = CAPPED_LINE_CHARS.min(CAPPED_PART_CHARS - used).max(1);
                let line = cut_line(lines[*i], room);
                used += line.chars().count();
                line
            }
            Shown::Passed(_) => {
                used += MARKER_CHARS;
                Cow::Borrowed("")
            }
        };
        out.push((s, line));
    }
    out
}

/// `text` as the model should see a tool's output, shortened as the module says, with the
/// hash of the blob holding all of it when it was shortened. Tools made outside this crate (an
/// MCP server's) keep outputs small the same way the built-in ones do.
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
        let mut text: String = (1..=300).map(|i| format!("step {i}\n")).collect();
        text = text.replace("step 150\n", "test x FAILED\n");
        let c = cap(&text, &blobs);
        let short = &c.blob.unwrap()[..BLOB_REF_CHARS];
        let lines: Vec<&str> = c.text.lines().collect();
        assert_eq!(lines[39], "step 40");
        assert_eq!(
            lines[40],
            format!("[… lines 41-149 of 300 omitted; read blob:{short}]")
        );
        assert_eq!(lines[41], "test x FAILED");
        assert_eq!(lines[42], "[… lines 151-260 of 300 omitted]");
        assert_eq!(lines[43], "step 261");
        assert_eq!(lines.last(), Some(&"step 300"));
        assert_eq!(c.text.matches("blob:").count(), 1);
    }

    fn test_run(n: usize) -> String {
        let mut text = format!("running {n} tests\n");
        for i in 1..=n {
            text.push_str(&format!("test parse::case_{i} ... ok\n"));
        }
        text.push_str(&format!("test result: ok. {n} passed; 0 failed\n"));
        text
    }

    /// A small output whose passing-test lines run long shows the run's ends around a marker
    /// naming the lines between and the blob holding them.
    #[test]
    fn passing_tests_of_a_small_output_become_a_marker() {
        let dir = tempfile::tempdir().unwrap();
        let blobs = Blobs::new(dir.path().to_owned());
        let text = test_run(50);
        let c = cap(&text, &blobs);
        let hash = c.blob.unwrap();
        let short = &hash[..BLOB_REF_CHARS];
        assert_eq!(
            c.text,
            format!(
                "running 50 tests\ntest parse::case_1 ... ok\n\
                 [… lines 3-50 of 52: tests that passed; read blob:{short}]\n\
                 test parse::case_50 ... ok\ntest result: ok. 50 passed; 0 failed\n"
            )
        );
        assert_eq!(blobs.get(&hash).unwrap(), text.as_bytes());
        assert_eq!(cap(&test_run(7), &blobs).text, test_run(7));
    }

    /// Over the cap, the head and tail count a run's marker as one entry and the markers
    /// name the output's own line numbers.
    #[test]
    fn a_capped_output_numbers_lines_as_the_blob_does() {
        let dir = tempfile::tempdir().unwrap();
        let blobs = Blobs::new(dir.path().to_owned());
        let mut text = test_run(30);
        text.push_str(&(1..=200).map(|i| format!("log {i}\n")).collect::<String>());
        text.push_str(&test_run(30));
        let c = cap(&text, &blobs);
        let lines: Vec<&str> = c.text.lines().collect();
        let short = &c.blob.unwrap()[..BLOB_REF_CHARS];
        assert_eq!(
            lines[2],
            format!("[… lines 3-30 of 264: tests that passed; read blob:{short}]")
        );
        assert_eq!(lines[3], "test parse::case_30 ... ok");
        assert_eq!(lines[5], "log 1");
        assert_eq!(lines[39], "log 35");
        assert_eq!(lines[40], "[… lines 68-197 of 264 omitted]");
        assert_eq!(lines[41], "log 166");
        assert_eq!(lines.last(), Some(&"test result: ok. 30 passed; 0 failed"));
        assert!(
            c.text
                .contains("\n[… lines 235-262 of 264: tests that passed]\n")
        );
        assert_eq!(c.text.matches("blob:").count(), 1);
    }
}
