//! Escaping session text into HTML: every character that could open markup, end an attribute
//! or end a script is written as an entity, so no session text is ever read as HTML.

/// Appends `text` to `out`, escaped for element content and quoted attribute values.
pub fn push(out: &mut String, text: &str) {
    // Bytes, not chars: every character replaced starts with a byte no other UTF-8 sequence
    // holds (ASCII, or 0xE2 for the separators, checked whole).
    let bytes = text.as_bytes();
    out.reserve(text.len());
    let mut last = 0;
    let mut i = 0;
    while i < bytes.len() {
        let (entity, len) = match bytes[i] {
            b'&' => ("&amp;", 1),
            b'<' => ("&lt;", 1),
            b'>' => ("&gt;", 1),
            b'"' => ("&quot;", 1),
            b'\'' => ("&#39;", 1),
            // Line and paragraph separators end a line in old JavaScript parsers.
            0xE2 if bytes[i + 1..].starts_with(&[0x80, 0xA8]) => ("&#8232;", 3),
            0xE2 if bytes[i + 1..].starts_with(&[0x80, 0xA9]) => ("&#8233;", 3),
            _ => {
                i += 1;
                continue;
            }
        };
        out.push_str(&text[last..i]);
        out.push_str(entity);
        i += len;
        last = i;
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
        assert_eq!(escape("é ✓ \u{2027}\u{2028}x"), "é ✓ \u{2027}&#8232;x");
    }
}
