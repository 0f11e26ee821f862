//! Keeping outputs small: long lines cut with a marker, large outputs moved to a blob.

use std::borrow::Cow;

use hotl_log::Blobs;

/// Outputs estimated at more tokens than this are capped: every later request carries what
/// a result shows, so it shows what is worth that (the rest is a read away, in its blob).
pub(crate) const MAX_TOKENS: usize = 2_000;
/// Outputs with more lines than this are capped.
pub(crate) const MAX_LINES: usize = 400;
/// Lines kept from the start of a capped output.
const HEAD_LINES: usize = 100;
/// Lines kept from the end of a capped output.
const TAIL_LINES: usize = 100;
/// A capped output shows at most this many characters of each line...
const CAPPED_LINE_CHARS: usize = 1_000;
/// ...and at most this many characters in its head and again in its tail (together about
/// 1,250 tokens).
const CAPPED_PART_CHARS: usize = 2_500;

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

/// `text` as is when it is small (at most [`MAX_TOKENS`] estimated tokens and [`MAX_LINES`]
/// lines); otherwise the full text goes to `blobs` and the model sees its first and last lines
/// (at most 100 each, about 600 tokens each) around a pointer line `[… N lines omitted; read
/// blob:<prefix>]`.
pub(crate) fn cap(text: &str, blobs: &Blobs) -> Capped {
    let lines: Vec<&str> = text.split_terminator('\n').collect();
    if lines.len() <= MAX_LINES && estimate_tokens(text) <= MAX_TOKENS {
        return Capped {
            text: text.to_owned(),
            blob: None,
        };
    }
    let (stored, blob) = match blobs.put(text.as_bytes()) {
        Ok(hash) => (format!("read {}", blob_ref(&hash)), Some(hash)),
        Err(e) => (format!("the full output could not be stored: {e}"), None),
    };
    let head = take_lines(lines.iter().copied(), HEAD_LINES);
    let tail_room = lines.len() - head.len();
    let mut tail = take_lines(lines.iter().rev().copied(), TAIL_LINES.min(tail_room));
    tail.reverse();
    let omitted = lines.len() - head.len() - tail.len();
    let mut out = String::new();
    for line in &head {
        out.push_str(line);
        out.push('\n');
    }
    out.push_str(&format!("[… {omitted} lines omitted; {stored}]\n"));
    for line in &tail {
        out.push_str(line);
        out.push('\n');
    }
    Capped { text: out, blob }
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
            "[… 0 lines omitted; read blob:{}]",
            &hash[..BLOB_REF_CHARS]
        )));
        assert!(c.text.len() < 2_000);
        assert_eq!(blobs.get(&hash).unwrap(), text.as_bytes());
    }
}
