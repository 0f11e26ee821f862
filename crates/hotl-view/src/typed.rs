//! Stamps as people and models type them: `t12`, `T12` or `12`, or a JSON number.

/// The seq of a typed stamp: `t12`, `T12` or `12` (one `t` at most, digits only).
pub fn stamp_seq(text: &str) -> Option<u64> {
    let text = text.trim();
    let digits = text.strip_prefix(['t', 'T']).unwrap_or(text);
    // `parse` would take a leading `+`; a stamp is digits only.
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Parses a stamp as a tool's arguments carry it: a number, or a string [`stamp_seq`] reads.
pub fn parse_stamp(value: &serde_json::Value) -> Option<u64> {
    match value {
        serde_json::Value::Number(n) => n.as_u64(),
        serde_json::Value::String(s) => stamp_seq(s),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_are_digits_with_one_optional_t() {
        assert_eq!(stamp_seq("t12"), Some(12));
        assert_eq!(stamp_seq(" T7 "), Some(7));
        assert_eq!(stamp_seq("12"), Some(12));
        for bad in ["", "t", "tt1", "+1", "t-1", "1.5", "x1"] {
            assert_eq!(stamp_seq(bad), None, "{bad:?}");
        }
        assert_eq!(parse_stamp(&serde_json::json!(5)), Some(5));
        assert_eq!(parse_stamp(&serde_json::json!("t5")), Some(5));
        assert_eq!(parse_stamp(&serde_json::json!(true)), None);
    }
}
