//! Exact and regex modes, errors, and how hits are rendered.

use hotl_recall::{DocKind, Hit, Mode, RecallError, render_hits};
use hotl_testkit::TestResult;

use crate::common::{archive, two_folds};

#[test]
fn exact_is_a_case_insensitive_substring_newest_first() -> TestResult {
    let a = archive(&two_folds())?;
    let hits = a.search("ts2322: type 'STRING'", Mode::Exact, 10)?;
    assert_eq!(hits.len(), 1);
    assert_eq!((hits[0].handle.as_str(), hits[0].seq), ("a1", 5));
    assert_eq!(hits[0].kind, DocKind::ToolOutput);
    assert_eq!(
        hits[0].line,
        "error TS2322: Type 'string' is not assignable to type 'number'."
    );
    // Substrings inside words match too, and the newest document comes first (a note counts
    // where its fold record is, after the span).
    let hits = a.search("ars", Mode::Exact, 10)?;
    assert_eq!(hits[0].kind, DocKind::Note);
    let seqs: Vec<u64> = hits[1..].iter().map(|h| h.seq).collect();
    assert!(seqs.windows(2).all(|w| w[0] >= w[1]), "{seqs:?}");
    assert!(hits.iter().any(|h| h.line.contains("parser")));
    Ok(())
}

#[test]
fn exact_treats_regex_characters_literally() -> TestResult {
    let a = archive(&two_folds())?;
    assert_eq!(a.search("(parseInt)", Mode::Exact, 10)?.len(), 1);
    assert!(a.search("parse.nt", Mode::Exact, 10)?.is_empty());
    Ok(())
}

#[test]
fn regex_mode_matches_patterns_and_line_anchors() -> TestResult {
    let a = archive(&two_folds())?;
    let hits = a.search(r"TS\d{4}", Mode::Regex, 10)?;
    assert!(
        hits.iter()
            .any(|h| h.kind == DocKind::ToolOutput && h.seq == 5)
    );
    let hits = a.search(r"^thread panicked", Mode::Regex, 10)?;
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].line, "thread panicked at 'timeout after 30s'");
    assert_eq!(hits[0].score, 1.0);
    // Case-sensitive unless asked.
    assert!(a.search("ts2322", Mode::Regex, 10)?.is_empty());
    assert!(!a.search("(?i)ts2322", Mode::Regex, 10)?.is_empty());
    Ok(())
}

#[test]
fn an_invalid_regex_is_an_error_naming_the_pattern() -> TestResult {
    let a = archive(&two_folds())?;
    let err = a.search("fn (", Mode::Regex, 10).unwrap_err();
    let RecallError::InvalidRegex { pattern, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(pattern, "fn (");
    let msg = err.to_string();
    assert!(msg.starts_with("invalid regex \"fn (\": "), "{msg}");
    assert!(msg.contains("use exact mode"), "{msg}");
    Ok(())
}

#[test]
fn limit_applies_to_exact_and_regex() -> TestResult {
    let a = archive(&two_folds())?;
    let all = a.search("e", Mode::Exact, 100)?;
    assert!(all.len() > 3);
    assert_eq!(a.search("e", Mode::Exact, 3)?, all[..3]);
    assert_eq!(a.search("e", Mode::Regex, 2)?.len(), 2);
    assert!(a.search("e", Mode::Exact, 0)?.is_empty());
    assert!(matches!(
        a.search("", Mode::Exact, 3),
        Err(RecallError::EmptyQuery { .. })
    ));
    Ok(())
}

#[test]
fn hits_render_one_block_each_with_a_stale_line_when_needed() {
    let hit = |handle: &str, seq, kind, line: &str, stale: &[&str]| Hit {
        handle: handle.into(),
        seq,
        kind,
        line: line.into(),
        score: 1.0,
        stale: stale.iter().map(|s| s.to_string()).collect(),
    };
    let hits = [
        hit(
            "b2e4",
            12,
            DocKind::ToolOutput,
            "error TS2322",
            &["src/a.ts", "b.rs"],
        ),
        hit("c3", 40, DocKind::Note, "fixed it", &[]),
    ];
    assert_eq!(
        render_hits(&hits),
        "[b2e4 t12 tool] error TS2322\n  stale: src/a.ts, b.rs changed since\n\
         [c3 t40 note] fixed it\n"
    );
    assert_eq!(render_hits(&[]), "no matches\n");
}

/// A tool call's arguments are searched as written, not as escaped JSON: quotes, backslashes
/// and newlines in a command are found as typed.
#[test]
fn tool_call_arguments_are_searched_as_written() -> TestResult {
    let mut b = hotl_testkit::LogBuilder::new(hotl_testkit::FIXED_ID, "/p");
    let since = b.user("run it");
    let (_, call) = b.tool_call(
        "bash",
        serde_json::json!({ "command": "echo \"q\\\"uote\" && printf 'b\\n'\necho done" }),
    );
    b.tool_result(&call, "ok");
    let until = b.assistant("ran");
    b.fold(since, until, "f1", "ran a command");
    let a = archive(&b)?;
    for query in ["q\\\"uote", "printf 'b\\n'", "echo done"] {
        let hits = a.search(query, Mode::Exact, 10)?;
        assert_eq!(hits.len(), 1, "{query:?}");
        assert_eq!(hits[0].kind, DocKind::Assistant, "{query:?}");
    }
    let hits = a.search("echo done", Mode::Exact, 10)?;
    assert_eq!(hits[0].line, "echo done");
    Ok(())
}

#[test]
fn a_search_of_an_empty_archive_says_nothing_is_archived() -> TestResult {
    let mut b = hotl_testkit::LogBuilder::new(hotl_testkit::FIXED_ID, "/p");
    b.turn("one");
    let a = archive(&b)?;
    let hits = a.search("one", Mode::Ranked, 10)?;
    assert!(hotl_recall::render_search(&a, &hits).contains("nothing is archived yet"));
    let a = archive(&two_folds())?;
    let hits = a.search("zzzz-not-there", Mode::Exact, 10)?;
    assert_eq!(hotl_recall::render_search(&a, &hits), "no matches\n");
    Ok(())
}
