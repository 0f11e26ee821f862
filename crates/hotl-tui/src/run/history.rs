//! The composer's history file, in the format the line console's editor (rustyline) reads and
//! writes: a `#V2` header, then one entry a line with its line feeds written `\n` and its
//! backslashes `\\`; private to the user.

/// The most entries kept.
const KEPT: usize = 1000;

/// The entries of the history file at `path`, oldest first (none when there is none).
pub(super) fn load_history(path: Option<&std::path::Path>) -> Vec<String> {
    let Some(path) = path else {
        return Vec::new();
    };
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    text.lines()
        .filter(|l| !l.starts_with("#V"))
        .map(unescape)
        .filter(|l| !l.is_empty())
        .collect()
}

/// Writes the last entries of `entries` to the history file at `path`.
pub(super) fn save_history(path: Option<&std::path::Path>, entries: &[String]) {
    let Some(path) = path else {
        return;
    };
    let keep = entries.len().saturating_sub(KEPT);
    let mut text = String::from("#V2\n");
    for entry in &entries[keep..] {
        text.push_str(&escape(entry));
        text.push('\n');
    }
    let written = std::fs::write(path, text).and_then(|()| {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
    });
    if let Err(e) = written {
        tracing::warn!("cannot save the composer history: {e}");
    }
}

fn escape(entry: &str) -> String {
    entry.replace('\\', "\\\\").replace('\n', "\\n")
}

fn unescape(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_with_line_feeds_and_backslashes_come_back_as_written() {
        for entry in ["two\nlines", r"a literal \n stays", r"C:\path\", "plain"] {
            assert_eq!(unescape(&escape(entry)), entry, "{entry:?}");
        }
        assert_eq!(escape("a\\nb\nc"), r"a\\nb\nc", "rustyline's own escaping");
    }
}
