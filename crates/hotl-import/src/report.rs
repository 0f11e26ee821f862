//! What an import left out and had to say: every skipped line with its number, counts by kind
//! (what the `import` record keeps), and notes.

use std::collections::BTreeMap;

/// One line of the source that was not imported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkippedLine {
    /// 1-based line number in the (decompressed) file.
    pub line: usize,
    /// The kind it is counted under (`file-history-snapshot`, `bad_json`, ...).
    pub kind: String,
    /// Why, in a few words.
    pub why: String,
}

/// What reading and converting a file skipped and noticed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Every skipped line, in file order.
    pub lines: Vec<SkippedLine>,
    /// Counts by kind: skipped lines, and parts of lines (blocks) left out.
    pub skipped: BTreeMap<String, u64>,
    /// Anything else worth saying (kept in the `import` record).
    pub notes: Vec<String>,
    /// Non-blank lines in the file.
    pub records_total: u64,
}

/// How many line numbers a grouped message shows before "+N more".
const SHOWN: usize = 5;

impl Report {
    /// Line `line` was skipped: counted under `kind`, said with `why`.
    pub(crate) fn skip_line(&mut self, line: usize, kind: &str, why: impl Into<String>) {
        *self.skipped.entry(kind.to_owned()).or_default() += 1;
        self.lines.push(SkippedLine {
            line,
            kind: kind.to_owned(),
            why: why.into(),
        });
    }

    /// Part of a line (a block) was left out; counted under `kind`.
    pub(crate) fn skip_part(&mut self, kind: &str) {
        *self.skipped.entry(kind.to_owned()).or_default() += 1;
    }

    /// Adds a note (once).
    pub(crate) fn note(&mut self, note: impl Into<String>) {
        let note = note.into();
        if !self.notes.contains(&note) {
            self.notes.push(note);
        }
    }

    /// The skipped lines as short messages, one per kind in order of first appearance:
    /// `line 17: skipped unknown record type "foo"`, or
    /// `lines 2, 45 (+3 more): skipped file-history-snapshot`.
    pub fn messages(&self) -> Vec<String> {
        let mut order: Vec<&str> = Vec::new();
        let mut by_kind: BTreeMap<&str, Vec<&SkippedLine>> = BTreeMap::new();
        for s in &self.lines {
            let group = by_kind.entry(&s.kind).or_default();
            if group.is_empty() {
                order.push(&s.kind);
            }
            group.push(s);
        }
        order
            .into_iter()
            .map(|kind| {
                let group = &by_kind[kind];
                if let [one] = group.as_slice() {
                    return format!("line {}: skipped {}", one.line, one.why);
                }
                let shown: Vec<String> = group
                    .iter()
                    .take(SHOWN)
                    .map(|s| s.line.to_string())
                    .collect();
                let more = group.len().saturating_sub(SHOWN);
                let more = if more > 0 {
                    format!(" (+{more} more)")
                } else {
                    String::new()
                };
                format!("lines {}{more}: skipped {}", shown.join(", "), group[0].why)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_group_by_kind_with_the_first_line_numbers() {
        let mut r = Report::default();
        r.skip_line(17, "foo", "unknown record type \"foo\"");
        for line in [2, 4, 6, 8, 10, 12, 14] {
            r.skip_line(line, "file-history-snapshot", "file-history-snapshot");
        }
        r.skip_part("block/redacted_thinking");
        assert_eq!(
            r.messages(),
            [
                "line 17: skipped unknown record type \"foo\"",
                "lines 2, 4, 6, 8, 10 (+2 more): skipped file-history-snapshot",
            ]
        );
        assert_eq!(r.skipped["file-history-snapshot"], 7);
        assert_eq!(r.skipped["block/redacted_thinking"], 1);
    }
}
