//! Escaping session text into HTML: every character that could open markup, end an attribute
//! or end a script is written as an entity, so no session text is ever read as HTML.

/// Appends `text` to `out`, escaped for element content and quoted attribute values.
pub fn push(out: &mut String, text: &str) {
    let mut last = 0;
    for (i, c) in text.char_indices() {
        let entity = match c {
            '&' => "&amp;",
            '<' => "&lt;",
            '>' => "&gt;",
            '"' => "&quot;",
            '\'' => "&#39;",
            // Line and paragraph separators end a line in old JavaScript parsers.
            '\u{2028}' => "&#8232;",
            '\u{2029}' => "&#8233;",
            _ => continue,
        };
        out.push_str(&text[last..i]);
        out.push_str(entity);
        last = i + c.len_utf8();
    }
    out.push_str(&text[last..]);
}

/// `text`, escaped.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    push(&mut out, text);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_and_separators_become_entities() {
        assert_eq!(
            escape("</script><img src=x onerror=\"a\">'\u{2028}"),
            "&lt;/script&gt;&lt;img src=x onerror=&quot;a&quot;&gt;&#39;&#8232;"
        );
        assert_eq!(escape("plain text"), "plain text");
    }
}
