//! What an approval shows of a call before its question: the lines an edit or a write would
//! take out and put in (as the edit card draws them after the call), the command bash would
//! run and where, the arguments of any other call. Read from the files as they are now; a
//! preview never fails (a file that cannot be read is said to be so).

use std::path::Path;

use hotl_protocol::{PreviewKind, PreviewLine};
use serde_json::Value;

/// The most lines of change a preview shows; the rest is counted.
pub const MAX_LINES: usize = 24;

/// What a call would do, and the few words that name it in the question.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Preview {
    /// What the question names: a path, a command's first line, an argument list.
    pub summary: String,
    /// The lines shown before the question.
    pub lines: Vec<PreviewLine>,
}

impl Preview {
    /// Any call: its arguments, one per line (long values clipped), named by their list.
    pub fn of_arguments(fields: &serde_json::Map<String, Value>) -> Preview {
        let mut lines = Vec::new();
        {
            for (name, value) in fields {
                let value = match value {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                let first = value.lines().next().unwrap_or("");
                let more = value.lines().count().saturating_sub(1);
                let mut text = format!("{name}: {}", hotl_text::clip(first, 100));
                if more > 0 {
                    text.push_str(&format!(" (+{more} more lines)"));
                }
                lines.push(PreviewLine::new(PreviewKind::Note, text));
            }
        }
        Preview {
            summary: hotl_text::clip(&Value::Object(fields.clone()).to_string(), 80),
            lines: capped(lines),
        }
    }

    /// A command, and the directory it runs in.
    pub fn of_command(command: &str, cwd: &Path) -> Preview {
        let mut lines: Vec<PreviewLine> = command
            .lines()
            .map(|line| PreviewLine::new(PreviewKind::Command, line))
            .collect();
        lines = capped(lines);
        lines.push(PreviewLine::new(
            PreviewKind::Note,
            format!("in {}", cwd.display()),
        ));
        Preview {
            summary: hotl_text::clip(command.lines().next().unwrap_or(""), 80),
            lines,
        }
    }

    /// An edit of `path` replacing `old` with `new`: the old lines, then the new ones.
    pub fn of_edit(path: &Path, old: &str, new: &str) -> Preview {
        let mut lines: Vec<PreviewLine> = Vec::new();
        if !path.exists() {
            lines.push(PreviewLine::new(
                PreviewKind::Note,
                "(the file does not exist)",
            ));
        }
        lines.extend(
            old.split('\n')
                .map(|l| PreviewLine::new(PreviewKind::Removed, l)),
        );
        lines.extend(
            new.split('\n')
                .map(|l| PreviewLine::new(PreviewKind::Added, l)),
        );
        Preview {
            summary: path.display().to_string(),
            lines: capped(lines),
        }
    }

    /// A write of `content` to `path`: the lines that change when the file exists (a line
    /// diff), else the new file's first lines and how many there are.
    pub fn of_write(path: &Path, content: &str) -> Preview {
        let count = content.lines().count();
        let (summary, lines) = match std::fs::read(path) {
            Ok(bytes) => {
                let before = String::from_utf8_lossy(&bytes);
                (path.display().to_string(), changed_lines(&before, content))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => (
                format!(
                    "{} (new file, {count} line{})",
                    path.display(),
                    if count == 1 { "" } else { "s" }
                ),
                content
                    .lines()
                    .map(|l| PreviewLine::new(PreviewKind::Added, l))
                    .collect(),
            ),
            Err(e) => (
                path.display().to_string(),
                vec![PreviewLine::new(
                    PreviewKind::Note,
                    format!("(the file cannot be read: {e})"),
                )],
            ),
        };
        Preview {
            summary,
            lines: capped(lines),
        }
    }
}

/// The lines that differ between `before` and `after`, in order.
fn changed_lines(before: &str, after: &str) -> Vec<PreviewLine> {
    let diff = similar::TextDiff::from_lines(before, after);
    let lines: Vec<PreviewLine> = diff
        .iter_all_changes()
        .filter_map(|change| {
            let kind = match change.tag() {
                similar::ChangeTag::Delete => PreviewKind::Removed,
                similar::ChangeTag::Insert => PreviewKind::Added,
                similar::ChangeTag::Equal => return None,
            };
            let text = change.value();
            Some(PreviewLine::new(
                kind,
                text.strip_suffix('\n').unwrap_or(text),
            ))
        })
        .collect();
    if lines.is_empty() {
        return vec![PreviewLine::new(
            PreviewKind::Note,
            "(the content is the same)",
        )];
    }
    lines
}

/// `lines` cut to [`MAX_LINES`], the rest counted on a last line; long lines clipped.
fn capped(mut lines: Vec<PreviewLine>) -> Vec<PreviewLine> {
    for line in &mut lines {
        if line.text.chars().count() > 200 {
            line.text = hotl_text::clip(&line.text, 200);
        }
    }
    if lines.len() > MAX_LINES {
        let more = lines.len() - MAX_LINES;
        lines.truncate(MAX_LINES);
        lines.push(PreviewLine::new(
            PreviewKind::Note,
            format!("… {more} more line{}", if more == 1 { "" } else { "s" }),
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_over_a_file_shows_only_what_changes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        std::fs::write(&path, "one\ntwo\nthree\n").unwrap();
        let preview = Preview::of_write(&path, "one\n2\nthree\n");
        assert_eq!(
            preview.lines,
            [
                PreviewLine::new(PreviewKind::Removed, "two"),
                PreviewLine::new(PreviewKind::Added, "2")
            ]
        );
    }

    #[test]
    fn a_new_file_is_counted_and_cut() {
        let dir = tempfile::tempdir().unwrap();
        let content: String = (1..=100).map(|i| format!("line {i}\n")).collect();
        let preview = Preview::of_write(&dir.path().join("new.txt"), &content);
        assert!(
            preview.summary.ends_with("(new file, 100 lines)"),
            "{}",
            preview.summary
        );
        assert_eq!(preview.lines.len(), MAX_LINES + 1);
        assert_eq!(preview.lines[MAX_LINES].text, "… 76 more lines");
    }

    #[test]
    fn a_command_says_where_it_runs() {
        let preview = Preview::of_command("cargo test\necho done", Path::new("/p"));
        let signs: Vec<String> = preview
            .lines
            .iter()
            .map(|l| format!("{}{}", l.sign(), l.text))
            .collect();
        assert_eq!(signs, ["$ cargo test", "$ echo done", "in /p"]);
        assert_eq!(preview.summary, "cargo test");
    }
}
