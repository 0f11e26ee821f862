//! Patches between two manifests, in git's format so people, `git apply` and `patch -p1` can
//! read them: a `diff --git a/<path> b/<path>` line per changed file; `new file mode`,
//! `deleted file mode` and `old mode`/`new mode` lines; then a unified diff with three lines of
//! context (`/dev/null` for the missing side), or `Binary files a/<path> and b/<path> differ`
//! when either side is not text (not UTF-8, or holds a NUL) or was too large to store. A link's
//! content is its target. A changed link, and a file that becomes a link or back, is a deletion
//! and an addition: GNU `patch` and `git apply` both recreate it so.

use std::io::Write;
use std::time::Duration;

use hotl_log::Blobs;
use similar::TextDiff;

use super::manifest::{Content, Entry, Mode};

/// How long one file's line diff may search for the shortest edit before settling for a longer
/// (still correct) one.
const DIFF_TIMEOUT: Duration = Duration::from_millis(500);

/// The patch from the tree listed in `old` to the one in `new` (both sorted by path), or `None`
/// when a stored content is missing.
pub(super) fn render(blobs: &Blobs, old: &[Entry], new: &[Entry]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    for (a, b) in changes(old, new) {
        match (a, b) {
            // A link's change is a deletion and an addition: `patch` learns that a path is a
            // link only from a mode line, and a changed file has none (git's `index` line would
            // carry it, but that needs git's object ids).
            (Some(a), Some(b)) if a.mode == Mode::Link || b.mode == Mode::Link => {
                file(blobs, &mut out, Some(a), None)?;
                file(blobs, &mut out, None, Some(b))?;
            }
            (a, b) => file(blobs, &mut out, a, b)?,
        }
    }
    Some(out)
}

/// The paths that differ between the tree listed in `old` and the one in `new` (both sorted by
/// path): added, deleted or changed, in path order.
pub(super) fn changed_paths(old: &[Entry], new: &[Entry]) -> Vec<String> {
    changes(old, new)
        .into_iter()
        .filter_map(|(a, b)| a.or(b).map(|e| e.path.clone()))
        .collect()
}

/// The entries that differ, paired by path: `(old, new)`, `None` on the side that lacks it.
fn changes<'a>(old: &'a [Entry], new: &'a [Entry]) -> Vec<(Option<&'a Entry>, Option<&'a Entry>)> {
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < old.len() || j < new.len() {
        let (a, b) = match (old.get(i), new.get(j)) {
            (Some(a), Some(b)) if a.path == b.path => (Some(a), Some(b)),
            (Some(a), Some(b)) if a.path < b.path => (Some(a), None),
            (Some(_), Some(b)) => (None, Some(b)),
            (a, b) => (a, b),
        };
        i += usize::from(a.is_some());
        j += usize::from(b.is_some());
        match (a, b) {
            (Some(a), Some(b)) if a.mode == b.mode && a.content == b.content => {}
            pair => out.push(pair),
        }
    }
    out
}

/// A file's side of a diff.
enum Side {
    Text(String),
    Binary,
}

impl Side {
    /// The entry's content as text, `Binary`, or `None` when its blob is missing.
    fn of(blobs: &Blobs, entry: &Entry) -> Option<Side> {
        Some(match &entry.content {
            Content::Target(target) => Side::Text(target.clone()),
            Content::Hash(_) => Side::Binary,
            Content::Blob(hash) => {
                let bytes = blobs.get(hash).ok()?;
                match String::from_utf8(bytes) {
                    Ok(text) if !text.contains('\0') => Side::Text(text),
                    _ => Side::Binary,
                }
            }
        })
    }
}

/// One file's part of the patch: added (`a` is `None`), deleted (`b` is `None`) or changed.
fn file(blobs: &Blobs, out: &mut Vec<u8>, a: Option<&Entry>, b: Option<&Entry>) -> Option<()> {
    let path = &a.or(b)?.path;
    let (name_a, name_b) = (quote("a/", path), quote("b/", path));
    writeln!(out, "diff --git {name_a} {name_b}").ok()?;
    match (a, b) {
        (None, Some(b)) => writeln!(out, "new file mode {}", b.mode.as_str()).ok()?,
        (Some(a), None) => writeln!(out, "deleted file mode {}", a.mode.as_str()).ok()?,
        (Some(a), Some(b)) if a.mode != b.mode => {
            writeln!(out, "old mode {}", a.mode.as_str()).ok()?;
            writeln!(out, "new mode {}", b.mode.as_str()).ok()?;
        }
        _ => {}
    }
    if let (Some(a), Some(b)) = (a, b)
        && a.content == b.content
    {
        return Some(());
    }
    let side = |e: Option<&Entry>| e.map(|e| Side::of(blobs, e).ok_or(())).transpose();
    let (old, new) = (side(a).ok()?, side(b).ok()?);
    let label_a = if a.is_some() {
        name_a
    } else {
        "/dev/null".into()
    };
    let label_b = if b.is_some() {
        name_b
    } else {
        "/dev/null".into()
    };
    let (Some(old), Some(new)) = (text(&old), text(&new)) else {
        writeln!(out, "Binary files {label_a} and {label_b} differ").ok()?;
        return Some(());
    };
    if old == new {
        // An empty file added or deleted: the mode line says it all, as in git.
        return Some(());
    }
    // git ends a name holding a space with a tab, so `patch` knows where it stops.
    let tab = |label: &str| if label.contains(' ') { "\t" } else { "" };
    writeln!(out, "--- {label_a}{}", tab(&label_a)).ok()?;
    writeln!(out, "+++ {label_b}{}", tab(&label_b)).ok()?;
    let diff = TextDiff::configure()
        .timeout(DIFF_TIMEOUT)
        .diff_lines(old, new);
    for hunk in diff.unified_diff().context_radius(3).iter_hunks() {
        hunk.to_writer(&mut *out).ok()?;
    }
    Some(())
}

/// A side's text: empty when the file is missing on that side, `None` when it is binary.
fn text(side: &Option<Side>) -> Option<&str> {
    match side {
        None => Some(""),
        Some(Side::Text(t)) => Some(t),
        Some(Side::Binary) => None,
    }
}

/// `prefix` + `path`, in double quotes with C escapes when the path holds a quote, a backslash
/// or a control character (as git quotes names; other characters are left as they are).
fn quote(prefix: &str, path: &str) -> String {
    if !path
        .chars()
        .any(|c| c == '"' || c == '\\' || c.is_ascii_control())
    {
        return format!("{prefix}{path}");
    }
    let mut out = format!("\"{prefix}");
    for c in path.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c.is_ascii_control() => out.push_str(&format!("\\{:03o}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(path: &str, mode: Mode, content: Content) -> Entry {
        Entry {
            path: path.into(),
            mode,
            size: 0,
            content,
        }
    }

    fn blob(blobs: &Blobs, text: &str) -> Content {
        Content::Blob(blobs.put(text.as_bytes()).expect("blob stored"))
    }

    fn render_text(blobs: &Blobs, old: &[Entry], new: &[Entry]) -> String {
        String::from_utf8(render(blobs, old, new).expect("a patch")).expect("utf-8")
    }

    #[test]
    fn names_with_quotes_or_control_characters_are_c_quoted() {
        assert_eq!(quote("a/", "src/main.rs"), "a/src/main.rs");
        assert_eq!(quote("a/", "x y"), "a/x y");
        assert_eq!(quote("b/", "say \"hi\""), "\"b/say \\\"hi\\\"\"");
        assert_eq!(quote("a/", "tab\there"), "\"a/tab\\there\"");
        assert_eq!(quote("a/", "bell\u{7}"), "\"a/bell\\007\"");
    }

    #[test]
    fn a_missing_final_newline_is_marked_as_git_marks_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let blobs = Blobs::new(dir.path().join("blobs"));
        let old = [entry("f", Mode::File, blob(&blobs, "a"))];
        let new = [entry("f", Mode::File, blob(&blobs, "b"))];
        assert_eq!(
            render_text(&blobs, &old, &new),
            "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n\\ No newline at end of \
             file\n+b\n\\ No newline at end of file\n"
        );
    }

    #[test]
    fn binary_large_and_empty_files_get_header_lines_only() {
        let dir = tempfile::tempdir().expect("tempdir");
        let blobs = Blobs::new(dir.path().join("blobs"));
        let old = [
            entry("big", Mode::File, Content::Hash("1".repeat(64))),
            entry("bin", Mode::File, blob(&blobs, "a\0b")),
        ];
        let new = [
            entry("big", Mode::File, Content::Hash("2".repeat(64))),
            entry("bin", Mode::File, blob(&blobs, "a\0c")),
            entry("empty", Mode::File, blob(&blobs, "")),
        ];
        assert_eq!(
            render_text(&blobs, &old, &new),
            "diff --git a/big b/big\nBinary files a/big and b/big differ\n\
             diff --git a/bin b/bin\nBinary files a/bin and b/bin differ\n\
             diff --git a/empty b/empty\nnew file mode 100644\n"
        );
    }

    #[test]
    fn a_file_that_becomes_a_link_is_deleted_then_added() {
        let dir = tempfile::tempdir().expect("tempdir");
        let blobs = Blobs::new(dir.path().join("blobs"));
        let old = [entry("x", Mode::File, blob(&blobs, "text\n"))];
        let new = [entry("x", Mode::Link, Content::Target("y".into()))];
        assert_eq!(
            render_text(&blobs, &old, &new),
            "diff --git a/x b/x\ndeleted file mode 100644\n--- a/x\n+++ /dev/null\n\
             @@ -1 +0,0 @@\n-text\n\
             diff --git a/x b/x\nnew file mode 120000\n--- /dev/null\n+++ b/x\n\
             @@ -0,0 +1 @@\n+y\n\\ No newline at end of file\n"
        );
    }

    #[test]
    fn a_missing_blob_means_no_patch() {
        let dir = tempfile::tempdir().expect("tempdir");
        let blobs = Blobs::new(dir.path().join("blobs"));
        let old = [entry("f", Mode::File, Content::Blob("0".repeat(64)))];
        let new = [entry("f", Mode::File, blob(&blobs, "b\n"))];
        assert!(render(&blobs, &old, &new).is_none());
    }
}
