//! Runs of passing-test lines: what an output shows of them.
//!
//! A test runner in its verbose mode prints a line per passing test (`test a::b ... ok`,
//! `tests/x.py::y PASSED [ 10%]`, `--- PASS: TestX (0.00s)`, `ok 7 - parses`, `✓ renders`).
//! Each costs its tokens again on every later request and says what the summary says: the
//! runners' own quiet modes print a dot for it. So a long run of them shows its first and last
//! line around a marker naming the lines between; failures, their output and the summary
//! break the run and stay. The whole output goes to a blob, so a name left out is one `read`
//! (or `recall`) away.

use std::ops::Range;

/// A run shorter than this is shown whole: the marker would save little.
pub(crate) const MIN_RUN: usize = 8;

/// One thing an output shows: a line of it, or a marker for lines of passing tests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Shown {
    /// The line at this index.
    Line(usize),
    /// The lines in this range, all passing tests, left out.
    Passed(Range<usize>),
}

impl Shown {
    /// The lines it stands for.
    pub(crate) fn lines(&self) -> Range<usize> {
        match self {
            Shown::Line(i) => *i..i + 1,
            Shown::Passed(r) => r.clone(),
        }
    }
}

/// `lines` as shown: every line, except the inside of each run of at least [`MIN_RUN`]
/// passing-test lines, which becomes one [`Shown::Passed`] between the run's first and last
/// line. The entries cover the lines in order, each once.
pub(crate) fn collapse(lines: &[&str]) -> Vec<Shown> {
    let mut out = Vec::with_capacity(lines.len());
    let mut i = 0;
    while i < lines.len() {
        let end = (i..lines.len())
            .find(|&j| !is_pass(lines[j]))
            .unwrap_or(lines.len());
        if end - i >= MIN_RUN {
            out.push(Shown::Line(i));
            out.push(Shown::Passed(i + 1..end - 1));
            out.push(Shown::Line(end - 1));
            i = end;
        } else {
            out.push(Shown::Line(i));
            i += 1;
        }
    }
    out
}

/// Whether `line` reports one passing test in a common runner's verbose form: Rust's libtest,
/// pytest `-v`, `go test -v` (its `=== RUN` lines too: a failure's output follows its own),
/// TAP, and the check marks of jest, vitest and mocha.
pub(crate) fn is_pass(line: &str) -> bool {
    let line = line.trim();
    if line.starts_with("test ") && line.ends_with(" ... ok") {
        return true;
    }
    if line.starts_with("--- PASS: ") || line.starts_with("=== RUN ") {
        return true;
    }
    if let Some(rest) = line.strip_prefix("ok ") {
        return rest.starts_with(|c: char| c.is_ascii_digit());
    }
    if ["✓ ", "✔ ", "√ "].iter().any(|m| line.starts_with(m)) {
        return true;
    }
    match line.rfind(" PASSED") {
        // pytest: `<node id> PASSED`, maybe followed by its progress, `[ 10%]`.
        Some(at) => {
            let rest = line[at + " PASSED".len()..].trim();
            rest.is_empty() || (rest.starts_with('[') && rest.ends_with("%]"))
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn the_common_runners_passing_lines_are_recognised() {
        for line in [
            "test view::thin::tests::round_trip ... ok",
            "tests/test_io.py::test_read PASSED                       [ 10%]",
            "tests/test_io.py::test_read PASSED",
            "--- PASS: TestParse (0.00s)",
            "=== RUN   TestParse",
            "ok 12 - parses an empty file",
            "  ✓ renders the header (3 ms)",
            "    ✔ keeps order",
        ] {
            assert!(is_pass(line), "{line}");
        }
        for line in [
            "test view::thin::tests::round_trip ... FAILED",
            "test result: ok. 50 passed; 0 failed",
            "running 50 tests",
            "tests/test_io.py::test_read FAILED                       [ 10%]",
            "--- FAIL: TestParse (0.00s)",
            "not ok 12 - parses an empty file",
            "ok  \tgithub.com/x/y\t0.01s",
            "  ✕ renders the header",
            "error: PASSED the limit by 3",
        ] {
            assert!(!is_pass(line), "{line}");
        }
    }

    #[test]
    fn a_long_run_keeps_its_ends_and_short_runs_stay_whole() {
        let mut lines = vec!["running 10 tests"];
        let names: Vec<String> = (1..=10).map(|i| format!("test t::c{i} ... ok")).collect();
        lines.extend(names.iter().map(String::as_str));
        lines.push("test result: ok. 10 passed");
        assert_eq!(
            collapse(&lines),
            [
                Shown::Line(0),
                Shown::Line(1),
                Shown::Passed(2..10),
                Shown::Line(10),
                Shown::Line(11)
            ]
        );
        let short = &lines[..MIN_RUN];
        assert_eq!(
            collapse(short),
            (0..MIN_RUN).map(Shown::Line).collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_failure_breaks_the_run_and_stays() {
        let mut lines: Vec<String> = (1..=20).map(|i| format!("test c{i} ... ok")).collect();
        lines[9] = "test c10 ... FAILED".to_owned();
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let shown = collapse(&lines);
        assert!(shown.contains(&Shown::Line(9)));
        assert!(shown.contains(&Shown::Passed(1..8)));
        assert!(shown.contains(&Shown::Passed(11..19)));
    }

    fn line() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z:_]{1,12}".prop_map(|n| format!("test {n} ... ok")),
            "[a-z ]{0,20}",
            "[a-z]{1,8}".prop_map(|n| format!("test {n} ... FAILED")),
        ]
    }

    proptest! {
        /// The entries cover every line once, in order; only passing lines are left out,
        /// and every run left out has a shown passing line on each side.
        #[test]
        fn collapsing_covers_every_line_once(lines in prop::collection::vec(line(), 0..60)) {
            let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
            let shown = collapse(&lines);
            let covered: Vec<usize> = shown.iter().flat_map(Shown::lines).collect();
            prop_assert_eq!(covered, (0..lines.len()).collect::<Vec<_>>());
            for (k, s) in shown.iter().enumerate() {
                if let Shown::Passed(r) = s {
                    prop_assert!(r.clone().all(|i| is_pass(lines[i])));
                    prop_assert!(r.len() >= MIN_RUN - 2);
                    prop_assert!(matches!(shown[k - 1], Shown::Line(i) if is_pass(lines[i])));
                    prop_assert!(matches!(shown[k + 1], Shown::Line(i) if is_pass(lines[i])));
                }
            }
        }
    }
}
