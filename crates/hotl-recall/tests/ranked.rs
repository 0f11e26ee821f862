//! Ranked search: BM25 puts rare terms and short documents first.

use hotl_recall::{DocKind, Mode, RecallError};
use hotl_testkit::{FIXED_ID, LogBuilder, TestResult};

use crate::common::{archive, turn_with, two_folds};

/// Three folded threads whose tool outputs all say "error"; one also says "quokka".
fn three() -> LogBuilder {
    let mut b = LogBuilder::new(FIXED_ID, "/p");
    let outputs = [
        (
            "x1",
            "error: linker failed\nerror: could not compile\nerror again",
        ),
        ("x2", "error: the quokka module is missing\nplain line"),
        ("x3", "error: disk full, error writing, error"),
    ];
    for (handle, out) in outputs {
        let (s, u) = turn_with(&mut b, "build it", out, vec![], "looked at it");
        b.fold(s, u, handle, "a build");
    }
    b
}

#[test]
fn a_rare_term_ranks_its_document_first() -> TestResult {
    let hits = archive(&three())?.search("error quokka", Mode::Ranked, 10)?;
    assert_eq!(hits[0].handle, "x2");
    assert_eq!(hits[0].kind, DocKind::ToolOutput);
    assert_eq!(hits[0].line, "error: the quokka module is missing");
    assert!(
        hits.windows(2).all(|w| w[0].score >= w[1].score),
        "{hits:?}"
    );
    // The others say only "error": one of the two terms, against the best hit's two.
    assert_eq!(hits.len(), 1, "{hits:?}");
    let one = archive(&three())?.search("error", Mode::Ranked, 10)?;
    assert_eq!(one.len(), 3, "every output says error: {one:?}");
    Ok(())
}

#[test]
fn matching_is_case_and_punctuation_insensitive() -> TestResult {
    let a = archive(&two_folds())?;
    let hits = a.search("ts2322", Mode::Ranked, 10)?;
    let tool = hits
        .iter()
        .find(|h| h.kind == DocKind::ToolOutput)
        .expect("the tool output says TS2322");
    assert_eq!((tool.handle.as_str(), tool.seq), ("a1", 5));
    assert!(tool.line.starts_with("error TS2322: Type 'string'"));
    let note = hits.iter().find(|h| h.kind == DocKind::Note).expect("note");
    assert_eq!(note.seq, 3, "a note is shown at its thread's first seq");
    Ok(())
}

#[test]
fn the_best_line_is_the_one_with_the_most_query_terms() -> TestResult {
    let hits = archive(&two_folds())?.search("thread timeout", Mode::Ranked, 1)?;
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].handle, "b2");
    assert_eq!(hits[0].line, "thread panicked at 'timeout after 30s'");
    Ok(())
}

#[test]
fn limit_caps_the_hits_and_zero_gives_none() -> TestResult {
    let a = archive(&three())?;
    assert_eq!(a.search("error", Mode::Ranked, 2)?.len(), 2);
    assert!(a.search("error", Mode::Ranked, 0)?.is_empty());
    Ok(())
}

#[test]
fn unknown_words_find_nothing_and_a_query_without_words_is_refused() -> TestResult {
    let a = archive(&three())?;
    assert!(a.search("wombat", Mode::Ranked, 5)?.is_empty());
    let err = a.search("  ?! ", Mode::Ranked, 5).unwrap_err();
    assert!(matches!(err, RecallError::EmptyQuery { .. }), "{err}");
    Ok(())
}

#[test]
fn a_long_line_is_clipped_around_the_match() -> TestResult {
    let mut b = LogBuilder::new(FIXED_ID, "/p");
    let long = format!("{} needle {}", "word ".repeat(200), "tail ".repeat(200));
    let (s, u) = turn_with(&mut b, "go", &long, vec![], "ok");
    b.fold(s, u, "l1", "long");
    let hits = archive(&b)?.search("needle", Mode::Ranked, 1)?;
    let line = &hits[0].line;
    assert!(line.contains("needle"), "{line}");
    assert!(line.chars().count() <= 202, "{}", line.chars().count());
    assert!(line.starts_with('…') && line.ends_with('…'));
    Ok(())
}

/// Every hit holds a query term: a long token (a hash, a base64 run) is indexed by its first
/// bytes, and a query sharing only those bytes finds nothing.
#[test]
fn a_long_token_is_matched_whole() -> TestResult {
    let stored = "9f2c".repeat(16);
    let other = format!("{}{}", &stored[..52], "0000aaaa1111");
    let mut b = LogBuilder::new(FIXED_ID, "/p");
    let (s, u) = turn_with(&mut b, "hash it", &format!("sha {stored}"), vec![], "done");
    b.fold(s, u, "h1", "hashed");
    let a = archive(&b)?;
    assert_eq!(a.search(&stored, Mode::Ranked, 5)?.len(), 1);
    assert_eq!(a.search(&stored.to_uppercase(), Mode::Ranked, 5)?.len(), 1);
    let hits = a.search(&other, Mode::Ranked, 5)?;
    assert!(hits.is_empty(), "{other} occurs nowhere: {hits:?}");
    // With another term that does occur, only that term's documents come back.
    let hits = a.search(&format!("{other} hashed"), Mode::Ranked, 5)?;
    assert!(
        hits.iter().all(|h| h.kind == hotl_recall::DocKind::Note),
        "{hits:?}"
    );
    Ok(())
}

/// Words for random documents: short ones, Unicode ones, and long runs that share their
/// first 48 bytes (as hashes of one prefix do).
fn word() -> impl proptest::strategy::Strategy<Value = String> {
    let long = "a1b2".repeat(13);
    proptest::sample::select(vec![
        "error".to_owned(),
        "cache".to_owned(),
        "Über".to_owned(),
        "straße".to_owned(),
        "x".to_owned(),
        format!("{long}"),
        format!("{long}ff"),
        format!("{long}00"),
        long[..48].to_owned(),
    ])
}

/// The tokens of `text` as ranked search sees them, whole.
fn tokens(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .map(str::to_lowercase)
        .collect()
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// Every ranked hit holds at least one of the query's terms, whole; every document holding
    /// all of them is a hit, and so is every one holding the only one.
    #[test]
    fn every_hit_holds_a_query_term(
        outputs in proptest::collection::vec(proptest::collection::vec(word(), 1..6), 1..6),
        query in proptest::collection::vec(word(), 1..3),
    ) {
        let mut b = LogBuilder::new(FIXED_ID, "/p");
        for (i, words) in outputs.iter().enumerate() {
            let (s, u) = turn_with(&mut b, "go", &words.join(" "), vec![], "ok");
            b.fold(s, u, &format!("h{i}"), "n");
        }
        let a = archive(&b).map_err(|e| proptest::test_runner::TestCaseError::fail(e.to_string()))?;
        let docs = a.docs().map_err(|e| proptest::test_runner::TestCaseError::fail(e.to_string()))?;
        let query = query.join(" ");
        let asked = tokens(&query);
        let hits = a
            .search(&query, Mode::Ranked, 50)
            .map_err(|e| proptest::test_runner::TestCaseError::fail(e.to_string()))?;
        for hit in &hits {
            let doc = docs
                .iter()
                .find(|d| d.handle == hit.handle && d.seq == hit.seq && d.kind == hit.kind)
                .expect("a hit is a document");
            let held = tokens(&doc.text);
            proptest::prop_assert!(
                asked.iter().any(|t| held.contains(t)),
                "{query:?} found {:?}", doc.text
            );
        }
        // Every document holding every term is found; one holding a single term of several
        // may not be (hits are worth their tokens).
        let every = docs
            .iter()
            .filter(|d| {
                let held = tokens(&d.text);
                asked.iter().all(|t| held.contains(t))
            })
            .count();
        proptest::prop_assert!(hits.len() >= every, "{} < {every}", hits.len());
        if asked.iter().collect::<std::collections::BTreeSet<_>>().len() == 1 {
            let holding = docs
                .iter()
                .filter(|d| tokens(&d.text).iter().any(|t| asked.contains(t)))
                .count();
            proptest::prop_assert_eq!(hits.len(), holding);
        }
    }
}

/// An identifier is found whole: the one document holding `DETAIL-ZEBRA-42` comes first, and
/// documents that share only "42" with it are not returned at all.
#[test]
fn an_identifier_query_returns_its_document_not_every_42() -> TestResult {
    let mut b = LogBuilder::new(FIXED_ID, "/p");
    for i in 0..17 {
        let (s, u) = turn_with(
            &mut b,
            "count them",
            &format!("processed 42 items in batch {i}\nall 42 fine"),
            vec![],
            "done",
        );
        b.fold(s, u, &format!("n{i}"), "counted");
    }
    let (s, u) = turn_with(
        &mut b,
        "find the detail",
        "the key is DETAIL-ZEBRA-42 in the vault\nnothing else",
        vec![],
        "found it",
    );
    b.fold(s, u, "z1", "looked it up");
    let hits = archive(&b)?.search("DETAIL-ZEBRA-42", Mode::Ranked, 10)?;
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0].handle, "z1");
    assert_eq!(hits[0].line, "the key is DETAIL-ZEBRA-42 in the vault");
    Ok(())
}

/// Documents that hold the query as written come before those that only hold its words.
#[test]
fn the_query_as_written_comes_first() -> TestResult {
    let mut b = LogBuilder::new(FIXED_ID, "/p");
    let outputs = [
        (
            "w1",
            "config parse failed; parse the config again; config config parse",
        ),
        ("w2", "parse_config returned None"),
    ];
    for (handle, out) in outputs {
        let (s, u) = turn_with(&mut b, "look", out, vec![], "ok");
        b.fold(s, u, handle, "looked");
    }
    let hits = archive(&b)?.search("parse_config", Mode::Ranked, 10)?;
    assert_eq!(hits[0].handle, "w2", "{hits:?}");
    Ok(())
}
