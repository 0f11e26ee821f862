//! The exact-mode prefilter: which documents can contain a literal, from the term dictionary,
//! so a search reads only those instead of every archived text.
//!
//! A case-insensitive ASCII literal splits into tokens the same way documents do. A token with
//! a separator on both sides inside the literal must be a whole document term; one at the
//! literal's start must end a term, one at its end must start a term, and a literal that is
//! one token must lie inside a term. Terms that may not show a match where the text does (cut
//! long tokens, and terms with non-ASCII letters, whose case folding differs from the regex
//! engine's) are always candidates. Candidates are then checked against the text itself.

use std::io;

use regex::bytes::Regex;

use crate::segment::{CUT, Segment, TERM_BITS, WIDE};
use crate::token::{MAX_TOKEN, for_each_token};

/// A token of the literal and what its document term must look like.
pub(crate) struct Constraint {
    token: Vec<u8>,
    /// The literal starts with this token: the document term may go on before it.
    open_left: bool,
    /// The literal ends with this token: the document term may go on after it.
    open_right: bool,
    /// For open-left tokens: finds the token in the concatenated term bytes.
    finder: Option<Regex>,
}

/// The constraints of an exact-mode literal; empty when it gives none (not ASCII, or no token
/// short enough to rely on).
pub(crate) fn constraints(literal: &str) -> Vec<Constraint> {
    if !literal.is_ascii() {
        return Vec::new();
    }
    let lower = literal.to_ascii_lowercase();
    let mut out = Vec::new();
    for_each_token(lower.as_bytes(), |t, start| {
        if t.len() >= MAX_TOKEN - 3 {
            return;
        }
        let open_left = start == 0;
        let finder = open_left
            .then(|| Regex::new(&regex::escape(&String::from_utf8_lossy(t))).ok())
            .flatten();
        if open_left && finder.is_none() {
            return;
        }
        out.push(Constraint {
            token: t.to_vec(),
            open_left,
            open_right: start + t.len() == lower.len(),
            finder,
        });
    });
    out
}

/// Whether a term may hide a match its bytes do not show, as the tags of a segment's list:
/// [`CUT`] when it may have been cut short (its end is not shown: an ASCII term as long as a
/// term is kept, a wider one nearly so), [`WIDE`] when it holds a letter that is not ASCII but
/// matches an ASCII one in a case-insensitive search (`ſ` matches `s`); 0 when it is reliable.
pub(crate) fn unreliable(term: &[u8]) -> u32 {
    let mut tag = 0;
    let ascii = term.is_ascii();
    if term.len() >= MAX_TOKEN || (!ascii && term.len() >= MAX_TOKEN - 3) {
        tag |= CUT;
    }
    if !ascii && folds_to_ascii(term) {
        tag |= WIDE;
    }
    tag
}

/// Whether `term` holds a non-ASCII letter whose other case is ASCII.
fn folds_to_ascii(term: &[u8]) -> bool {
    String::from_utf8_lossy(term)
        .chars()
        .filter(|c| !c.is_ascii())
        .any(|c| {
            c.to_uppercase()
                .chain(c.to_lowercase())
                .any(|o| o.is_ascii())
        })
}

/// The documents of `seg` that can hold the literal, ascending; `None` when the dictionary
/// cannot narrow it to fewer than `most` documents (read them all then).
pub(crate) fn candidates(
    seg: &Segment,
    constraints: &[Constraint],
    most: usize,
) -> io::Result<Option<Vec<u32>>> {
    let mut result: Option<Vec<u32>> = None;
    for c in constraints {
        let Some(terms) = matching_terms(seg, c, most) else {
            continue;
        };
        let mut docs = Vec::new();
        let mut postings = Vec::new();
        for i in terms {
            postings.clear();
            seg.postings(i, &mut postings)?;
            docs.extend(postings.iter().map(|(d, _)| *d));
        }
        docs.sort_unstable();
        docs.dedup();
        result = Some(match result {
            None => docs,
            Some(prev) => intersect(&prev, &docs),
        });
    }
    Ok(result)
}

/// The terms a constraint allows, or `None` when their documents would be `most` or more.
fn matching_terms(seg: &Segment, c: &Constraint, most: usize) -> Option<Vec<usize>> {
    let mut terms: Vec<usize> = Vec::new();
    match (&c.finder, c.open_right) {
        (None, false) => terms.extend(seg.lookup(&c.token)),
        (None, true) => terms.extend(seg.prefixed(&c.token)),
        (Some(finder), _) => {
            for m in finder.find_iter(seg.term_blob()) {
                let Some(i) = seg.term_covering(m.start(), m.end()) else {
                    continue;
                };
                if c.open_right || seg.term(i).ends_with(&c.token) {
                    terms.push(i);
                }
            }
        }
    }
    debug_assert!(c.open_left == c.finder.is_some());
    // A cut term hides only its end: it matters to a token the document term may go on
    // before (the literal's first); a wide one to every token.
    terms.extend(
        seg.unreliable_terms()
            .iter()
            .filter(|&&tagged| tagged & WIDE != 0 || (c.open_left && tagged & CUT != 0))
            .map(|&tagged| (tagged & TERM_BITS) as usize),
    );
    terms.sort_unstable();
    terms.dedup();
    let docs: u64 = terms.iter().map(|&i| u64::from(seg.df(i))).sum();
    (docs < most as u64).then_some(terms)
}

fn intersect(a: &[u32], b: &[u32]) -> Vec<u32> {
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::segment::Builder;
    use crate::types::DocKind;

    const DOCS: &[&str] = &[
        "error TS2322: Type 'string' is not assignable to type 'number'.",
        "the ſtring with a long s, and a Kelvin sign: 5 K",
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa_tail end",
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa€xyz after",
        "Größe und Maß: straße STRASSE, 東京 tokyo",
        "fn read_log(path: &Path) -> Result<Log> { parse_line(x)?; }",
        "test login_redirect ... FAILED\nthread panicked at 'timeout after 30s'",
        "CamelCaseIdentifier snake_case_identifier kebab-case-identifier 0x1f2e3d",
    ];

    #[test]
    fn every_document_holding_the_literal_is_a_candidate() {
        let mut b = Builder::default();
        for (i, d) in DOCS.iter().enumerate() {
            b.add(i as u64, DocKind::ToolOutput, d.as_bytes());
        }
        let seg = b.finish();
        let mut seed = 7u64;
        let mut next = |n: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize % n.max(1)
        };
        let mut narrowed = 0;
        let fixed = [
            "STRING", "xyz", "_tail", "5 k", "ing with", "aaaa_t", "strasse",
        ];
        for round in 0..2000 {
            let mut needle = match fixed.get(round) {
                Some(n) => n.to_string(),
                None => {
                    let doc = DOCS[next(DOCS.len())];
                    let chars: Vec<char> = doc.chars().collect();
                    let start = next(chars.len());
                    let len = 1 + next(12.min(chars.len() - start));
                    chars[start..start + len].iter().collect()
                }
            };
            if next(2) == 0 {
                needle = needle.to_uppercase();
            }
            let re = regex::bytes::RegexBuilder::new(&regex::escape(&needle))
                .case_insensitive(true)
                .build()
                .unwrap();
            let cs = constraints(&needle);
            let Some(found) = candidates(&seg, &cs, usize::MAX).unwrap() else {
                continue;
            };
            narrowed += 1;
            for (i, d) in DOCS.iter().enumerate() {
                if re.is_match(d.as_bytes()) {
                    assert!(found.contains(&(i as u32)), "{needle:?} in doc {i}");
                }
            }
        }
        assert!(narrowed > 500, "{narrowed}");
    }
}
