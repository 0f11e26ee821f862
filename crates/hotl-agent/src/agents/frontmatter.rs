//! The `---` fenced header of a definition file: a small, strict subset of YAML (`key: value`,
//! quoted strings, inline `[a, b]` and block `- a` lists, comments) split from the body.
//!
//! Strict on purpose: an indented line out of place, a key given twice or a block scalar is
//! an error with its line number, never a guess. What a key means is `def.rs`'s business.

/// One value of the header, before it is given a type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Value {
    /// A single value; `quoted` when it was written in quotes (so `"true"` stays a string).
    Scalar { text: String, quoted: bool },
    /// An inline (`[a, b]`) or block (`- a` lines) list.
    List(Vec<String>),
}

/// A parsed file: the header's keys in order (with the line each is on) and the body.
#[derive(Debug)]
pub(super) struct Parsed {
    pub entries: Vec<(String, Value, usize)>,
    pub body: String,
}

/// Splits `text` into its header and body and parses the header.
pub(super) fn parse(text: &str) -> Result<Parsed, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or_default();
    if first.trim_end() != "---" {
        return Err(
            "no frontmatter: the file must start with a `---` line, then `name:` and \
             `description:`, then `---`"
                .to_owned(),
        );
    }
    let mut header = Vec::new();
    let mut closed = false;
    let mut consumed = first.len();
    for line in lines.by_ref() {
        consumed += line.len();
        if line.trim_end() == "---" {
            closed = true;
            break;
        }
        header.push(line.trim_end_matches(['\n', '\r']));
    }
    if !closed {
        return Err("the frontmatter has no closing `---` line".to_owned());
    }
    let body = text[consumed..].trim().to_owned();
    Ok(Parsed {
        entries: parse_header(&header)?,
        body,
    })
}

fn parse_header(lines: &[&str]) -> Result<Vec<(String, Value, usize)>, String> {
    let mut entries: Vec<(String, Value, usize)> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let number = i + 2; // the `---` is line 1
        let line = lines[i];
        i += 1;
        if is_blank(line) {
            continue;
        }
        if line.starts_with([' ', '\t']) {
            return Err(format!(
                "line {number}: an indented line where a `key: value` was expected"
            ));
        }
        let (key, rest) = line
            .split_once(':')
            .ok_or_else(|| format!("line {number}: expected `key: value`, got {line:?}"))?;
        let key = key.trim();
        if key.is_empty()
            || !key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(format!("line {number}: {key:?} is not a key"));
        }
        if entries.iter().any(|(k, _, _)| k == key) {
            return Err(format!("line {number}: `{key}` is given twice"));
        }
        let rest = strip_comment(rest).trim();
        let value = if rest.is_empty() {
            // A block list, or nothing.
            let mut items = Vec::new();
            while i < lines.len() {
                let item_line = lines[i];
                if is_blank(item_line) {
                    i += 1;
                    continue;
                }
                let trimmed = item_line.trim_start();
                if !(item_line.starts_with([' ', '\t', '-']) && trimmed.starts_with('-')) {
                    break;
                }
                let item = strip_comment(&trimmed[1..]);
                if !item.is_empty() && !item.starts_with([' ', '\t']) {
                    return Err(format!(
                        "line {}: a list item is `- value`, got {trimmed:?}",
                        i + 2
                    ));
                }
                let (text, _) = scalar(item.trim(), i + 2)?;
                items.push(text);
                i += 1;
            }
            Value::List(items)
        } else if rest.starts_with('|') || rest.starts_with('>') {
            return Err(format!(
                "line {number}: block scalars (`|`, `>`) are not supported; write `{key}` on one line"
            ));
        } else if let Some(inner) = rest.strip_prefix('[') {
            let inner = inner.strip_suffix(']').ok_or_else(|| {
                format!("line {number}: the list after `{key}:` has no closing `]`")
            })?;
            Value::List(inline_list(inner, number)?)
        } else {
            let (text, quoted) = scalar(rest, number)?;
            Value::Scalar { text, quoted }
        };
        entries.push((key.to_owned(), value, number));
    }
    Ok(entries)
}

fn is_blank(line: &str) -> bool {
    let t = line.trim();
    t.is_empty() || t.starts_with('#')
}

/// `text` without a trailing ` # comment` outside quotes.
fn strip_comment(text: &str) -> &str {
    let mut quote = None;
    let mut prev = ' ';
    for (at, c) in text.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q && prev != '\\' => quote = None,
            (None, '#') if prev == ' ' || prev == '\t' || at == 0 => return &text[..at],
            _ => {}
        }
        prev = c;
    }
    text
}

/// One scalar: a double-quoted string (with `\"`, `\\`, `\n`, `\t`), a single-quoted one
/// (`''` for a quote), or the text as written.
fn scalar(text: &str, number: usize) -> Result<(String, bool), String> {
    if let Some(inner) = text.strip_prefix('"') {
        let inner = inner
            .strip_suffix('"')
            .ok_or_else(|| format!("line {number}: unclosed `\"`"))?;
        let mut out = String::new();
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            if c != '\\' {
                if c == '"' {
                    return Err(format!("line {number}: a `\"` inside a quoted string"));
                }
                out.push(c);
                continue;
            }
            match chars.next() {
                Some('"') => out.push('"'),
                Some('\\') => out.push('\\'),
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                other => {
                    return Err(format!(
                        "line {number}: unknown escape `\\{}`",
                        other.map(String::from).unwrap_or_default()
                    ));
                }
            }
        }
        return Ok((out, true));
    }
    if let Some(inner) = text.strip_prefix('\'') {
        let inner = inner
            .strip_suffix('\'')
            .ok_or_else(|| format!("line {number}: unclosed `'`"))?;
        if inner.replace("''", "").contains('\'') {
            return Err(format!(
                "line {number}: a `'` inside a single-quoted string is written `''`"
            ));
        }
        return Ok((inner.replace("''", "'"), true));
    }
    Ok((text.to_owned(), false))
}

/// The items of `[a, "b, c", d]` (without the brackets).
fn inline_list(inner: &str, number: usize) -> Result<Vec<String>, String> {
    let mut items = Vec::new();
    let mut current = String::new();
    let mut quote = None;
    let mut prev = ' ';
    for c in inner.chars() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q && !(q == '"' && prev == '\\') => quote = None,
            (None, ',') => {
                items.push(std::mem::take(&mut current));
                prev = c;
                continue;
            }
            (None, '[' | ']') => {
                return Err(format!(
                    "line {number}: lists inside lists are not supported"
                ));
            }
            _ => {}
        }
        current.push(c);
        prev = c;
    }
    if quote.is_some() {
        return Err(format!("line {number}: unclosed quote in the list"));
    }
    items.push(current);
    let last = items.len() - 1;
    let mut out = Vec::new();
    for (at, item) in items.iter().enumerate() {
        let item = item.trim();
        if item.is_empty() {
            // `[]` and a trailing comma are fine; `[a,,b]` is not.
            if at == last {
                continue;
            }
            return Err(format!("line {number}: an empty item in the list"));
        }
        out.push(scalar(item, number)?.0);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::{Value, parse};

    fn plain(text: &str) -> Value {
        Value::Scalar {
            text: text.to_owned(),
            quoted: false,
        }
    }

    #[test]
    fn keys_lists_quotes_and_comments() {
        let text = "---\n# a comment\nname: x   # trailing\ndescription: \"says \\\"hi\\\", # not a comment\"\nother: 'it''s'\ninline: [a, \"b, c\", 'd']\nblock:\n  - one\n  - \"two\"  # two\n\n  - three\nempty: []\n---\n\nThe body.\n\nSecond paragraph.\n";
        let parsed = parse(text).expect("parses");
        let entries: Vec<(&str, &Value)> = parsed
            .entries
            .iter()
            .map(|(k, v, _)| (k.as_str(), v))
            .collect();
        assert_eq!(entries[0], ("name", &plain("x")));
        assert_eq!(
            entries[1],
            (
                "description",
                &Value::Scalar {
                    text: "says \"hi\", # not a comment".into(),
                    quoted: true
                }
            )
        );
        assert_eq!(
            entries[2].1,
            &Value::Scalar {
                text: "it's".into(),
                quoted: true
            }
        );
        assert_eq!(
            entries[3].1,
            &Value::List(vec!["a".into(), "b, c".into(), "d".into()])
        );
        assert_eq!(
            entries[4].1,
            &Value::List(vec!["one".into(), "two".into(), "three".into()])
        );
        assert_eq!(entries[5].1, &Value::List(vec![]));
        assert_eq!(parsed.body, "The body.\n\nSecond paragraph.");
    }

    #[test]
    fn what_is_refused() {
        for (text, why) in [
            ("name: x\n", "no frontmatter"),
            ("", "no frontmatter"),
            ("---\nname: x\n", "no closing"),
            ("---\nname: x\nname: y\n---\n", "given twice"),
            ("---\n  name: x\n---\n", "indented"),
            ("---\njust words\n---\n", "expected `key: value`"),
            ("---\ndescription: |\n  long\n---\n", "block scalars"),
            ("---\ntools: [a, b\n---\n", "no closing `]`"),
            ("---\ntools: [a,,b]\n---\n", "empty item"),
            ("---\ndescription: \"open\n---\n", "unclosed"),
            ("---\ntools:\n  -a\n---\n", "`- value`"),
        ] {
            let err = parse(text).expect_err(text);
            assert!(err.contains(why), "{text:?}: {err}");
        }
    }

    #[test]
    fn line_numbers_count_from_the_fence() {
        let err = parse("---\nname: x\n\nname: y\n---\n").expect_err("twice");
        assert!(err.starts_with("line 4:"), "{err}");
    }
}
